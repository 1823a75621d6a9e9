//! Helpers shared by the senses' integration tests.

use std::time::{Duration, Instant};

use cn_autonomy::attention::Attention;

/// Wait (bounded) until the pool satisfies `cond`.
pub fn wait_until(attention: &Attention, what: &str, mut cond: impl FnMut(&Attention) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let seen = attention.generation();
        if cond(attention) {
            return;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "timed out waiting for {what}");
        attention.wait(seen, left);
    }
}
