#!/usr/bin/env python3
"""KVRET, the Stanford in-car assistant set (Eric et al. 2017, "Key-Value Retrieval Networks
for Task-Oriented Dialogue"; licence not confirmed): the **first driver turn** of each
calendar-scheduling dialogue, read as cn's intents — **test only**, never trained or tuned on
(any of its splits: cn never saw one). Its drivers were crowd workers (Wizard-of-Oz) who never
saw cn.

    python3 extract_kvret.py GIT_DIR OUT_JSONL NLU_DATA_DIR [CONVLAB_GIT_DIR]

GIT_DIR: the snapshot of s6fikass/Chatbot_KVNN (`fetch`), which holds the release's test and dev
json files under `data/` (its train file is listed but absent from the snapshot);
CONVLAB_GIT_DIR: the snapshot of ConvLab/ConvLab-3, whose `data/unified_datasets/kvret/data.zip`
is the whole release (made from Stanford's own zip) in ConvLab's unified form — read for the
train split, once it is checked to give the same first turns, knowledge-base kinds and
annotations as the json files on every test and dev schedule dialogue. (WING-NUS/sequicity
holds the json files too, but its test file's annotations differ from the release's in 17
dialogues: not used.)

OUT_JSONL: one request a line in the judge's form ({"text", "intent", "slots", "source",
"orig", "split", "id"}), and beside it `test-spoken.jsonl`, each line rendered as speech
(assemble.py's `spoken`); NLU_DATA_DIR: a line whose text (lower case, punctuation gone,
digits as #, spaces collapsed or gone) is in any *.jsonl or raw *.tsv under it is dropped, as is
a repeat (extract_mtop.py's `keys`; test first, then dev, then train).

Only the first driver turn: later ones lean on what was said before. A schedule dialogue is
one of two kinds, told by its knowledge base: with none (`kb.items` null) the driver asks for
an event to be put on the calendar — `add`; with one, the driver asks about events it holds.
The turn's slots are those the wizard annotated on the assistant's turn that follows it
(event, date, time, party, room, agenda), found again in the turn's own words:

- `add` (no knowledge base; a request, not a question): `what` the event (with "with PARTY"
  when said right after it), `when` the date and time (one span: dropped when said apart, as
  the judge reads one time). Dropped when a value cannot be found in the words, or a time word
  is said outside the slots. A request that names nothing ("set a reminder") is kept without
  `what`, when no event was annotated.
- `list` (a knowledge base; asks when or what time — "when is my next dentist appointment"):
  `item` the event asked about (the judge seeds it), `when` a date or time said; or about the
  whole schedule or calendar, no event named.
- `none` (a knowledge base; asks only who, where, which room or what agenda — details cn's
  hub does not hold, read as bfsolutions' FindCalendarWho/Where/Detail are).
- Dropped: a question asking both a time and such a detail (KVRET's drivers often ask two of
  its fields at once), one about the whole event ("info about …"), "my agenda" (the day's, or a
  meeting's topic), a turn neither reads as, and one whose annotated event is not in its words.
"""
import collections
import io
import json
import os
import re
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from common import check_slots, write_jsonl  # noqa: E402
from extract_mtop import keys, known_texts, seen_before  # noqa: E402
from assemble import spoken  # noqa: E402

COMMIT = "fe6304c70450d130d1393ee09a55e146cc007a2f"  # s6fikass/Chatbot_KVNN
CONVLAB_COMMIT = "2a168fc9843e54a468ddec71e001b7559c36aff4"  # ConvLab/ConvLab-3
CONVLAB_ZIP = "data/unified_datasets/kvret/data.zip"
CONVLAB_SPLIT = {"test": "test", "dev": "validation", "train": "train"}

NUM = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
NUM.update({w: str(i) for i, w in enumerate(
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split()) if i})
SKIPPABLE = {"the", "my", "a", "an", "th", "st", "nd", "rd", "00", "o", "clock"}

TIME_WORD = re.compile(
    r"\d|\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|today|tonight|tomorrow|yesterday|morning|afternoon|"
    r"evening|night|noon|midnight|week|weekend|month|am|pm|a\.m|p\.m|o'?clock|next|first|second|third|fourth|"
    r"fifth|sixth|seventh|eighth|ninth|tenth|\w+teenth|twentieth|thirtieth|daily|every)\b",
    re.I,
)
REQUEST = re.compile(r"\b(remind|reminder|schedule|set|add|put|make|create|book|arrange|plan|calendar|note|save)\b", re.I)
DECLARE = re.compile(r"^\W*(?:(?:hi|hey|hello|ok|okay)?\W*(?:car|assistant)?\W*)?(?:i have|i've got|i got)\b", re.I)
QUESTION_START = re.compile(
    r"^\W*(?:(?:hi|hey|hello|ok|okay|car|assistant|please)\W+)*(?:what|when|where|who|whom|which|how|do|does|is|are|am|"
    r"tell|find|check|give|show|can you tell|could you tell|info|information)\b|\?\s*$",
    re.I,
)
ASKS_TIME = re.compile(r"\b(when|what time|what day|what date|which day|which date|date|time|day)\b|\bwhen's\b", re.I)
ASKS_DETAIL = re.compile(
    r"\b(who|whom|who's|where|room|agenda|attend\w*|parties|party|participants?|joining|coming|topic|location|place)\b",
    re.I,
)
ASKS_ALL = re.compile(r"\b(about|details?|info|information|everything)\b", re.I)
ASKS = re.compile(r"\?|\b(find out|know|tell me|remind me|check|look up|look for|lookup)\b", re.I)
WHOLE_CALENDAR = re.compile(r"\b(schedule|calendar|appointments|events|meetings)\b", re.I)
JOIN_WHEN = re.compile(r"[\s,]*(?:(?:at|on|from|for|by|the|of|in)\s+)*[\s,]*", re.I)
JOIN_PARTY = re.compile(r"\s+(?:with|and)\s+(?:(?:my|the|our)\s+)?", re.I)


def tokens(text):
    """(normalised word, start, end) of each run of letters or of digits ("7pm" is 7, pm)."""
    out = []
    for m in re.finditer(r"\d+|[a-z]+", text.lower()):
        w = NUM.get(m.group(0), m.group(0))
        if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append((w, m.start(), m.end()))
    return out


def find(text, value, gap=2):
    """(start, end) of the shortest stretch of `text` that says `value`'s words in order, at
    most `gap` other words between two of them (small words of the value may be left out)."""
    want = [w for w, _, _ in tokens(value)]
    have = tokens(text)
    if not want:
        return None
    best = None
    for i, (w, _, _) in enumerate(have):
        if w != want[0] and not (want[0] in SKIPPABLE):
            continue
        j, k, first, last, skipped = i, 0, None, None, 0
        while k < len(want) and j < len(have):
            if have[j][0] == want[k]:
                first = j if first is None else first
                last, k, skipped = j, k + 1, 0
                j += 1
            elif want[k] in SKIPPABLE:
                k += 1
            elif first is not None and skipped < gap:
                skipped += 1
                j += 1
            else:
                break
        # Trailing small words of the value left out ("7 pm" said for "7pm o'clock").
        while k < len(want) and want[k] in SKIPPABLE:
            k += 1
        if k == len(want) and first is not None:
            span = (have[first][1], have[last][2])
            if best is None or span[1] - span[0] < best[1] - best[0]:
                best = span
    return best


def slot(text, name, span):
    a, b = span
    return {"slot": name, "start": a, "end": b, "text": text[a:b]}


def outside(text, spans):
    """The text with every span blanked."""
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def when_span(text, ann):
    """One span for the annotated date and time said; "apart" when said apart, "missing"
    when one is not found in the text, None when neither was annotated."""
    found = []
    for k in ("date", "time"):
        v = (ann.get(k) or "").strip()
        if not v:
            continue
        sp = find(text, v)
        if sp is None:
            return "missing"
        found.append(sp)
    if not found:
        return None
    found.sort()
    if len(found) == 2 and found[0][1] < found[1][0]:
        if not JOIN_WHEN.fullmatch(text[found[0][1] : found[1][0]]):
            return "apart"
    return (found[0][0], max(b for _, b in found))


def label(text, kb, ann):
    """(intent, slots) or (None, reason to drop)."""
    event = (ann.get("event") or "").strip()
    ev = find(text, event) if event else None
    if event and ev is None:
        return None, "annotated event not in the words"
    when = when_span(text, ann)
    if when in ("missing", "apart"):
        return None, f"date or time {'not in the words' if when == 'missing' else 'said apart'}"
    if not kb:
        if QUESTION_START.search(text) and not re.match(r"^\W*(?:can|could|would|will) you\b", text, re.I):
            return None, "a question in an add dialogue"
        if not (REQUEST.search(text) or DECLARE.search(text)):
            return None, "no request said"
        slots = []
        if ev:
            a, b = ev
            party = (ann.get("party") or "").strip()
            ps = find(text[b:], party, gap=0) if party else None
            if ps and JOIN_PARTY.fullmatch(text[b : b + ps[0]]):
                b = b + ps[1]
            slots.append(slot(text, "what", (a, b)))
        if when:
            slots.append(slot(text, "when", when))
        if not ev:
            # Nothing annotated as the event: kept only if nothing but the request is said.
            rest = outside(text, [(s["start"], s["end"]) for s in slots])
            content = set(re.findall(r"[a-z']+", rest.lower())) - set(
                "i i'd i'm need want would like to please can could you will set a an up new reminder "
                "reminders remind me schedule make create add put in on my calendar for hi hey car assistant "
                "something event appointment meeting".split())
            if content:
                return None, "no event annotated, other words said"
        if TIME_WORD.search(outside(text, [(s["start"], s["end"]) for s in slots])):
            return None, "a time word outside the slots"
        return "add", sorted(slots, key=lambda s: s["start"])
    # A knowledge base: a question about the driver's own events.
    if re.search(r"\bremind\b", text, re.I) and not QUESTION_START.search(text):
        return None, "'remind' in a dialogue about known events"
    rest = outside(text, [ev] if ev else [])
    time_q = bool(ASKS_TIME.search(rest) or (not ev and WHOLE_CALENDAR.search(rest)))
    detail_q = bool(ASKS_DETAIL.search(rest))
    if not (QUESTION_START.search(text) or ASKS.search(text)):
        return None, "not a question"
    if ASKS_ALL.search(rest):
        return None, "asks about the whole event"
    if re.search(r"\bmy agenda\b", rest, re.I):
        return None, "'my agenda': the day's or a meeting's"
    if time_q and detail_q:
        return None, "asks a time and a detail"
    if detail_q:
        return "none", []
    if not time_q:
        return None, "asks neither a time nor a detail"
    slots = []
    if ev:
        slots.append(slot(text, "item", ev))
    elif not WHOLE_CALENDAR.search(text):
        return None, "asks a time of no event said"
    if when:
        slots.append(slot(text, "when", when))
    return "list", sorted(slots, key=lambda s: s["start"])


def show(git_dir, commit, path):
    return subprocess.check_output(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"])


def first_turns(git_dir, split):
    """(id, first driver turn, has a knowledge base, the wizard's slots for it) of each schedule
    dialogue of the release's json file; a dialogue without a first driver turn as None."""
    for d in json.loads(show(git_dir, COMMIT, f"data/kvret_{split}_public.json").decode("utf-8")):
        if d["scenario"]["task"]["intent"] != "schedule" or not d["dialogue"]:
            continue
        turns = d["dialogue"]
        if turns[0]["turn"] != "driver":
            yield None
            continue
        nxt = turns[1] if len(turns) > 1 and turns[1]["turn"] == "assistant" else None
        ann = {k: v.strip() for k, v in ((nxt["data"].get("slots") or {}) if nxt else {}).items()}
        yield d["scenario"]["uuid"], turns[0]["data"]["utterance"].strip(), d["scenario"]["kb"]["items"] is not None, ann


def convlab_first_turns(dialogues, split):
    """The same from ConvLab's unified form: the user's first turn, its state (the wizard's
    slots of the turn after), and whether that turn's knowledge base holds events."""
    for d in dialogues:
        if d["data_split"] != CONVLAB_SPLIT[split] or d["domains"] != ["schedule"]:
            continue
        turns = d["turns"]
        if turns[0]["speaker"] != "user":
            yield None
            continue
        kb = bool(turns[1]["db_results"]["schedule"]) if len(turns) > 1 else False
        yield d["original_id"], turns[0]["utterance"], kb, turns[0].get("state", {}).get("schedule", {})


def convlab(git_dir):
    with zipfile.ZipFile(io.BytesIO(show(git_dir, CONVLAB_COMMIT, CONVLAB_ZIP))) as z:
        return json.loads(z.read("data/dialogues.json").decode("utf-8"))


def main():
    git_dir, out_path, nlu = sys.argv[1:4]
    sources = {split: list(first_turns(git_dir, split)) for split in ("test", "dev")}
    if len(sys.argv) > 4:
        dialogues = convlab(sys.argv[4])
        for split in ("test", "dev"):
            a = [x[1:] if x else x for x in sources[split]]
            b = [x[1:] if x else x for x in convlab_first_turns(dialogues, split)]
            assert a == b, f"ConvLab's {split} split is not the json file's"
        sources["train"] = list(convlab_first_turns(dialogues, "train"))
    spoken_path = os.path.join(os.path.dirname(out_path) or ".", "test-spoken.jsonl")
    mine = os.path.abspath(os.path.dirname(out_path) or ".")
    # This set's own files (a run before) are no other source's.
    skip = {os.path.join(d, f) for d, _, fs in os.walk(mine) for f in fs} | {os.path.abspath(p + s) for p in (out_path, spoken_path) for s in ("", ".tmp")}
    known = known_texts(nlu, skip)
    dropped = collections.Counter()
    seen, rows = set(), []
    for split, turns in sources.items():
        for turn in turns:
            if turn is None:
                dropped["no first driver turn"] += 1
                continue
            did, text, kb, ann = turn
            text = re.sub(r"\s+", " ", text)
            intent, got = label(text, kb, ann)
            if intent is None:
                dropped[got] += 1
                continue
            check_slots(text, got)
            why = seen_before(keys(text), known, seen)
            if why:
                dropped[why] += 1
                continue
            rows.append({"text": text, "intent": intent, "slots": got, "source": "kvret",
                         "orig": "schedule, " + ("known events" if kb else "no events"), "split": split, "id": did})
    write_jsonl(out_path, rows)
    said = []
    for r in rows:
        s = spoken(r)
        if keys(s["text"]) & (known["jsonl"] | known["tsv"]):
            dropped["spoken rendering in nlu-data"] += 1
            continue
        said.append(s)
    write_jsonl(spoken_path, said)
    print(f"kvret @ {COMMIT[:8]}: {len(rows)} lines written to {out_path}, {len(said)} to {spoken_path}")
    for split in sources:
        c = collections.Counter(r["intent"] for r in rows if r["split"] == split)
        print(f"  {split}: {sum(c.values())} {dict(sorted(c.items()))}")
    print(f"  dropped ({sum(dropped.values())}):", dict(dropped.most_common()))


if __name__ == "__main__":
    main()
