//! The owner's HTTP endpoint: `POST /owner/message` with JSON `{"text": "...",
//! "thread": "..."}` (or a plain-text body). The owner's messages have the highest salience.
//!
//! Invariant: when a token is configured, a request without `Authorization: Bearer <token>`
//! (compared in constant time) is refused with 401 and produces nothing.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde_json::{json, Value};

use super::{Running, Sense, SenseContext, SenseError, OWNER_PATH};
use crate::attention::Attention;
use crate::config::{env_secret, OwnerConfig};
use crate::percept::{Percept, SenseKind};

/// The owner endpoint as a [`Sense`]: mounts `POST /owner/message` on the senses' server.
pub struct OwnerSense {
    token: Option<String>,
}

impl OwnerSense {
    /// `None` when `senses.owner.enabled` is false; the token read from its variable.
    pub fn configured(config: &OwnerConfig) -> Result<Option<Self>, SenseError> {
        if !config.enabled {
            return Ok(None);
        }
        let token = config.token_env.as_deref().map(|var| env_secret("senses.owner.token_env", var)).transpose()?;
        Ok(Some(OwnerSense { token }))
    }
}

impl Sense for OwnerSense {
    fn name(&self) -> &str {
        "owner"
    }

    fn start(self: Box<Self>, ctx: &mut SenseContext<'_>) -> Result<Running, SenseError> {
        let ep = OwnerEndpoint { token: self.token, attention: ctx.attention.clone() };
        ctx.mount(axum::Router::new().route(OWNER_PATH, axum::routing::post(receive)).with_state(Arc::new(ep)));
        Ok(Running::tasks())
    }
}

/// What the owner route needs.
pub struct OwnerEndpoint {
    pub token: Option<String>,
    pub attention: Attention,
}

/// Equal in time independent of where the inputs differ.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The percept for one owner message.
pub fn percept(text: &str, thread: Option<&str>) -> Percept {
    let first = text.lines().next().unwrap_or("").trim();
    let mut p = Percept::new(SenseKind::Owner, format!("Owner: {first}")).data(json!({"text": text, "thread": thread}));
    if let Some(t) = thread {
        p = p.key(format!("owner:{t}"));
    }
    p
}

/// `POST /owner/message`.
pub async fn receive(
    State(ep): State<Arc<OwnerEndpoint>>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, Json<Value>) {
    if let Some(token) = &ep.token {
        let given = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        if !constant_time_eq(given.as_bytes(), token.as_bytes()) {
            return (StatusCode::UNAUTHORIZED, Json(json!({"error": "missing or wrong bearer token"})));
        }
    }
    let json_body =
        headers.get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|ct| ct.starts_with("application/json"));
    let (text, thread) = if json_body {
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) => (
                v.get("text").and_then(Value::as_str).unwrap_or("").to_string(),
                v.get("thread").and_then(Value::as_str).map(str::to_string),
            ),
            Err(e) => return (StatusCode::BAD_REQUEST, Json(json!({"error": format!("body is not JSON: {e}")}))),
        }
    } else {
        (String::from_utf8_lossy(&body).into_owned(), None)
    };
    if text.trim().is_empty() {
        return (StatusCode::BAD_REQUEST, Json(json!({"error": "empty message: send {\"text\": \"...\"}"})));
    }
    let p = percept(&text, thread.as_deref());
    let id = p.id.clone();
    ep.attention.admit(p);
    (StatusCode::ACCEPTED, Json(json!({"accepted": id})))
}
