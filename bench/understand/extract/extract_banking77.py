import csv, io, sys
sys.path.insert(0, "/work/nlu-data/scripts")
from common import *
REPO = "PolyAI-LDN/task-specific-datasets"
for split in ["train", "test"]:
    raw = git_show(REPO, f"banking_data/{split}.csv").decode("utf-8")
    rd = csv.DictReader(io.StringIO(raw))
    rows = [[r["text"], r["category"]] for r in rd]
    write_tsv("banking77", split, ["text", "intent"], rows)
print(head_commit(REPO))
