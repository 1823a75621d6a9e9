#!/usr/bin/env bash
# The first command of the quick start: install what is missing, build cn, fetch the local
# model, and run the demo. Safe to run again. Arguments go to `cn demo` (e.g. --dir DIR).
set -euo pipefail
cd "$(dirname "$0")"
start=$(date +%s)
bash scripts/deps.sh
echo "==> building cn (release; the first build compiles llama.cpp and takes a while)"
cargo build --release --locked -p cn
cn="${CARGO_TARGET_DIR:-target}/release/cn"
"$cn" --version
echo "==> fetching the local model (SmolLM2-135M-Instruct)"
"$cn" model pull
echo "==> set up in $(( $(date +%s) - start )) s; running the demo"
# The demo's hubs carry their own git identity; its loop repository needs one on a machine
# with none configured: EMAIL is git's last fallback (your global config is not touched).
export EMAIL="${EMAIL:-cn-demo@localhost}"
exec "$cn" demo "$@"
