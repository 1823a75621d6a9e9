#!/usr/bin/env python3
"""Microsoft's Bot Framework Solutions (MIT): the example requests of its Virtual Assistant's
calendar and to-do skills (LUIS `.lu` files, written by that team for its own assistant, never
seen by cn), with their entities as cn's slots — a second source of routine requests, **test
only** (never trained or tuned on).

    python3 extract_bfsolutions.py GIT_DIR OUT_JSONL [CN_CORPUS]

GIT_DIR: the snapshot of microsoft/botframework-solutions (`fetch`); OUT_JSONL: one request a
line in the judge's form ({"text", "intent", "slots", "source", "orig"}); CN_CORPUS: train.sh's
assembled corpus — a line whose text (lower case, punctuation gone) is in any of it is dropped.

Kept: the example lines ("- …") of the calendar's create, change, delete, find and "when"
intents and the to-do skill's add, show, delete and mark intents, each read as cn's intent;
its questions cn cannot answer (where, who, how long, is someone free, time left) as not
routine. Dropped: LUIS patterns, lines of under three words, and lines whose entities say what
cn's slots cannot (meeting rooms, "the 1st one", "all of them", moved "2 hours earlier", a
message to attendees, another person's calendar).
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import write_jsonl  # noqa: E402

COMMIT = "08ad18f11250dc2f301dd33a27672184ea9624c4"
BASE = "samples/csharp/assistants/virtual-assistant/VirtualAssistantSample/Deployment/Resources/Skills/"
FILES = {BASE + "calendarskill/en-us/Calendar.lu": "Calendar", BASE + "todoskill/en-us/ToDo.lu": "ToDo"}
INTENT = {
    "Calendar.CreateCalendarEntry": "add",
    "Calendar.ChangeCalendarEntry": "move",
    "Calendar.DeleteCalendarEntry": "cancel",
    "Calendar.FindCalendarEntry": "list",
    "Calendar.FindCalendarWhen": "list",
    "Calendar.FindCalendarWhere": "none",
    "Calendar.FindCalendarWho": "none",
    "Calendar.FindCalendarDetail": "none",
    "Calendar.FindDuration": "none",
    "Calendar.CheckAvailability": "none",
    "Calendar.TimeRemaining": "none",
    "ToDo.AddToDo": "add",
    "ToDo.ShowToDo": "list",
    "ToDo.DeleteToDo": "cancel",
    "ToDo.MarkToDo": "complete",
}
SKIP_ENTITIES = {
    "MeetingRoom", "FloorNumber", "Building", "PositionReference", "OrderReference", "ContainsAll",
    "MoveEarlierTimeSpan", "MoveLaterTimeSpan", "Message", "SlotAttribute",
}
ENTITY = re.compile(r"\{([A-Za-z]+)=([^{}]*)\}")


def lines(git_dir, path):
    out = subprocess.run(["git", "--git-dir", git_dir, "show", f"{COMMIT}:{path}"], capture_output=True, check=True, text=True)
    return out.stdout.lstrip("\ufeff").splitlines()


def norm(t):
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s']", " ", t.lower())).strip()


def read(marked):
    """(text, [(entity, start, end)]): the markup gone, each entity's span kept; the assistant's
    tokenised contractions ("what ' s") joined."""
    marked = re.sub(r"\s+'\s*(s|ll|re|ve|d|m|t)\b", r"'\1", marked)
    text, spans, last = "", [], 0
    for m in ENTITY.finditer(marked):
        text += marked[last : m.start()]
        value = m.group(2).strip()
        spans.append((m.group(1), len(text), len(text) + len(value)))
        text += value
        last = m.end()
    text += marked[last:]
    # Spaces before punctuation and runs of spaces go, the spans moved with them.
    out, moved, i = [], [], 0
    keep = []
    for i, ch in enumerate(text):
        drop = ch == " " and (i + 1 < len(text) and (text[i + 1] in "?.!," or text[i + 1] == " ") or not out)
        keep.append(not drop)
        if not drop:
            out.append(ch)
    index = [0] * (len(text) + 1)
    n = 0
    for i, k in enumerate(keep):
        index[i] = n
        n += k
    index[len(text)] = n
    clean = "".join(out).strip()
    moved = [(e, index[a], index[b]) for e, a, b in spans if index[b] > index[a]]
    return clean, moved


def slots_of(intent, spans, text):
    """cn's slots from the skill's entities (character spans of `text`)."""
    out = []
    for e, a, b in spans:
        kind = None
        if intent == "add":
            kind = {"Subject": "what", "TaskContent": "what", "FromDate": "when", "FromTime": "when"}.get(e)
        elif intent == "move":
            kind = {"Subject": "item", "FromDate": "item", "FromTime": "item", "ToDate": "when", "ToTime": "when"}.get(e)
        elif intent in ("cancel", "complete"):
            kind = {"Subject": "item", "TaskContent": "item", "FromDate": "item", "FromTime": "item"}.get(e)
        elif intent == "list":
            kind = {"Subject": "item", "FromDate": "when", "FromTime": "when"}.get(e)
        if kind:
            out.append({"slot": kind, "start": a, "end": b})
    # A day and its time marked apart ("on {march 5th} at {5 pm}") are one time, as the other
    # sources mark it: the spans of each kind joined when nothing but small words lies between.
    out.sort(key=lambda x: x["start"])
    joined = []
    for x in out:
        last = joined[-1] if joined else None
        if last and last["slot"] == x["slot"] and x["slot"] in ("when", "item") and SMALL.fullmatch(text[last["end"] : x["start"]]):
            last["end"] = x["end"]
        else:
            joined.append(dict(x))
    return joined


SMALL = re.compile(r"[\s,]*(?:(?:at|on|from|for|by|the|of|in)\s+)*[\s,]*")


def main():
    git_dir, out_path = sys.argv[1], sys.argv[2]
    known = set()
    if len(sys.argv) > 3:
        for root, _, files in os.walk(sys.argv[3]):
            for f in files:
                if f.endswith(".jsonl"):
                    with open(os.path.join(root, f), encoding="utf-8") as fh:
                        known |= {norm(json.loads(l)["text"]) for l in fh if l.strip()}
    seen, rows = set(), []
    for path, skill in FILES.items():
        intent = None
        for ln in lines(git_dir, path):
            m = re.match(r"^##\s*(\S+)", ln)
            if m:
                intent = f"{skill}.{m.group(1)}"
                continue
            if not ln.startswith("- ") or intent not in INTENT:
                continue
            marked = ln[2:].strip()
            if marked.startswith("^") or re.search(r"[\[\]|^]", marked):
                continue
            if any(e in SKIP_ENTITIES for e in ENTITY.findall(marked) for e in [e[0]]):
                continue
            text, spans = read(marked)
            if "{" in text or "}" in text or len(text.split()) < 3:
                continue
            ours = INTENT[intent]
            # Another person's calendar or schedule ("check janice's calendar"): not one's own.
            if re.search(r"\b(?!my\b)\w+'s\s+(calendar|schedule)\b", text) and ours == "list":
                ours = "none"
            k = norm(text)
            if k in known or k in seen:
                continue
            seen.add(k)
            rows.append({"text": text, "intent": ours, "slots": slots_of(ours, spans, text), "source": "bfsolutions", "orig": intent})
    write_jsonl(out_path, rows)
    from collections import Counter

    print(len(rows), dict(Counter(r["intent"] for r in rows)), file=sys.stderr)


main()
