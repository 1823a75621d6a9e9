//! `mcp` — call a tool of an MCP server (`cn.yaml`'s `mcp:`) inside a pipeline:
//! `{action: mcp, tool: time.get_current_time, args: {timezone: UTC}}`.
//!
//! The reflex crate knows no MCP: the daemon and `cn reflex test` inject an [`McpCaller`] (cn-mcp's client),
//! which checks that `policy.levels` grants the reflex's level the tool by its server's name
//! and applies the server's trust rule, so a reflex reaches no server the owner did not name.
//! Without one (no `mcp:` servers), the action fails, saying so.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool, ToolContext};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::Shared;

/// Calls `server.tool` with its arguments for the calling level (`ctx.level`).
pub trait McpCaller: Send + Sync {
    fn call(&self, ctx: &ToolContext, tool: &str, args: Map<String, Value>) -> Result<Value, ToolError>;
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The tool, as `server.tool` (a server `cn.yaml`'s `mcp:` names).
    tool: String,
    /// Its arguments, as its schema wants them.
    #[serde(default)]
    args: Map<String, Value>,
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("mcp", "Call a tool of an MCP server named in cn.yaml's `mcp:` (`server.tool`).", move |ctx, p: Params| {
        let caller = shared.mcp.read().ok().and_then(|g| g.clone());
        let Some(caller) = caller else {
            return Err(ToolError::Failed(format!("mcp: no MCP servers are running here to call `{}`", p.tool)));
        };
        if !p.tool.contains('.') {
            return Err(ToolError::BadParams(format!("mcp: `tool` is `server.tool`, not `{}`", p.tool)));
        }
        caller.call(ctx, &p.tool, p.args)
    })
}
