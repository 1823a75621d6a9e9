//! Attention — one pool of percepts and impulses, scored by salience, the most salient
//! first. [`Attention`] is the shared handle: senses (on their own threads or tasks) admit
//! percepts through it, the daemon's `decide` takes from it, and its `rest` waits on it.
//!
//! Invariant: admitting never blocks on anything but the pool's lock, and it wakes a waiting
//! `rest` at once — a new percept is never left waiting out a pacing interval.

pub mod pool;
pub mod salience;

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::impulses::Impulse;
use crate::percept::Percept;
pub use pool::{Admission, Candidate, FloodReport, Pool, PoolConfig, Pooled};
pub use salience::{Salience, Weights};

/// Anything attention can choose: a percept or an impulse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Item {
    Percept(Percept),
    Impulse(Impulse),
}

impl Item {
    pub fn id(&self) -> &str {
        match self {
            Item::Percept(p) => &p.id,
            Item::Impulse(i) => &i.id,
        }
    }
    pub fn summary(&self) -> &str {
        match self {
            Item::Percept(p) => &p.summary,
            Item::Impulse(i) => &i.summary,
        }
    }
    pub fn owner(&self) -> bool {
        matches!(self, Item::Percept(p) if p.owner)
    }
    /// Items with the same key are the same thing again (coalesced in the pool).
    pub fn key(&self) -> Option<&str> {
        match self {
            Item::Percept(p) => p.key.as_deref(),
            // An impulse's id is stable per task / idea / schedule time.
            Item::Impulse(i) => Some(&i.id),
        }
    }
    pub fn at(&self) -> Timestamp {
        match self {
            Item::Percept(p) => p.at,
            Item::Impulse(i) => i.at,
        }
    }
    pub fn due(&self) -> Option<Timestamp> {
        match self {
            Item::Percept(p) => p.due,
            Item::Impulse(i) => i.due,
        }
    }
    pub fn priority(&self) -> Option<u8> {
        match self {
            Item::Percept(_) => None,
            Item::Impulse(i) => i.priority,
        }
    }
    /// `owner`, `github`, … for percepts; `task`, `schedule`, `idea` for impulses.
    pub fn source_name(&self) -> &'static str {
        match self {
            Item::Percept(p) => p.sense.name(),
            Item::Impulse(i) => i.source.name(),
        }
    }
}

impl From<Percept> for Item {
    fn from(p: Percept) -> Self {
        Item::Percept(p)
    }
}
impl From<Impulse> for Item {
    fn from(i: Impulse) -> Self {
        Item::Impulse(i)
    }
}

/// Why a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Something was admitted.
    Admitted,
    /// The timeout (or the wake-up deadline) passed.
    Timeout,
    /// Stop was requested.
    Stopped,
}

#[derive(Debug)]
struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Debug)]
struct State {
    pool: Pool,
    /// Bumped on every admission; a waiter compares it to see news.
    generation: u64,
    stopped: bool,
    /// When the pool last handed out an item (pacing: active or idle).
    last_decided: Option<Instant>,
    /// Wake a rest no later than this (the next schedule fire or task due time).
    wake_at: Option<Instant>,
}

/// The shared attention handle. Clone it for each sense.
#[derive(Debug, Clone)]
pub struct Attention {
    shared: Arc<Shared>,
}

impl Attention {
    pub fn new(config: PoolConfig) -> Self {
        Attention {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    pool: Pool::new(config),
                    generation: 0,
                    stopped: false,
                    last_decided: None,
                    wake_at: None,
                }),
                changed: Condvar::new(),
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere must not stop the senses; the pool's data stays consistent
        // because every mutation completes under the lock before it is released.
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Offer a percept or impulse; wakes a resting daemon.
    pub fn admit(&self, item: impl Into<Item>) -> Admission {
        let mut s = self.state();
        let admission = s.pool.admit(item.into());
        s.generation += 1;
        drop(s);
        self.shared.changed.notify_all();
        admission
    }

    /// Take the most salient item, if any.
    pub fn decide(&self, now: Timestamp) -> Option<Candidate> {
        let mut s = self.state();
        let c = s.pool.decide(now);
        if c.is_some() {
            s.last_decided = Some(Instant::now());
        }
        c
    }

    /// Work on the pool directly (peek, iterate, take the flood report).
    pub fn with_pool<R>(&self, f: impl FnOnce(&mut Pool) -> R) -> R {
        f(&mut self.state().pool)
    }

    pub fn len(&self) -> usize {
        self.state().pool.len()
    }
    pub fn is_empty(&self) -> bool {
        self.state().pool.is_empty()
    }

    /// Ask any waiter to return (shutdown).
    pub fn stop(&self) {
        self.state().stopped = true;
        self.shared.changed.notify_all();
    }

    /// Make the next rest end no later than `at` (e.g. the next scheduled fire).
    pub fn wake_at(&self, at: Option<Instant>) {
        self.state().wake_at = at;
        self.shared.changed.notify_all();
    }

    /// True if an item was decided within `window`.
    pub fn active_within(&self, window: Duration) -> bool {
        self.state().last_decided.is_some_and(|t| t.elapsed() < window)
    }

    /// The current generation, to pass to [`Attention::wait`].
    pub fn generation(&self) -> u64 {
        self.state().generation
    }

    /// Wait until something is admitted after `seen`, `timeout` (or the wake-up deadline)
    /// passes, or stop — whichever is first. No polling: a condition variable.
    pub fn wait(&self, seen: u64, timeout: Duration) -> Wake {
        let deadline = Instant::now() + timeout;
        let mut s = self.state();
        loop {
            if s.stopped {
                return Wake::Stopped;
            }
            if s.generation != seen {
                return Wake::Admitted;
            }
            let until = s.wake_at.map_or(deadline, |w| w.min(deadline));
            let now = Instant::now();
            if now >= until {
                if s.wake_at.is_some_and(|w| w <= now) {
                    s.wake_at = None;
                }
                return Wake::Timeout;
            }
            s = self.shared.changed.wait_timeout(s, until - now).unwrap_or_else(|p| p.into_inner()).0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::percept::Sense;

    #[test]
    fn a_burst_of_ten_thousand_stays_bounded_and_the_owner_comes_first() {
        let attention = Attention::new(PoolConfig { capacity: 500, ..PoolConfig::default() });
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let a = attention.clone();
                std::thread::spawn(move || {
                    for i in 0..2500 {
                        let sense = if i % 2 == 0 { Sense::Github } else { Sense::File };
                        let key = format!("k{t}-{}", i % 700);
                        a.admit(Percept::new(sense, format!("flood {t}/{i}")).key(key));
                        if t == 2 && i == 1200 {
                            a.admit(Percept::new(Sense::Owner, "owner: stop that"));
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(attention.len() <= 501, "pool grew to {}", attention.len());
        let first = attention.decide(Timestamp::now()).unwrap();
        assert_eq!(first.item.summary(), "owner: stop that");
        let report = attention.with_pool(|p| p.take_flood_report()).unwrap();
        // Every one of the 10,000 is accounted for: pooled, coalesced or shed.
        assert_eq!(attention.len() as u64 + report.coalesced + report.shed, 10_000);
    }

    #[test]
    fn wait_wakes_on_admission_and_on_stop() {
        let attention = Attention::new(PoolConfig::default());
        let seen = attention.generation();
        let a = attention.clone();
        let t = std::thread::spawn(move || a.wait(seen, Duration::from_secs(60)));
        attention.admit(Percept::new(Sense::Owner, "hi"));
        assert_eq!(t.join().unwrap(), Wake::Admitted);
        let seen = attention.generation();
        let a = attention.clone();
        let t = std::thread::spawn(move || a.wait(seen, Duration::from_secs(60)));
        attention.stop();
        assert_eq!(t.join().unwrap(), Wake::Stopped);
        assert_eq!(attention.wait(seen, Duration::from_millis(1)), Wake::Stopped);
    }
}
