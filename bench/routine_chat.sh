#!/usr/bin/env bash
# The round trip of a routine request through `cn chat` with a daemon running (issue 31's
# goal: ≤ 50 ms, whole process): a fresh `cn init` hub (no executive), `cn run` in the
# background, then hyperfine times the whole `cn chat "<request>"` process — it posts to the
# daemon's owner endpoint, the daemon takes the item, the `routine` reflex (level 1) answers
# and the decision is committed, and chat prints the answer. Two requests: one that reads
# ("what's on my list?") and one that files a task ("remind me to … tomorrow at 10am"; the
# hub's tasks.json grows by one a run).
#
#   bash bench/routine_chat.sh [RUNS]     (default 100; builds the release binary first;
#                                          CN=path/to/cn to time another binary)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
runs=${1:-100}
if [ -n "${CN:-}" ]; then
  bin=$CN
else
  cargo build --release --locked -p cn >/dev/null
  bin="${CARGO_TARGET_DIR:-$(pwd)/target}/release/cn"
fi
work=$(mktemp -d)
daemon=""
cleanup() {
  [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
hub="$work/ada"
"$bin" init "$hub" --name ada >/dev/null
printf '\nreflexes:\n  time_zone: UTC\n' >>"$hub/cn.yaml"
CN_LOG=error "$bin" --hub "$hub" run >/dev/null 2>"$work/daemon.log" &
daemon=$!
for _ in $(seq 1 600); do
  [ -s "$hub/state/run.json" ] && grep -q owner_url "$hub/state/run.json" && break
  sleep 0.1
done
grep -q owner_url "$hub/state/run.json" || { echo "the daemon did not start:" >&2; cat "$work/daemon.log" >&2; exit 1; }
# One of each first: the answers the figure is about.
"$bin" --hub "$hub" chat "remind me to call the bank tomorrow at 10am"
"$bin" --hub "$hub" chat "what's on my list?"
mkdir -p bench/out
# The owner endpoint takes 5 requests a second after a burst of 20 (then 429): a quarter of a
# second between runs, untimed.
hyperfine -N --warmup 10 --runs "$runs" --prepare "sleep 0.25" --export-json bench/out/routine_chat.json \
  -n list "$bin --hub $hub chat what is on my list?" \
  -n add "$bin --hub $hub chat remind me to water the plants tomorrow at 10am"
python3 - <<'PY'
import json
for x in json.load(open("bench/out/routine_chat.json"))["results"]:
    t = sorted(x["times"])
    p95 = t[int(len(t) * 0.95) - 1]
    print(f'{x["command"]}: median {x["median"]*1000:.1f} ms, p95 {p95*1000:.1f} ms, min {x["min"]*1000:.1f} ms over {len(t)} runs')
PY
echo "tasks filed: $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$hub/state/tasks.json")"
