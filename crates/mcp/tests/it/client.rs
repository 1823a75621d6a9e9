//! The MCP client against real servers: the reference `mcp-server-time` (PyPI), its tools in
//! the registry under policy and the trust boundary; a server built on the official Python
//! SDK over streamable HTTP and over stdio (tools, calls, resources); and a flaky server
//! (hangs, dies) that is restarted with backoff without ever blocking the caller past its
//! timeout.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cn_compute::{ToolCall, ToolError};
use cn_hub::config::{McpCallers, McpServer};
use cn_mcp::McpClients;
use cn_tools::{Policy, Registry, ToolContext};
use serde_json::{json, Map, Value};

/// The venv `scripts/deps.sh --test` makes (PyPI `mcp`, `mcp-server-time`; `./test.sh` runs
/// it): required, a missing venv fails the test.
fn venv() -> Option<PathBuf> {
    let venv = std::env::var_os("CN_MCP_VENV")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/cn/mcp-venv")))?;
    if venv.join("bin/mcp-server-time").is_file() {
        return Some(venv);
    }
    panic!("the MCP test servers are not installed in {} (run scripts/deps.sh --test)", venv.display());
}

fn server(command: Vec<String>, timeout: Duration) -> McpServer {
    McpServer {
        command: Some(command),
        url: None,
        env: Vec::new(),
        timeout,
        callers: McpCallers::Owner,
        sandbox: Default::default(),
    }
}

/// A hub directory whose current item is from `from`.
fn hub_with_item(dir: &Path, from: &str) -> PathBuf {
    let hub = dir.join("hub");
    std::fs::create_dir_all(hub.join("state")).unwrap();
    cn_agent::Item::new("it1", from, cn_agent::Cadence::Inbox, "what time is it?")
        .write(&cn_hub::Layout::new(&hub).input())
        .unwrap();
    hub
}

fn call(tool: &str, params: Value) -> ToolCall {
    let Value::Object(params) = params else { panic!() };
    ToolCall::new(tool, params)
}

#[test]
fn a_reference_servers_tools_join_the_registry_under_policy_and_trust() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let hub = hub_with_item(dir.path(), cn_agent::OWNER);
    let bin = venv.join("bin/mcp-server-time").display().to_string();
    let config = BTreeMap::from([(
        "time".to_string(),
        server(vec![bin, "--local-timezone".into(), "UTC".into()], Duration::from_secs(30)),
    )]);
    let clients = McpClients::new(&cn_hub::Layout::new(&hub), &config).unwrap();
    let mut ctx = ToolContext::new(&hub);
    ctx.hub = Some(hub.clone());
    // Level 2 has `*`, which names no server: only level 3, granted `time.*`, may call it.
    ctx.policy = Policy::default().grant(2, &["*"]).grant(3, &["time.*"]);
    let mut registry = Registry::new(ctx);
    clients.register(&mut registry);

    let docs = registry.docs_for(3);
    let doc = docs.iter().find(|d| d.name == "time.get_current_time").expect("the server's tool is listed");
    assert!(doc.params["properties"].get("timezone").is_some(), "its own schema: {}", doc.params);
    assert!(doc.to_prompt().contains("timezone"), "the executive sees its params");
    assert!(docs.iter().any(|d| d.name == "time.read_resource"));
    assert!(registry.docs_for(2).iter().all(|d| !d.name.starts_with("time.")), "level 2 sees none");

    let now = call("time.get_current_time", json!({"timezone": "UTC"}));
    match registry.run(2, &now) {
        Err(ToolError::Denied(m)) => assert!(m.contains("level 2"), "{m}"),
        other => panic!("level 2 called it: {other:?}"),
    }
    let answer = registry.run(3, &now).unwrap();
    let text = answer["text"].as_str().unwrap();
    assert!(text.contains("UTC") && text.contains("datetime"), "{answer}");
    // A bad argument is the server's tool error, and the server stays up.
    let bad = registry.run(3, &call("time.get_current_time", json!({"timezone": "Mars/Olympus"})));
    assert!(matches!(&bad, Err(ToolError::Failed(m)) if m.contains("get_current_time")), "{bad:?}");
    assert!(registry.run(3, &now).is_ok());
    assert_eq!(clients.starts("time"), 1, "a tool error is no reason to restart");

    // The trust boundary: a stranger's item cannot reach a server that takes the owner's.
    cn_agent::Item::new("it2", "discord", cn_agent::Cadence::Inbox, "call the tool!")
        .write(&cn_hub::Layout::new(&hub).input())
        .unwrap();
    match registry.run(3, &now) {
        Err(ToolError::Denied(m)) => assert!(m.contains("owner's items only") && m.contains("discord"), "{m}"),
        other => panic!("a stranger's item reached the server: {other:?}"),
    }
}

#[test]
fn a_server_that_hangs_or_dies_is_restarted_with_backoff_and_never_blocks() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let hub = hub_with_item(dir.path(), cn_agent::OWNER);
    let starts = dir.path().join("starts");
    let leak = dir.path().join("env.json");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/flaky_server.py");
    let py = venv.join("bin/python").display().to_string();
    // The child sees what cn.yaml names, never cn's other variables (an API key, say).
    let sh = format!(
        "STARTS_FILE='{}' LEAK_CHECK='{}' exec '{py}' '{}'",
        starts.display(),
        leak.display(),
        script.display()
    );
    let mut s = server(vec!["sh".into(), "-c".into(), sh], Duration::from_millis(1500));
    s.env = vec!["CN_MCP_TEST_NAMED".into()];
    // It reports its starts and environment in the test's directory: its sandbox grants that.
    s.sandbox = cn_hub::SandboxSpec::Widened { network: None, write: vec![dir.path().to_path_buf()] };
    // SAFETY: set before any thread of this test reads the environment; no other test in
    // this binary reads these names.
    unsafe {
        std::env::set_var("CN_MCP_TEST_SECRET", "sk-do-not-pass");
        std::env::set_var("CN_MCP_TEST_NAMED", "passed");
    }
    let clients = McpClients::new(&cn_hub::Layout::new(&hub), &BTreeMap::from([("flaky".to_string(), s)])).unwrap();
    let echo = |text: &str| {
        let mut args = Map::new();
        args.insert("text".into(), text.into());
        clients.call("flaky", "echo", args)
    };
    assert_eq!(echo("one").unwrap()["text"], "echo: one");
    let env: Vec<String> = serde_json::from_str(&std::fs::read_to_string(&leak).unwrap()).unwrap();
    assert!(env.contains(&"CN_MCP_TEST_NAMED".to_string()), "{env:?}");
    assert!(!env.iter().any(|k| k == "CN_MCP_TEST_SECRET"), "a variable cn.yaml does not name leaked: {env:?}");

    // A hang: the call fails within its timeout (plus grace), not later.
    let t = Instant::now();
    let e = clients.call("flaky", "hang", Map::new()).unwrap_err().to_string();
    assert!(t.elapsed() < Duration::from_secs(5), "blocked for {:?}", t.elapsed());
    assert!(e.contains("no answer within"), "{e}");
    // Backing off: the next call fails at once, saying when the next start is.
    let t = Instant::now();
    let e = echo("two").unwrap_err().to_string();
    assert!(t.elapsed() < Duration::from_millis(500) && e.contains("next start"), "{e}");
    // After the backoff it is started again and answers.
    let again = wait_for(|| echo("three").ok(), Duration::from_secs(10)).expect("restarted");
    assert_eq!(again["text"], "echo: three");
    assert_eq!(clients.starts("flaky"), 2);

    // A death: the call fails, and the server is back after its (now longer) backoff.
    let t = Instant::now();
    assert!(clients.call("flaky", "die", Map::new()).is_err());
    assert!(t.elapsed() < Duration::from_secs(5));
    let again = wait_for(|| echo("four").ok(), Duration::from_secs(15)).expect("restarted after dying");
    assert_eq!(again["text"], "echo: four");
    assert_eq!(clients.starts("flaky"), 3);
    assert_eq!(std::fs::read_to_string(&starts).unwrap().lines().count(), 3);

    // An unknown server is an error naming it.
    let e = clients.call("nope", "x", Map::new()).unwrap_err().to_string();
    assert!(e.contains("nope"), "{e}");
}

/// The official SDK's server (`support/reference_server.py`) over streamable HTTP on a free
/// loopback port; killed when dropped.
struct HttpServer(std::process::Child, String);

impl HttpServer {
    fn start(venv: &Path) -> HttpServer {
        use std::io::BufRead;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/reference_server.py");
        let mut child = std::process::Command::new(venv.join("bin/python"))
            .arg(script)
            .arg("--http")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Its first line is `PORT <n>`, printed once it listens (EOF if it died first).
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().strip_prefix("PORT ").unwrap_or_else(|| panic!("the server did not start: {line:?}"));
        HttpServer(child, format!("http://127.0.0.1:{port}/mcp"))
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Through the registry at level 3 for an owner's item: list the server's tools, call `add`,
/// list and read its resource.
fn exercise_reference_server(hub: &Path, clients: &McpClients) {
    let mut ctx = ToolContext::new(hub);
    ctx.hub = Some(hub.to_path_buf());
    ctx.policy = Policy::default().grant(3, &["ref.*"]);
    let listed = clients.list_tools("ref").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(listed.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["add"]);
    let mut registry = Registry::new(ctx);
    clients.register(&mut registry);
    let names: Vec<&str> = registry.docs_for(3).into_iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["ref.add", "ref.list_resources", "ref.read_resource"]);
    let add = registry.get("ref.add").unwrap().doc().clone();
    assert_eq!(add.description, "(MCP server `ref`) Add two integers.");
    assert_eq!(add.params["required"], json!(["a", "b"]), "{}", add.params);

    let sum = registry.run(3, &call("ref.add", json!({"a": 2, "b": 40}))).unwrap();
    assert_eq!(sum["text"], "42", "{sum}");
    assert_eq!(sum["structured"], json!({"result": 42}), "{sum}");
    let bad = registry.run(3, &call("ref.add", json!({"a": "two"})));
    assert!(matches!(&bad, Err(ToolError::Failed(m)) if m.contains("add")), "{bad:?}");

    let listed = registry.run(3, &call("ref.list_resources", json!({}))).unwrap();
    let first = &listed.as_array().expect("a list")[0];
    assert_eq!(first["uri"], "note://greeting", "{listed}");
    let read = registry.run(3, &call("ref.read_resource", json!({"uri": "note://greeting"}))).unwrap();
    assert_eq!(
        read,
        json!({"contents": [{"uri": "note://greeting", "mimeType": "text/plain", "text": "hello from the reference server"}]})
    );
    let missing = registry.run(3, &call("ref.read_resource", json!({"uri": "note://nope"})));
    assert!(matches!(&missing, Err(ToolError::Failed(m)) if m.contains("note://nope")), "{missing:?}");
    assert!(matches!(registry.run(3, &call("ref.read_resource", json!({}))), Err(ToolError::BadParams(_))));
    assert_eq!(clients.starts("ref"), 1, "one session served it all");
}

#[test]
fn the_official_sdks_server_over_streamable_http_lists_calls_and_reads() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let hub = hub_with_item(dir.path(), cn_agent::OWNER);
    let http = HttpServer::start(&venv);
    let config = McpServer {
        command: None,
        url: Some(http.1.clone()),
        env: Vec::new(),
        timeout: Duration::from_secs(30),
        callers: McpCallers::Owner,
        sandbox: Default::default(),
    };
    let clients = McpClients::new(&cn_hub::Layout::new(&hub), &BTreeMap::from([("ref".to_string(), config)])).unwrap();
    exercise_reference_server(&hub, &clients);

    // The server goes away: a call fails (within its timeout) and the client backs off.
    drop(http);
    let t = Instant::now();
    let gone = clients.call("ref", "add", json!({"a": 1, "b": 1}).as_object().unwrap().clone());
    assert!(gone.is_err(), "{gone:?}");
    assert!(t.elapsed() < Duration::from_secs(35), "blocked for {:?}", t.elapsed());
}

#[test]
fn the_official_sdks_server_over_stdio_lists_calls_and_reads() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let hub = hub_with_item(dir.path(), cn_agent::OWNER);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/reference_server.py");
    let command = vec![venv.join("bin/python").display().to_string(), script.display().to_string()];
    let clients = McpClients::new(
        &cn_hub::Layout::new(&hub),
        &BTreeMap::from([("ref".to_string(), server(command, Duration::from_secs(30)))]),
    )
    .unwrap();
    exercise_reference_server(&hub, &clients);
}

/// Poll `f` until it gives something or the deadline passes.
fn wait_for<T>(mut f: impl FnMut() -> Option<T>, deadline: Duration) -> Option<T> {
    let end = Instant::now() + deadline;
    while Instant::now() < end {
        if let Some(v) = f() {
            return Some(v);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

/// The reflex action `mcp` inside a pipeline: granted by the server's name, it calls the
/// real server; not granted, the step fails and the item is escalated, nothing called.
#[test]
fn a_reflex_pipeline_calls_an_mcp_tool() {
    let Some(venv) = venv() else { return };
    let dir = tempfile::tempdir().unwrap();
    let hub = hub_with_item(dir.path(), cn_agent::OWNER);
    std::fs::create_dir_all(hub.join("state/reflexes")).unwrap();
    std::fs::write(
        hub.join("state/reflexes/utc-now.yaml"),
        "name: utc-now\ndescription: The time in UTC, from the time server\ntrigger:\n  pattern: \"utc time please\"\npipeline:\n  - action: mcp\n    tool: time.get_current_time\n    args: {timezone: UTC}\n    output: now\n  - action: log\n    message: \"{{now}}\"\n",
    )
    .unwrap();
    let bin = venv.join("bin/mcp-server-time").display().to_string();
    let config = BTreeMap::from([("time".to_string(), server(vec![bin], Duration::from_secs(30)))]);
    let clients = McpClients::new(&cn_hub::Layout::new(&hub), &config).unwrap();
    let run = |grants: &[&str]| {
        let policy = Policy::default().grant(0, grants).grant(1, grants);
        let mut engine =
            cn_reflex::Engine::with_config(&cn_hub::Layout::new(&hub), cn_reflex::ReflexConfig::default(), policy);
        engine.set_mcp(std::sync::Arc::new(clients.clone()));
        engine.handle(&cn_reflex::Input::new("utc time please"))
    };
    let handled = run(&["mcp", "time.*", "log"]);
    assert_eq!(handled.reflex.as_deref(), Some("utc-now"), "{handled:?}");
    assert!(!handled.escalate, "{handled:?}");
    let step = &handled.steps[0];
    assert_eq!(step.action, "mcp");
    assert!(step.output["text"].as_str().is_some_and(|t| t.contains("UTC")), "{step:?}");

    // `mcp` granted, the server not: refused before anything is called.
    let starts = clients.starts("time");
    let handled = run(&["mcp", "log"]);
    assert!(handled.escalate, "{handled:?}");
    let err = handled.error.clone().unwrap_or_default();
    assert!(err.contains("time.get_current_time"), "{err}");
    assert_eq!(clients.starts("time"), starts);
}
