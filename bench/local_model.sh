#!/bin/sh
# Local model figures: load time, generation tokens/s and peak RSS of `cn ask --level 2`
# (a fresh process each run: load + one constrained answer), via /usr/bin/time -v, then the
# medians. If the `local_speed` example is built next to cn (cargo build --release -p
# cn-models --example local_speed), it also runs it: generation with and without the
# grammar in one process, for the raw decode speed.
# Usage: [THREADS=n] bench/local_model.sh [path/to/cn] [runs] [path/to/local_speed]
set -eu
CN=${1:-target/debug/cn}
RUNS=${2:-5}
SPEED=${3:-$(dirname "$CN")/examples/local_speed}
HUB=$(mktemp -d)
trap 'rm -rf "$HUB"' EXIT
if [ -n "${THREADS:-}" ]; then
  printf 'models:\n  local:\n    threads: %s\n' "$THREADS" > "$HUB/cn.yaml"
else
  : > "$HUB/cn.yaml"
fi
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { grep -o "$1=[^ ]*" | head -1 | cut -d= -f2 | tr -d '"'; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), threads: ${THREADS:-default}"
for i in $(seq "$RUNS"); do
  CN_LOG=cn_models=info NO_COLOR=1 /usr/bin/time -v "$CN" --hub "$HUB" ask --level 2 \
    "Please remind me to review PR #42 on Monday and tell Alice it is done." \
    > /dev/null 2> "$HUB/err.$i"
  sed -i 's/\x1b\[[0-9;]*m//g' "$HUB/err.$i"
  rss=$(grep 'Maximum resident set size' "$HUB/err.$i" | awk '{print $6}')
  wall=$(grep 'Elapsed (wall clock)' "$HUB/err.$i" | awk '{print $8}')
  line=$(grep 'local model answered' "$HUB/err.$i" || true)
  echo "run $i: wall $wall, peak RSS ${rss} KB, $(echo "$line" | sed 's/.*answered //')"
  echo "$rss" >> "$HUB/rss"
  echo "$line" | field load_ms >> "$HUB/load"
  echo "$line" | field tokens_per_second >> "$HUB/tps"
done
echo "median of $RUNS: load $(median < "$HUB/load") ms, generation $(median < "$HUB/tps") tok/s, peak RSS $(median < "$HUB/rss") KB"
if [ -x "$SPEED" ]; then
  "$SPEED" ${THREADS:+"$THREADS"}
fi
