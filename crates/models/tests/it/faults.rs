//! Every HTTP provider against a real HTTP server on loopback that speaks its API and
//! injects the faults: 429 with Retry-After, 503, 400, 401, a cut-off stream, malformed
//! JSON, a server too slow for the deadline, and nobody listening. Nothing here sleeps:
//! the retry layer's waits are recorded instead, and a slow server is bounded by the
//! client's deadline.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cn_compute::{Model, ModelError, Plan};
use cn_models::provider::{Anthropic, Endpoint, Ollama, OpenAi};
use cn_models::{Retry, RetryPolicy, Secret};

/// What the server does with one request.
enum Reply {
    /// Status, extra headers, body; then close.
    Send(u16, Vec<(&'static str, String)>, String),
    /// Send headers, then wait (never answering) until the test ends.
    Hang,
}

#[derive(Debug, Clone)]
struct Request {
    path: String,
    headers: Vec<(String, String)>,
    body: serde_json::Value,
}

struct Server {
    url: String,
    requests: Arc<Mutex<Vec<Request>>>,
    /// Dropping it releases hanging connections.
    _release: mpsc::Sender<()>,
}

impl Server {
    fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (release, released) = mpsc::channel::<()>();
        let released = Arc::new(Mutex::new(released));
        let reqs = requests.clone();
        let mut replies: VecDeque<Reply> = replies.into();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let reply = replies.pop_front().unwrap_or(Reply::Send(500, vec![], "no more replies".into()));
                let reqs = reqs.clone();
                let released = released.clone();
                std::thread::spawn(move || serve(stream, reply, &reqs, &released));
            }
        });
        Server { url, requests, _release: release }
    }

    fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(mut stream: TcpStream, reply: Reply, reqs: &Mutex<Vec<Request>>, released: &Mutex<mpsc::Receiver<()>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = Vec::new();
    let mut length = 0;
    loop {
        line.clear();
        reader.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            let (k, v) = (k.trim().to_ascii_lowercase(), v.trim().to_string());
            if k == "content-length" {
                length = v.parse().unwrap();
            }
            headers.push((k, v));
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    let body = serde_json::from_slice(&body).unwrap_or(serde_json::Value::Null);
    reqs.lock().unwrap().push(Request { path, headers, body });
    match reply {
        Reply::Send(status, extra, body) => {
            let mut head = format!("HTTP/1.1 {status} X\r\nconnection: close\r\n");
            for (k, v) in extra {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body.as_bytes());
        }
        Reply::Hang => {
            let _ =
                stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\n\r\n");
            let _ = stream.flush();
            // Hold the connection until the test drops the server.
            let _ = released.lock().unwrap().recv();
        }
    }
}

/// One API: how to build its client and what its streams look like.
struct Api {
    name: &'static str,
    path: &'static str,
    make: fn(&str, Duration) -> Box<dyn Model>,
    ok: String,
    cut: String,
    malformed: String,
    error_body: &'static str,
}

fn endpoint(url: &str, timeout: Duration) -> Endpoint {
    Endpoint::new(url, "test-model").with_timeouts(Duration::from_secs(2), timeout)
}

fn sse(events: &[&str]) -> String {
    events.iter().map(|e| format!("event: x\ndata: {e}\n\n")).collect()
}

fn apis() -> Vec<Api> {
    let anthropic_events = [
        r#"{"type":"message_start","message":{"model":"claude-test","usage":{"input_tokens":12,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"```yaml\ntool: noop\n"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"```"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}"#,
        r#"{"type":"message_stop"}"#,
    ];
    let openai_events = [
        r#"{"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}"#,
        r#"{"model":"gpt-test","choices":[{"index":0,"delta":{"content":"```yaml\ntool: noop\n"}}]}"#,
        r#"{"model":"gpt-test","choices":[{"index":0,"delta":{"content":"```"},"finish_reason":null}]}"#,
        r#"{"model":"gpt-test","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        r#"{"model":"gpt-test","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7}}"#,
    ];
    let ollama_lines = [
        r#"{"model":"llama-test","message":{"role":"assistant","content":"```yaml\ntool: noop\n"},"done":false}"#,
        r#"{"model":"llama-test","message":{"role":"assistant","content":"```"},"done":false}"#,
        r#"{"model":"llama-test","message":{"role":"assistant","content":""},"done":true,"prompt_eval_count":12,"eval_count":7}"#,
    ];
    let openai_body = |events: &[&str], done: bool| {
        let mut s: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
        if done {
            s.push_str("data: [DONE]\n\n");
        }
        s
    };
    vec![
        Api {
            name: "anthropic",
            path: "/v1/messages",
            make: |url, t| Box::new(Anthropic::new(endpoint(url, t), Secret::new("sk-ant-test"))),
            ok: sse(&anthropic_events),
            cut: sse(&anthropic_events[..4]),
            malformed: sse(&[anthropic_events[0], r#"{"type":"content_block_delta","delta":{"#]),
            error_body: r#"{"type":"error","error":{"type":"x","message":"the server says no"}}"#,
        },
        Api {
            name: "openai",
            path: "/chat/completions",
            make: |url, t| Box::new(OpenAi::new(endpoint(url, t), Some(Secret::new("sk-test")))),
            ok: openai_body(&openai_events, true),
            cut: openai_body(&openai_events[..2], false),
            malformed: openai_body(&[openai_events[0], "{\"choices\": [oops"], true),
            error_body: r#"{"error":{"message":"the server says no","type":"x"}}"#,
        },
        Api {
            name: "ollama",
            path: "/api/chat",
            make: |url, t| Box::new(Ollama::new(endpoint(url, t))),
            ok: ollama_lines.iter().map(|l| format!("{l}\n")).collect(),
            cut: ollama_lines[..2].iter().map(|l| format!("{l}\n")).collect(),
            malformed: format!("{}\n{{\"message\": nope\n", ollama_lines[0]),
            error_body: r#"{"error":"the server says no"}"#,
        },
    ]
}

fn plan() -> Plan {
    Plan { level: 3, system: "be brief".into(), prompt: "hello".into(), max_tokens: 64, ..Default::default() }
}

fn ok(api: &Api) -> Reply {
    Reply::Send(200, vec![("content-type", "text/event-stream".into())], api.ok.clone())
}

fn status(code: u16, api: &Api, extra: Vec<(&'static str, String)>) -> Reply {
    Reply::Send(code, extra, api.error_body.into())
}

/// The waits a retry layer would have slept.
type Waits = Arc<Mutex<Vec<Duration>>>;

/// A retry layer that records its waits instead of sleeping.
fn retrying(model: Box<dyn Model>) -> (Retry<Box<dyn Model>>, Waits) {
    let slept = Arc::new(Mutex::new(Vec::new()));
    let s = slept.clone();
    let policy = RetryPolicy {
        retries: 2,
        base: Duration::from_millis(10),
        max_delay: Duration::from_secs(30),
        sleep: Box::new(move |d| s.lock().unwrap().push(d)),
    };
    (Retry::new(model, policy), slept)
}

const T: Duration = Duration::from_secs(5);

#[test]
fn each_api_streams_a_whole_answer_with_usage() {
    for api in apis() {
        let server = Server::start(vec![ok(&api)]);
        let answer = (api.make)(&server.url, T).ask(&plan()).unwrap();
        assert_eq!(answer.markdown, "```yaml\ntool: noop\n```", "{}", api.name);
        assert_eq!((answer.tokens_in, answer.tokens_out), (12, 7), "{}", api.name);
        assert!(answer.model.ends_with("-test"), "{}: {}", api.name, answer.model);
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1);
        let r = &reqs[0];
        assert_eq!(r.path, api.path, "{}", api.name);
        assert_eq!(r.body["stream"], true, "{}", api.name);
        assert_eq!(r.body["model"], "test-model");
        let header = |k: &str| r.headers.iter().find(|(h, _)| h == k).map(|(_, v)| v.as_str());
        match api.name {
            "anthropic" => {
                assert_eq!(header("x-api-key"), Some("sk-ant-test"));
                assert_eq!(r.body["system"], "be brief");
                assert_eq!(r.body["max_tokens"], 64);
            }
            "openai" => {
                assert_eq!(header("authorization"), Some("Bearer sk-test"));
                assert_eq!(r.body["messages"][0]["role"], "system");
            }
            _ => assert_eq!(r.body["options"]["num_predict"], 64),
        }
    }
}

#[test]
fn honours_retry_after_on_429_and_503() {
    for api in apis() {
        let server = Server::start(vec![
            status(429, &api, vec![("retry-after", "1".into())]),
            status(503, &api, vec![("retry-after", "2".into())]),
            ok(&api),
        ]);
        let (mut m, slept) = retrying((api.make)(&server.url, T));
        let answer = m.ask(&plan()).unwrap();
        assert!(answer.markdown.contains("tool: noop"), "{}", api.name);
        assert_eq!(*slept.lock().unwrap(), [Duration::from_secs(1), Duration::from_secs(2)], "{}", api.name);
        assert_eq!(server.requests().len(), 3);
    }
}

#[test]
fn a_503_without_retry_after_backs_off_and_gives_up_after_the_last_retry() {
    for api in apis() {
        let server = Server::start((0..3).map(|_| status(503, &api, vec![])).collect());
        let (mut m, slept) = retrying((api.make)(&server.url, T));
        match m.ask(&plan()) {
            Err(ModelError::Status { status: 503, message, .. }) => {
                assert!(message.contains("the server says no"), "{}: {message}", api.name)
            }
            other => panic!("{}: {other:?}", api.name),
        }
        let slept = slept.lock().unwrap().clone();
        assert_eq!(slept.len(), 2, "{}", api.name);
        assert!(slept[1] >= Duration::from_millis(10), "exponential: {slept:?}");
        assert_eq!(server.requests().len(), 3);
    }
}

#[test]
fn never_retries_400_or_401() {
    for api in apis() {
        for code in [400, 401] {
            let server = Server::start(vec![status(code, &api, vec![]), ok(&api)]);
            let (mut m, slept) = retrying((api.make)(&server.url, T));
            match m.ask(&plan()) {
                Err(ModelError::Status { status, message, .. }) => {
                    assert_eq!(status, code);
                    assert!(message.contains("the server says no"), "{}: {message}", api.name);
                }
                other => panic!("{}: {other:?}", api.name),
            }
            assert!(slept.lock().unwrap().is_empty());
            assert_eq!(server.requests().len(), 1, "{}", api.name);
        }
    }
}

#[test]
fn a_cut_stream_is_an_error_never_half_an_answer_and_is_retried() {
    for api in apis() {
        let cut = Reply::Send(200, vec![("content-type", "text/event-stream".into())], api.cut.clone());
        let server = Server::start(vec![cut]);
        let e = (api.make)(&server.url, T).ask(&plan()).unwrap_err();
        assert!(matches!(e, ModelError::Cut(_)), "{}: {e:?}", api.name);

        let cut = Reply::Send(200, vec![("content-type", "text/event-stream".into())], api.cut.clone());
        let server = Server::start(vec![cut, ok(&api)]);
        let (mut m, _) = retrying((api.make)(&server.url, T));
        assert!(m.ask(&plan()).unwrap().markdown.ends_with("```"), "{}", api.name);
    }
}

#[test]
fn malformed_json_is_an_error() {
    for api in apis() {
        let server = Server::start(vec![Reply::Send(200, vec![], api.malformed.clone())]);
        let e = (api.make)(&server.url, T).ask(&plan()).unwrap_err();
        assert!(matches!(e, ModelError::Malformed(_)), "{}: {e:?}", api.name);
    }
}

#[test]
fn a_slow_server_times_out() {
    for api in apis() {
        let server = Server::start(vec![Reply::Hang]);
        let started = std::time::Instant::now();
        let e = (api.make)(&server.url, Duration::from_millis(300)).ask(&plan()).unwrap_err();
        assert!(matches!(e, ModelError::Timeout(_)), "{}: {e:?}", api.name);
        assert!(started.elapsed() < Duration::from_secs(5), "{}: {:?}", api.name, started.elapsed());
    }
}

#[test]
fn nobody_listening_is_a_connect_error() {
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    for api in apis() {
        let e = (api.make)(&format!("http://127.0.0.1:{port}"), T).ask(&plan()).unwrap_err();
        assert!(matches!(e, ModelError::Connect(_)), "{}: {e:?}", api.name);
    }
}
