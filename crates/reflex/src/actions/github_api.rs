//! `github_api` — one GitHub REST call. The base URL comes from `reflexes.github_api` in
//! cn.yaml (default https://api.github.com); the token from `$GITHUB_TOKEN`, sent as a header
//! and never returned, logged or journaled, nor sent to another origin on a redirect.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::http::Header;
use super::Shared;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The API path, e.g. `/repos/OWNER/REPO/pulls`.
    path: String,
    /// GET (default), POST, PUT, PATCH or DELETE.
    method: Option<String>,
    /// A JSON body for POST, PUT and PATCH.
    body: Option<Value>,
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let base = shared.config.github_api.trim_end_matches('/').to_string();
    typed("github_api", "Call the GitHub REST API; returns the JSON response.", move |ctx, p: Params| {
        if !p.path.starts_with('/') {
            return Err(ToolError::BadParams(format!("path `{}` must start with `/`", p.path)));
        }
        let method = p.method.as_deref().unwrap_or("GET").to_ascii_uppercase();
        let mut headers = vec![
            Header::new("Accept", "application/vnd.github+json"),
            Header::new("X-GitHub-Api-Version", "2022-11-28"),
        ];
        if let Ok(token) = std::env::var("GITHUB_TOKEN") {
            if !token.is_empty() {
                // Sent to the API's own origin only, never along a redirect to another host.
                headers.push(Header::secret("Authorization", format!("Bearer {token}")));
            }
        }
        let body = p.body.map(|b| b.to_string());
        if body.is_some() {
            headers.push(Header::new("Content-Type", "application/json"));
        }
        let got = super::http::request(ctx, &method, &format!("{base}{}", p.path), &headers, body)?;
        let value = serde_json::from_str(&got.body).unwrap_or(Value::String(got.body));
        if !(200..300).contains(&got.status) {
            let message = value.get("message").and_then(Value::as_str).unwrap_or("");
            return Err(ToolError::Failed(format!("GitHub {method} {}: HTTP {} {message}", p.path, got.status)));
        }
        Ok(value)
    })
}
