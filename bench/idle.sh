#!/bin/sh
# The idle daemon: resident memory and CPU time of `cn run` on a fresh hub with nothing to do
# (the local model not loaded; the owner endpoint listening; default pacing: 60 s idle).
# RSS is read after a settle period; CPU is the time every thread spent on a CPU over the
# window, in nanoseconds (the first field of /proc/PID/task/*/schedstat).
# SETTLE (seconds, default 5): when the window starts. The first idle check after start
# faults back the code pages the idle loop needs (the daemon released the rest); with
# SETTLE=65 the window starts after it and measures the steady state.
# Usage: [SETTLE=s] bench/idle.sh [path/to/cn] [window-seconds]
set -eu
CN=${1:-target/release/cn}
WINDOW=${2:-120}
DIR=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$DIR"' EXIT
"$CN" init "$DIR/hub" --name idle > /dev/null
# cn init binds the owner endpoint to a free loopback port.
"$CN" --hub "$DIR/hub" run 2> "$DIR/err" &
PID=$!
SETTLE=${SETTLE:-5}
sleep "$SETTLE"
cpu_ns() { cat /proc/$PID/task/*/schedstat | awk '{ns += $1} END {printf "%d", ns}'; }
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
t0=$(cpu_ns)
sleep "$WINDOW"
t1=$(cpu_ns)
rss_after=$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")
threads=$(awk '/^Threads/ {print $2}' "/proc/$PID/status")
kill -TERM $PID
wait $PID || true
awk -v s="$SETTLE" -v r="$rss" -v r2="$rss_after" -v d=$((t1 - t0)) -v w="$WINDOW" -v th="$threads" 'BEGIN {
  printf "idle RSS %.1f MB at %d s, %.1f MB after %d s more; %d threads; CPU %.3f ms per idle minute (%.3f ms in %d s)\n",
    r / 1024, s, r2 / 1024, w, th, d / 1e6 * 60 / w, d / 1e6, w }'
