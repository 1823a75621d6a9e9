#!/usr/bin/env bash
# Whole-process start of `cn --version` against a shell's `true`, with hyperfine.
# Usage: bash bench/startup.sh   (builds the release binary first)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release --locked -p cn >/dev/null
bin="${CARGO_TARGET_DIR:-target}/release/cn"
mkdir -p bench/out
hyperfine -N --warmup 20 --runs 300 --export-json bench/out/startup.json "$bin --version" "true"
python3 - <<'PY'
import json
r = json.load(open("bench/out/startup.json"))["results"]
for x in r:
    print(f'{x["command"]}: median {x["median"]*1000:.2f} ms')
print(f'ratio: {r[0]["median"]/r[1]["median"]:.1f}x a bare process start')
PY
ls -l "$bin" | awk '{printf "binary size: %.1f MB\n", $5/1e6}'
