//! What the HTTP providers share: a blocking client with connect and total deadlines, the
//! mapping of failures onto `ModelError`, and a line reader for streamed answers.
//!
//! Invariants: a non-2xx answer is `ModelError::Status` carrying the server's message and
//! its `Retry-After` (so the retry layer can honour it); a stream that ends before the
//! provider's end marker is `Cut`, a line that is not the JSON it should be is `Malformed` —
//! never half an answer. Request headers (which hold API keys) are never logged.

use std::io::{self, BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use cn_compute::{Answer, ModelError, Plan};
use serde_json::Value;

/// Largest streamed answer read, so a runaway server cannot exhaust memory.
const MAX_BODY: u64 = 32 * 1024 * 1024;
/// Longest error body kept for a message.
const MAX_ERROR_BODY: u64 = 64 * 1024;

/// A blocking HTTP client with deadlines.
#[derive(Clone)]
pub struct Http {
    agent: ureq::Agent,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Http")
    }
}

/// The streamed body of a successful answer.
pub type Stream = BufReader<Box<dyn Read + Send>>;

impl Http {
    pub fn new(connect: Duration, total: Duration) -> Http {
        let config = ureq::Agent::config_builder()
            .timeout_connect(Some(connect))
            .timeout_global(Some(total))
            .http_status_as_error(false)
            .build();
        Http { agent: config.into() }
    }

    /// POST a JSON body; on 2xx return the body as a stream, else the status as an error.
    pub fn post_json(&self, url: &str, headers: &[(&str, &str)], body: &Value) -> Result<Stream, ModelError> {
        let mut req = self.agent.post(url).header("content-type", "application/json");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let bytes = serde_json::to_vec(body).map_err(|e| ModelError::Other(format!("cannot encode request: {e}")))?;
        let response = req.send(&bytes[..]).map_err(|e| from_ureq(e, url))?;
        let status = response.status().as_u16();
        let retry_after_ms = retry_after(response.headers());
        let reader: Box<dyn Read + Send> = Box::new(response.into_body().into_with_config().limit(MAX_BODY).reader());
        if (200..300).contains(&status) {
            return Ok(BufReader::new(reader));
        }
        let mut text = String::new();
        // A body we cannot read still leaves the status to report.
        let _ = reader.take(MAX_ERROR_BODY).read_to_string(&mut text);
        Err(ModelError::Status { status, message: error_message(&text), retry_after_ms })
    }
}

fn from_ureq(e: ureq::Error, url: &str) -> ModelError {
    match e {
        ureq::Error::Timeout(t) => ModelError::Timeout(format!("{url}: {t}")),
        ureq::Error::Io(io) => from_io(io, url),
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => ModelError::Connect(format!("{url}: {e}")),
        other => ModelError::Other(format!("{url}: {other}")),
    }
}

fn from_io(e: io::Error, url: &str) -> ModelError {
    use io::ErrorKind::*;
    match e.kind() {
        ConnectionRefused | ConnectionReset | ConnectionAborted | NotConnected | AddrNotAvailable => {
            ModelError::Connect(format!("{url}: {e}"))
        }
        TimedOut | WouldBlock => ModelError::Timeout(format!("{url}: {e}")),
        _ => ModelError::Other(format!("{url}: {e}")),
    }
}

/// A failure while reading a streamed body: a deadline is a timeout, anything else a cut.
pub fn read_error(e: io::Error) -> ModelError {
    if e.kind() == io::ErrorKind::TimedOut {
        return ModelError::Timeout(format!("reading the answer: {e}"));
    }
    if let Some(inner) = e.get_ref().and_then(|i| i.downcast_ref::<ureq::Error>()) {
        if matches!(inner, ureq::Error::Timeout(_)) {
            return ModelError::Timeout(format!("reading the answer: {inner}"));
        }
    }
    ModelError::Cut(e.to_string())
}

/// `Retry-After` (seconds; an HTTP date is not worth a parser here) or OpenAI's
/// `retry-after-ms`, in milliseconds.
fn retry_after(headers: &ureq::http::HeaderMap) -> Option<u64> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok()) {
        return Some(ms.max(0.0) as u64);
    }
    get("retry-after").and_then(|v| v.parse::<f64>().ok()).map(|s| (s.max(0.0) * 1000.0) as u64)
}

/// The message of an error body: `error.message`, `error`, `message`, or the text itself.
pub fn error_message(body: &str) -> String {
    let from_json = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let e = v.get("error");
        e.and_then(|e| e.get("message"))
            .or(e.filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let text = from_json.unwrap_or_else(|| body.trim().to_string());
    let mut text: String = text.chars().take(500).collect();
    if text.is_empty() {
        text.push_str("(no message)");
    }
    text
}

/// Call `f` on each line (without its newline) until it returns `true` (the provider's end
/// marker). Returns whether the end marker came; the caller turns `false` into `Cut`.
pub fn each_line(
    mut reader: impl BufRead,
    mut f: impl FnMut(&str) -> Result<bool, ModelError>,
) -> Result<bool, ModelError> {
    let mut buf = Vec::with_capacity(1024);
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(read_error)?;
        if n == 0 {
            return Ok(false);
        }
        let line = std::str::from_utf8(&buf).map_err(|e| ModelError::Malformed(format!("answer is not UTF-8: {e}")))?;
        let line = line.trim_end_matches(['\n', '\r']);
        if f(line)? {
            return Ok(true);
        }
    }
}

/// Parse one streamed JSON value, naming the provider when it is not JSON.
pub fn json_line<'a, T: serde::Deserialize<'a>>(provider: &str, text: &'a str) -> Result<T, ModelError> {
    serde_json::from_str(text).map_err(|e| {
        let head: String = text.chars().take(120).collect();
        ModelError::Malformed(format!("{provider}: a streamed event is not JSON ({e}): {head}"))
    })
}

/// What a provider read from a stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Streamed {
    pub text: String,
    pub model: String,
    pub tokens_in: Option<u64>,
    pub tokens_out: Option<u64>,
}

impl Streamed {
    /// The answer; token counts the server did not report are estimated (chars / 4).
    pub fn into_answer(self, plan: &Plan, fallback_model: &str, started: Instant) -> Answer {
        Answer {
            tokens_in: self.tokens_in.unwrap_or_else(|| estimate_tokens(&plan.system) + estimate_tokens(&plan.prompt)),
            tokens_out: self.tokens_out.unwrap_or_else(|| estimate_tokens(&self.text)),
            model: if self.model.is_empty() { fallback_model.to_string() } else { self.model },
            markdown: self.text,
            elapsed: started.elapsed(),
        }
    }
}

/// Rough token count without a tokenizer: four characters a token.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// The chat messages most APIs take: an optional system turn, then the user turn.
pub fn chat_messages(plan: &Plan, system_in_messages: bool) -> Value {
    let mut messages = Vec::with_capacity(2);
    if system_in_messages && !plan.system.is_empty() {
        messages.push(serde_json::json!({"role": "system", "content": plan.system}));
    }
    messages.push(serde_json::json!({"role": "user", "content": plan.prompt}));
    Value::Array(messages)
}

/// `base` + `path` without doubled or missing slashes.
pub fn join_url(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}
