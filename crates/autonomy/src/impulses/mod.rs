//! Impulses — internal motivation: a task that is due (`tasks.json`), a scheduled entry that
//! fired (`schedule.json`), an idea to explore (`ideas.json`, only when truly idle).
//! [`ImpulseSources::check`] is step 1 of the document's autonomous loop.
//!
//! Invariant: a task is offered once per due time (deferring it to a new due time offers it
//! again); a schedule entry once per scheduled time; an idea at most once a day, and only
//! when the caller says the agent is idle.

pub mod ideas;
pub mod schedule;
pub mod tasks;

use std::collections::{HashMap, HashSet};

use jiff::{SignedDuration, Timestamp};

use crate::state::Cached;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use ideas::{ideas_of, Idea, Ideas};
pub use schedule::{EntryError, EntryState, Firing, Schedule, ScheduleEntry, ScheduleState};
pub use tasks::{tasks_of, Task, Tasks};

/// Which impulse source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImpulseSource {
    Task,
    Schedule,
    Idea,
}

impl ImpulseSource {
    pub fn name(self) -> &'static str {
        match self {
            ImpulseSource::Task => "task",
            ImpulseSource::Schedule => "schedule",
            ImpulseSource::Idea => "idea",
        }
    }
}

/// One impulse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Written")]
pub struct Impulse {
    /// The task's or idea's id; `schedule-<name>-<time>` for a schedule firing.
    pub id: String,
    pub source: ImpulseSource,
    pub summary: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<Timestamp>,
    /// 1 is the most urgent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// When it arose.
    pub at: Timestamp,
    /// What it came from, as its file has it; `None` only for a spooled impulse that no
    /// longer reads as its source's. Boxed: a task is large beside the rest.
    pub data: Option<Box<Cause>>,
}

/// What an impulse came from: the task, the idea, the schedule entry's firing. Written as
/// the thing itself (no tag: its impulse's `source` says which).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Cause {
    Task(Task),
    Idea(Idea),
    Schedule(Fired),
}

/// A schedule entry's firing, as its impulse carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fired {
    /// The entry's name.
    pub name: String,
    pub cron: String,
    pub action: String,
    /// The time it fired for.
    pub scheduled: Timestamp,
    /// Missed while the daemon was down, caught up.
    pub late: bool,
    /// The entry's `cadence:` (a reflection's), `None` when it names none as a string.
    #[serde(default, deserialize_with = "a_string")]
    pub cadence: Option<String>,
}

/// A value that is a string, else none (an entry's `cadence:` is whatever its file said).
fn a_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<Value>::deserialize(d)?.and_then(|v| v.as_str().map(str::to_string)))
}

/// An [`Impulse`] as spooled: its `data` read as its source's own (a task, an idea, a
/// firing) here, where it loads, and nowhere else.
#[derive(Deserialize)]
struct Written {
    id: String,
    source: ImpulseSource,
    summary: String,
    #[serde(default)]
    due: Option<Timestamp>,
    #[serde(default)]
    priority: Option<u8>,
    #[serde(default)]
    context: Option<String>,
    at: Timestamp,
    #[serde(default)]
    data: Value,
}

impl From<Written> for Impulse {
    fn from(w: Written) -> Impulse {
        let Written { id, source, summary, due, priority, context, at, data } = w;
        let data = match source {
            ImpulseSource::Task => serde_json::from_value(data).ok().map(Cause::Task),
            ImpulseSource::Idea => serde_json::from_value(data).ok().map(Cause::Idea),
            ImpulseSource::Schedule => serde_json::from_value(data).ok().map(Cause::Schedule),
        }
        .map(Box::new);
        Impulse { id, source, summary, due, priority, context, at, data }
    }
}

impl Impulse {
    /// Who filed the task or sparked the idea, when not the owner (`cn_hub::Provenance`'s
    /// label); `None` for the owner's and for a schedule firing.
    pub fn filed_by(&self) -> Option<&str> {
        match self.data.as_deref() {
            Some(Cause::Task(t)) => t.source.as_deref(),
            Some(Cause::Idea(i)) => i.source.as_deref(),
            Some(Cause::Schedule(_)) | None => None,
        }
    }

    /// The id of the task or idea it came from.
    pub fn thing_id(&self) -> Option<&str> {
        match self.data.as_deref() {
            Some(Cause::Task(t)) => Some(&t.id),
            Some(Cause::Idea(i)) => Some(&i.id),
            Some(Cause::Schedule(_)) | None => None,
        }
    }

    /// A task falling due (it has a due time and no follow-up time), not one followed up.
    pub fn falls_due(&self) -> bool {
        matches!(self.data.as_deref(), Some(Cause::Task(t)) if t.due.is_some() && t.follow_up.is_none())
    }

    /// The schedule firing it is, if it is one.
    pub fn fired(&self) -> Option<&Fired> {
        match self.data.as_deref() {
            Some(Cause::Schedule(f)) => Some(f),
            _ => None,
        }
    }

    /// What it asks, in its source's words: the task, the idea, the entry's action.
    pub fn what(&self) -> Option<&str> {
        match self.data.as_deref() {
            Some(Cause::Task(t)) => Some(&t.task),
            Some(Cause::Idea(i)) => Some(&i.idea),
            Some(Cause::Schedule(f)) => Some(&f.action),
            None => None,
        }
    }
}

/// What one check found.
#[derive(Debug, Default)]
pub struct Check {
    pub impulses: Vec<Impulse>,
    /// Reminders to tell now: tasks a person asked for, due, not yet told for this due time.
    /// They are the person's, told on the channel they asked on — never the agent's work.
    pub reminders: Vec<Task>,
    /// Schedule times missed while down and skipped (`catch_up: false`), for the journal.
    pub skipped: Vec<(ScheduleEntry, Timestamp)>,
    /// New problems with the files (a malformed file, a bad cron entry), each reported once
    /// until it changes.
    pub problems: Vec<String>,
}

/// The three impulse files of a hub and what has been offered from them.
#[derive(Debug)]
pub struct ImpulseSources {
    tasks: Cached<Vec<Task>>,
    /// Writes `tasks.json` (a recurring reminder's firing).
    task_file: Tasks,
    ideas: Cached<Vec<Idea>>,
    schedule: Cached<Vec<ScheduleEntry>>,
    schedule_state: Cached<ScheduleState>,
    /// Writes `schedule-state.json`.
    schedule_files: Schedule,
    started: Timestamp,
    offered_tasks: HashMap<String, Option<Timestamp>>,
    offered_ideas: HashMap<String, Timestamp>,
    /// Schedule times fired whose items the hub does not hold yet (entry → time): recorded in
    /// `schedule-state.json` only with the item ([`ImpulseSources::settle`]), so no commit
    /// of the hub ever says an entry fired while its item exists only in this machine's
    /// spool — a clone taking over from origin fires it instead.
    pending_fired: HashMap<String, Timestamp>,
    reported: HashSet<String>,
    /// Whether some level can work on the agent's own initiatives (an executive, or a level-2
    /// model the owner trusts to decide). Without one, ideas are not raised and undated
    /// commitments not followed up when idle: nothing could do more than close them. Tasks
    /// falling due and schedule entries still come up (their time is the owner's).
    explore: bool,
}

/// How long before the same idea may be offered again.
const IDEA_AGAIN: SignedDuration = SignedDuration::from_hours(24);

impl ImpulseSources {
    /// `started`: when the daemon started (schedule times before it were missed while down).
    pub fn of_hub(hub: &cn_hub::Hub, started: Timestamp) -> Self {
        let hub = hub.root();
        let schedule_files = Schedule::of_hub(hub);
        ImpulseSources {
            tasks: Cached::new(tasks_of(hub).path()),
            task_file: tasks_of(hub),
            ideas: Cached::new(ideas_of(hub).path()),
            schedule: Cached::new(schedule_files.path()),
            schedule_state: Cached::new(schedule_files.state_path()),
            schedule_files,
            started,
            offered_tasks: HashMap::new(),
            offered_ideas: HashMap::new(),
            pending_fired: HashMap::new(),
            explore: true,
            reported: HashSet::new(),
        }
    }

    /// Anything due, triggered or (when `idle`) worth exploring at `now`.
    pub fn check(&mut self, now: Timestamp, idle: bool) -> Check {
        let mut out = Check::default();
        let mut problems = Vec::new();
        // Problems are kept as their messages: they go to the journal, once each.
        // The schedule first: a recurring reminder's firing files its task, told below.
        match self.schedule_due(now, &mut out, &mut problems) {
            Ok(errors) => problems.extend(errors.iter().map(|e| cn_compute::chain(e))),
            Err(e) => problems.push(cn_compute::chain(&e)),
        }
        match self.tasks.get() {
            Ok(tasks) => self.tasks_due(&tasks, now, idle, &mut out),
            Err(e) => problems.push(cn_compute::chain(&e)),
        }
        if idle && self.explore && out.impulses.is_empty() {
            match self.ideas.get() {
                Ok(ideas) => self.idea(&ideas, now, &mut out),
                Err(e) => problems.push(cn_compute::chain(&e)),
            }
        }
        // Report each problem once, until it goes away or changes.
        let current: HashSet<String> = problems.iter().cloned().collect();
        out.problems = problems.into_iter().filter(|p| !self.reported.contains(p)).collect();
        self.reported = current;
        out
    }

    /// Count `imp` as offered already (it came back from the durable queue after a restart),
    /// so it is not offered a second time.
    pub fn mark_offered(&mut self, imp: &Impulse) {
        match imp.source {
            ImpulseSource::Task => {
                self.offered_tasks.insert(imp.id.clone(), imp.due);
            }
            ImpulseSource::Idea => {
                self.offered_ideas.insert(imp.id.clone(), imp.at);
            }
            ImpulseSource::Schedule => {
                if let (Some(name), Some(at)) = (schedule_name(imp), imp.due) {
                    let slot = self.pending_fired.entry(name.to_string()).or_insert(at);
                    *slot = (*slot).max(at);
                }
            }
        }
    }

    /// The hub holds the item of `imp` now (written to the inbox, or found there): a schedule
    /// firing is recorded in `schedule-state.json`. A failure to write it is returned; the
    /// firing stays pending (not fired again by this process).
    pub fn settle(&mut self, imp: &Impulse) -> Result<(), crate::state::StateError> {
        let (ImpulseSource::Schedule, Some(name), Some(at)) = (imp.source, schedule_name(imp), imp.due) else {
            return Ok(());
        };
        self.record_fired(name, at)
    }

    /// `schedule-state.json` says the entry `name` fired at `at` (the hub holds what it made).
    fn record_fired(&mut self, name: &str, at: Timestamp) -> Result<(), crate::state::StateError> {
        let mut state = self.schedule_files.load_state()?;
        let last = state.0.get(name).map(|s| s.last_fired);
        if last.is_none_or(|l| l < at) {
            state.0.insert(name.to_string(), EntryState { last_fired: at });
            self.schedule_state.invalidate();
            self.schedule_files.save_state(&state)?;
        }
        if self.pending_fired.get(name).is_some_and(|p| *p <= at) {
            self.pending_fired.remove(name);
        }
        Ok(())
    }

    /// Whether idle initiatives (ideas, undated commitments) are raised: only when some level
    /// can work on them.
    pub fn set_explore(&mut self, explore: bool) {
        self.explore = explore;
    }

    /// Let an item be offered again (its decision did not close it).
    pub fn release(&mut self, id: &str) {
        self.offered_tasks.remove(id);
        self.offered_ideas.remove(id);
    }

    /// The next time something becomes due (a task's due time or a schedule's next fire),
    /// so the daemon's rest can wake for it rather than wait out its interval.
    pub fn next_wake(&mut self, now: Timestamp) -> Option<Timestamp> {
        let task = self
            .tasks
            .get()
            .ok()
            .and_then(|ts| ts.iter().filter(|t| !t.done).filter_map(Task::next_time).filter(|d| *d > now).min());
        let fire = self.schedule.get().ok().and_then(|es| schedule::next_fire(&es, now));
        [task, fire].into_iter().flatten().min()
    }

    fn tasks_due(&mut self, tasks: &[Task], now: Timestamp, idle: bool, out: &mut Check) {
        for t in tasks::ordered(tasks) {
            // A person's reminder is told to them (once per due time, here and in the file),
            // never raised as the agent's own impulse.
            if t.reminds().is_some() {
                let next = t.next_time();
                if t.to_remind(now) && self.offered_tasks.get(&t.id) != Some(&next) {
                    self.offered_tasks.insert(t.id.clone(), next);
                    out.reminders.push(t.clone());
                }
                continue;
            }
            // A task comes up at its due time, or at its follow-up time once a decision left
            // it open. A commitment with neither is followed up when idle, like an idea but
            // before one (document 003's "commitment follow-up").
            let next = t.next_time();
            let ready = t.is_due(now) || (idle && self.explore && next.is_none());
            if !ready || self.offered_tasks.get(&t.id) == Some(&next) {
                continue;
            }
            self.offered_tasks.insert(t.id.clone(), next);
            let summary = if t.due.is_some() && t.follow_up.is_none() {
                format!("Task due: {}", t.task)
            } else {
                format!("Commitment follow-up: {}", t.task)
            };
            out.impulses.push(Impulse {
                id: t.id.clone(),
                source: ImpulseSource::Task,
                summary,
                due: next,
                priority: t.priority,
                context: t.context.clone(),
                at: now,
                data: Some(Box::new(Cause::Task(t.clone()))),
            });
        }
    }

    fn schedule_due(
        &mut self,
        now: Timestamp,
        out: &mut Check,
        problems: &mut Vec<String>,
    ) -> Result<Vec<EntryError>, std::sync::Arc<crate::state::StateError>> {
        let entries = self.schedule.get()?;
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let before = self.schedule_state.get()?;
        // Times fired and not yet settled count as fired for this check (not again).
        let mut fired = ScheduleState::clone(&before);
        for (name, at) in &self.pending_fired {
            if fired.0.get(name).is_none_or(|s| s.last_fired < *at) {
                fired.0.insert(name.clone(), EntryState { last_fired: *at });
            }
        }
        let (firings, errors) = schedule::check(&entries, &mut fired, now, self.started);
        // What is saved now: entries first seen and times skipped; a fired time waits for
        // its item (`settle`).
        for f in &firings {
            if let Firing::Fire { entry, at, .. } = f {
                self.pending_fired.insert(entry.name.clone(), *at);
            }
        }
        let mut save = ScheduleState::clone(&before);
        for (name, state) in &fired.0 {
            if !self.pending_fired.contains_key(name) {
                save.0.insert(name.clone(), state.clone());
            }
        }
        if save != *before {
            self.schedule_state.invalidate();
            self.schedule_files.save_state(&save).map_err(std::sync::Arc::new)?;
        }
        for f in firings {
            match f {
                // A person's recurring reminder: its firing is a one-off reminder task, told
                // to them with the tasks (never the agent's impulse). Recorded as fired once
                // the task file holds it; a failure leaves it to fire again.
                Firing::Fire { entry, at, .. } if entry.reminds().is_some() => {
                    self.pending_fired.remove(&entry.name);
                    let filed = self.task_file.file_firing(&entry, at).inspect(|_| self.tasks.invalidate());
                    if let Err(e) = filed.and_then(|_| self.record_fired(&entry.name, at)) {
                        problems.push(format!("the reminder `{}` due at {at}: {}", entry.name, cn_compute::chain(&e)));
                    }
                }
                Firing::Fire { entry, at, late } => out.impulses.push(Impulse {
                    id: format!("schedule-{}-{}", entry.name, at.as_second()),
                    source: ImpulseSource::Schedule,
                    summary: format!("Scheduled: {} ({})", entry.name, entry.action),
                    due: Some(at),
                    priority: None,
                    context: Some(if late {
                        format!("missed at {at} while the daemon was down; catching up")
                    } else {
                        format!("cron `{}` fired at {at}", entry.cron)
                    }),
                    at: now,
                    data: Some(Box::new(Cause::Schedule(Fired {
                        cadence: entry.extra.get("cadence").and_then(Value::as_str).map(str::to_string),
                        name: entry.name,
                        cron: entry.cron,
                        action: entry.action,
                        scheduled: at,
                        late,
                    }))),
                }),
                Firing::Skip { entry, at } => out.skipped.push((entry, at)),
            }
        }
        Ok(errors)
    }

    fn idea(&mut self, ideas: &[Idea], now: Timestamp, out: &mut Check) {
        // Not offered or explored within a day (exploration is kept in ideas.json, so this
        // holds across restarts); the most interesting first, then the never explored, then
        // the one explored longest ago, then the oldest.
        let fresh = |t: Option<&Timestamp>| t.is_none_or(|t| now.duration_since(*t) >= IDEA_AGAIN);
        let pick = ideas
            .iter()
            .filter(|i| fresh(self.offered_ideas.get(&i.id)) && fresh(i.explored.as_ref()))
            .min_by_key(|i| {
                let last = [self.offered_ideas.get(&i.id).copied(), i.explored].into_iter().flatten().max();
                (std::cmp::Reverse(i.interest.unwrap_or(0)), last, i.added)
            });
        if let Some(idea) = pick {
            self.offered_ideas.insert(idea.id.clone(), now);
            out.impulses.push(Impulse {
                id: idea.id.clone(),
                source: ImpulseSource::Idea,
                summary: format!("Idea to explore: {}", idea.idea),
                due: None,
                priority: None,
                context: idea.sparked_by.clone().map(|s| format!("sparked by {s}")),
                at: now,
                data: Some(Box::new(Cause::Idea(idea.clone()))),
            });
        }
    }
}

/// The schedule entry a schedule impulse fired.
fn schedule_name(imp: &Impulse) -> Option<&str> {
    imp.fired().map(|f| f.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    /// The hub in `dir`, with the cn.yaml it needs to open.
    fn open(dir: &std::path::Path) -> cn_hub::Hub {
        std::fs::write(dir.join("cn.yaml"), "name: t\n").unwrap();
        cn_hub::Hub::open(dir).unwrap()
    }

    #[test]
    fn a_persons_reminder_is_told_once_per_due_time_and_never_the_agents_impulse() {
        let hub = tempfile::tempdir().unwrap();
        let tasks = tasks_of(hub.path());
        let mut r = Task::new("call the bank");
        r.due = Some(ts("2026-01-07T09:00:00Z"));
        r.answer_to = Some(cn_hub::origin::AnswerTo::Telegram { chat: "42".into(), message: None });
        tasks.add(r.clone()).unwrap();
        let mut src = ImpulseSources::of_hub(&open(hub.path()), ts("2026-01-07T00:00:00Z"));
        assert_eq!(src.next_wake(ts("2026-01-07T08:00:00Z")), Some(ts("2026-01-07T09:00:00Z")));
        let c = src.check(ts("2026-01-07T08:59:59Z"), true);
        assert!(c.reminders.is_empty() && c.impulses.is_empty(), "not before its minute");
        let c = src.check(ts("2026-01-07T09:00:00Z"), true);
        assert_eq!(c.reminders.iter().map(|t| t.id.as_str()).collect::<Vec<_>>(), [r.id.as_str()]);
        assert!(c.impulses.is_empty(), "a reminder is not the agent's work: {:?}", c.impulses);
        assert!(src.check(ts("2026-01-07T09:00:01Z"), true).reminders.is_empty(), "once");
        // A restart after it was told (the file says so): not again.
        tasks.mark_reminded(&r.id, r.due.unwrap(), ts("2026-01-07T09:00:00Z")).unwrap();
        let mut again = ImpulseSources::of_hub(&open(hub.path()), ts("2026-01-07T09:30:00Z"));
        assert!(again.check(ts("2026-01-07T09:30:00Z"), true).reminders.is_empty());
        // Snoozed an hour: told at the new minute.
        tasks.reschedule(&r.id, ts("2026-01-07T10:30:00Z")).unwrap();
        assert!(again.check(ts("2026-01-07T10:29:59Z"), true).reminders.is_empty());
        assert_eq!(again.check(ts("2026-01-07T10:30:00Z"), true).reminders.len(), 1);
    }

    #[test]
    fn due_tasks_once_ideas_only_when_idle() {
        let hub = tempfile::tempdir().unwrap();
        let tasks = tasks_of(hub.path());
        let mut due = Task::new("Review PR #42");
        due.due = Some(ts("2026-01-07T10:00:00Z"));
        due.priority = Some(1);
        let mut later = Task::new("Later");
        later.due = Some(ts("2026-02-01T00:00:00Z"));
        tasks.add(due.clone()).unwrap();
        tasks.add(later).unwrap();
        ideas_of(hub.path()).add(Idea::new("memory consolidation", None, ts("2026-01-06T15:00:00Z"))).unwrap();

        let mut src = ImpulseSources::of_hub(&open(hub.path()), ts("2026-01-07T00:00:00Z"));
        let c = src.check(ts("2026-01-07T10:00:01Z"), false);
        assert_eq!(c.impulses.len(), 1);
        assert_eq!(c.impulses[0].id, due.id);
        assert_eq!(c.impulses[0].priority, Some(1));
        // Not offered twice; no idea while busy.
        assert!(src.check(ts("2026-01-07T10:00:02Z"), false).impulses.is_empty());
        // Idle: the idea, once.
        let c = src.check(ts("2026-01-07T10:00:03Z"), true);
        assert_eq!(c.impulses.len(), 1);
        assert_eq!(c.impulses[0].source, ImpulseSource::Idea);
        assert!(src.check(ts("2026-01-07T10:00:04Z"), true).impulses.is_empty());
        assert_eq!(src.next_wake(ts("2026-01-07T10:00:05Z")), Some(ts("2026-02-01T00:00:00Z")));
    }

    #[test]
    fn a_schedule_firing_is_recorded_only_with_its_item() {
        let hub = tempfile::tempdir().unwrap();
        let sched = Schedule::of_hub(hub.path());
        std::fs::create_dir_all(hub.path().join("state")).unwrap();
        let entry = ScheduleEntry {
            name: "review".into(),
            cron: "0 9 * * *".into(),
            action: "look".into(),
            tz: None,
            catch_up: None,
            remind: None,
            until: None,
            stride: None,
            extra: serde_json::Map::new(),
        };
        sched.add(entry).unwrap().unwrap();
        let before = ScheduleState(
            [("review".to_string(), EntryState { last_fired: ts("2026-01-06T09:00:00Z") })].into_iter().collect(),
        );
        sched.save_state(&before).unwrap();
        let hub_ = open(hub.path());
        let mut src = ImpulseSources::of_hub(&hub_, ts("2026-01-07T08:00:00Z"));
        let fired = src.check(ts("2026-01-07T09:00:05Z"), false).impulses;
        assert_eq!(fired.len(), 1);
        // Fired, but the hub holds no item yet: the file still says the day before, and the
        // same process does not fire it again.
        assert_eq!(sched.load_state().unwrap(), before);
        assert!(src.check(ts("2026-01-07T09:00:10Z"), false).impulses.is_empty());
        // Another clone starting from this file (the item never reached it) fires it, once.
        let mut other = ImpulseSources::of_hub(&hub_, ts("2026-01-07T09:00:20Z"));
        let caught_up = other.check(ts("2026-01-07T09:00:30Z"), false).impulses;
        assert_eq!(caught_up.len(), 1);
        assert_eq!(caught_up[0].due, fired[0].due);
        // A restart of this one restores the impulse from its spool: not fired again.
        let mut restarted = ImpulseSources::of_hub(&hub_, ts("2026-01-07T09:01:00Z"));
        restarted.mark_offered(&fired[0]);
        assert!(restarted.check(ts("2026-01-07T09:01:05Z"), false).impulses.is_empty());
        // With its item in the hub, the firing is recorded.
        src.settle(&fired[0]).unwrap();
        assert_eq!(sched.load_state().unwrap().0["review"].last_fired, ts("2026-01-07T09:00:00Z"));
        assert!(ImpulseSources::of_hub(&hub_, ts("2026-01-07T09:02:00Z"))
            .check(ts("2026-01-07T09:02:05Z"), false)
            .impulses
            .is_empty());
    }

    #[test]
    fn a_malformed_file_is_reported_once_and_left_alone() {
        let hub = tempfile::tempdir().unwrap();
        let path = hub.path().join("state/tasks.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "[{\"id\": 1}]").unwrap();
        let mut src = ImpulseSources::of_hub(&open(hub.path()), Timestamp::now());
        let c = src.check(Timestamp::now(), false);
        assert_eq!(c.problems.len(), 1);
        assert!(c.problems[0].contains("tasks.json") && c.problems[0].contains("[0].id"), "{:?}", c.problems);
        assert!(src.check(Timestamp::now(), false).problems.is_empty());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "[{\"id\": 1}]");
    }

    /// An impulse's data is its source's own thing, written as it was when it was a JSON
    /// value (a task's and an idea's fields; a firing's six), and read back typed.
    #[test]
    fn an_impulses_data_is_typed_and_written_as_before() {
        let mut task = Task::new("call the bank");
        task.due = Some(ts("2026-11-25T09:00:00Z"));
        task.source = Some("telegram:ada".into());
        let imp = |source, data| Impulse {
            id: "i-1".into(),
            source,
            summary: "s".into(),
            due: None,
            priority: None,
            context: None,
            at: ts("2026-11-25T00:00:00Z"),
            data: Some(Box::new(data)),
        };
        let due = imp(ImpulseSource::Task, Cause::Task(task.clone()));
        let written = serde_json::to_value(&due).unwrap();
        assert_eq!(written["data"], serde_json::to_value(&task).unwrap());
        assert_eq!(serde_json::from_value::<Impulse>(written).unwrap(), due);
        assert!(due.falls_due());
        assert_eq!(
            (due.filed_by(), due.thing_id(), due.what()),
            (Some("telegram:ada"), Some(task.id.as_str()), Some("call the bank"))
        );
        let fired = Fired {
            name: "standup".into(),
            cron: "0 9 * * *".into(),
            action: "post the standup".into(),
            scheduled: ts("2026-11-25T09:00:00Z"),
            late: false,
            cadence: None,
        };
        let firing = imp(ImpulseSource::Schedule, Cause::Schedule(fired));
        let written = serde_json::to_string(&firing).unwrap();
        assert!(
            written.contains(r#""data":{"name":"standup","cron":"0 9 * * *","action":"post the standup","scheduled":"2026-11-25T09:00:00Z","late":false,"cadence":null}"#),
            "{written}"
        );
        assert_eq!(serde_json::from_str::<Impulse>(&written).unwrap(), firing);
        assert_eq!((schedule_name(&firing), firing.filed_by(), firing.falls_due()), (Some("standup"), None, false));
    }

    /// A spooled impulse an older cn wrote loads: its data read as its source's (a firing's
    /// `cadence` that is no string is none); data that reads as none is none, never a panic.
    #[test]
    fn an_older_spooled_impulse_loads() {
        let line = |source: &str, data: Value| serde_json::json!({"id": "i-1", "source": source, "summary": "s", "at": "2026-11-25T00:00:00Z", "data": data});
        let old = line(
            "schedule",
            serde_json::json!({"name": "weekly", "cron": "0 9 * * 1", "action": "reflect", "scheduled": "2026-11-23T09:00:00Z", "late": true, "cadence": 7}),
        );
        let old: Impulse = serde_json::from_value(old).unwrap();
        let fired = old.fired().unwrap();
        assert_eq!((fired.name.as_str(), fired.late, fired.cadence.as_deref()), ("weekly", true, None));
        let old: Impulse =
            serde_json::from_value(line("schedule", serde_json::json!({"name": "weekly", "cadence": "weekly"})))
                .unwrap();
        assert_eq!((old.data, old.summary.as_str()), (None, "s"));
        let no_cadence = serde_json::json!({"name": "daily", "cron": "0 9 * * *", "action": "a", "scheduled": "2026-11-23T09:00:00Z", "late": false});
        let old: Impulse = serde_json::from_value(line("schedule", no_cadence)).unwrap();
        assert_eq!(old.fired().map(|f| (f.name.as_str(), f.cadence.as_deref())), Some(("daily", None)));
        for (source, data) in
            [("task", serde_json::json!({"task": 5})), ("idea", Value::Null), ("task", serde_json::json!([]))]
        {
            let old: Impulse = serde_json::from_value(line(source, data)).unwrap();
            assert_eq!((old.data.as_ref(), old.what()), (None, None), "{source}");
        }
        let idea: Impulse =
            serde_json::from_value(line("idea", serde_json::json!({"id": "idea-1", "idea": "tides", "source": "bob"})))
                .unwrap();
        assert_eq!((idea.thing_id(), idea.filed_by(), idea.what()), (Some("idea-1"), Some("bob"), Some("tides")));
    }
}
