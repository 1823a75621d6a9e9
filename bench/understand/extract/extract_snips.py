import sys, json
sys.path.insert(0, "/work/nlu-data/scripts")
from common import *
REPO = "sonos/nlu-benchmark"
BASE = "2017-06-custom-intent-engines"
INTENTS = ["AddToPlaylist", "BookRestaurant", "GetWeather", "PlayMusic", "RateBook",
           "SearchCreativeWork", "SearchScreeningEvent"]
def load(path, intent):
    raw = git_show(REPO, path)
    try:
        txt = raw.decode("utf-8")
    except UnicodeDecodeError:
        txt = raw.decode("latin-1")
    d = json.loads(txt)
    rows = []
    for ex in d[intent]:
        text, slots = "", []
        for chunk in ex["data"]:
            t = chunk["text"]
            if "entity" in chunk:
                slots.append({"slot": chunk["entity"], "start": len(text), "end": len(text) + len(t), "text": t})
            text += t
        check_slots(text, slots)
        rows.append([text, intent, slots])
    return rows
for split, pat in [("train_full", "train_{i}_full.json"), ("validate", "validate_{i}.json")]:
    rows = []
    for i in INTENTS:
        rows += load(f"{BASE}/{i}/" + pat.format(i=i), i)
    write_tsv("snips2017", split, ["text", "intent", "slots"], rows)
print(head_commit(REPO))
