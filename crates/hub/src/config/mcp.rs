//! `mcp:` (cn-mcp): the MCP servers whose tools join the registry as `server.tool`.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::duration;

/// One entry of `mcp:` — an MCP server. Its tools are `name.tool` in the registry, and no
/// level may call them until `policy.levels` names them (`name.*` or `name.tool`).
///
/// ```yaml
/// mcp:
///   time:
///     command: [uvx, mcp-server-time]
///     env: [TZ]
///   search:
///     url: http://127.0.0.1:8931/mcp
///     callers: anyone
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServer {
    /// A stdio server: the program and its arguments, run through `cn_process::child` (cleared
    /// environment, own process group).
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// A streamable-HTTP server.
    #[serde(default)]
    pub url: Option<String>,
    /// Environment variables a stdio server gets from cn's, besides `child::BASE_ENV`.
    #[serde(default)]
    pub env: Vec<String>,
    /// Longest the start or any one call may take (default 30 s); past it the server is
    /// restarted, after a backoff.
    #[serde(default = "mcp_timeout", with = "duration")]
    pub timeout: Duration,
    /// Whose items may cause a call: `owner` (default: only while the current item is the
    /// owner's) or `anyone`.
    #[serde(default)]
    pub callers: McpCallers,
    /// A stdio server runs in the Landlock sandbox (`cn_process::sandbox`): it writes only its
    /// own temporary directory and has no network, unless this widens it
    /// (`{network: true, write: [~/.cache/uv]}`) or says `false`.
    #[serde(default)]
    pub sandbox: crate::protect::SandboxSpec,
}

fn mcp_timeout() -> Duration {
    Duration::from_secs(30)
}

/// Whose items may cause calls to an MCP server's tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum McpCallers {
    #[default]
    Owner,
    Anyone,
}
