//! The Model Context Protocol, both ways (issue 21), on the official Rust SDK `rmcp`.
//!
//! [`server`]: `cn mcp` serves the agent layer's interface — `input` and `out`, plus the
//! read-only tasks, ideas and journal — on stdio, so an MCP client can be the agent.
//!
//! [`client`]: the servers `cn.yaml`'s `mcp:` names; their tools join the registry as
//! `server.tool`, under policy and the trust boundary, restarted with backoff when they die
//! or hang.
//!
//! [`http`]: the streamable-HTTP client's HTTP, on ureq.

pub mod client;
pub mod http;
pub mod server;

pub use client::{Joined, McpClients, RemoteTool};
pub use server::{serve_stdio, AgentServer};

/// What can go wrong serving or reaching MCP.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The async runtime could not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// The MCP session could not start. (The inner errors are in the messages, so they are
    /// not also the source: `cn` prints the chain.)
    #[error("MCP session: {0}")]
    Start(Box<rmcp::service::ServerInitializeError>),
    /// The MCP session's task ended in error.
    #[error("MCP session: {0}")]
    Ended(tokio::task::JoinError),
    /// No server of that name in `mcp:`.
    #[error("no MCP server `{0}` in cn.yaml's `mcp:`")]
    Unknown(String),
    /// The server could not be started (the source says why).
    #[error("MCP server `{server}`: cannot start")]
    NotStarted {
        server: String,
        #[source]
        error: Box<ConnectError>,
    },
    /// The server could not be reached, failed or did not answer in time.
    #[error("MCP server `{server}`: {message}")]
    Call { server: String, message: String },
    /// The server ran the tool and it reported an error.
    #[error("MCP server `{server}`, tool `{tool}` failed: {message}")]
    ToolFailed { server: String, tool: String, message: String },
}

/// Why a server could not be started: its messages are the underlying errors' own.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The HTTP transport's error, redacted: it may quote the URL, credentials and all, so
    /// it is kept only as text.
    #[error("{0}")]
    Http(String),
    /// A stdio server's entry has no command (cn.yaml's check makes this unreachable).
    #[error("no command")]
    NoCommand,
    /// The server's process could not be started (or sandboxed).
    #[error(transparent)]
    Spawn(#[from] cn_process::child::ChildError),
    #[error("its pipes were not opened")]
    NoPipes,
    /// Its pipes could not join the async runtime (the source says why).
    #[error("its pipes could not join the async runtime")]
    Pipe(#[source] std::io::Error),
    /// The MCP handshake failed.
    #[error(transparent)]
    Handshake(Box<rmcp::service::ClientInitializeError>),
}
