//! The cn.yaml sections autonomy reads: `pacing`, `attention` and `senses`. cn.yaml is read
//! once by `cn_hub` (every key of every layer is checked there, so a typo never silently
//! disables a sense); the section types live in `cn_hub::config` and are re-exported here.
//!
//! Secrets are never in cn.yaml: a key such as `secret_env` names the environment variable
//! that holds the secret.

use std::path::Path;

pub use cn_hub::config::{
    duration, env_secret, CalendarConfig, ConfigError, DiscordConfig, EmailConfig, FilesConfig, GithubConfig,
    MailSecurity, MailServerConfig, OwnerConfig, PeersConfig, PollConfig, SensesConfig, TelegramConfig,
};
use cn_hub::HubConfig;

use crate::attention::PoolConfig;
use crate::rest::Pacing;

/// Everything autonomy reads from cn.yaml.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AutonomyConfig {
    pub pacing: Pacing,
    pub attention: PoolConfig,
    pub senses: SensesConfig,
}

impl AutonomyConfig {
    /// Autonomy's sections of an already parsed cn.yaml.
    pub fn of(config: &HubConfig) -> Self {
        AutonomyConfig { pacing: config.pacing, attention: config.attention.clone(), senses: config.senses.clone() }
    }

    /// Read the hub's cn.yaml (a missing file means all defaults: no senses). Callers that
    /// hold a [`cn_hub::Hub`] use [`AutonomyConfig::of`] instead of reading it again.
    pub fn load(hub: &Path) -> Result<Self, ConfigError> {
        Ok(Self::of(&HubConfig::load(&cn_hub::Layout::new(hub).config())?))
    }

    /// Parse from cn.yaml text; the error names the key path.
    pub fn from_yaml(text: &str) -> Result<Self, ConfigError> {
        Ok(Self::of(&HubConfig::parse(text, Path::new(cn_hub::layout::CONFIG))?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn reads_our_keys_ignores_others_and_names_bad_ones() {
        let c = AutonomyConfig::from_yaml(
            "models: {executive: {provider: anthropic}}\npacing: {active: 2s, idle: 1m}\nsenses:\n  bind: 127.0.0.1:0\n  github: {secret_env: HOOK, owners: [alice]}\n  calendar:\n    - source: cal.ics\n      lead: 10m\n",
        )
        .unwrap();
        assert_eq!(c.pacing.active, Duration::from_secs(2));
        assert_eq!(c.pacing.idle, Duration::from_secs(60));
        assert_eq!(c.senses.github.unwrap().owners, ["alice"]);
        assert_eq!(c.senses.calendar[0].lead, Duration::from_secs(600));
        assert!(c.senses.owner.enabled);
        let on = |every| PeersConfig { enabled: true, every: Duration::from_secs(every) };
        assert_eq!(c.senses.peers, on(300), "peer sync is on by default (it runs while the hub has peers)");
        let peers = |yaml: &str| AutonomyConfig::from_yaml(yaml).map(|c| c.senses.peers);
        assert_eq!(peers("senses:\n  peers: {}\n").unwrap(), on(300));
        assert_eq!(peers("senses:\n  peers: {every: 30s}\n").unwrap(), on(30));
        assert!(!peers("senses:\n  peers: {enabled: false}\n").unwrap().enabled);
        let e = peers("senses:\n  peers: {every: soon}\n").unwrap_err().to_string();
        assert!(e.contains("senses.peers"), "{e}");
        let e = AutonomyConfig::from_yaml("senses:\n  github: {secret: x}\n").unwrap_err().to_string();
        assert!(e.contains("senses.github") && e.contains("secret"), "{e}");
        let e = AutonomyConfig::from_yaml("pacing: {activ: 2s}\n").unwrap_err().to_string();
        assert!(e.contains("activ"), "a typo must not silently keep the default: {e}");
        let e = AutonomyConfig::from_yaml("pacing: {idle: soon}\n").unwrap_err().to_string();
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
        let e = AutonomyConfig::from_yaml("senses:\n  discord: {token: abc}\n").unwrap_err().to_string();
        assert!(e.contains("senses.discord") && e.contains("token"), "{e}");
        let e = AutonomyConfig::from_yaml("senses:\n  discord: {owners: [alice]}\n").unwrap_err().to_string();
        assert!(e.contains("senses.discord.owners") && e.contains("alice"), "{e}");
    }
}
