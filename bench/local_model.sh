#!/bin/sh
# Local model figures: load time, generation tokens/s and peak RSS of `cn ask --level 2`
# (a fresh process each run: load + one constrained answer), via /usr/bin/time -v.
# Usage: bench/local_model.sh [path/to/cn] [runs]
set -eu
CN=${1:-target/debug/cn}
RUNS=${2:-5}
HUB=$(mktemp -d)
trap 'rm -rf "$HUB"' EXIT
: > "$HUB/cn.yaml"
for i in $(seq "$RUNS"); do
  CN_LOG=cn_models=info /usr/bin/time -v "$CN" --hub "$HUB" ask --level 2 \
    "Please remind me to review PR #42 on Monday and tell Alice it is done." \
    > /dev/null 2> "$HUB/err.$i"
  rss=$(grep 'Maximum resident set size' "$HUB/err.$i" | awk '{print $6}')
  wall=$(grep 'Elapsed (wall clock)' "$HUB/err.$i" | awk '{print $8}')
  stats=$(grep 'local model answered' "$HUB/err.$i" | sed 's/.*answered //; s/\x1b\[[0-9;]*m//g')
  echo "run $i: wall $wall, peak RSS ${rss} KB, $stats"
done
