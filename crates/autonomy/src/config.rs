//! The cn.yaml keys autonomy reads: `pacing`, `attention` and `senses`. cn.yaml is loaded
//! as-is by the kernel; each layer reads its own keys, so unknown keys here are errors
//! (a typo must not silently disable a sense) while other layers' keys are ignored.
//!
//! Secrets are never in cn.yaml: a key such as `secret_env` names the environment variable
//! that holds the secret.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::attention::PoolConfig;
use crate::rest::Pacing;

/// Everything autonomy reads from cn.yaml.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct AutonomyConfig {
    pub pacing: Pacing,
    pub attention: PoolConfig,
    pub senses: SensesConfig,
}

/// A cn.yaml that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{key} names the environment variable {var}, which is not set; export it before starting")]
    MissingEnv { key: String, var: String },
}

impl AutonomyConfig {
    /// Read the hub's cn.yaml (a missing file means all defaults: no senses).
    pub fn load(hub: &Path) -> Result<Self, ConfigError> {
        let path = hub.join("cn.yaml");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        Self::from_yaml(&text).map_err(|message| ConfigError::Invalid { path, message })
    }

    /// Parse from cn.yaml text; the error names the key path.
    pub fn from_yaml(text: &str) -> Result<Self, String> {
        #[derive(Deserialize, Default)]
        #[serde(default)]
        struct Ours {
            pacing: Option<serde_yaml_ng::Value>,
            attention: Option<serde_yaml_ng::Value>,
            senses: Option<serde_yaml_ng::Value>,
        }
        let ours: Ours = serde_yaml_ng::from_str::<Option<Ours>>(text).map_err(|e| e.to_string())?.unwrap_or_default();
        fn part<T: serde::de::DeserializeOwned + Default>(name: &str, v: Option<serde_yaml_ng::Value>) -> Result<T, String> {
            match v {
                None | Some(serde_yaml_ng::Value::Null) => Ok(T::default()),
                Some(v) => serde_path_to_error::deserialize(v).map_err(|e| format!("{name}.{}: {}", e.path(), e.inner())),
            }
        }
        Ok(AutonomyConfig {
            pacing: part("pacing", ours.pacing)?,
            attention: part("attention", ours.attention)?,
            senses: part("senses", ours.senses)?,
        })
    }
}

/// `senses:` — each sense is on when its key is present (the owner endpoint by default).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SensesConfig {
    /// Address of the HTTP server for the owner endpoint and GitHub webhooks.
    pub bind: SocketAddr,
    pub owner: OwnerConfig,
    pub github: Option<GithubConfig>,
    pub discord: Option<DiscordConfig>,
    pub files: Option<FilesConfig>,
    pub calendar: Vec<CalendarConfig>,
    pub peers: Option<PeersConfig>,
}

impl Default for SensesConfig {
    fn default() -> Self {
        SensesConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 7878)),
            owner: OwnerConfig::default(),
            github: None,
            discord: None,
            files: None,
            calendar: Vec::new(),
            peers: None,
        }
    }
}

/// `senses.owner:` — `POST /owner/message`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OwnerConfig {
    pub enabled: bool,
    /// Environment variable holding a bearer token the request must carry.
    pub token_env: Option<String>,
}

impl Default for OwnerConfig {
    fn default() -> Self {
        OwnerConfig { enabled: true, token_env: None }
    }
}

/// `senses.github:` — webhook receiver and/or notification polling.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GithubConfig {
    /// Environment variable holding the webhook secret (e.g. `CN_GITHUB_WEBHOOK_SECRET`);
    /// the webhook route exists only when this is set.
    pub secret_env: Option<String>,
    /// Logins whose events count as the owner's.
    pub owners: Vec<String>,
    pub poll: Option<PollConfig>,
}

/// `senses.github.poll:` — the notifications API.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PollConfig {
    pub token_env: String,
    pub base_url: String,
    #[serde(with = "duration")]
    pub every: Duration,
}

impl Default for PollConfig {
    fn default() -> Self {
        PollConfig { token_env: "GITHUB_TOKEN".into(), base_url: "https://api.github.com".into(), every: Duration::from_secs(60) }
    }
}

/// `senses.peers:` — the daemon runs `cn sync` every `every` (mail in from peers, the
/// outbox out to `origin`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PeersConfig {
    #[serde(with = "duration")]
    pub every: Duration,
}

impl Default for PeersConfig {
    fn default() -> Self {
        PeersConfig { every: Duration::from_secs(300) }
    }
}

/// `senses.discord:` — a bot on Discord's gateway; its messages become percepts, and the
/// daemon answers through it (with the typing indicator while it works).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DiscordConfig {
    /// Environment variable holding the bot token.
    pub token_env: String,
    /// Channel ids whose messages are sensed; empty: every channel the bot sees (and DMs).
    #[serde(deserialize_with = "snowflakes")]
    pub channels: Vec<u64>,
    /// User ids whose messages count as the owner's.
    #[serde(deserialize_with = "snowflakes")]
    pub owners: Vec<u64>,
    /// Base URL of the HTTP API (`/api/v10/…` follows it).
    pub api_base: String,
    /// The gateway's websocket URL, when not Discord's own (tests, a gateway proxy).
    pub gateway_url: Option<String>,
    /// How often the typing indicator is triggered again while the executive works (Discord
    /// shows it for about ten seconds).
    #[serde(with = "duration")]
    pub typing_every: Duration,
}

impl Default for DiscordConfig {
    fn default() -> Self {
        DiscordConfig {
            token_env: "DISCORD_TOKEN".into(),
            channels: Vec::new(),
            owners: Vec::new(),
            api_base: "https://discord.com".into(),
            gateway_url: None,
            typing_every: Duration::from_secs(8),
        }
    }
}

/// Discord ids (snowflakes) as YAML numbers or strings: `[1234]` or `["1234"]`.
fn snowflakes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(u64),
        Text(String),
    }
    Vec::<Raw>::deserialize(d)?
        .into_iter()
        .map(|r| match r {
            Raw::Number(n) => Ok(n),
            Raw::Text(t) => t.trim().parse().map_err(|_| serde::de::Error::custom(format!("`{t}` is not a Discord id (a number)"))),
        })
        .collect()
}

/// `senses.files:` — a debounced watcher.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilesConfig {
    /// Paths to watch, relative to the hub (or absolute).
    pub paths: Vec<PathBuf>,
    #[serde(with = "duration")]
    pub debounce: Duration,
    /// Path components to ignore; the hub's own `state` and `.git` by default, so the
    /// agent's own writes do not wake it.
    pub ignore: Vec<String>,
}

impl Default for FilesConfig {
    fn default() -> Self {
        FilesConfig { paths: Vec::new(), debounce: Duration::from_millis(500), ignore: vec![".git".into(), "state".into()] }
    }
}

/// One `senses.calendar:` entry.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalendarConfig {
    /// An `http(s)://` URL or a file path (relative to the hub).
    pub source: String,
    /// How long before an event starts it becomes a percept.
    #[serde(default = "default_lead", with = "duration")]
    pub lead: Duration,
    /// How often the calendar is read again.
    #[serde(default = "default_refresh", with = "duration")]
    pub refresh: Duration,
}

fn default_lead() -> Duration {
    Duration::from_secs(15 * 60)
}
fn default_refresh() -> Duration {
    Duration::from_secs(15 * 60)
}

/// Read an environment variable a config key names.
pub fn env_secret(key: &str, var: &str) -> Result<String, ConfigError> {
    std::env::var(var).ok().filter(|v| !v.is_empty()).ok_or_else(|| ConfigError::MissingEnv { key: key.into(), var: var.into() })
}

/// Durations in cn.yaml: `5s`, `1m`, `500ms`, `1h 30m`, or a number of seconds.
pub mod duration {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub fn parse(text: &str) -> Result<Duration, String> {
        let t = text.trim();
        if let Ok(secs) = t.parse::<f64>() {
            return Duration::try_from_secs_f64(secs).map_err(|e| format!("`{text}`: {e}"));
        }
        let sd: jiff::SignedDuration = t.parse().map_err(|e| format!("`{text}` is not a duration such as 5s, 1m or 500ms: {e}"))?;
        Duration::try_from(sd).map_err(|_| format!("`{text}` is negative"))
    }

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        let sd = jiff::SignedDuration::try_from(*d).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&format!("{sd:#}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Secs(f64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Secs(s) => Duration::try_from_secs_f64(s).map_err(serde::de::Error::custom),
            Raw::Text(t) => parse(&t).map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_our_keys_ignores_others_and_names_bad_ones() {
        let c = AutonomyConfig::from_yaml(
            "models: {executive: x}\npacing: {active: 2s, idle: 1m}\nsenses:\n  bind: 127.0.0.1:0\n  github: {secret_env: HOOK, owners: [alice]}\n  calendar:\n    - source: cal.ics\n      lead: 10m\n",
        )
        .unwrap();
        assert_eq!(c.pacing.active, Duration::from_secs(2));
        assert_eq!(c.pacing.idle, Duration::from_secs(60));
        assert_eq!(c.senses.github.unwrap().owners, ["alice"]);
        assert_eq!(c.senses.calendar[0].lead, Duration::from_secs(600));
        assert!(c.senses.owner.enabled);
        assert_eq!(c.senses.peers, None, "peer sync is off unless asked for");
        let peers = |yaml: &str| AutonomyConfig::from_yaml(yaml).map(|c| c.senses.peers);
        assert_eq!(peers("senses:\n  peers: {}\n").unwrap(), Some(PeersConfig { every: Duration::from_secs(300) }));
        assert_eq!(peers("senses:\n  peers: {every: 30s}\n").unwrap(), Some(PeersConfig { every: Duration::from_secs(30) }));
        let e = peers("senses:\n  peers: {every: soon}\n").unwrap_err();
        assert!(e.contains("senses.peers"), "{e}");
        let e = AutonomyConfig::from_yaml("senses:\n  github: {secret: x}\n").unwrap_err();
        assert!(e.contains("senses.github") && e.contains("secret"), "{e}");
        let e = AutonomyConfig::from_yaml("pacing: {activ: 2s}\n").unwrap_err();
        assert!(e.contains("activ"), "a typo must not silently keep the default: {e}");
        let e = AutonomyConfig::from_yaml("pacing: {idle: soon}\n").unwrap_err();
        assert!(e.contains("pacing.idle"), "{e}");
    }

    #[test]
    fn discord_keys_ids_as_numbers_or_strings_and_unknown_keys_named() {
        let c = AutonomyConfig::from_yaml(
            "senses:\n  discord:\n    token_env: BOT\n    channels: [111, \"222\"]\n    owners: [\"333\"]\n    api_base: http://127.0.0.1:9\n    typing_every: 100ms\n",
        )
        .unwrap();
        let d = c.senses.discord.unwrap();
        assert_eq!((d.token_env.as_str(), d.channels, d.owners), ("BOT", vec![111, 222], vec![333]));
        assert_eq!(d.typing_every, Duration::from_millis(100));
        assert_eq!(d.gateway_url, None);
        let d = AutonomyConfig::from_yaml("senses:\n  discord: {}\n").unwrap().senses.discord.unwrap();
        assert_eq!(d, DiscordConfig::default());
        assert_eq!(d.api_base, "https://discord.com");
        assert_eq!(d.typing_every, Duration::from_secs(8));
        let e = AutonomyConfig::from_yaml("senses:\n  discord: {token: abc}\n").unwrap_err();
        assert!(e.contains("senses.discord") && e.contains("token"), "{e}");
        let e = AutonomyConfig::from_yaml("senses:\n  discord: {owners: [alice]}\n").unwrap_err();
        assert!(e.contains("senses.discord.owners") && e.contains("alice"), "{e}");
    }
}
