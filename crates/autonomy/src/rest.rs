//! Pacing for the daemon: the `rest` decorator. The document's loop runs "every N seconds
//! (adaptive: 5s active, 60s idle)"; here rest waits for whichever comes first — a new
//! percept or impulse admitted to attention, the pacing interval, the next scheduled wake-up,
//! or stop. Event-driven: one condition variable, no polling.
//!
//! Invariant: a stop request ends a rest at once, so shutdown never waits out an interval.

use std::time::Duration;

use cn_compute::{Decorator, RestFn, StopToken};

use crate::attention::{Attention, Wake};

pub use cn_hub::config::Pacing;

/// The pacing interval for the next rest: `active` while there is work (an item was decided
/// within the idle interval), else `idle`.
pub fn interval(pacing: &Pacing, attention: &Attention) -> Duration {
    if attention.active_within(pacing.idle) {
        pacing.active
    } else {
        pacing.idle
    }
}

/// Wait one pacing interval on `attention` (see [`Attention::rest`]). Returns why it ended.
pub fn rest_once(attention: &Attention, pacing: &Pacing) -> Wake {
    attention.rest(interval(pacing, attention))
}

/// The daemon's `rest` decorator. `stop` is bridged to `attention` by a thread that sleeps
/// on the stop token (no CPU while it sleeps), so a stop wakes a rest at once.
pub fn rest_decorator(attention: Attention, pacing: Pacing, stop: StopToken) -> Decorator {
    bridge_stop(&attention, stop);
    rest_on(attention, pacing)
}

/// [`rest_decorator`] for an attention whose stop is already bridged (the daemon keeps one
/// attention, and one bridge, across the configurations it runs).
pub fn rest_on(attention: Attention, pacing: Pacing) -> Decorator {
    Decorator::Rest(Box::new(move |mut inner: RestFn| -> RestFn {
        Box::new(move || {
            inner();
            let wake = rest_once(&attention, &pacing);
            tracing::debug!(?wake, "rest ended");
        })
    }))
}

/// Stop `attention` when `stop` is set.
pub fn bridge_stop(attention: &Attention, stop: StopToken) {
    let attention = attention.clone();
    let spawned = std::thread::Builder::new().name("cn-stop-bridge".into()).spawn(move || {
        // Wake rarely (once an hour) just to re-arm; stop itself wakes it at once.
        while !stop.wait(Duration::from_secs(3600)) {}
        attention.stop();
    });
    if let Err(e) = spawned {
        tracing::error!(e = %cn_compute::Chain(&e), "cannot start the stop bridge; rests will end only by timeout or percept");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::PoolConfig;
    use crate::percept::Percept;
    use cn_hub::Sense;
    use std::time::Instant;

    #[test]
    fn rest_ends_on_percept_and_on_stop_long_before_the_interval() {
        let attention = Attention::new(PoolConfig::default());
        let pacing = Pacing { active: Duration::from_secs(300), idle: Duration::from_secs(300), ..Pacing::default() };
        let stop = StopToken::new();
        let Decorator::Rest(wrap) = rest_decorator(attention.clone(), pacing, stop.clone()) else { unreachable!() };
        let mut rest = wrap(Box::new(|| {}));
        let a = attention.clone();
        let started = Instant::now();
        let sender = std::thread::spawn(move || {
            // Admit once the rest is (very likely) waiting; the rest is correct either way.
            a.admit(Percept::new(Sense::Chat, "wake up"));
        });
        rest();
        sender.join().unwrap();
        assert!(started.elapsed() < Duration::from_secs(60));
        attention.decide(jiff::Timestamp::now()).unwrap();

        let s = stop.clone();
        let stopper = std::thread::spawn(move || s.stop());
        rest();
        stopper.join().unwrap();
        assert!(started.elapsed() < Duration::from_secs(60));
    }

    #[test]
    fn an_item_left_pooled_wakes_one_rest_not_every_rest() {
        let attention = Attention::new(PoolConfig::default());
        attention.decide(jiff::Timestamp::now());
        attention.admit(Percept::new(Sense::Github, "waits for budget"));
        let pacing = Pacing { active: Duration::from_millis(30), idle: Duration::from_millis(30), ..Pacing::default() };
        assert_eq!(rest_once(&attention, &pacing), Wake::Admitted, "admitted after decide: wake at once");
        assert_eq!(rest_once(&attention, &pacing), Wake::Timeout, "nothing new: a full interval");
    }

    #[test]
    fn wake_at_ends_a_rest_early() {
        let attention = Attention::new(PoolConfig::default());
        attention.wake_at(Some(Instant::now() + Duration::from_millis(20)));
        let pacing = Pacing { active: Duration::from_secs(300), idle: Duration::from_secs(300), ..Pacing::default() };
        assert_eq!(rest_once(&attention, &pacing), Wake::Timeout);
    }
}
