//! `cn mcp`: the agent layer's interface — "the agent's entire interface is cn input / cn
//! out" — served as MCP tools on stdio, so any MCP client (a coding agent) can be the agent.
//!
//! Tools: `input` (the current item, taking the next from the queue as `cn input` does),
//! `out` (a decision, the fields `cn out --json` prints), and the read-only `tasks`,
//! `ideas`, `journal` ("what did you do") and `why` ("why did you do that").
//!
//! Invariant: `out` takes exactly `cn out`'s path — its arguments become `cn out`'s words,
//! parsed by [`cn_agent::parse_out`] and performed by [`cn_agent::decide`] as [`cn_agent::DecideAs::agent`] (the
//! current item's provenance checked as the executive's op tools are: a peer's item cannot
//! make it mail another peer unasked) — so it accepts, holds and refuses what `cn out` does,
//! with the same messages, and a refused decision writes nothing. A refusal is a tool error (`isError`), which the client's model reads; a
//! protocol error is kept for a request that names no tool of ours.
//!
//! The hub's functions block (files, the hub lock, git), so every call runs on tokio's
//! blocking pool and the stdio loop keeps answering pings meanwhile.
//!
//! A request line longer than [`MAX_REQUEST_LINE`] is answered with a JSON-RPC error
//! (`-32600`, the request's `id` when its first bytes name one) and skipped, never read
//! whole: the client learns at once instead of waiting for an answer that never comes.

use std::sync::Arc;

use cn_agent::{AgentError, Hub};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Map, Value};

use crate::McpError;

/// How many journal entries `journal` returns at most (the newest), unless asked for fewer.
pub const JOURNAL_LIMIT: usize = 200;

/// The longest request line `cn mcp` reads (rmcp's own cap, which drops a longer line
/// without an answer).
pub const MAX_REQUEST_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// How much of an over-long line is kept to find its `id`.
const ID_PREFIX: usize = 4096;

/// Serve the hub's agent interface on stdin/stdout until the client closes the stream.
pub fn serve_stdio(hub: Hub) -> Result<(), McpError> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(McpError::Runtime)?;
    rt.block_on(async move {
        // stdin → [`requests`] (over-long lines answered, the rest passed on) → the server;
        // the server's answers and those errors → [`answers`] → stdout, one line at a time.
        let (to_server, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, from_server) = tokio::io::duplex(1 << 16);
        let (errors, refused) = tokio::sync::mpsc::unbounded_channel();
        let reader = tokio::spawn(requests(tokio::io::stdin(), to_server, errors));
        let writer = tokio::spawn(answers(from_server, refused, tokio::io::stdout()));
        let transport = rmcp::transport::async_rw::AsyncRwTransport::new_server(server_in, server_out)
            .with_max_line_length(MAX_REQUEST_LINE);
        let service =
            AgentServer { hub: Arc::new(hub) }.serve(transport).await.map_err(|e| McpError::Start(Box::new(e)))?;
        let ended = service.waiting().await.map_err(McpError::Ended);
        reader.abort();
        let _ = writer.await;
        ended?;
        Ok(())
    })
}

/// Pass each line of `input` to `server` whole, up to [`MAX_REQUEST_LINE`] bytes with its
/// newline; a longer one is skipped as it comes (never held) and its error answer sent to
/// `errors`. Ends at the end of `input` (closing `server`) or when the server is gone.
async fn requests(
    input: impl tokio::io::AsyncRead + Unpin,
    mut server: impl tokio::io::AsyncWrite + Unpin,
    errors: tokio::sync::mpsc::UnboundedSender<Value>,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut input = tokio::io::BufReader::with_capacity(1 << 16, input);
    let mut line = Vec::new();
    // The first bytes of the over-long line being skipped.
    let mut skipping: Option<Vec<u8>> = None;
    loop {
        let (taken, ended) = {
            let Ok(buf) = input.fill_buf().await else { break };
            if buf.is_empty() {
                break;
            }
            let newline = buf.iter().position(|b| *b == b'\n');
            let take = newline.map_or(buf.len(), |i| i + 1);
            match &mut skipping {
                Some(head) => {
                    let room = ID_PREFIX.saturating_sub(head.len()).min(take);
                    head.extend_from_slice(&buf[..room]);
                }
                None if line.len() + take > MAX_REQUEST_LINE => {
                    let mut head = std::mem::take(&mut line);
                    head.truncate(ID_PREFIX);
                    let room = ID_PREFIX.saturating_sub(head.len()).min(take);
                    head.extend_from_slice(&buf[..room]);
                    skipping = Some(head);
                }
                None => line.extend_from_slice(&buf[..take]),
            }
            (take, newline.is_some())
        };
        input.consume(taken);
        if !ended {
            continue;
        }
        if let Some(head) = skipping.take() {
            if errors.send(too_long(&head)).is_err() {
                break;
            }
        } else {
            if server.write_all(&line).await.is_err() {
                break;
            }
            line.clear();
        }
    }
    // A line the client never ended is not a request; an over-long one still gets its answer.
    if let Some(head) = skipping {
        let _ = errors.send(too_long(&head));
    }
    let _ = server.shutdown().await;
}

/// The JSON-RPC error for a request line over [`MAX_REQUEST_LINE`] whose first bytes are
/// `head`.
fn too_long(head: &[u8]) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": request_id(head),
        "error": {
            "code": -32600,
            "message": format!(
                "the request line is longer than cn mcp reads ({MAX_REQUEST_LINE} bytes); it was skipped unread"
            ),
        },
    })
}

/// The top-level `"id"` of a JSON-RPC request from its first bytes: a number or a string,
/// else `null`.
fn request_id(head: &[u8]) -> Value {
    let (mut depth, mut i) = (0usize, 0usize);
    while i < head.len() {
        match head[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i;
                i += 1;
                while i < head.len() && head[i] != b'"' {
                    i += if head[i] == b'\\' { 2 } else { 1 };
                }
                let key = head.get(start..=i).unwrap_or(&[]);
                let rest = head.get(i + 1..).unwrap_or(&[]);
                let rest = rest.trim_ascii_start();
                if depth == 1 && key == b"\"id\"" && rest.first() == Some(&b':') {
                    let value = rest[1..].trim_ascii_start();
                    let mut values = serde_json::Deserializer::from_slice(value).into_iter::<Value>();
                    return match values.next() {
                        Some(Ok(v @ (Value::Number(_) | Value::String(_)))) => v,
                        _ => Value::Null,
                    };
                }
            }
            _ => {}
        }
        i += 1;
    }
    Value::Null
}

/// Write the server's answer lines and the refused requests' errors to `out`, each line
/// whole, until both have ended.
async fn answers(
    from_server: impl tokio::io::AsyncRead + Unpin,
    mut refused: tokio::sync::mpsc::UnboundedReceiver<Value>,
    mut out: impl tokio::io::AsyncWrite + Unpin,
) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let mut from_server = tokio::io::BufReader::new(from_server);
    let mut line = Vec::new();
    let (mut server_open, mut errors_open) = (true, true);
    loop {
        tokio::select! {
            read = from_server.read_until(b'\n', &mut line), if server_open => {
                match read {
                    Ok(0) | Err(_) => server_open = false,
                    Ok(_) => {
                        if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                            return;
                        }
                        line.clear();
                    }
                }
            }
            error = refused.recv(), if errors_open => {
                let Some(error) = error else {
                    errors_open = false;
                    continue;
                };
                let mut text = error.to_string();
                text.push('\n');
                if out.write_all(text.as_bytes()).await.is_err() || out.flush().await.is_err() {
                    return;
                }
            }
            else => break,
        }
    }
    let _ = out.flush().await;
}

/// The MCP server over one hub.
#[derive(Clone)]
pub struct AgentServer {
    hub: Arc<Hub>,
}

impl AgentServer {
    pub fn new(hub: Hub) -> AgentServer {
        AgentServer { hub: Arc::new(hub) }
    }
}

impl ServerHandler for AgentServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("cn", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "You are the agent of the cn hub `{}`. Call `input` for the current item, think, then \
                 decide it with `out` (one decision per item); repeat until `input` says the queue is \
                 empty. cn performs every effect.",
                self.hub.name()
            ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !TOOL_NAMES.contains(&name.as_str()) {
            return Err(ErrorData::invalid_params(
                format!("no tool `{name}` (the tools are {})", TOOL_NAMES.join(", ")),
                None,
            ));
        }
        let hub = Arc::clone(&self.hub);
        let args = request.arguments.unwrap_or_default();
        let answer = tokio::task::spawn_blocking(move || call(&hub, &name, &args))
            .await
            .map_err(|e| ErrorData::internal_error(format!("the tool stopped: {e}"), None))?;
        Ok(match answer {
            Ok(value) => {
                let text = serde_json::to_string(&value).unwrap_or_default();
                let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
                if let Value::Object(m) = value {
                    result.structured_content = Some(Value::Object(m));
                }
                result
            }
            Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
        }
        .into())
    }
}

const TOOL_NAMES: &[&str] = &["input", "out", "tasks", "ideas", "journal", "why"];

fn schema(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The tools and their schemas; `out`'s fields come from the ops' own list.
pub fn tools() -> Vec<Tool> {
    let mut fields = Map::new();
    fields.insert("gtd".into(), json!({"type": "string", "enum": cn_agent::gtd::GTD_NAMES, "description": "The decision: do, defer, delegate or delete."}));
    fields.insert(
        "op".into(),
        json!({"type": "string", "enum": cn_agent::gtd::OP_NAMES, "description": "With `do`: what to do."}),
    );
    for kind in cn_agent::gtd::KINDS {
        let props = kind.schema().get("properties").cloned().unwrap_or(Value::Null);
        for f in kind.fields {
            if fields.contains_key(f.name) {
                continue;
            }
            let mut p = props.get(f.name).cloned().unwrap_or_else(|| json!({}));
            if let Value::Object(o) = &mut p {
                o.insert("type".into(), "string".into());
            }
            fields.insert(f.name.into(), p);
        }
    }
    let forms: Vec<String> = cn_agent::gtd::KINDS.iter().map(|k| k.form()).collect();
    let out_doc = format!(
        "Decide the current item, as `cn out` does: cn files it, performs the effect, notifies the sender, \
         journals and commits. The fields are `cn out`'s flags; the forms:\n{}\nAn invalid decision is \
         refused with the reason and nothing is written.",
        forms.join("\n")
    );
    vec![
        Tool::new(
            "input",
            "The current item: {id, from, content, cadence}. With none current, cn takes the next from the \
             queue (its order, not yours). With an empty queue: {\"empty\": true}.",
            schema(json!({"type": "object", "properties": {}})),
        )
        .annotate(ToolAnnotations::new().read_only(false).destructive(false)),
        Tool::new("out", out_doc, schema(json!({"type": "object", "properties": fields, "required": ["gtd"]}))),
        Tool::new(
            "tasks",
            "The agent's commitments (state/tasks.json): open ones, due first; `all` includes done ones.",
            schema(json!({"type": "object", "properties": {"all": {"type": "boolean"}}})),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "ideas",
            "Curiosities to explore when idle (state/ideas.json).",
            schema(json!({"type": "object", "properties": {}})),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "journal",
            "What did you do: journal entries, oldest first (the newest `limit`, default 200). `since`: RFC \
             3339, a date, a span back from now (2h, 1 day) or words (yesterday, monday); `type`: decision, impulse, reflex, \
             exploration, action or observation.",
            schema(json!({"type": "object", "properties": {
                "since": {"type": "string"},
                "type": {"type": "string"},
                "limit": {"type": "integer", "minimum": 1}
            }})),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "why",
            "Why did you do that: every journal entry of one item id, trigger to outcome, and the commits \
             that recorded its decision.",
            schema(json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]})),
        )
        .annotate(ToolAnnotations::new().read_only(true)),
    ]
}

/// Run one tool: its answer, or the message of a refusal. (The tool handlers return strings
/// on purpose: an error here is the MCP tool error the client shows, the edge.)
fn call(hub: &Hub, name: &str, args: &JsonObject) -> Result<Value, String> {
    match name {
        "input" => input(hub),
        "out" => out(hub, args),
        "tasks" => tasks(hub, args),
        "ideas" => ideas(hub),
        "journal" => journal(hub, args),
        "why" => why(hub, args),
        other => Err(format!("no tool `{other}`")),
    }
}

fn input(hub: &Hub) -> Result<Value, String> {
    match cn_agent::take_next(hub) {
        Ok(Some(item)) => Ok(item.to_json()),
        Ok(None) => Ok(json!({"empty": true, "message": "the queue is empty: nothing in threads/inbox/"})),
        Err(AgentError::Empty(m)) => Ok(json!({"empty": true, "message": m})),
        Err(e) => Err(format!("cn input: {e}", e = cn_compute::Chain(&e))),
    }
}

/// `out`'s arguments as `cn out`'s words: `gtd`, `op`, then `--field=value` for the rest
/// (the `=` form, so a value starting with `--` stays a value).
pub fn out_words(args: &JsonObject) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let text = |k: &str, v: &Value| match v {
        Value::String(s) => Ok(s.clone()),
        other => Err(format!("cn out: `{k}` must be a string, not {other}")),
    };
    if let Some(g) = args.get("gtd") {
        words.push(text("gtd", g)?);
    }
    if let Some(op) = args.get("op") {
        words.push(text("op", op)?);
    }
    for (k, v) in args {
        if k == "gtd" || k == "op" {
            continue;
        }
        // `cn out`'s own switches are not fields of a decision.
        if k == "json" || k == "dry-run" || k.contains('=') {
            return Err(format!("cn out: unknown field `{k}`"));
        }
        words.push(format!("--{k}={}", text(k, v)?));
    }
    Ok(words)
}

fn out(hub: &Hub, args: &JsonObject) -> Result<Value, String> {
    let words = out_words(args)?;
    let parsed = cn_agent::parse_out(&words).map_err(|e| format!("cn out: {e}", e = cn_compute::Chain(&e)))?;
    match cn_agent::decide(hub, &parsed.gtd, &cn_agent::DecideAs::agent()) {
        Ok(d) => Ok(Value::Object(d.to_json())),
        Err(e) => Err(format!("cn out: {e}", e = cn_compute::Chain(&e))),
    }
}

fn tasks(hub: &Hub, args: &JsonObject) -> Result<Value, String> {
    let all = args.get("all").and_then(Value::as_bool).unwrap_or(false);
    let file = cn_autonomy::impulses::tasks_of(hub.root());
    let loaded = file.load().map_err(|e| cn_compute::chain(&e))?;
    let mut shown: Vec<&cn_autonomy::impulses::Task> = cn_autonomy::impulses::tasks::ordered(&loaded);
    if all {
        shown.extend(loaded.iter().filter(|t| t.done));
    }
    Ok(json!({ "tasks": shown }))
}

fn ideas(hub: &Hub) -> Result<Value, String> {
    let ideas = cn_autonomy::impulses::ideas_of(hub.root()).load().map_err(|e| cn_compute::chain(&e))?;
    Ok(json!({ "ideas": ideas }))
}

fn journal(hub: &Hub, args: &JsonObject) -> Result<Value, String> {
    use cn_reflex::when::{self, Direction};
    let str_arg = |k: &str| match args.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("journal: `{k}` must be a string, not {other}")),
    };
    let since = str_arg("since")?
        .map(|s| {
            // Read in the hub's zone, as the CLI's `--since` is.
            let zone = when::time_zone(hub.config().reflexes.time_zone.as_deref());
            when::typed(&s, &cn_autonomy::jiff::Timestamp::now().to_zoned(zone), Direction::Past)
                .map(|at| at.timestamp())
        })
        .transpose()
        .map_err(|e| format!("journal: since: {e}"))?;
    let kind = str_arg("type")?;
    if let Some(k) = &kind {
        k.parse::<cn_hub::journal::Kind>().map_err(|e| format!("journal: type: {e}", e = cn_compute::Chain(&e)))?;
    }
    let limit = match args.get("limit") {
        None | Some(Value::Null) => JOURNAL_LIMIT,
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => usize::try_from(n).unwrap_or(usize::MAX),
            _ => return Err(format!("journal: `limit` must be a whole number from 1, not {v}")),
        },
    };
    let query = cn_hub::journal::Query { since, kind };
    // Streamed: only the newest `limit` matches are kept in memory.
    let mut kept = std::collections::VecDeque::new();
    let mut total = 0usize;
    cn_hub::journal::HubJournal::scan(&hub.layout().state(), |e| {
        if query.matches(&e) {
            total += 1;
            if kept.len() == limit {
                kept.pop_front();
            }
            kept.push_back(Value::Object(e.0));
        }
    })
    .map_err(|e| cn_compute::chain(&e))?;
    Ok(json!({ "entries": Vec::from(kept), "matched": total }))
}

fn why(hub: &Hub, args: &JsonObject) -> Result<Value, String> {
    let Some(Value::String(id)) = args.get("id") else {
        return Err("why: `id` (a string, the item's id) is required".into());
    };
    let mut entries = Vec::new();
    cn_hub::journal::HubJournal::scan(&hub.layout().state(), |e| {
        if cn_hub::journal::item_id(&e) == Some(id.as_str()) {
            entries.push(Value::Object(e.0));
        }
    })
    .map_err(|e| cn_compute::chain(&e))?;
    if entries.is_empty() {
        return Err(format!("why: no journal entry has id `{id}`"));
    }
    let commits = cn_hub::journal::why_commits(hub.root(), id);
    Ok(json!({ "id": id, "entries": entries, "commits": commits }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> JsonObject {
        match v {
            Value::Object(m) => m,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn the_id_of_an_over_long_request_is_read_from_its_first_bytes() {
        assert_eq!(request_id(br#"{"jsonrpc":"2.0","id":7,"method":"x","params":{"a":"#), json!(7));
        assert_eq!(request_id(br#"{"params":{"id":1},"id":"a\"b"}"#), json!("a\"b"));
        assert_eq!(request_id(br#"{"method":"x","params":{"text":"\"id\":3"#), Value::Null);
        assert_eq!(request_id(br#"{"id":{"x":1}}"#), Value::Null);
        assert_eq!(request_id(b"garbage \" \\"), Value::Null);
    }

    #[test]
    fn out_words_are_cn_outs() {
        let w = out_words(&obj(json!({"gtd": "do", "op": "send", "to": "pi", "message": "--hello"}))).unwrap();
        assert_eq!(w, ["do", "send", "--to=pi", "--message=--hello"]);
        let parsed = cn_agent::parse_out(&w).unwrap();
        assert_eq!(parsed.gtd.to_command(), r#"do send --to "pi" --message "--hello""#);
    }

    #[test]
    fn out_words_refuse_what_cn_out_refuses() {
        for (args, says) in [
            (json!({"gtd": "do", "op": "reply"}), "missing --message"),
            (json!({"gtd": "maybe"}), "unknown gtd `maybe`"),
            (json!({"gtd": "defer", "reason": "x", "message": "y"}), "`--message` does not belong"),
            (json!({"gtd": "defer", "reason": 3}), "`reason` must be a string"),
            (json!({"gtd": "defer", "reason": "x", "dry-run": "1"}), "unknown field `dry-run`"),
            (json!({"reason": "x"}), "no gtd given"),
        ] {
            let err = out_words(&obj(args.clone()))
                .and_then(|w| cn_agent::parse_out(&w).map(|_| ()).map_err(|e| format!("cn out: {e}")))
                .unwrap_err();
            assert!(err.contains(says), "{args}: {err}");
        }
    }

    #[test]
    fn the_out_schema_names_every_field() {
        let out = tools().into_iter().find(|t| t.name == "out").unwrap();
        let props = out.input_schema.get("properties").and_then(Value::as_object).unwrap();
        for f in ["gtd", "op", "message", "to", "body", "reason", "desc", "artifact", "until"] {
            assert!(props.contains_key(f), "{f}");
        }
    }
}
