//! `local_prompt` (also `ollama_prompt`, the documents' name) — one free-text prompt to the
//! level-2 model. `model:` picks a named model when one is configured under that name;
//! otherwise the configured level-2 model answers whatever `model:` says. The prompt is cut
//! to `reflexes.prompt_max_chars`, because a small local model has a small context.

use std::sync::Arc;

use cn_compute::{Plan, ToolError};
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::Shared;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The prompt.
    prompt: String,
    /// A model name; the configured level-2 model answers unless this one is configured.
    model: Option<String>,
    /// A system prompt.
    system: Option<String>,
    /// Upper bound on the answer's tokens (default 256).
    max_tokens: Option<u32>,
}

const SYSTEM: &str = "You are a helpful assistant. Answer briefly and plainly.";

pub(crate) fn tool(name: &str, shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed(name, "Run a prompt through the local (level-2) model; returns its answer.", move |_ctx, p: Params| {
        let mut prompt = p.prompt;
        let max = shared.config.prompt_max_chars;
        if prompt.chars().count() > max {
            prompt = prompt.chars().take(max).collect();
        }
        let plan = Plan {
            level: 2,
            system: p.system.unwrap_or_else(|| SYSTEM.to_string()),
            prompt,
            max_tokens: p.max_tokens.unwrap_or(256),
            item: shared.turn().target.item,
            ..Plan::default()
        };
        let mut models =
            shared.models.lock().map_err(|_| ToolError::Failed("the level-2 model is unavailable".into()))?;
        let models = &mut *models;
        let model = match p.model.as_deref().and_then(|m| models.named.get_mut(m)) {
            Some(m) => m,
            None => models.default.as_mut().ok_or_else(|| ToolError::Failed("no level-2 model configured".into()))?,
        };
        let answer = model
            .ask(&plan)
            .map_err(|e| ToolError::Failed(format!("the level-2 model: {e}", e = cn_compute::Chain(&e))))?;
        Ok(Value::String(answer.markdown.trim().to_string()))
    })
}
