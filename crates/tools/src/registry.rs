//! The tool registry: name → tool, and the kernel's `Tools` implementation.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use cn_compute::{Level, Params, Returned, ToolCall, ToolError};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::ToolContext;

/// What the model is told about a tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolDoc {
    pub name: String,
    pub description: String,
    /// JSON Schema of the params (an object schema).
    pub params: Value,
}

impl ToolDoc {
    /// The params' names, required ones first, as the schema lists them.
    pub fn param_names(&self) -> Vec<(String, bool)> {
        let required: Vec<&str> = self
            .params
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out: Vec<(String, bool)> = self
            .params
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(|k| (k.clone(), required.contains(&k.as_str()))).collect())
            .unwrap_or_default();
        out.sort_by_key(|(_, req)| !*req);
        out
    }

    /// The doc as prompt text: the description and a YAML example of a call.
    pub fn to_prompt(&self) -> String {
        let mut s = format!("### {}\n{}\n\n```yaml\ntool: {}\n", self.name, self.description.trim(), self.name);
        let props = self.params.get("properties").and_then(Value::as_object);
        for (name, required) in self.param_names() {
            let desc = props
                .and_then(|p| p.get(&name))
                .and_then(|p| p.get("description"))
                .and_then(Value::as_str)
                .unwrap_or("");
            let opt = if required { "" } else { " (optional)" };
            s.push_str(&format!("{name}: ...  # {desc}{opt}\n"));
        }
        s.push_str("```\n");
        s
    }
}

/// An effect the model can ask for.
pub trait Tool: Send + Sync {
    fn doc(&self) -> &ToolDoc;
    /// Run it with `params` as `parse` read them: typed by the tool's crate, or open.
    fn call(&self, ctx: &ToolContext, params: &Params) -> Result<Returned, ToolError>;
}

/// A tool whose params are a typed struct: deserialization checks them (a bad or missing
/// field is `BadParams` naming it) and the schema in its doc is derived from the same type.
pub fn typed<P, F>(name: &str, description: &str, f: F) -> Arc<dyn Tool>
where
    P: DeserializeOwned + JsonSchema + 'static,
    F: Fn(&ToolContext, P) -> Result<Value, ToolError> + Send + Sync + 'static,
{
    let mut params = serde_json::to_value(schemars::schema_for!(P)).unwrap_or(Value::Null);
    if let Some(o) = params.as_object_mut() {
        // The schema's own name and dialect mean nothing to a model.
        o.remove("$schema");
        o.remove("title");
    }
    Arc::new(Typed {
        doc: ToolDoc { name: name.into(), description: description.into(), params },
        f,
        _p: std::marker::PhantomData,
    })
}

struct Typed<P, F> {
    doc: ToolDoc,
    f: F,
    _p: std::marker::PhantomData<fn() -> P>,
}

impl<P, F> Tool for Typed<P, F>
where
    P: DeserializeOwned + JsonSchema + 'static,
    F: Fn(&ToolContext, P) -> Result<Value, ToolError> + Send + Sync + 'static,
{
    fn doc(&self) -> &ToolDoc {
        &self.doc
    }
    fn call(&self, ctx: &ToolContext, params: &Params) -> Result<Returned, ToolError> {
        // Its params are open: read here, at its boundary.
        let p: P = serde_json::from_value(Value::Object(params.to_json()))
            .map_err(|e| ToolError::BadParams(format!("{}: {e}", self.doc.name)))?;
        (self.f)(ctx, p).map(Returned::Json)
    }
}

/// Name → tool, plus the context every call runs with.
#[derive(Clone)]
pub struct Registry {
    tools: BTreeMap<String, Arc<dyn Tool>>,
    late: LateTools,
    pub ctx: ToolContext,
}

/// Tools that join after the registry is built (an MCP server's, once it answers): shared by
/// the registry and its clones, consulted after the registry's own (a late tool never
/// replaces one of those), under the same policy.
#[derive(Clone, Default)]
pub struct LateTools {
    tools: Arc<RwLock<BTreeMap<String, Arc<dyn Tool>>>>,
    /// The registry's own tools' names.
    own: Arc<RwLock<std::collections::BTreeSet<String>>>,
}

impl LateTools {
    /// Add a tool (a later one of the same name replaces it); false, and nothing added, when
    /// the registry has its own tool of that name.
    pub fn register(&self, tool: Arc<dyn Tool>) -> bool {
        let name = tool.doc().name.clone();
        if self.own.read().map_or(true, |own| own.contains(&name)) {
            return false;
        }
        if let Ok(mut tools) = self.tools.write() {
            tools.insert(name, tool);
        }
        true
    }

    fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools.read().ok()?.get(name).cloned()
    }

    /// The docs of the late tools `policy` lets `level` call.
    pub fn docs_for(&self, policy: &crate::Policy, level: Level) -> Vec<ToolDoc> {
        let Ok(tools) = self.tools.read() else { return Vec::new() };
        tools.values().map(|t| t.doc()).filter(|d| policy.allows(level, &d.name)).cloned().collect()
    }
}

impl Registry {
    pub fn new(ctx: ToolContext) -> Self {
        Registry { tools: BTreeMap::new(), late: LateTools::default(), ctx }
    }

    /// Add a tool; a later tool of the same name replaces the earlier one.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> &mut Self {
        let name = tool.doc().name.clone();
        if let Ok(mut own) = self.late.own.write() {
            own.insert(name.clone());
        }
        self.tools.insert(name, tool);
        self
    }

    /// Where tools that join later go (see [`LateTools`]).
    pub fn late(&self) -> LateTools {
        self.late.clone()
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.tools.get(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tools.keys().map(String::as_str)
    }

    /// The docs of the tools `level` may call: what plan puts in that level's prompt. The
    /// late tools joined so far are `late().docs_for(..)`.
    pub fn docs_for(&self, level: Level) -> Vec<&ToolDoc> {
        self.tools.values().map(|t| t.doc()).filter(|d| self.ctx.policy.allows(level, &d.name)).collect()
    }

    /// Check and run one call, its result as JSON (for callers at the JSON edge: a reflex's
    /// steps, a loop, an approval). See [`Registry::act`].
    pub fn run(&self, level: Level, call: &ToolCall) -> Result<Value, ToolError> {
        self.act(level, call).map(Returned::into_json)
    }

    /// Check and run one call, its result as the tool returned it. The one place a level's
    /// permission is decided.
    pub fn act(&self, level: Level, call: &ToolCall) -> Result<Returned, ToolError> {
        let tool = self.tools.get(&call.tool).cloned().or_else(|| self.late.get(&call.tool)).ok_or_else(|| {
            let mut known: Vec<String> = self.docs_for(level).into_iter().map(|d| d.name.clone()).collect();
            known.extend(self.late.docs_for(&self.ctx.policy, level).into_iter().map(|d| d.name));
            ToolError::Unknown(format!("{} (this level may call: {})", call.tool, known.join(", ")))
        })?;
        if !self.ctx.policy.allows(level, &call.tool) {
            return Err(ToolError::Denied(format!("level {level} may not call `{}`", call.tool)));
        }
        let mut ctx = self.ctx.clone();
        ctx.level = level;
        if let Some((from, item)) = ctx.provenance() {
            check_from(&ctx, level, call, &from, item.clone())?;
            ctx.from = Some(from);
            ctx.item = item;
        }
        tool.call(&ctx, &call.params)
    }

    /// Run a call the owner approved: as [`Registry::run`] at `level` (its grant checked
    /// again, under today's policy), on the owner's word.
    pub fn run_approved(&self, level: Level, call: &ToolCall) -> Result<Value, ToolError> {
        let mut approved = self.clone();
        approved.ctx.from = Some(cn_hub::Provenance::Owner);
        approved.run(level, call)
    }
}

/// Whether the item from `from` (`item`: its id) may cause `call` (`policy.from`, see
/// `Policy::allows_from`); when it may not, the call is held for the owner's approval
/// (recorded in `state/approvals.json`, nothing run) and the error tells the caller so, and
/// what to do with the item meanwhile. The one provenance check: [`Registry::run`] makes it
/// for every tool call, and the front ends that decide without the registry (`cn out`,
/// `cn mcp`'s `out`) make it for their decision.
pub fn check_from(
    ctx: &ToolContext,
    level: Level,
    call: &ToolCall,
    from: &cn_hub::Provenance,
    item: Option<String>,
) -> Result<(), ToolError> {
    if ctx.policy.allows_from(from, &call.tool) {
        return Ok(());
    }
    let tool = &call.tool;
    let refused = format!("an item from {from} may not cause `{tool}` without the owner's approval");
    let Some(hub) = &ctx.hub else { return Err(ToolError::Denied(refused)) };
    let params = Value::Object(call.params.to_json());
    let shown = serde_json::to_string(&params).unwrap_or_default();
    let on = item.as_deref().map_or(String::new(), |id| format!(" for item {id}"));
    let req = cn_hub::approvals::Request {
        tool: tool.clone(),
        params,
        runs: format!("`{tool}` {shown} at level {level}{on} from {}", from.label()),
        remembers: cn_hub::config::Policy::widening(from, tool),
        item,
        from: Some(from.label()),
        level: Some(level),
    };
    let timeout = ctx.policy.approval_timeout_secs.unwrap_or(cn_hub::approvals::DEFAULT_TIMEOUT_SECS);
    Err(match cn_hub::approvals::request(&cn_hub::Layout::new(hub), req, timeout) {
        Ok(a) => {
            tracing::info!(approval = %a.id, %tool, from = %from.label(), "held for the owner's approval");
            ToolError::Held {
                message: format!(
                    "{refused}: held as approval {} (the owner runs it with `cn approve {}`); \
                     decide the item without it meanwhile (reply, defer or surface it)",
                    a.id, a.id
                ),
                approval: a.id,
            }
        }
        Err(e) => ToolError::Denied(format!("{refused}, and it could not be held: {e}", e = cn_compute::Chain(&e))),
    })
}

impl cn_compute::Tools for Registry {
    fn call(&mut self, level: Level, call: &ToolCall) -> Result<Returned, ToolError> {
        self.act(level, call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Policy;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Echo {
        /// What to echo.
        text: String,
        times: Option<u32>,
    }

    fn registry() -> Registry {
        let mut ctx = ToolContext::new(".");
        ctx.policy = Policy::default().grant(3, &["echo"]);
        let mut r = Registry::new(ctx);
        r.register(typed("echo", "Echo text back.", |_ctx, p: Echo| {
            Ok(json!(p.text.repeat(p.times.unwrap_or(1) as usize)))
        }));
        r
    }

    fn call(tool: &str, params: Value) -> ToolCall {
        ToolCall::new(tool, params.as_object().cloned().unwrap_or_default())
    }

    #[test]
    fn runs_checks_params_and_policy() {
        let r = registry();
        assert_eq!(r.run(3, &call("echo", json!({"text": "ab", "times": 2}))), Ok(json!("abab")));
        assert!(matches!(r.run(3, &call("echo", json!({}))), Err(ToolError::BadParams(m)) if m.contains("text")));
        assert!(
            matches!(r.run(3, &call("echo", json!({"text": "a", "x": 1}))), Err(ToolError::BadParams(m)) if m.contains("x"))
        );
        assert!(matches!(r.run(2, &call("echo", json!({"text": "a"}))), Err(ToolError::Denied(_))));
        assert!(matches!(r.run(3, &call("nope", json!({}))), Err(ToolError::Unknown(m)) if m.contains("echo")));
    }

    #[test]
    fn docs_carry_the_schema_and_render_for_the_prompt() {
        let r = registry();
        assert!(r.docs_for(2).is_empty());
        let docs = r.docs_for(3);
        assert_eq!(docs[0].param_names(), vec![("text".to_string(), true), ("times".to_string(), false)]);
        let text = docs[0].to_prompt();
        assert!(text.contains("tool: echo") && text.contains("text: ...  # What to echo."), "{text}");
    }

    #[test]
    fn late_tools_join_a_built_registry_under_its_policy_and_never_replace_its_own() {
        let r = registry();
        let clone = r.clone();
        let echo_call = call("late.echo", json!({"text": "hi"}));
        assert!(matches!(r.run(3, &echo_call), Err(ToolError::Unknown(_))), "not joined yet");
        let late = r.late();
        assert!(late.register(typed("late.echo", "Echo, late.", |_ctx, p: Echo| Ok(json!(p.text)))));
        assert!(!late.register(typed("echo", "An impostor.", |_ctx, _p: Echo| Ok(json!("impostor")))));
        // Level 3 is granted `echo` only: the late tool is refused, then granted, it runs.
        assert!(matches!(clone.run(3, &echo_call), Err(ToolError::Denied(_))));
        let mut granted = r.clone();
        granted.ctx.policy = Policy::default().grant(3, &["echo", "late.*"]);
        assert_eq!(granted.run(3, &echo_call), Ok(json!("hi")), "a clone made before the join sees it");
        let names: Vec<String> = late.docs_for(&granted.ctx.policy, 3).into_iter().map(|d| d.name).collect();
        assert_eq!(names, ["late.echo"]);
        assert!(late.docs_for(&granted.ctx.policy, 2).is_empty());
        assert_eq!(r.run(3, &call("echo", json!({"text": "a"}))), Ok(json!("a")), "the registry's own echo runs");
    }
}
