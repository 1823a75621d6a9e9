//! The impulse files of document 003: `tasks.json` (commitments: "I will do X") and
//! `ideas.json` (curiosities: "I want to explore X someday"), typed, in the document's
//! formats, and the JSON state-file reader they (and `schedule.json`) share: an error names
//! the file, line, column and field; writes are atomic. Every writer of these files — the
//! `add_task`/`add_idea` reflex actions, `cn task`, `cn idea`, the daemon completing a task —
//! goes through these types.
//!
//! Invariants: a file that does not parse is reported and left exactly as it is — never
//! replaced by a default, since it may hold the owner's hand edits; fields we do not know
//! are kept, so a hand-added field survives our writes.

use std::io;
use std::path::{Path, PathBuf};

pub use jiff::Timestamp;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::origin::AnswerTo;

/// `tasks.json` in the hub's state directory.
pub const TASKS_FILE: &str = "tasks.json";
/// `ideas.json` in the hub's state directory.
pub const IDEAS_FILE: &str = "ideas.json";

/// A state file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{path}: line {line}, column {column}, field `{field}`: {message}; fix the file by hand (it was left unchanged)")]
    Malformed { path: PathBuf, line: usize, column: usize, field: String, message: String },
    #[error("{path}")]
    Io { path: PathBuf, source: io::Error },
}

/// Read a JSON state file; a missing or blank file is the default value.
pub fn read<T: DeserializeOwned + Default>(path: &Path) -> Result<T, StateError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(T::default()),
        Err(source) => return Err(StateError::Io { path: path.to_path_buf(), source }),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    let malformed = |line: usize, column: usize, field: String, message: String| StateError::Malformed {
        path: path.to_path_buf(),
        line,
        column,
        field,
        message,
    };
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let field = match e.path().to_string() {
            p if p == "." || p.is_empty() => "(top level)".to_string(),
            p => p,
        };
        let inner = e.inner();
        malformed(inner.line(), inner.column(), field, strip_position(&inner.to_string()))
    })?;
    // Trailing garbage after the value is as malformed as a bad field.
    de.end().map_err(|e| malformed(e.line(), e.column(), "(top level)".into(), strip_position(&e.to_string())))?;
    Ok(value)
}

/// Write a JSON state file atomically (pretty, final newline).
pub fn write<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), StateError> {
    cn_storage::write_json_atomic(path, value).map_err(|source| StateError::Io { path: path.to_path_buf(), source })
}

/// A state file holding a JSON array of `T` (tasks.json, ideas.json, schedule.json).
#[derive(Debug, Clone)]
pub struct JsonList<T> {
    path: PathBuf,
    _items: std::marker::PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned> JsonList<T> {
    pub fn at(path: impl Into<PathBuf>) -> Self {
        JsonList { path: path.into(), _items: std::marker::PhantomData }
    }
    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn load(&self) -> Result<Vec<T>, StateError> {
        read(&self.path)
    }
    pub fn save(&self, items: &[T]) -> Result<(), StateError> {
        write(&self.path, items)
    }
    /// Append one item (read, push, atomic write); a malformed file stays as it is.
    pub fn add(&self, item: T) -> Result<(), StateError> {
        self.change(|all| {
            all.push(item);
            ((), true)
        })
    }

    /// Read, change and write the list as one step: `f` changes the items and says whether
    /// to write them. Held under a lock (`.cn.lock` beside the file), so two processes
    /// changing it at once — `cn task add` while the daemon follows a task up — lose nothing.
    pub fn change<R>(&self, f: impl FnOnce(&mut Vec<T>) -> (R, bool)) -> Result<R, StateError> {
        let dir = self.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let io = |source| StateError::Io { path: dir.join(".cn.lock"), source };
        std::fs::create_dir_all(dir).map_err(io)?;
        let _lock = cn_storage::HubLock::acquire(dir, LOCK_WAIT).map_err(io)?;
        let mut all = self.load()?;
        let (out, write) = f(&mut all);
        if write {
            self.save(&all)?;
        }
        Ok(out)
    }
}

/// How long a change to a state list waits for another process's change to finish.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// One commitment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<Timestamp>,
    /// 1 is the most urgent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub done: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// When the agent comes back to it: set when a decision on it left it open (a noop, a
    /// level that could not do it). A commitment without a due time is followed up at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow_up: Option<Timestamp>,
    /// Who asked for it, when not the owner ([`crate::Provenance::label`]): the item the
    /// task brings back is as trusted as that, never more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Where the person who asked for it is told when it falls due: the channel of their
    /// message ([`crate::origin::AnswerTo`]). Set only for a task a person's message filed;
    /// such a task is their reminder, told to them at its minute — never the agent's work.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_to: Option<AnswerTo>,
    /// The reminder last told: for which due time, and when (so a restart tells it once).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminded: Option<Reminded>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A reminder told to the person who asked for the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reminded {
    /// The due time it was told for (moved or snoozed, it is told again at the new one).
    pub due: Timestamp,
    /// When it was told.
    pub at: Timestamp,
}

impl Task {
    pub fn new(task: impl Into<String>) -> Self {
        Task {
            id: crate::id::prefixed("task"),
            task: task.into(),
            due: None,
            priority: None,
            context: None,
            done: false,
            status: None,
            follow_up: None,
            source: None,
            answer_to: None,
            reminded: None,
            extra: Map::new(),
        }
    }

    /// Where to tell the person who asked for it, when it is a reminder: a channel that can
    /// be answered on (not `none`, not a sender who must not be answered).
    pub fn reminds(&self) -> Option<&AnswerTo> {
        self.answer_to.as_ref().filter(|a| a.can_tell())
    }

    /// A reminder to tell now: open, a reminder, due at or before `now`, and not told yet
    /// for that due time.
    pub fn to_remind(&self, now: Timestamp) -> bool {
        self.reminds().is_some() && self.is_due(now) && self.reminded.is_none_or(|r| Some(r.due) != self.next_time())
    }

    /// Open, and due (or to be followed up) at or before `now`.
    pub fn is_due(&self, now: Timestamp) -> bool {
        !self.done && self.next_time().is_some_and(|d| d <= now)
    }

    /// When it comes up next: its follow-up time once one is set, else its due time.
    pub fn next_time(&self) -> Option<Timestamp> {
        self.follow_up.or(self.due)
    }
}

/// The key of a recurring reminder's firing that names its schedule entry.
pub const EVERY: &str = "every";

/// The tasks file (`tasks.json`).
pub type Tasks = JsonList<Task>;

/// `tasks.json` in the hub's state directory `state_dir`.
pub fn tasks_in(state_dir: &Path) -> Tasks {
    Tasks::at(state_dir.join(TASKS_FILE))
}

impl JsonList<Task> {
    /// Mark a task done; false if no task has that id.
    pub fn complete(&self, id: &str) -> Result<bool, StateError> {
        self.change(|all| {
            let Some(t) = all.iter_mut().find(|t| t.id == id) else { return (false, false) };
            t.done = true;
            t.status = Some("done".into());
            (true, true)
        })
    }

    /// Record that the reminder of the open task `id` was told at `at` for its due time `due`;
    /// false if no open task has that id.
    pub fn mark_reminded(&self, id: &str, due: Timestamp, at: Timestamp) -> Result<bool, StateError> {
        self.change(|all| {
            let Some(t) = all.iter_mut().find(|t| t.id == id && !t.done) else { return (false, false) };
            t.reminded = Some(Reminded { due, at: to_second(at) });
            (true, true)
        })
    }

    /// Leave a task open and come back to it at `at`; false if no open task has that id.
    pub fn follow_up(&self, id: &str, at: Timestamp) -> Result<bool, StateError> {
        self.change(|all| {
            let Some(t) = all.iter_mut().find(|t| t.id == id && !t.done) else { return (false, false) };
            t.follow_up = Some(to_second(at));
            (true, true)
        })
    }

    /// Mark the open task `id` done and return it as it now is; `None` (nothing written)
    /// when no open task has that id.
    pub fn complete_open(&self, id: &str) -> Result<Option<Task>, StateError> {
        self.change_open(id, |t| {
            t.done = true;
            t.status = Some("done".into());
        })
    }

    /// Give the open task `id` a new due time, and forget any follow-up time (it comes up at
    /// the new time); returns it as it was and as it is now.
    pub fn reschedule(&self, id: &str, due: Timestamp) -> Result<Option<(Task, Task)>, StateError> {
        self.change(|all| {
            let Some(t) = all.iter_mut().find(|t| t.id == id && !t.done) else { return (None, false) };
            let before = t.clone();
            t.due = Some(due);
            t.follow_up = None;
            (Some((before, t.clone())), true)
        })
    }

    /// Call off the open task `id`: kept in the file as `cancelled` (closed, so nothing
    /// brings it back; the record stays), returned as it now is.
    pub fn cancel(&self, id: &str) -> Result<Option<Task>, StateError> {
        self.change_open(id, |t| {
            t.done = true;
            t.status = Some("cancelled".into());
        })
    }

    fn change_open(&self, id: &str, f: impl FnOnce(&mut Task)) -> Result<Option<Task>, StateError> {
        self.change(|all| {
            let Some(t) = all.iter_mut().find(|t| t.id == id && !t.done) else { return (None, false) };
            f(t);
            (Some(t.clone()), true)
        })
    }

    /// File the reminder of the recurring entry `entry` firing at `at` (a person's
    /// "every day at 3:38pm remind me to drink water"): a one-off task due at `at`, told where
    /// `entry.remind` says and answered "done" or "snooze" like any other reminder. Its id
    /// derives from the entry and the time, so a firing is filed once. An earlier firing of
    /// the same entry still open is closed as `lapsed` (the new one stands for it; the
    /// journal keeps that it was told). `None` when the entry reminds no one or this firing
    /// is filed already.
    pub fn file_firing(
        &self,
        entry: &crate::schedule::ScheduleEntry,
        at: Timestamp,
    ) -> Result<Option<Task>, StateError> {
        let Some(to) = entry.reminds() else { return Ok(None) };
        let mut task = Task::new(entry.action.clone());
        task.id = format!("task-{}", crate::id::stable(&format!("every:{}@{}", entry.name, at.as_second())));
        task.due = Some(to_second(at));
        task.priority = Some(2);
        task.context = entry.extra.get("context").and_then(Value::as_str).map(str::to_string);
        task.source = entry.extra.get("source").and_then(Value::as_str).map(str::to_string);
        task.answer_to = Some(to.clone());
        task.extra.insert(EVERY.into(), entry.name.clone().into());
        self.change(|all| {
            if all.iter().any(|t| t.id == task.id) {
                return (None, false);
            }
            for t in
                all.iter_mut().filter(|t| !t.done && t.extra.get(EVERY).and_then(Value::as_str) == Some(&entry.name))
            {
                t.done = true;
                t.status = Some("lapsed".into());
            }
            all.push(task.clone());
            (Some(task), true)
        })
    }

    /// Add `task` unless a task with its id is there already (a repeated effect adds it once).
    pub fn add_once(&self, task: Task) -> Result<bool, StateError> {
        self.change(|all| {
            if all.iter().any(|t| t.id == task.id) {
                return (false, false);
            }
            all.push(task);
            (true, true)
        })
    }
}

/// Open tasks in the order a person reads a to-do list: due first (earliest first), then by
/// priority, then as written.
pub fn ordered(tasks: &[Task]) -> Vec<&Task> {
    let mut open: Vec<&Task> = tasks.iter().filter(|t| !t.done).collect();
    open.sort_by_key(|t| (t.next_time().is_none(), t.next_time(), t.priority.unwrap_or(u8::MAX)));
    open
}

/// Which open tasks a person asks for: all, or by when they are due in the hub's time zone.
/// "Today" and "this week" include what is overdue (it still wants doing); a task without a
/// due time is only in [`Filter::Open`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Filter {
    Open,
    Today,
    Tomorrow,
    Week,
    NextWeek,
    Overdue,
    /// The tasks due on one day ("what's on my calendar for friday"), overdue ones not.
    Day(jiff::civil::Date),
}

impl Filter {
    pub const ALL: [Filter; 6] =
        [Filter::Open, Filter::Today, Filter::Tomorrow, Filter::Week, Filter::NextWeek, Filter::Overdue];

    /// Its name in the tools' parameters (`open`, `today`, `tomorrow`, `week`, `next_week`,
    /// `overdue`; a day is named by its date, `2026-11-27`, and this says `day`).
    pub fn name(self) -> &'static str {
        match self {
            Filter::Day(_) => "day",
            Filter::Open => "open",
            Filter::Today => "today",
            Filter::Tomorrow => "tomorrow",
            Filter::Week => "week",
            Filter::NextWeek => "next_week",
            Filter::Overdue => "overdue",
        }
    }

    /// Whether the filter keeps `task` at `now` (whose zone is the hub's). Days and weeks are
    /// the zone's (a week starts on Monday).
    pub fn keeps(self, task: &Task, now: &jiff::Zoned) -> bool {
        if task.done {
            return false;
        }
        if self == Filter::Open {
            return true;
        }
        let Some(due) = task.due else { return false };
        let day = |n: i64| {
            now.date()
                .checked_add(jiff::Span::new().days(n))
                .ok()
                .and_then(|d| d.to_zoned(now.time_zone().clone()).ok())
                .map(|z| z.timestamp())
        };
        let monday = |weeks: i64| {
            let offset = i64::from(now.date().weekday().to_monday_zero_offset());
            day(7 * weeks - offset)
        };
        let before = |end: Option<Timestamp>| end.is_some_and(|e| due < e);
        let from = |start: Option<Timestamp>| start.is_some_and(|s| due >= s);
        let start_of = |d: jiff::civil::Date| d.to_zoned(now.time_zone().clone()).ok().map(|z| z.timestamp());
        match self {
            Filter::Day(d) => from(start_of(d)) && before(d.tomorrow().ok().and_then(start_of)),
            Filter::Open => true,
            Filter::Today => before(day(1)),
            Filter::Tomorrow => from(day(1)) && before(day(2)),
            Filter::Week => before(monday(1)),
            Filter::NextWeek => from(monday(1)) && before(monday(2)),
            Filter::Overdue => due < now.timestamp(),
        }
    }
}

impl std::str::FromStr for Filter {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if let Ok(day) = s.parse::<jiff::civil::Date>() {
            return Ok(Filter::Day(day));
        }
        Filter::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Filter::ALL.iter().map(|f| f.name()).collect();
            format!("`{s}` is not a task filter (one of: {}, or a date as 2026-11-27)", names.join(", "))
        })
    }
}

/// One curiosity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Idea {
    pub id: String,
    pub idea: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparked_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<Timestamp>,
    /// How interesting, 1 (mildly) to 5 (very): the more interesting are explored first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interest: Option<u8>,
    /// When it was last explored (kept in the file, so a restart does not explore it again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explored: Option<Timestamp>,
    /// Who sparked it, when not the owner (as a task's `source`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Idea {
    pub fn new(idea: impl Into<String>, sparked_by: Option<String>, added: Timestamp) -> Self {
        Idea {
            id: crate::id::prefixed("idea"),
            idea: idea.into(),
            sparked_by,
            added: Some(to_second(added)),
            interest: None,
            explored: None,
            source: None,
            extra: Map::new(),
        }
    }
}

impl JsonList<Idea> {
    /// Remove the idea `id` and return it; `None` (nothing written) when there is none.
    pub fn drop_idea(&self, id: &str) -> Result<Option<Idea>, StateError> {
        self.change(|all| match all.iter().position(|i| i.id == id) {
            Some(n) => (Some(all.remove(n)), true),
            None => (None, false),
        })
    }

    /// Mark an idea explored at `at`; false if no idea has that id.
    pub fn mark_explored(&self, id: &str, at: Timestamp) -> Result<bool, StateError> {
        self.change(|all| {
            let Some(i) = all.iter_mut().find(|i| i.id == id) else { return (false, false) };
            i.explored = Some(to_second(at));
            (true, true)
        })
    }
}

/// `t` to the second: the times in the state files are read by people, and a nanosecond is
/// noise to them.
pub fn to_second(t: Timestamp) -> Timestamp {
    Timestamp::from_second(t.as_second()).unwrap_or(t)
}

/// The ideas file (`ideas.json`).
pub type Ideas = JsonList<Idea>;

/// `ideas.json` in the hub's state directory `state_dir`.
pub fn ideas_in(state_dir: &Path) -> Ideas {
    Ideas::at(state_dir.join(IDEAS_FILE))
}

/// serde_json appends " at line L column C"; the error already says where.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, Deserialize, Serialize, PartialEq)]
    struct Row {
        id: String,
        priority: Option<u8>,
    }

    #[test]
    fn malformed_file_names_line_and_field_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tasks.json");
        let text = "[\n  {\"id\": \"a\"},\n  {\"id\": \"b\", \"priority\": \"high\"}\n]\n";
        std::fs::write(&p, text).unwrap();
        let e = read::<Vec<Row>>(&p).unwrap_err().to_string();
        assert!(e.contains("tasks.json: line 3"), "{e}");
        assert!(e.contains("field `[1].priority`"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
    }

    #[test]
    fn missing_is_empty_and_write_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state/ideas.json");
        assert!(read::<Vec<Row>>(&p).unwrap().is_empty());
        let rows = vec![Row { id: "x".into(), priority: Some(1) }];
        write(&p, &rows).unwrap();
        assert_eq!(read::<Vec<Row>>(&p).unwrap(), rows);
    }

    #[test]
    fn reads_the_documents_format_and_keeps_unknown_fields() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = Tasks::at(dir.path().join("tasks.json"));
        std::fs::write(
            tasks.path(),
            r#"[{"id":"task-abc123","task":"Review PR #42","due":"2026-01-07T10:00:00Z","priority":1,"context":"Promised in conversation","mood":"keen"}]"#,
        )
        .unwrap();
        let all = tasks.load().unwrap();
        assert_eq!(all[0].task, "Review PR #42");
        assert!(all[0].is_due("2026-01-07T10:00:00Z".parse().unwrap()));
        assert!(!all[0].is_due("2026-01-07T09:59:59Z".parse().unwrap()));
        tasks.complete("task-abc123").unwrap();
        let text = std::fs::read_to_string(tasks.path()).unwrap();
        assert!(text.contains("\"mood\": \"keen\"") && text.contains("\"done\": true"), "{text}");
    }

    #[test]
    fn new_entries_are_written_in_the_documents_format() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = Task::new("Review PR #42");
        t.priority = Some(2);
        tasks_in(dir.path()).add(t.clone()).unwrap();
        ideas_in(dir.path())
            .add(Idea::new("tides", Some("a walk".into()), "2026-01-06T15:00:00Z".parse().unwrap()))
            .unwrap();
        assert!(t.id.starts_with("task-") && t.id.len() == 17, "{}", t.id);
        let text = std::fs::read_to_string(dir.path().join("tasks.json")).unwrap();
        assert_eq!(
            text,
            format!(
                "[\n  {{\n    \"id\": \"{}\",\n    \"task\": \"Review PR #42\",\n    \"priority\": 2\n  }}\n]\n",
                t.id
            )
        );
        let ideas: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("ideas.json")).unwrap()).unwrap();
        assert_eq!(ideas[0]["added"], "2026-01-06T15:00:00Z");
        assert_eq!(ideas[0]["sparked_by"], "a walk");
        assert!(ideas[0]["id"].as_str().unwrap().starts_with("idea-"));
    }

    #[test]
    fn filters_read_days_and_weeks_in_the_hubs_zone() {
        // Thursday 26 November 2026, 14:30 in Paris (13:30Z).
        let now: jiff::Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap();
        let due = |at: &str| {
            let mut t = Task::new(at);
            t.due = Some(at.parse().unwrap());
            t
        };
        let cases = [
            ("2026-11-24T08:00:00Z", "overdue today week"),
            ("2026-11-26T16:00:00Z", "today week"),
            ("2026-11-26T22:59:59Z", "today week"),
            ("2026-11-26T23:00:00Z", "tomorrow week"), // midnight in Paris
            ("2026-11-29T22:59:00Z", "week"),          // Sunday 23:59
            ("2026-11-29T23:00:00Z", "next_week"),     // Monday 00:00
            ("2026-12-06T22:00:00Z", "next_week"),
            ("2026-12-06T23:00:00Z", ""),
        ];
        for (at, want) in cases {
            let t = due(at);
            let got: Vec<&str> = [Filter::Overdue, Filter::Today, Filter::Tomorrow, Filter::Week, Filter::NextWeek]
                .into_iter()
                .filter(|f| f.keeps(&t, &now))
                .map(Filter::name)
                .collect();
            assert_eq!(got.join(" "), want, "{at}");
            assert!(Filter::Open.keeps(&t, &now));
        }
        let mut done = due("2026-11-26T16:00:00Z");
        done.done = true;
        assert!(Filter::ALL.iter().all(|f| !f.keeps(&done, &now)));
        assert!(!Filter::Today.keeps(&Task::new("no due"), &now));
        assert_eq!("next_week".parse::<Filter>(), Ok(Filter::NextWeek));
        assert!("soon".parse::<Filter>().unwrap_err().contains("one of: open, today"));
        // One day, in the hub's zone: Friday 27 November from 00:00 to 23:59 in Paris.
        let friday: Filter = "2026-11-27".parse().unwrap();
        assert_eq!(friday, Filter::Day(jiff::civil::date(2026, 11, 27)));
        assert!(!friday.keeps(&due("2026-11-26T22:59:59Z"), &now));
        assert!(friday.keeps(&due("2026-11-26T23:00:00Z"), &now));
        assert!(friday.keeps(&due("2026-11-27T22:59:00Z"), &now));
        assert!(!friday.keeps(&due("2026-11-27T23:00:00Z"), &now));
        assert!(!friday.keeps(&due("2026-11-24T08:00:00Z"), &now), "an overdue task is not Friday's");
    }

    #[test]
    fn complete_reschedule_cancel_and_drop_change_one_entry() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = tasks_in(dir.path());
        let mut a = Task::new("a");
        a.follow_up = Some("2026-01-01T00:00:00Z".parse().unwrap());
        let b = Task::new("b");
        tasks.add(a.clone()).unwrap();
        tasks.add(b.clone()).unwrap();
        let at: Timestamp = "2026-02-01T09:00:00Z".parse().unwrap();
        let (before, after) = tasks.reschedule(&a.id, at).unwrap().unwrap();
        assert_eq!((before.due, after.due, after.follow_up), (None, Some(at), None));
        assert_eq!(tasks.complete_open(&a.id).unwrap().unwrap().status.as_deref(), Some("done"));
        assert!(tasks.complete_open(&a.id).unwrap().is_none(), "done already: nothing to do");
        assert!(tasks.reschedule(&a.id, at).unwrap().is_none());
        let gone = tasks.cancel(&b.id).unwrap().unwrap();
        assert!(gone.done && gone.status.as_deref() == Some("cancelled"));
        assert_eq!(tasks.load().unwrap().len(), 2, "the record stays");
        let ideas = ideas_in(dir.path());
        let idea = Idea::new("tides", None, at);
        ideas.add(idea.clone()).unwrap();
        assert_eq!(ideas.drop_idea(&idea.id).unwrap().map(|i| i.idea).as_deref(), Some("tides"));
        assert!(ideas.drop_idea(&idea.id).unwrap().is_none());
        assert!(ideas.load().unwrap().is_empty());
    }

    #[test]
    fn changes_at_once_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = tasks_in(dir.path());
        let adders: Vec<_> = (0..8)
            .map(|n| {
                let tasks = tasks.clone();
                std::thread::spawn(move || {
                    for i in 0..10 {
                        tasks.add(Task::new(format!("task {n}.{i}"))).unwrap();
                    }
                })
            })
            .collect();
        for a in adders {
            a.join().unwrap();
        }
        assert_eq!(tasks.load().unwrap().len(), 80);
    }

    #[test]
    fn a_reminder_records_where_to_tell_and_older_files_still_read() {
        let dir = tempfile::tempdir().unwrap();
        // A file an older cn wrote: no answer_to, no reminded.
        std::fs::write(
            dir.path().join("tasks.json"),
            r#"[{"id": "task-old", "task": "old", "due": "2026-01-01T09:00:00Z", "hand": "kept"}]"#,
        )
        .unwrap();
        let tasks = tasks_in(dir.path());
        let old = &tasks.load().unwrap()[0];
        assert_eq!((old.answer_to.as_ref(), old.reminded, old.reminds()), (None, None, None));
        let now: Timestamp = "2026-01-01T09:00:30Z".parse().unwrap();
        assert!(!old.to_remind(now), "not a reminder: the agent's impulse, as before");
        let mut t = Task::new("call the bank");
        t.due = Some("2026-01-01T09:00:00Z".parse().unwrap());
        t.answer_to = Some(AnswerTo::Telegram { chat: "42".into(), message: Some("7".into()) });
        tasks.add(t.clone()).unwrap();
        assert!(!t.to_remind("2026-01-01T08:59:59Z".parse().unwrap()), "not before its minute");
        assert!(t.to_remind(now));
        assert!(tasks.mark_reminded(&t.id, t.due.unwrap(), now).unwrap());
        let back = tasks.load().unwrap();
        assert!(!back[1].to_remind(now), "told once for that due time");
        assert_eq!(back[1].answer_to.as_ref().and_then(AnswerTo::whom), Some("42"));
        assert_eq!(back[0].extra["hand"], "kept");
        // Snoozed: told again at the new time.
        let later: Timestamp = "2026-01-01T10:00:00Z".parse().unwrap();
        tasks.reschedule(&t.id, later).unwrap();
        assert!(tasks.load().unwrap()[1].to_remind(later));
        // A sender who must not be answered, or nobody to answer: no reminder.
        let mut quiet = back[1].clone();
        quiet.answer_to = Some(AnswerTo::Email {
            to: "list@x.test".into(),
            message: None,
            subject: None,
            references: None,
            no_reply: true,
        });
        assert!(quiet.reminds().is_none());
        quiet.answer_to = Some(AnswerTo::None);
        assert!(quiet.reminds().is_none());
    }

    #[test]
    fn a_recurring_reminders_firing_is_filed_once_and_lapses_the_one_before() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = tasks_in(dir.path());
        let mut entry = crate::schedule::ScheduleEntry {
            name: "water".into(),
            cron: "0 9 * * *".into(),
            action: "drink water".into(),
            tz: None,
            catch_up: None,
            remind: None,
            until: None,
            stride: None,
            extra: Map::new(),
        };
        let monday: Timestamp = "2026-01-05T09:00:00Z".parse().unwrap();
        let tuesday: Timestamp = "2026-01-06T09:00:00Z".parse().unwrap();
        assert_eq!(tasks.file_firing(&entry, monday).unwrap(), None, "the agent's work, not a reminder");
        entry.remind = Some(AnswerTo::Chat);
        let first = tasks.file_firing(&entry, monday).unwrap().expect("filed");
        assert_eq!((first.due, first.reminds().map(|a| a.via().as_str())), (Some(monday), Some("chat")));
        assert!(first.to_remind(monday));
        assert_eq!(tasks.file_firing(&entry, monday).unwrap(), None, "a firing is filed once");
        let second = tasks.file_firing(&entry, tuesday).unwrap().expect("filed");
        let all = tasks.load().unwrap();
        assert_eq!(all.len(), 2);
        let before = all.iter().find(|t| t.id == first.id).unwrap();
        assert_eq!((before.done, before.status.as_deref()), (true, Some("lapsed")));
        assert!(!all.iter().find(|t| t.id == second.id).unwrap().done);
    }
}
