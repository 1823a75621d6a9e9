//! Ollama's native chat API (`POST {base_url}/api/chat`), streamed as newline-delimited JSON.
//! The answer is complete at the object with `"done": true`, which carries the usage.

use std::borrow::Cow;
use std::time::Instant;

use cn_compute::{Answer, Model, ModelError, Plan};
use serde_json::{json, Value};

use super::Endpoint;
use crate::config::{ConfigError, ProviderConfig};
use crate::http::{each_line, json_line, Streamed};

pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:11434";

#[derive(Debug)]
pub struct Ollama {
    endpoint: Endpoint,
}

impl Ollama {
    pub fn new(endpoint: Endpoint) -> Self {
        Ollama { endpoint }
    }

    pub fn from_config(cfg: &ProviderConfig, key: &str) -> Result<Self, ConfigError> {
        Ok(Ollama::new(Endpoint::from_config(cfg, key, DEFAULT_BASE_URL)?))
    }

    pub fn request(&self, plan: &Plan) -> Value {
        json!({
            "model": self.endpoint.model,
            "messages": crate::http::chat_messages(plan, true),
            "stream": true,
            "options": {"num_predict": self.endpoint.max_tokens(plan)},
        })
    }
}

#[derive(serde::Deserialize)]
struct Chunk<'a> {
    #[serde(borrow)]
    model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<Message<'a>>,
    done: Option<bool>,
    prompt_eval_count: Option<u64>,
    eval_count: Option<u64>,
    #[serde(borrow)]
    error: Option<Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    content: Option<Cow<'a, str>>,
}

pub fn read_stream(reader: impl std::io::BufRead) -> Result<Streamed, ModelError> {
    let mut out = Streamed::default();
    let done = each_line(reader, |line| {
        if line.trim().is_empty() {
            return Ok(false);
        }
        let chunk: Chunk = json_line("ollama", line)?;
        if let Some(error) = chunk.error {
            return Err(ModelError::Other(format!("ollama: {error}")));
        }
        if out.model.is_empty() {
            out.model = chunk.model.unwrap_or_default().into_owned();
        }
        if let Some(text) = chunk.message.and_then(|m| m.content) {
            out.text.push_str(&text);
        }
        if chunk.done == Some(true) {
            out.tokens_in = chunk.prompt_eval_count;
            out.tokens_out = chunk.eval_count;
            return Ok(true);
        }
        Ok(false)
    })?;
    if !done {
        return Err(ModelError::Cut(format!(
            "ollama: the stream ended before done ({} chars received)",
            out.text.len()
        )));
    }
    Ok(out)
}

impl Model for Ollama {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let started = Instant::now();
        let url = crate::http::join_url(&self.endpoint.base_url, "api/chat");
        let stream = self.endpoint.http.post_json(&url, &[], &self.request(plan))?;
        Ok(read_stream(stream)?.into_answer(plan, &self.endpoint.model, started))
    }
}
