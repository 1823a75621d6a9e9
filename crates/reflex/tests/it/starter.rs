//! The starter reflexes every `cn init` hub gets (issues 17, 31): the routine answered below
//! the executive by the engine, as `cn reflex test` runs it, on a fresh hub — greetings,
//! thanks, reminders and tasks with their due time read in the hub's time zone, ideas, lists,
//! done, moves, an unreadable date asked about, the time, and "what did you do today" from the
//! journal — and what is not routine escalates.

use std::path::Path;

use crate::support::{init_hub, reflex_test};

/// `cn reflex test --json TEXT`: no level-2 model here, so what reaches the triage escalates
/// (the scripted model says so).
fn test(hub: &Path, text: &str) -> serde_json::Value {
    reflex_test(hub, text, Some(&["executive", "executive", "executive"]), false)
}

fn reply(h: &serde_json::Value) -> String {
    h["steps"].as_array().unwrap().iter().rev().find(|s| s["action"] == "reply").unwrap()["output"].to_string()
}

#[test]
fn a_fresh_hub_answers_the_routine_and_escalates_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "hub");
    let config = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(hub.join("cn.yaml"), format!("{config}\nreflexes:\n  time_zone: Pacific/Auckland\n")).unwrap();

    for (text, reflex) in [
        ("Good morning!", "hello"),
        ("thanks a lot!", "thanks"),
        ("👍", "thanks"),
        ("what time is it?", "time"),
        ("what did you do today?", "doing"),
    ] {
        let h = test(&hub, text);
        assert_eq!((h["reflex"].as_str(), h["escalate"].as_bool()), (Some(reflex), Some(false)), "{text}: {h}");
    }
    assert!(reply(&test(&hub, "what time is it?")).contains("Pacific/Auckland"));

    let h = test(&hub, "remind me to call mom tomorrow at 6pm");
    assert_eq!(h["reflex"], "routine", "{h}");
    let sent = reply(&h);
    assert!(sent.contains("Added: call mom — due ") && sent.contains("18:00"), "{sent}");
    let h = test(&hub, "add a task: renew the passport next week");
    assert_eq!(h["reflex"], "routine", "{h}");
    let h = test(&hub, "I need to book the dentist by Friday");
    assert!(reply(&h).contains("Added: book the dentist — due "), "a need is a task: {h}");
    let h = test(&hub, "idea: a repair cafe in the neighbourhood");
    assert_eq!(h["reflex"], "routine", "{h}");
    assert!(reply(&h).contains("Noted as an idea: a repair cafe in the neighbourhood."), "{h}");

    let tasks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/tasks.json")).unwrap()).unwrap();
    assert_eq!(tasks[0]["task"], "call mom");
    // 18:00 in Auckland is 05:00 or 06:00 UTC (daylight saving or not).
    let due = tasks[0]["due"].as_str().unwrap();
    assert!(due.ends_with("T05:00:00Z") || due.ends_with("T06:00:00Z"), "{due}");
    assert_eq!(tasks[1]["task"], "renew the passport");
    assert!(tasks[1]["due"].as_str().is_some());
    let ideas = std::fs::read_to_string(hub.join("state/ideas.json")).unwrap();
    assert!(ideas.contains("a repair cafe in the neighbourhood"), "{ideas}");

    // The rest of the routine: listed, done, moved, asked about — each answer what changed.
    assert!(reply(&test(&hub, "what's on my list?")).contains("Your open tasks (3):"));
    assert!(reply(&test(&hub, "done with call mom")).contains("Done: call mom"));
    assert!(reply(&test(&hub, "push the passport to the 3rd")).contains("Moved: renew the passport — now due "));
    let asked = reply(&test(&hub, "remind me to call the bank on the 45th"));
    assert!(asked.contains("I can't read “on the 45th” as a date") && asked.contains("Nothing was changed"), "{asked}");
    let tasks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/tasks.json")).unwrap()).unwrap();
    assert_eq!((tasks.as_array().unwrap().len(), tasks[0]["done"].as_bool()), (3, Some(true)));

    // Not routine: the pattern reflexes pass, the level-2 triage says "executive".
    for text in
        ["Why is my Rust build so slow after adding tokio?", "idea: should we rewrite it in Go? what do you think?"]
    {
        let h = test(&hub, text);
        assert_eq!(h["escalate"], true, "{text}: {h}");
    }
}
