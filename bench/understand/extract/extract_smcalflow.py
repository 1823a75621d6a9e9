import sys, io, json, re, zipfile, collections
sys.path.insert(0, "/work/nlu-data/scripts")
from common import *
REPO = "microsoft/task_oriented_dialogue_as_dataflow_synthesis"
PATH = "datasets/SMCalFlow-2.0/valid.dataflow_dialogues.jsonl.zip"

def coarse(lp):
    """Heuristic coarse label from the lispress program (NOT an official label)."""
    m = re.search(r"\((Fence\w*)", lp)
    if m:
        return "fence:" + m.group(1)          # system declines: out of the calendar skill's scope
    if re.search(r"Pleasantry|GenericPleasantry", lp):
        return "pleasantry"
    if re.search(r"Confirm\w*AndReturnAction", lp):
        return "confirm_previous_action"
    if "DoNotConfirm" in lp:
        return "reject_previous_action"
    if re.search(r"Choose\w*Event", lp):
        return "choose_option"
    if "ReviseConstraint" in lp:
        return "revise_previous_request"
    if re.search(r"Delete(Commit|Preflight)EventWrapper", lp):
        return "delete_event"
    if re.search(r"Update(Commit|Preflight)EventWrapper", lp):
        return "update_event"
    if re.search(r"Create(Commit|Preflight)EventWrapper", lp):
        return "create_event"
    if re.search(r"IsFree|RecipientAvailability|FindFreeTime|Availability", lp):
        return "availability"
    if re.search(r"Weather", lp):
        return "weather"
    if re.search(r"FindEventWrapperWithDefaults|QueryEventResponse|FindEvent", lp):
        return "query_event"
    if re.search(r"PlaceSearchResponse|FindPlace|PlaceHasFeature|Place\.", lp):
        return "places"
    if re.search(r"Event\.\w+", lp):
        return "query_event"
    if re.search(r"FindManager|FindReports|FindTeamOf|PersonFromRecipient|FindPeople|RecipientWithNameLike", lp):
        return "org_chart_or_person"
    return "other"

z = zipfile.ZipFile(io.BytesIO(git_show(REPO, PATH)))
rows, c = [], collections.Counter()
for line in z.read("valid.dataflow_dialogues.jsonl").decode("utf-8").splitlines():
    d = json.loads(line)
    for t in d["turns"]:
        lab = coarse(t["lispress"])
        c[lab.split(":")[0]] += 1
        rows.append([t["user_utterance"]["original_text"], lab, d["dialogue_id"], t["turn_index"], int(t["skip"]), t["lispress"]])
write_tsv("smcalflow2_valid", "valid", ["text", "intent", "dialogue_id", "turn_index", "skip", "lispress"], rows)
print(c)
print(head_commit(REPO))
