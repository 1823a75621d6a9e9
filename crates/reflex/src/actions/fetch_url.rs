//! `fetch_url` — HTTP GET a URL and return its content: the text of an HTML page (so a
//! summary prompt holds words, not markup), any other body as it is.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The http(s) URL to fetch.
    url: String,
    /// Return the raw body even for HTML.
    raw: Option<bool>,
}

pub(crate) fn tool() -> Arc<dyn Tool> {
    typed("fetch_url", "HTTP GET a URL and return its content (the text of an HTML page).", |ctx, p: Params| {
        let got = super::http::request(ctx, "GET", &p.url, &[], None)?;
        if !(200..300).contains(&got.status) {
            return Err(ToolError::Failed(format!("GET {}: HTTP {}", got.url, got.status)));
        }
        let html = got.content_type.contains("html")
            || (got.content_type.is_empty() && got.body.trim_start().starts_with('<'));
        let text = if html && !p.raw.unwrap_or(false) { crate::html_to_text(&got.body) } else { got.body };
        Ok(Value::String(text))
    })
}
