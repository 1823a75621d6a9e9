#!/usr/bin/env bash
# The agent layer's figures (issue 3), whole-process, with hyperfine:
#   cn input, cn out … --dry-run      ≤ 5 ms median
#   cn out do reply (with its commit) ≤ 50 ms median
#   cn sync of 100 messages between two hubs ≤ 2 s
# Usage: cargo build --release -p cn --no-default-features && bench/agent.sh
# (CN=path/to/cn overrides the binary; results land in $OUT, default /tmp/cn-bench-agent.)
set -euo pipefail

CN=${CN:-${CARGO_TARGET_DIR:-target}/release/cn}
CN=$(realpath "$CN")
OUT=${OUT:-/tmp/cn-bench-agent}
rm -rf "$OUT" && mkdir -p "$OUT"
cd "$OUT"

item() { # item HUB ID — an owner's item in the inbox
  printf -- '---\nid: %s\nfrom: owner\ncadence: inbox\nqueued: 2026-01-06T15:00:00Z\n---\n\nPlease review PR #42\n' "$2" >"$1/threads/inbox/$2.md"
}

# One hub with a current item and 100 more queued.
"$CN" init hub --name sigma >/dev/null
for i in $(seq 1 100); do item hub "q$i"; done
"$CN" --hub hub peer add pi "$OUT/pi.git" >/dev/null
"$CN" --hub hub input >/dev/null

hyperfine -N --warmup 5 --runs 200 --export-json input.json \
  "$CN --hub hub input" \
  "$CN --hub hub input --json" \
  "$CN --hub hub out do reply --message LGTM --dry-run" \
  "$CN --hub hub out do send --to pi --message hello --body full --dry-run --json"

# cn out do reply end to end: record, effects, journal, file the item, git commit.

export CN OUT
hyperfine --warmup 3 --runs 60 --export-json reply.json \
  --prepare 'id=r$RANDOM$RANDOM; printf -- "---\nid: $id\nfrom: owner\ncadence: inbox\nqueued: 2000-01-01T00:00:00Z\n---\n\nPlease review\n" > hub/threads/inbox/$id.md; $CN --hub hub input >/dev/null' \
  "$CN --hub hub out do reply --message LGTM"

# cn sync of 100 messages between two hubs: a pushes 100 mails, b takes all 100.
for h in a b; do
  "$CN" init "$h" --name "$h" >/dev/null
  git init -q --bare "$h.git"
  git -C "$h" remote add origin "$OUT/$h.git"
done
"$CN" --hub a peer add b "$OUT/b.git" >/dev/null
"$CN" --hub b peer add a "$OUT/a.git" >/dev/null
cat >fill.sh <<'FILL'
#!/usr/bin/env bash
# 100 mails from a to b in a's outbox, as `cn send` or `cn out do send` leave them.
for i in $(seq 1 100); do
  id=m$RANDOM$RANDOM$i
  printf -- '---\nid: %s\nto: b\nfrom: a\nthread: %s\ncreated: 2026-01-06T15:00:00Z\n---\n\nmessage %s\n' "$id" "$id" "$i" >"$OUT/a/threads/mail/outbox/$id.md"
done
FILL
chmod +x fill.sh
hyperfine --warmup 1 --runs 10 --export-json sync.json \
  --prepare "$OUT/fill.sh" \
  "$CN --hub a sync && $CN --hub b sync"
test "$(ls b/threads/inbox/*.md | wc -l)" -ge 100

python3 - <<'PY'
import json
for f in ["input.json", "reply.json", "sync.json"]:
    for r in json.load(open(f))["results"]:
        print(f"{r['median']*1000:9.2f} ms median  {r['command']}")
PY
