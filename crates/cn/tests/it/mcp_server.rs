//! `cn mcp` end to end: the official Python MCP client (PyPI `mcp`) drives the real `cn`
//! binary's MCP server on a real hub — initialize, list the tools, take an item, decide it
//! (archived and committed), and an invalid decision refused as a tool error with nothing
//! written.

use crate::agent_common;
use crate::mcp_support;

use agent_common::*;
use serde_json::{json, Value};

fn results(answer: &Value) -> &Vec<Value> {
    answer["results"].as_array().expect("results")
}

#[test]
fn a_python_mcp_client_is_the_agent() {
    let Some(py) = mcp_support::python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (hub, _) = hub_with_origin(dir.path(), "sigma");
    put_item(&hub, "abc123", "pi", "inbox", "2026-01-06T15:00:00Z", "Please review");
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_cn"));
    let hub_arg = hub.to_str().unwrap();
    let serve = ["--hub", hub_arg, "mcp"];

    // Initialize, list the tools, take the item.
    let a = mcp_support::client(&py, bin, &serve, &json!([["input", {}]]));
    assert_eq!(a["server"], "cn");
    let names: Vec<&str> = a["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["input", "out", "tasks", "ideas", "journal", "why"]);
    let out_tool = a["tools"].as_array().unwrap().iter().find(|t| t["name"] == "out").unwrap();
    for f in ["gtd", "op", "message", "to", "body", "reason", "desc", "artifact", "until"] {
        assert!(out_tool["inputSchema"]["properties"].get(f).is_some(), "out has no field {f}: {out_tool}");
    }
    let item = &results(&a)[0];
    assert_eq!(item["isError"], false, "{item}");
    let taken: Value = serde_json::from_str(item["text"].as_str().unwrap()).unwrap();
    assert_eq!(taken, json!({"id": "abc123", "from": "pi", "content": "Please review\n", "cadence": "inbox"}));
    assert!(hub.join("state/input.md").is_file());

    // Invalid decisions: each a tool error naming the problem as `cn out` does; nothing written.
    let before = snapshot(&hub);
    let bad = mcp_support::client(
        &py,
        bin,
        &serve,
        &json!([
            ["out", {"gtd": "do", "op": "reply"}],
            ["out", {"gtd": "maybe"}],
            ["out", {"gtd": "delegate", "to": "nobody"}],
            ["out", {"gtd": "defer", "reason": "later", "until": "not a time"}],
            ["out", {"gtd": "do", "op": "noop", "reason": 5}]
        ]),
    );
    let says = ["missing --message", "unknown gtd `maybe`", "nobody", "until", "must be a string"];
    for (r, want) in results(&bad).iter().zip(says) {
        assert_eq!(r["isError"], true, "{r}");
        let text = r["text"].as_str().unwrap();
        assert!(text.starts_with("cn out: ") && text.contains(want), "{want}: {text}");
    }
    // The same words refused the same way by `cn out` itself.
    let cli = cn(&hub, &["out", "do", "reply"]);
    assert_eq!(cli.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&cli.stderr).contains("missing --message"));
    assert_eq!(changed(&snapshot(&hub), &before), Vec::<String>::new(), "a refused decision wrote something");

    // A valid decision: archived, journaled and committed; then the queue is empty.
    let head = git(&hub, &["rev-parse", "HEAD"]);
    let ok = mcp_support::client(
        &py,
        bin,
        &serve,
        &json!([
            ["out", {"gtd": "do", "op": "reply", "message": "LGTM"}],
            ["input", {}],
            ["journal", {"type": "decision"}],
            ["why", {"id": "abc123"}],
            ["tasks", {}],
            ["ideas", {}]
        ]),
    );
    let r = results(&ok);
    assert_eq!(r[0]["isError"], false, "{}", r[0]);
    assert_eq!(r[0]["structured"]["id"], "abc123");
    assert_eq!(r[0]["structured"]["gtd"], "do");
    assert_eq!(r[0]["structured"]["message"], "LGTM");
    let place = r[0]["structured"]["place"].as_str().unwrap();
    assert!(place.starts_with("threads/archived/"), "{place}");
    assert!(hub.join(place).is_file(), "{place}");
    assert!(!hub.join("threads/inbox/abc123.md").exists() && !hub.join("state/input.md").exists());
    assert_ne!(git(&hub, &["rev-parse", "HEAD"]), head);
    assert!(git(&hub, &["log", "-1", "--format=%s"]).contains("abc123"));
    assert_eq!(git(&hub, &["status", "--porcelain"]).trim(), "", "everything committed");
    assert_eq!(r[1]["structured"]["empty"], true, "{}", r[1]);
    let entries = r[2]["structured"]["entries"].as_array().unwrap();
    assert!(entries.iter().any(|e| e["id"] == "abc123"), "{}", r[2]);
    assert_eq!(r[3]["isError"], false, "{}", r[3]);
    assert!(!r[3]["structured"]["commits"].as_array().unwrap().is_empty(), "{}", r[3]);
    assert_eq!(r[4]["structured"]["tasks"], json!([]));
    assert_eq!(r[5]["isError"], false);
}

/// A request line over cn mcp's limit is answered at once with a JSON-RPC error carrying
/// its id — not read whole and left unanswered (the client would wait for ever) — and the
/// session goes on.
#[test]
fn a_request_line_over_the_limit_gets_an_error_answer_and_the_session_goes_on() {
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().unwrap();
    let (hub, _) = hub_with_origin(dir.path(), "sigma");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_cn"))
        .arg("--hub")
        .arg(&hub)
        .arg("mcp")
        .env_remove("CN_HUB")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let answer = |what: &str| -> Value {
        let line = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("no answer to {what} within 60 s"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{what}: {e}: {line}"))
    };
    let limit = 16 * 1024 * 1024;
    let mut big =
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"out","arguments":{"x":""#.to_vec();
    big.resize(limit + 10, b'a');
    big.extend_from_slice(b"\"}}}\n");
    stdin.write_all(&big).unwrap();
    stdin.flush().unwrap();
    let refused = answer("the over-long line");
    assert_eq!(refused["id"], 7, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("longer than"), "{refused}");
    // The session goes on: initialize is answered.
    let init = json!({"jsonrpc": "2.0", "id": 8, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    stdin.write_all(format!("{init}\n").as_bytes()).unwrap();
    stdin.flush().unwrap();
    let ok = answer("initialize");
    assert_eq!(ok["id"], 8, "{ok}");
    assert_eq!(ok["result"]["serverInfo"]["name"], "cn", "{ok}");
    drop(stdin);
    assert!(child.wait().unwrap().code().is_some());
}
