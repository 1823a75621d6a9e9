//! The ops as the executive's tools: `reply`, `send`, `noop`, `ack`, `surface`, `commit`,
//! `defer`, `delegate`, `delete` — one YAML tool call per decision, one tool per form of
//! [`crate::gtd::KINDS`]: its name, description and params (schema and field docs) come from
//! the op's file. Each builds the same [`Gtd`] value `cn out` parses and goes through
//! [`crate::decide`], the same code path. [`ops_prompt`] documents the YAML form for the
//! executive's prompt, from the same list.
//!
//! Each call takes the hub lock for its decision; a caller must not hold the lock while the
//! model acts.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{Registry, Tool, ToolContext, ToolDoc};
use serde_json::{Map, Value};

use crate::error::AgentError;
use crate::gtd::{Kind, KINDS, KIND_NAMES};
use crate::hub::Hub;

/// The op tools' names, for a default policy.
pub fn op_tool_names() -> &'static [&'static str] {
    KIND_NAMES
}

/// The executive's documentation of the op tools: an example YAML call of every form.
pub fn ops_prompt() -> String {
    let mut s = String::from(
        "## Deciding an item\n\n\
         Decide the current item with exactly one of these tool calls, as a YAML code block. Every\n\
         decision is one of four: do (with an op), defer, delegate, delete. Strings may span lines\n\
         (use `|`).\n",
    );
    for k in KINDS {
        s.push_str(&format!("\n```yaml\ntool: {}  # {}\n{}```\n", k.name, k.doc, k.example));
    }
    s
}

/// The decisions made in this process, as their deciders returned them: the daemon takes each
/// one from here instead of reading back the files it just wrote. Shared by clones; holds the
/// last [`Decisions::KEPT`] only.
#[derive(Debug, Clone, Default)]
pub struct Decisions(Arc<std::sync::Mutex<std::collections::VecDeque<crate::Decided>>>);

impl Decisions {
    const KEPT: usize = 32;

    /// Keep a decision just made.
    pub fn push(&self, decided: &crate::Decided) {
        if let Ok(mut q) = self.0.lock() {
            if q.len() == Self::KEPT {
                q.pop_front();
            }
            q.push_back(decided.clone());
        }
    }

    /// Take the latest decision on item `id`, if this process made one.
    pub fn take(&self, id: &str) -> Option<crate::Decided> {
        let mut q = self.0.lock().ok()?;
        let at = q.iter().rposition(|d| d.item.id == id)?;
        q.remove(at)
    }
}

/// One form as a tool: its params are the form's fields.
struct OpTool {
    kind: &'static Kind,
    doc: ToolDoc,
    /// The hub as opened once by whoever registered the ops (its cn.yaml is not read again).
    hub: Arc<Hub>,
    decisions: Decisions,
}

impl Tool for OpTool {
    fn doc(&self) -> &ToolDoc {
        &self.doc
    }

    fn call(&self, ctx: &ToolContext, params: Map<String, Value>) -> Result<Value, ToolError> {
        // The model reads the message: it names the missing or unknown field.
        let gtd = self
            .kind
            .build(params)
            .map_err(|e| ToolError::BadParams(format!("{}: {e}", self.kind.name, e = cn_compute::Chain(&e))))?;
        // Below the executive, an owner's request is answered or handed up, never dropped, and
        // a defer the model chose does not bring the item straight back.
        let by = if ctx.level < 3 {
            crate::decide::DecideAs::model_below_executive(ctx.level)
        } else {
            crate::decide::DecideAs { level: Some(ctx.level), ..Default::default() }
        };
        let decided = crate::decide::decide(&self.hub, &gtd, &by);
        if let Ok(d) = &decided {
            self.decisions.push(d);
        }
        result(decided)
    }
}

/// The tool's result: the decision as JSON. The error is the model's to read, so it is a
/// message.
fn result(decided: crate::Result<crate::Decided>) -> Result<Value, ToolError> {
    match decided {
        Ok(d) => Ok(Value::Object(d.to_json())),
        Err(AgentError::Invalid(m)) => Err(ToolError::BadParams(m)),
        Err(e) => Err(ToolError::Failed(cn_compute::chain(&e))),
    }
}

/// Register the op tools for `hub` into `registry`; each decision they make is kept in
/// `decisions`.
pub fn register_ops(registry: &mut Registry, hub: &Hub, decisions: &Decisions) {
    let hub = Arc::new(hub.clone());
    for kind in KINDS {
        let doc = ToolDoc { name: kind.name.into(), description: kind.doc.into(), params: kind.schema() };
        registry.register(Arc::new(OpTool { kind, doc, hub: hub.clone(), decisions: decisions.clone() }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gtd::Gtd;
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
        register_ops(&mut registry, &hub, &Decisions::default());
        assert_eq!(registry.docs_for(3).len(), op_tool_names().len());
        let defer = registry.get("defer").unwrap().doc().param_names();
        assert_eq!(defer, vec![("reason".to_string(), true), ("until".to_string(), false)]);

        // The model's answer, parsed by the kernel, becomes the same decision.
        let answer = "I'll approve.\n\n```yaml\ntool: reply\nmessage: LGTM\n```\n";
        let parsed = cn_compute::parse(answer);
        let cn_compute::Parsed::Call(c) = &parsed[0] else { panic!("{parsed:?}") };
        assert_eq!(
            registry.run(3, c).unwrap_err(),
            ToolError::Failed(
                "there is no current item to decide; `cn input` takes the next one from the queue".into()
            )
        );
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
        assert!(
            matches!(registry.run(3, &call("send", json!({"to": "pi"}))), Err(ToolError::BadParams(m)) if m.contains("message"))
        );
        assert!(
            matches!(registry.run(3, &call("delegate", json!({"to": "pi"}))), Err(ToolError::BadParams(m)) if m.contains("not a peer"))
        );
    }

    #[test]
    fn the_prompt_documents_every_op_tool() {
        for t in op_tool_names() {
            assert!(ops_prompt().contains(&format!("tool: {t} ")), "{t}");
        }
    }
}
