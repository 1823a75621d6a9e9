#!/usr/bin/env python3
"""Assemble cn's understanding corpus from public data sets of assistant requests.

Reads the per-source TSV files made by bench/understand/extract/ (text, intent, slots as JSON
with char offsets) under RAW (default /work/nlu-data/raw) and writes, under OUT (default
/work/nlu-data/cn), one JSONL file per source and split in cn's labels:

  {"text", "intent": add|idea|list|complete|move|cancel|activity|smalltalk|none,
   "slots": [{"slot": what|when|recur|item, "start", "end"}], "source", "orig", "weight"?}

The mapping from each source's own intents and slots to cn's is written out below, source by
source; a source intent that is neither routine nor clearly not routine (an alarm's snooze, a
timer's pause, "change the reminder's text", a turn that only makes sense in its dialogue) is
left out of both training and test. Generated variation (train only): the spoken rendering of
a share of the requests (lower case, no punctuation, numbers as words), and templates for the
intents no public set has (complete, idea, what did you do), filled with the public sets' own
to-do phrases. Deterministic: a fixed seed.

Never reads SLURP, HWU64 (NLU-Evaluation-Data) or MASSIVE: an independent check draws on them.
"""
import argparse
import csv
import json
import os
import random
import re
import sys

csv.field_size_limit(10**9)

# --- reading -------------------------------------------------------------------------------


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            yield row


def slots_of(row):
    s = row.get("slots") or "[]"
    try:
        return json.loads(s)
    except json.JSONDecodeError:
        return []


def ex(text, intent, slots, source, orig, weight=None, slots_known=True):
    d = {"text": text, "intent": intent, "slots": slots, "source": source, "orig": orig}
    if weight is not None:
        d["weight"] = weight
    if not slots_known:
        d["slots_known"] = False
    return d


REPEAT = re.compile(
    r"\b(every|each|daily|hourly|weekly|monthly|nightly|everyday|intervals?|weekdays|weekends|"
    r"(mon|tues|wednes|thurs|fri|satur|sun)days)\b",
    re.I,
)


def mapped(row, slot_map):
    """The row's slots renamed by `slot_map` (source slot -> cn slot); others dropped."""
    out = []
    for s in slots_of(row):
        k = slot_map.get(s["slot"])
        # TOPv2's PERIOD is mostly a repeat ("every 4 hours"), once in a while not ("one time").
        if s["slot"] == "PERIOD" and not REPEAT.search(s["text"]):
            k = None
        if k:
            out.append({"slot": k, "start": s["start"], "end": s["end"]})
    out.sort(key=lambda s: s["start"])
    # No overlaps: a nested slot inside a kept one is dropped.
    kept = []
    for s in out:
        if kept and s["start"] < kept[-1]["end"]:
            continue
        kept.append(s)
    return kept


# --- sources -------------------------------------------------------------------------------

# TOPv2 (Chen et al. 2020; CC BY-SA 4.0): reminder, alarm and timer are routine; weather,
# navigation, music, messaging and (public) events are not.
TOPV2 = {
    "CREATE_REMINDER": ("add", {"TODO": "what", "DATE_TIME": "when", "RECURRING_DATE_TIME": "recur", "DATE_TIME_RECURRING": "recur"}),
    "GET_REMINDER": ("list", {"TODO": "item", "DATE_TIME": "when"}),
    "GET_REMINDER_DATE_TIME": ("list", {"TODO": "item", "DATE_TIME": "when"}),
    "DELETE_REMINDER": ("cancel", {"TODO": "item", "DATE_TIME": "item"}),
    "UPDATE_REMINDER_DATE_TIME": ("move", {"TODO": "item", "DATE_TIME": "item", "DATE_TIME_NEW": "when"}),
    # PERIOD ("every 4 hours") is how often an alarm repeats.
    "CREATE_ALARM": ("add", {"DATE_TIME": "when", "DATE_TIME_RECURRING": "recur", "PERIOD": "recur", "ALARM_NAME": "what"}),
    "GET_ALARM": ("list", {"DATE_TIME": "when", "ALARM_NAME": "item"}),
    "DELETE_ALARM": ("cancel", {"DATE_TIME": "item", "ALARM_NAME": "item"}),
    "UPDATE_ALARM": ("move", {"DATE_TIME": "when", "ALARM_NAME": "item"}),
    "CREATE_TIMER": ("add", {"DATE_TIME": "when", "TIMER_NAME": "what"}),
}
TOPV2_NOT_ROUTINE = {"weather", "navigation", "music", "messaging", "event"}


def topv2(raw, split):
    for row in rows(os.path.join(raw, "topv2", f"{split}.tsv")):
        intent = row["intent"]
        if intent in TOPV2:
            cn, sm = TOPV2[intent]
            yield ex(row["text"], cn, mapped(row, sm), "topv2", intent)
        elif row.get("domain") in TOPV2_NOT_ROUTINE and not intent.startswith("UNSUPPORTED"):
            yield ex(row["text"], "none", [], "topv2", intent)


# The multilingual task-oriented dialog set (Schuster et al. 2019; CC BY-SA 4.0), English.
SCHUSTER = {
    "reminder/set_reminder": ("add", {"reminder/todo": "what", "datetime": "when", "reminder/recurring_period": "recur"}),
    "reminder/cancel_reminder": ("cancel", {"reminder/todo": "item", "datetime": "item"}),
    "reminder/show_reminders": ("list", {"reminder/todo": "item", "datetime": "when"}),
    "alarm/set_alarm": ("add", {"datetime": "when", "alarm/recurring_period": "recur"}),
    "alarm/cancel_alarm": ("cancel", {"datetime": "item"}),
    "alarm/show_alarms": ("list", {"datetime": "when"}),
    "alarm/modify_alarm": ("move", {"datetime": "when"}),
}


def schuster(raw, split):
    for row in rows(os.path.join(raw, "mtod_schuster2019", f"{split}.tsv")):
        intent = row["intent"]
        if intent in SCHUSTER:
            cn, sm = SCHUSTER[intent]
            yield ex(row["text"], cn, mapped(row, sm), "schuster", intent)
        elif intent.startswith("weather/"):
            yield ex(row["text"], "none", [], "schuster", intent)


# Schema-Guided Dialogue (Rastogi et al. 2020; CC BY-SA 4.0), the calendar's user turns that
# state their intent (the rest only make sense in their dialogue): the calendar in its
# training split, alarms in its dev and test splits.
SGD = {
    "Calendar_1:AddEvent": ("add", {"event_name": "what", "event_date": "when", "event_time": "when"}),
    "Calendar_1:GetEvents": ("list", {"event_date": "when"}),
    "Alarm_1:AddAlarm": ("add", {"new_alarm_name": "what", "new_alarm_time": "when"}),
    "Alarm_1:GetAlarms": ("list", {}),
}


def sgd(raw, split):
    for row in rows(os.path.join(raw, "sgd_calendar_alarm", f"{split}.tsv")):
        intent = row["intent"]
        acts = row.get("user_acts") or ""
        if intent in SGD and "INFORM_INTENT" in acts:
            cn, sm = SGD[intent]
            yield ex(row["text"], cn, mapped(row, sm), "sgd", intent)


# CLINC150 (Larson et al. 2019; CC BY 3.0): no slots. Its routine intents teach the intent
# only; the other 140 intents and its out-of-scope queries are not routine.
CLINC_ROUTINE = {
    "reminder": "list",
    "reminder_update": "add",
    "todo_list": "list",
    "calendar": "list",
    "alarm": "add",
    "timer": "add",
    # "when is my meeting with dan scheduled for", "do i have any meetings today": CLINC's
    # meeting_schedule asks about meetings (it was labelled "add" until 2026-11-30).
    "meeting_schedule": "list",
    "shopping_list": "list",
}
# schedule_meeting mixes booking a room and "how do I schedule a meeting" with "add a new
# meeting with tom for 6pm" — a calendar entry of one's own, as SMCalFlow labels it: neither
# routine nor not, so in neither training nor test.
CLINC_LEAVE = {"todo_list_update", "calendar_update", "shopping_list_update", "date", "time", "change_speed", "change_volume",
               "schedule_meeting"}
CLINC_SMALLTALK = {"greeting", "goodbye", "thank_you", "yes", "no", "maybe"}


def clinc(raw, split):
    files = {"train": ["train", "oos_train"], "val": ["val", "oos_val"], "test": ["test", "oos_test"]}[split]
    for f in files:
        for row in rows(os.path.join(raw, "clinc150", f"{f}.tsv")):
            intent = row["intent"]
            if intent in CLINC_LEAVE:
                continue
            if intent in CLINC_ROUTINE:
                yield ex(row["text"], CLINC_ROUTINE[intent], [], "clinc", intent, slots_known=False)
            elif intent in CLINC_SMALLTALK:
                yield ex(row["text"], "smalltalk", [], "clinc", intent)
            else:
                yield ex(row["text"], "none", [], "clinc", intent)


def plain_none(raw, name, split, source):
    path = os.path.join(raw, name, f"{split}.tsv")
    if os.path.exists(path):
        for row in rows(path):
            yield ex(row["text"], "none", [], source, row["intent"])


# SMCalFlow 2.0 (Andreas et al. 2020; CC BY-SA 4.0), validation split (its training split is
# not in the snapshot): split by dialogue. The dialogues in smcalflow-held.txt — those whose
# first turns no sample had read by the fifteenth pass — are the test (their first turns); every
# turn of the others is trained on (intents from its programs; the event's subject as the `what`
# slot where the program quotes it, the intent classifier only: the tagger
# is trained on none of it).
SMCAL = {"create_event": "add", "query_event": "list", "delete_event": "cancel", "update_event": "move", "pleasantry": "smalltalk"}
SMCAL_NONE = {"weather", "places", "org_chart_or_person"}
# Fences whose turns are the calendar's own all the same: not trained or tested as not routine.
# FenceAttendee: SMCalFlow declines an event whose attendee its own directory cannot resolve
# ("Create lunch with mom on sunday") — a calendar entry of one's own, neither routine nor not.
SMCAL_NONE_FENCES = {"fence:FenceWeather", "fence:FenceGibberish", "fence:FencePeopleQa", "fence:FenceTriviaQa", "fence:FenceNavigation"}
SMCAL_OWN_FENCES = {"fence:FenceReminder", "fence:FenceRecurring", "fence:FenceDateTime", "fence:FenceScope", "fence:FenceSpecify", "fence:FenceAttendee"}


def smcalflow_held():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "smcalflow-held.txt")
    with open(path, encoding="utf-8") as f:
        return {l.strip() for l in f if l.strip() and not l.startswith("#")}


def smcalflow(raw, split):
    held = smcalflow_held()
    for row in rows(os.path.join(raw, "smcalflow2_valid", "valid.tsv")):
        if split == "test" and (row.get("turn_index") != "0" or row.get("dialogue_id") not in held):
            continue
        if split == "train" and row.get("dialogue_id") in held:
            continue
        intent = row["intent"]
        if intent in SMCAL:
            slots = []
            m = re.search(r'Event\.subject_\? \(\?[=~]+ "([^"]+)"\)', row.get("lispress", ""))
            known = False
            if m:
                at = row["text"].lower().find(m.group(1).lower())
                if at >= 0 and intent == "create_event":
                    slots = [{"slot": "what", "start": at, "end": at + len(m.group(1))}]
                    known = True
            # Only the subject is read from the program, a time said never marked: the tagger
            # is not trained on these (a time left unmarked would teach it times are no slot).
            d = ex(row["text"], SMCAL[intent], slots, "smcalflow", intent, slots_known=known and split == "test")
            d["when_known"] = False
            yield d
        elif intent in SMCAL_NONE or (intent.startswith("fence:") and intent not in SMCAL_OWN_FENCES):
            # Trained on only what is plainly none of the routine's (weather, places, people,
            # gibberish, trivia); the other fences — several actions at once, "other" — are
            # tested as not routine but teach nothing about what a request is.
            if split == "train" and intent.startswith("fence:") and intent not in SMCAL_NONE_FENCES:
                continue
            yield ex(row["text"], "none", [], "smcalflow", intent)


# --- generated variation ---------------------------------------------------------------------

ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
ORD = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth", 7: "seventh", 8: "eighth", 9: "ninth",
       10: "tenth", 11: "eleventh", 12: "twelfth", 13: "thirteenth", 14: "fourteenth", 15: "fifteenth", 16: "sixteenth",
       17: "seventeenth", 18: "eighteenth", 19: "nineteenth", 20: "twentieth", 30: "thirtieth"}


def words(n):
    if n < 20:
        return ONES[n]
    if n < 100:
        return TENS[n // 10] + ("" if n % 10 == 0 else " " + ONES[n % 10])
    return " ".join(ONES[int(d)] for d in str(n))


def ordinal(n):
    if n in ORD:
        return ORD[n]
    if 20 < n < 40:
        return TENS[n // 10] + " " + ORD[n % 10]
    return words(n)


def speak(text):
    """A typed request as speech-to-text writes it: lower case, no punctuation, numbers as words."""
    t = text.lower()
    t = re.sub(r"\b(\d{1,2})[:.](\d{2})\s*(am|pm|a\.m\.|p\.m\.)?", lambda m: f"{words(int(m.group(1)))} {'oh ' + words(int(m.group(2))) if m.group(2).startswith('0') and m.group(2) != '00' else ('' if m.group(2) == '00' else words(int(m.group(2))))} {(m.group(3) or '').replace('.', '')}", t)
    t = re.sub(r"\b(\d{1,2})\s*(am|pm)\b", lambda m: f"{words(int(m.group(1)))} {m.group(2)}", t)
    t = re.sub(r"\b(\d{1,2})(st|nd|rd|th)\b", lambda m: ordinal(int(m.group(1))), t)
    t = re.sub(r"\b(\d+)\b", lambda m: words(int(m.group(1))) if len(m.group(1)) < 5 else m.group(1), t)
    t = re.sub(r"[^\w\s']", " ", t)
    return re.sub(r"\s+", " ", t).strip()


def spoken(e):
    """`e` rendered as speech, each slot rendered on its own so its offsets stay true."""
    text = e["text"]
    cuts = sorted(e["slots"], key=lambda s: s["start"])
    out, slots, at = "", [], 0
    for s in cuts:
        before = speak(text[at:s["start"]])
        if before:
            out += (" " if out else "") + before
        inner = speak(text[s["start"]:s["end"]])
        if inner:
            out += " " if out else ""
            slots.append({"slot": s["slot"], "start": len(out), "end": len(out) + len(inner)})
            out += inner
        at = s["end"]
    rest = speak(text[at:])
    if rest:
        out += (" " if out else "") + rest
    d = dict(e, text=out, slots=slots)
    d["style"] = "spoken"
    return d


# Templates for what the public sets lack (cn's own intents: complete, idea, what did you do;
# the typed list phrasings: "add X to my to-do list", "push X to friday"), filled with the
# public sets' own to-do and time phrases. {x} is what (add, idea) or which item (the rest),
# {t} a time phrase, {s} a span.
TEMPLATES = {
    "add": [
        "add {x} to my to-do list", "add {x} to my todo list {t}", "please add to my tasks: {x}", "put {x} on my list",
        "add {x} to my list {t}", "new task: {x}", "todo: {x} {t}", "add a task {x} {t}", "put {x} on my calendar {t}",
        "add {x} to my calendar for {t}", "i have {x} {t}", "don't let me forget to {x} {t}", "{t} remind me to {x}",
        "pls remind me {x} {t}", "can you add {x} to my tasks", "task: {x}", "add to my list: {x}", "put {x} in my diary {t}",
        "note to self: {x} {t}", "remind me about {x} {t}", "add {x} {t}", "{x} {t} please", "i need to {x} {t}",
        "schedule {x} for {t}", "book {x} in my calendar for {t}", "set a reminder to {x} {t}", "remind me {t} to {x}",
    ],
    "move": [
        "push {x} to {t}", "move {x} to {t}", "postpone {x} until {t}", "reschedule {x} for {t}",
        "can you move my {x} reminder to {t}", "snooze {x} for {s}", "snooze the {x} reminder {s}", "push back {x} by {s}",
        "delay {x} by {s}", "change {x} to {t}", "move the {x} task to {t}", "bump {x} to {t}", "put off {x} until {t}",
        "push my {x} back to {t}", "can we do {x} {t} instead",
    ],
    "cancel": [
        "cancel {x}", "delete the {x} reminder", "remove {x} from my list", "take {x} off my list",
        "i don't need to {x} anymore", "scrap {x}", "forget about {x}", "cancel the reminder to {x}", "delete {x} from my tasks",
        "drop {x}", "no need to {x} anymore", "{x} is cancelled", "remove the task {x}", "cancel my {x}",
    ],
    "list": [
        "what's on my list", "what do i have {t}", "what's due {t}", "show my tasks", "any reminders {t}",
        "what's on my calendar {t}", "do i have anything {t}", "when is {x}", "when's my {x}", "what reminders do i have",
        "what tasks are overdue", "what's on my to-do list", "list my tasks for {t}", "what have i got on {t}",
        "show me my reminders", "what's left to do {t}", "do i have {x} {t}", "when do i have to {x}", "is {x} on my list",
        "what's on the agenda {t}", "anything due {t}",
    ],
    "complete": [
        "mark {x} as done", "mark {x} done", "i finished {x}", "i've finished {x}", "{x} is done", "done with {x}",
        "i'm done with {x}", "tick off {x}", "check off {x}", "cross {x} off my list", "completed {x}", "{x} done",
        "i already did {x}", "you can mark {x} as complete", "{x} is finished", "finished {x} just now",
        "please mark the reminder to {x} as done", "set {x} to done", "{x} has been taken care of", "i did {x}",
    ],
    "idea": [
        "idea: {x}", "new idea {x}", "add an idea: {x}", "save for later: {x}", "someday i'd like to {x}",
        "note an idea about {x}", "i have an idea {x}", "add to my ideas {x}", "idea for later {x}", "maybe one day {x}",
        "save this idea {x}", "jot down an idea: {x}", "put {x} on my ideas list", "random idea: {x}", "keep an idea to {x}",
    ],
}
# One's own calendar, asked about and added to — the public sets have few such requests (SGD's
# calendar turns, CLINC's intent-only lines), and TOPv2's public events ("any concerts this
# weekend") taught the model that "events" are not the person's own. {x} is an event (SGD's
# event names, TOPv2's to-do phrases that name one), sometimes "with" a person (TOPv2's message
# recipients); {p} is a person alone, marked as no slot.
CALENDAR = {
    "list": [
        "do i have {x} {t}", "do i have a {x} {t}", "do i have my {x} {t}", "when is my {x}", "when is my next {x}",
        "when's the {x}", "when's my {x}", "what time is my {x}", "what time is the {x} {t}", "is my {x} {t}",
        "is there a {x} {t}", "is the {x} still {t}", "am i meeting {p} {t}", "will i see {p} {t}",
        "when do i see {p} next", "when am i meeting {p}", "do i have anything with {p} {t}",
        "what's on my schedule {t}", "how does my {d} look", "how does {d} look", "how's {d} looking",
        "what do i have going on {t}", "what meetings do i have {t}", "what appointments do i have {t}",
        "how many meetings do i have {t}", "do i have any meetings {t}", "what events are on my calendar {t}",
        "what am i doing {t}", "what's happening {t}", "find my {x}", "show me the {x} {t}", "look up my {x}",
        "check my calendar for {d}", "check when my {x} is", "what's next on my calendar", "what's my next {x}",
        "where do i need to be {t}", "am i busy {d}", "what's my schedule like {t}", "can you tell me what i have {t}",
        "is anything scheduled {t}", "any events scheduled {t}", "do i have plans {t}", "what plans do i have {t}",
        "when is the next {x}", "when is {x} scheduled", "tell me when my {x} is", "can you check what time my {x} is",
    ],
    "add": [
        "schedule a {x} {t}", "schedule {x} {t}", "set up a {x} {t}", "create an event called {x} {t}", "create a {x} {t}",
        "make an appointment with {p} {t}", "put {x} on my calendar {t}", "add {x} to my calendar {t}", "i have a {x} {t}",
        "block off {t} for {x}", "book a {x} {t}", "new event: {x} {t}", "arrange a {x} {t}",
        "i need a {x} {t}", "plan a {x} {t}", "mark my calendar for {x} {t}", "pencil in {x} {t}", "add an event {x} {t}",
        "set a meeting with {p} {t}", "i'm meeting {p} {t}", "make a {x} {t}", "create event {x} {t}",
        "please schedule {x} {t}", "can you put {x} in my calendar {t}", "i want to schedule a {x} {t}",
    ],
}


def calendar_events(raw, sources):
    """Events named in the training splits (SGD's, TOPv2's to-dos that are one) and people."""
    ev = re.compile(r"\b(meeting|appointment|party|dinner|lunch|breakfast|class|practice|game|interview|conference|"
                    r"recital|concert|date|session|rehearsal|checkup|visit|reunion|shower|wedding|lesson|review|"
                    r"presentation|viewing|reservation)\b")
    verb = re.compile(r"^(make|schedule|reschedule|set|cancel|pick|go|start|eat|pack|visit|watch|call|book|get|attend|"
                      r"leave|plan|prepare|buy|cook|study|review|confirm|remind)\b")
    events = set()
    for src in ("topv2", "sgd"):
        for e in sources[src]["train"]:
            if e["intent"] != "add":
                continue
            for s in e["slots"]:
                t = e["text"][s["start"]:s["end"]].strip().lower()
                t = re.sub(r"^(my|the|a|an|our|his|her|their)\s+", "", t)
                # A name that ends in what it is ("the group meeting", "baby shower"), no more.
                if s["slot"] == "what" and ev.search(t.split()[-1] if t else "") and not verb.search(t) \
                        and not re.search(r"\d|,", t) and len(t.split()) <= 4:
                    events.add(t)
    people = set()
    for row in rows(os.path.join(raw, "topv2", "train.tsv")):
        for s in slots_of(row):
            t = row["text"][s["start"]:s["end"]].strip()
            if s["slot"] == "RECIPIENT" and re.fullmatch(r"[A-Za-z]{3,}", t) and t.lower() not in ("mom", "dad", "everyone", "her", "him", "them", "mum"):
                people.add(t.capitalize())
    return sorted(events), sorted(people)


def calendared(events, people, times, rng, n):
    # A day alone ("tomorrow", "friday", "next week") for "how does {d} look".
    day = re.compile(r"\b(today|tonight|tomorrow|monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|weekend|month)\b", re.I)
    days = sorted({re.sub(r"^(for|on|at|this coming|in)\s+", "", t, flags=re.I) for t in times if day.search(t) and not re.search(r"\d", t)})
    out = []
    for intent, templates in CALENDAR.items():
        for _ in range(n):
            x = rng.choice(events)
            if rng.random() < 0.3:
                x = f"{x} with {rng.choice(people)}"
            template = rng.choice(templates).replace("{p}", rng.choice(people))
            text, slots = fill(template, intent, x, rng.choice(times), "", rng.choice(days))
            out.append(ex(text, intent, slots, "generated", "calendar_" + intent, weight=0.5))
    return out


SPANS = ["30 minutes", "an hour", "ten minutes", "2 hours", "half an hour", "a day", "15 mins", "a week", "20 min"]
ACTIVITY = [
    "what did you do today", "what have you done today", "what did you get done", "what have you been up to",
    "what are you working on", "give me a status update", "what did you do yesterday", "what happened today",
    "any updates", "what have you been doing", "tell me what you did today", "summarize your day",
    "what did you work on", "status report please", "what are you doing right now", "how was your day",
    "what did you accomplish today", "what's your status", "report on what you did", "what have you done so far",
]
SMALLTALK = [
    "hi", "hello", "hey there", "good morning", "thanks", "thank you so much", "ok cool", "great thanks", "bye",
    "see you later", "how are you", "nice", "perfect", "awesome", "good night", "cheers", "ok", "got it", "lol",
    "you're the best", "never mind", "no worries", "sounds good", "please stop talking", "stop", "shut up", "forget it",
    "cancel that", "that's all", "nothing", "never mind that", "ok thanks", "yes", "no", "maybe later", "stop it",
]


def fill(template, intent, x, t, s, d=""):
    """A template filled, with its slots' char offsets."""
    text, slots = "", []
    for part in re.split(r"(\{[xtsd]\})", template):
        value = {"{x}": x, "{t}": t, "{s}": s, "{d}": d}.get(part)
        if value is None:
            text += part
            continue
        kind = {"{x}": "what" if intent in ("add", "idea") else "item", "{t}": "when", "{s}": "when", "{d}": "when"}[part]
        if intent == "list" and part == "{t}":
            kind = "when"
        slots.append({"slot": kind, "start": len(text), "end": len(text) + len(value)})
        text += value
    # Tidy doubled spaces and the ends, keeping offsets true.
    while "  " in text:
        i = text.index("  ")
        text = text[:i] + text[i + 1:]
        for sl in slots:
            sl["start"] -= sl["start"] > i
            sl["end"] -= sl["end"] > i
    lead = len(text) - len(text.lstrip())
    text = text.strip()
    for sl in slots:
        sl["start"] -= lead
        sl["end"] -= lead
    return text, [sl for sl in slots if sl["end"] > sl["start"]]


def templated(todos, times, rng, n):
    out = []
    for intent, templates in TEMPLATES.items():
        for _ in range(n):
            text, slots = fill(rng.choice(templates), intent, rng.choice(todos), rng.choice(times), rng.choice(SPANS))
            out.append(ex(text, intent, slots, "generated", intent, weight=0.5))
    for t in ACTIVITY:
        for v in (t, t + "?", t.capitalize() + "?"):
            out.append(ex(v, "activity", [], "generated", "activity", weight=0.5))
    for t in SMALLTALK:
        for v in (t, t + "!", t.capitalize() + "."):
            out.append(ex(v, "smalltalk", [], "generated", "smalltalk", weight=0.5))
    return out


# --- main ------------------------------------------------------------------------------------


def write(path, items):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        for e in items:
            f.write(json.dumps(e, ensure_ascii=False) + "\n")
    os.replace(path + ".tmp", path)
    return len(items)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--raw", default="/work/nlu-data/raw")
    ap.add_argument("--out", default="/work/nlu-data/cn")
    ap.add_argument("--seed", type=int, default=41)
    ap.add_argument("--none-per-source", type=int, default=6000, help="not-routine examples kept per source in training")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    raw = a.raw

    sources = {
        "topv2": {s: list(topv2(raw, s)) for s in ("train", "eval", "test")},
        "schuster": {s: list(schuster(raw, s)) for s in ("train", "eval", "test")},
        "sgd": {s: list(sgd(raw, s)) for s in ("train", "dev", "test")},
        "clinc": {s: list(clinc(raw, s)) for s in ("train", "val", "test")},
        "banking77": {s: list(plain_none(raw, "banking77", s, "banking77")) for s in ("train", "test")},
        "snips": {"train": list(plain_none(raw, "snips2017", "train_full", "snips")), "test": list(plain_none(raw, "snips2017", "validate", "snips"))},
        "smcalflow": {s: list(smcalflow(raw, s)) for s in ("train", "test")},
    }
    # A test line whose words were trained on is no test: TOPv2 and the Schuster set are one
    # family (most of Schuster's texts are in TOPv2, some across splits), and both repeat
    # texts, so every held-out split loses the texts any training split has.
    def key(t):
        return " ".join(re.findall(r"[a-z0-9']+", t.lower()))

    seen = {key(e["text"]) for splits in sources.values() for e in splits.get("train", [])}
    dropped = 0
    for splits in sources.values():
        for split in [s for s in splits if s != "train"]:
            before = len(splits[split])
            kept, keys = [], set()
            for e in splits[split]:
                k = key(e["text"])
                if k in seen or k in keys:
                    continue
                keys.add(k)
                kept.append(e)
            splits[split] = kept
            dropped += before - len(kept)
    print(f"held-out lines dropped as seen in training or repeated: {dropped}")
    counts = {}
    for name, splits in sources.items():
        for split, items in splits.items():
            if split == "train":
                routine = [e for e in items if e["intent"] != "none"]
                none = [e for e in items if e["intent"] == "none"]
                rng.shuffle(none)
                items = routine + none[: a.none_per_source]
                # Spoken renderings of a third of the routine requests (generated variation).
                items += [spoken(e) for e in routine if rng.random() < 0.33]
            counts[f"{name}/{split}"] = write(os.path.join(a.out, name, f"{split}.jsonl"), items)
            if split == "test" and name in ("topv2", "schuster", "sgd"):
                counts[f"{name}/test-spoken"] = write(os.path.join(a.out, name, "test-spoken.jsonl"), [spoken(e) for e in items])
    todos = [e["text"][s["start"]:s["end"]] for e in sources["topv2"]["train"] for s in e["slots"] if s["slot"] == "what" and e["intent"] == "add"]
    todos = sorted(set(t.strip() for t in todos if 2 < len(t.strip()) < 60))
    times = [e["text"][s["start"]:s["end"]] for e in sources["topv2"]["train"] for s in e["slots"] if s["slot"] == "when" and e["intent"] == "add"]
    times = sorted(set(t.strip() for t in times if 2 < len(t.strip()) < 40))
    gen = templated(todos, times, rng, 1200)
    events, people = calendar_events(raw, sources)
    gen += calendared(events, people, times, rng, 1000)
    gen += [spoken(e) for e in gen if rng.random() < 0.3]
    counts["generated/train"] = write(os.path.join(a.out, "generated", "train.jsonl"), gen)
    for k, v in sorted(counts.items()):
        print(f"{k:28} {v:7}")


if __name__ == "__main__":
    sys.exit(main())
