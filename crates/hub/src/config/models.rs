//! `models:` and `budget:` (cn-models): who answers at levels 2 and 3, and the executive's
//! thinking budget.

use std::path::PathBuf;
use std::time::Duration;

use cn_compute::Level;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::duration;

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
    /// For `embedded`: the most CPU threads an ask uses (fewer when the CPUs are busy;
    /// default: the CPUs, at most 4).
    pub threads: Option<u32>,
    /// For `embedded`: free the model after it has gone unused this long (`5m` by default;
    /// `never` keeps it loaded). The next ask loads it again (~150 ms).
    pub release_after: Option<ReleaseAfter>,
    /// Dollars per million input / output tokens (the budget's cost cap uses them).
    pub price_per_mtok_in: Option<f64>,
    pub price_per_mtok_out: Option<f64>,
    /// For `command`: environment variables the program sees, besides a minimal `PATH`,
    /// `HOME`, `LANG`; every other variable of cn's environment is withheld.
    pub env: Vec<String>,
    /// For `command`: the program runs in the Landlock sandbox (`cn_process::sandbox`), writing
    /// only its own temporary directory (TCP allowed: it reaches its API) — unless this
    /// changes it (`{write: [~/.claude], network: false}`) or says `false`.
    #[serde(skip_serializing_if = "crate::protect::SandboxSpec::is_default")]
    pub sandbox: crate::protect::SandboxSpec,
}

impl ProviderConfig {
    /// Cost in dollars of a call with these token counts (0 when no prices are set).
    pub fn cost(&self, tokens_in: u64, tokens_out: u64) -> f64 {
        (tokens_in as f64 * self.price_per_mtok_in.unwrap_or(0.0)
            + tokens_out as f64 * self.price_per_mtok_out.unwrap_or(0.0))
            / 1_000_000.0
    }
}

/// `release_after:` of the embedded model: a duration, or `never`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReleaseAfter {
    After(Duration),
    Never,
}

impl ReleaseAfter {
    /// How long the model stays loaded unused; `None` for ever.
    pub fn duration(self) -> Option<Duration> {
        match self {
            ReleaseAfter::After(d) => Some(d),
            ReleaseAfter::Never => None,
        }
    }
}

impl Serialize for ReleaseAfter {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ReleaseAfter::After(d) => duration::serialize(d, s),
            ReleaseAfter::Never => s.serialize_str("never"),
        }
    }
}

impl<'de> Deserialize<'de> for ReleaseAfter {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match duration::Raw::deserialize(d)? {
            duration::Raw::Text(t) if t.trim() == "never" => Ok(ReleaseAfter::Never),
            raw => raw.duration().map(ReleaseAfter::After).map_err(serde::de::Error::custom),
        }
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
