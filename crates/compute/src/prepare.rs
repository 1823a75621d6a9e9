//! prepare — initialization and wrapping.
//!
//! Initializes state (with the working directory), loads config as-is, and applies the
//! decorators, each to the verb its step names. This is the only place wrapping happens.

use std::path::PathBuf;

use crate::decorator::{Decorator, Verbs};
use crate::state::State;
use crate::{Config, Mind, Model, Outcomes, Reader, StopToken, Store, Tools};

/// The parts the layers above supply: intelligence, effects, history.
pub struct Parts {
    pub mind: Box<dyn Mind>,
    pub model: Box<dyn Model>,
    pub tools: Box<dyn Tools>,
    pub store: Box<dyn Store>,
}

/// The config `prepare` keeps as-is: a YAML file to load, or a config a caller has already
/// loaded (the daemon reads its cn.yaml once and hands the value here, so it is not read
/// twice).
#[derive(Debug, Clone, PartialEq)]
pub enum ConfigSource {
    File(PathBuf),
    Loaded(Config),
}

impl From<PathBuf> for ConfigSource {
    fn from(path: PathBuf) -> Self {
        ConfigSource::File(path)
    }
}

impl From<Config> for ConfigSource {
    fn from(config: Config) -> Self {
        ConfigSource::Loaded(config)
    }
}

/// Everything `begin` receives from outside.
pub struct Inputs {
    pub workdir: PathBuf,
    /// The config to keep as-is, if any.
    pub config: Option<ConfigSource>,
    pub parts: Parts,
    pub decorators: Vec<Decorator>,
    pub stop: StopToken,
    /// How many recent outcomes to keep for `decide` and `plan`.
    pub outcome_capacity: usize,
    /// How `parse` reads a call's params (default [`crate::open`]: kept open).
    pub reader: Reader,
}

impl Inputs {
    pub fn new(workdir: impl Into<PathBuf>, parts: Parts) -> Self {
        Inputs {
            workdir: workdir.into(),
            config: None,
            parts,
            decorators: Vec::new(),
            stop: StopToken::new(),
            outcome_capacity: 64,
            reader: crate::open,
        }
    }
}

/// What `prepare` outputs: state, config (inside state) and the wrapped verbs.
pub struct Prepared {
    pub state: State,
    pub verbs: Verbs,
}

#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    #[error("cannot read config {path}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("config {path} is not valid YAML")]
    Yaml { path: PathBuf, source: serde_yaml_ng::Error },
}

pub fn prepare(inputs: Inputs) -> Result<Prepared, PrepareError> {
    let config = match inputs.config {
        None => Config::default(),
        Some(ConfigSource::Loaded(config)) => config,
        Some(ConfigSource::File(path)) => {
            let text =
                std::fs::read_to_string(&path).map_err(|source| PrepareError::Read { path: path.clone(), source })?;
            let value: serde_json::Value = if text.trim().is_empty() {
                serde_json::Value::Null
            } else {
                serde_yaml_ng::from_str(&text).map_err(|source| PrepareError::Yaml { path: path.clone(), source })?
            };
            Config { value }
        }
    };
    let state = State {
        workdir: inputs.workdir,
        config,
        mind: inputs.parts.mind,
        model: inputs.parts.model,
        tools: inputs.parts.tools,
        store: inputs.parts.store,
        outcomes: Outcomes::with_capacity(inputs.outcome_capacity),
        level: 0,
        moves: 0,
        stop: inputs.stop,
    };
    let reader = inputs.reader;
    let base = Verbs {
        decide: Box::new(crate::decide),
        rest: Box::new(crate::rest),
        plan: Box::new(crate::plan),
        ask: Box::new(crate::ask),
        parse: Box::new(move |markdown: &str| crate::parse_with(markdown, reader)),
        act: Box::new(crate::act),
    };
    // Decorators apply in the order given: the last one is outermost.
    let verbs = inputs.decorators.into_iter().fold(base, |verbs, d| d.apply(verbs));
    Ok(Prepared { state, verbs })
}
