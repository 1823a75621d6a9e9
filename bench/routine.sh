#!/usr/bin/env bash
# The routine (issue 31): the share of a corpus half that had exactly its effect, was handed
# up (left to the executive or asked about), or had a wrong effect — through the library, on a
# fresh copy of bench/routine/fixture at the corpus's fixed now (Thu 2026-11-26 14:30,
# Europe/Paris). bench/routine/corpus-tune.tsv is the half the parser was tuned on;
# corpus-heldout.tsv was written with it, before the parser, and is never tuned on.
#
#   bash bench/routine.sh [tune|heldout]     (default heldout)
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --quiet --release -p cn-reflex --example routine_corpus -- "${1:-heldout}"
