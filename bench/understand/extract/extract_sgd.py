import sys, json, collections
sys.path.insert(0, "/work/nlu-data/scripts")
from common import *
REPO = "google-research-datasets/dstc8-schema-guided-dialogue"
WANT = ("Calendar_", "Alarm_")
ls = git_ls(REPO)
missing = []
stats = collections.Counter()
for split in ["train", "dev", "test"]:
    rows = []
    files = sorted(p for p, sha, size in ls if p.startswith(split + "/dialogues_"))
    for path in files:
        sha = [s for p, s, z in ls if p == path][0]
        if not blob_present(REPO, sha):
            missing.append(path)
            continue
        for dlg in json.loads(git_show(REPO, path)):
            services = dlg["services"]
            if not any(s.startswith(WANT) for s in services):
                continue
            for ti, turn in enumerate(dlg["turns"]):
                if turn["speaker"] != "USER":
                    continue
                text = turn["utterance"]
                for fr in turn["frames"]:
                    if not fr["service"].startswith(WANT):
                        continue
                    intent = fr["service"] + ":" + fr["state"]["active_intent"]
                    slots = [{"slot": s["slot"], "start": s["start"], "end": s["exclusive_end"],
                              "text": text[s["start"]:s["exclusive_end"]]} for s in fr["slots"]]
                    check_slots(text, slots)
                    acts = ";".join(a["act"] + ("(" + a["slot"] + ")" if a["slot"] else "") for a in fr["actions"])
                    informs = int(any(a["act"] == "INFORM_INTENT" for a in fr["actions"]))
                    rows.append([text, intent, slots, fr["service"], acts, informs,
                                 dlg["dialogue_id"], ti, int(len(services) > 1)])
                    stats[(split, fr["service"])] += 1
    write_tsv("sgd_calendar_alarm", split,
              ["text", "intent", "slots", "service", "user_acts", "informs_intent", "dialogue_id", "turn_idx", "multi_domain_dialogue"], rows)
print("missing (absent from snapshot, >=4MiB):", missing)
for k, v in sorted(stats.items()):
    print(k, v)
print(head_commit(REPO))
