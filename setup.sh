#!/usr/bin/env bash
# The first command of the quick start: install what is missing, build cn, fetch the local
# model, and run the demo. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/deps.sh
echo "==> building cn (release)"
cargo build --release --locked -p cn
./target/release/cn --version
if ./target/release/cn model --help >/dev/null 2>&1; then
  echo "==> fetching the local model"
  ./target/release/cn model pull
fi
echo "==> running the demo"
if ./target/release/cn demo --help >/dev/null 2>&1; then
  exec ./target/release/cn demo "$@"
else
  # Until the demo lands: show the kernel's parse on a sample answer.
  printf 'Sample answer.\n\n```yaml\ntool: reply\nmessage: hello\n```\n' | ./target/release/cn parse
fi
