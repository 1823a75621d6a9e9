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

use cn_compute::{Params, Returned, ToolError};
use cn_tools::{Registry, Tool, ToolContext, ToolDoc};
use serde_json::{Map, Value};

use crate::error::AgentError;
use crate::gtd::{Gtd, Kind, KINDS, KIND_NAMES};
use crate::hub::Hub;

/// The op tools' [`cn_compute::Reader`]: a call of one of them becomes its [`Gtd`], read
/// once as `parse` meets it (bad params are a parse error naming the op and the field); any
/// other tool's params stay open.
pub fn read_call(tool: &str, params: Map<String, Value>) -> Result<Params, String> {
    match Kind::named(tool) {
        Some(kind) => kind.read(params).map(|gtd| Params::Typed(Arc::new(gtd))),
        None => Ok(Params::Open(params)),
    }
}

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

    fn call(&self, ctx: &ToolContext, params: &Params) -> Result<Returned, ToolError> {
        // Typed at parse on the model's trip; open from a reflex's step or an approval, read
        // here. Either error names the field, for the model (or the reflex's author) to read.
        let gtd = match params {
            Params::Open(map) => self.kind.read(map.clone()),
            Params::Typed(_) => params
                .typed::<Gtd>()
                .filter(|g| g.kind().is_some_and(|k| k.name == self.kind.name))
                .cloned()
                .ok_or_else(|| format!("`{}`: the params are not a `{}` decision", self.kind.name, self.kind.words())),
        }
        .map_err(ToolError::BadParams)?;
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

/// The tool's result: the decision, typed, for the daemon (its JSON for the journal and the
/// model). The error is the model's to read, so it is a message.
fn result(decided: crate::Result<crate::Decided>) -> Result<Returned, ToolError> {
    match decided {
        Ok(d) => Ok(Returned::Typed(Arc::new(d))),
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

    /// A hub with a current item from the owner, and the op tools at level 3.
    fn deciding() -> (tempfile::TempDir, Hub, Registry) {
        let dir = tempfile::tempdir().unwrap();
        let report = crate::init(&dir.path().join("sigma"), None).unwrap();
        let hub = Hub::open(&report.root).unwrap();
        let mut ctx = ToolContext::new(hub.root());
        ctx.policy = cn_tools::Policy::default().grant(3, op_tool_names());
        let mut registry = Registry::new(ctx);
        register_ops(&mut registry, &hub, &Decisions::default());
        crate::enqueue_new(&hub, crate::OWNER, crate::Cadence::Inbox, "Please review").unwrap();
        crate::take_next(&hub).unwrap().unwrap();
        (dir, hub, registry)
    }

    fn read(md: &str) -> Vec<cn_compute::Parsed> {
        cn_compute::parse_with(md, read_call)
    }

    #[test]
    fn an_op_call_is_a_gtd_from_parse_and_its_tool_returns_the_decided() {
        let (_dir, hub, registry) = deciding();
        let parsed = read("Done.\n\n```yaml\ntool: reply\nmessage: LGTM\n```\n");
        let [cn_compute::Parsed::Call(call)] = parsed.as_slice() else { panic!("{parsed:?}") };
        let cli = crate::parse_out(&["do", "reply", "--message", "LGTM"]).unwrap().gtd;
        assert_eq!(call.params.typed::<Gtd>(), Some(&cli), "typed once, at parse");
        assert_eq!(
            call.params.to_json(),
            json!({"message": "LGTM"}).as_object().cloned().unwrap(),
            "the journal's params"
        );
        let returned = registry.act(3, call).unwrap();
        let decided = returned.typed::<crate::Decided>().expect("the tool returns the Decided");
        assert_eq!(decided.gtd, cli);
        assert!(hub.archived().join(format!("{}.md", decided.item.id)).is_file());
        assert_eq!(returned.to_json()["id"], json!(decided.item.id), "its JSON is the one cn out prints");
        // Other tools' params stay open, for their own tools to read.
        let parsed = read("```yaml\ntool: read_file\npath: cn.yaml\n```\n");
        let [cn_compute::Parsed::Call(call)] = parsed.as_slice() else { panic!("{parsed:?}") };
        assert_eq!(call.params.open().map(|m| m["path"].clone()), Some(json!("cn.yaml")));
    }

    /// A model's tool call is a stranger's text: whatever it says, parse reads it into a
    /// decision or an error naming the op and the field; nothing panics, nothing is decided
    /// by a bad call, and the agent decides the item with the next good one.
    #[test]
    fn hostile_op_calls_are_parse_errors_naming_the_op_and_the_field() {
        let (_dir, hub, registry) = deciding();
        let long_name = "k".repeat(1000);
        let cases: Vec<(String, &[&str])> = vec![
            ("tool: reply\nmesage: hi\n".into(), &["`reply`", "`mesage`", "takes `message`"]),
            ("tool: reply\n".into(), &["`reply` needs `message`"]),
            ("tool: reply\nmessage:\n".into(), &["`reply`'s `message` is empty"]),
            ("tool: reply\nmessage: [1, 2]\n".into(), &["`reply`'s `message` is a list"]),
            ("tool: reply\nmessage: {a: 1}\n".into(), &["`message` is a mapping"]),
            ("tool: reply\nmessage: 42\n".into(), &["`message` is a number"]),
            ("tool: defer\nreason: later\nuntil: true\n".into(), &["`defer`'s `until` is a boolean"]),
            ("tool: send\nto: pi\nmessage: hi\nbody: [x]\n".into(), &["`send`'s `body` is a list"]),
            ("tool: delete\n".into(), &["`delete` needs `reason`"]),
            (format!("tool: noop\n{long_name}: x\n"), &["`noop` has no field `kkkk", "…`"]),
            (
                "- tool: reply\n  message: ok\n- tool: ack\n  reason: [no]\n".into(),
                &["item 1", "`ack`'s `reason` is a list"],
            ),
        ];
        for (yaml, want) in &cases {
            let parsed = read(&format!("```yaml\n{yaml}```\n"));
            let [cn_compute::Parsed::Error(e)] = parsed.as_slice() else { panic!("{yaml:.80}: {parsed:?}") };
            for w in *want {
                assert!(e.message.contains(w), "{:.200} lacks {w}", e.message);
            }
            assert!(e.message.len() < 400, "a stranger's field name is cut: {:.80}", e.message);
        }
        assert!(crate::current(&hub).unwrap().is_some(), "no bad call decided anything");
        // An unknown op is a call the registry refuses, naming what this level may call.
        let parsed = read("```yaml\ntool: rm_rf\npath: /\n```\n");
        let [cn_compute::Parsed::Call(c)] = parsed.as_slice() else { panic!("{parsed:?}") };
        assert!(matches!(registry.act(3, c), Err(ToolError::Unknown(m)) if m.contains("reply")));
        // A huge message is text like any other: read, and decided whole.
        let huge = "x".repeat(1 << 20);
        let parsed = read(&format!("```yaml\ntool: reply\nmessage: {huge}\n```\n"));
        let [cn_compute::Parsed::Call(c)] = parsed.as_slice() else { panic!("{:?}", parsed.len()) };
        let returned = registry.act(3, c).unwrap();
        let decided = returned.typed::<crate::Decided>().unwrap();
        assert_eq!(decided.gtd, Gtd::from(crate::ops::Reply { message: huge }));
    }

    /// Typed params of another form under an op's name (a caller's mistake, never a parse's)
    /// are refused, not decided as the other form.
    #[test]
    fn an_op_tool_refuses_another_forms_params() {
        let (_dir, hub, registry) = deciding();
        let delete = Gtd::Delete(crate::ops::Delete { reason: "spam".into() });
        let e = registry.act(3, &ToolCall::typed("reply", delete)).unwrap_err();
        assert!(matches!(&e, ToolError::BadParams(m) if m.contains("not a `do reply` decision")), "{e}");
        assert!(crate::current(&hub).unwrap().is_some());
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #[test]
        fn reading_any_params_never_panics(
            tool in proptest::sample::select(KIND_NAMES.to_vec()),
            fields in proptest::collection::vec((
                proptest::sample::select(vec!["message", "to", "body", "reason", "until", "desc", "artifact", "x", ""]),
                proptest::prop_oneof![
                    "\\PC{0,20}".prop_map(Value::from),
                    proptest::num::i64::ANY.prop_map(Value::from),
                    proptest::bool::ANY.prop_map(Value::from),
                    proptest::strategy::Just(Value::Null),
                    proptest::strategy::Just(json!([1, {"a": null}])),
                ],
            ), 0..5),
        ) {
            let map: Map<String, Value> = fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
            match read_call(tool, map) {
                Ok(p) => proptest::prop_assert_eq!(p.typed::<Gtd>().map(|g| g.kind().unwrap().name), Some(tool)),
                Err(e) => proptest::prop_assert!(e.contains(&format!("`{tool}`")), "{}", e),
            }
        }
    }

    #[test]
    fn the_prompt_documents_every_op_tool() {
        for t in op_tool_names() {
            assert!(ops_prompt().contains(&format!("tool: {t} ")), "{t}");
        }
    }
}
