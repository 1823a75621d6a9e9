use std::path::Path;

use cn_hub::origin::AnswerTo;
use cn_hub::tasks::{self, Task};
use cn_hub::Provenance;
use jiff::Zoned;

use super::super::{parse, Missing, Parsed, Want};
use super::*;

/// Thursday 26 November 2026, 14:30 in Paris: the routine corpus's now.
const NOW: &str = "2026-11-26T14:30:00[Europe/Paris]";

struct Hub {
    dir: tempfile::TempDir,
    now: Zoned,
    who: Provenance,
    answer: Option<AnswerTo>,
}

impl Hub {
    fn new(open: &[&str]) -> Hub {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        std::fs::create_dir_all(&state).unwrap();
        let all: Vec<Task> =
            open.iter().enumerate().map(|(i, name)| Task { id: format!("task-{i}"), ..Task::new(*name) }).collect();
        tasks::tasks_in(&state).save(&all).unwrap();
        Hub { dir, now: NOW.parse().unwrap(), who: Provenance::Owner, answer: Some(AnswerTo::Chat) }
    }
    fn root(&self) -> &Path {
        self.dir.path()
    }
    fn world(&self, message: &str) -> World {
        World {
            layout: cn_hub::Layout::new(self.root()),
            now: self.now.clone(),
            who: self.who.clone(),
            message: message.into(),
            answer: self.answer.clone(),
        }
    }
    fn say(&self, text: &str) -> String {
        match respond(text, &self.world(text), |t| parse(t, &self.now)) {
            Ok(done) => done.answer,
            Err(e) => format!("escalated: {}", cn_compute::chain(&e)),
        }
    }
    fn tasks(&self) -> Vec<Task> {
        tasks::tasks_in(&self.root().join("state")).load().unwrap()
    }
    fn tasks_file(&self) -> String {
        std::fs::read_to_string(self.root().join("state/tasks.json")).unwrap()
    }
    fn pending(&self) -> Vec<Pending> {
        tasks::read(&self.root().join("state").join(FILE)).unwrap()
    }
    fn later(&mut self, minutes: i64) {
        self.now = self.now.checked_add(jiff::Span::new().minutes(minutes)).unwrap();
    }
}

fn missing(want: Want) -> impl Fn(&Parsed) -> bool {
    move |p| matches!(p, Parsed::Missing(Missing { want: w, .. }) if *w == want)
}

#[test]
fn a_request_without_its_what_or_when_is_parsed_as_missing() {
    let now: Zoned = NOW.parse().unwrap();
    for text in [
        "set a reminder",
        "Remind me",
        "add a reminder",
        "add a task",
        "create an event",
        "add an event to my calendar",
        "new task",
        "can you set a reminder please?",
    ] {
        assert!(missing(Want::WhatAndWhen)(&parse(text, &now)), "{text}: {:?}", parse(text, &now));
    }
    match parse("set a reminder for 5pm", &now) {
        Parsed::Missing(Missing { want: Want::What, due: Some(due), what: None }) => {
            assert_eq!(due.human(), "Thu 26 Nov, 17:00")
        }
        other => panic!("{other:?}"),
    }
    match parse("remind me tomorrow at 9", &now) {
        Parsed::Missing(Missing { want: Want::What, due: Some(due), .. }) => {
            assert_eq!(due.human(), "Fri 27 Nov, 09:00")
        }
        other => panic!("{other:?}"),
    }
    match parse("remind me two days before my wife's birthday", &now) {
        Parsed::Missing(Missing { want: Want::When, what: Some(what), due: None }) => {
            assert_eq!(what, "my wife's birthday")
        }
        other => panic!("{other:?}"),
    }
    // Said whole, or not such a request: as before.
    assert!(matches!(parse("remind me to call the bank at 10am", &now), Parsed::Routine(_)));
    assert!(matches!(parse("new task: buy milk", &now), Parsed::Routine(_)));
    assert_eq!(parse("remind me about it", &now), Parsed::NotRoutine);
    assert_eq!(parse("Book a table for two at 7pm", &now), Parsed::NotRoutine);
}

#[test]
fn a_missing_what_is_asked_once_and_the_next_message_files_it() {
    let hub = Hub::new(&[]);
    let before = hub.tasks_file();
    assert_eq!(hub.say("set a reminder"), "What should I remind you of, and when?");
    assert_eq!(hub.tasks_file(), before, "nothing changed");
    assert_eq!(hub.pending().len(), 1);
    assert_eq!(hub.say("call the bank tomorrow at 10"), "Added: call the bank — due Fri 27 Nov, 10:00.");
    let all = hub.tasks();
    assert_eq!((all.len(), all[0].task.as_str()), (1, "call the bank"));
    assert!(hub.pending().is_empty(), "answered: the question is gone");

    assert_eq!(hub.say("set a reminder for 5pm"), "What should I remind you of at Thu 26 Nov, 17:00?");
    assert_eq!(hub.say("to water the plants"), "Added: water the plants — due Thu 26 Nov, 17:00.");

    assert_eq!(
        hub.say("remind me two days before my wife's birthday"),
        "When should I remind you about my wife's birthday?"
    );
    // Not a time: the question is dropped and the message read as new.
    assert_eq!(hub.say("I don't know"), "escalated: not a routine request: no routine request in it");
    assert!(hub.pending().is_empty());
    hub.say("remind me two days before my wife's birthday");
    assert_eq!(hub.say("December 3rd"), "Added: my wife's birthday — due Thu 3 Dec, 09:00.");
}

#[test]
fn which_one_is_answered_by_place_by_words_or_all_and_never_mind_changes_nothing() {
    let hub = Hub::new(&["dentist appointment", "pay the dentist bill"]);
    let before = hub.tasks_file();
    let asked = hub.say("cancel the dentist");
    assert_eq!(
        asked,
        "Two tasks match “the dentist”: dentist appointment and pay the dentist bill. Which one?\nNothing was changed."
    );
    assert_eq!(hub.tasks_file(), before);
    assert_eq!(hub.say("the appointment"), "Cancelled: dentist appointment — 1 task open.");
    let all = hub.tasks();
    assert!(all[0].done && !all[1].done, "{all:?}");

    let hub = Hub::new(&["dentist appointment", "pay the dentist bill"]);
    hub.say("done with the dentist");
    assert!(hub.say("the second one").starts_with("Done: pay the dentist bill"));
    let hub = Hub::new(&["dentist appointment", "pay the dentist bill"]);
    hub.say("cancel the dentist");
    assert!(hub.say("both").starts_with("Cancelled: dentist appointment"));
    assert!(hub.tasks().iter().all(|t| t.done));

    let hub = Hub::new(&["dentist appointment", "pay the dentist bill"]);
    hub.say("cancel the dentist");
    assert_eq!(hub.say("never mind"), "OK — I left everything as it was.");
    assert_eq!(hub.tasks_file(), before);
    // Nothing pending now: "the appointment" is no request.
    assert!(hub.say("the appointment").starts_with("escalated"));
    assert_eq!(hub.tasks_file(), before);
}

#[test]
fn a_move_asked_to_when_takes_the_time_answered() {
    let hub = Hub::new(&["dentist appointment"]);
    assert_eq!(hub.say("move the dentist appointment"), "Move “dentist appointment” to when?\nNothing was changed.");
    assert_eq!(
        hub.say("Friday at 3pm"),
        "Moved: dentist appointment — now due Fri 27 Nov, 15:00 (it had no due time)."
    );
}

#[test]
fn an_unreadable_date_asked_about_takes_the_date_answered() {
    let hub = Hub::new(&[]);
    assert!(hub.say("remind me to call the bank on the 45th").starts_with("I can't read “on the 45th”"));
    assert_eq!(hub.say("on the 3rd"), "Added: call the bank — due Thu 3 Dec, 09:00.");
}

#[test]
fn a_question_expires_and_a_new_request_is_read_as_new() {
    let mut hub = Hub::new(&["dentist appointment", "pay the dentist bill"]);
    hub.say("set a reminder");
    assert!(hub.say("what's on my list").starts_with("Your open tasks (2):"));
    assert!(hub.pending().is_empty(), "a new request drops the question");
    assert_eq!(hub.tasks().len(), 2);

    hub.say("set a reminder");
    hub.later(31);
    assert!(hub.say("call the bank tomorrow at 10").starts_with("escalated"), "expired: a new message");
    assert_eq!(hub.tasks().len(), 2);
}

#[test]
fn only_who_asked_where_they_asked_answers() {
    let mut hub = Hub::new(&["dentist appointment", "pay the dentist bill"]);
    let group = AnswerTo::Telegram { chat: "-100".into(), message: None };
    hub.answer = Some(group.clone());
    hub.say("cancel the dentist");
    hub.who = Provenance::Public { sense: "telegram".into(), user: Some("77".into()) };
    assert!(hub.say("both").starts_with("escalated"), "a stranger's answer is no answer");
    hub.who = Provenance::Owner;
    hub.answer = Some(AnswerTo::Telegram { chat: "-200".into(), message: None });
    assert!(hub.say("both").starts_with("escalated"), "another chat's answer is no answer");
    hub.answer = Some(group);
    assert!(hub.say("both").starts_with("Cancelled"));
}

#[test]
fn stop_talking_is_no_cancel_but_a_task_named_is() {
    let hub = Hub::new(&["talk to the landlord", "call the plumber"]);
    let before = hub.tasks_file();
    for text in ["stop", "please stop talking", "stop it", "shut up", "never mind", "cancel that", "forget it"] {
        let said = hub.say(text);
        assert!(said.starts_with("escalated"), "{text}: {said}");
        assert_eq!(hub.tasks_file(), before, "{text}");
    }
    assert!(hub.say("stop the plumber task").starts_with("Cancelled: call the plumber"));
}

#[test]
fn the_file_keeps_one_question_per_conversation() {
    let hub = Hub::new(&["dentist appointment", "pay the dentist bill"]);
    hub.say("set a reminder");
    hub.say("cancel the dentist");
    let all = hub.pending();
    assert_eq!(all.len(), 1, "{all:?}");
    assert!(matches!(all[0].question, Question::Which { index: 0, .. }));
    assert_eq!(all[0].conversation, "owner via chat||");
    assert_eq!(all[0].requests, vec![Stored::Cancel { words: "the dentist".into(), explicit: false }]);
}

#[test]
fn a_question_of_one_task_kept_before_it_said_how_it_was_asked_loads_as_asked_of_a_task() {
    let old: Stored = serde_json::from_str(r#"{"request":"show","words":"the dentist"}"#).unwrap();
    assert_eq!(old, Stored::Show { words: "the dentist".into(), explicit: true });
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    let asked = Request::Show { words: "lunch with frank".into(), said: Said::Implicit };
    assert_eq!(Stored::of(&asked).request(&now), asked);
}
