//! What the daemon reads from the hub's `cn.yaml`, gathered in one place: [`load_config`]
//! calls each layer's loader (the kernel's, autonomy's, the models', the tool policy's) once.
//! When the hub's format has one home (`cn_hub::Hub`, sections parsed once), this function is
//! the one to swap.

use std::path::{Path, PathBuf};

/// The cn.yaml sections `cn run` uses.
pub struct DaemonConfig {
    /// `<hub>/cn.yaml` (the kernel's `Inputs::config`).
    pub path: PathBuf,
    /// The kernel's view of cn.yaml (the models and budget sections read from it).
    pub kernel: cn_compute::Config,
    /// `pacing`, `attention`, `senses`.
    pub autonomy: cn_autonomy::AutonomyConfig,
    /// `models`: per-level limits and the local model's provider.
    pub models: cn_models::ModelsConfig,
    /// The models for each level, built from `models`.
    pub tiered: cn_models::Tiered,
    /// `policy`: what the tools may touch.
    pub policy: cn_tools::Policy,
}

/// A cn.yaml the daemon cannot use. Each message is complete as shown (it names the file or
/// the key), so the binary prints it as it is.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The kernel's loader reports a message, not an error type.
    #[error("{0}")]
    Kernel(String),
    #[error(transparent)]
    Autonomy(#[from] cn_autonomy::config::ConfigError),
    #[error("cn.yaml: {0}")]
    Models(#[from] cn_models::ConfigError),
    /// The tool policy's loader reports a message, not an error type.
    #[error("{0}")]
    Policy(String),
}

/// Read every section `cn run` needs from `<hub>/cn.yaml`.
pub fn load_config(hub: &Path) -> Result<DaemonConfig, ConfigError> {
    let path = hub.join("cn.yaml");
    let kernel = cn_compute::Config::load(&path).map_err(ConfigError::Kernel)?;
    let autonomy = cn_autonomy::AutonomyConfig::load(hub)?;
    let tiered = cn_models::from_config(&kernel, hub)?;
    let models = cn_models::ModelsConfig::from_config(&kernel)?;
    let policy = cn_tools::Policy::from_config(kernel.get("policy")).map_err(ConfigError::Policy)?;
    Ok(DaemonConfig { path, kernel, autonomy, models, tiered, policy })
}
