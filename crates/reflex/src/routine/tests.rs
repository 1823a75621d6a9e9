use super::corpus;

/// Every line of the tuning half has exactly its effect (the held-out half is measured by
/// `bench/routine.sh`, never tuned on).
#[test]
fn the_tuning_half_has_exactly_its_effects() {
    let t = corpus::tally("corpus-tune.tsv").unwrap();
    let misses: Vec<String> =
        t.misses.iter().map(|(n, m, e, v)| format!("line {n}: {m}\n    want {e}\n    got  {v:?}")).collect();
    assert!(misses.is_empty(), "{} of {} lines missed:\n{}", misses.len(), t.lines, misses.join("\n"));
    assert!(t.lines >= 75);
}

use std::path::{Path, PathBuf};

use cn_hub::Provenance;
use jiff::Zoned;

use super::{parse, perform, Done, Reply, RoutineError, Target, World};

/// A hub holding the corpus's fixture, and the corpus's now.
struct Hub {
    dir: tempfile::TempDir,
    now: Zoned,
}

impl Hub {
    fn new() -> Hub {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        std::fs::create_dir_all(&state).unwrap();
        for f in ["tasks.json", "ideas.json", "schedule.json"] {
            std::fs::copy(corpus::dir().join("fixture").join(f), state.join(f)).unwrap();
        }
        Hub { dir, now: corpus::NOW.parse().unwrap() }
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
    fn state(&self, file: &str) -> PathBuf {
        self.path().join("state").join(file)
    }
    fn read(&self, file: &str) -> String {
        std::fs::read_to_string(self.state(file)).unwrap()
    }
    fn ask(&self, who: Provenance, message: &str) -> Result<Done, RoutineError> {
        let world = World {
            layout: cn_hub::Layout::new(self.path()),
            now: self.now.clone(),
            who,
            message: message.into(),
            answer: None,
        };
        perform(&parse(message, &self.now), &world)
    }
    fn owner(&self, message: &str) -> String {
        match self.ask(Provenance::Owner, message) {
            Ok(done) => done.answer,
            Err(e) => format!("escalated: {}", cn_compute::chain(&e)),
        }
    }
}

fn mallory() -> Provenance {
    Provenance::Public { sense: "github".into(), user: Some("mallory".into()) }
}

#[test]
fn each_answer_says_exactly_what_changed() {
    let hub = Hub::new();
    assert_eq!(hub.owner("done with the car insurance"), "Done: renew the car insurance — 3 tasks left today.");
    assert_eq!(
        hub.owner("remind me to call the bank tomorrow at 10am"),
        "Added: call the bank — due Fri 27 Nov, 10:00."
    );
    assert_eq!(hub.owner("todo: buy printer ink"), "Added: buy printer ink (no due time).");
    assert_eq!(
        hub.owner("move the plumber to Monday"),
        "Moved: call the plumber — now due Mon 30 Nov, 09:00 (was Tue 24 Nov, 09:00)."
    );
    assert_eq!(
        hub.owner("what's overdue?"),
        "1 task overdue:\n- pick up the dry cleaning — overdue since Wed 25 Nov, 16:00"
    );
    assert_eq!(hub.owner("when is the passport due?"), "renew the passport — due Fri 15 Jan 2027, 09:00; priority 2.");
    // One day's tasks (the call filed above among them), not the whole open list.
    assert_eq!(
        hub.owner("what's on my calendar for friday"),
        "2 tasks due Fri 27 Nov:\n- call the bank — due Fri 27 Nov, 10:00\n- send the invoice to Globex — due Fri 27 Nov, 12:00"
    );
    assert_eq!(hub.owner("drop the cello idea"), "Dropped the idea: learn to play the cello — 3 ideas left.");
    // "someday:" with a colon is the same idea as "someday I'd like to" (bench/asked's held-out).
    assert_eq!(hub.owner("someday: learn to juggle"), "Noted as an idea: learn to juggle.");
    assert_eq!(
        hub.owner("every Monday at 9am remind me to water the plants"),
        "Scheduled: water the plants — every Monday at 09:00 (next Mon 30 Nov, 09:00)."
    );
    let entries: serde_json::Value = serde_json::from_str(&hub.read("schedule.json")).unwrap();
    let added = &entries[3];
    assert_eq!((added["name"].as_str(), added["tz"].as_str()), (Some("water-the-plants"), Some("Europe/Paris")));
    assert_eq!(hub.owner("cancel the daily reflection"), "Removed from the schedule: daily-reflection (Reflect: what did I do yesterday, what did I learn, what comes next?).");
}

/// Phrasings tried by hand after both halves of the corpus were measured (the lead's `cn chat`
/// on a fresh hub): each failed before this test, and each must mean what its plain twin does.
#[test]
fn fresh_phrasings_mean_what_their_plain_twins_do() {
    let hub = Hub::new();
    for (fresh, plain) in [
        ("what do I have due this week?", "what's due this week?"),
        ("what's on my plate today?", "what's due today?"),
        ("what's on my agenda?", "what's on my list?"),
    ] {
        let (a, b) = (hub.owner(fresh), hub.owner(plain));
        assert!(!a.contains("executive"), "{fresh}: {a}");
        assert_eq!(a, b, "{fresh}");
    }
    assert_eq!(
        hub.owner("remind me to renew the boat licence on December 3rd"),
        "Added: renew the boat licence — due Thu 3 Dec, 09:00."
    );
    assert_eq!(
        hub.owner("I need to book the MOT before January 5th"),
        "Added: book the MOT — due Tue 5 Jan 2027, 09:00."
    );
    // The second fresh set: a colon left by the cut time, a quoted task after "add", "I've".
    assert_eq!(
        hub.owner("set a reminder for Monday 10am: team standup notes"),
        "Added: team standup notes — due Mon 30 Nov, 10:00."
    );
    assert_eq!(
        hub.owner("please add \"order new glasses\" for next Thursday"),
        "Added: order new glasses — due Thu 3 Dec, 09:00."
    );
    assert!(hub.owner("I've called the plumber").starts_with("Done: call the plumber"));
    // The third fresh set.
    assert_eq!(hub.owner("what's left to do today?"), hub.owner("what's due today?"));
    assert_eq!(
        hub.owner("don't forget: submit the timesheet by Friday 5pm"),
        "Added: submit the timesheet — due Fri 27 Nov, 17:00."
    );
    assert_eq!(
        hub.owner("I have to file the insurance claim by end of next week"),
        "Added: file the insurance claim — due Fri 4 Dec, 17:00."
    );
}

#[test]
fn two_matches_or_a_bad_date_change_nothing_and_say_so() {
    let hub = Hub::new();
    let before = [hub.read("tasks.json"), hub.read("ideas.json"), hub.read("schedule.json")];
    assert_eq!(
        hub.owner("mark the invoice as done"),
        "Two tasks match “the invoice”: send the invoice to Acme and send the invoice to Globex. Which one?\nNothing was changed."
    );
    // Both requests of a message, or neither: the second is not done while the first asks.
    let answer = hub.owner("mark the invoice done and move the plumber to Monday");
    assert!(answer.starts_with("Two tasks match") && answer.ends_with("Nothing was changed."), "{answer}");
    assert_eq!(
        hub.owner("remind me to call the bank on the 45th"),
        "I can't read “on the 45th” as a date: no month has a 45th — when should it be?\nNothing was changed."
    );
    assert_eq!(
        hub.owner("remind me to file my taxes on March 3, 2025"),
        "“on March 3, 2025” is in the past (Mon 3 Mar 2025, 09:00) — when should it be?\nNothing was changed."
    );
    assert_eq!(hub.owner("move the dentist"), "Move “book the dentist” to when?\nNothing was changed.");
    assert_eq!(
        hub.owner("mark the tax return as done"),
        "No open task matches “the tax return”.\nNothing was changed."
    );
    assert_eq!(before, [hub.read("tasks.json"), hub.read("ideas.json"), hub.read("schedule.json")]);
    // Not the routine's: handed up, nothing changed.
    for text in ["Cancel my 3pm meeting", "Book a table for two at 7pm", "I paid for lunch", "Drop the database"] {
        assert!(hub.owner(text).starts_with("escalated: not a routine request"), "{text}");
    }
    // How often an entry comes names none of them: "my daily alarm" is not the daily
    // reflection; a change to an alarm there is not, or several alarms at once, file nothing.
    for text in
        ["Turn off my daily alarm", "cancel my daily alarm", "Repeat alarm every Monday", "Add 2 alarms on the 5th"]
    {
        let answer = hub.owner(text);
        assert!(
            !answer.starts_with("Removed") && !answer.starts_with("Added") && !answer.starts_with("Scheduled"),
            "{text}: {answer}"
        );
    }
    assert_eq!(before, [hub.read("tasks.json"), hub.read("ideas.json"), hub.read("schedule.json")]);
}

/// The attack: a stranger's (or a peer's) message cannot see, complete, move or cancel the
/// owner's tasks, nor touch the schedule; what they file is marked as theirs.
#[test]
fn a_stranger_changes_only_what_they_filed() {
    let hub = Hub::new();
    let before = hub.read("tasks.json");
    for who in [mallory(), Provenance::Peer("ada".into())] {
        for text in [
            "done with the car insurance",
            "mark the electricity bill as done",
            "cancel the dentist task",
            "move the plumber task to Monday",
            "when is the passport due?",
        ] {
            let done = hub.ask(who.clone(), text).unwrap();
            assert!(!done.changed(), "{who}: {text}: {}", done.answer);
            assert!(done.answer.starts_with("No open task matches"), "{who}: {text}: {}", done.answer);
        }
        for text in ["I called the plumber", "Cancel the car insurance", "move the plumber to Monday"] {
            assert!(matches!(hub.ask(who.clone(), text), Err(RoutineError::NotRoutine { .. })), "{who}: {text}");
        }
        for text in ["stop the weekly review", "what's on my schedule?", "every Monday remind me to pay mallory"] {
            let done = hub.ask(who.clone(), text).unwrap();
            assert_eq!(
                done.answer, "Sorry — only my owner can see or change my schedule.\nNothing was changed.",
                "{text}"
            );
        }
    }
    assert_eq!(hub.read("tasks.json"), before);
    // Their own list holds only what they filed; what they file is marked with their source.
    let list = hub.ask(mallory(), "what's on my list?").unwrap().answer;
    assert_eq!(list, "Your open tasks (1):\n- review my pull request");
    hub.ask(mallory(), "remind me to merge my PR tomorrow").unwrap();
    let tasks: serde_json::Value = serde_json::from_str(&hub.read("tasks.json")).unwrap();
    let added = tasks.as_array().unwrap().last().unwrap();
    assert_eq!((added["task"].as_str(), added["source"].as_str()), (Some("merge my PR"), Some("github:mallory")));
    // And they may close their own.
    assert_eq!(
        hub.ask(mallory(), "done with the pull request review").unwrap().answer,
        "Done: review my pull request — nothing else due today."
    );
    // The owner sees everything, theirs included.
    assert!(hub.owner("what's on my list?").contains("merge my PR"));
}

/// Make `dir` refuse new files, even to root (chmod, else the immutable attribute); false
/// when neither is possible here.
fn refuse_writes(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555));
    if std::fs::write(dir.join(".probe"), "x").is_err() {
        return true;
    }
    let _ = std::fs::remove_file(dir.join(".probe"));
    std::process::Command::new("chattr").arg("+i").arg(dir).status().is_ok_and(|s| s.success())
        && std::fs::write(dir.join(".probe"), "x").is_err()
}

fn allow_writes(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::process::Command::new("chattr").arg("-i").arg(dir).status();
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
}

#[test]
fn a_file_that_cannot_be_written_leaves_the_request_undone_and_says_why() {
    let hub = Hub::new();
    // The lock file exists already, as on any hub that has changed its tasks once.
    hub.owner("todo: first");
    let before = hub.read("tasks.json");
    let state = hub.path().join("state");
    if !refuse_writes(&state) {
        allow_writes(&state);
        eprintln!("skipped: cannot make a directory read-only here");
        return;
    }
    let result = hub.ask(Provenance::Owner, "done with the car insurance");
    allow_writes(&state);
    let e = match result {
        Err(e @ RoutineError::State { .. }) => cn_compute::chain(&e),
        other => panic!("{other:?}"),
    };
    assert!(e.starts_with("the request was not done: ") && e.contains("tasks.json"), "{e}");
    assert_eq!(hub.read("tasks.json"), before);
    // Unreadable: a malformed file is reported and left as it is.
    std::fs::write(hub.state("tasks.json"), "[{\"id\": 1}]").unwrap();
    let e = hub.owner("what's on my list?");
    assert!(e.contains("tasks.json: line 1") && e.contains("fix the file by hand"), "{e}");
}

/// The executive's routine tools, run through the registry as the executive's calls are, for
/// an item from `who`.
fn tools(hub: &Hub, who: Provenance) -> cn_tools::Registry {
    let (config, policy) = crate::config::of(&cn_hub::HubConfig::default());
    let shared = std::sync::Arc::new(crate::actions::Shared::new(hub.path().to_path_buf(), config));
    if let Ok(mut clock) = shared.clock.lock() {
        *clock = Some(hub.now.clone());
    }
    let mut registry = crate::actions::registry(&shared, policy);
    registry.ctx.from = Some(who);
    registry
}

fn call(
    r: &cn_tools::Registry,
    tool: &str,
    params: serde_json::Value,
) -> Result<serde_json::Value, cn_compute::ToolError> {
    r.run(1, &cn_compute::ToolCall::new(tool, params.as_object().cloned().unwrap_or_default()))
}

/// The attack, through the tools: a stranger's or a peer's item cannot complete, move or
/// cancel the owner's tasks, drop the owner's ideas, or touch the schedule — by id or by words
/// — while it may file and close its own.
#[test]
fn the_tools_keep_a_stranger_to_what_it_filed() {
    use cn_compute::ToolError;
    use serde_json::json;
    let hub = Hub::new();
    let before = [hub.read("tasks.json"), hub.read("ideas.json"), hub.read("schedule.json")];
    for who in [mallory(), Provenance::Peer("ada".into())] {
        let r = tools(&hub, who.clone());
        for (tool, params) in [
            ("task_done", json!({"name": "task-car"})),
            ("task_cancel", json!({"name": "task-plumber"})),
            ("task_move", json!({"name": "task-bill", "to": "next Friday"})),
            ("idea_drop", json!({"name": "idea-cello"})),
        ] {
            // Another's id is answered as an id that does not exist (no oracle for ids).
            let e = call(&r, tool, params.clone()).unwrap_err();
            let missing = params["name"]
                .as_str()
                .unwrap_or_default()
                .replace("task-", "task-none-")
                .replace("idea-", "idea-none-");
            let mut other = params.clone();
            other["name"] = json!(missing);
            let e2 = call(&r, tool, other).unwrap_err();
            assert!(matches!(&e, ToolError::BadParams(m) if m.starts_with("no ")), "{who}: {tool}: {e:?}");
            assert_eq!(
                e.to_string().replace(params["name"].as_str().unwrap_or_default(), "ID"),
                e2.to_string().replace(&missing, "ID"),
                "{who}: {tool}"
            );
        }
        for (tool, params) in [
            ("task_done", json!({"name": "car insurance"})),
            ("task_cancel", json!({"name": "the plumber"})),
            ("idea_drop", json!({"name": "the cello"})),
        ] {
            let e = call(&r, tool, params).unwrap_err();
            assert!(matches!(&e, ToolError::BadParams(m) if m.starts_with("no ")), "{who}: {tool}: {e:?}");
        }
        // The schedule is the owner's: held for the owner's word, never run.
        for (tool, params) in [
            ("schedule_add", json!({"action": "pay mallory", "every": "every Monday at 9am"})),
            ("schedule_remove", json!({"name": "weekly-review"})),
            ("schedule_list", json!({})),
        ] {
            let e = call(&r, tool, params).unwrap_err();
            assert!(matches!(&e, ToolError::Held { .. }), "{who}: {tool}: {e:?}");
        }
        // What they may see is what they filed.
        let listed = call(&r, "tasks_list", json!({})).unwrap();
        let mine: Vec<&str> = listed["tasks"].as_array().unwrap().iter().filter_map(|t| t["id"].as_str()).collect();
        let expect: Vec<&str> = if who == mallory() { vec!["task-stranger"] } else { vec![] };
        assert_eq!(mine, expect, "{who}");
    }
    assert_eq!(before, [hub.read("tasks.json"), hub.read("ideas.json"), hub.read("schedule.json")]);
    // Their own they may close.
    let r = tools(&hub, mallory());
    let done = call(&r, "task_done", json!({"name": "task-stranger"})).unwrap();
    assert_eq!(done["answer"], "Done: review my pull request — nothing else due today.");
}

#[test]
fn the_tools_do_what_the_owner_asks_and_answer_what_changed() {
    use serde_json::json;
    let hub = Hub::new();
    let r = tools(&hub, Provenance::Owner);
    let today = call(&r, "tasks_list", json!({"filter": "today"})).unwrap();
    assert_eq!(today["tasks"].as_array().unwrap().len(), 4);
    let done = call(&r, "task_done", json!({"name": "the car insurance"})).unwrap();
    assert_eq!(done, json!({"answer": "Done: renew the car insurance — 3 tasks left today.", "changed": true}));
    let which = call(&r, "task_cancel", json!({"name": "the invoice"})).unwrap_err().to_string();
    assert!(which.contains("several match “the invoice”: task-acme") && which.contains("task-globex"), "{which}");
    let moved = call(&r, "task_move", json!({"name": "task-passport", "to": "by 2 days"})).unwrap();
    assert_eq!(
        moved["answer"],
        "Moved: renew the passport — now due Sun 17 Jan 2027, 09:00 (was Fri 15 Jan 2027, 09:00)."
    );
    let bad = call(&r, "task_move", json!({"name": "task-dentist", "to": "next Smarch"})).unwrap_err().to_string();
    assert!(bad.contains("“Smarch” is not a month"), "{bad}");
    let added =
        call(&r, "schedule_add", json!({"action": "water the ferns", "every": "every Tuesday at 7am"})).unwrap();
    assert!(
        added["answer"].as_str().unwrap().starts_with("Scheduled: water the ferns — every Tuesday at 07:00"),
        "{added}"
    );
    let never = call(&r, "schedule_add", json!({"action": "x", "cron": "0 0 31 2 *"})).unwrap_err().to_string();
    assert!(never.contains("never fires"), "{never}");
    let gone = call(&r, "schedule_remove", json!({"name": "the ferns"})).unwrap();
    assert_eq!(gone["answer"], "Removed from the schedule: water-the-ferns (water the ferns).");
    let ideas = call(&r, "ideas_list", json!({"words": "cello"})).unwrap();
    assert_eq!(ideas["ideas"][0]["id"], "idea-cello");
    assert_eq!(call(&r, "idea_drop", json!({"name": "idea-cello"})).unwrap()["changed"], true);
    // Every change is in the journal, for "what did you do today?".
    let journal = std::fs::read_to_string(hub.state("journal.jsonl")).unwrap();
    assert!(journal.contains("\"type\":\"routine\"") && journal.contains("Done: renew the car insurance"), "{journal}");
}

#[test]
fn a_reminder_without_what_is_not_guessed() {
    let now: Zoned = corpus::NOW.parse().unwrap();
    // "to" must be a word: "Remind me tomorrow" says when, not what — what is asked.
    assert!(matches!(
        parse("Remind me tomorrow", &now),
        super::Parsed::Missing(super::Missing { want: super::Want::What, due: Some(_), .. })
    ));
    assert_eq!(parse("remind me about it", &now), super::Parsed::NotRoutine);
}

proptest::proptest! {
    /// Whatever a stranger writes, the routine's parser never panics, and the trigger agrees
    /// with it.
    #[test]
    fn any_message_is_parsed_without_panic(text in "\\PC{0,120}") {
        let now: Zoned = corpus::NOW.parse().unwrap();
        let parsed = parse(&text, &now);
        if parsed != super::Parsed::NotRoutine {
            proptest::prop_assert!(super::recognizes(&text));
        }
    }

    /// Routine-like messages built from the corpus's words never panic either.
    #[test]
    fn routine_like_messages_are_parsed_without_panic(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                "(remind me to|add a task:|todo:|I need to|mark|done with|move|snooze|cancel|drop|every|what's on my|idea:) ",
                "(the|my|a) (car insurance|plumber|invoice|list|ideas|schedule|task|reminder) ",
                "(tomorrow|tonight|on the [0-9]{1,3}(st|th)|next (Friday|Smarch)|in [0-9]+ hours|at [0-9]{1,2}(pm|am)?|by an hour|back a week) ",
                "(and|;|\\.|\\?|✅|as done|off my list|anymore) ",
            ],
            0..7,
        )
    ) {
        let now: Zoned = corpus::NOW.parse().unwrap();
        let _ = parse(&parts.concat(), &now);
    }
}

/// Issue 31, point 2: a task a person's message files records where they asked; "done" and
/// "snooze" answered where it was told act on that reminder — and only for its owner.
#[test]
fn done_and_snooze_answer_the_reminder_told_in_that_conversation() {
    use cn_hub::origin::AnswerTo;
    let hub = Hub::new();
    let chat = |c: &str| AnswerTo::Telegram { chat: c.into(), message: Some("1".into()) };
    let ask = |who: Provenance, on: AnswerTo, message: &str| {
        let world = World {
            layout: cn_hub::Layout::new(hub.path()),
            now: hub.now.clone(),
            who,
            message: message.into(),
            answer: Some(on),
        };
        perform(&parse(message, &hub.now), &world).map(|d| d.answer).unwrap_or_else(|e| format!("escalated: {e}"))
    };
    assert_eq!(
        ask(Provenance::Owner, chat("-100"), "remind me to call the bank tomorrow at 10am"),
        "Added: call the bank — due Fri 27 Nov, 10:00."
    );
    let tasks = cn_hub::tasks::tasks_in(&hub.path().join("state"));
    let bank = tasks.load().unwrap().into_iter().find(|t| t.task == "call the bank").unwrap();
    assert_eq!(bank.answer_to.as_ref().and_then(AnswerTo::whom), Some("-100"), "where to tell");
    // Not told yet: "done" alone is no routine request.
    assert!(ask(Provenance::Owner, chat("-100"), "done").starts_with("escalated"));
    tasks.mark_reminded(&bank.id, bank.due.unwrap(), hub.now.timestamp()).unwrap();
    // A stranger in the same group chat: none of theirs was told there.
    let stranger = Provenance::Public { sense: "telegram".into(), user: Some("77".into()) };
    assert!(ask(stranger.clone(), chat("-100"), "done").starts_with("escalated"));
    assert!(ask(stranger, chat("-100"), "snooze 1 hour").starts_with("escalated"));
    // The owner in another chat: not that conversation.
    assert!(ask(Provenance::Owner, chat("-200"), "done").starts_with("escalated"));
    assert!(!tasks.load().unwrap().iter().find(|t| t.id == bank.id).unwrap().done);
    // The owner where it was told: snoozed an hour past its due time, then done.
    assert_eq!(
        ask(Provenance::Owner, chat("-100"), "snooze 1 hour"),
        "Moved: call the bank — now due Fri 27 Nov, 11:00 (was Fri 27 Nov, 10:00)."
    );
    let answer = ask(Provenance::Owner, chat("-100"), "Done!");
    assert!(answer.starts_with("Done: call the bank"), "{answer}");
    assert!(tasks.load().unwrap().iter().find(|t| t.id == bank.id).unwrap().done);
    // Bare answers read as such; anything more is the ordinary routine's (or not routine).
    let now = &hub.now;
    assert_eq!(parse::reply_of("✅", now), Some(Reply::Done));
    assert_eq!(parse::reply_of("snooze", now), Some(Reply::Snooze(Target::Later)));
    assert!(matches!(parse::reply_of("snooze for 20 minutes", now), Some(Reply::Snooze(Target::By(_)))));
    assert!(matches!(parse::reply_of("snooze till 5pm", now), Some(Reply::Snooze(Target::At(_)))));
    assert_eq!(parse::reply_of("snooze the plumber to Monday", now), None);
    assert_eq!(parse::reply_of("done with the car insurance", now), None);
}

/// Issue 41: a task named by its time ("my reminder for 5pm") is found among the asker's own
/// tasks only — a stranger's time names none of the owner's, and nothing changes.
#[test]
fn a_task_named_by_its_time_is_only_the_askers() {
    let hub = Hub::new();
    let before = hub.read("tasks.json");
    for text in [
        "cancel my reminder for 5pm",
        "delete my 5pm reminder",
        "mark my 5pm task as done",
        // A change said as people say it moves only the asker's own items too.
        "can you change my 5pm reminder to 6pm",
        "reset the reminder for the car insurance from 5pm to 7pm",
    ] {
        if let Ok(done) = hub.ask(mallory(), text) {
            assert!(!done.changed(), "{text}: {}", done.answer);
        }
    }
    assert_eq!(hub.read("tasks.json"), before, "a stranger changed the owner's tasks");
    assert_eq!(hub.owner("cancel my reminder for 5pm"), "Cancelled: renew the car insurance — 10 tasks open.");
}

/// A change to an item is said many ways ("change … to", "reset … from 5pm to 6pm"): each
/// moves the item it names, none files a new one; "update the list" moves nothing.
#[test]
fn changes_said_as_people_say_them_move_the_item() {
    let hub = Hub::new();
    assert_eq!(
        hub.owner("can you change my 5pm reminder to 6pm"),
        "Moved: renew the car insurance — now due Thu 26 Nov, 18:00 (was Thu 26 Nov, 17:00)."
    );
    assert_eq!(
        hub.owner("reset the reminder for the car insurance from 6pm to 7pm"),
        "Moved: renew the car insurance — now due Thu 26 Nov, 19:00 (was Thu 26 Nov, 18:00)."
    );
    let before = hub.read("tasks.json");
    for text in ["update the shopping list", "change the lights to blue"] {
        let answer = hub.owner(text);
        assert!(!answer.starts_with("Moved") && !answer.starts_with("Added"), "{text}: {answer}");
    }
    assert_eq!(hub.read("tasks.json"), before);
}

/// An alarm named by its time is the alarm set without a name due then; a task of another
/// name due then is never taken for it ("turn off today's alarm", "my 5pm alarm" beside
/// "renew the car insurance" due today at 17:00).
#[test]
fn an_alarm_turned_off_by_its_time_is_the_task_due_then() {
    let hub = Hub::new();
    let before = hub.read("tasks.json");
    for text in
        ["turn off today's alarm", "I'm still tired please turn off today's alarm", "turn off my alarm set for today"]
    {
        let answer = hub.owner(text);
        assert!(!answer.starts_with("Cancelled"), "{text}: {answer}");
    }
    assert_eq!(hub.read("tasks.json"), before, "a task that is no alarm was taken for one");
    assert!(hub.owner("set an alarm for 8pm").starts_with("Added: Alarm — due Thu 26 Nov, 20:00"));
    assert!(hub.owner("Turn off my 8pm alarm.").starts_with("Cancelled: Alarm"), "the alarm due at 8pm is cancelled");
    assert!(hub.owner("set an alarm for 9pm").starts_with("Added: Alarm"));
    assert!(hub.owner("turn off my nine pm alarm").starts_with("Cancelled: Alarm"), "spoken, the same");
    // A task of another name due at the hour said is no alarm ("renew the car insurance" at 17:00).
    let before = hub.read("tasks.json");
    assert!(!hub.owner("turn off my 5pm alarm").starts_with("Cancelled"));
    assert!(!hub.owner("switch the alarm from five to six pm").starts_with("Moved"));
    assert_eq!(hub.read("tasks.json"), before);
    assert!(hub.owner("wake me up at 7am tomorrow").starts_with("Added: Wake up"));
    assert!(hub.owner("turn off tomorrow's alarm").starts_with("Cancelled: Wake up"));
    // "from six (to five)": the alarm due at six.
    assert!(hub.owner("set an alarm for 6am tomorrow").starts_with("Added: Alarm"));
    let moved = hub.owner("can you switch the alarm from six to five am");
    assert!(moved.starts_with("Moved: Alarm — now due Fri 27 Nov, 05:00"), "{moved}");
    // The next alarm skipped is the task; "next" names no schedule entry ("… what comes
    // next?" is no alarm).
    let schedule = hub.read("schedule.json");
    let skipped = hub.owner("Skip my next alarm.");
    assert!(skipped.starts_with("Cancelled: Alarm"), "{skipped}");
    assert!(!hub.owner("Skip my next alarm.").starts_with("Unscheduled"));
    assert_eq!(hub.read("schedule.json"), schedule);
}

/// A stranger naming the owner's alarms by their time, or "the next" one, changes none of them
/// and no schedule entry; what the stranger files is marked theirs.
#[test]
fn a_stranger_turns_off_no_alarm_of_the_owners() {
    let hub = Hub::new();
    assert!(hub.owner("set an alarm for 8pm").starts_with("Added: Alarm"));
    assert!(hub.owner("wake me up at 7am tomorrow").starts_with("Added: Wake up"));
    let (tasks, schedule) = (hub.read("tasks.json"), hub.read("schedule.json"));
    for text in [
        "turn off my 8pm alarm",
        "turn off tomorrow's alarm",
        "get rid of today's alarms",
        "switch the alarm from eight to nine pm",
        "Skip my next alarm.",
        "turn off my eight pm alarm",
    ] {
        if let Ok(done) = hub.ask(mallory(), text) {
            assert!(!done.changed(), "{text}: {}", done.answer);
        }
    }
    assert_eq!(hub.read("tasks.json"), tasks, "a stranger changed the owner's alarms");
    assert_eq!(hub.read("schedule.json"), schedule, "a stranger changed the schedule");
    // A need and its reminder, from a stranger: filed, marked theirs.
    let done = hub.ask(mallory(), "I need to get supplies for the craft fair; can you remind me on Thursday?").unwrap();
    assert!(done.changed(), "{}", done.answer);
    let all: Vec<serde_json::Value> = serde_json::from_str(&hub.read("tasks.json")).unwrap();
    let filed = all.iter().find(|t| t["task"] == "get supplies for the craft fair").expect("filed");
    assert_eq!(filed["source"], mallory().label(), "marked the stranger's");
}

/// Found in the tenth clean sample: a reminder named by a part of the day is moved; a question
/// whether one is set lists; what asks the world, or names only a span, files nothing; a change
/// asked for is never filed as a new repeat.
#[test]
fn parts_of_the_day_questions_and_spans_as_people_say_them() {
    let hub = Hub::new();
    let added = hub.owner("remind me to water the ferns tomorrow evening");
    assert!(added.starts_with("Added: water the ferns — due Fri 27 Nov, 18:00"), "{added}");
    let moved = hub.owner("I need my reminder for tomorrow evening changed to 9pm");
    assert!(moved.starts_with("Moved: water the ferns — now due Fri 27 Nov, 21:00"), "{moved}");
    // This evening has two (17:00 and 18:00): which is asked.
    assert!(hub.owner("I need my reminder for this evening changed to 9pm").contains("Which one?"));
    let (tasks, schedule) = (hub.read("tasks.json"), hub.read("schedule.json"));
    for text in [
        "did i set my alarm for tonight",
        "i need to arrive by five forty five pm at the alerus when should i leave",
        "I need to get information on events in hardy tomorrow night",
        "set an alarm for sunday for five minutes",
        "right now change all my reminders about the work meeting from mondays at 5 to mondays at 9",
    ] {
        let answer = hub.owner(text);
        assert!(
            !answer.starts_with("Added") && !answer.starts_with("Scheduled") && !answer.starts_with("Done"),
            "{text}: {answer}"
        );
    }
    assert_eq!((hub.read("tasks.json"), hub.read("schedule.json")), (tasks, schedule));
    assert!(hub.owner("ring timer in one hour").starts_with("Added: Timer — due Thu 26 Nov, 15:30"));
    assert!(hub.owner("have the alarm go off at 0800 hours").starts_with("Added: Alarm — due Fri 27 Nov, 08:00"));
    let named = hub.owner("Set reminder on August 30th \"Springsteen on Broadway\"");
    assert!(named.starts_with("Added: Springsteen on Broadway — due Mon 30 Aug"), "{named}");
    assert!(hub.owner("set reminder for tomorrow at ten am").starts_with("What should I remind you of"));
    let alarm = hub.owner("Set hourly alarm from 7am to 10pm to remind me to drink water");
    assert!(alarm.starts_with("Scheduled: drink water — every hour from 07:00 to 22:00"), "{alarm}");
    let hourly = hub.owner("remind me to drink water every hour from 9am to 5pm");
    assert!(hourly.starts_with("Scheduled: drink water — every hour from 09:00 to 17:00"), "{hourly}");
}

/// "all" said of a day's reminders cancels each of them; alarms said in the plural, each alarm
/// due that day — and nothing else: no other day's, no task of another name.
#[test]
fn all_of_a_days_reminders_or_alarms_are_cancelled() {
    let hub = Hub::new();
    assert!(hub.owner("set an alarm for 7am on sunday").starts_with("Added: Alarm"));
    assert!(hub.owner("set an alarm for 9am on sunday").starts_with("Added: Alarm"));
    assert!(hub.owner("set an alarm for 8am on monday").starts_with("Added: Alarm"));
    assert!(hub.owner("remind me to call gran on sunday at 10am").starts_with("Added: call gran"));
    let off = hub.owner("turn alarms off on Sunday");
    assert_eq!(off.matches("Cancelled: Alarm").count(), 2, "{off}");
    let tasks = hub.read("tasks.json");
    assert!(tasks.contains("call gran"), "a task of another name that day stays");
    assert!(hub.owner("remind me to water the ferns tomorrow at 6pm").starts_with("Added"));
    assert!(hub.owner("remind me to pack tomorrow at 8pm").starts_with("Added"));
    let all = hub.owner("cancel all reminders i have set up for tomorrow");
    assert!(all.contains("water the ferns") && all.contains("pack"), "{all}");
    // Monday's alarm was left open by Sunday's.
    let monday = hub.owner("turn off my monday alarm");
    assert!(monday.starts_with("Cancelled: Alarm"), "{monday}");
    // Reminders are not muted: "no reminders tomorrow" cancels none.
    let before = hub.read("tasks.json");
    assert!(!hub.owner("no reminders tomorrow please").starts_with("Cancelled"));
    assert_eq!(hub.read("tasks.json"), before);
}

/// "… on thursday instead of friday": the item due Friday moves to Thursday, at its time; one
/// that names nothing changes nothing, and the person is told.
#[test]
fn an_item_moved_instead_of_the_day_it_had() {
    let hub = Hub::new();
    assert!(hub.owner("remind me about the smith wedding friday at 4pm").starts_with("Added: the smith wedding"));
    let moved = hub.owner("remind me about the smith wedding on saturday instead of friday");
    assert!(moved.starts_with("Moved: the smith wedding — now due Sat 28 Nov, 16:00"), "{moved}");
    let before = hub.read("tasks.json");
    let none = hub.owner("remind me about the bake sale on sunday instead of friday");
    assert!(!none.starts_with("Moved") && !none.starts_with("Added"), "{none}");
    assert_eq!(hub.read("tasks.json"), before);
}

/// "Set two alarms. One for 5 a.m. and a second one for 6:30 a.m.": both, from two sentences;
/// "Set time to bake the roast for 2 hours": the timer, a letter short.
#[test]
fn alarms_counted_then_said_and_a_timer_a_letter_short() {
    let hub = Hub::new();
    let two = hub.owner("Set two alarms. One for 5 a.m. and a second one for 6:30 a.m.");
    assert!(two.contains("due Fri 27 Nov, 05:00") && two.contains("due Fri 27 Nov, 06:30"), "{two}");
    let roast = hub.owner("Set time to bake the roast for 2 hours");
    assert!(roast.starts_with("Added: bake roast — due Thu 26 Nov, 16:30"), "{roast}");
}

#[test]
fn a_reminder_before_an_unknown_time_a_bare_unit_and_an_undoing_need_are_never_filed() {
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    // TOPv2's test split, each once filed as a task.
    assert!(matches!(
        parse("set up a reminder for my hair appointment the night before", &now),
        super::Parsed::Missing(super::Missing { want: super::Want::When, what: Some(w), .. }) if w == "my hair appointment"
    ));
    assert!(matches!(parse("Set a timer to begin at 9:30 am for 30 minutes", &now), super::Parsed::Ask(_)));
    assert!(matches!(
        parse("I need to get rid of all my reminders for this weekend since I am going out of town.", &now),
        super::Parsed::NotRoutine
    ));
}

#[test]
fn an_event_said_with_its_time_is_put_on_the_calendar_and_a_booking_is_not() {
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    let filed = |text: &str| match parse(text, &now) {
        super::Parsed::Routine(rs) => match rs.as_slice() {
            [super::Request::AddTask { task, due: Some(d) }] => format!("{task} {}", d.at.strftime("%a %H:%M")),
            other => format!("{other:?}"),
        },
        other => format!("{other:?}"),
    };
    // SMCalFlow's test split, each handed up before.
    assert_eq!(filed("create baseball game on saturday at 2"), "baseball game Sat 14:00");
    assert_eq!(filed("schedule a firing meeting tomorrow morning"), "firing meeting Fri 09:00");
    assert_eq!(
        filed("Would you please set up a lunch meeting with Jerri Skinner for Fri."),
        "lunch meeting with Jerri Skinner Fri 09:00"
    );
    assert_eq!(filed("Make an all day event called free time with Abby on saturday"), "free time with Abby Sat 09:00");
    // CLINC150's: a room booked, a playlist made, dinner cooked — none of them filed.
    for text in [
        "could you schedule a meeting room for 4:00 on thursday",
        "i need to schedule meeting room for monday at 2:30 pm, please",
        "Create a playlist for my grandma's birthday party on saturday",
        "make dinner tonight",
        // TOPv2's messaging domain: a message to send, filed as a task before.
        "I need to message Andy about the game tonight",
        "I have to text Sarah at 5pm",
        "i need to send mom a message at 6 pm",
    ] {
        assert!(!matches!(parse(text, &now), super::Parsed::Routine(_)), "{text}");
    }
    // A reminder asked for is still filed.
    assert_eq!(filed("remind me to message Andy tonight"), "message Andy Thu 20:00");
    assert_eq!(filed("I need to call the dentist at 3pm"), "call the dentist Thu 15:00");
}

#[test]
fn a_question_about_what_is_on_a_list_shows_it_and_changes_nothing() {
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    // CLINC150's test split: each handed up before, and "did carrots get on my shopping list"
    // once marked a task done.
    for (text, words) in [
        ("did you put carrots on the shopping list", "carrots"),
        ("did carrots get on my shopping list", "carrots"),
        ("have i told you to add washing dishes to my todo list", "washing dishes"),
        ("is there a meeting with sam today", "meeting with sam"),
        ("is the meeting with lisa today", "meeting with lisa"),
        ("when is my meeting with infrastructure", "meeting with infrastructure"),
    ] {
        assert_eq!(
            parse(text, &now),
            super::Parsed::Routine(vec![super::Request::Show { words: words.into(), said: super::Said::Explicit }]),
            "{text}"
        );
    }
    // A need to set a reminder to do something is that reminder.
    assert_eq!(
        parse("i need to set a reminder to call lisa for her birthday", &now),
        super::Parsed::Routine(vec![super::Request::AddTask { task: "call lisa for her birthday".into(), due: None }])
    );
}

#[test]
fn an_event_changed_or_a_request_corrected_is_never_filed() {
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    // SMCalFlow's and TOPv2's unread lines (the thirteenth pass): each filed a task before.
    for text in [
        "Add Julie Jim and Jack to my Lunch Tomorrow Afternoon.",
        "Add Julie Jim and Jack to my dentist appointment",
        "Make my event on May 21 be at PM",
        "Invite everyone I know named Dave to a party called Dave Party at noon on friday",
        "Can you please schedule an appointment for dan next thursday? Make it this thursday actually, at 3pm.",
    ] {
        assert_eq!(parse(text, &now), super::Parsed::NotRoutine, "{text}");
    }
    assert_eq!(
        parse(
            "Make a meeting with amanda at 2 pm tomorrow and then schedule a follow up next week at 3 on wednesday.",
            &now
        ),
        super::Parsed::NotRoutine
    );
    // Things added to a list still are, and to the calendar.
    assert!(matches!(
        parse("add the team lunch to my calendar for friday", &now),
        super::Parsed::Routine(rs) if matches!(rs.as_slice(), [super::Request::AddTask { .. }])
    ));
    assert_eq!(
        parse("add milk to my shopping list", &now),
        super::Parsed::Routine(vec![super::Request::AddTask { task: "milk".into(), due: None }])
    );
    // "toss out the reminder …" undoes it (it had filed a new one).
    assert!(matches!(
        parse("toss out the reminder about the board meeting scheduled for next wednesday", &now),
        super::Parsed::Routine(rs) if matches!(rs.as_slice(), [super::Request::Cancel { .. }])
    ));
}

#[test]
fn lists_named_alone_questions_of_ones_day_and_events_asked_for_by_their_verb() {
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    let routine = |text: &str| match parse(text, &now) {
        super::Parsed::Routine(rs) => format!("{rs:?}"),
        other => format!("{other:?}"),
    };
    assert_eq!(routine("shopping list"), r#"[Show { words: "shopping list", said: Explicit }]"#);
    assert_eq!(routine("recite my to do list"), "[ListTasks { filter: Open }]");
    assert_eq!(routine("Do I have practice tomorrow afternoon?"), r#"[Show { words: "practice", said: Explicit }]"#);
    assert_eq!(
        routine("Hi, can you remind me about my afternoon meetings for this week?"),
        "[ListTasks { filter: Week }]"
    );
    // CLINC150's and SMCalFlow's questions about what is set, each handed up before.
    assert_eq!(routine("what are the things i wanted to recall"), "[ListTasks { filter: Open }]");
    assert_eq!(routine("what is my plan for the day"), "[ListTasks { filter: Today }]");
    assert_eq!(routine("repeat my to do list"), "[ListTasks { filter: Open }]");
    assert_eq!(
        routine("What time is my appointment with cookie?"),
        r#"[Show { words: "appointment with cookie", said: Explicit }]"#
    );
    assert_eq!(
        routine("Is my hair appointment this weekend?"),
        r#"[Show { words: "hair appointment", said: Explicit }]"#
    );
    assert_eq!(
        routine("what time is my lunch date with wilfred?"),
        r#"[Show { words: "lunch date with wilfred", said: Explicit }]"#
    );
    assert_eq!(
        routine("Can you check if I have any appointment on Saturday?"),
        r#"[Show { words: "appointment", said: Explicit }]"#
    );
    // One day asked about lists that day's, not all that is open.
    assert_eq!(routine("what's on my calendar for friday"), "[ListTasks { filter: Day(2026-11-27) }]");
    assert_eq!(routine("what do i have on december 3rd"), "[ListTasks { filter: Day(2026-12-03) }]");
    let filed = |text: &str| match parse(text, &now) {
        super::Parsed::Routine(rs) => match rs.as_slice() {
            [super::Request::AddTask { task, due: Some(d) }] => format!("{task} {}", d.at.strftime("%a %d %H:%M")),
            other => format!("{other:?}"),
        },
        other => format!("{other:?}"),
    };
    assert_eq!(filed("Please schedule a dentist appointment for Friday at 9 AM."), "dentist appointment Fri 27 09:00");
    assert_eq!(filed("Schedule picnic for Friday at 11am."), "picnic Fri 27 11:00");
    assert_eq!(filed("create dinner date with alice on 7th"), "dinner date with alice Mon 07 09:00");
    assert_eq!(
        filed("I do not want to forget about the cookies in the oven; can you alert me at 3 pm."),
        "the cookies in the oven Thu 26 15:00"
    );
    assert_eq!(
        filed("Hello, I'd like to schedule a meeting at Starbucks tomorrow at 2."),
        "meeting at Starbucks Fri 27 14:00"
    );
    assert_eq!(
        filed("I want a breakfast meeting with Coleen next Friday."),
        "breakfast meeting with Coleen Fri 04 09:00"
    );
    assert_eq!(parse("I want a pizza tonight", &now), super::Parsed::NotRoutine);
    // CLINC150's validation split: a meeting set up is named "meeting", not "meeting for"; two
    // days said in one ("march 2 and 3") are asked about.
    assert_eq!(filed("can you please set up a meeting for 3:00 on wednesday"), "meeting Wed 02 15:00");
    assert_eq!(
        parse("i need to request pto for march 2 and 3", &now),
        super::Parsed::Missing(super::Missing { want: super::Want::When, what: Some("request pto".into()), due: None })
    );
    // TOPv2's: a public event to find, never filed.
    assert_eq!(parse("I need a family friendly event for next month", &now), super::Parsed::NotRoutine);
    // An event told with its time is put on the calendar; a question or a booking is not.
    assert_eq!(filed("I have a lunch date with Wilfred at 1:30 pm on Sunday."), "lunch date with Wilfred Sun 29 13:30");
    assert_eq!(filed("I have mt test at 10 am tomorrow"), "mt test Fri 27 10:00");
    assert_eq!(parse("i have a question about tomorrow", &now), super::Parsed::NotRoutine);
    assert_eq!(parse("I have a meeting room booked for 3 pm", &now), super::Parsed::NotRoutine);
    // A booking with others stays the executive's.
    assert_eq!(parse("book a table for friday at 8", &now), super::Parsed::NotRoutine);
}

/// Each request `text` makes, in words, joined by " + ".
fn made(text: &str, now: &Zoned) -> String {
    match parse(text, now) {
        super::Parsed::Routine(rs) => rs
            .iter()
            .map(|r| match r {
                super::Request::AddTask { task, due: Some(d) } => format!("{task} {}", d.at.strftime("%a %d %b %H:%M")),
                super::Request::AddTask { task, due: None } => task.clone(),
                super::Request::AddEvery { action, every } => match &every.until {
                    Some(u) => format!("{action}: {} until {}", every.cron, u.strftime("%d %b %Y")),
                    None => format!("{action}: {}", every.cron),
                },
                super::Request::Move { words, to: Target::At(d), .. } => {
                    format!("{words} → {}", d.at.strftime("%a %H:%M"))
                }
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join(" + "),
        other => format!("{other:?}"),
    }
}

#[test]
fn the_sixteenth_passes_clean_sample_kinds_have_their_effect() {
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    let one = |text: &str| made(text, &now);
    // TOPv2's test split (a clean sample, read after its run).
    assert_eq!(one("Set a notification for 5pm"), "Alert Thu 26 Nov 17:00");
    // Initials end no sentence.
    assert_eq!(one("add t.p. to reminders"), "t.p");
    assert_eq!(one("Remind me to call J. Smith at 5pm"), "call J. Smith Thu 26 Nov 17:00");
    assert_eq!(one("Create an alarm for July the 1st"), "Alarm Thu 01 Jul 09:00");
    assert_eq!(
        one("Can you remind me about the dinner date i have this upcoming Monday"),
        "the dinner date i have Mon 30 Nov 09:00"
    );
    assert_eq!(one("would you change my 5pm alarm to 5:30 pm for today instead"), "my 5pm alarm → Thu 17:30");
    assert_eq!(one("Create repeating alarm for 4:30pm Sunday afternoon"), "Alarm: 30 16 * * 0");
    // "Set a time for 7 minutes": the timer, a letter short.
    assert_eq!(one("Set a time for 7 minutes."), "Timer Thu 26 Nov 14:37");
    assert!(!matches!(parse("set a time for 2 people", &now), super::Parsed::Routine(_)));
    // A span before a thing whose time is not said: when the thing is is asked, nothing set.
    for text in ["Set an alert for 10 minutes before the game starts", "set a timer for 10 minutes before i leave"] {
        assert!(matches!(parse(text, &now), super::Parsed::Missing(_)), "{text}");
    }
    // How often, said as "once a …" or with "every" a letter short.
    assert_eq!(one("remind me to take pills once a day at 8am"), "take pills: 0 8 * * *");
    assert_eq!(one("remind me to watch the Bachelor ever Monday at 8:00pm."), "watch the Bachelor: 0 20 * * 1");
    assert!(matches!(parse("Remind me to go on a jog once a week", &now), super::Parsed::Ask(_)));
    // CLINC150's test split, not routine: a car rented, an order placed — never filed.
    for text in [
        "i want a rental car that is available tomorrow and that i can keep for four days please find me one",
        "i need to rent a car for may 11thto may 13th in chicago and i'd like a coupe",
        "place an order for my whole shopping list",
        // TOPv2's: a name, a place and a day, nothing asked and no clock — handed up.
        "Brunch at New York New York Hotel and Casino on Sunday",
    ] {
        assert!(!matches!(parse(text, &now), super::Parsed::Routine(_)), "{text}");
    }
    // A list of days: the task on each, at the time said.
    assert_eq!(
        one("Remind me to walk the dogs on Tuesday and Thursday."),
        "walk the dogs Tue 01 Dec 09:00 + walk the dogs Thu 03 Dec 09:00"
    );
    assert_eq!(
        one("remind me to call mom on tuesday and thursday at 5pm"),
        "call mom Tue 01 Dec 17:00 + call mom Thu 03 Dec 17:00"
    );
    assert_eq!(one("remind me to call mom and dad on friday"), "call mom and dad Fri 27 Nov 09:00");
    // A repeat with no day said is still asked how often; a weekday that is not the date's is asked.
    assert!(matches!(parse("set a recurring alarm for noon", &now), super::Parsed::Ask(_)));
    assert!(matches!(parse("Remind me on Monday the 6th to pick up a present", &now), super::Parsed::Ask(_)));
}

#[test]
fn the_sixteenth_passes_other_kinds_an_alarm_said_otherwise_and_a_stretch_before_its_repeat() {
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    let one = |text: &str| made(text, &now);
    // An alarm or an alert asked for in other words.
    assert_eq!(one("Make the alarm go off at 4:00pm"), "Alarm Thu 26 Nov 16:00");
    assert_eq!(one("Can you let me know when it's 3pm on Thursday?"), "Alert Thu 03 Dec 15:00");
    assert_eq!(
        one("Create an alarm reminder to ring the hairdressers for tomorrow at 4pm"),
        "ring the hairdressers Fri 27 Nov 16:00"
    );
    // A frame word a letter short, not a real word a letter short of one.
    assert_eq!(one("Set an alam at 5pm"), "Alarm Thu 26 Nov 17:00");
    assert_eq!(one("set an alarm for half an hour"), "Alarm Thu 26 Nov 15:00");
    // A 24-hour clock said on the hour; a weekday alarm repeats.
    assert_eq!(one("set an alarm for sixteen hundred hours"), "Alarm Thu 26 Nov 16:00");
    assert_eq!(one("Set a weekday alarm for 6 hundred hours"), "Alarm: 0 6 * * 1-5");
    // A stretch said before the repeat ends it; a length before it is no stretch.
    assert_eq!(one("Set up alarm for 3 months every Thursday at midnight"), "Alarm: 0 0 * * 4 until 05 Mar 2027");
    assert!(matches!(parse("set a timer for 5 minutes every day", &now), super::Parsed::Ask(_)));
    // A date a clock time follows, am written with dots.
    assert_eq!(
        one("set a reminder that winnie's birthday party is 8/27 at 11a.m."),
        "winnie's birthday party Fri 27 Aug 11:00"
    );
    assert_eq!(one("remind me about the party at 11a.m."), "the party Fri 27 Nov 11:00");
    assert!(!one("we offer 24/7 support at 5pm").contains("Jul"));
    // "any day next week": a stretch to choose in, kept in the words.
    assert_eq!(
        one("Remind me to reply to Juanna and tell her we can meet on any day next week."),
        "reply to Juanna and tell her we can meet on any day next week"
    );
    // Oneself said otherwise; someone else reminded is a message, the executive's.
    assert_eq!(
        one("remind myself to set the dvr to tape the new movie on channel 5 at 8"),
        "set the dvr to tape the new movie on channel 5 Thu 26 Nov 20:00"
    );
    assert_eq!(one("remind us to feed the cat at 8pm"), "feed the cat Thu 26 Nov 20:00");
    // Sample G's (read after its run): a question begun with "any", a change said as a need,
    // minutes added to an item, a reminder asked for after the need — and one not wanted.
    assert!(matches!(
        parse("any alarm set in the morning", &now),
        super::Parsed::Routine(ref rs) if matches!(rs[..], [super::Request::ListTasks { .. }])
    ));
    assert!(one("I need to move the alarm to 9pm").starts_with("the alarm → Thu 21:00"));
    assert!(one("add twenty minutes to my next alarm").starts_with("Move { words: \"my next alarm\", to: By(20m)"));
    assert_eq!(one("i need to start dinner at six pm tonight please set reminder"), "start dinner Thu 26 Nov 18:00");
    assert_eq!(parse("I don't want to be reminded to clean the house today.", &now), super::Parsed::NotRoutine);
    // Bot Framework Solutions' (read after its run): a task marked done in other words is
    // completed, never filed; a question about others or what no item holds is never filed.
    for (text, words) in [
        ("complete task go shopping", "go shopping"),
        ("mark pancake mix on my grocery shopping list", "pancake mix"),
        ("finish hikes on my to do list", "hikes"),
    ] {
        assert!(
            matches!(parse(text, &now), super::Parsed::Routine(ref rs) if matches!(&rs[..], [super::Request::Complete { words: w, .. }] if w == words)),
            "{text}"
        );
    }
    for text in [
        "will jane be at the 3 pm meeting",
        "2 pm meeting with who",
        "can you check my dad's calendar for free time this week",
    ] {
        assert_eq!(parse(text, &now), super::Parsed::NotRoutine, "{text}");
    }
    assert_eq!(one("what's on tomorrow's schedule"), "ListTasks { filter: Tomorrow }");
    assert_eq!(one("add call the plumber who fixed the sink to my to-do list"), "call the plumber who fixed the sink");
    // An event over days said with no repeat is asked about, never made weekly; an alarm
    // over weekdays still repeats.
    for text in ["create appointment from tuesday to wednesday", "schedule camping for friday to sunday"] {
        assert!(matches!(parse(text, &now), super::Parsed::Ask(_)), "{text}");
    }
    assert_eq!(one("set alarm monday to friday at 7am"), "Alarm: 0 7 * * 1-5");
    for text in
        ["Remind Heather that we have dinner plans Thursday at 6pm.", "Remind Sarah to bring the projector tomorrow"]
    {
        assert_eq!(parse(text, &now), super::Parsed::NotRoutine, "{text}");
    }
}

#[test]
fn the_eighteenth_passes_kinds_a_calendar_named_a_stretch_of_hours_and_a_question_of_when() {
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    let one = |text: &str| made(text, &now);
    // The calendar named is where the task goes, no part of its name.
    assert_eq!(one("put insanity on my calendar at 6 30 am"), "insanity Fri 27 Nov 06:30");
    assert_eq!(one("add haircut to my google calendar tomorrow at 2 30"), "haircut Fri 27 Nov 14:30");
    assert_eq!(one("add choreography to my family calendar"), "choreography");
    assert_eq!(one("put dentist appointment in my calendar tuesday 2 45 pm"), "dentist appointment Tue 01 Dec 14:45");
    // ("remind me to put the dentist on my calendar" is a task of its own.)
    assert_eq!(
        one("remind me to put the dentist on my calendar tomorrow"),
        "put the dentist on my calendar Fri 27 Nov 09:00"
    );
    // A stretch of hours is due when it starts; how long it lasts is no part of the name.
    assert_eq!(one("put work on my calendar tomorrow from 8 30 to 5 30"), "work Fri 27 Nov 08:30");
    assert_eq!(one("add ballet to my calendar wednesday at five thirty to six thirty pm"), "ballet Wed 02 Dec 17:30");
    assert_eq!(one("add office party on march 8th from 6 p to 9 p"), "office party Mon 08 Mar 18:00");
    assert_eq!(one("add ultimate frisbee on sunday at 2 pm for 2 hours"), "ultimate frisbee Sun 29 Nov 14:00");
    // ("at 5 to 6" may be five to six: no stretch without its minutes or half of the day.)
    assert!(!one("remind me to leave at 5 to 6").contains("17:00 + "));
    assert!(one("set a timer for 2 hours").contains("16:30"));
    // An item of a list said as such; a grocery list named.
    assert_eq!(one("add a grocery item to buy fish"), "buy fish");
    assert_eq!(one("add fish to my grocery list"), "fish");
    // The day's plan asked in other words is its list.
    assert_eq!(one("what's happening today"), "ListTasks { filter: Today }");
    assert_eq!(one("what's going on tomorrow"), "ListTasks { filter: Tomorrow }");
}

#[test]
fn a_question_of_when_said_of_no_task_shows_one_that_matches_and_is_not_routine_otherwise() {
    let hub = Hub::new();
    assert!(
        hub.owner("when is the plumber call").contains("call the plumber"),
        "{}",
        hub.owner("when is the plumber call")
    );
    assert!(hub.owner("what time is the car insurance renewal").contains("renew the car insurance"));
    assert!(hub.owner("find a call about the plumber").contains("call the plumber"));
    for text in [
        "when is the next full moon",
        "what time is it in london",
        "when is thanksgiving",
        "find a dinner place nearby",
        "find a meeting room for tomorrow",
    ] {
        assert!(hub.owner(text).starts_with("escalated: not a routine request"), "{text}: {}", hub.owner(text));
    }
    // Nothing changed by asking.
    let before = hub.read("tasks.json");
    hub.owner("when is the plumber call");
    assert_eq!(hub.read("tasks.json"), before);
}

#[test]
fn the_eighteenth_passes_kinds_several_alarms_a_repeat_until_a_date_and_an_entry_typed_alone() {
    let now: Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
    let one = |text: &str| made(text, &now);
    // Several alarms, with "some" or a count in figures.
    assert_eq!(one("Create some alarms for 3:35am and 4:45am"), "Alarm Fri 27 Nov 03:35 + Alarm Fri 27 Nov 04:45");
    assert_eq!(one("set 2 new alarms for tonight at 8pm and 10pm"), "Alarm Thu 26 Nov 20:00 + Alarm Thu 26 Nov 22:00");
    assert_eq!(one("set 3 alarms for 8pm and 10pm"), "NotRoutine");
    assert_eq!(one("Can we start an alarm for 6pm on Tuesday?"), "Alarm Tue 01 Dec 18:00");
    // A repeat until a date already past this year: next year's, as "until October" is.
    assert_eq!(
        one("REMIND ME TO CHECK THE VEGETABLE PLANTS EVERY TUESDAY AT 7PM UNTIL OCTOBER 31"),
        "CHECK THE VEGETABLE PLANTS: 0 19 * * 2 until 01 Nov 2027"
    );
    // A calendar entry typed alone, with its time; a meal's bare hour is in its half of the day.
    assert_eq!(one("meeting with ben randie tomorrow at noon"), "meeting with ben randie Fri 27 Nov 12:00");
    assert_eq!(one("march 15 dinner at refectory at 6 pm"), "dinner at refectory Mon 15 Mar 18:00");
    assert_eq!(one("lunch at 1"), "lunch Fri 27 Nov 13:00");
    assert_eq!(one("remind me about dinner at 7"), "dinner Thu 26 Nov 19:00");
    // A time put right with "not" is a move from it, as "instead of" is.
    assert_eq!(one("remind me to pay school fees tomorrow not next week"), "pay school fees next week → Fri 09:00");
    assert!(!one("I'm free tomorrow not today").contains("Move"));
    // A day said with the new time goes with it, not with the item's words.
    assert_eq!(
        one("Tell me to do my chores tonight at 6 PM instead of tomorrow at noon"),
        "do my chores tomorrow at noon → Thu 18:00"
    );
    // An assistant's name called first is no part of the request.
    assert_eq!(one("alexa, buy my grocery list"), "NotRoutine");
    assert_eq!(one("siri, remind me to buy milk at 5pm"), "buy milk Thu 26 Nov 17:00");
    // A day said of the name is no second day of a list.
    assert_eq!(
        one("Set a reminder on Friday to get my supplies together for my class on Saturday"),
        "get my supplies together for my class on Saturday Fri 27 Nov 09:00"
    );
    assert_eq!(
        one("Remind me to walk the dogs on Tuesday and Thursday"),
        "walk the dogs Tue 01 Dec 09:00 + walk the dogs Thu 03 Dec 09:00"
    );
    // Switched on, an alarm is set, not moved.
    assert_eq!(one("switch on alarm for 10pm"), "Alarm Thu 26 Nov 22:00");
    // Something wanted done for the person is not filed; the filing wanted is.
    assert_eq!(one("I need you to recommend me football matches happening tomorrow night"), "NotRoutine");
    assert_eq!(one("I need you to remind me to call mom at 5pm"), "call mom Thu 26 Nov 17:00");
    // Not one: a booking, a question, a date with no time, nothing named first.
    for text in
        ["dinner reservations for 2 at 7pm", "dinner at 6pm?", "meeting tomorrow", "traffic to my meeting at 5pm"]
    {
        assert!(
            !matches!(parse(text, &now), super::Parsed::Routine(ref rs) if matches!(rs[..], [super::Request::AddTask { .. }])),
            "{text}"
        );
    }
}
