#!/usr/bin/env python3
"""Do requests written by people outside the team have exactly their effect on a hub?

Each JSONL line ({"text", "source", "intent", "slots": [{"slot", "start", "end", "text"}],
"orig"}) is said by the owner with the real binary, `cn chat --hub HUB TEXT`, on a fresh copy
of a template hub (`cn init`, `reflexes.time_zone: Europe/Paris`, no executive) at a fixed now
(libfaketime: Thu 2026-11-26 14:30 in Paris). The hub's tasks.json, ideas.json and
schedule.json are read before and after, and the change is judged against the line's intent
and slots (see README.md beside this file).

  python3 bench/understand/judge.py --cn PATH --out DIR FILE.jsonl [FILE.jsonl ...]
                                    [--limit N] [--jobs N] [--timeout S]

Runs itself under ~/.cache/cn/judge-venv (made on first use, with `dateparser` from PyPI, the
independent time reference).
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.expanduser("~/.cache/cn/judge-venv")
DATEPARSER = "dateparser==1.5.0"

ZONE = "Europe/Paris"
NOW_LOCAL = dt.datetime(2026, 11, 26, 14, 30, 0)  # Thu, Paris (UTC+1 then)
NOW_UTC = "2026-11-26 13:30:00"
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"

INTENTS = ["add", "idea", "list", "complete", "move", "cancel", "activity", "smalltalk", "none"]
ROUTINE_CHANGE = {"add", "idea", "complete", "move", "cancel"}
READ_ONLY = {"list", "activity", "smalltalk"}
NEEDS_TARGET = {"complete", "move", "cancel"}

# Tasks every hub holds (the target of a complete/move/cancel is added per line).
DISTRACTORS = [
    ("renew passport", "2026-12-15T08:00:00Z"),
    ("water the plants", "2026-11-27T17:00:00Z"),
]
SPARE_DISTRACTORS = [("book the car service", "2026-12-08T08:00:00Z"), ("send the invoice", "2026-12-01T09:00:00Z")]

# The owner's hand-up (crates/agent/src/answer.rs, HandUp::tell) and its kin.
HAND_UP = re.compile(
    r"needs an executive|no executive is configured|need my executive|needs my executive|"
    r"only my executive can|my executive failed|thinking budget won't allow|handed (it )?up|"
    r"waits in the queue",
    re.I,
)

STOP = set(
    """a an the to my me i i'm im you your our us we it its it's this that these those of for on in at by with
    and or but about remind reminder reminders please pls plz can could would will you'd should must need
    have has had do does did don't dont be is are was were am let make sure not forget add put set new
    task tasks todo to-do list item items note mark as up some someday want like just also then so
    again get got one thing things 'd 'll hey ok okay oh""".split()
)


# --------------------------------------------------------------------------------------------
# the venv


def ensure_venv(argv):
    """Re-run under the judge's venv (made, with dateparser, on first use)."""
    if os.environ.get("CN_JUDGE_IN_VENV") == "1":
        return
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        print(f"making {VENV} (dateparser, the time reference)…", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    ok = subprocess.run([py, "-c", "import dateparser"], capture_output=True).returncode == 0
    if not ok:
        subprocess.run([py, "-m", "pip", "install", "-q", DATEPARSER], check=True)
    env = dict(os.environ, CN_JUDGE_IN_VENV="1")
    os.execve(py, [py, os.path.abspath(__file__)] + argv, env)


# --------------------------------------------------------------------------------------------
# words


def words(text: str) -> list[str]:
    t = text.lower().replace("’", "'")
    t = re.sub(r"'s\b", "", t)
    return re.findall(r"[a-z0-9]+(?:[-'][a-z0-9]+)*", t)


def stem(w: str) -> str:
    w = w.replace("'", "")
    for suf in ("ies", "es", "s"):
        if len(w) > 4 and w.endswith(suf) and not w.endswith("ss"):
            return w[: -len(suf)] + ("y" if suf == "ies" else "")
    return w


def content(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w not in STOP}


def slots(line: dict, name: str) -> list[str]:
    out = []
    for s in line.get("slots") or []:
        if s.get("slot") == name:
            t = s.get("text")
            if t is None and isinstance(s.get("start"), int):
                t = line["text"][s["start"] : s["end"]]
            if t:
                out.append(t)
    return out


def slot(line: dict, name: str) -> str | None:
    """The slot's words; for `when`, the last one (a move's "from 5pm to 5:30pm" marks both,
    the new time last)."""
    got = slots(line, name)
    return (got[-1] if name == "when" else got[0]) if got else None


# --------------------------------------------------------------------------------------------
# the hub


def zone():
    from zoneinfo import ZoneInfo

    return ZoneInfo(ZONE)


def local(rfc3339: str | None) -> dt.datetime | None:
    if not rfc3339:
        return None
    t = dt.datetime.fromisoformat(rfc3339.replace("Z", "+00:00"))
    return t.astimezone(zone()).replace(tzinfo=None)


def utc(naive_local: dt.datetime) -> str:
    return naive_local.replace(tzinfo=zone()).astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def fake_env(extra=None):
    env = dict(os.environ)
    env.update(
        {
            "LD_PRELOAD": LIBFAKETIME,
            "FAKETIME": "@" + NOW_UTC,  # starts there and ticks on (timeouts keep working)
            "FAKETIME_DONT_FAKE_MONOTONIC": "1",
            "TZ": "UTC",
            "CN_LOG": "error",
            "GIT_AUTHOR_NAME": "judge",
            "GIT_AUTHOR_EMAIL": "judge@localhost",
            "GIT_COMMITTER_NAME": "judge",
            "GIT_COMMITTER_EMAIL": "judge@localhost",
        }
    )
    for k in ("CN_HUB", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        env.pop(k, None)
    env.update(extra or {})
    return env


def cn(binary, hub, args, timeout=60):
    return subprocess.run(
        [binary, "--hub", hub] + args, capture_output=True, text=True, env=fake_env(), timeout=timeout, stdin=subprocess.DEVNULL
    )


def make_template(binary: str, root: str) -> str:
    hub = os.path.join(root, "template")
    out = subprocess.run([binary, "init", hub, "--name", "ada"], capture_output=True, text=True, env=fake_env())
    if out.returncode != 0:
        raise SystemExit(f"cn init failed: {out.stderr}")
    path = os.path.join(hub, "cn.yaml")
    text = open(path, encoding="utf-8").read()
    if re.search(r"^reflexes:", text, re.M):
        raise SystemExit("cn init's cn.yaml already has a `reflexes:` section; the judge appends one")
    if re.search(r"^\s+executive:", text, re.M):
        raise SystemExit("cn init's cn.yaml configures an executive; the judge needs a hub without one")
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"\nreflexes:\n  time_zone: {ZONE}\n")
    for name, due in DISTRACTORS:
        r = cn(binary, hub, ["task", "add", name, "--due", due])
        if r.returncode != 0:
            raise SystemExit(f"cn task add failed: {r.stderr}")
    subprocess.run(["git", "-C", hub, "add", "-A"], capture_output=True, env=fake_env())
    subprocess.run(["git", "-C", hub, "commit", "-qm", "judge: template"], capture_output=True, env=fake_env())
    return hub


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return []
    return json.loads(text) if text.strip() else []


def snapshot(hub):
    st = os.path.join(hub, "state")
    return {
        "tasks": read_json(os.path.join(st, "tasks.json")),
        "ideas": read_json(os.path.join(st, "ideas.json")),
        "schedule": read_json(os.path.join(st, "schedule.json")),
    }


def closed_as(t):
    if t.get("status") == "cancelled":
        return "cancelled"
    if t.get("done") or t.get("status") == "done":
        return "done"
    return "open"


def changes(before, after):
    """The changes from one snapshot to the next: dicts with `kind` (add, done, cancel, move,
    edit, remove, idea, idea_drop, every, unschedule) and what they touched. Follow-up and
    reminder bookkeeping are not changes a request makes."""
    out = []
    b_tasks = {t["id"]: t for t in before["tasks"]}
    a_tasks = {t["id"]: t for t in after["tasks"]}
    for tid, t in a_tasks.items():
        b = b_tasks.get(tid)
        if b is None:
            out.append({"kind": "add", "id": tid, "text": t.get("task", ""), "due": t.get("due")})
            continue
        if closed_as(b) != closed_as(t):
            k = {"cancelled": "cancel", "done": "done", "open": "reopen"}[closed_as(t)]
            out.append({"kind": k, "id": tid, "text": t.get("task", ""), "due": t.get("due")})
        if b.get("due") != t.get("due"):
            out.append({"kind": "move", "id": tid, "text": t.get("task", ""), "due": t.get("due"), "was": b.get("due")})
        if b.get("task") != t.get("task"):
            out.append({"kind": "edit", "id": tid, "text": t.get("task", ""), "was": b.get("task")})
    for tid, b in b_tasks.items():
        if tid not in a_tasks:
            out.append({"kind": "remove", "id": tid, "text": b.get("task", "")})
    b_ideas = {i["id"]: i for i in before["ideas"]}
    a_ideas = {i["id"]: i for i in after["ideas"]}
    for iid, i in a_ideas.items():
        if iid not in b_ideas:
            out.append({"kind": "idea", "id": iid, "text": i.get("idea", "")})
    for iid, i in b_ideas.items():
        if iid not in a_ideas:
            out.append({"kind": "idea_drop", "id": iid, "text": i.get("idea", "")})
    b_sched = {e["name"]: e for e in before["schedule"]}
    a_sched = {e["name"]: e for e in after["schedule"]}
    for n, e in a_sched.items():
        if n not in b_sched:
            out.append({"kind": "every", "id": n, "text": e.get("action", ""), "cron": e.get("cron", ""), "tz": e.get("tz"),
                        "stride": (e.get("stride") or {}).get("n"), "until": e.get("until")})
        elif b_sched[n] != e:
            out.append({"kind": "schedule_edit", "id": n, "text": e.get("action", ""), "cron": e.get("cron", "")})
    for n, e in b_sched.items():
        if n not in a_sched:
            out.append({"kind": "unschedule", "id": n, "text": e.get("action", "")})
    return out


def show(c):
    k = c["kind"]
    if k in ("add", "move"):
        d = local(c.get("due"))
        return f'{k} "{c["text"]}" {d.strftime("%Y-%m-%d %H:%M") if d else "-"}'
    if k == "every":
        return f'every "{c["cron"]}" "{c["text"]}"'
    return f'{k} "{c["text"]}"'


# --------------------------------------------------------------------------------------------
# the target of complete / move / cancel


TIME_WORDS = re.compile(
    r"\b(tomorrow (morning|afternoon|evening|night)|today|tonight|tomorrow|yesterday|this (morning|afternoon|evening)|"
    r"(on |at |this |next )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?( morning| afternoon| evening| night)?|"
    r"(at )?\d{1,2}(:\d{2})?\s*(am|pm)|(at )?\d{1,2}:\d{2}|at \d{1,2}|(at )?noon|lunch\s*time|"
    r"(on )?(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]* \d{1,2}(st|nd|rd|th)?)\b",
    re.I,
)
# "for Saturday and Sunday mornings": days or parts of days said in the plural repeat too.
RECURS = re.compile(
    r"\b(every|each|daily|weekly|monthly|hourly|nightly|weekdays|weekends|everyday|"
    r"(mon|tues|wednes|thurs|fri|satur|sun)days|mornings|afternoons|evenings|nights|"
    # A span of weekdays ("Monday through Friday", "mon-fri"): each of them, as assistants set it.
    r"(mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun)(day)?\s*(through|thru|to|till|until|-)\s*"
    r"(mon|tue|tues|wed|wednes|thu|thur|thurs|fri|sat|satur|sun)(day)?)\b",
    re.I,
)
GENERIC = r"(task|tasks|reminder|reminders|item|one|thing|todo|to-do|entry|thingy|bit)"


def target_for(line, timeref):
    """(task text, due RFC 3339 or None) of the task the request refers to, or None."""
    # All the item's words: TOPv2 marks "Delete [Friday]'s [dinner date] reminder" as two.
    words_ = " ".join(slots(line, "item")) or slot(line, "what")
    # "change my alarm [tonight] to 8pm instead of [7]": the old time, said after the new one.
    words_ = re.sub(rf"^(.*?)\s+(?:instead )?of (\d{{1,2}}|{timeref.HOUR_WORD_RE})$", r"\1 at \2", (words_ or "").strip(" .!?"))
    whens = slots(line, "when")
    if not words_ and line.get("intent") == "move" and len(whens) >= 2:
        words_ = whens[0]  # "change my 5pm alarm to 5:30": the first time names the item
    # A repeating item ("my daily morning alarm") is no task that can be seeded: unjudged.
    if RECURS.search(line.get("text", "")):
        return None
    if not words_:
        # "Deactivate alarm", "change my alarm to 8am instead please": the one alarm (or timer)
        # the hub has, as cn names it, set for tomorrow at 7. (A lone "the reminder" names
        # nothing among the hub's other reminders: unjudged.)
        m = re.search(r"\b(alarm|timer)\b", line.get("text", ""), re.I)
        if not m or line.get("intent") not in NEEDS_TARGET:
            return None
        at = (NOW_LOCAL + dt.timedelta(days=1)).replace(hour=7, minute=0, second=0, microsecond=0)
        return m.group(1).capitalize(), utc(at)
    t = words_.strip().strip(".,!?\"'“”")
    spoken = timeref.number_words(t)  # "five a.m." read as a time (case kept when no number is said)
    if spoken != t.lower():
        t = spoken
    t = re.sub(r"(?<=\w)\s?['’]s\b", "", t)  # "tomorrow's dinner": the day's thing
    t = re.sub(r"^from (\d)", r"at \1", t)  # "switch the alarm [from six] to five am"
    due = None
    found = list(TIME_WORDS.finditer(t))
    if found:
        a, b = found[0].start(), found[-1].end()
        ref = timeref.reference(t[a:b], NOW_LOCAL)
        if not ref.candidates and len(found) > 1:
            # "the wednesday alarm for 10am": the time words, read without the name between.
            joined = timeref.reference(" ".join(m.group(0) for m in found), NOW_LOCAL)
            if joined.candidates:
                ref = joined
                for m in reversed(found[1:]):
                    t = t[: m.start()] + " " + t[m.end() :]
                b = found[0].end()
        # An existing task the person refers to: it lies ahead (a past one would be overdue).
        for c in ref.candidates:
            if ref.granularity == "day":
                # A day's task: at 9 — or in the part of the day said ("Saturday night" at 21,
                # "Friday evening" at 19) — or, today, 9 gone, later today ("today's alarm").
                part = re.search(r"\b(morning|afternoon|evening|night|tonight)\b", t[a:b], re.I)
                hour = {"morning": 9, "afternoon": 15, "evening": 19}.get(part.group(1).lower(), 21) if part else 9
                c = c.replace(hour=hour, minute=0)
                if c <= NOW_LOCAL and c.date() == NOW_LOCAL.date() and NOW_LOCAL.hour < 21:
                    c = NOW_LOCAL.replace(minute=0, second=0, microsecond=0) + dt.timedelta(hours=3)
            if c > NOW_LOCAL:
                due = utc(c)
                break
        t = (t[:a] + " " + t[b:]).strip()
    t = re.sub(r"^((the|my|that|this|our|a|an|all|all of my|all my|from|for|at|on)(\s+|$))+", "", t, flags=re.I)
    t = re.sub(rf"\s+{GENERIC}$", "", t, flags=re.I)
    t = re.sub(r"(\s+(for|at|on|from|to|set|set for|due|by|in|the))+$", "", t, flags=re.I)
    t = re.sub(r"\s+", " ", t).strip(" ,.-'")
    if not content(t):
        # Only a time ("my 5 am alarm"): the task is the thing the request names.
        m = re.search(r"\b(alarm|reminder|timer|meeting|appointment|event|call)s?\b", line.get("text", ""), re.I)
        if not m:
            return None
        t = m.group(1).lower()
    return t, due


# --------------------------------------------------------------------------------------------
# judging one line


def when_known(line):
    """Whether the line's slots would mark a time it says: SMCalFlow's mark only the event's
    subject (assemble.py reads it from the program), so a due there is not checked."""
    return line.get("when_known", line.get("source") != "smcalflow") is not False


def text_check(what, when_text, got_text):
    """(ok, note): the filed text carries the content words of `what` and none of the time's."""
    if what is None:
        return True, "no what slot: any text"
    # A time the data set marked inside what to do ("pick some up tomorrow tonight after …",
    # an alarm "for lunchtime"): the time is judged as the due, not as words of the text.
    # "set wake up alarm": the alarm is what it is, not words of its name ("Wake up").
    want = content(TIME_WORDS.sub(" ", what)) - content("alarm alarms timer timers")
    have = content(got_text)
    missing = want - have
    if missing:
        return False, f"text lacks {sorted(missing)}"
    leaked = (content(when_text or "") - want) & have
    m = TIME_WORDS.search(got_text)
    if m and not TIME_WORDS.search(what):
        leaked.add(m.group(0).lower())
    if leaked:
        return False, f"text carries the time {sorted(leaked)}"
    extra = have - want
    return True, (f"extra words {sorted(extra)}" if extra else "")


def cron_check(cron, when_text, recur_text, timeref, text=""):
    """(ok or None, note) of a schedule entry's cron against the clock time and weekday said."""
    parts = cron.split()
    if len(parts) < 5:
        return False, f"cron {cron!r} not five fields"
    minute, hour, _dom, _mon, dow = parts[-5:]
    said = " ".join(x for x in (recur_text, when_text) if x)
    # "at 10 pm from monday to wednesday" with the slots marking only "monday": the span said.
    day = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
    span = re.search(rf"\bfrom\s+({day})\s+(?:to|through|thru|till|until)\s+({day})\b", text or "", re.I)
    if span and span.group(1).lower() in said.lower() and span.group(2).lower() not in said.lower():
        said = f"{said} {span.group(0)}"
    notes, ok = [], None
    n = timeref.normalise(said)
    clock = timeref._clock(n)
    window = re.fullmatch(r"(\d+)-(\d+)(?:/\d+)?", hour)
    clocks = [timeref._clock(m.group(0)) for m in timeref.CLOCK.finditer(n)]
    if window and len(clocks) == 2 and all(clocks):
        # "hourly from 7am to 10pm": the hours between, both said.
        (h1, m1, amb1, _), (h2, _m2, amb2, _) = clocks
        firsts = {h1} | ({h1 + 12} if amb1 else set())
        lasts = {h2} | ({h2 + 12} if amb2 else set())
        good = minute.isdigit() and int(minute) == m1 and int(window.group(1)) in firsts and int(window.group(2)) in lasts
        ok = good
        notes.append(f"window {'ok' if good else 'wrong'} ({hour} vs {sorted(firsts)}-{sorted(lasts)})")
    elif clock:
        h, mi, amb, _ = clock
        hours = {h} | ({h + 12} if amb else set())
        good = minute.isdigit() and hour.isdigit() and int(minute) == mi and int(hour) in hours
        ok = good
        notes.append(f"time {'ok' if good else 'wrong'} ({hour}:{minute} vs {sorted(hours)}:{mi:02d})")
    words = re.findall(r"[a-z]+", n.lower())

    def names(w, d):
        # "mon", "tues", "weds", "mondays" — not "month", "sunny", "wedding".
        w = w[:-1] if w.endswith("s") and len(w) > 3 else w
        return w[:3] == d[:3] and (d.startswith(w) or w in ("weds", "thur", "thurs", "tues"))

    days = [i for i, d in enumerate(timeref.WEEKDAYS) if any(names(w, d) for w in words)]
    if days and not re.search(r"weekday|weekend", n):
        want = {(i + 1) % 7 for i in days}
        span = re.search(r"\b([a-z]+)\s*(?:through|thru|to|till|until|-)\s*([a-z]+)\b", n.lower())
        ends = [next((i for i, d in enumerate(timeref.WEEKDAYS) if names(w, d)), None) for w in span.groups()] if span else []
        if len(ends) == 2 and None not in ends:
            a, b = ((ends[0] + 1) % 7, (ends[1] + 1) % 7)
            want = set(range(a, b + 1)) if a <= b else set(range(a, 7)) | set(range(0, b + 1))
        got = set()
        for part in dow.split(","):
            if re.fullmatch(r"\d-\d", part):
                a, b = map(int, part.split("-"))
                got |= {x % 7 for x in range(a, b + 1)}
            elif part.isdigit():
                got.add(int(part) % 7)
            elif part[:3].lower() in [d[:3] for d in timeref.WEEKDAYS]:
                got.add(([d[:3] for d in timeref.WEEKDAYS].index(part[:3].lower()) + 1) % 7)
        good = got == want
        ok = good if ok is None else (ok and good)
        notes.append(f"weekday {'ok' if good else 'wrong'} ({dow} vs {sorted(want)})")
    return ok, "; ".join(notes) or "cron not checked"


STRIDE = re.compile(
    r"\b(?:(?:every|each)\s+(?:other|second|2nd|alternate)\s+(?:day|week|weekend|(?:mon|tues|wednes|thurs|fri|satur|sun)day)s?"
    r"|alternate\s+days|bi-?weekly|fortnightly|every\s+fortnight|every\s+(\d+|two|three|four|five|six)\s+(?:days|weeks))\b",
    re.I,
)
ENDS = re.compile(
    r"\b(?:for\s+(?:the\s+)?(?:next\s+|coming\s+)?(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty|forty|forty five|sixty|ninety|half an)\s+(?:minutes?|mins?|hours?|hrs?|days?|weeks?|work\s?weeks?|months?)"
    r"|(?:until|till|til|up\s+to)\s+(?:\d|noon|midnight|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"|(?:until|till|through|thru)\s+(?:the\s+end|next\s+(?:week|month)|(?:mon|tues|wednes|thurs|fri|satur|sun)day|january|february|march|april|may|june|july|august|september|october|november|december|the\s+\d)"
    r"|for\s+(?:the\s+)?rest\s+of\s+the\s+(?:day|week|month|year))\b",
    re.I,
)
DAY_BEFORE = re.compile(r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?\s*$", re.I)


def end_said(text):
    """Whether the words end a repeat: "for two hours", "until 5pm", "until Friday" — not a span
    of weekdays ("Monday through Friday")."""
    return any(
        not (re.match(r"(?:through|thru|till|til|until|to)\b", m.group(0), re.I) and DAY_BEFORE.search(text[: m.start()]))
        for m in ENDS.finditer(text or "")
    )


BEFORE = re.compile(
    r"^\s*(?:about\s+|around\s+)?(\d+|an?|one|two|three|four|five|ten|fifteen|twenty|thirty|forty[\s-]five|half an)\s+"
    r"(minutes?|mins?|hours?|hrs?|days?)\s+(?:before|beforehand|ahead|earlier|prior)\b",
    re.I,
)
SAID_TIME = re.compile(
    r"\b(?:on|at|by|for)?\s*(?:(?:january|february|march|april|may|june|july|august|september|october|november|december)"
    r"(?:\s+\d{1,2}(?:st|nd|rd|th)?)?|\d{1,2}(?:st|nd|rd|th)|\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|today|tomorrow|tonight)\b",
    re.I,
)


def before_reference(line, when, what, timeref):
    """A reminder a span before a thing ("… at 1 pm. Remind me 2 hours before."): the reference
    is the thing's time less the span — the thing's time is the other `when`, or said in the
    `what` (whose time words are then not the task's) — and the `what` to check. (None, what)
    when the `when` is not that."""
    m = BEFORE.match(when or "")
    if not m:
        return None, what
    others = [w for w in slots(line, "when") if w != when]
    said = list(SAID_TIME.finditer(timeref.normalise(what or "")))
    in_what = timeref.normalise(what or "")[said[0].start() : said[-1].end()] if said else ""
    anchor = timeref.reference(" ".join(others) if others else in_what, NOW_LOCAL)
    if anchor.granularity != "minute" or not anchor.candidates:
        return None, what
    words = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "ten": 10, "fifteen": 15,
             "twenty": 20, "thirty": 30, "forty five": 45, "forty-five": 45, "half an": 0.5}
    n = m.group(1).lower()
    n = float(n) if n.isdigit() else words.get(n)
    if n is None:
        return None, what
    unit = m.group(2).lower()
    delta = dt.timedelta(minutes=n) if unit.startswith("m") else dt.timedelta(hours=n) if unit.startswith("h") else dt.timedelta(days=n)
    anchor.candidates = [c - delta for c in anchor.candidates]
    anchor.phrase = when
    if not others and what:
        what = re.sub(r"\s+", " ", SAID_TIME.sub(" ", timeref.normalise(what))).strip()
    return anchor, what


LISTED_DAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)


def day_list(when, timeref):
    """The days of a list said one by one in a time phrase, each with the clock time said
    ("for Monday, Wednesday and Friday at 7 am" → "monday 7 am", …); None when it names fewer
    than two days, a repeat or a plural day."""
    if re.search(r"\b(every|each)\b|(mon|tues|wednes|thurs|fri|satur|sun)days\b", when or "", re.I):
        return None
    days = [d.lower() for d in LISTED_DAY.findall(when or "")]
    if len(days) < 2 or len(set(days)) != len(days):
        return None
    clock = timeref.CLOCK.search(timeref.normalise(when))
    if not clock:
        return None
    return [f"{d} {clock.group(0)}" for d in days]


def several_times(line, recur, when, timeref):
    """For an alarm repeated at two or more clock times ("for 8pm and 10pm each night"): the
    words said once for each time (its clock time, with the days said), else None."""
    if not DEVICE.search(line.get("text", "")):
        return None
    said = timeref.normalise(" ".join(x for x in (recur, when) if x))
    clocks = list(timeref.CLOCK.finditer(said))
    if len(clocks) < 2:
        return None
    # "from 7am to 10pm", "between 9 and 5": a window, not times each kept.
    joined = [said[a.end() : b.start()] for a, b in zip(clocks, clocks[1:])]
    if re.search(r"\bbetween\b", said[: clocks[0].start()], re.I) or not all(re.search(r"\band\b|,", j) for j in joined):
        return None
    out = []
    for c in clocks:
        others = said
        for o in reversed(clocks):
            if o is not c:
                others = others[: o.start()] + " " + others[o.end() :]
        out.append(re.sub(r"\s+", " ", others).strip())
    return out


def stride_check(entry, text):
    """(ok, note) of a schedule entry's stride and end against the words: "every other Friday",
    "every 3 days" must skip (stride n), and a repeat kept "for the next 5 days" or "until May"
    must end — a repeat without them was not asked for, and one with them when none was said is
    wrong too."""
    notes, ok = [], True
    m = STRIDE.search(text or "")
    want = None
    if m:
        n = m.group(1)
        want = int(n) if n and n.isdigit() else {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}.get((n or "").lower(), 2)
    got = entry.get("stride")
    if want != got:
        ok = False
        notes.append(f"stride wrong ({got} vs {want})")
    elif want:
        notes.append(f"stride ok ({got})")
    ends = end_said(text)
    if ends != bool(entry.get("until")):
        ok = False
        notes.append(f"end {'missing' if ends else 'not said'}")
    elif ends:
        notes.append("end ok")
    return ok, "; ".join(notes)


def due_check(ref, got_due_rfc):
    """('ok'|'wrong'|'unchecked', note) of a due time against the reference."""
    got = local(got_due_rfc)
    if ref is None:
        return ("ok", "") if got is None else ("ok", "a due where none was said")
    verdict = ref.matches(got)
    shown = got.strftime("%Y-%m-%d %H:%M") if got else "-"
    if verdict is None:
        return ("unchecked" if got else "wrong"), f"due {shown}; reference {ref.describe()}"
    return ("ok" if verdict else "wrong"), f"due {shown}; reference {ref.describe()} ({ref.granularity})"


# An alarm or a timer: it goes off at a time, so one asked for without a time is asked about.
DEVICE = re.compile(r"\b(?:alarms?|timers?)\b", re.I)


# Any time or day at all in a text ("a 4 minute timer", "for 8 tomorrow", "at noon").
TIME_SAID = re.compile(
    r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty|fifty|sixty|half|quarter|"
    r"noon|midnight|morning|afternoon|evening|night|tonight|today|tomorrow|tmrw|minutes?|mins?|hours?|seconds?|secs?|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekdays?|weekends?|daily|hourly|every|each|bedtime|dawn|sunrise|sunset|later|soon|now)\b",
    re.I,
)


DAY_SAID = re.compile(
    r"\b(today|tonight|tomorrow|tmrw|mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|\d{1,2}(st|nd|rd|th)\b|/",
    re.I,
)


def judge(line, got_changes, answer, target_id, timeref, target_due=None):
    """(verdict, due_checked, expected, detail). verdict: exact | asked | handed_up | wrong."""
    intent = line.get("intent")
    what, when, recur = slot(line, "what"), slot(line, "when"), slot(line, "recur")
    # Lines whose source gave no slots ("slots_known": false): the text and a missing time are
    # not checked (the slots are not known to be absent).
    known = line.get("slots_known", True) is not False
    # "a repeating alarm for 6 am …", "a nightly alarm at 9 pm", "4:10 p.m. everyday": the
    # repeat said outside the time is a recurrence too.
    # "an alarm for the next 3 days at 10 am": one a day over the days said (it must end).
    repeat_said = re.search(
        r"\b(repeating|recurring|reoccurring|repeated|nightly|daily|everyday|hourly|weekly|"
        r"for\s+the\s+(next|coming)\s+(\d+|two|three|four|five|six|seven|few)\s+days)\b",
        line.get("text", ""),
        re.I,
    )
    if not recur and when and (repeat_said or any(RECURS.search(w) for w in slots(line, "when"))):
        # "for 1pm every weekend" marked as a when: a recurrence all the same (all its parts:
        # "8 a.m. for Saturday" and "Sunday mornings").
        recur = " ".join(slots(line, "when"))
        when = None
    handed = bool(HAND_UP.search(answer or ""))
    nochange = "handed_up" if handed else "asked"
    due_checked = "n/a"

    if intent == "none":
        if got_changes:
            return "wrong", due_checked, "no change (not routine)", "changed: " + " && ".join(map(show, got_changes))
        return "exact", due_checked, "no change (not routine)", ("handed up" if handed else "no change")

    if intent in READ_ONLY:
        if got_changes:
            return "wrong", due_checked, "no change", "changed: " + " && ".join(map(show, got_changes))
        if handed:
            return "handed_up", due_checked, "an answer, no change", "handed up"
        return "exact", due_checked, "an answer, no change", ""

    if intent not in ROUTINE_CHANGE:
        return "wrong", due_checked, f"unknown intent {intent!r}", ""

    before, what = before_reference(line, when, what, timeref)
    ref = before or (timeref.reference(when, NOW_LOCAL) if when else None)
    # A day ("tonight", "friday") is past only when its whole day is; a time, by its minute.
    if ref is not None and ref.granularity == "day":
        past = bool(ref.candidates) and all(c.date() < NOW_LOCAL.date() for c in ref.candidates)
    else:
        past = ref is not None and ref.candidates and all(c < NOW_LOCAL - dt.timedelta(minutes=1) for c in ref.candidates)

    if intent == "idea":
        expected = f'idea "{what or "*"}"'
        if not got_changes:
            return nochange, due_checked, expected, ""
        ideas = [c for c in got_changes if c["kind"] == "idea"]
        if len(got_changes) != 1 or len(ideas) != 1:
            return "wrong", due_checked, expected, " && ".join(map(show, got_changes))
        ok, note = text_check(what, when, ideas[0]["text"])
        return ("exact" if ok else "wrong"), due_checked, expected, f'{show(ideas[0])}; {note}'

    if intent == "add":
        if recur:
            expected = f'every "{recur}{" " + when if when else ""}" "{what or "*"}"'
            if not got_changes:
                # "alarm that goes off every sunday": an alarm goes off at a time, and none is
                # said — one question back is the request's effect (issue 41, item 4).
                said = " ".join(x for x in (recur, when) if x)
                no_clock = not re.search(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon|midnight|morning|afternoon|evening|night|bedtime)\b", said, re.I)
                if DEVICE.search(line.get("text", "")) and no_clock and not handed and "?" in (answer or ""):
                    return "exact", "n/a", "asked for the time", ""
                return nochange, "n/a", expected, ""
            ev = [c for c in got_changes if c["kind"] == "every"]
            several = several_times(line, recur, when, timeref)
            if several:
                # "an alarm for 8pm and 10pm each night": an entry for each time said.
                if not len(got_changes) == len(ev) == len(several):
                    return "wrong", "n/a", f"{len(several)} entries", " && ".join(map(show, got_changes))
                left = list(ev)
                for said in several:
                    hit = next((e for e in left if cron_check(e["cron"], said, None, timeref)[0]), None)
                    if hit is None:
                        return "wrong", "cron", f"an entry at {said}", " && ".join(map(show, got_changes))
                    left.remove(hit)
                return "exact", "cron", f"{len(several)} entries", " && ".join(map(show, got_changes))
            if len(got_changes) != 1 or len(ev) != 1:
                return "wrong", "n/a", expected, " && ".join(map(show, got_changes))
            # "a nightly alarm": how often it comes is the entry's cron, not its name.
            ok, note = text_check(RECURS.sub(" ", what) if what else what, None, ev[0]["text"])
            cok, cnote = cron_check(ev[0]["cron"], when, recur, timeref, line.get("text", ""))
            sok, snote = stride_check(ev[0], line.get("text", ""))
            cnote = f"{cnote}; {snote}" if snote else cnote
            dc = "cron" if cok is not None else "unchecked"
            good = ok and cok is not False and sok
            return ("exact" if good else "wrong"), dc, expected, f"{show(ev[0])}; {note}; {cnote}"
        expected = f'add "{what or "*"}" {ref.describe() if ref else "-"}'
        if past:
            expected = "asked (the date is past)"
            if not got_changes:
                return "exact", "past", expected, ""
            return "wrong", "past", expected, " && ".join(map(show, got_changes))
        if not got_changes:
            # A request that lacks a slot is asked about (issue 41, item 4): an alarm or a
            # timer with no time said, a reminder with nothing to remind of. One question
            # back, nothing filed, is then exactly its effect.
            # ("Remind me in 2 hours, please": a reminder of nothing said, asked what of.)
            # (An alarm or a timer needs no what: asked about with its time said, it was missed.)
            device = DEVICE.search(line.get("text", ""))
            lacks = known and ((ref is None and device) or (not what and not device))
            # A source without slots ("start a timer please"): the text itself says no time.
            lacks = lacks or (not known and DEVICE.search(line.get("text", "")) and not TIME_SAID.search(line.get("text", "")))
            if lacks and not handed and "?" in (answer or ""):
                return "exact", "n/a", "asked for what is missing", ""
            return nochange, "n/a", expected, ""
        adds = [c for c in got_changes if c["kind"] == "add"]
        whens = slots(line, "when")
        text = line.get("text", "")
        spans = sorted((x["start"], x["end"]) for x in line.get("slots") or [] if x.get("slot") == "when" and isinstance(x.get("start"), int))
        # Two times joined by "and", "then", "another" or "one for" are two alarms; so is a
        # list ("for 6am, 6:12am, and 6:30am", spoken without its commas); "friday morning" +
        # "at 10" is one.
        gaps = [text[a[1]:b[0]] for a, b in zip(spans, spans[1:])]
        apart = len(spans) > 1 and all(
            re.search(r"\b(and|then|another|one)\b", g, re.I) or (re.fullmatch(r"\s*,?\s*", g) and re.search(r"\band\b", gaps[-1], re.I))
            for g in gaps
        )
        if len(whens) == 1 and DEVICE.search(text):
            # One span with two clock times ("tomorrow for 7:30 am and 8:10 am"): two alarms.
            parts = re.split(r",?\s+and\s+", whens[0])
            if len(parts) == 2 and all(timeref.CLOCK.search(timeref.normalise(p)) for p in parts):
                whens, apart = [re.sub(r"\s+", " ", re.sub(r"\bfor\b", " ", p)).strip() for p in parts], True
        # "an alarm for Sunday, Monday, and Tuesday at 3PM", "monday wednesday friday for
        # 330pm": a list of days said one by one (no "every", no plural) is one alarm a day,
        # each at the time said.
        listed = day_list(" ".join(whens), timeref)
        if DEVICE.search(text) and listed:
            whens, apart = listed, True
        if not known and not whens and DEVICE.search(text):
            # A source without slots ("set alarms for 2pm and 3pm"): the clock times the text
            # says, joined by "and", are an alarm each, as when the slots mark them.
            said = timeref.normalise(text)
            clocks = list(timeref.CLOCK.finditer(said))
            joined = [said[a.end() : b.start()] for a, b in zip(clocks, clocks[1:])]
            window = re.search(r"\b(?:between|from|until|till|every|each|through)\b", said, re.I)
            if len(clocks) > 1 and not window and all(re.search(r"\band\b", j) for j in joined):
                whens, apart = [c.group(0) for c in clocks], True
        if apart and DEVICE.search(text) and all(timeref.reference(w, NOW_LOCAL).candidates for w in whens):
            # "set my alarm for 3 am and then 8 pm": one alarm for each time said.
            if len(got_changes) != len(whens) or len(adds) != len(whens):
                return "wrong", "n/a", f"{len(whens)} adds", " && ".join(map(show, got_changes))
            left = list(adds)
            # "tomorrow at 5:45 pm and 8:45 pm": a later time said alone keeps the first's day.
            # "at 10am and 2pm on Monday": a day said after the last time is every time's.
            def day_of(w):
                return re.sub(r"\b(?:at|and|for|on)\s*$", "", timeref.CLOCK.sub(" ", timeref.normalise(w)).replace(" at ", " ").strip(" ,.")).strip(" ,.")
            day, last_day = day_of(whens[0]), day_of(whens[-1])
            for i, w in enumerate(whens):
                alone = not day_of(w).replace("at", "").strip()
                said_with = day if i > 0 and day else last_day if i < len(whens) - 1 else ""
                ref_w = timeref.reference(f"{said_with} {w}" if alone and said_with else w, NOW_LOCAL)
                hit = next((a for a in left if due_check(ref_w, a["due"])[0] == "ok"), None)
                if hit is None:
                    return "wrong", ref_w.granularity, f"an add at {ref_w.describe()}", " && ".join(map(show, got_changes))
                left.remove(hit)
            return "exact", "minute", f"{len(whens)} adds", " && ".join(map(show, got_changes))
        if len(got_changes) != 1 or len(adds) != 1:
            return "wrong", "n/a", expected, " && ".join(map(show, got_changes))
        ok, note = text_check(what, when, adds[0]["text"]) if known else (True, "slots unknown: text not checked")
        dv, dnote = due_check(ref, adds[0]["due"])
        due_checked = "none said" if ref is None else ("unchecked" if dv == "unchecked" else ref.granularity)
        if ref is None and not known:
            dv, dnote, due_checked = "unchecked", "slots unknown: due not checked", "unchecked"
        elif ref is None and adds[0]["due"] and (TIME_WORDS.search(line.get("text", "")) or not when_known(line)):
            # The text names a time its slots do not mark: the data missed it, not cn.
            dv, dnote, due_checked = "unchecked", f"a due ({show(adds[0])}) for a time no slot marks: not checked", "unchecked"
        elif ref is None and adds[0]["due"]:
            dv = "wrong"
            dnote = f"a due ({show(adds[0])}) where no time was said"
        good = ok and dv in ("ok", "unchecked")
        return ("exact" if good else "wrong"), due_checked, expected, f"{show(adds[0])}; {note}; {dnote}".strip("; ")

    # complete / cancel / move: the seeded target
    if target_id is None:
        if got_changes:
            return "wrong", "n/a", "no target seeded: no change", " && ".join(map(show, got_changes))
        return "unjudged", "n/a", "a target task", "no target could be seeded (no item/what slot)"
    kind = {"complete": "done", "cancel": "cancel", "move": "move"}[intent]
    expected = f"{kind} target" + (f" {ref.describe()}" if intent == "move" and ref else "")
    if not got_changes:
        return nochange, "n/a", expected, ""
    if intent == "cancel" and len(got_changes) > 1 and re.search(r"\ball\b", line.get("text", ""), re.I) and target_due:
        # "cancel all reminders I have set up for tomorrow": each of that day's, the target among them.
        day = local(target_due).date()
        same_day = all(c["kind"] == "cancel" and c.get("due") and local(c["due"]).date() == day for c in got_changes)
        if same_day and any(c["id"] == target_id for c in got_changes):
            return "exact", "n/a", f"{expected} and the rest of that day's", " && ".join(map(show, got_changes))
    if len(got_changes) != 1:
        return "wrong", "n/a", expected, " && ".join(map(show, got_changes))
    c = got_changes[0]
    if c["kind"] != kind or c["id"] != target_id:
        who = "the target" if c["id"] == target_id else "another task"
        return "wrong", "n/a", expected, f"{show(c)} ({who})"
    if intent != "move":
        return "exact", "n/a", expected, show(c)
    shift = SHIFT.search(line.get("text", ""))
    if shift and target_due and c.get("due"):
        # "move my dinner reminder on sunday back an hour": from the item's own time ("back",
        # "later", "push" later; "forward", "up", "earlier" sooner).
        n = (shift.group("n") or shift.group("n2")).lower()
        n = 1 if n in ("a", "an", "one") else 2 if n == "two" else 3 if n == "three" else 30 if n == "thirty" else 15 if n == "fifteen" else int(n) if n.isdigit() else None
        if n is not None:
            unit = dt.timedelta(hours=n) if (shift.group("u") or shift.group("u2")).lower().startswith("h") else dt.timedelta(minutes=n)
            sign = -1 if re.search(r"\b(?:forward|up|earlier|sooner|ahead)\b", shift.group(0), re.I) else 1
            want = local(target_due) + sign * unit
            ok = local(c["due"]) == want
            return ("exact" if ok else "wrong"), "minute", f"{expected} {want:%Y-%m-%d %H:%M}", show(c)
    if ref is None:
        return "exact", "unchecked", expected, show(c) + "; no when slot: due not checked"
    if past:
        return "wrong", "past", "asked (the date is past)", show(c)
    dv, dnote = due_check(ref, c["due"])
    # "change my thursday 7 AM reminder to 9AM": a time said without a day keeps the item's
    # day (the reference reads a bare time as its next occurrence).
    if dv == "wrong" and target_due and ref.granularity == "minute" and not DAY_SAID.search(when or ""):
        got, was = local(c["due"]), local(target_due)
        if got and was and got.date() == was.date() and any((x.hour, x.minute) == (got.hour, got.minute) for x in ref.candidates):
            dv, dnote = "ok", f"{dnote}; the time said, on the item's own day"
    return ("exact" if dv != "wrong" else "wrong"), ("unchecked" if dv == "unchecked" else ref.granularity), expected, f"{show(c)}; {dnote}"


# A move by an amount from where the item is: "back an hour", "forward 30 minutes", "an hour later".
SHIFT = re.compile(
    r"\b(?:(?:back|forward|up|ahead)\s+(?:by\s+)?(?P<n>an?|one|two|three|fifteen|thirty|\d+)\s+(?P<u>hours?|minutes?|mins?)"
    r"|(?P<n2>an?|one|two|three|fifteen|thirty|\d+)\s+(?P<u2>hours?|minutes?|mins?)\s+(?:later|earlier|sooner|back|forward|ahead))\b",
    re.I,
)


def run_line(job):
    """One line on its own copy of the template. Returns the verdict row."""
    import timeref  # from HERE, in the worker

    binary, template, work, idx, line, timeout = job
    hub = os.path.join(work, f"line-{idx}")
    row = {
        "idx": idx,
        "file": line.get("_file", ""),
        "lineno": line.get("_lineno", 0),
        "source": line.get("source", "?"),
        "intent": line.get("intent", "?"),
        "text": line.get("text", ""),
        "orig": line.get("orig", ""),
    }
    started = time.monotonic()
    try:
        subprocess.run(["cp", "-a", template, hub], check=True)  # several times faster than copytree
        target_id = None
        target_due = None
        seeded = ""
        intent = line.get("intent")
        wants_target = intent in NEEDS_TARGET or (intent == "list" and slot(line, "item"))
        if wants_target:
            tgt = target_for(line, timeref)
            if tgt:
                name, due = tgt
                if intent == "move" and due:
                    # "Change today's reminder to 5": seeded where the move would put it, the
                    # move could not be told from nothing — seeded two hours before (or after).
                    to = slots(line, "when")
                    ref = timeref.reference(to[-1], NOW_LOCAL) if to else None
                    if ref and ref.granularity == "minute" and any(c == local(due) for c in ref.candidates):
                        earlier = local(due) - dt.timedelta(hours=2)
                        due = utc(earlier if earlier > NOW_LOCAL else local(due) + dt.timedelta(hours=2))
                target_due = due
                # A distractor sharing a word with the target would make two tasks match: swap it.
                # (The template's own entries, written by cn, are kept or dropped whole.)
                path = os.path.join(hub, "state", "tasks.json")
                kept = [d for d in read_json(path) if not content(d["task"]) & content(name)]
                if len(kept) < len(DISTRACTORS):
                    with open(path, "w", encoding="utf-8") as f:
                        json.dump(kept, f, indent=2, ensure_ascii=False)
                        f.write("\n")
                    for spare in SPARE_DISTRACTORS[: len(DISTRACTORS) - len(kept)]:
                        if not content(spare[0]) & content(name):
                            cn(binary, hub, ["task", "add", spare[0], "--due", spare[1]])
                before = snapshot(hub)
                args = ["task", "add", name] + (["--due", due] if due else [])
                r = cn(binary, hub, args)
                if r.returncode != 0:
                    raise RuntimeError(f"seeding failed: {r.stderr.strip()}")
                after = snapshot(hub)
                new = [t for t in after["tasks"] if t["task"] == name and not any(b["id"] == t["id"] for b in before["tasks"])]
                target_id = new[0]["id"] if new else None
                seeded = f'{name}{" due " + local(due).strftime("%Y-%m-%d %H:%M") if due else ""}'
        row["seeded"] = seeded
        before = snapshot(hub)
        try:
            r = subprocess.run(
                [binary, "--hub", hub, "chat", line["text"], "--timeout", str(timeout)],
                capture_output=True,
                text=True,
                env=fake_env(),
                timeout=timeout + 15,
                stdin=subprocess.DEVNULL,
            )
            answer = (r.stdout or "").strip()
            if r.returncode != 0:
                answer = (answer + " [exit %d: %s]" % (r.returncode, (r.stderr or "").strip()[-300:])).strip()
        except subprocess.TimeoutExpired:
            answer = "[timeout]"
        after = snapshot(hub)
        got = changes(before, after)
        verdict, due_checked, expected, detail = judge(line, got, answer, target_id, timeref, target_due)
        if answer == "[timeout]" and verdict != "exact":
            verdict, detail = "error", "timeout; " + detail
        row.update(
            verdict=verdict,
            due_checked=due_checked,
            expected=expected,
            got=" && ".join(map(show, got)) or "-",
            detail=detail,
            answer=answer,
        )
    except Exception as e:  # a broken line is reported, never fatal
        row.update(verdict="error", due_checked="n/a", expected="", got="", detail=f"{type(e).__name__}: {e}", answer="")
        row.setdefault("seeded", "")
    finally:
        subprocess.run(["rm", "-rf", hub])
    row["secs"] = round(time.monotonic() - started, 3)
    return row


# --------------------------------------------------------------------------------------------
# reporting


def tally(rows):
    c = collections.Counter(r["verdict"] for r in rows)
    n = len(rows) - c["unjudged"]  # the percentages are of the judged lines
    pct = lambda k: round(100.0 * k / n, 1) if n else 0.0
    dc = collections.Counter(r["due_checked"] for r in rows)
    fails = [r for r in rows if r["verdict"] not in ("exact", "unjudged")]
    return {
        "n": n,
        "unjudged": c["unjudged"],
        "exact": c["exact"],
        "exact_pct": pct(c["exact"]),
        "asked": c["asked"],
        "handed_up": c["handed_up"],
        "asked_or_handed_up_pct": pct(c["asked"] + c["handed_up"]),
        "wrong": c["wrong"],
        "errors": c["error"],
        "due_checked": dict(dc),
        "due_not_checked": dc["unchecked"],
        "examples": [
            {k: r[k] for k in ("source", "intent", "text", "verdict", "expected", "got", "detail", "answer", "seeded", "file", "lineno")}
            for r in fails[:5]
        ],
    }


def print_table(title, groups):
    print(f"\n== {title}")
    print(f"{'':28} {'n':>5} {'exact%':>7} {'asked/up%':>9} {'wrong':>6} {'err':>4} {'due?':>5} {'unjdg':>5}")
    for k, t in groups.items():
        print(f"{k:28} {t['n']:>5} {t['exact_pct']:>7} {t['asked_or_handed_up_pct']:>9} {t['wrong']:>6} {t['errors']:>4} {t['due_not_checked']:>5} {t['unjudged']:>5}")
    for k, t in groups.items():
        if t["examples"]:
            print(f"  -- {k}: failures")
            for e in t["examples"]:
                ans = e["answer"].replace("\n", " ")[:140]
                print(f"     [{e['verdict']}] {e['text']!r}\n        expected {e['expected']}; got {e['got']}; {e['detail']}\n        answer: {ans}")


def load(paths, limit, shift=0.0):
    """The lines of each file; with `limit`, at most that many of each file, spread evenly
    over it (the files are often grouped by label, so the first N would be one label)."""
    lines = []
    for p in paths:
        mine = []
        with open(p, encoding="utf-8") as f:
            for i, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                try:
                    obj = json.loads(raw)
                except json.JSONDecodeError as e:
                    print(f"{p}:{i}: not JSON ({e}); skipped", file=sys.stderr)
                    continue
                obj["_file"], obj["_lineno"] = p, i
                if "source" not in obj:
                    obj["source"] = os.path.basename(os.path.dirname(os.path.abspath(p)))
                mine.append(obj)
        if limit and len(mine) > limit:
            # `shift` in [0, 1) moves each pick within its stretch: 0.5 draws lines disjoint
            # from the default sample's (a fresh sample nobody looked at while tuning).
            mine = [mine[int((k + shift) * len(mine) / limit)] for k in range(limit)]
        lines.extend(mine)
    return lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cn", required=True, help="the cn binary")
    ap.add_argument("--out", required=True, help="output directory (report.json, verdicts.tsv)")
    ap.add_argument("--limit", type=int, default=0, help="at most N lines of each file, spread evenly over it")
    ap.add_argument("--shift", type=float, default=0.0, help="with --limit: where in each stretch the line is taken (0 <= shift < 1)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    ap.add_argument("--timeout", type=int, default=30, help="seconds for one `cn chat`")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args(argv)
    binary = os.path.abspath(a.cn)
    if not os.path.exists(LIBFAKETIME):
        raise SystemExit(f"needs libfaketime ({LIBFAKETIME}): apt-get install faketime")
    if not 0.0 <= a.shift < 1.0:
        raise SystemExit("--shift must be at least 0 and below 1")
    lines = load(a.files, a.limit, a.shift)
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="cn-understand-")
    t0 = time.monotonic()
    try:
        template = make_template(binary, work)
        jobs = [(binary, template, work, i, l, a.timeout) for i, l in enumerate(lines)]
        rows = []
        with cf.ProcessPoolExecutor(max_workers=a.jobs) as pool:
            for k, row in enumerate(pool.map(run_line, jobs, chunksize=1), 1):
                rows.append(row)
                if k % 50 == 0:
                    print(f"  {k}/{len(jobs)} lines, {k / (time.monotonic() - t0):.1f}/s", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    secs = time.monotonic() - t0

    by_source = collections.defaultdict(list)
    by_intent = collections.defaultdict(list)
    by_both = collections.defaultdict(list)
    for r in rows:
        by_source[r["source"]].append(r)
        by_intent[r["intent"]].append(r)
        by_both[f'{r["source"]}/{r["intent"]}'].append(r)
    order = lambda d: dict(sorted(d.items()))
    report = {
        "cn": binary,
        "files": a.files,
        "now": NOW_LOCAL.isoformat() + " " + ZONE,
        "lines": len(rows),
        "seconds": round(secs, 2),
        "lines_per_second": round(len(rows) / secs, 2) if secs else 0,
        "jobs": a.jobs,
        "all": tally(rows),
        "by_source": {k: tally(v) for k, v in order(by_source).items()},
        "by_intent": {k: tally(v) for k, v in sorted(by_intent.items(), key=lambda kv: INTENTS.index(kv[0]) if kv[0] in INTENTS else 99)},
        "by_source_intent": {k: tally(v) for k, v in order(by_both).items()},
    }
    with open(os.path.join(a.out, "report.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, ensure_ascii=False)
    cols = ["file", "lineno", "source", "intent", "verdict", "due_checked", "text", "expected", "got", "detail", "seeded", "answer", "orig", "secs"]
    clean = lambda v: str(v).replace("\t", " ").replace("\n", " ⏎ ")
    with open(os.path.join(a.out, "verdicts.tsv"), "w", encoding="utf-8") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(clean(r.get(c, "")) for c in cols) + "\n")

    print_table("by source", report["by_source"])
    print_table("by intent", report["by_intent"])
    t = report["all"]
    print(
        f"\nall: {t['n']} lines, exactly its effect {t['exact_pct']}%, asked/handed up {t['asked_or_handed_up_pct']}%, "
        f"wrong effect {t['wrong']}, errors {t['errors']}, due not checked {t['due_not_checked']}"
    )
    print(f"{len(rows)} lines in {secs:.1f} s ({report['lines_per_second']} lines/s, {a.jobs} jobs); {a.out}/report.json, {a.out}/verdicts.tsv")


if __name__ == "__main__":
    ensure_venv(sys.argv[1:])
    sys.path.insert(0, HERE)
    main(sys.argv[1:])
