import json, sys
sys.path.insert(0, "/work/nlu-data/scripts")
from common import *
REPO = "clinc/oos-eval"
d = json.loads(git_show(REPO, "data/data_full.json"))
domains = json.loads(git_show(REPO, "data/domains.json"))
dom_of = {i: dname for dname, ints in domains.items() for i in ints}
for split in ["train", "val", "test", "oos_train", "oos_val", "oos_test"]:
    rows = [[t, lab, dom_of.get(lab, "oos" if lab == "oos" else "?")] for t, lab in d[split]]
    write_tsv("clinc150", split, ["text", "intent", "domain"], rows)
print(head_commit(REPO))
