//! The routine's questions are answered by the next message in the conversation, end to end
//! with the real `cn chat` (no daemon) on a fresh hub in Europe/Paris: "set a reminder" asks
//! what and when, and "call the bank tomorrow at 10" files it; "cancel the dentist" with two
//! dentist tasks asks which, and "the appointment" cancels only that one; "please stop
//! talking" cancels nothing; a question answered by a new request, or by a greeting another
//! reflex takes, or expired, leaves the new message to be handled as always. Each `cn` runs under libfaketime with its wall clock set
//! to a fixed minute, so "tomorrow at 10" and the 30 minutes a question waits are exact, with
//! no sleeps.

use crate::daemon_common;

use std::path::{Path, PathBuf};

use daemon_common::*;
use serde_json::Value;

/// A level-2 model that answers anything plainly: what is not the routine's gets this.
const MODEL: &str = "cat >/dev/null\nprintf '```yaml\\ntool: reply\\nmessage: I cannot do that here.\\n```\\n'\n";

/// Wednesday 10 March 2027, 09:00 in Paris (CET, UTC+1): the clock of the first message.
const T0: &str = "2027-03-10 08:00:00";
/// A minute later: the next message.
const T1: &str = "2027-03-10 08:01:00";
/// 31 minutes after the first message: its question has expired.
const T31: &str = "2027-03-10 08:31:00";

fn dialogue_hub(root: &Path) -> PathBuf {
    hub(root, "ada", MODEL, "reflexes:\n  time_zone: Europe/Paris\n")
}

/// `cn chat TEXT` with the wall clock at `at` (UTC): the answer.
fn chat(hub: &Path, at: &str, text: &str) -> String {
    let lib = libfaketime();
    let out = cn_cmd(hub)
        .args(["chat", "--timeout", "60", text])
        .env("LD_PRELOAD", &lib)
        .env("FAKETIME", format!("@{at}"))
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
        .env("TZ", "UTC")
        .output()
        .unwrap();
    assert!(out.status.success(), "cn chat {text}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn state(hub: &Path, file: &str) -> String {
    std::fs::read_to_string(hub.join("state").join(file)).unwrap_or_default()
}

fn tasks(hub: &Path) -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(hub.join("state/tasks.json")).unwrap_or_else(|_| "[]".into()))
        .unwrap()
}

fn task<'a>(all: &'a [Value], name: &str) -> &'a Value {
    all.iter().find(|t| t["task"] == name).unwrap_or_else(|| panic!("no task {name}: {all:#?}"))
}

/// The hub with `names` filed as open tasks, through the routine itself.
fn with_tasks(hub: &Path, names: &[&str]) {
    for name in names {
        let added = chat(hub, T0, &format!("add a task: {name}"));
        assert_eq!(added, format!("Added: {name} (no due time)."));
    }
}

#[test]
fn set_a_reminder_asks_what_and_when_and_the_next_message_files_it() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dialogue_hub(dir.path());
    let before = state(&hub, "tasks.json");
    assert_eq!(chat(&hub, T0, "set a reminder"), "What should I remind you of, and when?");
    assert_eq!(state(&hub, "tasks.json"), before, "asking changes nothing");
    assert!(state(&hub, "routine-pending.json").contains("what_and_when"));

    // Tomorrow (Thursday 11 March) at 10:00 in Paris is 09:00 UTC.
    let added = chat(&hub, T1, "call the bank tomorrow at 10");
    assert_eq!(added, "Added: call the bank — due Thu 11 Mar, 10:00.");
    let all = tasks(&hub);
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(task(&all, "call the bank")["due"], "2027-03-11T09:00:00Z");
    assert!(!state(&hub, "routine-pending.json").contains("what_and_when"), "answered: the question is gone");
    // A runtime file: the hub's .gitignore keeps it out of its commits.
    let ignored = std::fs::read_to_string(hub.join(".gitignore")).unwrap();
    assert!(ignored.lines().any(|l| l == "state/routine-pending.json"), "{ignored}");
}

#[test]
fn which_dentist_is_asked_and_the_answer_cancels_only_that_one() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dialogue_hub(dir.path());
    with_tasks(&hub, &["dentist appointment", "pay the dentist bill"]);
    let before = state(&hub, "tasks.json");

    let asked = chat(&hub, T0, "cancel the dentist");
    assert!(
        asked.contains("dentist appointment") && asked.contains("pay the dentist bill") && asked.contains("Which one?"),
        "{asked}"
    );
    assert_eq!(state(&hub, "tasks.json"), before, "asking changes nothing");

    let done = chat(&hub, T1, "the appointment");
    assert!(done.starts_with("Cancelled: dentist appointment"), "{done}");
    let all = tasks(&hub);
    assert_eq!(task(&all, "dentist appointment")["status"], "cancelled");
    let bill = task(&all, "pay the dentist bill");
    assert!(bill.get("done").is_none_or(|d| d == false) && bill.get("status").is_none(), "still open: {bill}");
}

#[test]
fn please_stop_talking_changes_nothing_and_claims_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dialogue_hub(dir.path());
    with_tasks(&hub, &["talk to the landlord", "call the plumber"]);
    let files = || ["tasks.json", "ideas.json", "schedule.json"].map(|f| state(&hub, f));
    let before = files();
    for text in ["please stop talking", "stop it", "never mind"] {
        let said = chat(&hub, T0, text);
        assert!(!said.contains("Cancelled") && !said.contains("Done:"), "{text}: {said}");
        assert_eq!(files(), before, "{text} changed a file");
    }
}

#[test]
fn a_new_request_or_an_expired_question_is_handled_as_a_new_message() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dialogue_hub(dir.path());
    with_tasks(&hub, &["dentist appointment", "pay the dentist bill"]);
    let before = state(&hub, "tasks.json");

    // A question, then a new request: the request is done, nothing is filed from it.
    assert_eq!(chat(&hub, T0, "set a reminder"), "What should I remind you of, and when?");
    let listed = chat(&hub, T1, "what's on my list");
    assert!(listed.starts_with("Your open tasks (2):"), "{listed}");
    assert_eq!(state(&hub, "tasks.json"), before);

    // Only the next message answers: one another reflex takes (a greeting) drops the question.
    assert_eq!(chat(&hub, T0, "set a reminder"), "What should I remind you of, and when?");
    assert!(chat(&hub, T1, "hello").contains("Hello"));
    let after = chat(&hub, T1, "call the bank tomorrow at 10");
    assert!(!after.starts_with("Added"), "{after}");
    assert_eq!(state(&hub, "tasks.json"), before);

    // A question expired: "the appointment" 31 minutes later answers nothing.
    assert!(chat(&hub, T0, "cancel the dentist").contains("Which one?"));
    let late = chat(&hub, T31, "the appointment");
    assert!(!late.contains("Cancelled"), "{late}");
    assert_eq!(state(&hub, "tasks.json"), before, "an expired question is no answer");
}

/// Issue 41: a request as people say it ("put meeting with pawel for tomorrow ten am": no
/// frame of the routine's, number words) is understood by the learned layer and done below the
/// executive; `cn journal why` on its decision says what was understood.
#[test]
fn a_request_as_people_say_it_is_done_and_why_says_what_was_understood() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dialogue_hub(dir.path());
    let added = chat(&hub, T0, "put meeting with pawel for tomorrow ten am");
    assert_eq!(added, "Added: meeting with pawel — due Thu 11 Mar, 10:00.");
    assert_eq!(task(&tasks(&hub), "meeting with pawel")["due"], "2027-03-11T09:00:00Z");
    let journal = state(&hub, "journal.jsonl");
    let decisions: Vec<Value> = journal
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "decision")
        .collect();
    let id = decisions.last().and_then(|e| e["id"].as_str().map(String::from)).expect("a decision");
    let why = cn_ok(&hub, &["journal", "why", &id]);
    assert!(why.contains("understood: add") && why.contains("what=“meeting with pawel”"), "{why}");
}

/// Repeats as people say them, end to end: "weekdays at 7 am" is one schedule entry for
/// Monday to Friday (never an alarm filed once); a repeat said without how often is asked
/// about; "my daily alarm" is not the daily reflection cn keeps.
#[test]
fn repeats_are_scheduled_or_asked_and_the_daily_reflection_stays() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dialogue_hub(dir.path());
    let schedule = || -> Vec<Value> { serde_json::from_str(&state(&hub, "schedule.json")).unwrap_or_default() };
    let before = schedule();
    assert!(before.iter().any(|e| e["name"] == "daily-reflection"), "cn init keeps a daily reflection: {before:?}");

    let said = chat(&hub, T0, "set alarm for weekdays at 7 am");
    assert!(said.starts_with("Scheduled:"), "{said}");
    let now = schedule();
    let added: Vec<&Value> = now.iter().filter(|e| !before.contains(e)).collect();
    assert_eq!(added.len(), 1, "{now:#?}");
    assert_eq!(added[0]["cron"], "0 7 * * 1-5", "{:#?}", added[0]);
    assert!(tasks(&hub).is_empty(), "no alarm filed once: {:?}", tasks(&hub));

    let files = || ["tasks.json", "ideas.json", "schedule.json"].map(|f| state(&hub, f));
    let kept = files();
    for text in ["make a recurring alarm for 5:15am", "Turn off my daily alarm"] {
        let said = chat(&hub, T1, text);
        assert!(
            !said.starts_with("Removed") && !said.starts_with("Added") && !said.starts_with("Scheduled"),
            "{text}: {said}"
        );
        assert_eq!(files(), kept, "{text} changed a file: {said}");
    }
    assert!(schedule().iter().any(|e| e["name"] == "daily-reflection"));
}

/// A level-2 model that answers every question "task": a tiny model talked into anything.
const SAYS_TASK: &str = "cat >/dev/null\nprintf 'task\\n'\n";

#[test]
fn the_level_2_model_files_nothing_the_built_in_one_is_sure_is_not_routine() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", SAYS_TASK, "reflexes:\n  time_zone: Europe/Paris\n");
    for text in [
        "Text the work chat we have moved the deadline for next week.",
        "tell the team the deadline moved to friday",
        "siri can you text joe to meet me at starbucks at four pm today send",
    ] {
        let said = chat(&hub, T0, text);
        assert!(!said.contains("Added"), "{text}: {said}");
        assert!(tasks(&hub).is_empty(), "{text} filed a task: {:#?}", tasks(&hub));
    }
    // Where the built-in model is unsure, the level-2 model is still asked, and its "task"
    // files the words as said.
    let said = chat(&hub, T0, "deadline for the boiler thing");
    assert!(said.contains("Added"), "{said}");
    assert!(task(&tasks(&hub), "deadline for the boiler thing").get("status").is_none(), "open");
}

/// A level-2 model that answers every question "idea".
const SAYS_IDEA: &str = "cat >/dev/null\nprintf 'idea\\n'\n";

/// A tiny model talked into "idea" files none where the words name no idea, and none where the
/// built-in model is sure the message changes what exists (outside data: "turn off all
/// reminders until i turn them back on" had been noted as an idea).
#[test]
fn the_level_2_model_notes_no_idea_the_words_do_not_name() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", SAYS_IDEA, "reflexes:\n  time_zone: Europe/Paris\n");
    let ideas = || state(&hub, "ideas.json");
    let before = ideas();
    for text in ["turn off all reminders until i turn them back on", "deadline for the boiler thing"] {
        let said = chat(&hub, T0, text);
        assert!(!said.contains("idea"), "{text}: {said}");
    }
    assert_eq!(ideas(), before, "an idea was noted");
}
