//! The reflex part of `cn.yaml`: the `reflexes:` key, plus the shared `policy:` key whose
//! limits (shell, URL allowlist, sizes, time) every action obeys.
//!
//! ```yaml
//! reflexes:
//!   disable_above: 0.5     # failure rate above which a reflex is disabled...
//!   min_samples: 10        # ...once it has run at least this often
//!   github_api: https://api.github.com
//!   prompt_max_chars: 6000 # a local_prompt longer than this is cut (the model's context is small)
//!   grants:                # which actions each reflex level may run (default: by action level)
//!     0: [reply, react, log, template, add_task, add_idea]
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use cn_compute::Level;
use cn_tools::{Grant, Policy};
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Deserialize)]
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
    /// Level → actions a reflex of that level may run. Absent: every action whose own level
    /// is at most the reflex's level.
    pub grants: Option<BTreeMap<Level, Grant>>,
}

impl Default for ReflexConfig {
    fn default() -> Self {
        ReflexConfig {
            disable_above: 0.5,
            min_samples: 10,
            github_api: "https://api.github.com".into(),
            prompt_max_chars: 6000,
            grants: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    Read { path: String, message: String },
    #[error("{path}: `{key}`: {message}")]
    Key { path: String, key: String, message: String },
}

/// The reflex config and the policy reflexes run under, read from `hub/cn.yaml` (a missing
/// file is all defaults).
pub fn from_hub(hub: &Path) -> Result<(ReflexConfig, Policy), ConfigError> {
    let path = hub.join("cn.yaml");
    let shown = path.display().to_string();
    let value: Value = match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => Value::Null,
        Ok(text) => serde_yaml_ng::from_str(&text).map_err(|e| ConfigError::Read { path: shown.clone(), message: e.to_string() })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Null,
        Err(e) => return Err(ConfigError::Read { path: shown, message: e.to_string() }),
    };
    from_value(&value).map_err(|(key, message)| ConfigError::Key { path: shown, key, message })
}

/// The same from an already loaded config value (the daemon has it).
pub fn from_value(value: &Value) -> Result<(ReflexConfig, Policy), (String, String)> {
    let config: ReflexConfig = match value.get("reflexes") {
        None | Some(Value::Null) => ReflexConfig::default(),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| ("reflexes".to_string(), e.to_string()))?,
    };
    if !(0.0..=1.0).contains(&config.disable_above) {
        return Err(("reflexes.disable_above".into(), format!("{} is not a rate between 0 and 1", config.disable_above)));
    }
    let mut policy = Policy::from_config(value.get("policy")).map_err(|e| ("policy".to_string(), e))?;
    // The hub's level grants name the tools a *model* may call at that level; reflex actions
    // are a different vocabulary, so reflexes get their own grants.
    policy.levels = match &config.grants {
        Some(g) => g.clone(),
        None => crate::spec::default_grants(),
    };
    Ok((config, policy))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cn_yaml_with_numeric_level_keys() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("cn.yaml"),
            "models: {executive: {provider: anthropic}}\npolicy:\n  levels:\n    2: [reply, noop]\n  urls: [\"https://example.com/\"]\n  max_bytes: 1000\nreflexes:\n  min_samples: 3\n  grants:\n    0: [reply]\n",
        )
        .unwrap();
        let (config, policy) = from_hub(dir.path()).unwrap();
        assert_eq!(config.min_samples, 3);
        assert_eq!(policy.max_bytes, Some(1000));
        assert!(policy.allows(0, "reply") && !policy.allows(2, "reply"), "reflex grants replace the model's: {policy:?}");
        std::fs::write(dir.path().join("cn.yaml"), "reflexes:\n  disable_above: 2\n").unwrap();
        assert!(from_hub(dir.path()).unwrap_err().to_string().contains("reflexes.disable_above"));
        std::fs::write(dir.path().join("cn.yaml"), "reflexes:\n  min_sample: 2\n").unwrap();
        assert!(from_hub(dir.path()).unwrap_err().to_string().contains("min_sample"));
        let (_, policy) = from_value(&Value::Null).unwrap();
        assert!(policy.allows(2, "local_prompt") && policy.allows(1, "fetch_url") && !policy.allows(0, "fetch_url"));
    }
}
