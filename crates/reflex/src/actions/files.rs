//! `read_file` and `write_file` — files inside the hub only (`cn_tools::confine`), within
//! the policy's size limit; writes are atomic. Neither touches `.git/` or a secret file, and
//! no write reaches the hub's protected files (`ToolContext::confine_write`).

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool, ToolContext};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Read {
    /// A path inside the hub.
    path: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Write {
    /// A path inside the hub.
    path: String,
    /// What to write (text; other values are written as JSON).
    content: Value,
    /// Add to the end instead of replacing.
    append: Option<bool>,
}

pub(crate) fn read_file() -> Arc<dyn Tool> {
    typed("read_file", "Read a text file inside the hub.", |ctx, p: Read| {
        let path = ctx.confine_read(&p.path)?;
        let limit = super::max_bytes(ctx);
        let meta = std::fs::metadata(&path).map_err(|e| ToolError::Failed(format!("{}: {e}", p.path)))?;
        if meta.len() > limit {
            return Err(ToolError::Denied(format!(
                "{} is {} bytes, over the policy's limit of {limit}",
                p.path,
                meta.len()
            )));
        }
        let bytes = std::fs::read(&path).map_err(|e| ToolError::Failed(format!("{}: {e}", p.path)))?;
        Ok(Value::String(String::from_utf8_lossy(&bytes).into_owned()))
    })
}

pub(crate) fn write_file() -> Arc<dyn Tool> {
    typed("write_file", "Write a text file inside the hub (atomically).", |ctx: &ToolContext, p: Write| {
        let path = ctx.confine_write(&p.path)?;
        let mut content = crate::vars::as_text(&p.content);
        if p.append.unwrap_or(false) {
            match std::fs::read_to_string(&path) {
                Ok(old) => content = old + &content,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(ToolError::Failed(format!("{}: {e}", p.path))),
            }
        }
        let limit = super::max_bytes(ctx);
        if content.len() as u64 > limit {
            return Err(ToolError::Denied(format!(
                "{}: {} bytes is over the policy's limit of {limit}",
                p.path,
                content.len()
            )));
        }
        cn_storage::write_atomic(&path, content.as_bytes())
            .map_err(|e| ToolError::Failed(format!("{}: {e}", p.path)))?;
        Ok(Value::String(p.path))
    })
}
