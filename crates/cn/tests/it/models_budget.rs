//! The hard budget across processes: sixteen `cn ask --level 3` started at once on one hub
//! whose daily cap fits four calls, against a real OpenAI-compatible server on loopback
//! that counts the requests it receives. The cap holds: four calls reach the executive,
//! twelve are refused with the budget's reason, and what `state/budget.json` charged is at
//! most the cap.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the server saw: requests, and the last request's input estimate and max_tokens.
#[derive(Default)]
struct Seen {
    requests: AtomicU64,
    estimate: AtomicU64,
    max_tokens: AtomicU64,
}

/// A chat-completions server that reports as usage exactly the worst case cn reserves:
/// the input estimate (system + user bytes / 3) and the whole `max_tokens` asked for.
fn server() -> (String, Arc<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Seen::default());
    let s = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let (mut line, mut length) = (String::new(), 0);
            loop {
                line.clear();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
            let bytes: usize =
                body["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap().len()).sum();
            let estimate = bytes.div_ceil(3) as u64;
            let max_tokens = body["max_tokens"].as_u64().unwrap();
            s.requests.fetch_add(1, Ordering::SeqCst);
            s.estimate.store(estimate, Ordering::SeqCst);
            s.max_tokens.store(max_tokens, Ordering::SeqCst);
            let events = [
                r#"{"model":"exec-test","choices":[{"index":0,"delta":{"content":"```yaml\ntool: noop\n```"}}]}"#
                    .to_string(),
                format!(
                    r#"{{"model":"exec-test","choices":[],"usage":{{"prompt_tokens":{estimate},"completion_tokens":{max_tokens}}}}}"#
                ),
            ];
            let mut out =
                String::from("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\n\r\n");
            for e in events {
                out.push_str(&format!("data: {e}\n\n"));
            }
            out.push_str("data: [DONE]\n\n");
            let _ = stream.write_all(out.as_bytes());
        }
    });
    (url, seen)
}

fn hub(url: &str, cap: u64) -> tempfile::TempDir {
    let hub = tempfile::tempdir().unwrap();
    std::fs::write(
        hub.path().join("cn.yaml"),
        format!(
            "models:\n  executive:\n    provider: openai\n    base_url: {url}\n    model: exec-test\n    max_tokens: 500\n\
             budget:\n  daily_tokens: {cap}\n  on_exhausted: defer\n"
        ),
    )
    .unwrap();
    hub
}

fn ask(hub: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cn"));
    c.arg("--hub").arg(hub).args(["ask", "--level", "3", "what", "should", "I", "do", "today?"]).env_remove("CN_HUB");
    c
}

#[test]
fn sixteen_processes_never_pass_a_cap_that_fits_four_calls() {
    let (url, seen) = server();
    // One call on a roomy hub measures the worst case of this prompt.
    let probe = hub(&url, 1_000_000);
    let out = ask(probe.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let per_call = seen.estimate.load(Ordering::SeqCst) + seen.max_tokens.load(Ordering::SeqCst);
    assert_eq!(seen.max_tokens.load(Ordering::SeqCst), 500);
    let before = seen.requests.load(Ordering::SeqCst);

    let cap = 4 * per_call;
    let shared = hub(&url, cap);
    let children: Vec<_> =
        (0..16).map(|_| ask(shared.path()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()).collect();
    let mut ok = 0;
    let mut refused = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        if out.status.success() {
            ok += 1;
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("thinking budget") && err.contains("resets at local midnight"), "{err}");
            refused += 1;
        }
    }
    let received = seen.requests.load(Ordering::SeqCst) - before;
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(shared.path().join("state/budget.json")).unwrap()).unwrap();
    let charged = state["tokens"].as_u64().unwrap();
    assert!(received <= 4, "the executive received {received} calls; the cap allows 4");
    assert!(charged <= cap, "charged {charged} of a {cap} cap");
    assert_eq!((ok, refused, received, charged), (4, 12, 4, cap), "{state}");
    assert_eq!(state["calls"], 4);
    assert_eq!(state["refused"], 12);
    assert_eq!(state["reserved"].as_array().map(Vec::len), Some(0), "every reservation settled: {state}");

    // `cn budget` reports the same day.
    std::fs::write(shared.path().join("cn.yaml"), {
        let c = std::fs::read_to_string(shared.path().join("cn.yaml")).unwrap();
        format!("name: shared\n{c}")
    })
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cn"))
        .arg("--hub")
        .arg(shared.path())
        .args(["budget", "--json"])
        .env_remove("CN_HUB")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((report["today"]["tokens"].as_u64(), report["today"]["calls"].as_u64()), (Some(cap), Some(4)));
    assert_eq!((report["today"]["refused"].as_u64(), report["in_flight"].as_u64()), (Some(12), Some(0)));
    assert_eq!(report["cap_tokens"].as_u64(), Some(cap));
    let text = Command::new(env!("CARGO_BIN_EXE_cn")).arg("--hub").arg(shared.path()).arg("budget").output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains(&format!("{cap} executive tokens of {cap}")), "{text}");
}
