//! `loops:` (cn-loops).

use serde::{Deserialize, Serialize};

/// The `loops:` section: the components `cn loop` uses when task.md names none. Kept as
/// values: cn-loops parses a component spec the same way from task.md and from here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoopsConfig {
    pub controller: Option<serde_json::Value>,
    pub actuator: Option<serde_json::Value>,
}
