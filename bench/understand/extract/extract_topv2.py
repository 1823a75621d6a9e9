import sys, collections
sys.path.insert(0, "/work/nlu-data/scripts")
from common import *
from topparse import parse, align, slots_of, is_nested
REPO = "quocdat32461997/prompt-semantic-parsing"
BASE = "datasets/TOPv2_Dataset"
fails = collections.Counter()
for split in ["train", "eval", "test"]:
    rows = []
    for dom in ["alarm", "event", "messaging", "music", "navigation", "reminder", "timer", "weather"]:
        raw = git_show(REPO, f"{BASE}/{dom}_{split}.tsv").decode("utf-8")
        lines = raw.rstrip("\n").split("\n")
        assert lines[0] == "domain\tutterance\tsemantic_parse", lines[0]
        for ln in lines[1:]:
            d, utt, sp = ln.split("\t")
            root, words = parse(sp)
            spans = align(utt, words)
            if spans is None:
                fails[(split, dom)] += 1
                slots = None
            else:
                slots = slots_of(root, utt, spans)
                check_slots(utt, slots)
            rows.append([utt, root.label.replace("IN:", ""), slots if slots is not None else "ALIGN_FAILED", d, int(is_nested(root)), sp])
    write_tsv("topv2", split, ["text", "intent", "slots", "domain", "nested", "parse"], rows)
print("alignment failures:", dict(fails))
print(head_commit(REPO))
