//! autonomy — the agent working on its own (document 003): senses and impulses feed one
//! attention pool; attention picks the most salient item; the journal records why.
//!
//! - [`percept`]: `Percept`, something sensed; [`senses`]: the clients that sense them, each
//!   a `Sense`; [`channel`]: `Channel`, a place to answer (the typing indicator, the reply),
//!   and `Channels`, the one router of answers.
//! - [`impulses`]: `Impulse`, internal motivation from `tasks.json`, `schedule.json`,
//!   `ideas.json`; [`cron`]: standard five-field cron (`cn_cron`, as the hub reads it).
//! - [`attention`]: the bounded pool, `Salience`, the shared [`Attention`] handle.
//! - [`journal`]: the document's entry types, and the "what?" / "why?" queries.
//! - [`autonomous`]: `AutonomousLoop`, the document's autonomous loop, steps 1–2 (step 3,
//!   choosing and working on an item, is the hub's mind in cn-daemon).
//! - [`rest`]: the daemon's event-driven pacing (`rest` decorator).
//! - `testing` (feature `testing`): fakes for tests — a Discord gateway and API, and a Telegram
//!   Bot API, on loopback.
//!
//! Invariants: owner items are never shed and always come out first; every state file is
//! written atomically and a malformed one is reported, never overwritten.

pub mod attention;
pub mod autonomous;
#[cfg(feature = "senses")]
pub mod channel;
pub mod config;
pub use cn_hub::cron;
pub mod hub;
pub mod impulses;
pub mod journal;
pub mod notes;
pub mod percept;
pub mod rest;
#[cfg(feature = "senses")]
pub mod senses;
pub mod state;
#[cfg(feature = "testing")]
pub mod testing;

/// The variable that names a file of scripted level-2 answers for `cn reflex test`: `Some`
/// only in a build with the `testing` feature (turned on by cn's dev-dependencies, so only in
/// the binary cn's tests run); the shipping binary has no such variable, so no environment
/// can swap its model for a script.
#[cfg(feature = "testing")]
pub const SCRIPTED_ANSWERS_ENV: Option<&str> = Some("CN_SCRIPTED_ANSWERS");
/// See above: off in this build.
#[cfg(not(feature = "testing"))]
pub const SCRIPTED_ANSWERS_ENV: Option<&str> = None;

pub use attention::{Admission, Attention, Candidate, Input, Pool, PoolConfig, Salience, Wake};
pub use autonomous::AutonomousLoop;
#[cfg(feature = "senses")]
pub use channel::{Channel, Channels};
pub use config::AutonomyConfig;
pub use impulses::{Impulse, ImpulseSource, ImpulseSources};
/// The time library of this crate's API (timestamps, zones), re-exported so callers agree on it.
pub use jiff;
pub use percept::Percept;
pub use rest::{rest_decorator, Pacing};
#[cfg(feature = "senses")]
pub use senses::Senses;
pub use state::StateError;
