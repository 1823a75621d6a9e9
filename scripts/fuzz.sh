#!/usr/bin/env bash
# Build every libFuzzer target under fuzz/ and run each for SECONDS (default 20), starting
# from its seed corpus in fuzz/corpus/TARGET. Works on the stable toolchain: no sanitizer
# (`--sanitizer none`; Rust code needs none for memory safety, and a panic, an overflow
# (debug assertions on) or a stack overflow is what we look for), libFuzzer's coverage
# instrumentation through stable `-C` flags. New inputs go to fuzz/target/work/TARGET, not to
# the committed corpus; a crash's input is kept in fuzz/artifacts/TARGET/ and fails the run
# after every target has had its turn. Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs="${1:-20}"
shift || true
export CARGO_INCREMENTAL=0
flags=(--sanitizer none --release --debug-assertions)
cargo fuzz build "${flags[@]}"
targets=("$@")
((${#targets[@]})) || mapfile -t targets < <(cargo fuzz list)
failed=()
for t in "${targets[@]}"; do
  echo "==> fuzz $t for ${secs}s"
  mkdir -p "target/work/$t" "corpus/$t"
  if ! cargo fuzz run "${flags[@]}" "$t" "target/work/$t" "corpus/$t" -- \
      -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 2>"target/work/$t.log"; then
    tail -n 40 "target/work/$t.log" >&2
    failed+=("$t")
  else
    grep -E '^stat::number_of_executed_units|^Done ' "target/work/$t.log" || true
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: crashes in ${failed[*]} (inputs under fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${secs}s each, no crash"
