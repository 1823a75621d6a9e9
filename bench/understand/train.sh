#!/usr/bin/env bash
# Remake crates/understand/model/understand.bin: assemble the corpus from the public data sets
# (RAW: the sources as bench/understand/extract/ leaves them) and train the intent classifier
# and the slot tagger on their training splits. Deterministic: the same data, the same bytes.
# The Schuster et al. set is assembled for testing only: its licence could not be confirmed
# from a primary source (bench/understand/SOURCES.md), and most of it is in TOPv2 anyway.
#   bash bench/understand/train.sh [RAW] [OUT]
set -euo pipefail
cd "$(dirname "$0")/../.."
raw="${1:-/work/nlu-data/raw}"
out="${2:-/work/nlu-data/cn}"
python3 bench/understand/assemble.py --raw "$raw" --out "$out"
cargo run --release -q -p cn-understand --example train -- crates/understand/model/understand.bin \
  "$out/topv2/train.jsonl" "$out/sgd/train.jsonl" "$out/clinc/train.jsonl" \
  "$out/banking77/train.jsonl" "$out/snips/train.jsonl" "$out/smcalflow/train.jsonl" "$out/generated/train.jsonl"
