//! The hub repository's upkeep while the daemon runs.
//!
//! Every decision is a commit, and a commit of an append-only file (the journal, the
//! interactions log) stores the whole file again as a loose object: over a busy hour that is
//! gigabytes. The per-item commit skips git's automatic maintenance (its latency is paid on
//! every decision), so the daemon runs it itself: when it rests after deciding items, and at
//! the latest every [`EVERY`] decisions. `git maintenance run --auto` does nothing until git's
//! own thresholds are passed, then packs the loose objects (appends delta-compress to almost
//! nothing).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cn_git::Git;

/// Decisions between two maintenance runs when the daemon never goes idle.
pub const EVERY: u64 = 200;

/// A rest decorator: before resting, maintain the repository if items were decided since the
/// last run and the daemon is idle (or [`EVERY`] decisions have passed). Failures are logged.
pub fn maintain_repository(
    git: Git,
    idle: impl Fn() -> bool + Send + 'static,
    handled: Arc<AtomicU64>,
) -> cn_compute::Decorator {
    let mut last = handled.load(Ordering::Relaxed);
    cn_compute::Decorator::Rest(Box::new(move |mut inner: cn_compute::RestFn| -> cn_compute::RestFn {
        Box::new(move || {
            let now = handled.load(Ordering::Relaxed);
            if due(last, now, idle()) {
                git.maintain();
                last = now;
            }
            inner();
        })
    }))
}

fn due(last: u64, now: u64, idle: bool) -> bool {
    let since = now.saturating_sub(last);
    since >= EVERY || (since > 0 && idle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maintenance_follows_decisions_not_time() {
        assert!(!due(5, 5, true), "nothing decided since the last run: nothing to pack");
        assert!(due(5, 6, true), "idle after a decision");
        assert!(!due(5, 6, false), "busy: wait for the rest");
        assert!(due(0, EVERY, false), "never idle: every EVERY decisions");
    }
}
