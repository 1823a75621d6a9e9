#!/usr/bin/env bash
# Economy of thought (issue 17): a labeled stream of everyday messages through a fresh
# `cn init` hub with the embedded local model, one reflex pass each (routing and level-2
# triage are real; the routine's effects are performed on the throwaway hub, others dry-run).
#
#   bash bench/economy.sh [CN] [tuning|heldout]    (default: target/release/cn heldout)
#
# bench/economy/tuning.tsv is the half the starter reflexes were tuned on; heldout.tsv was
# written at the same time and never tuned on. Labels: greeting thanks task reminder idea
# summarize time doing (routine) and executive (needs reasoning).
set -euo pipefail
CN=${1:-target/release/cn}
HALF=${2:-heldout}
DIR=$(cd "$(dirname "$0")" && pwd)
FILE="$DIR/economy/$HALF.tsv"
HUB=$(mktemp -d)
trap 'rm -rf "$HUB"' EXIT
"$CN" init "$HUB" >/dev/null
# The routine's lines (task, reminder, idea) are performed on this throwaway hub: the routine
# reflex's answer is what it did to the files, which a dry run cannot say. The rest is a dry
# run (a summary would fetch its link). Each line keeps its place in the output.
: >"$HUB/out.jsonl"
while IFS=$'\t' read -r label text; do
  [ -n "$label" ] || continue
  case "$label" in
    task | reminder | idea) dry=() ;;
    *) dry=(--dry-run) ;;
  esac
  printf '%s\n' "$text" | "$CN" --hub "$HUB" reflex test "${dry[@]}" --lines 2>/dev/null >>"$HUB/out.jsonl"
done <"$FILE"
python3 - "$FILE" "$HUB/out.jsonl" "$HALF" <<'PY'
import json, sys, statistics
labels = [l.rstrip("\n").split("\t", 1) for l in open(sys.argv[1]) if l.strip()]
outs = [json.loads(l) for l in open(sys.argv[2])]
assert len(labels) == len(outs), (len(labels), len(outs))
# What a level-2 triage should answer for each label.
want = {"greeting": "chat", "thanks": "chat", "task": "task", "reminder": "task", "idea": "idea", "executive": "executive"}
routine = [(l, o) for (l, _), o in zip(labels, outs) if l != "executive"]
reasoning = [(l, o) for (l, _), o in zip(labels, outs) if l == "executive"]
below = sum(1 for l, o in routine if not o["escalate"])
up = sum(1 for l, o in reasoning if o["escalate"])
by_level = {}
for l, o in routine:
    lv = "exec" if o["escalate"] else o["level"]
    by_level[lv] = by_level.get(lv, 0) + 1
# Triage accuracy: the items the level-2 model was asked about (no level-0/1 reflex took them
# and a triage reflex's heuristics let them through), its answer against the label.
asked = [(l, o) for (l, _), o in zip(labels, outs) if "triage" in o]
correct = sum(1 for l, o in asked if o["triage"] == want.get(l, "none"))
lat2 = [o["latency_ms"] for l, o in asked]
print(f"half: {sys.argv[3]}  messages: {len(labels)}  routine: {len(routine)}  reasoning: {len(reasoning)}")
print(f"routine answered below the executive: {below}/{len(routine)} = {100*below/len(routine):.1f}%  by level: {by_level}")
print(f"reasoning escalated: {up}/{len(reasoning)} = {100*up/len(reasoning):.1f}%")
if asked:
    print(f"level-2 triage: {len(asked)} asked, {correct} correct = {100*correct/len(asked):.1f}%  median latency {statistics.median(lat2):.0f} ms")
for (l, t), o in zip(labels, outs):
    wrong = (l == "executive") != bool(o["escalate"])
    if wrong:
        print(f"  MISS {l:9} -> {o['reflex'] or 'executive'}{'/' + o['vars'].get('intent','') if o.get('vars',{}).get('intent') else ''}: {t}")
PY
