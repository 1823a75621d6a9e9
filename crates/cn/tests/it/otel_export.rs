//! OpenTelemetry export end to end: the real `cn run --once` decides an item with `otel:` in
//! cn.yaml pointing at a loopback receiver that decodes each request with the official Python
//! `opentelemetry-proto` package. The trace has a span per item, a child per model call
//! (GenAI attributes, tokens, cost) and per tool call (a refused one marked as an error), and
//! the auth header reaches the collector. With the collector down, the item is decided all
//! the same and the header's value appears nowhere.

use crate::daemon_common;
use crate::mcp_support;

use std::path::{Path, PathBuf};

use daemon_common::*;
use serde_json::Value;

/// Level 2: a tool it is not granted, then an `ack`.
const MODEL: &str = "cat > /dev/null\nprintf '```yaml\\ntool: add_task\\ndesc: sneak a task in\\n```\\n\\n```yaml\\ntool: ack\\nreason: traced\\n```\\n'\n";

const SECRET: &str = "Bearer otel-secret-4c1d";

/// The receiver (`otel_support/receiver.py`) on a free loopback port; killed when dropped.
struct Receiver {
    child: std::process::Child,
    url: String,
    out: PathBuf,
}

impl Receiver {
    fn start(dir: &Path) -> Receiver {
        use std::io::BufRead;
        let py = mcp_support::python().expect("the test venv");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/otel_support/receiver.py");
        let out = dir.join("received.jsonl");
        let mut child =
            std::process::Command::new(py).arg(script).arg(&out).stdout(std::process::Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().strip_prefix("PORT ").unwrap_or_else(|| panic!("the receiver did not start: {line:?}"));
        Receiver { child, url: format!("http://127.0.0.1:{port}/v1/traces"), out }
    }

    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.out)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A hub with one item from `pi` in its inbox and `otel:` sending to `endpoint`.
fn traced_hub(dir: &Path, endpoint: &str) -> PathBuf {
    let otel = format!(
        "otel:\n  endpoint: {endpoint}\n  headers_env: {{authorization: CN_TEST_OTEL_AUTH}}\n  interval: 200ms\n  timeout: 5s\n"
    );
    let hub = hub(dir, "ada", MODEL, &otel);
    // Prices, so the model span carries a cost; a model name for gen_ai.request.model.
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace(
        "    timeout_secs: 60\n",
        "    timeout_secs: 60\n    model: scripted-local\n    price_per_mtok_in: 2.0\n    price_per_mtok_out: 10.0\n",
    );
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    let item = "---\nid: it-1\nfrom: pi\ncadence: inbox\nqueued: 2026-11-21T10:00:00Z\n---\n\nAre you traced?\n";
    std::fs::write(hub.join("threads/inbox/it-1.md"), item).unwrap();
    hub
}

fn run_once(hub: &Path) -> std::process::Output {
    let out =
        cn_cmd(hub).env("CN_LOG", "warn").env("CN_TEST_OTEL_AUTH", SECRET).args(["run", "--once"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
}

#[test]
fn a_decided_item_is_one_trace_with_genai_spans() {
    let dir = tempfile::tempdir().unwrap();
    let receiver = Receiver::start(dir.path());
    let hub = traced_hub(dir.path(), &receiver.url);
    run_once(&hub);
    assert!(decided_at(&journal(&hub), "it-1").is_some(), "the item was decided");

    // `cn run --once` sends its last batch before it exits.
    let requests = receiver.requests();
    assert!(!requests.is_empty(), "nothing reached the collector");
    for r in &requests {
        assert_eq!(r["path"], "/v1/traces");
        assert_eq!(r["content_type"], "application/x-protobuf");
        assert_eq!(r["authorization"], SECRET, "the header from the environment");
    }
    let spans: Vec<&Value> = requests.iter().flat_map(|r| r["spans"].as_array().unwrap()).collect();
    let named = |name: &str| -> Vec<&Value> { spans.iter().copied().filter(|s| s["name"] == name).collect() };

    let items = named("invoke_agent ada");
    assert_eq!(items.len(), 1, "{spans:#?}");
    let item = items[0];
    assert_eq!(item["parent_span_id"], "", "the item is the root");
    assert_eq!(item["attributes"]["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(item["attributes"]["gen_ai.agent.name"], "ada");
    assert_eq!(item["attributes"]["cn.item.id"], "it-1");
    assert_eq!(item["attributes"]["cn.item.from"], "pi");
    assert_eq!(item["attributes"]["cn.level"], 2);
    assert_eq!(item["resource"]["service.name"], "cn");
    let child_of_item = |s: &Value| {
        assert_eq!(s["trace_id"], item["trace_id"], "{s:#}");
        assert_eq!(s["parent_span_id"], item["span_id"], "{s:#}");
        assert!(s["start"].as_u64() >= item["start"].as_u64() && s["end"].as_u64() <= item["end"].as_u64(), "{s:#}");
    };

    let chats = named("chat scripted-local");
    assert_eq!(chats.len(), 1, "{spans:#?}");
    let chat = chats[0];
    child_of_item(chat);
    let a = &chat["attributes"];
    assert_eq!(a["gen_ai.operation.name"], "chat");
    assert_eq!(a["gen_ai.provider.name"], "command");
    assert_eq!(a["gen_ai.system"], "command");
    assert_eq!(a["gen_ai.request.model"], "scripted-local");
    assert_eq!(a["cn.level"], 2);
    let (tin, tout) =
        (a["gen_ai.usage.input_tokens"].as_i64().unwrap(), a["gen_ai.usage.output_tokens"].as_i64().unwrap());
    assert!(tin > 0 && tout > 0, "{a:#}");
    let cost = a["cn.cost_usd"].as_f64().unwrap();
    assert!((cost - (tin as f64 * 2.0 + tout as f64 * 10.0) / 1e6).abs() < 1e-12, "{a:#}");
    assert_eq!(chat["kind"], 3, "a client span");

    let refused = named("execute_tool add_task");
    assert_eq!(refused.len(), 1, "{spans:#?}");
    child_of_item(refused[0]);
    assert_eq!(refused[0]["attributes"]["gen_ai.operation.name"], "execute_tool");
    assert_eq!(refused[0]["attributes"]["gen_ai.tool.name"], "add_task");
    assert_eq!(refused[0]["status"]["code"], 2, "an error");
    assert!(refused[0]["status"]["message"].as_str().unwrap().contains("may not call"), "{:#}", refused[0]);
    let replies = named("execute_tool ack");
    assert_eq!(replies.len(), 1, "{spans:#?}");
    child_of_item(replies[0]);
    assert_eq!(replies[0]["status"]["code"], 0);
    assert_eq!(spans.len(), 4, "{spans:#?}");
}

#[test]
fn with_the_collector_down_the_item_is_decided_and_the_header_is_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let hub = traced_hub(dir.path(), &format!("http://127.0.0.1:{port}/v1/traces"));
    let out = run_once(&hub);
    assert!(decided_at(&journal(&hub), "it-1").is_some(), "the item was decided");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("OpenTelemetry export failed"), "the failure is reported: {stderr}");
    assert!(stderr.contains("4 spans dropped"), "the item's four spans are counted as dropped: {stderr}");
    let journal_text = std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap();
    for text in [stderr.as_ref(), journal_text.as_str()] {
        assert!(!text.contains("otel-secret"), "the header's value leaked: {text}");
    }

    // A header whose variable is not set: a usage error naming the variable, nothing run.
    let out = cn_cmd(&hub).env_remove("CN_TEST_OTEL_AUTH").args(["run", "--once"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("CN_TEST_OTEL_AUTH"));
}
