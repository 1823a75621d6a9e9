//! The loop's state: what every verb reads and writes.
//!
//! It sits in its own module, below `prepare` and the verbs, so that `prepare` (which builds
//! it and wraps the verbs) and the verbs (which take it) depend on it and not on each other.
//! `prepare` initializes it; afterwards only the verbs change it.

use std::path::PathBuf;

use crate::{Config, Level, Mind, Model, Outcomes, StopToken, Store, Tools};

/// The loop's state: the working directory, the config, the parts and what just happened.
pub struct State {
    pub workdir: PathBuf,
    pub config: Config,
    pub mind: Box<dyn Mind>,
    pub model: Box<dyn Model>,
    pub tools: Box<dyn Tools>,
    pub store: Box<dyn Store>,
    pub outcomes: Outcomes,
    /// The level of the move in progress (set by `plan`, read by `act`).
    pub level: Level,
    /// Moves made so far.
    pub moves: u64,
    pub stop: StopToken,
}
