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
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cn_compute::Level;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
    /// A section whose value does not fit its type. (serde's error is in the message, so it
    /// is not also the source: `cn` prints the chain.)
    #[error("cn.yaml `{key}`: {error}")]
    Section { key: String, error: serde_json::Error },
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
            | ConfigError::Section { key, .. }
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

/// The `origin:` section (issue 35): the hub lives in its git remote `origin`.
///
/// ```yaml
/// origin:
///   push: true      # the daemon pushes the hub's commits to origin as it makes them
///   lease: 30s      # one active daemon among the hub's clones (refs/cn/lease); implies push
///   branch: main    # the branch in origin (default: the hub's current branch)
/// ```
///
/// Absent, nothing but peer mail goes to origin, as before. With it, everything the hub
/// commits — its journal, threads and notes — is readable by whoever can fetch origin,
/// peers included (SECURITY.md).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OriginConfig {
    /// Push the hub's commits to origin (a lease implies it).
    pub push: bool,
    /// Hold `refs/cn/lease` in origin for this long at a time: the daemon that holds it is
    /// the only one that decides; another clone's daemon stands by and takes over when it
    /// expires. At least 1 s.
    #[serde(deserialize_with = "duration_opt", serialize_with = "duration_opt_out")]
    pub lease: Option<Duration>,
    /// The branch of origin the hub lives on (default: the branch checked out).
    pub branch: Option<String>,
}

impl OriginConfig {
    /// Whether the daemon pushes the hub's commits.
    pub fn pushes(&self) -> bool {
        self.push || self.lease.is_some()
    }
}

/// An optional duration as `cn config show` prints it (`30s`), or null.
fn duration_opt_out<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => duration::serialize(d, s),
        None => s.serialize_none(),
    }
}

/// An optional duration (`lease: 30s`); null or absent is `None`.
fn duration_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    match Option::<duration::Raw>::deserialize(d)? {
        None => Ok(None),
        Some(raw) => raw.duration().map(Some).map_err(serde::de::Error::custom),
    }
}

/// The `mail:` section: how much of a peer's mail `cn sync` takes (issue 34). A mail whose
/// file is larger is refused with a notice to its sender and receipted, so it is never
/// fetched again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MailConfig {
    /// Largest mail file taken from a peer, in bytes (default 1 MiB).
    pub max_bytes: u64,
    /// Most peers one sync lists and fetches at once, 1 to [`PEERS_AT_ONCE_MAX`] (default
    /// [`PEERS_AT_ONCE`]): more finishes a sync of many distant peers in fewer rounds, if the
    /// git server takes that many connections at once (a stock standalone `git daemon`
    /// listens with a backlog of 5 and serves 32).
    #[serde(deserialize_with = "peers_at_once")]
    pub peers_at_once: usize,
    /// How long one peer's part of a sync (its listing and fetch, however many tries) may
    /// take in all (default [`PEER_TIMEOUT`]); a peer that sends nothing for
    /// [`PEER_IDLE`] (or this, if shorter) is cut off sooner. Either is "took too long" for
    /// that peer only: every other peer's mail is filed as its own fetch completes.
    #[serde(with = "duration")]
    pub peer_timeout: Duration,
}

/// How long one peer's part of a sync may take unless `mail.peer_timeout` says otherwise.
pub const PEER_TIMEOUT: Duration = Duration::from_secs(300);
/// How long a peer's server may send nothing before a sync gives up on it.
pub const PEER_IDLE: Duration = Duration::from_secs(30);

/// Peers a sync lists and fetches at once unless `mail.peers_at_once` says otherwise.
pub const PEERS_AT_ONCE: usize = 16;
/// The most `mail.peers_at_once` may be (each is a git process or two on this machine).
pub const PEERS_AT_ONCE_MAX: usize = 128;

fn peers_at_once<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let n = usize::deserialize(d)?;
    if (1..=PEERS_AT_ONCE_MAX).contains(&n) {
        Ok(n)
    } else {
        Err(serde::de::Error::custom(format!("peers_at_once must be 1 to {PEERS_AT_ONCE_MAX}, not {n}")))
    }
}

impl Default for MailConfig {
    fn default() -> Self {
        MailConfig { max_bytes: 1 << 20, peers_at_once: PEERS_AT_ONCE, peer_timeout: PEER_TIMEOUT }
    }
}

/// The `git:` section: git (and the hooks, ssh and credential helpers it runs) gets a
/// scrubbed environment — `child::BASE_ENV`, `LC_*`, `git::GIT_BASE_ENV` —
/// plus the variables named here (a proxy, `GIT_SSH_COMMAND`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GitConfig {
    pub env: Vec<String>,
}

/// The journal's rotation (`journal:`): `state/journal.jsonl` becomes the next segment
/// `state/journal/NNNNNN.jsonl` when a decision is journaled and it is due (or when the
/// daemon starts). Readers stream every segment, then the live file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct JournalConfig {
    /// Rotate once the live file holds this many bytes; 0 never rotates by size. Default
    /// 4 MiB (about 1,500 items a daemon decided): every commit of the hub stores a new blob
    /// of the live file, so its size bounds what each decision adds to `.git`.
    pub rotate_bytes: u64,
    /// Also rotate on the first decision of a new UTC day. Default off.
    pub rotate_daily: bool,
}

impl Default for JournalConfig {
    fn default() -> Self {
        JournalConfig { rotate_bytes: 4 << 20, rotate_daily: false }
    }
}

impl JournalConfig {
    pub fn rotation(&self) -> cn_storage::Rotation {
        cn_storage::Rotation { bytes: self.rotate_bytes, daily: self.rotate_daily }
    }
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

/// `serve:` — the control room's web server (`cn serve`, and the daemon when present).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ServeConfig {
    /// The address to listen on; port 0 picks a free port.
    pub bind: String,
    /// Listen on an address other than loopback. The page is plain HTTP, so the owner token
    /// would cross the network in clear: off unless the owner says so.
    pub allow_remote: bool,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig { bind: "127.0.0.1:0".into(), allow_remote: false }
    }
}

/// `otel:` — OpenTelemetry export of the daemon's traces (a span per item, per model call,
/// per tool call, with the GenAI semantic conventions) over OTLP/HTTP in protobuf:
///
/// ```yaml
/// otel:
///   endpoint: http://127.0.0.1:4318/v1/traces
///   headers_env: {authorization: OTEL_AUTH}   # header → the variable holding its value
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OtelConfig {
    /// The collector's OTLP/HTTP traces URL (loopback or not: the owner's choice).
    pub endpoint: String,
    /// Headers sent with every export (an auth token, say), each value read from the named
    /// environment variable so that no secret sits in cn.yaml; never shown in errors.
    #[serde(default)]
    pub headers_env: BTreeMap<String, String>,
    /// The resource's `service.name`.
    #[serde(default = "otel_service")]
    pub service_name: String,
    /// Most finished spans waiting for export; beyond it new spans are dropped and counted.
    #[serde(default = "otel_queue")]
    pub queue: usize,
    /// How often a batch is sent (at most 512 spans each).
    #[serde(default = "otel_interval", with = "duration")]
    pub interval: Duration,
    /// The longest an export request may take.
    #[serde(default = "otel_timeout", with = "duration")]
    pub timeout: Duration,
}

fn otel_service() -> String {
    "cn".into()
}

fn otel_queue() -> usize {
    2048
}

fn otel_interval() -> Duration {
    Duration::from_secs(2)
}

fn otel_timeout() -> Duration {
    Duration::from_secs(5)
}

/// A section written as `key:` with nothing after it is its default, as when absent.
fn or_default<'de, D: Deserializer<'de>, T: Deserialize<'de> + Default>(d: D) -> Result<T, D::Error> {
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
        Ok(HubConfig::load_with_raw(path)?.0)
    }

    /// Read `path` once: the typed sections and the value as-is (what the kernel's `prepare`
    /// keeps). A missing file is all defaults.
    pub fn load_with_raw(path: &Path) -> Result<(HubConfig, cn_compute::Config), ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(ConfigError::Read { path: path.to_path_buf(), source }),
        };
        HubConfig::parse_with_raw(&text, path)
    }

    /// [`HubConfig::parse`], plus the value as-is.
    pub fn parse_with_raw(text: &str, path: &Path) -> Result<(HubConfig, cn_compute::Config), ConfigError> {
        let config = HubConfig::parse(text, path)?;
        // The hub's git runs with what `git.env` names from here on (`Hub::open` and
        // `HubConfig::load` both read cn.yaml through here).
        cn_git::pass_env(&config.git.env);
        let raw = if text.trim().is_empty() {
            cn_compute::Config::default()
        } else {
            let value: Option<serde_json::Value> = serde_yaml_ng::from_str(text)
                .map_err(|source| ConfigError::Syntax { path: path.to_path_buf(), source })?;
            cn_compute::Config { value: value.unwrap_or_default() }
        };
        Ok((config, raw))
    }

    /// Checks a type cannot express.
    fn check(&self, path: &Path) -> Result<(), ConfigError> {
        self.check_names(path)?;
        if let Err(message) = self.senses.owner.reminders_to() {
            return Err(ConfigError::Value { path: path.to_path_buf(), key: "senses.owner.remind".into(), message });
        }
        check_policy_from(&self.policy, path)?;
        for (name, server) in &self.mcp {
            let invalid =
                |message: String| ConfigError::Value { path: path.to_path_buf(), key: format!("mcp.{name}"), message };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                return Err(invalid(
                    "a server's name is letters, digits, `-` and `_` (its tools are `name.tool`)".into(),
                ));
            }
            match (&server.command, &server.url) {
                (Some(c), None) if c.is_empty() || c[0].is_empty() => {
                    return Err(invalid("`command` is empty: give the program and its arguments as a list".into()))
                }
                (Some(_), None) => {}
                (None, Some(u)) => match url::Url::parse(u) {
                    Ok(url) if matches!(url.scheme(), "http" | "https") && url.password().is_none() => {}
                    _ => {
                        return Err(invalid(format!(
                            "`url` {} is not an http(s) URL without credentials",
                            cn_process::redact::redact(u)
                        )))
                    }
                },
                _ => {
                    return Err(invalid(
                        "give exactly one of `command` (a stdio server) or `url` (streamable HTTP)".into(),
                    ))
                }
            }
            if server.timeout.is_zero() {
                return Err(invalid("`timeout` must be more than 0".into()));
            }
        }
        if let Some(otel) = &self.otel {
            let invalid = |key: &str, message: String| ConfigError::Value {
                path: path.to_path_buf(),
                key: format!("otel.{key}"),
                message,
            };
            match url::Url::parse(&otel.endpoint) {
                Ok(u)
                    if matches!(u.scheme(), "http" | "https") && u.password().is_none() && u.username().is_empty() => {}
                _ => {
                    return Err(invalid(
                        "endpoint",
                        format!(
                            "{} is not an http(s) URL without credentials (put a token in `headers_env`)",
                            cn_process::redact::redact(&otel.endpoint)
                        ),
                    ))
                }
            }
            if otel.queue == 0 {
                return Err(invalid("queue", "must be more than 0".into()));
            }
            if otel.interval.is_zero() || otel.timeout.is_zero() {
                return Err(invalid("interval", "`interval` and `timeout` must be more than 0".into()));
            }
            for (header, var) in &otel.headers_env {
                let token =
                    |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_".contains(&b));
                if !token(header) || !token(var) {
                    return Err(invalid(
                        "headers_env",
                        format!("`{header}: {var}` is not a header name and an environment variable's name"),
                    ));
                }
            }
        }
        if self.mail.peer_timeout < Duration::from_secs(1) {
            return Err(ConfigError::Value {
                path: path.to_path_buf(),
                key: "mail.peer_timeout".into(),
                message: format!(
                    "{:?} is too short for a peer's listing and fetch; give 1s or more (the default is 5m)",
                    self.mail.peer_timeout
                ),
            });
        }
        if let Some(lease) = self.origin.lease {
            if lease < Duration::from_secs(1) {
                return Err(ConfigError::Value {
                    path: path.to_path_buf(),
                    key: "origin.lease".into(),
                    message: format!(
                        "{lease:?} is too short: a lease is renewed every third of it; give 1s or more (30s is usual)"
                    ),
                });
            }
        }
        if let Some(branch) = &self.origin.branch {
            let bad = branch.is_empty()
                || branch.starts_with(['-', '/', '.'])
                || branch.ends_with(['/', '.'])
                || branch.contains("..")
                || branch.contains("//")
                || branch.ends_with(".lock")
                || branch.bytes().any(|b| b.is_ascii_control() || b" ~^:?*[\\@{".contains(&b));
            if bad {
                return Err(ConfigError::Value {
                    path: path.to_path_buf(),
                    key: "origin.branch".into(),
                    message: format!("`{branch}` is not a branch name git takes"),
                });
            }
        }
        if !(0.0..=1.0).contains(&self.reflexes.disable_above) {
            return Err(ConfigError::Value {
                path: path.to_path_buf(),
                key: "reflexes.disable_above".into(),
                message: format!("{} is not a rate between 0 and 1", self.reflexes.disable_above),
            });
        }
        Ok(())
    }
}

/// Where a value of the effective configuration comes from (`cn config show`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// cn.yaml writes it.
    File,
    /// cn.yaml does not: the documented default.
    Default,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::File => "cn.yaml",
            Source::Default => "default",
        }
    }
}

/// One value of the effective configuration: its dotted key, the value, where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    pub key: String,
    pub value: serde_json::Value,
    pub from: Source,
}

impl HubConfig {
    /// Every value the hub runs with, as the sections merged cn.yaml (`raw`: the file as
    /// written) with the defaults: a map is walked key by key, a list or a scalar is one
    /// value; each says whether cn.yaml writes it or it is the default. (`null`: unset — no
    /// executive, no `otel:`.)
    pub fn settings(&self, raw: &cn_compute::Config) -> Vec<Setting> {
        let effective = serde_json::to_value(self).unwrap_or_default();
        let mut out = Vec::new();
        walk(&effective, Some(&raw.value), &mut String::new(), &mut out);
        out
    }
}

fn walk(value: &serde_json::Value, written: Option<&serde_json::Value>, key: &mut String, out: &mut Vec<Setting>) {
    use serde_json::Value;
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                let at = key.len();
                if !key.is_empty() {
                    key.push('.');
                }
                key.push_str(k);
                walk(v, written.and_then(|w| w.get(k)), key, out);
                key.truncate(at);
            }
        }
        _ => {
            let from = if written.is_some_and(|w| !w.is_null()) { Source::File } else { Source::Default };
            out.push(Setting { key: key.clone(), value: value.clone(), from });
        }
    }
}

impl HubConfig {
    /// `name:` and the names and remotes of `peers:` (issue 34): no name is empty,
    /// path-like or reserved (`owner`, the mail layout's directories), no peer has the hub's
    /// own name, and no peer's remote is one git may not be given or one that carries
    /// credentials (cn.yaml is committed, and pushed to where every peer reads).
    fn check_names(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid = |key: String, message: String| ConfigError::Value { path: path.to_path_buf(), key, message };
        if let Some(name) = &self.name {
            if let Some(why) = crate::hub::name_problem(name) {
                return Err(invalid("name".into(), format!("the agent's name: {why}")));
            }
        }
        for (peer, remote) in &self.peers {
            let why = match &self.name {
                Some(me) => crate::hub::peer_name_problem(peer, me),
                None => crate::hub::name_problem(peer),
            };
            if let Some(why) = why {
                return Err(invalid(format!("peers.{peer}"), format!("a peer's name: {why}")));
            }
            if let Err(e) = cn_git::check_remote(remote).and_then(|()| cn_git::check_no_credentials(remote)) {
                return Err(invalid(format!("peers.{peer}"), e.to_string()));
            }
        }
        Ok(())
    }
}

/// The keys `policy.from:` may have besides a sense's name (see [`check_policy_from`]).
const FROM_KEYS: &[&str] = &["anyone", "peers"];

/// Every key of `policy.from:` names a provenance (issue 34): `anyone`, `peers`,
/// `peer:NAME`, a public sense (`github`, `discord` … [`crate::provenance::PUBLIC_SENSES`])
/// or `SENSE:USER`. A misspelt key would otherwise widen nothing, silently.
fn check_policy_from(policy: &Policy, path: &Path) -> Result<(), ConfigError> {
    let senses = crate::provenance::PUBLIC_SENSES;
    for key in policy.from.keys() {
        let problem = match key.split_once(':') {
            None if FROM_KEYS.contains(&key.as_str()) || senses.contains(&key.as_str()) => None,
            None if key == crate::OWNER => {
                Some("the owner's items may cause everything their level grants; there is nothing to widen".into())
            }
            None => {
                let best = FROM_KEYS
                    .iter()
                    .chain(senses)
                    .map(|k| (crate::words::edit_distance(key, k), *k))
                    .filter(|(d, k)| *d <= (k.len().max(key.len()) / 3).max(1))
                    .min_by_key(|(d, _)| *d);
                Some(format!(
                    "not a provenance{}",
                    best.map(|(_, k)| format!("; did you mean `{k}`?")).unwrap_or_default()
                ))
            }
            Some(("peer", name)) => crate::hub::name_problem(name).map(|why| format!("a peer's name: {why}")),
            Some((sense, user)) if senses.contains(&sense) => {
                user.trim().is_empty().then(|| format!("`{sense}:` names no user (write `{sense}` for everyone on it)"))
            }
            Some((sense, _)) => Some(format!("`{sense}` is not a sense (`{key}` must be SENSE:USER or peer:NAME)")),
        };
        if let Some(problem) = problem {
            return Err(ConfigError::Value {
                path: path.to_path_buf(),
                key: format!("policy.from.{key}"),
                message: format!(
                    "{problem} (keys are anyone, peers, peer:NAME, a sense — {} — or SENSE:USER)",
                    senses.join(", ")
                ),
            });
        }
    }
    Ok(())
}

/// Sections read from the kernel's as-is config (for callers that have only that).
fn section<T: serde::de::DeserializeOwned + Default>(config: &cn_compute::Config, key: &str) -> Result<T, ConfigError> {
    match config.get(key) {
        None | Some(serde_json::Value::Null) => Ok(T::default()),
        Some(v) => serde_json::from_value(v.clone()).map_err(|error| ConfigError::Section { key: key.into(), error }),
    }
}

// ---------------------------------------------------------------------------------------
// models: and budget: (cn-models)

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
    /// The section from the kernel's as-is config.
    pub fn from_config(config: &cn_compute::Config) -> Result<ModelsConfig, ConfigError> {
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
    /// The section from the kernel's as-is config.
    pub fn from_config(config: &cn_compute::Config) -> Result<BudgetConfig, ConfigError> {
        section(config, "budget")
    }
}

// ---------------------------------------------------------------------------------------
// policy: (cn-tools)

/// The tool names (or `prefix*` globs) a level may call.
///
/// A namespaced tool (`server.tool`: an MCP server's) is matched by a glob only when the
/// glob names its namespace (`server.*`): a bare `*` or `se*` grants none of them, so adding
/// a server to `mcp:` widens no level until the owner names it here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Grant(pub Vec<String>);

impl Grant {
    pub fn allows(&self, tool: &str) -> bool {
        let namespace = tool.split_once('.').map(|(ns, _)| ns);
        self.0.iter().any(|g| match g.strip_suffix('*') {
            Some(prefix) => {
                tool.starts_with(prefix)
                    && namespace.is_none_or(|ns| prefix.len() > ns.len() && prefix.as_bytes()[ns.len()] == b'.')
            }
            None => g == tool,
        })
    }
}

/// The `policy:` section: which tools each level may call; a level with no grant may call
/// nothing. `Policy::default()` grants nothing; in cn.yaml every key merges with
/// [`Policy::documented`]: a `policy:` that names only `urls:` keeps the documented levels,
/// and `levels:` replaces the grant of each level it names (`3: []` empties one), keeping
/// the others'.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    /// Level → grant (from cn.yaml: over the documented grants, level by level).
    #[serde(default = "documented_levels", deserialize_with = "levels_over_documented")]
    pub levels: BTreeMap<Level, Grant>,
    /// Whether the `shell` action may run at all.
    pub shell: bool,
    /// If set, only URLs matching one of these (scheme, host, port, path prefix) may be
    /// fetched; an entry also lets fetches reach its host when that host is loopback or
    /// private.
    pub urls: Option<Vec<String>>,
    /// Largest file or response a tool may read, in bytes.
    pub max_bytes: Option<u64>,
    /// Longest a tool may run, in seconds.
    pub timeout_secs: Option<u64>,
    /// Environment variables the `shell` action's commands see, besides a minimal `PATH`,
    /// `HOME`, `LANG` (`cn_process::child::BASE_ENV`); every other variable of cn's environment
    /// (an API key, say) is withheld.
    pub env: Vec<String>,
    /// How long an action held for the owner's approval waits before it is denied.
    pub approval_timeout_secs: Option<u64>,
    /// Whether commands run in the Landlock sandbox (writes only in the hub or the loop's
    /// tree, no network unless `shell_network`); absent means yes. `false` runs them
    /// unsandboxed; on a kernel that cannot sandbox, commands are refused unless it is false.
    pub sandbox: Option<bool>,
    /// Whether a sandboxed command may use TCP.
    pub shell_network: bool,
    /// What an item from someone other than the owner may cause, by provenance: `anyone`
    /// (default [`ANYONE`]: answer, file, defer, drop), `peers`, `peer:NAME`, a sense
    /// (`github`, `discord` …) or `SENSE:USER`. An item's calls outside these, even ones its
    /// level grants, are held for the owner's approval. The owner's items may cause
    /// everything their level grants.
    pub from: BTreeMap<String, Grant>,
}

/// The executive's tools for the agent's own state (document 003's task queue, ideas backlog
/// and schedule): the reflex engine's actions of those names, granted to level 3 by default.
pub const STATE_TOOLS: &[&str] = &[
    "add_task",
    "add_idea",
    "tasks_list",
    "task_done",
    "task_move",
    "task_cancel",
    "ideas_list",
    "idea_drop",
    "schedule_add",
    "schedule_list",
    "schedule_remove",
];

/// What anyone's item may cause unless `policy.from.anyone` says otherwise: be answered,
/// filed (tasks, ideas: marked with their source), deferred, dropped or surfaced to the
/// owner; list, complete, move or cancel what it filed itself (the routine's tools refuse
/// another's) — and the reflexes' steps that change nothing outside the run (templates, the
/// clock, the local model's triage). Fetching, reading or writing files, mailing peers, the
/// shell, GitHub's API, the schedule, notes and reflexes need the owner.
pub const ANYONE: &[&str] = &[
    "reply",
    "react",
    "noop",
    "ack",
    "defer",
    "delete",
    "surface",
    "commit",
    "add_task",
    "add_idea",
    // The routine and its tools keep an item to what it filed itself (`source`): another's
    // task, idea or the schedule is refused by the tool.
    "routine",
    "tasks_list",
    "task_done",
    "task_move",
    "task_cancel",
    "ideas_list",
    "idea_drop",
    "log",
    "template",
    "extract_json",
    "when",
    "clock",
    "activity",
    "why",
    "vet",
    "escalate",
    "local_prompt",
    "ollama_prompt",
];

impl Policy {
    pub fn allows(&self, level: Level, tool: &str) -> bool {
        self.levels.get(&level).is_some_and(|g| g.allows(tool))
    }

    /// Whether an item from `who` may cause a call of `tool` (its level's grant is checked
    /// apart, by [`Policy::allows`]): the owner's may cause anything; anyone else's what
    /// `from.anyone` (default [`ANYONE`]) or the narrower keys of `who` grant. An MCP server's
    /// tools (`server.tool`, and the reflexes' `mcp` action) are left to that server's
    /// `callers:`, which admits the owner's items only unless it says `anyone`.
    pub fn allows_from(&self, who: &crate::Provenance, tool: &str) -> bool {
        if who.is_owner() || tool.contains('.') || tool == "mcp" {
            return true;
        }
        who.policy_keys().iter().any(|key| match self.from.get(key) {
            Some(grant) => grant.allows(tool),
            None => key == "anyone" && ANYONE.contains(&tool),
        })
    }

    /// The line of `cn.yaml` that would let `who`'s items cause `tool` without asking. Only
    /// an authenticated author can be remembered: a public source without a user (an email
    /// whose sender the receiving server did not authenticate, an event no one wrote) gets
    /// "this once" only — a line for the whole sense would let anyone on it cause `tool`.
    pub fn widening(who: &crate::Provenance, tool: &str) -> String {
        if let crate::Provenance::Public { sense, user: None } = who {
            return format!(
                "nothing: this once only (the sender on {sense} is not authenticated, so no line can name them; \
                 `policy.from.{sense}` would let everyone on {sense} cause `{tool}`)"
            );
        }
        let key = who.policy_keys().pop().unwrap_or_else(|| "anyone".into());
        format!("policy.from.{key}: [{tool}]  (added to cn.yaml under `policy: from:`)")
    }

    /// Whether commands run sandboxed (`policy.sandbox`, default true).
    pub fn sandboxed(&self) -> bool {
        self.sandbox.unwrap_or(true)
    }

    /// Grant `tools` to `level` (used when building defaults).
    pub fn grant(mut self, level: Level, tools: &[&str]) -> Self {
        self.levels.entry(level).or_default().0.extend(tools.iter().map(|s| s.to_string()));
        self
    }

    /// Whether `url` may be fetched: with no `urls:` list, any; else one entry must match it
    /// by scheme, host, port and path (the entry's path a prefix on a `/` boundary), never by
    /// string prefix (`https://example.com` does not admit `https://example.com.evil` or
    /// `https://example.com@evil`). An entry that does not parse as a URL matches nothing.
    pub fn url_allowed(&self, url: &url::Url) -> bool {
        self.urls.as_ref().is_none_or(|list| list.iter().any(|entry| url_matches(entry, url)))
    }

    /// Whether a `urls:` entry names `url`'s host and port: only then may a fetch reach a
    /// loopback, private, link-local or metadata address.
    pub fn names_host(&self, url: &url::Url) -> bool {
        self.urls.iter().flatten().filter_map(|e| url::Url::parse(e).ok()).any(|e| same_origin(&e, url))
    }

    /// What a `cn.yaml` without `policy:` means: the grants `cn init` writes and README
    /// documents — the ops below the executive's (levels 0–2 answer, close or defer; the
    /// executive also its own state tools and reading files in the hub), no shell.
    pub fn documented() -> Policy {
        Policy::default()
            .grant(0, &["reply", "noop", "ack"])
            .grant(1, &["reply", "noop", "ack", "defer"])
            .grant(2, &["reply", "noop", "ack", "defer"])
            .grant(3, &["reply", "send", "noop", "ack", "surface", "commit", "defer", "delegate", "delete"])
            .grant(3, STATE_TOOLS)
            .grant(3, &["reflex_write", "note_write", "read_file"])
    }

    /// Read `policy:` from a config value; absent means the documented defaults.
    pub fn from_config(value: Option<&serde_json::Value>) -> Result<Policy, ConfigError> {
        match value {
            None | Some(serde_json::Value::Null) => Ok(Policy::documented()),
            Some(v) => {
                serde_json::from_value(v.clone()).map_err(|error| ConfigError::Section { key: "policy".into(), error })
            }
        }
    }
}

fn documented_levels() -> BTreeMap<Level, Grant> {
    Policy::documented().levels
}

/// `policy.levels` as cn.yaml writes it, over the documented grants: each level it names
/// replaces that level's grant; a level it does not name keeps the documented one.
fn levels_over_documented<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<Level, Grant>, D::Error> {
    let mut levels = documented_levels();
    levels.extend(Option::<BTreeMap<Level, Grant>>::deserialize(d)?.unwrap_or_default());
    Ok(levels)
}

/// Same scheme, host and port (the scheme's default when none is written).
pub fn same_origin(a: &url::Url, b: &url::Url) -> bool {
    a.scheme() == b.scheme() && a.host() == b.host() && a.port_or_known_default() == b.port_or_known_default()
}

fn url_matches(entry: &str, url: &url::Url) -> bool {
    let Ok(e) = url::Url::parse(entry) else { return false };
    if !same_origin(&e, url) || !url.username().is_empty() || url.password().is_some() {
        return false;
    }
    let prefix = e.path().trim_end_matches('/');
    let path = url.path();
    path == prefix || prefix.is_empty() || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
}

// ---------------------------------------------------------------------------------------
// reflexes: (cn-reflex)

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

// ---------------------------------------------------------------------------------------
// loops: (cn-loops)

/// The `loops:` section: the components `cn loop` uses when task.md names none. Kept as
/// values: cn-loops parses a component spec the same way from task.md and from here.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoopsConfig {
    pub controller: Option<serde_json::Value>,
    pub actuator: Option<serde_json::Value>,
}

// ---------------------------------------------------------------------------------------
// mcp: (cn-mcp)

/// One entry of `mcp:` — an MCP server. Its tools are `name.tool` in the registry, and no
/// level may call them until `policy.levels` names them (`name.*` or `name.tool`).
///
/// ```yaml
/// mcp:
///   time:
///     command: [uvx, mcp-server-time]
///     env: [TZ]
///   search:
///     url: http://127.0.0.1:8931/mcp
///     callers: anyone
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServer {
    /// A stdio server: the program and its arguments, run through `cn_process::child` (cleared
    /// environment, own process group).
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// A streamable-HTTP server.
    #[serde(default)]
    pub url: Option<String>,
    /// Environment variables a stdio server gets from cn's, besides `child::BASE_ENV`.
    #[serde(default)]
    pub env: Vec<String>,
    /// Longest the start or any one call may take (default 30 s); past it the server is
    /// restarted, after a backoff.
    #[serde(default = "mcp_timeout", with = "duration")]
    pub timeout: Duration,
    /// Whose items may cause a call: `owner` (default: only while the current item is the
    /// owner's) or `anyone`.
    #[serde(default)]
    pub callers: McpCallers,
    /// A stdio server runs in the Landlock sandbox (`cn_process::sandbox`): it writes only its
    /// own temporary directory and has no network, unless this widens it
    /// (`{network: true, write: [~/.cache/uv]}`) or says `false`.
    #[serde(default)]
    pub sandbox: crate::protect::SandboxSpec,
}

fn mcp_timeout() -> Duration {
    Duration::from_secs(30)
}

/// Whose items may cause calls to an MCP server's tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum McpCallers {
    #[default]
    Owner,
    Anyone,
}

// ---------------------------------------------------------------------------------------
// pacing:, attention:, senses: (cn-autonomy)

/// Pacing intervals (`pacing:`; `5s`, `1m`, or seconds as a number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Pacing {
    /// Between checks while there is work (an item was decided within the idle interval).
    #[serde(with = "duration")]
    pub active: Duration,
    /// Between checks when nothing is happening.
    #[serde(with = "duration")]
    pub idle: Duration,
    /// When an item the daemon deferred on its own (the move limit, an exhausted budget)
    /// comes back to the queue: this long after. Nothing is parked forever.
    #[serde(with = "duration")]
    pub retry_deferred: Duration,
}

impl Default for Pacing {
    fn default() -> Self {
        Pacing {
            active: Duration::from_secs(5),
            idle: Duration::from_secs(60),
            retry_deferred: Duration::from_secs(3600),
        }
    }
}

/// Pool settings (`attention:`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PoolConfig {
    /// Most non-owner items held at once; beyond it the least salient are shed.
    pub capacity: usize,
    /// How many recently decided keys count as "seen" (novelty).
    pub recent: usize,
    pub weights: Weights,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig { capacity: 1000, recent: 256, weights: Weights::default() }
    }
}

/// The salience weights (`attention.weights`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Weights {
    pub owner: f64,
    pub discord: f64,
    pub telegram: f64,
    pub email: f64,
    pub github: f64,
    pub calendar: f64,
    pub file: f64,
    pub peer: f64,
    pub task: f64,
    pub schedule: f64,
    pub idea: f64,
    /// Added for an item with a due time.
    pub due: f64,
    /// Per step of priority above 5 (priority 1 gets 4 steps).
    pub priority: f64,
    /// Gained per minute waited (or overdue).
    pub per_minute: f64,
    /// Taken off an item whose key was decided recently (not novel).
    pub repeat: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            owner: 1000.0,
            discord: 50.0,
            telegram: 50.0,
            email: 45.0,
            github: 40.0,
            calendar: 45.0,
            file: 10.0,
            peer: 60.0,
            task: 35.0,
            schedule: 30.0,
            idea: 5.0,
            due: 20.0,
            priority: 10.0,
            per_minute: 0.5,
            repeat: 15.0,
        }
    }
}

/// `senses:` — each sense is on when its key is present (the owner endpoint by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SensesConfig {
    /// Address of the HTTP server for the owner endpoint and GitHub webhooks.
    pub bind: SocketAddr,
    /// Whether `bind` may be an address other than loopback (issue 34): the owner endpoint
    /// is plain HTTP, so its token would cross the network in clear. GitHub's webhook needs
    /// a public address; put a TLS proxy in front, or say so here.
    pub allow_remote: bool,
    pub owner: OwnerConfig,
    pub github: Option<GithubConfig>,
    pub discord: Option<DiscordConfig>,
    pub telegram: Option<TelegramConfig>,
    pub email: Option<EmailConfig>,
    pub files: Option<FilesConfig>,
    pub calendar: Vec<CalendarConfig>,
    /// Peer mail: on by default — the daemon syncs whenever the hub has peers.
    #[serde(deserialize_with = "or_default")]
    pub peers: PeersConfig,
}

impl Default for SensesConfig {
    fn default() -> Self {
        SensesConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 7878)),
            allow_remote: false,
            owner: OwnerConfig::default(),
            github: None,
            discord: None,
            telegram: None,
            email: None,
            files: None,
            calendar: Vec::new(),
            peers: PeersConfig::default(),
        }
    }
}

/// `senses.owner:` — `POST /owner/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OwnerConfig {
    pub enabled: bool,
    /// Environment variable holding a bearer token the request must carry.
    pub token_env: Option<String>,
    /// Where the owner's reminders are told when they were not asked on a channel
    /// (`cn task add --remind`, `cn schedule add --remind`): `chat` (the default: `cn chat`
    /// and the control room show it), `telegram:CHAT_ID`, `discord:CHANNEL_ID`,
    /// `email:ADDRESS` or `peer:NAME`.
    pub remind: Option<String>,
}

impl Default for OwnerConfig {
    fn default() -> Self {
        OwnerConfig { enabled: true, token_env: None, remind: None }
    }
}

impl OwnerConfig {
    /// Where the owner's reminders are told ([`OwnerConfig::remind`]), or why
    /// `senses.owner.remind` cannot be read (checked when cn.yaml is loaded).
    pub fn reminders_to(&self) -> Result<crate::origin::AnswerTo, String> {
        use crate::origin::AnswerTo;
        let Some(said) = self.remind.as_deref().map(str::trim) else { return Ok(AnswerTo::via("chat")) };
        let bad = |why: &str| {
            format!("`{said}` {why} (chat, telegram:CHAT_ID, discord:CHANNEL_ID, email:ADDRESS or peer:NAME)")
        };
        let (via, at) = match said.split_once(':') {
            None => (said, ""),
            Some((via, at)) => (via.trim(), at.trim()),
        };
        match (via, at) {
            ("chat", "") => Ok(AnswerTo::via("chat")),
            ("telegram" | "discord", at) if !at.is_empty() => {
                if at.parse::<i64>().is_err() {
                    return Err(bad("does not name a chat or channel by its number"));
                }
                Ok(AnswerTo { channel: Some(at.into()), ..AnswerTo::via(via) })
            }
            ("email" | "peer", at) if !at.is_empty() => Ok(AnswerTo::via(via).to(at)),
            ("chat" | "telegram" | "discord" | "email" | "peer", _) => Err(bad("says where, but not whom")),
            _ => Err(bad("is not a channel")),
        }
    }
}

/// `senses.github:` — webhook receiver and/or notification polling.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PollConfig {
    pub token_env: String,
    pub base_url: String,
    #[serde(with = "duration")]
    pub every: Duration,
}

impl Default for PollConfig {
    fn default() -> Self {
        PollConfig {
            token_env: "GITHUB_TOKEN".into(),
            base_url: "https://api.github.com".into(),
            every: Duration::from_secs(60),
        }
    }
}

/// `senses.peers:` — while the hub has peers (cn.yaml's `peers:` or `cn peer add`), the
/// daemon runs `cn sync` every `every` (mail in from peers, the outbox out to `origin`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PeersConfig {
    /// `false`: the daemon never syncs (`cn sync` by hand, or from cron).
    pub enabled: bool,
    #[serde(with = "duration")]
    pub every: Duration,
}

impl Default for PeersConfig {
    fn default() -> Self {
        PeersConfig { enabled: true, every: Duration::from_secs(300) }
    }
}

/// `senses.discord:` — a bot on Discord's gateway; its messages become percepts, and the
/// daemon answers through it (with the typing indicator while it works).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
fn snowflakes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    numeric_ids(d, "a Discord id")
}

/// Ids written as YAML numbers or strings, each read as a `T`; `what` names one in errors.
fn numeric_ids<'de, D, T>(d: D, what: &str) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + std::str::FromStr,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw<T> {
        Number(T),
        Text(String),
    }
    Vec::<Raw<T>>::deserialize(d)?
        .into_iter()
        .map(|r| match r {
            Raw::Number(n) => Ok(n),
            Raw::Text(t) => {
                t.trim().parse().map_err(|_| serde::de::Error::custom(format!("`{t}` is not {what} (a number)")))
            }
        })
        .collect()
}

/// `senses.telegram:` — a bot on Telegram's Bot API, long polling `getUpdates` (no public
/// URL needed); its messages become percepts, and the daemon answers in the same chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelegramConfig {
    /// Environment variable holding the bot token (from @BotFather).
    pub token_env: String,
    /// Telegram user ids whose messages count as the owner's (a username can change hands;
    /// an id cannot).
    #[serde(deserialize_with = "telegram_ids")]
    pub owners: Vec<i64>,
    /// Chat ids whose messages are sensed; empty: every chat the bot is in (and private
    /// chats).
    #[serde(deserialize_with = "telegram_ids")]
    pub chats: Vec<i64>,
    /// Base URL of the Bot API (`/bot<token>/<method>` follows it).
    pub api_base: String,
    /// How long one `getUpdates` long poll waits for a message before asking again.
    #[serde(with = "duration")]
    pub poll_timeout: Duration,
    /// How often "typing…" is sent again while a model works (Telegram shows it for five
    /// seconds).
    #[serde(with = "duration")]
    pub typing_every: Duration,
}

impl Default for TelegramConfig {
    fn default() -> Self {
        TelegramConfig {
            token_env: "TELEGRAM_BOT_TOKEN".into(),
            owners: Vec::new(),
            chats: Vec::new(),
            api_base: "https://api.telegram.org".into(),
            poll_timeout: Duration::from_secs(30),
            typing_every: Duration::from_secs(4),
        }
    }
}

/// `senses.email:` — mail read over IMAP from one folder (IDLE where the server offers it,
/// polling otherwise) and answered over SMTP, threaded. The owner is an address in `owners`,
/// and only when the receiving server's `Authentication-Results` (from `authserv_id`) pass
/// or the secret tag (from `tag_env`) is present: a From line alone is forgeable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmailConfig {
    /// The agent's own address: the From of its answers.
    pub address: String,
    pub imap: MailServerConfig,
    pub smtp: MailServerConfig,
    /// The folder read (`INBOX` unless set).
    pub folder: String,
    /// Addresses whose mail counts as the owner's (when authenticated, see above).
    pub owners: Vec<String>,
    /// The authserv-id of the receiving server whose `Authentication-Results` are trusted
    /// (e.g. `mx.example.com`); none: no such header is trusted.
    pub authserv_id: Option<String>,
    /// Environment variable holding a secret tag; mail with it in the subject or in a
    /// recipient's `+tag` counts as authenticated.
    pub tag_env: Option<String>,
    /// How often the folder is read when the server has no IDLE (and the longest an IDLE
    /// waits before it is renewed).
    #[serde(with = "duration")]
    pub poll_every: Duration,
}

impl Default for EmailConfig {
    fn default() -> Self {
        EmailConfig {
            address: String::new(),
            imap: MailServerConfig { port: 993, ..MailServerConfig::default() },
            smtp: MailServerConfig { port: 465, ..MailServerConfig::default() },
            folder: "INBOX".into(),
            owners: Vec::new(),
            authserv_id: None,
            tag_env: None,
            poll_every: Duration::from_secs(60),
        }
    }
}

/// One mail server (`senses.email.imap`, `senses.email.smtp`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MailServerConfig {
    pub host: String,
    pub port: u16,
    /// `tls` (implicit TLS: 993, 465), `starttls` (SMTP 587), or `plain` (only to a loopback
    /// address: a password never crosses a network in clear).
    pub security: MailSecurity,
    /// The login; the agent's address when empty.
    pub user: String,
    /// Environment variable holding the password.
    pub password_env: String,
}

impl Default for MailServerConfig {
    fn default() -> Self {
        MailServerConfig {
            host: String::new(),
            port: 0,
            security: MailSecurity::Tls,
            user: String::new(),
            password_env: "CN_EMAIL_PASSWORD".into(),
        }
    }
}

/// How a mail connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MailSecurity {
    Tls,
    Starttls,
    Plain,
}

/// Telegram ids as YAML numbers or strings (group chats are negative): `[42]`, `["-100123"]`.
fn telegram_ids<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<i64>, D::Error> {
    numeric_ids(d, "a Telegram id")
}

/// `senses.files:` — a debounced watcher.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilesConfig {
    /// Paths to watch, relative to the hub (or absolute).
    pub paths: Vec<PathBuf>,
    #[serde(with = "duration")]
    pub debounce: Duration,
    /// Path components to ignore; the hub's own `state`, `threads`, `.git` and lock by
    /// default, so the agent's own writes do not wake it.
    pub ignore: Vec<String>,
}

impl Default for FilesConfig {
    fn default() -> Self {
        FilesConfig {
            paths: Vec::new(),
            debounce: Duration::from_millis(500),
            ignore: vec![
                ".git".into(),
                crate::layout::STATE.into(),
                crate::layout::THREADS.into(),
                crate::layout::LOCK.into(),
            ],
        }
    }
}

/// One `senses.calendar:` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    std::env::var(var)
        .ok()
        // A secret of spaces is no secret: a webhook signed with it is anyone's.
        .filter(|v| !v.trim().is_empty())
        .ok_or_else(|| ConfigError::MissingEnv { key: key.into(), var: var.into() })
}

/// Durations in cn.yaml: `5s`, `1m`, `500ms`, `1h 30m`, or a number of seconds.
pub mod duration {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    /// A duration that is none (the message is serde's, naming the key and line).
    #[derive(Debug, thiserror::Error)]
    pub enum DurationError {
        #[error("`{text}` is out of range")]
        Secs { text: String, source: std::time::TryFromFloatSecsError },
        #[error(transparent)]
        Number(#[from] std::time::TryFromFloatSecsError),
        #[error("`{text}` is not a duration such as 5s, 1m or 500ms")]
        Text { text: String, source: jiff::Error },
        #[error("`{text}` is negative")]
        Negative { text: String },
    }

    pub fn parse(text: &str) -> Result<Duration, DurationError> {
        let t = text.trim();
        if let Ok(secs) = t.parse::<f64>() {
            return Duration::try_from_secs_f64(secs)
                .map_err(|source| DurationError::Secs { text: text.to_string(), source });
        }
        let sd: jiff::SignedDuration =
            t.parse().map_err(|source| DurationError::Text { text: text.to_string(), source })?;
        Duration::try_from(sd).map_err(|_| DurationError::Negative { text: text.to_string() })
    }

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        let sd = jiff::SignedDuration::try_from(*d).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&format!("{sd:#}"))
    }

    /// A duration as written in YAML: seconds as a number, or text such as `5s`.
    #[derive(Deserialize)]
    #[serde(untagged)]
    pub enum Raw {
        Secs(f64),
        Text(String),
    }

    impl Raw {
        pub fn duration(self) -> Result<Duration, DurationError> {
            match self {
                Raw::Secs(s) => Ok(Duration::try_from_secs_f64(s)?),
                Raw::Text(t) => parse(&t),
            }
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Raw::deserialize(d)?.duration().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_allowlist_entries_match_by_scheme_host_port_and_path_never_by_prefix() {
        let p = Policy {
            urls: Some(vec!["https://example.com".into(), "http://127.0.0.1:8080/docs/".into()]),
            ..Policy::default()
        };
        let ok = |u: &str| p.url_allowed(&url::Url::parse(u).unwrap());
        assert!(ok("https://example.com/") && ok("https://EXAMPLE.com/a?b") && ok("https://example.com:443/x"));
        assert!(ok("http://127.0.0.1:8080/docs") && ok("http://127.0.0.1:8080/docs/a"));
        for bad in [
            "https://example.com.evil/",
            "https://example.com@evil/",
            "https://user:pw@example.com/",
            "http://example.com/",
            "https://example.com:8443/",
            "http://127.0.0.1:8080/docsx",
            "http://127.0.0.1:8081/docs/",
        ] {
            assert!(!ok(bad), "{bad}");
        }
        assert!(p.names_host(&url::Url::parse("http://127.0.0.1:8080/other").unwrap()));
        assert!(!p.names_host(&url::Url::parse("http://127.0.0.1:9/").unwrap()));
        assert!(Policy::default().url_allowed(&url::Url::parse("https://anything.example/").unwrap()));
    }

    const TEMPLATE: &str = include_str!("../../agent/src/templates/cn.yaml");

    fn parse(yaml: &str) -> Result<HubConfig, ConfigError> {
        HubConfig::parse(yaml, Path::new("/h/cn.yaml"))
    }

    #[test]
    fn otel_is_checked_and_unknown_keys_get_a_suggestion() {
        assert_eq!(parse("name: a\n").unwrap().otel, None, "off unless present");
        let c = parse("otel:\n  endpoint: https://collector.example:4318/v1/traces\n  headers_env: {authorization: OTEL_AUTH}\n  interval: 500ms\n").unwrap();
        let o = c.otel.unwrap();
        assert_eq!(o.headers_env["authorization"], "OTEL_AUTH");
        assert_eq!((o.service_name.as_str(), o.queue, o.interval), ("cn", 2048, Duration::from_millis(500)));
        for (yaml, want) in [
            ("otel:\n  endpoint: ftp://x/\n", "otel.endpoint"),
            ("otel:\n  endpoint: http://u:secret@x/v1/traces\n", "without credentials"),
            ("otel:\n  endpoint: http://x/\n  queue: 0\n", "otel.queue"),
            ("otel:\n  endpoint: http://x/\n  headers_env: {'a b': X}\n", "otel.headers_env"),
            ("otel:\n  endpoint: http://x/\n  endpont: 1\n", "did you mean `endpoint`?"),
            ("otel:\n  headers_env: {}\n", "endpoint"),
        ] {
            let e = parse(yaml).unwrap_err().to_string();
            assert!(e.contains(want), "{yaml}: {e}");
            assert!(!e.contains("secret"), "{e}");
        }
    }

    #[test]
    fn peers_at_once_is_a_number_of_peers_within_bounds() {
        assert_eq!(parse("name: a\n").unwrap().mail.peers_at_once, PEERS_AT_ONCE);
        let c = parse("mail: {peers_at_once: 48}\n").unwrap();
        assert_eq!((c.mail.peers_at_once, c.mail.max_bytes), (48, 1 << 20), "the other key keeps its default");
        for yaml in ["mail: {peers_at_once: 0}\n", "mail: {peers_at_once: 129}\n", "mail: {peers_at_once: -1}\n"] {
            let e = parse(yaml).unwrap_err().to_string();
            assert!(e.contains("peers_at_once") || e.contains("mail"), "{yaml}: {e}");
            assert!(e.contains("cn.yaml"), "{yaml}: the file is named: {e}");
        }
        let e = parse("mail: {peers_at_once: 0}\n").unwrap_err().to_string();
        assert!(e.contains("peers_at_once must be 1 to 128, not 0"), "{e}");
        assert_eq!(parse("name: a\n").unwrap().mail.peer_timeout, PEER_TIMEOUT);
        assert_eq!(parse("mail: {peer_timeout: 4s}\n").unwrap().mail.peer_timeout, Duration::from_secs(4));
    }

    #[test]
    fn mcp_servers_are_checked_with_the_key_named() {
        let c = parse("mcp:\n  time: {command: [mcp-server-time], env: [TZ], timeout: 5s}\n  web: {url: 'http://127.0.0.1:9/mcp', callers: anyone}\n").unwrap();
        assert_eq!(c.mcp["time"].command.as_deref(), Some(&["mcp-server-time".to_string()][..]));
        assert_eq!(c.mcp["time"].timeout, Duration::from_secs(5));
        assert_eq!(c.mcp["time"].callers, McpCallers::Owner);
        assert_eq!(c.mcp["web"].callers, McpCallers::Anyone);
        for (yaml, says) in [
            ("mcp:\n  t: {}\n", "exactly one of `command`"),
            ("mcp:\n  t: {command: [x], url: 'http://a/'}\n", "exactly one of"),
            ("mcp:\n  t: {command: []}\n", "`command` is empty"),
            ("mcp:\n  t: {url: 'http://u:secret@a/'}\n", "without credentials"),
            ("mcp:\n  t.x: {command: [x]}\n", "letters, digits"),
            ("mcp:\n  t: {command: [x], comand: [y]}\n", "comand"),
            ("mcp:\n  t: {command: [x], callers: everyone}\n", "everyone"),
        ] {
            let e = parse(yaml).unwrap_err().to_string();
            assert!(e.contains(says) && e.contains("mcp"), "{yaml}: {e}");
            assert!(!e.contains("secret"), "{e}");
        }
    }

    #[test]
    fn every_section_parses_from_the_template() {
        let c = parse(&TEMPLATE.replace("{{name}}", "sigma").replace("{{port}}", "23456")).unwrap();
        assert_eq!(c.name.as_deref(), Some("sigma"));
        assert!(c.peers.is_empty());
        assert_eq!(c.models.local().provider, Some(ProviderKind::Embedded));
        assert_eq!(c.models.executive, None);
        assert_eq!(c.budget.daily_tokens, Some(200_000));
        assert_eq!((c.budget.min_interval_secs, c.budget.on_exhausted), (600, OnExhausted::Local));
        assert!(c.policy.allows(3, "read_file") && !c.policy.allows(2, "read_file") && !c.policy.shell);
        assert_eq!(c.reflexes, ReflexConfig::default());
        assert_eq!(c.loops, LoopsConfig::default());
        assert_eq!(c.pacing, Pacing::default());
        assert_eq!(c.attention, PoolConfig::default());
        assert_eq!(c.senses.bind, SocketAddr::from(([127, 0, 0, 1], 23456)));
        assert_eq!(c.senses.peers, PeersConfig { enabled: true, every: Duration::from_secs(60) });
        assert_eq!(
            SensesConfig { bind: c.senses.bind, peers: c.senses.peers.clone(), ..SensesConfig::default() },
            c.senses
        );
    }

    #[test]
    fn a_partial_section_merges_with_the_documented_defaults_key_by_key() {
        // `policy:` with only `urls:` keeps the documented levels (a calendar item once ended
        // "level 2 may not call `noop`").
        let c = parse("policy:\n  urls: [https://example.com/]\n").unwrap();
        assert_eq!(c.policy.levels, Policy::documented().levels);
        assert!(c.policy.allows(2, "noop") && c.policy.url_allowed(&url::Url::parse("https://example.com/a").unwrap()));
        // A level named replaces that level's grant; the others keep theirs; `[]` empties one.
        let c = parse("policy:\n  levels:\n    2: [reply]\n    0: []\n").unwrap();
        assert!(c.policy.allows(2, "reply") && !c.policy.allows(2, "noop"));
        assert!(!c.policy.allows(0, "reply"), "an empty list grants nothing");
        assert_eq!(c.policy.levels[&1], Policy::documented().levels[&1]);
        assert_eq!(c.policy.levels[&3], Policy::documented().levels[&3]);
        // A partial `senses:` keeps the rest of its defaults.
        let c = parse("senses:\n  peers: {every: 30s}\n").unwrap();
        assert_eq!(c.senses.bind, SensesConfig::default().bind);
        assert!(c.senses.owner.enabled && c.senses.peers.enabled);
    }

    #[test]
    fn every_section_parses_when_written_out() {
        let c = parse(
            "name: sigma\npeers: {pi: /srv/pi.git}\n\
             models: {executive: {provider: anthropic, model: m, api_key_env: K, price_per_mtok_in: 3}}\n\
             budget: {daily_tokens: 1000, on_exhausted: defer}\n\
             policy: {levels: {2: [reply]}, shell: true}\n\
             reflexes: {min_samples: 3, grants: {0: [reply]}}\n\
             loops: {controller: {model: executive}, actuator: manual}\n\
             pacing: {active: 2s, idle: 1m}\n\
             attention: {capacity: 5, weights: {owner: 1}}\n\
             senses: {bind: 127.0.0.1:0, peers: {every: 30s}, discord: {channels: [1, \"2\"]}}\n",
        )
        .unwrap();
        assert_eq!(c.peers["pi"], "/srv/pi.git");
        assert_eq!(c.models.executive.as_ref().map(|e| e.cost(1_000_000, 0)), Some(3.0));
        assert_eq!(c.budget.on_exhausted, OnExhausted::Defer);
        assert!(c.policy.allows(2, "reply") && c.policy.shell);
        assert_eq!(c.reflexes.min_samples, 3);
        assert_eq!(c.loops.actuator, Some(serde_json::json!("manual")));
        assert_eq!(c.pacing.idle, Duration::from_secs(60));
        assert_eq!((c.attention.capacity, c.attention.weights.owner), (5, 1.0));
        assert_eq!(c.senses.peers, PeersConfig { enabled: true, every: Duration::from_secs(30) });
        assert_eq!(c.senses.discord.map(|d| d.channels), Some(vec![1, 2]));
    }

    #[test]
    fn serve_is_on_when_present_even_empty() {
        let p = Path::new("/h/cn.yaml");
        assert_eq!(HubConfig::parse("name: a\n", p).unwrap().serve, None);
        assert_eq!(HubConfig::parse("name: a\nserve:\n", p).unwrap().serve, Some(ServeConfig::default()));
        let c = HubConfig::parse("serve:\n  bind: 127.0.0.1:8787\n", p).unwrap().serve.unwrap();
        assert_eq!((c.bind.as_str(), c.allow_remote), ("127.0.0.1:8787", false));
        let e = HubConfig::parse("serve:\n  bnid: x\n", p).unwrap_err().to_string();
        assert!(e.contains("bnid") && e.contains("did you mean `bind`"), "{e}");
    }

    #[test]
    fn an_unknown_key_names_its_path_and_the_file() {
        let e = parse("name: sigma\nbogus: 1\n").unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, ConfigError::Key { .. }) && m.contains("bogus") && m.contains("/h/cn.yaml"), "{m}");
        let m = parse("senses:\n  github: {secret: x}\n").unwrap_err().to_string();
        assert!(m.contains("senses.github") && m.contains("secret") && m.contains("/h/cn.yaml"), "{m}");
        let m = parse("models:\n  local:\n    provder: ollama\n").unwrap_err().to_string();
        assert!(m.contains("models.local") && m.contains("provder"), "{m}");
        let m = parse("pacing: {idle: soon}\n").unwrap_err().to_string();
        assert!(m.contains("pacing.idle"), "{m}");
        let m = parse("reflexes:\n  learn:\n    promote_afterr: 2\n").unwrap_err().to_string();
        assert!(m.contains("promote_afterr") && m.contains("did you mean `promote_after`"), "{m}");
        let c = parse("reflexes:\n  learn:\n    promote_after: 0\n").unwrap();
        assert_eq!((c.reflexes.learn.promote_after, c.reflexes.learn.check_every), (0, 20));
        let m = parse("reflexes:\n  disable_above: 2\n").unwrap_err().to_string();
        assert!(m.contains("reflexes.disable_above") && m.contains("/h/cn.yaml"), "{m}");
    }

    #[test]
    fn a_syntax_error_names_the_file_and_the_line() {
        let e = parse("name: sigma\npeers: [\n").unwrap_err();
        let m = e.to_string();
        assert!(m.contains("/h/cn.yaml") && m.contains("line"), "{m}");
    }

    #[test]
    fn empty_or_missing_is_all_defaults_and_null_sections_are_defaults() {
        assert_eq!(parse("").unwrap(), HubConfig::default());
        assert_eq!(parse("# only a comment\n").unwrap(), HubConfig::default());
        assert_eq!(parse("senses:\npolicy:\n").unwrap(), HubConfig::default());
        let dir = tempfile::tempdir().unwrap();
        let (c, raw) = HubConfig::load_with_raw(&dir.path().join("cn.yaml")).unwrap();
        assert_eq!((c, raw), (HubConfig::default(), cn_compute::Config::default()));
    }

    #[test]
    fn the_raw_value_is_the_file_as_is() {
        let (_, raw) =
            HubConfig::parse_with_raw("name: sigma\nbudget: {daily_tokens: 5}\n", Path::new("cn.yaml")).unwrap();
        assert_eq!(raw.get("budget.daily_tokens"), Some(&serde_json::json!(5)));
        assert_eq!(BudgetConfig::from_config(&raw).unwrap().daily_tokens, Some(5));
    }

    #[test]
    fn telegram_and_email_sections_parse_and_misspellings_are_named() {
        let c = parse(
            "senses:\n  telegram: {token_env: T, owners: [42, \"-100123\"], api_base: \"http://127.0.0.1:9\"}\n  \
             email:\n    address: a@example.net\n    owners: [me@example.org]\n    authserv_id: mx.example.net\n    \
             imap: {host: 127.0.0.1, port: 143, security: plain}\n    smtp: {host: smtp.example.net, port: 587, security: starttls}\n",
        )
        .unwrap();
        let t = c.senses.telegram.unwrap();
        assert_eq!(
            (t.owners, t.api_base.as_str(), t.poll_timeout),
            (vec![42, -100123], "http://127.0.0.1:9", Duration::from_secs(30))
        );
        let e = c.senses.email.unwrap();
        assert_eq!(
            (e.imap.security, e.smtp.security, e.folder.as_str()),
            (MailSecurity::Plain, MailSecurity::Starttls, "INBOX")
        );
        let err = parse("senses:\n  telegram: {ownres: [1]}\n").unwrap_err().to_string();
        assert!(err.ends_with("did you mean `owners`?"), "{err}");
        let err = parse("senses:\n  telegram: {owners: [\"@grace\"]}\n").unwrap_err().to_string();
        assert!(err.contains("`@grace` is not a Telegram id"), "{err}");
        let err = parse("senses:\n  email: {imap: {security: tsl}}\n").unwrap_err().to_string();
        assert!(err.contains("tsl"), "{err}");
    }

    #[test]
    fn a_misspelt_key_gets_a_suggestion_and_no_policy_means_the_documented_one() {
        let e = parse("name: a\nbugdet: {daily_tokens: 5}\n").unwrap_err().to_string();
        assert!(e.contains("/h/cn.yaml") && e.contains("bugdet") && e.ends_with("did you mean `budget`?"), "{e}");
        let e = parse("policy:\n  levles: {}\n").unwrap_err().to_string();
        assert!(e.contains("levles") && e.ends_with("did you mean `levels`?"), "{e}");
        let e = parse("zzzzzz: 1\n").unwrap_err().to_string();
        assert!(!e.contains("did you mean"), "{e}");
        let c = parse("name: a\n").unwrap();
        assert!(c.policy.allows(2, "defer") && c.policy.allows(3, "delegate") && !c.policy.allows(2, "send"));
        assert_eq!(parse("name: a\npolicy:\n").unwrap().policy, Policy::documented());
        assert_eq!(crate::words::edit_distance("bugdet", "budget"), 1);
    }

    #[test]
    fn the_effective_config_says_where_each_value_came_from() {
        let text = "name: sigma\npolicy:\n  urls: [https://example.com/]\nsenses:\n  peers: {every: 30s}\n";
        let (c, raw) = HubConfig::parse_with_raw(text, Path::new("/h/cn.yaml")).unwrap();
        let settings = c.settings(&raw);
        let get = |k: &str| settings.iter().find(|s| s.key == k).unwrap_or_else(|| panic!("{k}: {settings:#?}"));
        assert_eq!((get("name").from, get("name").value.clone()), (Source::File, serde_json::json!("sigma")));
        assert_eq!(get("policy.urls").from, Source::File);
        assert_eq!(get("policy.levels.2").from, Source::Default);
        assert_eq!(get("policy.levels.2").value, serde_json::json!(["reply", "noop", "ack", "defer"]));
        assert_eq!(
            (get("senses.peers.every").from, get("senses.peers.every").value.clone()),
            (Source::File, serde_json::json!("30s"))
        );
        assert_eq!(get("senses.peers.enabled").from, Source::Default);
        assert_eq!(get("senses.bind").from, Source::Default);
        assert_eq!(
            (get("models.executive").from, get("models.executive").value.clone()),
            (Source::Default, serde_json::Value::Null)
        );
    }

    #[test]
    fn policy_from_a_value_names_the_key() {
        let v = serde_json::json!({"levels": {"2": ["reply"]}, "bogus": 1});
        let e = Policy::from_config(Some(&v)).unwrap_err().to_string();
        assert!(e.contains("policy") && e.contains("bogus"), "{e}");
    }
}
