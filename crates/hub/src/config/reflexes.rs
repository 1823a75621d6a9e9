//! `reflexes:` (cn-reflex): reflex health, grants, and how learned reflexes earn the right
//! to act.

use std::collections::BTreeMap;

use cn_compute::Level;
use serde::{Deserialize, Serialize};

use super::{or_default, Grant};

/// The `reflexes:` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReflexConfig {
    /// Failure rate (0–1) above which a reflex is disabled and surfaced.
    pub disable_above: f64,
    /// Runs since it was last enabled before the failure rate is judged.
    pub min_samples: u64,
    /// Base URL of the GitHub API (a test or GitHub Enterprise points it elsewhere).
    pub github_api: String,
    /// A `local_prompt` longer than this many characters is cut to it.
    pub prompt_max_chars: usize,
    /// Level → actions a reflex of that level may run. By default every action whose own
    /// level is at most the reflex's level (`write_file` and `shell` only when named); each
    /// level named here replaces that level's default, the others keep theirs.
    pub grants: Option<BTreeMap<Level, Grant>>,
    /// The hub's time zone (IANA, e.g. `Europe/Paris`) for due times read from messages and
    /// the clock; absent means the system's.
    pub time_zone: Option<String>,
    /// Reflexes learned from the executive: shadow mode, promotion, proposals.
    #[serde(deserialize_with = "or_default")]
    pub learn: LearnConfig,
}

/// `reflexes.learn:` — how reflexes learned from the executive earn the right to act.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LearnConfig {
    /// Agreements with the executive (on distinct messages) after which a shadow reflex is
    /// promoted to active by itself; 0: only the owner promotes (`cn reflex approve`).
    pub promote_after: u64,
    /// A promoted learned reflex is checked again every Nth item it takes (that item also
    /// goes to the executive, the reflex in shadow); a disagreement demotes it. 0: never.
    pub check_every: u64,
    /// Executive decisions of one shape after which cn proposes (in shadow) the reflex that
    /// would have made them; 0: never.
    pub propose_after: u64,
}

impl Default for LearnConfig {
    fn default() -> Self {
        LearnConfig { promote_after: 10, check_every: 20, propose_after: 3 }
    }
}

impl Default for ReflexConfig {
    fn default() -> Self {
        ReflexConfig {
            disable_above: 0.5,
            min_samples: 10,
            github_api: "https://api.github.com".into(),
            prompt_max_chars: 6000,
            grants: None,
            time_zone: None,
            learn: LearnConfig::default(),
        }
    }
}
