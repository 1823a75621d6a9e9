//! The checks of cn.yaml a type cannot express: names, remotes, the keys of `policy.from:`,
//! the MCP servers, `otel:`, the limits of `mail:` and `origin:`. Each failure names the key
//! path and the file ([`ConfigError::Value`]).

use std::path::Path;
use std::time::Duration;

use super::{ConfigError, HubConfig, Policy};

impl HubConfig {
    /// Checks a type cannot express.
    pub(super) fn check(&self, path: &Path) -> Result<(), ConfigError> {
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
