//! The Anthropic Messages API (`POST /v1/messages`), streamed as server-sent events.
//!
//! The answer is complete only when `message_stop` arrives; an `error` event or a stream
//! that ends before it is an error. Usage comes from `message_start` (input) and
//! `message_delta` (output).

use std::borrow::Cow;
use std::time::Instant;

use cn_compute::{Answer, Model, ModelError, Plan};
use serde_json::{json, Value};

use super::Endpoint;
use crate::config::{ConfigError, ProviderConfig, Secret};
use crate::http::{each_line, json_line, Streamed};

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
const VERSION: &str = "2023-06-01";

#[derive(Debug)]
pub struct Anthropic {
    endpoint: Endpoint,
    key: Secret,
}

impl Anthropic {
    pub fn new(endpoint: Endpoint, key: Secret) -> Self {
        Anthropic { endpoint, key }
    }

    pub fn from_config(cfg: &ProviderConfig, key: &str) -> Result<Self, ConfigError> {
        let var = cfg.api_key_env.as_deref().unwrap_or("ANTHROPIC_API_KEY");
        let secret = Secret::from_env(var, &format!("{key}.api_key_env"))?;
        Ok(Anthropic::new(Endpoint::from_config(cfg, key, DEFAULT_BASE_URL)?, secret))
    }

    /// The request body for a plan (streaming on).
    pub fn request(&self, plan: &Plan) -> Value {
        let mut body = json!({
            "model": self.endpoint.model,
            "max_tokens": self.endpoint.max_tokens(plan),
            "messages": crate::http::chat_messages(plan, false),
            "stream": true,
        });
        if !plan.system.is_empty() {
            body["system"] = Value::String(plan.system.clone());
        }
        body
    }
}

/// One server-sent event's data; borrowed where the JSON has no escapes.
#[derive(serde::Deserialize)]
struct Event<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    message: Option<Start<'a>>,
    #[serde(borrow)]
    delta: Option<Delta<'a>>,
    usage: Option<Usage>,
    error: Option<Value>,
}

#[derive(serde::Deserialize)]
struct Start<'a> {
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    usage: Option<Usage>,
}

#[derive(serde::Deserialize)]
struct Delta<'a> {
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct Usage {
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
}

/// Read a Messages event stream to its `message_stop`.
pub fn read_stream(reader: impl std::io::BufRead) -> Result<Streamed, ModelError> {
    let mut out = Streamed::default();
    let done = each_line(reader, |line| {
        let Some(data) = line.strip_prefix("data:") else { return Ok(false) };
        let event: Event = json_line("anthropic", data.trim())?;
        match event.kind.as_ref() {
            "message_start" => {
                if let Some(m) = event.message {
                    out.model = m.model.unwrap_or_default().into_owned();
                    out.tokens_in = m.usage.as_ref().and_then(|u| u.input_tokens);
                    out.tokens_out = m.usage.as_ref().and_then(|u| u.output_tokens);
                }
            }
            "content_block_delta" => {
                if let Some(text) = event.delta.and_then(|d| d.text) {
                    out.text.push_str(&text);
                }
            }
            "message_delta" => {
                if let Some(n) = event.usage.and_then(|u| u.output_tokens) {
                    out.tokens_out = Some(n);
                }
            }
            "message_stop" => return Ok(true),
            "error" => return Err(stream_error(&event.error.unwrap_or_default())),
            _ => {} // ping, content_block_start/stop, and types added later
        }
        Ok(false)
    })?;
    if !done {
        return Err(ModelError::Cut(format!(
            "anthropic: the stream ended before message_stop ({} chars received)",
            out.text.len()
        )));
    }
    Ok(out)
}

/// An error event mid-stream, mapped to the status it stands for so retries treat it alike.
fn stream_error(error: &Value) -> ModelError {
    let kind = error["type"].as_str().unwrap_or("error");
    let message = format!("{kind}: {}", error["message"].as_str().unwrap_or(""));
    let status = match kind {
        "overloaded_error" => 529,
        "rate_limit_error" => 429,
        "api_error" => 500,
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        _ => return ModelError::Other(format!("anthropic: {message}")),
    };
    ModelError::Status { status, message, retry_after_ms: None }
}

impl Model for Anthropic {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let started = Instant::now();
        let url = crate::http::join_url(&self.endpoint.base_url, "v1/messages");
        let headers = [("x-api-key", self.key.expose()), ("anthropic-version", VERSION)];
        let stream = self.endpoint.http.post_json(&url, &headers, &self.request(plan))?;
        Ok(read_stream(stream)?.into_answer(plan, &self.endpoint.model, started))
    }
}
