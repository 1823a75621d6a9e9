//! models — decisions: the providers behind the kernel's `Model` trait, the prompt `plan`
//! builds, the grammar that constrains the local model, and the thinking budget. No other
//! crate talks to a model.
//!
//! - [`tiered`] builds the [`Tiered`] model the kernel gets from `cn.yaml`'s `models:`:
//!   level 2 the local model (embedded llama.cpp by default), level 3 the executive
//!   (Anthropic, any OpenAI-compatible API, Ollama, or a command), each behind [`Retry`].
//! - [`build_plan`] fits the core seed, the item, its thread, the recent outcomes and the
//!   level's tool docs into a level's token budget; [`choose_level`] picks 2 or 3.
//! - [`grammar`] turns tool docs into the GBNF that makes every local answer a tool call.
//! - [`Budget`] is the thinking budget, a decorator on `ask` ([`Budget::decorator`]); the
//!   [`ledger`] keeps its caps across processes (every executive try reserves its worst case
//!   in `state/budget.json` before it starts and settles after).
//! - [`recording`] / [`Replay`] record real interactions and play them back.
//!
//! Invariants: API keys come only from environment variables named in `cn.yaml` and are
//! held in [`Secret`], whose Debug never shows them; nothing here logs a request's headers.

pub mod budget;
pub mod config;
#[cfg(feature = "local-model")]
pub mod embedded;
pub mod grammar;
pub mod http;
pub mod ledger;
pub mod plan;
pub mod provider;
pub mod pull;
pub mod record;
pub mod retry;
pub mod session;
pub mod tiered;

use std::path::{Path, PathBuf};

use cn_compute::Model;

pub use budget::{Budget, BudgetState, Budgeted, Refusal, SharedBudget};
pub use config::{
    BudgetConfig, ConfigError, ModelsConfig, OnExhausted, ProviderConfig, ProviderKind, ReleaseAfter, Secret,
};
pub use grammar::grammar;
pub use ledger::{Ledger, Metered};
pub use plan::{build_plan, choose_level, LevelLimits, PlanInput};
pub use record::{recording, Recording, Replay, ReplayError};
pub use retry::{Retry, RetryPolicy};
pub use session::{Session, SessionGuard, Sessions};
pub use tiered::Tiered;

/// Retries after the first try when `cn.yaml` sets none: network providers 3, local ones 0.
const DEFAULT_RETRIES: u32 = 3;

/// Build the model for every configured level from `cn.yaml`'s `models:`; relative paths
/// are relative to the hub. Level 2 is always there (embedded by default); level 3 only when
/// `models.executive` is set, metered by the hub's ledger under `budget:`.
pub fn tiered(models: &ModelsConfig, budget: &BudgetConfig, hub: &Path) -> Result<Tiered, ConfigError> {
    let mut tiered = Tiered::new().with(2, provider(&models.local(), "models.local", hub)?);
    if models.executive.is_some() {
        tiered.insert(3, model_of(models, budget, hub, "executive")?);
    }
    Ok(tiered)
}

/// The model of one level by its name in `cn.yaml` — `local` (level 2, the embedded model
/// unless configured otherwise) or `executive` (level 3, when configured, every try metered
/// by the hub's ledger) — for callers outside the kernel's loop (reflex steps, AI loops).
pub fn model_of(
    models: &ModelsConfig,
    budget: &BudgetConfig,
    hub: &Path,
    name: &str,
) -> Result<Box<dyn Model>, ConfigError> {
    match name {
        "local" => provider(&models.local(), "models.local", hub),
        "executive" => match &models.executive {
            Some(exec) => executive(exec, budget, hub),
            None => Err(ConfigError::Invalid {
                key: "models.executive".into(),
                message: "no executive is configured; set models.executive in cn.yaml".into(),
            }),
        },
        other => Err(ConfigError::Invalid {
            key: "models".into(),
            message: format!("unknown model `{other}` (expected local or executive)"),
        }),
    }
}

/// The hub's ledger: `state/budget.json` under `budget:` at the executive's prices.
pub fn ledger_of(budget: &BudgetConfig, models: &ModelsConfig, hub: &Path) -> std::sync::Arc<Ledger> {
    let prices = models
        .executive
        .as_ref()
        .map(|e| (e.price_per_mtok_in.unwrap_or(0.0), e.price_per_mtok_out.unwrap_or(0.0)))
        .unwrap_or((0.0, 0.0));
    std::sync::Arc::new(Ledger::new(&cn_hub::Layout::new(hub), budget.clone(), prices, ledger::system_clock()))
}

/// The executive: its provider behind the ledger, each try metered (`Retry` outside
/// `Metered`, so a retried call is charged for every try).
fn executive(exec: &ProviderConfig, budget: &BudgetConfig, hub: &Path) -> Result<Box<dyn Model>, ConfigError> {
    let key = "models.executive";
    let models = ModelsConfig { executive: Some(exec.clone()), ..Default::default() };
    let ledger = ledger_of(budget, &models, hub);
    let default_max_tokens = exec.max_tokens.unwrap_or(provider::DEFAULT_MAX_TOKENS);
    let kind = exec.provider.ok_or_else(|| missing_provider(key))?;
    let raw = raw_provider(kind, exec, key, hub)?;
    let metered = Box::new(Metered { inner: raw, ledger, default_max_tokens });
    Ok(retried(exec, kind, metered))
}

fn missing_provider(key: &str) -> ConfigError {
    ConfigError::Invalid {
        key: format!("{key}.provider"),
        message: "missing: one of embedded, anthropic, openai, ollama, command, replay".into(),
    }
}

/// `m` wrapped in retries where retrying makes sense (network providers by default).
fn retried(cfg: &ProviderConfig, kind: ProviderKind, m: Box<dyn Model>) -> Box<dyn Model> {
    let default = match kind {
        ProviderKind::Anthropic | ProviderKind::Openai | ProviderKind::Ollama => DEFAULT_RETRIES,
        ProviderKind::Command => 0,
        // A recording or the in-process model cannot fail in a way another try fixes.
        ProviderKind::Replay | ProviderKind::Embedded => return m,
    };
    match cfg.retries.unwrap_or(default) {
        0 => m,
        n => Box::new(Retry::new(m, RetryPolicy::new(n))),
    }
}

/// One provider from its config, wrapped in retries where retrying makes sense.
pub fn provider(cfg: &ProviderConfig, key: &str, hub: &Path) -> Result<Box<dyn Model>, ConfigError> {
    let kind = cfg.provider.ok_or_else(|| missing_provider(key))?;
    Ok(retried(cfg, kind, raw_provider(kind, cfg, key, hub)?))
}

/// One provider from its config, without retries.
fn raw_provider(
    kind: ProviderKind,
    cfg: &ProviderConfig,
    key: &str,
    hub: &Path,
) -> Result<Box<dyn Model>, ConfigError> {
    Ok(match kind {
        ProviderKind::Anthropic => Box::new(provider::Anthropic::from_config(cfg, key)?),
        ProviderKind::Openai => Box::new(provider::OpenAi::from_config(cfg, key)?),
        ProviderKind::Ollama => Box::new(provider::Ollama::from_config(cfg, key)?),
        ProviderKind::Command => {
            let m = provider::CommandModel::from_config(cfg, key)?;
            // The executive's command is an executive session while it runs (session.rs).
            match key {
                "models.executive" => Box::new(m.with_session(&cn_hub::Layout::new(hub).state())),
                _ => Box::new(m),
            }
        }
        ProviderKind::Replay => {
            let path = cfg.path.as_ref().map(|p| hub.join(p)).ok_or_else(|| ConfigError::Invalid {
                key: format!("{key}.path"),
                message: "missing: the recording to replay".into(),
            })?;
            let replay = Replay::from_file(&path)
                .map_err(|e| ConfigError::File { key: format!("{key}.path"), error: Box::new(e) })?;
            Box::new(replay)
        }
        ProviderKind::Embedded => embedded(cfg, key, hub)?,
    })
}

#[cfg(feature = "local-model")]
fn embedded(cfg: &ProviderConfig, key: &str, hub: &Path) -> Result<Box<dyn Model>, ConfigError> {
    let path = local_model_path(cfg, hub).ok_or_else(|| ConfigError::Invalid {
        key: format!("{key}.path"),
        message: "no model file: set CN_MODEL_PATH or HOME, or `path:`".into(),
    })?;
    let mut m = embedded::Embedded::new(path);
    if let Some(t) = cfg.threads {
        m = m.with_threads(t as i32);
    }
    if let Some(c) = cfg.context_tokens {
        m = m.with_context(c + cfg.max_tokens.unwrap_or(LevelLimits::default_for(2).max_tokens));
    }
    let release_after = cfg.release_after.map_or(Some(embedded::DEFAULT_RELEASE_AFTER), |r| r.duration());
    m = m.with_release_after(release_after).with_prompt_cache(&cn_hub::Layout::new(hub).cache());
    Ok(Box::new(m))
}

#[cfg(not(feature = "local-model"))]
fn embedded(_: &ProviderConfig, key: &str, _: &Path) -> Result<Box<dyn Model>, ConfigError> {
    Err(ConfigError::Invalid {
        key: format!("{key}.provider"),
        message: "this cn was built without the `local-model` feature; use ollama or openai for level 2".into(),
    })
}

/// Free the embedded models that have gone unused for their `release_after` (the daemon calls
/// this while it rests); how many were freed. Without the `local-model` feature, none.
pub fn release_idle_models() -> usize {
    #[cfg(feature = "local-model")]
    {
        embedded::release_idle()
    }
    #[cfg(not(feature = "local-model"))]
    {
        0
    }
}

/// The embedded model's file: `path:` in cn.yaml (relative to the hub), else
/// [`pull::model_path`].
pub fn local_model_path(cfg: &ProviderConfig, hub: &Path) -> Option<PathBuf> {
    match &cfg.path {
        Some(p) => Some(hub.join(p)),
        None => pull::model_path(),
    }
}

/// The level limits for `level`, with `max_tokens` / `context_tokens` from `cn.yaml`.
pub fn level_limits(models: &ModelsConfig, level: cn_compute::Level) -> LevelLimits {
    let mut limits = LevelLimits::default_for(level);
    if let Some(cfg) = models.for_level(level) {
        if let Some(m) = cfg.max_tokens {
            limits.max_tokens = m;
        }
        if let Some(c) = cfg.context_tokens {
            limits.prompt_tokens = c;
        }
    }
    limits
}

/// Open the thinking budget (`state/budget.json` in the hub) with `budget:` and the
/// executive's prices from `models:`.
pub fn budget_of(budget: &BudgetConfig, models: &ModelsConfig, hub: &Path) -> Result<SharedBudget, ConfigError> {
    Ok(Budget::new(ledger_of(budget, models, hub)).shared())
}
