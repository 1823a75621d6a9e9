//! OpenAI-compatible chat completions (`POST {base_url}/chat/completions`), streamed as
//! server-sent events: OpenAI, OpenRouter, vLLM, LM Studio, a llama.cpp server, Ollama's `/v1`.
//!
//! The answer is complete at `data: [DONE]`, or when the stream ends after a choice reported
//! its `finish_reason` (some servers omit `[DONE]`); any other end is a cut.

use std::borrow::Cow;
use std::time::Instant;

use cn_compute::{Answer, Model, ModelError, Plan};
use serde_json::{json, Value};

use super::Endpoint;
use crate::config::{ConfigError, ProviderConfig, Secret};
use crate::http::{each_line, json_line, Streamed};

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

#[derive(Debug)]
pub struct OpenAi {
    endpoint: Endpoint,
    /// Optional: local servers need none.
    key: Option<Secret>,
}

impl OpenAi {
    pub fn new(endpoint: Endpoint, key: Option<Secret>) -> Self {
        OpenAi { endpoint, key }
    }

    pub fn from_config(cfg: &ProviderConfig, key: &str) -> Result<Self, ConfigError> {
        let secret = match cfg.api_key_env.as_deref() {
            Some(var) => Some(Secret::from_env(var, &format!("{key}.api_key_env"))?),
            None => None,
        };
        Ok(OpenAi::new(Endpoint::from_config(cfg, key, DEFAULT_BASE_URL)?, secret))
    }

    pub fn request(&self, plan: &Plan) -> Value {
        json!({
            "model": self.endpoint.model,
            "messages": crate::http::chat_messages(plan, true),
            "max_tokens": self.endpoint.max_tokens(plan),
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    }
}

#[derive(serde::Deserialize)]
struct Chunk<'a> {
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    choices: Vec<Choice<'a>>,
    usage: Option<Usage>,
    error: Option<Value>,
}

#[derive(serde::Deserialize)]
struct Choice<'a> {
    #[serde(borrow)]
    delta: Option<Delta<'a>>,
    finish_reason: Option<Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct Delta<'a> {
    #[serde(borrow)]
    content: Option<Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct Usage {
    prompt_tokens: Option<u64>,
    completion_tokens: Option<u64>,
}

pub fn read_stream(reader: impl std::io::BufRead) -> Result<Streamed, ModelError> {
    let mut out = Streamed::default();
    let mut finished = false;
    let done = each_line(reader, |line| {
        let Some(data) = line.strip_prefix("data:") else { return Ok(false) };
        let data = data.trim();
        if data == "[DONE]" {
            return Ok(true);
        }
        let chunk: Chunk = json_line("openai", data)?;
        if let Some(error) = chunk.error {
            let message = error["message"].as_str().unwrap_or("error in stream").to_string();
            return Err(ModelError::Other(format!("openai: {message}")));
        }
        if let Some(model) = chunk.model {
            if out.model.is_empty() {
                out.model = model.into_owned();
            }
        }
        if let Some(choice) = chunk.choices.into_iter().next() {
            if let Some(text) = choice.delta.and_then(|d| d.content) {
                out.text.push_str(&text);
            }
            finished |= choice.finish_reason.is_some();
        }
        if let Some(usage) = chunk.usage {
            out.tokens_in = usage.prompt_tokens;
            out.tokens_out = usage.completion_tokens;
        }
        Ok(false)
    })?;
    if !done && !finished {
        return Err(ModelError::Cut(format!(
            "openai: the stream ended before [DONE] ({} chars received)",
            out.text.len()
        )));
    }
    Ok(out)
}

impl Model for OpenAi {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let started = Instant::now();
        let url = crate::http::join_url(&self.endpoint.base_url, "chat/completions");
        let bearer = self.key.as_ref().map(|k| format!("Bearer {}", k.expose()));
        let headers: Vec<(&str, &str)> = bearer.as_deref().map(|b| ("authorization", b)).into_iter().collect();
        let stream = self.endpoint.http.post_json(&url, &headers, &self.request(plan))?;
        Ok(read_stream(stream)?.into_answer(plan, &self.endpoint.model, started))
    }
}
