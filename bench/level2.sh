#!/bin/sh
# Level-2 decisions on the embedded model (issue 17's figures):
#  1. a fresh `cn ask --level 2` process: wall time, the first run on a hub (which writes the
#     prompt cache to state/cache/) and the median of the runs after it;
#  2. the same at load ≈ LOAD (default 4: that many busy loops beside it), median wall;
#  3. in the daemon (`cn run`), owner messages through `cn chat` that no reflex answers: the
#     model call (`elapsed_ms` in state/interactions.jsonl) and the whole round trip, medians;
#     RSS with the model loaded, then after `release_after` (2 s here) has freed it.
# Usage: [LOAD=n] bench/level2.sh [path/to/cn] [runs]
set -eu
CN=${1:-target/release/cn}
RUNS=${2:-7}
LOAD=${LOAD:-4}
DIR=$(mktemp -d)
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null || true; done; rm -rf "$DIR"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms() { date +%s%3N; }
ITEM="Please remind me to review PR #42 on Monday and tell Alice it is done."
echo "machine: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

"$CN" init "$DIR/ask" --name ask > /dev/null
t0=$(ms); "$CN" --hub "$DIR/ask" ask --level 2 "$ITEM" > /dev/null 2>&1; t1=$(ms)
echo "fresh cn ask --level 2, first on the hub (writes the prompt cache): $((t1 - t0)) ms"
# Wall time, and the process's CPU time (user + sys): what the same run takes on a core of
# its own, which a shared machine's load distorts far less.
for i in $(seq "$RUNS"); do
  t0=$(ms); /usr/bin/time -f "%U %S" -o "$DIR/cpu.$i" "$CN" --hub "$DIR/ask" ask --level 2 "$ITEM" > /dev/null 2>&1; t1=$(ms)
  echo $((t1 - t0)) >> "$DIR/fresh"
  awk '{printf "%d\n", ($1 + $2) * 1000}' "$DIR/cpu.$i" >> "$DIR/fresh_cpu"
done
echo "fresh cn ask --level 2, prompt cache on disk: wall median $(median < "$DIR/fresh") ms of $RUNS ($(sort -n "$DIR/fresh" | tr '\n' ' ')); CPU median $(median < "$DIR/fresh_cpu") ms"

i=0; BUSY=""
while [ $i -lt "$LOAD" ]; do sh -c 'while :; do :; done' & BUSY="$BUSY $!"; i=$((i + 1)); done
PIDS="$PIDS $BUSY"
for i in $(seq "$RUNS"); do
  t0=$(ms); "$CN" --hub "$DIR/ask" ask --level 2 "$ITEM" > /dev/null 2>&1; t1=$(ms)
  echo $((t1 - t0)) >> "$DIR/loaded"
done
echo "fresh cn ask --level 2 beside $LOAD busy loops (load average now $(cut -d' ' -f1 /proc/loadavg)): median $(median < "$DIR/loaded") ms ($(sort -n "$DIR/loaded" | tr '\n' ' '))"
for p in $BUSY; do kill $p; done

"$CN" init "$DIR/hub" --name ada > /dev/null
# cn init binds the owner endpoint to a free loopback port.
sed -i 's/^    provider: embedded$/    provider: embedded\n    release_after: 2s/' "$DIR/hub/cn.yaml"
printf 'pacing:\n  idle: 1s\n  active: 1s\n' >> "$DIR/hub/cn.yaml"
"$CN" --hub "$DIR/hub" run 2> "$DIR/err" &
PID=$!; PIDS="$PIDS $PID"
n=0; while [ ! -s "$DIR/hub/state/run.json" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
rss() { awk '/^VmRSS/ {print $2}' "/proc/$PID/status"; }
echo "daemon idle before any item: RSS $(($(rss) / 1024)) MB"
for i in $(seq "$RUNS"); do
  t0=$(ms); "$CN" --hub "$DIR/hub" chat "Check whether build $i of the nightly backup finished and tell me." > /dev/null 2>&1; t1=$(ms)
  echo $((t1 - t0)) >> "$DIR/chat"
done
loaded=$(rss)
grep -o '"elapsed_ms":[0-9]*' "$DIR/hub/state/interactions.jsonl" | cut -d: -f2 > "$DIR/ask_ms" || true
echo "daemon, level 2 deciding owner messages: model call median $(median < "$DIR/ask_ms") ms ($(tr '\n' ' ' < "$DIR/ask_ms")); cn chat round trip median $(median < "$DIR/chat") ms"
echo "daemon RSS with the model loaded: $((loaded / 1024)) MB"
n=0; while [ "$(rss)" -gt $((loaded / 2)) ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
sleep 3
echo "daemon RSS after release_after (2 s) and the idle rest: $(($(rss) / 1024)) MB"
grep -c "local model released" "$DIR/err" > /dev/null 2>&1 || true
