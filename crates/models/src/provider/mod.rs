//! The providers: one file per API. Each implements `cn_compute::Model` as a blocking
//! client, and exposes `request` (build the body) and `read_stream` (read a streamed answer)
//! so both can be tested and measured without a network.

pub mod anthropic;
pub mod command;
pub mod ollama;
pub mod openai;

use std::time::Duration;

use cn_compute::Plan;

use crate::config::{ConfigError, ProviderConfig};
use crate::http::Http;

pub use anthropic::Anthropic;
pub use command::CommandModel;
pub use ollama::Ollama;
pub use openai::OpenAi;

/// Defaults when `cn.yaml` says nothing.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_MAX_TOKENS: u32 = 1024;

/// Where and what an HTTP provider asks.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub http: Http,
    pub base_url: String,
    pub model: String,
    /// Used when the plan sets no `max_tokens`.
    pub max_tokens: u32,
}

impl Endpoint {
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Endpoint {
            http: Http::new(DEFAULT_CONNECT_TIMEOUT, DEFAULT_TIMEOUT),
            base_url: base_url.into(),
            model: model.into(),
            max_tokens: DEFAULT_MAX_TOKENS,
        }
    }

    pub fn with_timeouts(mut self, connect: Duration, total: Duration) -> Self {
        self.http = Http::new(connect, total);
        self
    }

    pub fn from_config(cfg: &ProviderConfig, key: &str, default_base: &str) -> Result<Self, ConfigError> {
        let model = cfg.model.clone().ok_or_else(|| ConfigError::Invalid {
            key: format!("{key}.model"),
            message: "missing: name the provider's model (e.g. `model: claude-sonnet-4-5`)".into(),
        })?;
        let base_url = cfg.base_url.clone().unwrap_or_else(|| default_base.to_string());
        if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
            return Err(ConfigError::Invalid {
                key: format!("{key}.base_url"),
                message: format!("`{base_url}` is not an http:// or https:// URL"),
            });
        }
        let mut e = Endpoint::new(base_url, model).with_timeouts(
            cfg.connect_timeout_secs.map(Duration::from_secs).unwrap_or(DEFAULT_CONNECT_TIMEOUT),
            cfg.timeout_secs.map(Duration::from_secs).unwrap_or(DEFAULT_TIMEOUT),
        );
        if let Some(m) = cfg.max_tokens {
            e.max_tokens = m;
        }
        Ok(e)
    }

    pub fn max_tokens(&self, plan: &Plan) -> u32 {
        if plan.max_tokens > 0 {
            plan.max_tokens
        } else {
            self.max_tokens
        }
    }
}
