//! The reflex part of `cn.yaml`: the `reflexes:` key, plus the shared `policy:` key whose
//! limits (shell, URL allowlist, sizes, time) every action obeys. The section types live in
//! `cn_hub::config`; cn_hub checks them (e.g. `disable_above` is a rate) when it parses.
//!
//! ```yaml
//! reflexes:
//!   disable_above: 0.5     # failure rate above which a reflex is disabled...
//!   min_samples: 10        # ...once it has run at least this often
//!   github_api: https://api.github.com
//!   prompt_max_chars: 6000 # a local_prompt longer than this is cut (the model's context is small)
//!   grants:                # which actions each reflex level may run (default: by action level,
//!                          # except write_file and shell, which only a grant naming them allows)
//!     0: [reply, react, log, template, add_task, add_idea]
//! ```

pub use cn_hub::config::{ConfigError, ReflexConfig};
use cn_hub::HubConfig;
use cn_tools::Policy;

/// The reflex config and the policy reflexes run under, from an already parsed cn.yaml.
pub fn of(config: &HubConfig) -> (ReflexConfig, Policy) {
    let mut policy = config.policy.clone();
    // The hub's level grants name the tools a *model* may call at that level; reflex actions
    // are a different vocabulary, so reflexes get their own grants: the defaults, each level
    // cn.yaml's `reflexes.grants` names replacing that level's (one line for level 0 leaves
    // level 2, where `summarize-url` runs, as it was).
    policy.levels = crate::spec::default_grants();
    if let Some(g) = &config.reflexes.grants {
        policy.levels.extend(g.clone());
    }
    (config.reflexes.clone(), policy)
}

/// The same, read from the hub's `cn.yaml` (a missing file is all defaults; a hub with only
/// reflexes needs no `name`, so this takes the layout, not an open [`cn_hub::Hub`]).
pub fn read(hub: &cn_hub::Layout) -> Result<(ReflexConfig, Policy), ConfigError> {
    Ok(of(&HubConfig::load(&hub.config())?))
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
        let (config, policy) = read(&cn_hub::Layout::new(dir.path())).unwrap();
        assert_eq!(config.min_samples, 3);
        assert_eq!(policy.max_bytes, Some(1000));
        assert!(
            policy.allows(0, "reply") && !policy.allows(0, "log") && !policy.allows(2, "noop"),
            "reflex grants replace the model's, level by level: {policy:?}"
        );
        assert!(policy.allows(2, "fetch_url") && policy.allows(2, "local_prompt"), "the levels not named keep theirs");
        std::fs::write(dir.path().join("cn.yaml"), "reflexes:\n  disable_above: 2\n").unwrap();
        assert!(read(&cn_hub::Layout::new(dir.path())).unwrap_err().to_string().contains("reflexes.disable_above"));
        std::fs::write(dir.path().join("cn.yaml"), "reflexes:\n  min_sample: 2\n").unwrap();
        assert!(read(&cn_hub::Layout::new(dir.path())).unwrap_err().to_string().contains("min_sample"));
        let (_, policy) = of(&HubConfig::default());
        assert!(policy.allows(2, "local_prompt") && policy.allows(1, "fetch_url") && !policy.allows(0, "fetch_url"));
    }
}
