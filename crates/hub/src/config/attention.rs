//! `pacing:` and `attention:` (cn-autonomy): the daemon's rest and the attention pool.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;

/// Pacing intervals (`pacing:`; `5s`, `1m`, or seconds as a number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Pacing {
    /// Between checks while there is work (an item was decided within the idle interval).
    #[serde(with = "duration")]
    pub active: Duration,
    /// Between checks when nothing is happening.
    #[serde(with = "duration")]
    pub idle: Duration,
    /// When an item the daemon deferred on its own (the move limit, an exhausted budget)
    /// comes back to the queue: this long after. Nothing is parked forever.
    #[serde(with = "duration")]
    pub retry_deferred: Duration,
}

impl Default for Pacing {
    fn default() -> Self {
        Pacing {
            active: Duration::from_secs(5),
            idle: Duration::from_secs(60),
            retry_deferred: Duration::from_secs(3600),
        }
    }
}

/// Pool settings (`attention:`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PoolConfig {
    /// Most non-owner items held at once; beyond it the least salient are shed.
    pub capacity: usize,
    /// How many recently decided keys count as "seen" (novelty).
    pub recent: usize,
    pub weights: Weights,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig { capacity: 1000, recent: 256, weights: Weights::default() }
    }
}

/// The salience weights (`attention.weights`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Weights {
    pub owner: f64,
    pub discord: f64,
    pub telegram: f64,
    pub email: f64,
    pub github: f64,
    pub calendar: f64,
    pub file: f64,
    pub peer: f64,
    pub task: f64,
    pub schedule: f64,
    pub idea: f64,
    /// Added for an item with a due time.
    pub due: f64,
    /// Per step of priority above 5 (priority 1 gets 4 steps).
    pub priority: f64,
    /// Gained per minute waited (or overdue).
    pub per_minute: f64,
    /// Taken off an item whose key was decided recently (not novel).
    pub repeat: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            owner: 1000.0,
            discord: 50.0,
            telegram: 50.0,
            email: 45.0,
            github: 40.0,
            calendar: 45.0,
            file: 10.0,
            peer: 60.0,
            task: 35.0,
            schedule: 30.0,
            idea: 5.0,
            due: 20.0,
            priority: 10.0,
            per_minute: 0.5,
            repeat: 15.0,
        }
    }
}
