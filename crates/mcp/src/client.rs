//! The MCP client: the servers `cn.yaml`'s `mcp:` names, their tools in the registry as
//! `server.tool` (with the server's own schemas, which the executive's prompt shows), and
//! `server.list_resources` / `server.read_resource` for their resources.
//!
//! Invariants:
//! - Nothing here can block the daemon: the daemon starts its servers in the background
//!   ([`McpClients::join_when_ready`]: their tools join the registry once listed), the start
//!   and every call have the server's `timeout`, and a call waits on its answer with that
//!   deadline (plus a short grace) whatever the server or the runtime do.
//! - [`McpClients::close`] (the daemon's stop) kills every server, started or starting.
//! - A server that dies, hangs past its timeout or cannot start is dropped (a stdio
//!   server's process group killed) and started again on a later call after a backoff that
//!   doubles from 1 s to 60 s; while it backs off, its calls fail at once, saying when the
//!   next try is.
//! - Policy decides who may call: every tool here is a registry tool, so `Registry::run`
//!   checks the level's grant, and a namespaced tool is granted only by a grant naming its
//!   server (`cn_hub::config::Grant`). On top of that the trust boundary: unless the server
//!   says `callers: anyone`, a call is refused unless the current item is the owner's, so a
//!   stranger's text cannot reach a server the owner meant for the owner.
//! - A stdio server runs through `cn_process::child`: cleared environment (only `BASE_ENV` and
//!   the names its `env:` lists), the hub as its directory, its own process group.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cn_compute::ToolError;
use cn_hub::config::{McpCallers, McpServer};
use cn_tools::{Tool, ToolContext, ToolDoc};
use rmcp::model::{CallToolRequestParams, JsonObject, ReadResourceRequestParams};
use rmcp::service::{RunningService, ServiceError};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Map, Value};
use tokio::sync::Mutex;

use crate::{ConnectError, McpError};

/// A call's future, borrowing the connection.
type BoxFuture<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send + 'a>>;

/// The first backoff after a failure; it doubles up to [`BACKOFF_MAX`].
pub const BACKOFF_MIN: Duration = Duration::from_secs(1);
pub const BACKOFF_MAX: Duration = Duration::from_secs(60);
/// Most bytes of a tool's answer handed on to the model.
pub const ANSWER_MAX: usize = 64 * 1024;
/// Beyond a call's timeout, how long the caller waits for the runtime to report it.
const GRACE: Duration = Duration::from_secs(2);

/// The configured servers and the runtime their connections live on.
#[derive(Clone)]
pub struct McpClients {
    rt: Arc<tokio::runtime::Runtime>,
    servers: BTreeMap<String, Arc<Server>>,
    /// Set by [`McpClients::close`]: every call in flight ends and every server stops.
    closed: Arc<tokio::sync::watch::Sender<bool>>,
}

/// What [`McpClients::join_when_ready`] reports of a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Joined {
    /// Its tools joined the registry: their names.
    Ready(Vec<String>),
    /// It could not be reached (the first failure only; it is retried with backoff).
    Down(String),
}

/// One server: its config and its connection, if up.
struct Server {
    name: String,
    config: McpServer,
    hub: PathBuf,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    conn: Option<Conn>,
    failures: u32,
    retry_at: Option<Instant>,
    /// Starts so far (the first and every restart).
    starts: u32,
}

struct Conn {
    service: RunningService<RoleClient, ()>,
    /// A stdio server's process; dropping it kills its group.
    _child: Option<cn_process::child::Spawned>,
}

/// A server's tool as the registry knows it.
#[derive(Debug, Clone)]
pub struct RemoteTool {
    pub server: String,
    pub name: String,
    pub description: String,
    pub schema: Value,
}

impl McpClients {
    /// The servers of the open hub's `mcp:`; nothing is started yet.
    pub fn of_hub(hub: &cn_hub::Hub) -> Result<McpClients, McpError> {
        McpClients::new(hub.layout(), &hub.config().mcp)
    }

    /// The servers of `config` (`mcp:`, already read) for the hub laid out at `hub` (a hub
    /// with only reflexes needs no `name`: `cn reflex`); nothing is started yet.
    pub fn new(hub: &cn_hub::Layout, config: &BTreeMap<String, McpServer>) -> Result<McpClients, McpError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("cn-mcp")
            .enable_all()
            .build()
            .map_err(McpError::Runtime)?;
        let servers = config
            .iter()
            .map(|(name, c)| {
                let s = Server {
                    name: name.clone(),
                    config: c.clone(),
                    hub: hub.root().to_path_buf(),
                    state: Mutex::default(),
                };
                (name.clone(), Arc::new(s))
            })
            .collect();
        let (closed, _) = tokio::sync::watch::channel(false);
        Ok(McpClients { rt: Arc::new(rt), servers, closed: Arc::new(closed) })
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.servers.keys().map(String::as_str)
    }

    /// Run `f` on the server's connection within its timeout; the caller waits at most that
    /// long (plus a grace), whatever happens.
    fn with_conn<T, F>(&self, server: &str, what: String, f: F) -> Result<T, McpError>
    where
        T: Send + 'static,
        F: for<'a> FnOnce(&'a RunningService<RoleClient, ()>) -> BoxFuture<'a, Result<T, ServiceError>>
            + Send
            + 'static,
    {
        let Some(s) = self.servers.get(server).cloned() else {
            return Err(McpError::Unknown(server.to_string()));
        };
        let timeout = s.config.timeout;
        if self.is_closed() {
            return Err(McpError::Call { server: server.to_string(), message: "closed".into() });
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let mut closed = self.closed.subscribe();
        self.rt.spawn(async move {
            let name = s.name.clone();
            // Closing cancels the call, and with it a start in progress (its process killed).
            let r = tokio::select! {
                r = s.run(what, f) => r,
                _ = closed.wait_for(|c| *c) => Err(McpError::Call { server: name, message: "closed".into() }),
            };
            let _ = tx.send(r);
        });
        // Waiting for the lock, starting and the call are each bounded by `timeout`.
        match rx.recv_timeout(timeout * 3 + GRACE) {
            Ok(r) => r,
            Err(_) => Err(McpError::Call { server: server.to_string(), message: format!("no answer in {timeout:?}") }),
        }
    }

    /// The tools of every server (each listed within its timeout; a server that cannot be
    /// reached is left out, with a warning, and backs off).
    pub fn tools(&self) -> Vec<RemoteTool> {
        let mut out = Vec::new();
        for name in self.servers.keys() {
            match self.list_tools(name) {
                Ok(tools) => out.extend(tools),
                Err(e) => {
                    tracing::warn!(server = %name, "MCP server's tools not listed: {e}", e = cn_compute::Chain(&e))
                }
            }
        }
        out
    }

    /// One server's tools.
    pub fn list_tools(&self, server: &str) -> Result<Vec<RemoteTool>, McpError> {
        let name = server.to_string();
        self.with_conn(server, "list its tools".into(), move |svc| {
            Box::pin(async move {
                let tools = svc.list_all_tools().await?;
                Ok(tools
                    .into_iter()
                    .map(|t| RemoteTool {
                        server: name.clone(),
                        name: t.name.to_string(),
                        description: t.description.as_deref().unwrap_or("").to_string(),
                        schema: Value::Object((*t.input_schema).clone()),
                    })
                    .collect())
            })
        })
    }

    /// Call `tool` of `server` with `args`: the server's answer (its text, and its
    /// structured content when it gives one), or its error.
    pub fn call(&self, server: &str, tool: &str, args: Map<String, Value>) -> Result<Value, McpError> {
        let (sname, tname) = (server.to_string(), tool.to_string());
        let answer = self.with_conn(server, format!("call `{tool}`"), move |svc| {
            Box::pin(async move {
                let r = svc.call_tool(CallToolRequestParams::new(tname).with_arguments(args as JsonObject)).await?;
                Ok(r)
            })
        })?;
        let text = text_of(&serde_json::to_value(&answer.content).unwrap_or(Value::Null));
        if answer.is_error == Some(true) {
            return Err(McpError::ToolFailed { server: sname, tool: tool.to_string(), message: capped(text) });
        }
        let mut out = Map::new();
        out.insert("text".into(), capped(text).into());
        if let Some(s) = answer.structured_content {
            if s.to_string().len() <= ANSWER_MAX {
                out.insert("structured".into(), s);
            }
        }
        Ok(Value::Object(out))
    }

    /// The resources a server offers: uri, name, description, mime type.
    pub fn list_resources(&self, server: &str) -> Result<Value, McpError> {
        self.with_conn(server, "list its resources".into(), |svc| {
            Box::pin(async move {
                let list = svc.list_all_resources().await?;
                Ok(serde_json::to_value(list).unwrap_or(Value::Null))
            })
        })
    }

    /// One resource's text contents (binary contents are described, not inlined).
    pub fn read_resource(&self, server: &str, uri: &str) -> Result<Value, McpError> {
        let uri = uri.to_string();
        let result = self.with_conn(server, format!("read `{uri}`"), move |svc| {
            Box::pin(async move {
                let r = svc.read_resource(ReadResourceRequestParams::new(uri)).await?;
                Ok(serde_json::to_value(r.contents).unwrap_or(Value::Null))
            })
        })?;
        let contents: Vec<Value> = result
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|c| match c.get("text").and_then(Value::as_str) {
                        Some(t) => {
                            json!({"uri": c.get("uri"), "mimeType": c.get("mimeType"), "text": capped(t.to_string())})
                        }
                        None => json!({"uri": c.get("uri"), "mimeType": c.get("mimeType"), "binary": true}),
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(json!({ "contents": contents }))
    }

    /// How many times `server` has been started (the first start and each restart).
    pub fn starts(&self, server: &str) -> u32 {
        let Some(s) = self.servers.get(server).cloned() else { return 0 };
        let (tx, rx) = std::sync::mpsc::channel();
        self.rt.spawn(async move {
            let _ = tx.send(s.state.lock().await.starts);
        });
        rx.recv_timeout(GRACE).unwrap_or(0)
    }

    /// Register every listed tool, and the resource tools, in `registry`, now (each server
    /// listed within its timeout; what the daemon does in the background is
    /// [`McpClients::join_when_ready`]).
    pub fn register(&self, registry: &mut cn_tools::Registry) {
        let tools = self.tools();
        for server in self.servers.keys() {
            for tool in self.registry_tools(server, &tools) {
                registry.register(tool);
            }
        }
    }

    /// A server's registry tools: its listed `tools` and, unless it has tools of those
    /// names, `list_resources` and `read_resource`.
    fn registry_tools(&self, server: &str, tools: &[RemoteTool]) -> Vec<Arc<dyn Tool>> {
        let mut out: Vec<Arc<dyn Tool>> = Vec::new();
        for t in tools.iter().filter(|t| t.server == server) {
            out.push(Arc::new(McpTool::call(self.clone(), t)));
        }
        for tool in [McpTool::list_resources(self.clone(), server), McpTool::read_resource(self.clone(), server)] {
            if !tools.iter().any(|t| format!("{}.{}", t.server, t.name) == tool.doc.name) {
                out.push(Arc::new(tool));
            }
        }
        out
    }

    /// Start every server in the background, and add its tools to `late` once it has listed
    /// them: the caller never waits for a server. A server that cannot start or list is
    /// tried again after its backoff (1 s doubling to 60 s) until it answers; `report` hears
    /// of each server's first failure and of its tools joining. The thread ends when every
    /// server has joined, or when these clients are dropped (it holds them only while it
    /// tries).
    pub fn join_when_ready(&self, late: cn_tools::LateTools, report: impl Fn(&str, Joined) + Send + 'static) {
        let rt = Arc::downgrade(&self.rt);
        let servers = self.servers.clone();
        let closed = self.closed.clone();
        let spawned = std::thread::Builder::new().name("cn-mcp-join".into()).spawn(move || {
            let mut waiting: Vec<String> = servers.keys().cloned().collect();
            let mut reported = std::collections::BTreeSet::new();
            while !waiting.is_empty() {
                let mut next_try: Option<Instant> = None;
                for name in std::mem::take(&mut waiting) {
                    // Held only for this try: dropping the daemon's clients ends the thread.
                    let Some(rt) = rt.upgrade() else { return };
                    let clients =
                        McpClients { rt, servers: servers.clone(), closed: closed.clone() };
                    if clients.is_closed() {
                        return;
                    }
                    match clients.list_tools(&name) {
                        Ok(tools) => {
                            let mut names = Vec::new();
                            for tool in clients.registry_tools(&name, &tools) {
                                let tool_name = tool.doc().name.clone();
                                if late.register(tool) {
                                    names.push(tool_name);
                                } else {
                                    tracing::warn!(server = %name, tool = %tool_name, "an MCP tool shadows a built-in tool: left out");
                                }
                            }
                            report(&name, Joined::Ready(names));
                        }
                        Err(e) => {
                            if reported.insert(name.clone()) {
                                report(&name, Joined::Down(cn_process::redact::redact(&cn_compute::chain(&e))));
                            }
                            let at = clients.retry_at(&name).unwrap_or_else(|| Instant::now() + BACKOFF_MIN);
                            next_try = Some(next_try.map_or(at, |t| t.min(at)));
                            waiting.push(name);
                        }
                    }
                }
                if let Some(at) = next_try {
                    // The backoff itself: nothing to wait on but the clock.
                    std::thread::sleep(at.saturating_duration_since(Instant::now()));
                }
            }
        });
        if let Err(e) = spawned {
            tracing::error!(e = %cn_compute::Chain(&e), "cannot start the MCP servers' thread");
        }
    }

    /// Stop every server (a stdio server's process group killed) and end the calls in flight;
    /// later calls fail. The daemon closes its clients when it stops: a server still starting
    /// in the background would otherwise outlive it.
    pub fn close(&self) {
        self.closed.send_replace(true);
        let (tx, rx) = std::sync::mpsc::channel();
        for s in self.servers.values().cloned() {
            let tx = tx.clone();
            self.rt.spawn(async move {
                if let Ok(mut state) = tokio::time::timeout(GRACE, s.state.lock()).await {
                    state.conn = None;
                }
                let _ = tx.send(());
            });
        }
        drop(tx);
        let deadline = Instant::now() + GRACE;
        for _ in 0..self.servers.len() {
            if rx.recv_timeout(deadline.saturating_duration_since(Instant::now())).is_err() {
                break;
            }
        }
    }

    pub fn is_closed(&self) -> bool {
        *self.closed.borrow()
    }

    /// When `server` may be started again, if it is backing off.
    fn retry_at(&self, server: &str) -> Option<Instant> {
        let s = self.servers.get(server).cloned()?;
        let (tx, rx) = std::sync::mpsc::channel();
        self.rt.spawn(async move {
            let _ = tx.send(s.state.lock().await.retry_at);
        });
        rx.recv_timeout(GRACE).ok().flatten()
    }

    /// Whether a call to `server` may be made for the current item (the trust boundary).
    pub fn admits(&self, server: &str, ctx: &ToolContext) -> Result<(), ToolError> {
        let Some(s) = self.servers.get(server) else {
            return Err(ToolError::Unknown(format!("no MCP server `{server}` in cn.yaml's `mcp:`")));
        };
        if s.config.callers == McpCallers::Anyone {
            return Ok(());
        }
        // Who the call is for, as the registry decides it for every tool (the caller's
        // provenance, or the current item's).
        match ctx.provenance().map(|(from, _)| from) {
            Some(from) if from.is_owner() => Ok(()),
            Some(from) => Err(ToolError::Denied(format!(
                "MCP server `{server}` takes calls for the owner's items only, and this item is from `{}` \
                 (the owner may set `mcp.{server}.callers: anyone`)",
                from.label()
            ))),
            None => Err(ToolError::Denied(format!(
                "MCP server `{server}` takes calls for the owner's items only, and there is no current item"
            ))),
        }
    }
}

impl Server {
    /// Connect if needed (unless backing off), run `f` within the timeout; a failure drops
    /// the connection and starts the backoff.
    async fn run<T, F>(&self, what: String, f: F) -> Result<T, McpError>
    where
        F: for<'a> FnOnce(&'a RunningService<RoleClient, ()>) -> BoxFuture<'a, Result<T, ServiceError>>,
    {
        let timeout = self.config.timeout;
        let err = |message: String| McpError::Call { server: self.name.clone(), message };
        let mut state = match tokio::time::timeout(timeout, self.state.lock()).await {
            Ok(s) => s,
            Err(_) => return Err(err(format!("busy with another call for {timeout:?}"))),
        };
        if state.conn.is_none() {
            if let Some(at) = state.retry_at {
                let now = Instant::now();
                if at > now {
                    return Err(err(format!(
                        "down after {} failure(s); the next start is in {:.1}s",
                        state.failures,
                        (at - now).as_secs_f64()
                    )));
                }
            }
            state.starts += 1;
            match tokio::time::timeout(timeout, self.connect()).await {
                Ok(Ok(conn)) => state.conn = Some(conn),
                Ok(Err(error)) => {
                    return Err(fail(
                        &mut state,
                        McpError::NotStarted { server: self.name.clone(), error: Box::new(error) },
                    ))
                }
                Err(_) => return Err(fail(&mut state, err(format!("did not start within {timeout:?}")))),
            }
        }
        let Some(conn) = state.conn.as_ref() else { return Err(err("not connected".into())) };
        match tokio::time::timeout(timeout, f(&conn.service)).await {
            Ok(Ok(v)) => {
                state.failures = 0;
                state.retry_at = None;
                Ok(v)
            }
            // The server answered with an error: it is up, and says what was wrong.
            Ok(Err(ServiceError::McpError(e))) => {
                state.failures = 0;
                state.retry_at = None;
                Err(err(format!("{what}: {}", e.message)))
            }
            Ok(Err(e)) => Err(fail(&mut state, err(format!("{what}: {e}")))),
            Err(_) => Err(fail(&mut state, err(format!("{what}: no answer within {timeout:?}; restarting it")))),
        }
    }

    async fn connect(&self) -> Result<Conn, ConnectError> {
        if let Some(url) = &self.config.url {
            let transport = rmcp::transport::StreamableHttpClientTransport::with_client(
                crate::http::UreqClient::new(self.config.timeout),
                rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url.as_str()),
            );
            let service =
                ().serve(transport)
                    .await
                    .map_err(|e| ConnectError::Http(cn_process::redact::redact(&e.to_string())))?;
            return Ok(Conn { service, _child: None });
        }
        let Some((program, args)) = self.config.command.as_deref().and_then(<[String]>::split_first) else {
            return Err(ConnectError::NoCommand);
        };
        let mut child = cn_process::child::Child::new(program).args(args).pass_env(&self.config.env).cwd(&self.hub);
        // Sandboxed unless its entry says `sandbox: false`: its own temporary directory, no
        // network, unless the entry widens it.
        let base = cn_process::sandbox::Sandbox::nothing()
            .way_out(format!("`sandbox: false` under `mcp.{}` in cn.yaml", self.name));
        if let Some(sandbox) = self.config.sandbox.resolve(None).map(|w| base.widen(w.network, w.write)) {
            child = child.sandbox(sandbox);
        }
        let mut spawned = child.spawn()?;
        let (Some(stdin), Some(stdout)) = (spawned.child.stdin.take(), spawned.child.stdout.take()) else {
            return Err(ConnectError::NoPipes);
        };
        let stdin = tokio::process::ChildStdin::from_std(stdin).map_err(ConnectError::Pipe)?;
        let stdout = tokio::process::ChildStdout::from_std(stdout).map_err(ConnectError::Pipe)?;
        let service = ().serve((stdout, stdin)).await.map_err(|e| ConnectError::Handshake(Box::new(e)))?;
        Ok(Conn { service, _child: Some(spawned) })
    }
}

/// Record a failure: drop the connection (killing a stdio server) and back off.
fn fail(state: &mut State, e: McpError) -> McpError {
    state.conn = None;
    state.failures = state.failures.saturating_add(1);
    let backoff = BACKOFF_MIN.saturating_mul(1u32 << state.failures.saturating_sub(1).min(6)).min(BACKOFF_MAX);
    state.retry_at = Some(Instant::now() + backoff);
    tracing::warn!(failures = state.failures, ?backoff, "MCP server failed: {e}", e = cn_compute::Chain(&e));
    e
}

/// The text of a result's content blocks, joined.
fn text_of(content: &Value) -> String {
    let mut out = String::new();
    for c in content.as_array().into_iter().flatten() {
        match c.get("text").and_then(Value::as_str) {
            Some(t) => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(t);
            }
            None => {
                let kind = c.get("type").and_then(Value::as_str).unwrap_or("content");
                out.push_str(&format!("[{kind} omitted]"));
            }
        }
    }
    out
}

fn capped(mut s: String) -> String {
    if s.len() > ANSWER_MAX {
        let mut at = ANSWER_MAX;
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        s.truncate(at);
        s.push_str("\n[cut]");
    }
    s
}

/// A registry tool backed by an MCP server.
struct McpTool {
    doc: ToolDoc,
    clients: McpClients,
    server: String,
    what: What,
}

enum What {
    Call(String),
    ListResources,
    ReadResource,
}

impl McpTool {
    fn call(clients: McpClients, t: &RemoteTool) -> McpTool {
        let description = format!("(MCP server `{}`) {}", t.server, t.description);
        McpTool {
            doc: ToolDoc { name: format!("{}.{}", t.server, t.name), description, params: t.schema.clone() },
            clients,
            server: t.server.clone(),
            what: What::Call(t.name.clone()),
        }
    }

    fn list_resources(clients: McpClients, server: &str) -> McpTool {
        McpTool {
            doc: ToolDoc {
                name: format!("{server}.list_resources"),
                description: format!("(MCP server `{server}`) The resources it offers: uri, name, description."),
                params: json!({"type": "object", "properties": {}}),
            },
            clients,
            server: server.to_string(),
            what: What::ListResources,
        }
    }

    fn read_resource(clients: McpClients, server: &str) -> McpTool {
        McpTool {
            doc: ToolDoc {
                name: format!("{server}.read_resource"),
                description: format!("(MCP server `{server}`) Read one of its resources by uri."),
                params: json!({"type": "object", "properties": {"uri": {"type": "string", "description": "The resource's uri."}}, "required": ["uri"]}),
            },
            clients,
            server: server.to_string(),
            what: What::ReadResource,
        }
    }
}

impl Tool for McpTool {
    fn doc(&self) -> &ToolDoc {
        &self.doc
    }

    fn call(&self, ctx: &ToolContext, params: &cn_compute::Params) -> Result<cn_compute::Returned, ToolError> {
        self.clients.admits(&self.server, ctx)?;
        // An outside server's params are open: its JSON schema is the server's, checked there.
        let params = params.to_json();
        let r = match &self.what {
            What::Call(tool) => self.clients.call(&self.server, tool, params),
            What::ListResources => self.clients.list_resources(&self.server),
            What::ReadResource => {
                let Some(uri) = params.get("uri").and_then(Value::as_str) else {
                    return Err(ToolError::BadParams(format!("{}: `uri` (a string) is required", self.doc.name)));
                };
                self.clients.read_resource(&self.server, uri)
            }
        };
        r.map(cn_compute::Returned::Json)
            .map_err(|e| ToolError::Failed(cn_process::redact::redact(&cn_compute::chain(&e))))
    }
}

/// The reflex action `mcp`: the reflex's level must be granted the tool by name
/// (`reflexes.grants`, e.g. `1: [mcp, time.*]`), then the server's trust rule applies.
impl cn_reflex::McpCaller for McpClients {
    fn call(&self, ctx: &ToolContext, tool: &str, args: Map<String, Value>) -> Result<Value, ToolError> {
        let Some((server, name)) = tool.split_once('.') else {
            return Err(ToolError::BadParams(format!("mcp: `tool` is `server.tool`, not `{tool}`")));
        };
        if !ctx.policy.allows(ctx.level, tool) {
            return Err(ToolError::Denied(format!(
                "mcp: level {} may not call `{tool}` (grant it by its server's name, `{server}.*`)",
                ctx.level
            )));
        }
        self.admits(server, ctx)?;
        McpClients::call(self, server, name, args)
            .map_err(|e| ToolError::Failed(cn_process::redact::redact(&cn_compute::chain(&e))))
    }
}
