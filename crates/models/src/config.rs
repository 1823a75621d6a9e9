//! The `models:` and `budget:` sections of `cn.yaml`. Their types live in `cn_hub::config`
//! (one type per concept) and are re-exported here; unknown keys are errors (a typo must not
//! silently mean "default"). What stays here is the API key, read from the environment.
//!
//! ```yaml
//! models:
//!   local:                       # level 2
//!     provider: embedded         # embedded | ollama | openai | command | replay
//!     # threads: 2               (the most; fewer while the CPUs are busy)
//!     # release_after: 5m        (free the model when unused this long; `never` keeps it)
//!     # path: /models/SmolLM2-135M-Instruct.Q4_1.gguf   (default: the cache, see `cn model pull`)
//!   executive:                   # level 3 (absent: no executive, plan stays at level 2)
//!     provider: anthropic        # anthropic | openai | ollama | command | replay
//!     model: claude-sonnet-4-5
//!     api_key_env: ANTHROPIC_API_KEY
//!     max_tokens: 4096
//!     timeout_secs: 300
//!     price_per_mtok_in: 3.0
//!     price_per_mtok_out: 15.0
//! budget:
//!   daily_tokens: 2000000
//!   daily_cost: 5.0
//!   min_interval_secs: 600
//!   on_exhausted: local          # local | defer
//! ```
//!
//! Invariant: only the *name* of an API key's environment variable is configured; the key
//! itself is read from the environment when a provider is built and never printed.

pub use cn_hub::config::{
    BudgetConfig, CommandLine, ConfigError, ModelsConfig, OnExhausted, ProviderConfig, ProviderKind, ReleaseAfter,
};

/// An API key read from the environment. Its Debug and Display never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }
    /// The key itself, for the one header that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
    /// Read the variable `var`; `key` names the config entry for the error.
    pub fn from_env(var: &str, key: &str) -> Result<Secret, ConfigError> {
        match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Ok(Secret(v.trim().to_string())),
            _ => Err(ConfigError::MissingKey { key: key.into(), var: var.into() }),
        }
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use cn_hub::HubConfig;

    fn config(yaml: &str) -> Result<HubConfig, ConfigError> {
        HubConfig::parse(yaml, std::path::Path::new("cn.yaml"))
    }

    #[test]
    fn reads_models_and_budget_and_rejects_typos() {
        let c = config(
            "models:\n  executive:\n    provider: anthropic\n    model: m\n    api_key_env: K\n    price_per_mtok_in: 3\n\
             budget:\n  daily_tokens: 1000\n  on_exhausted: defer\n",
        );
        let c = c.unwrap();
        let m = c.models;
        assert_eq!(m.local().provider, Some(ProviderKind::Embedded));
        let exec = m.executive.unwrap();
        assert_eq!(exec.provider, Some(ProviderKind::Anthropic));
        assert_eq!(exec.cost(1_000_000, 0), 3.0);
        let b = c.budget;
        assert_eq!((b.daily_tokens, b.on_exhausted), (Some(1000), OnExhausted::Defer));

        let e = config("models:\n  local:\n    provder: ollama\n").unwrap_err();
        assert!(e.to_string().contains("provder"), "{e}");
    }

    #[test]
    fn release_after_is_a_duration_or_never() {
        let local = |v: &str| config(&format!("models:\n  local:\n    release_after: {v}\n")).map(|c| c.models);
        assert_eq!(local("never").unwrap().local().release_after, Some(ReleaseAfter::Never));
        let after = local("90s").unwrap().local().release_after;
        assert_eq!(after, Some(ReleaseAfter::After(std::time::Duration::from_secs(90))));
        assert_eq!(
            local("30").unwrap().local().release_after.and_then(ReleaseAfter::duration).map(|d| d.as_secs()),
            Some(30)
        );
        let e = local("soon").unwrap_err().to_string();
        assert!(e.contains("soon") && e.contains("duration"), "{e}");
    }

    #[test]
    fn secrets_never_print() {
        let s = Secret::new("sk-very-secret");
        assert!(!format!("{s:?}").contains("sk-"));
    }
}
