//! A cloneable stop token: set by a signal handler (or a test), read by `loop` between acts,
//! and waited on by a pacing `rest` so that shutdown never waits out a sleep.

use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

#[derive(Clone, Default, Debug)]
pub struct StopToken {
    inner: Arc<(Mutex<bool>, Condvar)>,
}

impl StopToken {
    pub fn new() -> Self {
        Self::default()
    }
    /// Ask the loop to stop after the current act.
    pub fn stop(&self) {
        let (lock, cvar) = &*self.inner;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) = true;
        cvar.notify_all();
    }
    pub fn is_stopped(&self) -> bool {
        *self.inner.0.lock().unwrap_or_else(|p| p.into_inner())
    }
    /// Sleep up to `timeout`, waking early on stop. Returns true if stopped.
    pub fn wait(&self, timeout: Duration) -> bool {
        let (lock, cvar) = &*self.inner;
        let guard = lock.lock().unwrap_or_else(|p| p.into_inner());
        let (guard, _) =
            cvar.wait_timeout_while(guard, timeout, |stopped| !*stopped).unwrap_or_else(|p| p.into_inner());
        *guard
    }
}
