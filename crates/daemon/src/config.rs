//! What the daemon takes from the hub's `cn.yaml`. The hub parsed it once when it was opened
//! ([`cn_hub::Hub::open`]); [`sections`] only hands each layer its typed section and builds the
//! models from them, so `cn run` reads the file exactly once.

/// The cn.yaml sections `cn run` uses.
pub struct DaemonConfig {
    /// `pacing`, `attention`, `senses`.
    pub autonomy: cn_autonomy::AutonomyConfig,
    /// `models`: per-level limits and the local model's provider.
    pub models: cn_models::ModelsConfig,
    /// The models for each level, built from `models`.
    pub tiered: cn_models::Tiered,
    /// `policy`: what the tools may touch.
    pub policy: cn_tools::Policy,
}

/// A cn.yaml the daemon cannot use: the hub's one config error (it names the file and key).
pub type ConfigError = cn_hub::ConfigError;

/// Every section `cn run` needs, from the hub's parsed config; builds the models (an API
/// key's environment variable must be set).
pub fn sections(hub: &cn_hub::Hub) -> Result<DaemonConfig, ConfigError> {
    let config = hub.config();
    Ok(DaemonConfig {
        autonomy: cn_autonomy::AutonomyConfig::of(config),
        models: config.models.clone(),
        tiered: cn_models::tiered(&config.models, &config.budget, hub.root())?,
        policy: config.policy.clone(),
    })
}
