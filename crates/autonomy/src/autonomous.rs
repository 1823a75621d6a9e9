//! The document's autonomous loop, steps 1–3, as one handle the daemon's `decide` calls:
//! check the impulse sources, admit what they yield to attention, and take the most salient
//! item — journaling each choice (with its salience explanation), every schedule time skipped,
//! every problem with a state file, and every flood. The daemon then works on the item and
//! calls [`Autonomous::close`] with the decision that closed it.
//!
//! Invariant: an item leaves the durable queue only through `close`, after its decision is
//! in the journal.

use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

use cn_storage::Journal;
use jiff::Timestamp;

use crate::attention::{Attention, Candidate};
use crate::config::AutonomyConfig;
use crate::impulses::ImpulseSources;
use crate::journal::{self, Kind, Record};
use crate::rest::Pacing;

/// Attention, the impulse sources and the journal of one hub.
pub struct Autonomous {
    pub attention: Attention,
    pub impulses: ImpulseSources,
    pub pacing: Pacing,
    journal: Journal,
}

impl Autonomous {
    /// Open a hub: the durable queue `state/attention.jsonl` (what was pending comes back),
    /// the journal `state/journal.jsonl`, and the impulse files. Returns it and how many
    /// items were restored.
    pub fn open(hub: &Path, config: &AutonomyConfig) -> io::Result<(Self, usize)> {
        let state = crate::hub::state_dir(hub);
        let (attention, restored) = Attention::durable(config.attention.clone(), &state.join("attention.jsonl"))?;
        let journal = Journal::open(state.join("journal.jsonl"))?;
        let mut impulses = ImpulseSources::of_hub(hub, Timestamp::now());
        attention.with_pool(|pool| {
            for pooled in pool.iter() {
                if let crate::Item::Impulse(i) = &pooled.item {
                    impulses.mark_offered(i);
                }
            }
        });
        let me = Autonomous { attention, impulses, pacing: config.pacing, journal };
        Ok((me, restored))
    }

    /// Steps 1–2: check the impulse sources (ideas only when `idle`), admit what is due.
    /// Returns how many impulses were admitted.
    pub fn gather(&mut self, now: Timestamp, idle: bool) -> usize {
        let check = self.impulses.check(now, idle);
        for (entry, at) in &check.skipped {
            self.record(journal::schedule_skipped(&entry.name, &entry.cron, *at));
        }
        for problem in &check.problems {
            self.record(
                Record::new(Kind::Observation, crate::new_id("problem"), "a state file could not be used")
                    .context(problem.clone())
                    .outcome("skipped until fixed"),
            );
        }
        let n = check.impulses.len();
        for impulse in check.impulses {
            self.attention.admit(impulse);
        }
        if let Some(report) = self.attention.with_pool(|p| p.take_flood_report()) {
            self.record(journal::flood(&report));
        }
        // Wake the next rest for the next due task or schedule fire.
        let wake = self.impulses.next_wake(now).and_then(|t| Duration::try_from(now.duration_until(t)).ok());
        self.attention.wake_at(wake.map(|d| Instant::now() + d));
        n
    }

    /// Step 3: the most salient item, journaled with why it was chosen.
    pub fn select(&mut self, now: Timestamp) -> Option<Candidate> {
        let c = self.attention.decide(now)?;
        self.record(journal::selected(&c));
        Some(c)
    }

    /// The decision that closed `c`: journaled (with `c`'s id), then `c` leaves the queue.
    pub fn close(&mut self, c: &Candidate, decision: Record) {
        let decision = Record { id: c.item.id().to_string(), ..decision };
        self.record(decision);
        self.attention.done(c);
        if let crate::Item::Impulse(i) = &c.item {
            self.impulses.release(&i.id);
        }
    }

    /// Put `c` back (deferred, e.g. its move limit was reached), with the reason journaled.
    pub fn defer(&mut self, c: Candidate, reason: &str) {
        self.record(Record::new(Kind::Decision, c.item.id(), format!("deferred: {}", c.item.summary())).reasoning(reason).outcome("deferred"));
        self.attention.done(&c);
        self.attention.admit(c.item);
    }

    /// Append one record to the journal (a failure is logged, never fatal to the loop).
    pub fn record(&mut self, r: Record) {
        self.append(&r.into_entry());
    }

    /// Append one entry to the journal (a failure is logged, never fatal to the loop).
    pub fn append(&mut self, entry: &cn_storage::Entry) {
        if let Err(e) = self.journal.append(entry) {
            tracing::error!(path = %self.journal.path().display(), %e, "cannot write the journal");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impulses::{tasks_of, Task};
    use crate::percept::{Percept, Sense};

    #[test]
    fn a_due_task_and_an_owner_message_are_chosen_explained_and_closed() {
        let hub = tempfile::tempdir().unwrap();
        let mut t = Task::new("Review PR #42");
        t.due = Some("2026-01-07T10:00:00Z".parse().unwrap());
        tasks_of(hub.path()).add(t.clone()).unwrap();
        let (mut a, restored) = Autonomous::open(hub.path(), &AutonomyConfig::default()).unwrap();
        assert_eq!(restored, 0);
        assert_eq!(a.gather(Timestamp::now(), false), 1);
        a.attention.admit(Percept::new(Sense::Owner, "Owner: hello"));
        let first = a.select(Timestamp::now()).unwrap();
        assert!(first.item.owner());
        a.close(&first, Record::new(Kind::Decision, "", "reply: hi").outcome("replied"));
        let task = a.select(Timestamp::now()).unwrap();
        assert_eq!(task.item.id(), t.id);
        a.defer(task, "move limit reached");
        drop(a);
        // The deferred task is still queued after a restart.
        let (_, restored) = Autonomous::open(hub.path(), &AutonomyConfig::default()).unwrap();
        assert_eq!(restored, 1);
        let read = Journal::read(&hub.path().join("state/journal.jsonl")).unwrap();
        let chain = journal::why(&read.entries, &t.id);
        assert_eq!(chain.iter().map(|e| e.kind()).collect::<Vec<_>>(), ["impulse", "decision"]);
        assert!(chain[0].0["reasoning"].as_str().unwrap().starts_with("salience "));
        assert_eq!(journal::why(&read.entries, first.item.id()).len(), 2);
    }
}
