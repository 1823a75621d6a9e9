//! The `models:` and `budget:` sections of `cn.yaml`, read from the config the kernel loaded
//! as-is. Unknown keys are errors (a typo must not silently mean "default").
//!
//! ```yaml
//! models:
//!   local:                       # level 2
//!     provider: embedded         # embedded | ollama | openai | command | replay
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

use std::path::PathBuf;

use cn_compute::{Config, Level};
use serde::{Deserialize, Serialize};

/// Why the `models:` or `budget:` section could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cn.yaml `{key}`: {message}")]
    Invalid { key: String, message: String },
    #[error("cn.yaml `{key}`: environment variable {var} is not set (export your API key as {var}, or change `api_key_env`)")]
    MissingKey { key: String, var: String },
}

/// Which API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// llama.cpp in-process (feature `local-model`).
    Embedded,
    /// Anthropic Messages API.
    Anthropic,
    /// Any OpenAI-compatible chat completions API.
    Openai,
    /// Ollama's native `/api/chat`.
    Ollama,
    /// An external program: prompt on stdin, answer on stdout.
    Command,
    /// Play back a file the recording decorator wrote.
    Replay,
}

/// A command line: a string run by `sh -c`, or an argv list run directly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum CommandLine {
    Shell(String),
    Argv(Vec<String>),
}

/// One model: which provider and how to reach it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProviderConfig {
    pub provider: Option<ProviderKind>,
    /// The provider's model name (`claude-sonnet-4-5`, `gpt-4o-mini`, `qwen2.5:7b`).
    pub model: Option<String>,
    /// API root; each provider has its default (`https://api.anthropic.com`, ...).
    pub base_url: Option<String>,
    /// Name of the environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// For `command`: the program to run.
    pub command: Option<CommandLine>,
    /// For `embedded`: the GGUF file; for `replay`: the recording (relative to the hub).
    pub path: Option<PathBuf>,
    /// Whole-call deadline, seconds.
    pub timeout_secs: Option<u64>,
    /// Connect deadline, seconds.
    pub connect_timeout_secs: Option<u64>,
    /// Cap on the answer's tokens (plan uses it for this level).
    pub max_tokens: Option<u32>,
    /// Prompt budget for this level, in tokens (plan fits the prompt within it).
    pub context_tokens: Option<u32>,
    /// Retries after the first try (429, 5xx, timeouts, cut streams).
    pub retries: Option<u32>,
    /// For `embedded`: CPU threads.
    pub threads: Option<u32>,
    /// Dollars per million input / output tokens (the budget's cost cap uses them).
    pub price_per_mtok_in: Option<f64>,
    pub price_per_mtok_out: Option<f64>,
}

impl ProviderConfig {
    /// Cost in dollars of a call with these token counts (0 when no prices are set).
    pub fn cost(&self, tokens_in: u64, tokens_out: u64) -> f64 {
        (tokens_in as f64 * self.price_per_mtok_in.unwrap_or(0.0)
            + tokens_out as f64 * self.price_per_mtok_out.unwrap_or(0.0))
            / 1_000_000.0
    }
}

/// The `models:` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelsConfig {
    /// Level 2. Absent means the embedded model.
    pub local: Option<ProviderConfig>,
    /// Level 3. Absent means no executive.
    pub executive: Option<ProviderConfig>,
}

impl ModelsConfig {
    pub fn from_config(config: &Config) -> Result<ModelsConfig, ConfigError> {
        section(config, "models")
    }

    /// The local level's config, defaulting to the embedded model.
    pub fn local(&self) -> ProviderConfig {
        let mut local = self.local.clone().unwrap_or_default();
        local.provider.get_or_insert(ProviderKind::Embedded);
        local
    }

    pub fn for_level(&self, level: Level) -> Option<ProviderConfig> {
        match level {
            2 => Some(self.local()),
            3 => self.executive.clone(),
            _ => None,
        }
    }
}

/// What to do with an executive call the budget refuses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnExhausted {
    /// Ask the local level instead.
    #[default]
    Local,
    /// Return `ModelError::Budget`; the caller defers the item with the reason.
    Defer,
}

/// The `budget:` section: the thinking budget for the executive (level 3).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetConfig {
    /// Executive tokens (in + out) a day; absent means no token cap.
    pub daily_tokens: Option<u64>,
    /// Executive dollars a day, from the executive's prices; absent means no cost cap.
    pub daily_cost: Option<f64>,
    /// Least time between two autonomous (non-owner) executive calls.
    pub min_interval_secs: u64,
    pub on_exhausted: OnExhausted,
}

impl BudgetConfig {
    pub fn from_config(config: &Config) -> Result<BudgetConfig, ConfigError> {
        section(config, "budget")
    }
}

fn section<T: serde::de::DeserializeOwned + Default>(config: &Config, key: &str) -> Result<T, ConfigError> {
    match config.get(key) {
        None | Some(serde_json::Value::Null) => Ok(T::default()),
        Some(v) => serde_json::from_value(v.clone())
            .map_err(|e| ConfigError::Invalid { key: key.into(), message: e.to_string() }),
    }
}

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

    fn config(yaml: &str) -> Config {
        Config { value: serde_yaml_ng::from_str(yaml).unwrap() }
    }

    #[test]
    fn reads_models_and_budget_and_rejects_typos() {
        let c = config(
            "models:\n  executive:\n    provider: anthropic\n    model: m\n    api_key_env: K\n    price_per_mtok_in: 3\n\
             budget:\n  daily_tokens: 1000\n  on_exhausted: defer\n",
        );
        let m = ModelsConfig::from_config(&c).unwrap();
        assert_eq!(m.local().provider, Some(ProviderKind::Embedded));
        let exec = m.executive.unwrap();
        assert_eq!(exec.provider, Some(ProviderKind::Anthropic));
        assert_eq!(exec.cost(1_000_000, 0), 3.0);
        let b = BudgetConfig::from_config(&c).unwrap();
        assert_eq!((b.daily_tokens, b.on_exhausted), (Some(1000), OnExhausted::Defer));

        let e = ModelsConfig::from_config(&config("models:\n  local:\n    provder: ollama\n")).unwrap_err();
        assert!(e.to_string().contains("provder"), "{e}");
    }

    #[test]
    fn secrets_never_print() {
        let s = Secret::new("sk-very-secret");
        assert!(!format!("{s:?}").contains("sk-"));
    }
}
