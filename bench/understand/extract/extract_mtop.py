#!/usr/bin/env python3
"""MTOP (Li et al. 2021; CC BY-SA 4.0), English, test and eval splits: the alarm, reminder and
timer requests read as cn's intents exactly as TOPv2's are (assemble.py's TOPV2 table — the two
sets share their label names), and its weather, music, messaging and event requests as not
routine (assemble.py's TOPV2_NOT_ROUTINE) — **test only**, never trained or tuned on.

    python3 extract_mtop.py GIT_DIR OUT_JSONL NLU_DATA_DIR

GIT_DIR: the snapshot of karanpraharaj/fairseq (`fetch`), which holds MTOP's release under
`mtop/`; OUT_JSONL: one request a line in the judge's form ({"text", "intent", "slots", "source",
"orig", "split"}); NLU_DATA_DIR: every *.jsonl under it (and every *.tsv with a `text` column:
the raw extractions) is read, and a line whose text equals any of theirs once normalised (lower
case, punctuation gone, digits as #, spaces collapsed — or gone) is dropped, as is a repeat.

MTOP's TSV: id, intent, top-level slots ("start:end:SL:LABEL", comma-separated, in UTF-8 *byte*
offsets), utterance, domain, locale, decoupled form (TOP's brackets with the words outside any
slot left out, and the slots now and then in another order than said), tokens (JSON). The
decoupled form gives the intent and the top-level slots (topparse.parse); since it leaves words
out, topparse.align cannot place it, and each slot's span is taken from the third column (byte
offsets made characters), checked against the form's labels and words. A line where they
disagree is dropped and counted.
"""
import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from common import check_slots, write_jsonl  # noqa: E402
from topparse import parse  # noqa: E402
from assemble import TOPV2, TOPV2_NOT_ROUTINE, ex, mapped  # noqa: E402

COMMIT = "2a0cbd44b746504b11764af16cd91059933a6687"
SPLITS = ("test", "eval")


def keys(t):
    """The normalised forms a text is compared by: punctuation dropped or read as a space, and
    either with its spaces gone too."""
    t = re.sub(r"\d+", "#", t.lower())
    out = {" ".join(re.sub(r"[^\w\s]", sub, t).replace("_", sub).split()) for sub in ("", " ")}
    return out | {k.replace(" ", "") for k in out}


def known_texts(root, skip):
    """Every normalised text under `root`, by the kind of file it came from."""
    known = {"jsonl": set(), "tsv": set()}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            if os.path.abspath(p) in skip:
                continue
            if f.endswith(".jsonl"):
                with open(p, encoding="utf-8") as fh:
                    for ln in fh:
                        if ln.strip():
                            known["jsonl"] |= keys(json.loads(ln)["text"])
            elif f.endswith(".tsv"):
                with open(p, encoding="utf-8") as fh:
                    head = fh.readline().rstrip("\n").split("\t")
                    if "text" not in head:
                        continue
                    i = head.index("text")
                    for ln in fh:
                        c = ln.rstrip("\n").split("\t")
                        if len(c) > i:
                            known["tsv"] |= keys(c[i])
    return known


def seen_before(k, known, seen):
    """Why a text of keys `k` (`keys`) is dropped — in nlu-data (`known_texts`), or a repeat of
    one in `seen` — or None, `k` then added to `seen`."""
    if k & known["jsonl"]:
        return "text in nlu-data *.jsonl"
    if k & known["tsv"]:
        return "text in nlu-data raw *.tsv only"
    if k & seen:
        return "repeat"
    seen |= k
    return None


def squash(s):
    return "".join(s.split())


def top_slots(root, words, utt, col):
    """The root's top-level slots with character spans, from the third column's byte spans,
    each matched to the decoupled form's slot of that label (and, if not nested, its words);
    None if they disagree."""
    b = utt.encode("utf-8")
    spans = []
    for x in col.split(",") if col else []:
        a, e, label = x.split(":", 2)
        st, en = len(b[: int(a)].decode("utf-8")), len(b[: int(e)].decode("utf-8"))
        spans.append([label, st, en, False])
    out = []
    for c in root.children:
        if not c.label.startswith("SL:"):
            return None
        w = words[c.tok_start : c.tok_end]
        for s in spans:
            if s[3] or s[0] != c.label:
                continue
            text = squash(utt[s[1] : s[2]])
            # A nested slot's words are only its inner slots' (the decoupled form): in order within.
            if (not c.children and squash("".join(w)) == text) or (c.children and re.search(".*".join(map(re.escape, (squash(x) for x in w))), text)):
                s[3] = True
                out.append({"slot": c.label[3:], "start": s[1], "end": s[2], "text": utt[s[1] : s[2]]})
                break
        else:
            return None
    if not all(s[3] for s in spans):
        return None
    out.sort(key=lambda s: s["start"])
    check_slots(utt, out)
    return out


def lines(git_dir, split):
    raw = subprocess.check_output(["git", "--git-dir", git_dir, "show", f"{COMMIT}:mtop/en/{split}.txt"])
    for ln in raw.decode("utf-8").split("\n"):
        if ln:
            c = ln.split("\t")
            assert len(c) == 8 and c[5] == "en_XX", ln
            yield c


def main():
    git_dir, out_path, nlu = sys.argv[1:4]
    skip = {os.path.abspath(out_path), os.path.abspath(out_path + ".tmp")}
    known = known_texts(nlu, skip)
    dropped = collections.Counter()
    seen, rows = set(), []
    for split in SPLITS:
        for _id, intent, col, utt, domain, _locale, form, _tokens in lines(git_dir, split):
            root, words = parse(form)
            assert root.label == intent, (intent, form)
            name = intent[3:] if intent.startswith("IN:") else intent
            if name in TOPV2:
                slots = top_slots(root, words, utt, col)
                if slots is None:
                    dropped["form and spans disagree"] += 1
                    continue
                cn, slot_map = TOPV2[name]
                e = ex(utt, cn, mapped({"slots": json.dumps(slots)}, slot_map), "mtop", name)
            elif domain in TOPV2_NOT_ROUTINE and not name.startswith("UNSUPPORTED"):
                e = ex(utt, "none", [], "mtop", name)
            else:
                dropped["not mapped (as in TOPv2)"] += 1
                continue
            why = seen_before(keys(utt), known, seen)
            if why:
                dropped[why] += 1
                continue
            e["split"] = split
            rows.append(e)
    write_jsonl(out_path, rows)
    print(f"mtop @ {COMMIT[:8]}: {len(rows)} lines written to {out_path}")
    for split in SPLITS:
        c = collections.Counter(r["intent"] for r in rows if r["split"] == split)
        print(f"  {split}: {sum(c.values())} {dict(sorted(c.items()))}")
    print("  by MTOP intent:", dict(sorted(collections.Counter(r["orig"] for r in rows).items())))
    print("  dropped:", dict(dropped))


if __name__ == "__main__":
    main()
