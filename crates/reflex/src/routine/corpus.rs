//! The routine corpus runner (`bench/routine/`): each line's message is parsed and performed
//! on a fresh copy of the fixture hub at the corpus's fixed now, and its effect — read back
//! from the files, plus what it listed, showed or asked — is compared with the line's
//! expected effect. The tuning half's test and `bench/routine.sh` (the held-out figure in
//! BENCHMARKS.md) both run it.
//!
//! Invariant: an effect is judged by the files, not by the answer's text: a claimed change
//! that is not in the files, or a change not claimed, is a wrong effect.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cn_hub::schedule::{Schedule, ScheduleEntry};
use cn_hub::tasks::{self, Filter, Idea, Task};
use jiff::Zoned;

use super::perform::{Outcome, RoutineError, World};
use crate::when::WhenError;

/// The corpus's now: Thursday 26 November 2026, 14:30 in Paris.
pub const NOW: &str = "2026-11-26T14:30:00[Europe/Paris]";

/// The open tasks each filter lists on the fixture (bench/routine/README.md).
pub fn expected_list(filter: Filter) -> &'static [&'static str] {
    match filter {
        Filter::Open => &[
            "task-car",
            "task-plumber",
            "task-bill",
            "task-dentist",
            "task-acme",
            "task-globex",
            "task-plants",
            "task-passport",
            "task-cleaning",
            "task-mom",
            "task-stranger",
        ],
        Filter::Today => &["task-car", "task-plants", "task-plumber", "task-cleaning"],
        Filter::Tomorrow => &["task-globex"],
        Filter::Week => &["task-car", "task-plants", "task-plumber", "task-cleaning", "task-bill", "task-globex"],
        Filter::NextWeek => &["task-acme"],
        Filter::Overdue => &["task-plumber", "task-cleaning"],
        // The corpus asks for no single day by date.
        Filter::Day(_) => &[],
    }
}

/// One line of a corpus file.
#[derive(Debug, Clone)]
pub struct Line {
    pub number: usize,
    pub message: String,
    pub expect: String,
}

/// The lines of a corpus file (`#` comments skipped).
pub fn read(path: &Path) -> std::io::Result<Vec<Line>> {
    let text = std::fs::read_to_string(path)?;
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|(i, l)| {
            let (message, expect) = l.split_once('\t')?;
            Some(Line { number: i + 1, message: message.to_string(), expect: expect.trim().to_string() })
        })
        .collect())
}

/// How a line went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Exactly its effect.
    Exact,
    /// Nothing changed: left to the executive, or asked about, where an effect was expected.
    HandedUp { got: String },
    /// A change, a listing or an answer other than the one expected.
    Wrong { got: String },
}

/// Run `line` on a fresh copy of `fixture` (a directory with tasks.json, ideas.json,
/// schedule.json).
pub fn run(line: &Line, fixture: &Path) -> std::io::Result<Verdict> {
    let dir = Scratch::new()?;
    let layout = cn_hub::Layout::new(&dir.0);
    std::fs::create_dir_all(layout.state())?;
    for f in ["tasks.json", "ideas.json", "schedule.json"] {
        std::fs::copy(fixture.join(f), layout.state().join(f))?;
    }
    let now: Zoned = NOW.parse().map_err(std::io::Error::other)?;
    let world = World {
        layout: layout.clone(),
        now: now.clone(),
        who: cn_hub::Provenance::Owner,
        message: line.message.clone(),
        answer: None,
    };
    let before = Snapshot::of(&layout)?;
    let parsed = super::parse(&line.message, &now);
    let result = super::perform(&parsed, &world);
    let after = Snapshot::of(&layout)?;
    let changes = before.changes(&after, &now);
    let answers: Vec<String> = match &result {
        Ok(done) => done.outcomes.iter().filter(|o| !o.changed()).filter_map(read_effect).collect(),
        Err(RoutineError::NotRoutine { .. }) => vec!["exec".into()],
        Err(e) => vec![format!("error: {}", cn_compute::chain(e))],
    };
    let claimed: Vec<String> = match &result {
        Ok(done) => done.outcomes.iter().filter(|o| o.changed()).map(|o| change_effect(o, &now)).collect(),
        Err(_) => Vec::new(),
    };
    let got = claimed.iter().chain(answers.iter()).cloned().collect::<Vec<_>>().join(" && ");
    let expected: Vec<String> = line.expect.split(" && ").map(normalize).collect();
    let actual_set: BTreeSet<String> = changes.iter().chain(answers.iter()).map(|s| normalize(s)).collect();
    let claimed_set: BTreeSet<String> = claimed.iter().map(|s| normalize(s)).collect();
    let changes_set: BTreeSet<String> = changes.iter().map(|s| normalize(s)).collect();
    let expected_set: BTreeSet<String> = expected.iter().cloned().collect();
    if claimed_set != changes_set {
        return Ok(Verdict::Wrong { got: format!("{got} (the files say: {})", changes.join(" && ")) });
    }
    if actual_set == expected_set {
        return Ok(Verdict::Exact);
    }
    let holds = |s: &String| s == "exec" || s == "none" || s.starts_with("ask ") || s == "refused";
    if changes.is_empty() && answers.iter().all(holds) {
        return Ok(Verdict::HandedUp { got });
    }
    Ok(Verdict::Wrong { got })
}

/// Case and spacing do not count in the words of an effect.
fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
}

fn local(t: jiff::Timestamp, now: &Zoned) -> String {
    t.to_zoned(now.time_zone().clone()).strftime("%Y-%m-%d %H:%M").to_string()
}

fn due(t: &Task, now: &Zoned) -> String {
    t.due.map_or_else(|| "-".into(), |d| local(d, now))
}

/// A schedule entry added, in the corpus's words: `every "CRON" "ACTION"`, its stride said
/// between them (`/2w`: every other week, `/3d`: every 3rd day).
fn entry_effect(e: &ScheduleEntry) -> String {
    let stride = e.stride.map_or_else(String::new, |s| {
        let unit = match s.unit {
            cn_hub::schedule::StrideUnit::Day => 'd',
            cn_hub::schedule::StrideUnit::Week => 'w',
        };
        format!(" /{}{unit}", s.n)
    });
    format!("every \"{}\"{stride} \"{}\"", e.cron, e.action)
}

/// A change an outcome claims, in the corpus's words.
fn change_effect(o: &Outcome, now: &Zoned) -> String {
    match o {
        Outcome::Added { task } => format!("add \"{}\" {}", task.task, due(task, now)),
        Outcome::Scheduled { entry, .. } => entry_effect(entry),
        Outcome::Completed { task, .. } => format!("done {}", task.id),
        Outcome::Moved { after, .. } => format!("move {} {}", after.id, due(after, now)),
        Outcome::Cancelled { task, .. } => format!("cancel {}", task.id),
        Outcome::IdeaAdded { idea } => format!("idea \"{}\"", idea.idea),
        Outcome::IdeaDropped { idea, .. } => format!("drop {}", idea.id),
        Outcome::Unscheduled { entry } => format!("unschedule {}", entry.name),
        other => format!("{other:?}"),
    }
}

/// What an outcome that changed nothing listed, showed or asked, in the corpus's words.
fn read_effect(o: &Outcome) -> Option<String> {
    Some(match o {
        Outcome::Listed { filter, tasks } => {
            let got: BTreeSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
            let want: BTreeSet<&str> = expected_list(*filter).iter().copied().collect();
            if got == want {
                format!("list {}", filter.name())
            } else {
                format!("list {} [{}]", filter.name(), got.into_iter().collect::<Vec<_>>().join(","))
            }
        }
        Outcome::Shown { task } => format!("show {}", task.id),
        Outcome::IdeasListed { .. } => "ideas".into(),
        Outcome::ScheduleListed { .. } => "schedule".into(),
        Outcome::Which { ids, .. } => {
            let mut ids = ids.clone();
            ids.sort();
            format!("ask which {}", ids.join(","))
        }
        Outcome::NoMatch { .. } => "none".into(),
        Outcome::AskWhen { .. } => "ask when".into(),
        Outcome::Refused { .. } => "refused".into(),
        Outcome::AskDate { error: WhenError::Past { .. } } => "ask past".into(),
        Outcome::AskDate { .. } => "ask date".into(),
        _ => return None,
    })
}

/// A directory of its own under the system's temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> std::io::Result<Scratch> {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("cn-routine-corpus-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The three files, as read.
struct Snapshot {
    tasks: Vec<Task>,
    ideas: Vec<Idea>,
    entries: Vec<ScheduleEntry>,
}

impl Snapshot {
    fn of(layout: &cn_hub::Layout) -> std::io::Result<Snapshot> {
        let state = layout.state();
        let err = |e: tasks::StateError| std::io::Error::other(cn_compute::chain(&e));
        Ok(Snapshot {
            tasks: tasks::tasks_in(&state).load().map_err(err)?,
            ideas: tasks::ideas_in(&state).load().map_err(err)?,
            entries: Schedule::in_layout(layout).load().map_err(err)?,
        })
    }

    /// The changes from `self` to `after`, in the corpus's words.
    fn changes(&self, after: &Snapshot, now: &Zoned) -> Vec<String> {
        let mut out = Vec::new();
        for t in &after.tasks {
            match self.tasks.iter().find(|b| b.id == t.id) {
                None => out.push(format!("add \"{}\" {}", t.task, due(t, now))),
                Some(b) => {
                    if b.done != t.done || b.status != t.status {
                        let what = if t.status.as_deref() == Some("cancelled") { "cancel" } else { "done" };
                        out.push(format!("{what} {}", t.id));
                    }
                    if b.due != t.due {
                        out.push(format!("move {} {}", t.id, due(t, now)));
                    }
                    if b.task != t.task || b.source != t.source {
                        out.push(format!("edit {}", t.id));
                    }
                }
            }
        }
        out.extend(
            self.tasks.iter().filter(|b| !after.tasks.iter().any(|t| t.id == b.id)).map(|b| format!("remove {}", b.id)),
        );
        for i in &after.ideas {
            if !self.ideas.iter().any(|b| b.id == i.id) {
                out.push(format!("idea \"{}\"", i.idea));
            }
        }
        out.extend(
            self.ideas.iter().filter(|b| !after.ideas.iter().any(|i| i.id == b.id)).map(|b| format!("drop {}", b.id)),
        );
        for e in &after.entries {
            if !self.entries.iter().any(|b| b.name == e.name) {
                out.push(entry_effect(e));
            }
        }
        out.extend(
            self.entries
                .iter()
                .filter(|b| !after.entries.iter().any(|e| e.name == b.name))
                .map(|b| format!("unschedule {}", b.name)),
        );
        out
    }
}

/// The corpus directory of this source tree (`bench/routine`).
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/routine")
}

/// Counts over a half.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub lines: usize,
    pub exact: usize,
    pub handed_up: usize,
    pub wrong: usize,
    /// The lines that were not exact: number, message, expected, verdict.
    pub misses: Vec<(usize, String, String, Verdict)>,
}

/// Run every line of `file` (in [`dir`]).
pub fn tally(file: &str) -> std::io::Result<Tally> {
    let dir = dir();
    let mut t = Tally::default();
    for line in read(&dir.join(file))? {
        t.lines += 1;
        let v = run(&line, &dir.join("fixture"))?;
        match &v {
            Verdict::Exact => t.exact += 1,
            Verdict::HandedUp { .. } => t.handed_up += 1,
            Verdict::Wrong { .. } => t.wrong += 1,
        }
        if v != Verdict::Exact {
            t.misses.push((line.number, line.message, line.expect, v));
        }
    }
    Ok(t)
}
