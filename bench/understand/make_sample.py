#!/usr/bin/env python3
"""Writes sample.jsonl: 20 hand-made lines in the data's format (slots as char offsets), to
test the judge before the real data exists.  python3 bench/understand/make_sample.py"""
import json, os

# (text, intent, {slot: words}, orig)
LINES = [
    ("remind me to call the bank tomorrow at 10am", "add", {"what": "call the bank", "when": "tomorrow at 10am"}),
    ("Remind me to pick up the dry cleaning on Friday", "add", {"what": "pick up the dry cleaning", "when": "on Friday"}),
    ("add buy ink to my list", "add", {"what": "buy ink"}),
    ("I need to send the tax form by Monday", "add", {"what": "send the tax form", "when": "by Monday"}),
    ("remind me to take the cake out in 45 minutes", "add", {"what": "take the cake out", "when": "in 45 minutes"}),
    ("remind me to phone grandma at half past six", "add", {"what": "phone grandma", "when": "half past six"}),
    ("every Monday at 9am remind me to water the orchids", "add", {"recur": "every Monday", "when": "at 9am", "what": "water the orchids"}),
    ("idea: learn to play the cello", "idea", {"what": "learn to play the cello"}),
    ("what's on my list?", "list", {}),
    ("when is the dentist due?", "list", {"item": "the dentist"}),
    ("done with the car insurance", "complete", {"item": "the car insurance"}),
    ("I called the plumber", "complete", {"item": "the plumber"}),
    ("move the electrician to Monday at 3pm", "move", {"item": "the electrician", "when": "Monday at 3pm"}),
    ("push the gym session to tomorrow", "move", {"item": "the gym session", "when": "tomorrow"}),
    ("cancel the hairdresser task", "cancel", {"item": "the hairdresser"}),
    ("take the library books off my list", "cancel", {"item": "the library books"}),
    ("what did you do today?", "activity", {}),
    ("hi there", "smalltalk", {}),
    ("book a table for two at 7pm", "none", {}),
    ("what's the weather like in Lisbon?", "none", {}),
]

out = []
for text, intent, slots in LINES:
    ss = []
    for name, words in slots.items():
        start = text.find(words)
        assert start >= 0, (text, words)
        ss.append({"slot": name, "start": start, "end": start + len(words), "text": words})
    out.append({"text": text, "source": "sample", "intent": intent, "slots": ss, "orig": intent})
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sample.jsonl")
with open(path, "w", encoding="utf-8") as f:
    for o in out:
        f.write(json.dumps(o, ensure_ascii=False) + "\n")
print(path, len(out))
