#!/usr/bin/env bash
# Two builds of cn measured back to back in one hyperfine session, for a change that must not
# move the whole-process figures (issue 14): `cn --version` (and a bare `true` for the ratio),
# `cn out do reply --dry-run` and `cn input` on a hub with 100 queued items, and each binary's
# size. Release builds with the local model linked, as shipped.
# Usage: bench/before_after.sh OLD_CN NEW_CN   (results in $OUT, default /tmp/cn-bench-ba)
set -euo pipefail
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
OLD=$(realpath "$1")
NEW=$(realpath "$2")
OUT=${OUT:-/tmp/cn-bench-ba}
rm -rf "$OUT" && mkdir -p "$OUT"
cd "$OUT"
for v in old new; do
  bin=$OLD; [ "$v" = new ] && bin=$NEW
  "$bin" init "hub-$v" --name sigma >/dev/null
  for i in $(seq 1 100); do
    printf -- '---\nid: q%s\nfrom: owner\ncadence: inbox\nqueued: 2026-01-06T15:00:00Z\n---\n\nPlease review PR #42\n' "$i" >"hub-$v/threads/inbox/q$i.md"
  done
  "$bin" --hub "hub-$v" input >/dev/null
done
hyperfine -N --warmup 20 --runs 300 --export-json version.json \
  "$OLD --version" "$NEW --version" "true"
hyperfine -N --warmup 5 --runs 200 --export-json out.json \
  "$OLD --hub hub-old out do reply --message LGTM --dry-run" \
  "$NEW --hub hub-new out do reply --message LGTM --dry-run" \
  "$OLD --hub hub-old input" \
  "$NEW --hub hub-new input"
python3 - "$OLD" "$NEW" <<'PY'
import json, os, sys
for f in ("version.json", "out.json"):
    for x in json.load(open(f))["results"]:
        print(f'{x["command"]}: median {x["median"]*1000:.2f} ms')
for label, path in (("old", sys.argv[1]), ("new", sys.argv[2])):
    print(f"binary size {label}: {os.path.getsize(path)/1e6:.1f} MB")
PY
