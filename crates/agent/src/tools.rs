//! The ops as the executive's tools: `reply`, `send`, `noop`, `ack`, `surface`, `commit`,
//! `defer`, `delegate`, `delete` — one YAML tool call per decision. Each builds the same
//! [`Gtd`] value `cn out` parses and goes through [`crate::decide`], the same code path.
//! [`OPS_PROMPT`](crate::OPS_PROMPT) documents the YAML form for the executive's prompt.
//!
//! Each call takes the hub lock for its decision; a caller must not hold the lock while the
//! model acts.

use std::path::PathBuf;

use cn_compute::ToolError;
use cn_tools::{typed, Registry, ToolContext};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::error::AgentError;
use crate::gtd::{Gtd, Op};
use crate::hub::Hub;

/// The op tools' names, for a default policy.
pub fn op_tool_names() -> &'static [&'static str] {
    &["reply", "send", "noop", "ack", "surface", "commit", "defer", "delegate", "delete"]
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Message {
    /// The text to append to the item's thread (sent to the peer the item came from).
    message: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SendParams {
    /// The peer's name.
    to: String,
    /// A one-line summary.
    message: String,
    /// The full text, when longer than the summary.
    body: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Reason {
    /// Why.
    reason: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Desc {
    /// The concern, for the community.
    desc: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Artifact {
    /// A git hash in the hub's repository.
    artifact: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeferParams {
    /// Why it waits.
    reason: String,
    /// When it comes back to the queue (RFC 3339, or a date).
    until: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct To {
    /// The peer's name.
    to: String,
}

/// Decide the hub's current item with `gtd`; the tool's result is the decision as JSON.
fn run(root: &PathBuf, gtd: Gtd) -> Result<Value, ToolError> {
    let hub = Hub::open(root).map_err(|e| ToolError::Failed(e.to_string()))?;
    match crate::decide::decide(&hub, &gtd) {
        Ok(d) => Ok(Value::Object(d.to_json())),
        Err(AgentError::Invalid(m)) => Err(ToolError::BadParams(m)),
        Err(e) => Err(ToolError::Failed(e.to_string())),
    }
}

/// Register the op tools for `hub` into `registry`.
pub fn register_ops(registry: &mut Registry, hub: &Hub) {
    let root = hub.root().to_path_buf();
    macro_rules! op {
        ($name:literal, $desc:literal, |$p:ident: $ty:ty| $gtd:expr) => {{
            let root = root.clone();
            registry.register(typed($name, $desc, move |_ctx: &ToolContext, $p: $ty| run(&root, $gtd)));
        }};
    }
    op!("reply", "do reply: append a message to the current item's thread (a peer's item sends the peer the text).", |p: Message| Gtd::Do(Op::Reply { message: p.message }));
    op!("send", "do send: mail a peer; `body` is the full text when `message` is a summary.", |p: SendParams| Gtd::Do(Op::Send { to: p.to, message: p.message, body: p.body }));
    op!("noop", "do noop: close the current item, nothing to do.", |p: Reason| Gtd::Do(Op::Noop { reason: p.reason }));
    op!("ack", "do ack: close the current item with an explicit acknowledgment.", |p: Reason| Gtd::Do(Op::Ack { reason: p.reason }));
    op!("surface", "do surface: surface a concern (MCA) for the community.", |p: Desc| Gtd::Do(Op::Surface { desc: p.desc }));
    op!("commit", "do commit: reference an artifact by its git hash in the hub.", |p: Artifact| Gtd::Do(Op::Commit { artifact: p.artifact }));
    op!("defer", "defer: postpone the current item; `until` brings it back to the queue.", |p: DeferParams| Gtd::Defer { reason: p.reason, until: p.until });
    op!("delegate", "delegate: forward the current item to a peer.", |p: To| Gtd::Delegate { to: p.to });
    op!("delete", "delete: archive the current item with the reason (nothing is destroyed).", |p: Reason| Gtd::Delete { reason: p.reason });
}
