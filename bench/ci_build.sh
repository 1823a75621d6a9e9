#!/usr/bin/env bash
# CI's build of the test suite, measured the way CI pays for it: a clean clone of COMMIT, an
# empty target directory, `cargo test --workspace --no-run` (every test binary built and
# linked, none run). Prints the wall time and the target directory's peak size (sampled every
# 5 s; `du` of the directory, so other builds on the machine do not count). Issue 32's figure
# (one integration-test binary per crate) is this script at the commit before the change and
# at the change, on a quiet machine:
#   bench/ci_build.sh b0202a0     # before: a binary per test file
#   bench/ci_build.sh 315693e     # after: one binary per crate
# Needs the toolchain and llama.cpp's build tools (scripts/deps.sh); the cargo registry cache
# is reused (CI restores it too), the build itself starts from nothing.
set -euo pipefail

COMMIT=${1:?usage: bench/ci_build.sh COMMIT}
REPO=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/cn-ci-build.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

git clone -q "$REPO" "$WORK/src"
git -C "$WORK/src" checkout -q "$COMMIT"
export CARGO_TARGET_DIR="$WORK/target"
# As CI builds (.ci/run): one build, no incremental caches.
export CARGO_INCREMENTAL=0
mkdir -p "$CARGO_TARGET_DIR"

load=$(cut -d' ' -f1-3 /proc/loadavg)
sample() {
  while sleep 5; do
    size=$(du -sb "$CARGO_TARGET_DIR" 2>/dev/null | cut -f1)
    echo "$size" >>"$WORK/sizes"
  done
}
sample &
sampler=$!
start=$(date +%s.%N)
(cd "$WORK/src" && cargo test --workspace --no-run --quiet) >"$WORK/build.log" 2>&1 || {
  kill "$sampler"
  tail -30 "$WORK/build.log"
  exit 1
}
end=$(date +%s.%N)
kill "$sampler"
du -sb "$CARGO_TARGET_DIR" | cut -f1 >>"$WORK/sizes"
peak=$(sort -n "$WORK/sizes" | tail -1)
binaries=$(find "$CARGO_TARGET_DIR/debug/deps" -maxdepth 1 -type f -executable | wc -l)

printf 'commit %s: cargo test --workspace --no-run from an empty target\n' "$(git -C "$WORK/src" rev-parse --short HEAD)"
printf '  wall time   %.0f s\n' "$(echo "$end - $start" | bc)"
printf '  peak target %.2f GB (%d bytes)\n' "$(echo "$peak / 1000000000" | bc -l)" "$peak"
printf '  final target %.2f GB\n' "$(echo "$(du -sb "$CARGO_TARGET_DIR" | cut -f1) / 1000000000" | bc -l)"
printf '  executables in target/debug/deps: %d\n' "$binaries"
printf '  machine: %s cores, load at start %s\n' "$(nproc)" "$load"
