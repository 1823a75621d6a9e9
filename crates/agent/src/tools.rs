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

#[cfg(test)]
mod tests {
    use super::*;
    use cn_compute::ToolCall;
    use serde_json::json;

    fn call(tool: &str, params: Value) -> ToolCall {
        ToolCall::new(tool, params.as_object().cloned().unwrap_or_default())
    }

    #[test]
    fn a_yaml_tool_call_decides_like_cn_out() {
        let dir = tempfile::tempdir().unwrap();
        let report = crate::init(&dir.path().join("sigma"), None).unwrap();
        let hub = Hub::open(&report.root).unwrap();
        let mut ctx = ToolContext::new(hub.root());
        ctx.policy = cn_tools::Policy::default().grant(3, op_tool_names()).grant(2, &["reply"]);
        let mut registry = Registry::new(ctx);
        register_ops(&mut registry, &hub);
        assert_eq!(registry.docs_for(3).len(), op_tool_names().len());
        let defer = registry.get("defer").unwrap().doc().param_names();
        assert_eq!(defer, vec![("reason".to_string(), true), ("until".to_string(), false)]);

        // The model's answer, parsed by the kernel, becomes the same decision.
        let answer = "I'll approve.\n\n```yaml\ntool: reply\nmessage: LGTM\n```\n";
        let parsed = cn_compute::parse(answer);
        let cn_compute::Parsed::Call(c) = &parsed[0] else { panic!("{parsed:?}") };
        assert_eq!(registry.run(3, c).unwrap_err(), ToolError::Failed(
            "there is no current item to decide; `cn input` takes the next one from the queue".into()
        ));
        crate::enqueue_new(&hub, crate::OWNER, crate::Cadence::Inbox, "Please review").unwrap();
        let item = crate::take_next(&hub).unwrap().unwrap();
        let result = registry.run(3, c).unwrap();
        let cli = crate::parse_out(&["do", "reply", "--message", "LGTM"]).unwrap().gtd;
        assert_eq!(Gtd::from_json(result.as_object().unwrap()), Some(cli));
        assert_eq!(result["id"], json!(item.id));
        assert!(hub.archived().join(format!("{}.md", item.id)).is_file());

        // Policy still decides, and bad params name the field.
        crate::enqueue_new(&hub, crate::OWNER, crate::Cadence::Inbox, "more").unwrap();
        crate::take_next(&hub).unwrap().unwrap();
        assert!(matches!(registry.run(2, &call("delete", json!({"reason": "x"}))), Err(ToolError::Denied(_))));
        assert!(matches!(registry.run(3, &call("send", json!({"to": "pi"}))), Err(ToolError::BadParams(m)) if m.contains("message")));
        assert!(matches!(registry.run(3, &call("delegate", json!({"to": "pi"}))), Err(ToolError::BadParams(m)) if m.contains("not a peer")));
    }

    #[test]
    fn the_prompt_documents_every_op_tool() {
        for t in op_tool_names() {
            assert!(crate::OPS_PROMPT.contains(&format!("tool: {t} ")), "{t}");
        }
    }
}
