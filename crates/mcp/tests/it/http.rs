//! The streamable-HTTP client's HTTP (`cn_mcp::http::UreqClient`) against servers on loopback
//! that answer what an attacker's or a broken server would: redirects to another origin and
//! in loops, bodies and events without end, errors quoting what they were sent. Every server
//! here is a thread serving a fixed number of connections; "no request reached it" is a
//! listener with nothing queued once the call has returned.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;

use cn_mcp::http::{UreqClient, MAX_REDIRECTS};
use futures::StreamExt;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, PingRequest, RequestId};
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use ureq::http::{HeaderName, HeaderValue};

const TOKEN: &str = "tok-7f3a-bearer";
const KEY: &str = "key-91c2-custom";
const SESSION: &str = "session-5d1e";

/// One request as a server read it.
#[derive(Debug, Clone)]
struct Seen {
    line: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

fn read_request(stream: &mut TcpStream) -> Seen {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).unwrap();
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (n, v) = h.split_once(':').unwrap();
        headers.push((n.trim().to_string(), v.trim().to_string()));
    }
    let length =
        headers.iter().find(|(n, _)| n.eq_ignore_ascii_case("content-length")).map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    Seen { line: line.trim_end().to_string(), headers, body }
}

/// A server on loopback answering `answers.len()` connections, one request each, in turn.
struct Server {
    url: String,
    thread: std::thread::JoinHandle<Vec<Seen>>,
}

impl Server {
    fn start(answers: Vec<Vec<u8>>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let thread = std::thread::spawn(move || {
            let mut seen = Vec::new();
            for answer in answers {
                let (mut stream, _) = listener.accept().unwrap();
                seen.push(read_request(&mut stream));
                // A client that stopped reading (a body over its limit) may have closed.
                let _ = stream.write_all(&answer);
            }
            seen
        });
        Server { url, thread }
    }

    /// What it was sent, once it has answered every connection.
    fn seen(self) -> Vec<Seen> {
        self.thread.join().unwrap()
    }
}

/// A listener that must never be reached.
struct Untouched(TcpListener);

impl Untouched {
    fn new() -> Untouched {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.set_nonblocking(true).unwrap();
        Untouched(l)
    }

    fn url(&self) -> String {
        format!("http://{}", self.0.local_addr().unwrap())
    }

    /// Nothing connected: a connection the client made is queued by now (connecting is
    /// done before a request is sent, and the call has returned).
    fn assert_untouched(&self) {
        match self.0.accept() {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            other => panic!("a request reached the other origin: {other:?}"),
        }
    }
}

fn answer(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\nconnection: close\r\ncontent-length: {}\r\n", body.len());
    for (n, v) in headers {
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let mut out = out.into_bytes();
    out.extend_from_slice(body);
    out
}

fn redirect(status: &str, to: &str) -> Vec<u8> {
    answer(status, &[("location", to)], b"")
}

const PONG: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;

fn ping() -> ClientJsonRpcMessage {
    ClientJsonRpcMessage::request(ClientRequest::PingRequest(PingRequest::default()), RequestId::Number(1))
}

fn custom() -> HashMap<HeaderName, HeaderValue> {
    HashMap::from([(HeaderName::from_static("x-api-key"), HeaderValue::from_static(KEY))])
}

async fn post(
    url: &str,
    limits: StreamableHttpResponseLimits,
) -> Result<StreamableHttpPostResponse, StreamableHttpError<ureq::Error>> {
    let client = UreqClient::new(std::time::Duration::from_secs(10));
    client
        .post_message_with_response_limits(
            Arc::from(url),
            ping(),
            Some(Arc::from(SESSION)),
            Some(TOKEN.to_string()),
            custom(),
            limits,
        )
        .await
}

fn assert_no_secret(what: &str) {
    for secret in [TOKEN, KEY, SESSION] {
        assert!(!what.contains(secret), "{secret} in {what}");
    }
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_the_answer_and_the_other_origin_hears_nothing() {
    for status in ["307 Temporary Redirect", "308 Permanent Redirect"] {
        let other = Untouched::new();
        let a = Server::start(vec![redirect(status, &format!("{}/capture", other.url()))]);
        let r = post(&format!("{}/mcp", a.url), Default::default()).await;
        let e = format!("{:?}", r.as_ref().err());
        assert!(
            matches!(&r, Err(StreamableHttpError::UnexpectedServerResponse(m)) if m.contains(&status[..3])),
            "{status}: {r:?}"
        );
        assert_no_secret(&e);
        other.assert_untouched();
        let seen = a.seen();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].header("authorization"), Some(format!("Bearer {TOKEN}").as_str()));
    }
}

#[tokio::test]
async fn a_redirect_that_would_turn_the_post_into_a_get_is_not_followed() {
    for status in ["301 Moved Permanently", "302 Found", "303 See Other"] {
        // The same origin: only the status stops it.
        let a = Server::start(vec![redirect(status, "/v2/mcp")]);
        let r = post(&format!("{}/mcp", a.url), Default::default()).await;
        assert!(
            matches!(&r, Err(StreamableHttpError::UnexpectedServerResponse(m)) if m.contains(&status[..3])),
            "{status}: {r:?}"
        );
        assert_eq!(a.seen().len(), 1, "{status} was followed");
    }
}

#[tokio::test]
async fn a_same_origin_307_is_followed_with_the_method_body_and_headers() {
    let a = Server::start(vec![
        redirect("307 Temporary Redirect", "/v2/mcp"),
        answer("200 OK", &[("content-type", "application/json")], PONG),
    ]);
    let r = post(&format!("{}/mcp", a.url), Default::default()).await;
    assert!(matches!(r, Ok(StreamableHttpPostResponse::Json(..))), "{r:?}");
    let seen = a.seen();
    assert_eq!(seen[1].line, "POST /v2/mcp HTTP/1.1");
    assert_eq!(seen[1].body, seen[0].body);
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&seen[1].body).unwrap()["method"], "ping");
    assert_eq!(seen[1].header("mcp-session-id"), Some(SESSION));
    assert_eq!(seen[1].header("x-api-key"), Some(KEY));
    assert_eq!(seen[1].header("accept"), Some("text/event-stream, application/json"));
}

#[tokio::test]
async fn a_redirect_loop_ends_after_the_limit() {
    let a = Server::start(vec![redirect("307 Temporary Redirect", "/mcp"); MAX_REDIRECTS + 1]);
    let r = post(&format!("{}/mcp", a.url), Default::default()).await;
    assert!(matches!(r, Err(StreamableHttpError::Client(ureq::Error::TooManyRedirects))), "{r:?}");
    assert_eq!(a.seen().len(), MAX_REDIRECTS + 1);
}

#[tokio::test]
async fn a_json_answer_over_the_limit_is_refused_whether_or_not_it_says_its_length() {
    let mut limits = StreamableHttpResponseLimits::default();
    limits.max_json_response_size = 1024;
    let big = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"pad":"{}"}}}}"#, "x".repeat(4096));
    // Said: refused before the body is read.
    let a = Server::start(vec![answer("200 OK", &[("content-type", "application/json")], big.as_bytes())]);
    let r = post(&format!("{}/mcp", a.url), limits).await;
    assert!(matches!(r, Err(StreamableHttpError::ResponseBodyTooLarge { max_size: 1024 })), "{r:?}");
    a.seen();
    // Unsaid (read until the connection closes): refused once past the limit.
    let mut unsaid = b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: application/json\r\n\r\n".to_vec();
    unsaid.extend_from_slice(big.as_bytes());
    let a = Server::start(vec![unsaid]);
    let r = post(&format!("{}/mcp", a.url), limits).await;
    assert!(matches!(r, Err(StreamableHttpError::ResponseBodyTooLarge { max_size: 1024 })), "{r:?}");
    a.seen();
}

#[tokio::test]
async fn an_error_page_is_cut_to_the_limit_and_keeps_no_secret_it_was_not_sent() {
    let mut limits = StreamableHttpResponseLimits::default();
    limits.max_error_response_size = 64;
    let page = format!("bad request{}", "!".repeat(100_000));
    let a = Server::start(vec![answer("400 Bad Request", &[("content-type", "text/html")], page.as_bytes())]);
    let r = post(&format!("{}/mcp", a.url), limits).await;
    let Err(StreamableHttpError::UnexpectedServerResponse(m)) = &r else { panic!("{r:?}") };
    assert!(m.starts_with("HTTP 400 Bad Request: bad request!!!"), "{m}");
    assert!(m.len() <= "HTTP 400 Bad Request: ".len() + 64, "{} bytes", m.len());
    assert_no_secret(m);
    a.seen();
}

#[tokio::test]
async fn an_event_over_the_limit_ends_the_stream_after_the_events_before_it() {
    let mut limits = StreamableHttpResponseLimits::default();
    limits.max_sse_event_size = 256;
    let mut body = format!("data: {}\n\n", String::from_utf8_lossy(PONG)).into_bytes();
    body.extend_from_slice(format!("data: {}", "y".repeat(10_000)).as_bytes());
    let a = Server::start(vec![answer("200 OK", &[("content-type", "text/event-stream")], &body)]);
    let r = post(&format!("{}/mcp", a.url), limits).await;
    let Ok(StreamableHttpPostResponse::Sse(mut events, _)) = r else { panic!("{r:?}") };
    let first = events.next().await.unwrap().unwrap();
    assert_eq!(first.data.as_deref().map(str::as_bytes), Some(PONG));
    let e = events.next().await.unwrap().unwrap_err().to_string();
    assert!(e.contains("maximum size of 256 bytes"), "{e}");
    a.seen();
}

#[tokio::test]
async fn a_reserved_header_is_refused_before_anything_is_sent() {
    let other = Untouched::new();
    let client = UreqClient::new(std::time::Duration::from_secs(10));
    let headers = HashMap::from([(HeaderName::from_static("mcp-session-id"), HeaderValue::from_static("forged"))]);
    let r = client.post_message(Arc::from(format!("{}/mcp", other.url())), ping(), None, None, headers).await;
    assert!(matches!(&r, Err(StreamableHttpError::ReservedHeaderConflict(h)) if h == "mcp-session-id"), "{r:?}");
    other.assert_untouched();
}
