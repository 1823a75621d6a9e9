#!/usr/bin/env bash
# The second command of the quick start: the whole test suite.
set -euo pipefail
cd "$(dirname "$0")"
exec cargo test --workspace --locked
