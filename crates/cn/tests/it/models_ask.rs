//! `cn ask` end to end: the real binary, a real hub on disk, a real OpenAI-compatible
//! server on loopback as the executive, a recording replayed as the local level, and the
//! thinking budget deferring when spent.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

fn cn(hub: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cn")).arg("--hub").arg(hub).args(args).env_remove("CN_HUB").output().unwrap()
}

/// Answer `n` chat completion requests with a streamed tool call; return the bodies seen.
fn openai_server(n: usize) -> (String, std::thread::JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let mut bodies = Vec::new();
        for stream in listener.incoming().take(n) {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut line, mut length) = (String::new(), 0);
            loop {
                line.clear();
                reader.read_line(&mut line).unwrap();
                if line.trim().is_empty() {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            bodies.push(String::from_utf8(body).unwrap());
            let events = [
                r#"{"model":"exec-test","choices":[{"index":0,"delta":{"content":"Sure.\n\n```yaml\ntool: reply\nmessage: hello from the executive\n```"}}]}"#,
                r#"{"model":"exec-test","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":20}}"#,
            ];
            let mut out =
                String::from("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\n\r\n");
            for e in events {
                out.push_str(&format!("data: {e}\n\n"));
            }
            out.push_str("data: [DONE]\n\n");
            stream.write_all(out.as_bytes()).unwrap();
        }
        bodies
    });
    (url, handle)
}

#[test]
fn asks_the_executive_over_http_and_prints_its_markdown() {
    let hub = tempfile::tempdir().unwrap();
    let (url, server) = openai_server(1);
    std::fs::create_dir_all(hub.path().join("state/notes")).unwrap();
    std::fs::write(hub.path().join("state/notes/core_seed.md"), "I am Bud, the test agent.").unwrap();
    std::fs::write(
        hub.path().join("cn.yaml"),
        format!("models:\n  executive:\n    provider: openai\n    base_url: {url}\n    model: exec-test\n    api_key_env: CN_TEST_KEY\nbudget:\n  daily_tokens: 100000\n"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cn"))
        .arg("--hub")
        .arg(hub.path())
        .args(["ask", "say", "hello"])
        .env("CN_TEST_KEY", "sk-e2e-secret")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("tool: reply\nmessage: hello from the executive"), "{stdout}");
    let bodies = server.join().unwrap();
    assert!(bodies[0].contains("I am Bud, the test agent.") && bodies[0].contains("say hello"), "{}", bodies[0]);
    // The budget counted the call, and the key is nowhere in the hub.
    let budget = std::fs::read_to_string(hub.path().join("state/budget.json")).unwrap();
    assert!(budget.contains("\"tokens\": 920"), "{budget}");
    for entry in walk(hub.path()) {
        assert!(!std::fs::read_to_string(&entry).unwrap_or_default().contains("sk-e2e-secret"), "{entry:?}");
    }
}

#[test]
fn a_missing_key_or_executive_is_a_usage_error() {
    let hub = tempfile::tempdir().unwrap();
    std::fs::write(
        hub.path().join("cn.yaml"),
        "models:\n  executive:\n    provider: anthropic\n    model: m\n    api_key_env: CN_TEST_UNSET_KEY\n",
    )
    .unwrap();
    let out = cn(hub.path(), &["ask", "--level", "3", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CN_TEST_UNSET_KEY"));
    std::fs::write(hub.path().join("cn.yaml"), "").unwrap();
    let out = cn(hub.path(), &["ask", "--level", "3", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("models.executive"));
}

#[test]
fn records_then_replays_and_the_budget_defers_when_spent() {
    let hub = tempfile::tempdir().unwrap();
    let (url, server) = openai_server(1);
    std::fs::write(
        hub.path().join("cn.yaml"),
        format!("models:\n  executive:\n    provider: openai\n    base_url: {url}\n    model: exec-test\n    max_tokens: 1000\nbudget:\n  daily_tokens: 1000\n  on_exhausted: defer\n"),
    )
    .unwrap();
    let rec = hub.path().join("rec.jsonl");
    let first = cn(hub.path(), &["ask", "--level", "3", "--record", rec.to_str().unwrap(), "hello"]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    server.join().unwrap();
    // The first call fitted with its answer clamped (its prompt + 1000 > 1000) and was
    // charged 920; the 80 left of 1000 cannot hold the second's prompt and the shortest
    // answer: deferred with the reason, no request made.
    let second = cn(hub.path(), &["ask", "--level", "3", "hello"]);
    assert_eq!(second.status.code(), Some(1));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("thinking budget") && err.contains("resets at local midnight"), "{err}");

    // The recording plays back as a level of its own, byte for byte.
    std::fs::write(hub.path().join("cn.yaml"), "models:\n  local:\n    provider: replay\n    path: rec.jsonl\n")
        .unwrap();
    let replayed = cn(hub.path(), &["ask", "--level", "2", "anything"]);
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stderr));
    assert_eq!(replayed.stdout, first.stdout);
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p))
        } else {
            out.push(p)
        }
    }
    out
}
