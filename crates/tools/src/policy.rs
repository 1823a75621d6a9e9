//! Which tools each level may call. Loaded from `cn.yaml`'s `policy:` key; a level with no
//! grant may call nothing.
//!
//! ```yaml
//! policy:
//!   levels:
//!     2: [reply, noop, ack, defer]
//!     3: [cn.*, tasks.*, read_file]
//!   shell: false
//!   urls: [https://example.com/]
//! ```

use std::collections::BTreeMap;

use cn_compute::Level;
use serde::{Deserialize, Serialize};

/// The tool names (or `prefix*` globs) a level may call.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Grant(pub Vec<String>);

impl Grant {
    pub fn allows(&self, tool: &str) -> bool {
        self.0.iter().any(|g| match g.strip_suffix('*') {
            Some(prefix) => tool.starts_with(prefix),
            None => g == tool,
        })
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    /// Level → grant.
    pub levels: BTreeMap<Level, Grant>,
    /// Whether the `shell` action may run at all.
    pub shell: bool,
    /// If set, only URLs starting with one of these may be fetched.
    pub urls: Option<Vec<String>>,
    /// Largest file or response a tool may read, in bytes.
    pub max_bytes: Option<u64>,
    /// Longest a tool may run, in seconds.
    pub timeout_secs: Option<u64>,
}

impl Policy {
    pub fn allows(&self, level: Level, tool: &str) -> bool {
        self.levels.get(&level).is_some_and(|g| g.allows(tool))
    }

    /// Grant `tools` to `level` (used when building defaults).
    pub fn grant(mut self, level: Level, tools: &[&str]) -> Self {
        self.levels.entry(level).or_default().0.extend(tools.iter().map(|s| s.to_string()));
        self
    }

    pub fn url_allowed(&self, url: &str) -> bool {
        self.urls.as_ref().is_none_or(|list| list.iter().any(|p| url.starts_with(p.as_str())))
    }

    /// Read `policy:` from a config value; absent means the default (nothing granted).
    pub fn from_config(value: Option<&serde_json::Value>) -> Result<Policy, String> {
        match value {
            None | Some(serde_json::Value::Null) => Ok(Policy::default()),
            Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("cn.yaml `policy`: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grants_are_per_level_with_prefix_globs() {
        let p = Policy::default().grant(2, &["reply"]).grant(3, &["cn.*", "read_file"]);
        assert!(p.allows(2, "reply"));
        assert!(!p.allows(2, "read_file"));
        assert!(p.allows(3, "cn.out"));
        assert!(!p.allows(1, "reply"));
    }

    #[test]
    fn config_errors_name_the_key() {
        let v = serde_json::json!({"levels": {"2": ["reply"]}, "bogus": 1});
        let e = Policy::from_config(Some(&v)).unwrap_err();
        assert!(e.contains("policy") && e.contains("bogus"), "{e}");
    }
}
