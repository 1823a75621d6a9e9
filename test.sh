#!/usr/bin/env bash
# The second command of the quick start: the whole test suite.
set -euo pipefail
cd "$(dirname "$0")"
# What the tests drive besides cn (Chromium, Dovecot, aiosmtpd); installs only what is missing.
bash scripts/deps.sh --test
# Scratch repositories the tests make need an identity on a machine with none configured;
# EMAIL is git's last fallback, below any user.email (the hubs' own identity wins).
export EMAIL="${EMAIL:-cn-tests@localhost}"
# Every process of the run carries CN_TEST_RUN; one still running after it is a leak (a
# server a test did not stop), and fails the run (scripts/survivors.sh names and kills it).
marker="$$-$(date +%s%N)"
status=0
CN_TEST_RUN="$marker" cargo test --workspace --locked "$@" || status=$?
bash scripts/survivors.sh "$marker" || status=1
exit "$status"
