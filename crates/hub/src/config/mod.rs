//! config — `cn.yaml`, read once and parsed into one typed section per layer.
//!
//! ```yaml
//! name: sigma                 # the agent (Hub::open requires it)
//! peers: {pi: /srv/pi.git}    # other hubs: name → git remote
//! models: {local, executive}  # who answers at levels 2 and 3     (cn-models)
//! budget: {daily_tokens, …}   # the executive's thinking budget  (cn-models)
//! policy: {levels, shell, …}  # which tools each level may call  (cn-tools)
//! reflexes: {min_samples, …}  # reflex health and grants         (cn-reflex)
//! loops: {controller, actuator}  # `cn loop` defaults            (cn-loops)
//! pacing: {active, idle}      # the daemon's rest                (cn-autonomy)
//! attention: {capacity, …}    # the attention pool               (cn-autonomy)
//! senses: {bind, owner, …}    # where percepts come from         (cn-autonomy)
//! origin: {push, lease}       # the hub kept in origin; one active daemon (cn-hub lease)
//! ```
//!
//! The section types live here (one type per concept; the layers `pub use` them) and their
//! behaviour stays with the layer that owns it. Invariants: an unknown key at any level is an
//! error naming the key path and the file (a typo must not silently mean "default"); a
//! missing, empty or null section is its default, and a section written in part merges with
//! its default key by key — a mapping key by key, a list or a value replacing the default's
//! (`policy.levels` over the documented grants, level by level; [`HubConfig::settings`] says
//! where each value came from); secrets are never in cn.yaml — a key such as `api_key_env`
//! names the environment variable that holds one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize};

mod attention;
mod check;
mod daemon;
pub mod duration;
mod loops;
mod mcp;
mod models;
mod origin;
mod policy;
mod reflexes;
mod senses;
mod settings;
#[cfg(test)]
mod tests;

pub use attention::{Pacing, PoolConfig, Weights};
pub use daemon::{JournalConfig, OtelConfig, ServeConfig};
pub use loops::LoopsConfig;
pub use mcp::{McpCallers, McpServer};
pub use models::{BudgetConfig, CommandLine, ModelsConfig, OnExhausted, ProviderConfig, ProviderKind, ReleaseAfter};
pub use origin::{GitConfig, MailConfig, OriginConfig, PEERS_AT_ONCE, PEERS_AT_ONCE_MAX, PEER_IDLE, PEER_TIMEOUT};
pub use policy::{same_origin, Grant, Policy, ANYONE, STATE_TOOLS};
pub use reflexes::{LearnConfig, ReflexConfig};
pub use senses::{
    CalendarConfig, DiscordConfig, EmailConfig, FilesConfig, GithubConfig, MailSecurity, MailServerConfig, OwnerConfig,
    PeersConfig, PollConfig, SensesConfig, TelegramConfig,
};
pub use settings::{Setting, Source, Written};

/// Why `cn.yaml` (or a section of it) cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Not YAML at all; the message carries the line and column.
    #[error("{path} is not valid YAML")]
    Syntax {
        path: PathBuf,
        #[source]
        source: serde_yaml_ng::Error,
    },
    /// A key that is unknown or whose value does not fit; `key` is its dotted path. `hint`
    /// is "; did you mean `…`?" for a misspelt key, else empty.
    #[error("{path}: `{key}`: {error}{hint}")]
    Key {
        path: PathBuf,
        key: String,
        /// serde's message (kept whole, not as a source: the message says it already, and
        /// a `{:#}` chain would say it twice).
        error: serde_yaml_ng::Error,
        hint: String,
    },
    /// A value that parses but cannot be used (checked after parsing).
    #[error("{path}: `{key}`: {message}")]
    Value { path: PathBuf, key: String, message: String },
    /// `Hub::open` needs the agent's name.
    #[error("{path}: `name` is missing or not a plain name (letters, digits, `-`, `_`); set `name: <agent>`")]
    Name { path: PathBuf },
    /// A section a layer cannot build from (a provider without a model, …).
    #[error("cn.yaml `{key}`: {message}")]
    Invalid { key: String, message: String },
    /// A file a key names that cannot be used (a recording to replay, …); the source says why.
    #[error("cn.yaml `{key}`")]
    File {
        key: String,
        #[source]
        error: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A model's API key is not in the environment.
    #[error("cn.yaml `{key}`: environment variable {var} is not set (export your API key as {var}, or change `api_key_env`)")]
    MissingKey { key: String, var: String },
    /// A sense's secret is not in the environment.
    #[error(
        "{key} names the environment variable {var}, which is not set (or only blanks); export it before starting"
    )]
    MissingEnv { key: String, var: String },
}

impl ConfigError {
    /// The dotted key the error is about, when it is about one.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Key { key, .. }
            | ConfigError::Value { key, .. }
            | ConfigError::Invalid { key, .. }
            | ConfigError::File { key, .. }
            | ConfigError::MissingKey { key, .. }
            | ConfigError::MissingEnv { key, .. } => Some(key),
            _ => None,
        }
    }
}

/// All of `cn.yaml`, one field per section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HubConfig {
    /// The agent's name: peers address it as `<name>/<thread>` branches.
    pub name: Option<String>,
    /// Peers listed in cn.yaml (name → git remote); `state/peers.json` adds to them.
    #[serde(deserialize_with = "or_default")]
    pub peers: BTreeMap<String, String>,
    #[serde(deserialize_with = "or_default")]
    pub models: ModelsConfig,
    #[serde(deserialize_with = "or_default")]
    pub budget: BudgetConfig,
    /// Absent (or empty), the documented defaults ([`Policy::documented`]).
    #[serde(default = "Policy::documented", deserialize_with = "policy_or_documented")]
    pub policy: Policy,
    #[serde(deserialize_with = "or_default")]
    pub reflexes: ReflexConfig,
    #[serde(deserialize_with = "or_default")]
    pub loops: LoopsConfig,
    #[serde(deserialize_with = "or_default")]
    pub pacing: Pacing,
    #[serde(deserialize_with = "or_default")]
    pub attention: PoolConfig,
    #[serde(deserialize_with = "or_default")]
    pub senses: SensesConfig,
    /// `serve:` present (even empty): the daemon serves the control room too.
    #[serde(deserialize_with = "present")]
    pub serve: Option<ServeConfig>,
    /// MCP servers whose tools join the registry as `server.tool` (cn-mcp).
    #[serde(deserialize_with = "or_default")]
    pub mcp: BTreeMap<String, McpServer>,
    /// When `state/journal.jsonl` moves to a segment under `state/journal/`.
    #[serde(deserialize_with = "or_default")]
    pub journal: JournalConfig,
    /// `otel:` present: the daemon exports its traces over OTLP/HTTP (cn-daemon's `otel`).
    pub otel: Option<OtelConfig>,
    /// What git sees of cn's environment (`crate::git`).
    #[serde(deserialize_with = "or_default")]
    pub git: GitConfig,
    /// Peer mail's limits (`cn sync`).
    #[serde(deserialize_with = "or_default")]
    pub mail: MailConfig,
    /// The hub kept in its git remote `origin`, and one active daemon among its clones
    /// (cn-hub's `lease`).
    #[serde(deserialize_with = "or_default")]
    pub origin: OriginConfig,
}

/// "; did you mean `budget`?" for serde's "unknown field `bugdet`, expected one of `name`,
/// …" when one expected key is within a few edits of the unknown one; else "".
fn did_you_mean(message: &str) -> String {
    let Some(at) = message.find("unknown field `") else { return String::new() };
    let rest = &message[at + "unknown field `".len()..];
    let Some((unknown, expected)) = rest.split_once('`') else { return String::new() };
    let best = expected
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|k| (crate::words::edit_distance(unknown, k), k))
        .filter(|(d, k)| *d <= (k.len().max(unknown.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d);
    best.map(|(_, k)| format!("; did you mean `{k}`?")).unwrap_or_default()
}

/// `policy:` with nothing after it is the documented policy, as when absent.
fn policy_or_documented<'de, D: Deserializer<'de>>(d: D) -> Result<Policy, D::Error> {
    Ok(Option::<Policy>::deserialize(d)?.unwrap_or_else(Policy::documented))
}

impl Default for HubConfig {
    /// Every section's default: the documented policy, the rest their types' defaults.
    fn default() -> Self {
        HubConfig {
            name: None,
            peers: BTreeMap::new(),
            models: ModelsConfig::default(),
            budget: BudgetConfig::default(),
            policy: Policy::documented(),
            reflexes: ReflexConfig::default(),
            loops: LoopsConfig::default(),
            pacing: Pacing::default(),
            attention: PoolConfig::default(),
            senses: SensesConfig::default(),
            serve: None,
            mcp: BTreeMap::new(),
            journal: JournalConfig::default(),
            otel: None,
            git: GitConfig::default(),
            mail: MailConfig::default(),
            origin: OriginConfig::default(),
        }
    }
}

/// A section whose presence means "on": `key:` with nothing after it is on with defaults.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<Option<T>, D::Error> {
    Ok(Some(Option::<T>::deserialize(d)?.unwrap_or_default()))
}

/// A section written as `key:` with nothing after it is its default, as when absent.
pub(crate) fn or_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

impl HubConfig {
    /// Parse cn.yaml's text; `path` names the file in errors. Empty text is all defaults.
    pub fn parse(text: &str, path: &Path) -> Result<HubConfig, ConfigError> {
        if text.trim().is_empty() {
            return Ok(HubConfig::default());
        }
        let de = serde_yaml_ng::Deserializer::from_str(text);
        let config: Option<HubConfig> = serde_path_to_error::deserialize(de).map_err(|e| {
            let key = e.path().to_string();
            let source = e.into_inner();
            if key == "." || key.is_empty() {
                // Not inside a key: a syntax error, or an unknown top-level key (the message
                // names it).
                if source.to_string().starts_with("unknown field") {
                    let hint = did_you_mean(&source.to_string());
                    ConfigError::Key { path: path.to_path_buf(), key: "(top level)".into(), error: source, hint }
                } else {
                    ConfigError::Syntax { path: path.to_path_buf(), source }
                }
            } else {
                let hint = did_you_mean(&source.to_string());
                ConfigError::Key { path: path.to_path_buf(), key, error: source, hint }
            }
        })?;
        let config = config.unwrap_or_default();
        config.check(path)?;
        Ok(config)
    }

    /// Read and parse `path`. A missing file is all defaults.
    pub fn load(path: &Path) -> Result<HubConfig, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(ConfigError::Read { path: path.to_path_buf(), source }),
        };
        Ok(HubConfig::parse_written(&text, path)?.0)
    }

    /// [`HubConfig::parse`], plus the keys the text writes (for [`HubConfig::settings`]).
    pub fn parse_written(text: &str, path: &Path) -> Result<(HubConfig, Written), ConfigError> {
        let config = HubConfig::parse(text, path)?;
        Ok((config, Written::of(text, path)?))
    }
}

/// Read an environment variable a config key names.
pub fn env_secret(key: &str, var: &str) -> Result<String, ConfigError> {
    std::env::var(var)
        .ok()
        // A secret of spaces is no secret: a webhook signed with it is anyone's.
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| ConfigError::MissingEnv { key: key.into(), var: var.into() })
}
