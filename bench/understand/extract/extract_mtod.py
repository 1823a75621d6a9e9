import sys, io, zipfile, collections
sys.path.insert(0, "/work/nlu-data/scripts")
from common import *
REPO = "milangritta/Datasets"
z = zipfile.ZipFile(io.BytesIO(git_show(REPO, "mtod.zip")))
for split, fn in [("train", "mtod/en/train-en.conllu"), ("eval", "mtod/en/dev-en.conllu"), ("test", "mtod/en/test-en.conllu")]:
    rows, cur = [], {}
    bad = 0
    for line in z.read(fn).decode("utf-8").split("\n"):
        if line.startswith("# text: "):
            cur = {"text": line[len("# text: "):]}
        elif line.startswith("# intent: "):
            cur["intent"] = line[len("# intent: "):]
        elif line.startswith("# slots: "):
            spec = line[len("# slots: "):].strip()
            slots = []
            for part in [p for p in spec.split(",") if p]:
                a, b, lab = part.split(":", 2)
                a, b = int(a), int(b)
                slots.append({"slot": lab, "start": a, "end": b, "text": cur["text"][a:b]})
            check_slots(cur["text"], slots)
            cur["slots"] = slots
            rows.append([cur["text"], cur["intent"], slots, cur["intent"].split("/")[0]])
    write_tsv("mtod_schuster2019", split, ["text", "intent", "slots", "domain"], rows)
print(head_commit(REPO))
