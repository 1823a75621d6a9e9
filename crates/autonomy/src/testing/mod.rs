//! Fakes for tests, compiled only with the `testing` feature: [`discord`] is a Discord
//! gateway and HTTP API on loopback that the Discord sense (and a whole `cn run` daemon)
//! can be pointed at; [`telegram`] is a Telegram Bot API; both record what they receive in
//! a [`Recorder`]. Nothing here is used by the crate itself.

pub mod discord;
pub mod telegram;

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// What a fake received, in order. Tests wait on it with a deadline ([`Recorder::wait`]),
/// never for a fixed time.
pub struct Recorder<T> {
    seen: Mutex<Vec<T>>,
    changed: Condvar,
    deadline: Duration,
}

impl<T: Clone + std::fmt::Debug> Recorder<T> {
    /// A recorder whose [`Recorder::wait`] gives up after `deadline`.
    pub fn new(deadline: Duration) -> Self {
        Recorder { seen: Mutex::new(Vec::new()), changed: Condvar::new(), deadline }
    }

    pub(crate) fn push(&self, s: T) {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner).push(s);
        self.changed.notify_all();
    }

    /// Wait (at most the deadline) until `cond` holds for what was received; return it.
    /// Panics naming `what`, with everything received, when the deadline passes.
    pub fn wait(&self, what: &str, cond: impl Fn(&[T]) -> bool) -> Vec<T> {
        let deadline = Instant::now() + self.deadline;
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        while !cond(&seen) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "timed out waiting for {what}; received: {:#?}", *seen);
            seen = self.changed.wait_timeout(seen, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        seen.clone()
    }

    /// Everything received so far.
    pub fn all(&self) -> Vec<T> {
        self.seen.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
