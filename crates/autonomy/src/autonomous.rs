//! The document's autonomous loop, steps 1–2, as one handle the daemon's `decide` uses:
//! check the impulse sources and admit what they yield to attention — journaling every
//! schedule time skipped, every problem with a state file, and every flood. Step 3 (take the
//! most salient item, journal why, hand it to the hub) is `HubMind::decide` in cn-daemon's `mind.rs`,
//! which journals the choice under the hub item's id.
//!
//! Invariant: an item leaves the durable queue (attention's spool) only once the hub holds
//! it; impulses restored from the spool after a restart are not offered a second time.

use std::io;
use std::time::{Duration, Instant};

use cn_hub::journal::HubJournal;
use jiff::Timestamp;

use crate::attention::Attention;
use crate::config::AutonomyConfig;
use crate::impulses::ImpulseSources;
use crate::journal::{self, Kind, Record};
use crate::rest::Pacing;

/// Attention, the impulse sources and the journal of one hub.
pub struct AutonomousLoop {
    pub attention: Attention,
    pub impulses: ImpulseSources,
    pub pacing: Pacing,
    journal: HubJournal,
    /// Reminders the last gathers found due, for the daemon to tell ([`Self::take_reminders`]).
    reminders: Vec<crate::impulses::Task>,
}

impl AutonomousLoop {
    /// Open a hub: the durable queue `state/attention.jsonl` (what was pending comes back),
    /// the journal `state/journal.jsonl`, and the impulse files. Returns it and how many
    /// items were restored.
    pub fn open(hub: &cn_hub::Hub, config: &AutonomyConfig) -> io::Result<(Self, usize)> {
        let (attention, restored) = Attention::durable(config.attention.clone(), &hub.layout().attention())?;
        Ok((AutonomousLoop::with_attention(hub, config, attention)?, restored))
    }

    /// The loop over an attention that already runs — the daemon's, kept (with what it holds)
    /// when cn.yaml changes under it: its pool takes `config.attention`, and the impulse
    /// sources are read again, marking what the pool holds as offered.
    pub fn with_attention(hub: &cn_hub::Hub, config: &AutonomyConfig, attention: Attention) -> io::Result<Self> {
        let layout = hub.layout();
        attention.with_pool(|pool| pool.set_config(config.attention.clone()));
        match cn_hub::owner_token::id_key(layout) {
            Ok(key) => attention.key_ids_with(key),
            Err(e) => tracing::warn!(e = %cn_compute::Chain(&e), "no id key: a message delivered again gets a new id"),
        }
        let journal = layout.open_journal().map_err(|e| io::Error::new(e.source.kind(), e))?;
        let mut impulses = ImpulseSources::of_hub(hub, Timestamp::now());
        attention.with_pool(|pool| {
            for pooled in pool.iter() {
                if let crate::Input::Impulse(i) = &pooled.item {
                    impulses.mark_offered(i);
                }
            }
        });
        Ok(AutonomousLoop { attention, impulses, pacing: config.pacing, journal, reminders: Vec::new() })
    }

    /// Steps 1–2: check the impulse sources (ideas only when `idle`), admit what is due.
    /// Returns how many impulses were admitted.
    pub fn gather(&mut self, now: Timestamp, idle: bool) -> usize {
        let check = self.impulses.check(now, idle);
        for (entry, at) in &check.skipped {
            self.write(&journal::schedule_skipped(&entry.name, &entry.action, &entry.cron, *at));
        }
        for problem in &check.problems {
            self.record(
                Record::new(Kind::Observation, cn_hub::id::prefixed("problem"), "a state file could not be used")
                    .context(problem.clone())
                    .outcome("skipped until fixed"),
            );
        }
        self.reminders.extend(check.reminders);
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

    /// The reminders found due and not taken yet: the daemon tells each where it was asked.
    pub fn take_reminders(&mut self) -> Vec<crate::impulses::Task> {
        std::mem::take(&mut self.reminders)
    }

    /// Append one record to the journal (a failure is logged, never fatal to the loop).
    pub fn record(&mut self, r: Record) {
        self.write(&r);
    }

    /// Append one typed record to the journal (a failure is logged, never fatal to the loop).
    pub fn write<T: cn_storage::Typed + ?Sized>(&mut self, record: &T) {
        if let Err(e) = self.journal.write(record) {
            tracing::error!(path = %self.journal.path().display(), e = %cn_compute::Chain(&e), "cannot write the journal");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impulses::{tasks_of, Task};
    use crate::percept::Percept;
    use cn_hub::Sense;

    /// The hub in `dir`, with the cn.yaml it needs to open.
    fn open(dir: &std::path::Path) -> cn_hub::Hub {
        std::fs::write(dir.join("cn.yaml"), "name: t\n").unwrap();
        cn_hub::Hub::open(dir).unwrap()
    }

    #[test]
    fn a_due_task_is_admitted_once_and_survives_a_restart_without_being_offered_again() {
        let hub = tempfile::tempdir().unwrap();
        let mut t = Task::new("Review PR #42");
        t.due = Some("2026-01-07T10:00:00Z".parse().unwrap());
        tasks_of(hub.path()).add(t.clone()).unwrap();
        let (mut a, restored) = AutonomousLoop::open(&open(hub.path()), &AutonomyConfig::default()).unwrap();
        assert_eq!(restored, 0);
        assert_eq!(a.gather(Timestamp::now(), false), 1);
        assert_eq!(a.gather(Timestamp::now(), false), 0, "offered once per due time");
        a.attention.admit(Percept::new(Sense::Chat, "Owner: hello"));
        let first = a.attention.decide(Timestamp::now()).unwrap();
        assert!(first.item.owner(), "the owner comes first");
        a.attention.done(&first);
        drop(a);
        // The task is still queued after a restart, and not offered (nor coalesced) again.
        let (mut a, restored) = AutonomousLoop::open(&open(hub.path()), &AutonomyConfig::default()).unwrap();
        assert_eq!(restored, 1);
        assert_eq!(a.gather(Timestamp::now(), false), 0);
        let task = a.attention.decide(Timestamp::now()).unwrap();
        assert_eq!(task.item.id(), t.id);
        assert!(journal::selected(&task, None).record.reasoning.unwrap().starts_with("salience "));
        let read = HubJournal::read(&hub.path().join("state")).unwrap();
        assert!(read
            .entries
            .iter()
            .all(|e| !e.0["summary"].as_str().unwrap_or("").starts_with("attention under a flood")));
    }
}
