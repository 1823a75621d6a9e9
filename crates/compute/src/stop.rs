//! A cloneable stop token: set by a signal handler (or a test), read by `loop` between acts,
//! and waited on by a pacing `rest` so that shutdown never waits out a sleep. A child token
//! ([`StopToken::child`]) stops with its parent and can also be stopped alone: the daemon of
//! one lease term stops when the person stops `cn run`, or when the lease is lost.

use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::Duration;

#[derive(Clone, Default, Debug)]
pub struct StopToken {
    inner: Arc<Inner>,
}

#[derive(Default, Debug)]
struct Inner {
    state: Mutex<State>,
    cvar: Condvar,
}

#[derive(Default, Debug)]
struct State {
    stopped: bool,
    children: Vec<Weak<Inner>>,
}

impl Inner {
    fn stop(&self) {
        let children = {
            let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
            s.stopped = true;
            std::mem::take(&mut s.children)
        };
        self.cvar.notify_all();
        for child in children.iter().filter_map(Weak::upgrade) {
            child.stop();
        }
    }
}

impl StopToken {
    pub fn new() -> Self {
        Self::default()
    }
    /// Ask the loop to stop after the current act.
    pub fn stop(&self) {
        self.inner.stop();
    }
    pub fn is_stopped(&self) -> bool {
        self.inner.state.lock().unwrap_or_else(|p| p.into_inner()).stopped
    }
    /// Sleep up to `timeout`, waking early on stop. Returns true if stopped.
    pub fn wait(&self, timeout: Duration) -> bool {
        let guard = self.inner.state.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) =
            self.inner.cvar.wait_timeout_while(guard, timeout, |s| !s.stopped).unwrap_or_else(|p| p.into_inner());
        guard.stopped
    }
    /// A token that is stopped when this one is (at once, if it is already), and that can be
    /// stopped alone without stopping this one.
    pub fn child(&self) -> StopToken {
        let child = StopToken::new();
        let mut s = self.inner.state.lock().unwrap_or_else(|p| p.into_inner());
        if s.stopped {
            drop(s);
            child.stop();
        } else {
            s.children.retain(|c| c.strong_count() > 0);
            s.children.push(Arc::downgrade(&child.inner));
        }
        child
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_stops_with_its_parent_but_not_the_other_way() {
        let parent = StopToken::new();
        let child = parent.child();
        child.stop();
        assert!(child.is_stopped() && !parent.is_stopped());
        let second = parent.child();
        assert!(!second.is_stopped());
        parent.stop();
        assert!(second.is_stopped() && second.wait(Duration::from_secs(5)));
        assert!(parent.child().is_stopped(), "a child of a stopped token is born stopped");
    }
}
