//! The Model Context Protocol, both ways (issue 21), on the official Rust SDK `rmcp`.
//!
//! [`server`]: `cn mcp` serves the agent layer's interface — `input` and `out`, plus the
//! read-only tasks, ideas and journal — on stdio, so an MCP client can be the agent.
//!
//! [`client`]: the servers `cn.yaml`'s `mcp:` names; their tools join the registry as
//! `server.tool`, under policy and the trust boundary, restarted with backoff when they die
//! or hang.

pub mod client;
pub mod server;

pub use client::{Joined, McpClients, RemoteTool};
pub use server::{serve_stdio, AgentServer};

/// What can go wrong serving or reaching MCP.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The async runtime could not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// The MCP session could not start or ended in error.
    #[error("MCP session: {0}")]
    Start(String),
    /// No server of that name in `mcp:`.
    #[error("no MCP server `{0}` in cn.yaml's `mcp:`")]
    Unknown(String),
    /// The server could not be reached, failed or did not answer in time.
    #[error("MCP server `{server}`: {message}")]
    Call { server: String, message: String },
    /// The server ran the tool and it reported an error.
    #[error("MCP server `{server}`, tool `{tool}` failed: {message}")]
    ToolFailed { server: String, tool: String, message: String },
}
