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

use super::{parse, perform, Done, RoutineError, World};

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
        let world =
            World { layout: cn_hub::Layout::new(self.path()), now: self.now.clone(), who, message: message.into() };
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
    assert_eq!(hub.owner("drop the cello idea"), "Dropped the idea: learn to play the cello — 3 ideas left.");
    assert_eq!(
        hub.owner("every Monday at 9am remind me to water the plants"),
        "Scheduled: water the plants — every Monday at 09:00 (next Mon 30 Nov, 09:00)."
    );
    let entries: serde_json::Value = serde_json::from_str(&hub.read("schedule.json")).unwrap();
    let added = &entries[3];
    assert_eq!((added["name"].as_str(), added["tz"].as_str()), (Some("water-the-plants"), Some("Europe/Paris")));
    assert_eq!(hub.owner("cancel the daily reflection"), "Removed from the schedule: daily-reflection (Reflect: what did I do yesterday, what did I learn, what comes next?).");
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
