#!/bin/sh
# Extract each public data set from its git snapshot (under /work/.mirror, brought by the
# search tool's `fetch`: the repositories named in bench/understand/SOURCES.md) into
# /work/nlu-data/raw/<source>/<split>.tsv — text, intent, slots (JSON, char offsets).
# The data is never committed; bench/understand/train.sh takes it from there.
set -e
cd "$(dirname "$0")"
for s in extract_clinc150 extract_banking77 extract_topv2 extract_mtod extract_snips extract_sgd extract_smcalflow; do
  echo "== $s"; python3 "$s.py"
done
