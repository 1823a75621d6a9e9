//! OpenTelemetry export (`otel:` in cn.yaml): the daemon's traces over OTLP/HTTP, protobuf
//! encoded (`opentelemetry-proto`'s message types), with the GenAI semantic conventions:
//!
//! - a span per item, `invoke_agent <name>` (`gen_ai.operation.name = invoke_agent`,
//!   `gen_ai.agent.name`, `cn.item.id`, `cn.item.from`, `cn.item.cadence`, `cn.level`);
//! - a child span per model call, `chat <model>` (`gen_ai.operation.name = chat`,
//!   `gen_ai.provider.name` and the older `gen_ai.system`, `gen_ai.request.model`,
//!   `gen_ai.response.model`, `gen_ai.usage.input_tokens` / `output_tokens`, `cn.level`,
//!   `cn.cost_usd` from cn.yaml's prices);
//! - a child span per tool call, `execute_tool <tool>` (`gen_ai.operation.name =
//!   execute_tool`, `gen_ai.tool.name`), status error with the refusal when it failed.
//!
//! Invariants:
//! - Export never blocks or slows the decision path: a finished span goes into a bounded
//!   queue with `try_send`; when the queue is full (the collector down or slow) the span is
//!   dropped and counted (`dropped`), and one background thread batches (≤ 512 spans, sent
//!   `interval` after the first of them) and posts with the `timeout`. A failed post drops
//!   its batch and is counted. Idle, the thread blocks on the queue (no timer).
//! - Header values (auth) come from the environment and never appear in a log line, an
//!   error or the journal; the endpoint is shown redacted.
//! - When the daemon stops, the spans already queued get one last post (bounded by the
//!   timeout).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cn_compute::{Answer, Level, Model, ModelError, Plan, ToolCall, ToolError, Tools};
use cn_hub::config::{ModelsConfig, OtelConfig};
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{
    span::SpanKind, status::StatusCode, ResourceSpans, ScopeSpans, Span, Status,
};
use prost::Message;

/// Most spans in one export request.
const BATCH: usize = 512;

/// What a span's attribute holds.
#[derive(Debug, Clone)]
enum Attr {
    Str(String),
    Int(i64),
    Float(f64),
}

/// A finished span, before encoding.
struct Finished {
    trace_id: [u8; 16],
    span_id: [u8; 8],
    parent: Option<[u8; 8]>,
    name: String,
    kind: SpanKind,
    start: u64,
    end: u64,
    attrs: Vec<(&'static str, Attr)>,
    error: Option<String>,
}

/// The item span in progress (its model and tool calls are its children).
struct ItemSpan {
    trace_id: [u8; 16],
    span_id: [u8; 8],
    start: u64,
    attrs: Vec<(&'static str, Attr)>,
}

/// The daemon's tracer: cheap to clone, shared by the mind (items), the model and the tools.
#[derive(Clone)]
pub struct Telemetry {
    inner: Arc<Inner>,
}

struct Inner {
    queue: Mutex<Option<SyncSender<Finished>>>,
    item: Mutex<Option<ItemSpan>>,
    dropped: Arc<AtomicU64>,
    exported: Arc<AtomicU64>,
    agent: String,
    models: ModelsConfig,
    /// Hears once the exporter thread has sent its last batch and ended.
    done: Mutex<Option<Receiver<()>>>,
    timeout: Duration,
}

fn now_ns() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

fn nonzero<const N: usize>() -> [u8; N] {
    loop {
        let mut id = [0u8; N];
        for b in &mut id {
            *b = fastrand::u8(..);
        }
        if id.iter().any(|b| *b != 0) {
            return id;
        }
    }
}

/// Why `otel:` cannot start.
#[derive(Debug, thiserror::Error)]
pub enum OtelError {
    #[error("otel.headers_env: `{header}` names the environment variable {var}, which is not set")]
    HeaderEnv { header: String, var: String },
    /// (The error is in the message, not the source: `DaemonError::Telemetry` shows this
    /// error's message only.)
    #[error("cannot start the OpenTelemetry exporter: {error}")]
    Thread { error: std::io::Error },
}

/// Whether `otel:` can start: every header's variable is set (`cn run` checks it before
/// it starts anything, and again for a changed cn.yaml).
pub fn check(config: &OtelConfig) -> Result<(), OtelError> {
    headers(config).map(drop)
}

/// The headers every export sends, each value read from its variable.
fn headers(config: &OtelConfig) -> Result<Vec<(String, String)>, OtelError> {
    config
        .headers_env
        .iter()
        .map(|(header, var)| match std::env::var(var) {
            Ok(v) => Ok((header.clone(), v)),
            Err(_) => Err(OtelError::HeaderEnv { header: header.clone(), var: var.clone() }),
        })
        .collect()
}

/// Why one export failed. The transport's error is kept only as text, scrubbed of every
/// header value and redacted (its source could carry a header value, so it is dropped).
#[derive(Debug, thiserror::Error)]
enum ExportError {
    #[error("{0}")]
    Send(String),
    #[error("the collector answered {0}")]
    Status(ureq::http::StatusCode),
}

impl Telemetry {
    /// Start the exporter for `config` (the agent is `agent`, its models `models`). Header
    /// values are read from the environment now; a variable that is not set is an error
    /// naming it (never its value).
    pub fn start(config: &OtelConfig, agent: &str, models: &ModelsConfig) -> Result<Telemetry, OtelError> {
        let headers = headers(config)?;
        let (tx, rx) = std::sync::mpsc::sync_channel(config.queue);
        let dropped = Arc::new(AtomicU64::new(0));
        let exported = Arc::new(AtomicU64::new(0));
        let exporter = Exporter {
            endpoint: config.endpoint.clone(),
            headers,
            service: config.service_name.clone(),
            interval: config.interval,
            timeout: config.timeout,
            dropped: dropped.clone(),
            exported: exported.clone(),
        };
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("cn-otel".into())
            .spawn(move || {
                exporter.run(rx);
                let _ = done_tx.send(());
            })
            .map_err(|source| OtelError::Thread { error: source })?;
        Ok(Telemetry {
            inner: Arc::new(Inner {
                queue: Mutex::new(Some(tx)),
                item: Mutex::new(None),
                dropped,
                exported,
                agent: agent.to_string(),
                models: models.clone(),
                done: Mutex::new(Some(done_rx)),
                timeout: config.timeout,
            }),
        })
    }

    /// Spans dropped so far (queue full, or their export failed).
    pub fn dropped(&self) -> u64 {
        self.inner.dropped.load(Ordering::Relaxed)
    }

    /// Spans the collector accepted so far.
    pub fn exported(&self) -> u64 {
        self.inner.exported.load(Ordering::Relaxed)
    }

    /// Queue a finished span; never waits.
    fn send(&self, span: Finished) {
        let Ok(queue) = self.inner.queue.lock() else { return };
        let Some(tx) = queue.as_ref() else { return };
        match tx.try_send(span) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) | Err(TrySendError::Disconnected(_)) => {
                self.inner.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// An item is taken: its span begins (one still open ends first, unfinished).
    pub fn begin_item(&self, id: &str, from: &str, cadence: &str) {
        self.end_item(None, Some("not finished"));
        let span = ItemSpan {
            trace_id: nonzero(),
            span_id: nonzero(),
            start: now_ns(),
            attrs: vec![
                ("gen_ai.operation.name", Attr::Str("invoke_agent".into())),
                ("gen_ai.agent.name", Attr::Str(self.inner.agent.clone())),
                ("cn.item.id", Attr::Str(id.into())),
                ("cn.item.from", Attr::Str(from.into())),
                ("cn.item.cadence", Attr::Str(cadence.into())),
            ],
        };
        if let Ok(mut item) = self.inner.item.lock() {
            *item = Some(span);
        }
    }

    /// The item is decided at `level` (or put back: `error` says why).
    pub fn end_item(&self, level: Option<Level>, error: Option<&str>) {
        let Some(span) = self.inner.item.lock().ok().and_then(|mut i| i.take()) else { return };
        let mut attrs = span.attrs;
        if let Some(l) = level {
            attrs.push(("cn.level", Attr::Int(i64::from(l))));
        }
        self.send(Finished {
            trace_id: span.trace_id,
            span_id: span.span_id,
            parent: None,
            name: format!("invoke_agent {}", self.inner.agent),
            kind: SpanKind::Internal,
            start: span.start,
            end: now_ns(),
            attrs,
            error: error.map(str::to_string),
        });
    }

    /// A child of the current item's span (a root of its own trace outside any item).
    fn child(&self, name: String, kind: SpanKind, start: u64, attrs: Vec<(&'static str, Attr)>, error: Option<String>) {
        let (trace_id, parent) = match self.inner.item.lock().ok().as_deref().and_then(Option::as_ref) {
            Some(item) => (item.trace_id, Some(item.span_id)),
            None => (nonzero(), None),
        };
        self.send(Finished { trace_id, span_id: nonzero(), parent, name, kind, start, end: now_ns(), attrs, error });
    }

    /// The configured model behind `level` (provider, model name, cost of the call).
    fn model_of(&self, level: Level, tokens_in: u64, tokens_out: u64) -> (String, String, f64) {
        let config = if level >= 3 { self.inner.models.executive.clone() } else { Some(self.inner.models.local()) };
        let Some(m) = config else { return (String::new(), String::new(), 0.0) };
        let provider = m
            .provider
            .and_then(|p| serde_json::to_value(p).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        // The embedded model has no model name in cn.yaml: its file's name stands for it.
        let model = m
            .model
            .clone()
            .or_else(|| m.path.as_ref().and_then(|p| p.file_name()).map(|f| f.to_string_lossy().into_owned()))
            .unwrap_or_default();
        (provider, model, m.cost(tokens_in, tokens_out))
    }

    /// Wrap the daemon's model: a span per call.
    pub fn model(&self, inner: Box<dyn Model>) -> Box<dyn Model> {
        Box::new(TracedModel { inner, telemetry: self.clone() })
    }

    /// Wrap the daemon's tools: a span per call.
    pub fn tools(&self, inner: Box<dyn Tools>) -> Box<dyn Tools> {
        Box::new(TracedTools { inner, telemetry: self.clone() })
    }

    /// Stop: the spans queued get one last post, waited for at most the timeout (and a
    /// grace for the request to give up).
    pub fn shutdown(&self) {
        self.end_item(None, Some("the daemon stopped"));
        if let Ok(mut q) = self.inner.queue.lock() {
            q.take();
        }
        let Some(done) = self.inner.done.lock().ok().and_then(|mut d| d.take()) else { return };
        // The exporter's request gives up after the timeout; a second is its grace.
        let _ = done.recv_timeout(self.inner.timeout + Duration::from_secs(1));
        let dropped = self.dropped();
        if dropped > 0 {
            tracing::warn!(
                "OpenTelemetry: {dropped} spans dropped (queue full or export failed), {} exported",
                self.exported()
            );
        }
    }
}

struct TracedModel {
    inner: Box<dyn Model>,
    telemetry: Telemetry,
}

impl Model for TracedModel {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let start = now_ns();
        let answer = self.inner.ask(plan);
        let (tokens_in, tokens_out) = answer.as_ref().map_or((0, 0), |a| (a.tokens_in, a.tokens_out));
        let (provider, model, cost) = self.telemetry.model_of(plan.level, tokens_in, tokens_out);
        let mut attrs = vec![
            ("gen_ai.operation.name", Attr::Str("chat".into())),
            ("gen_ai.provider.name", Attr::Str(provider.clone())),
            ("gen_ai.system", Attr::Str(provider)),
            ("gen_ai.request.model", Attr::Str(model.clone())),
            ("cn.level", Attr::Int(i64::from(plan.level))),
        ];
        if plan.max_tokens > 0 {
            attrs.push(("gen_ai.request.max_tokens", Attr::Int(i64::from(plan.max_tokens))));
        }
        let error = match &answer {
            Ok(a) => {
                attrs.push(("gen_ai.response.model", Attr::Str(a.model.clone())));
                attrs.push(("gen_ai.usage.input_tokens", Attr::Int(a.tokens_in as i64)));
                attrs.push(("gen_ai.usage.output_tokens", Attr::Int(a.tokens_out as i64)));
                attrs.push(("cn.cost_usd", Attr::Float(cost)));
                None
            }
            Err(e) => Some(cn_compute::chain(&e)),
        };
        let name = if model.is_empty() { "chat".to_string() } else { format!("chat {model}") };
        self.telemetry.child(name, SpanKind::Client, start, attrs, error);
        answer
    }
}

struct TracedTools {
    inner: Box<dyn Tools>,
    telemetry: Telemetry,
}

impl Tools for TracedTools {
    fn call(&mut self, level: Level, call: &ToolCall) -> Result<cn_compute::Returned, ToolError> {
        let start = now_ns();
        let result = self.inner.call(level, call);
        let attrs = vec![
            ("gen_ai.operation.name", Attr::Str("execute_tool".into())),
            ("gen_ai.tool.name", Attr::Str(call.tool.clone())),
            ("cn.level", Attr::Int(i64::from(level))),
        ];
        let error = result.as_ref().err().map(ToString::to_string);
        self.telemetry.child(format!("execute_tool {}", call.tool), SpanKind::Internal, start, attrs, error);
        result
    }
}

/// The background side: batches from the queue, posts them.
struct Exporter {
    endpoint: String,
    headers: Vec<(String, String)>,
    service: String,
    interval: Duration,
    timeout: Duration,
    dropped: Arc<AtomicU64>,
    exported: Arc<AtomicU64>,
}

impl Exporter {
    fn run(self, rx: Receiver<Finished>) {
        let agent: ureq::Agent =
            ureq::Agent::config_builder().timeout_global(Some(self.timeout)).http_status_as_error(false).build().into();
        let mut batch = Vec::new();
        let mut due = Instant::now() + self.interval;
        let mut down = false;
        loop {
            // Idle (nothing waiting), the thread sleeps on the queue: no timer wakes it.
            let next = if batch.is_empty() {
                rx.recv().map_err(|_| RecvTimeoutError::Disconnected)
            } else {
                rx.recv_timeout(due.saturating_duration_since(Instant::now()))
            };
            let open = match next {
                Ok(span) => {
                    if batch.is_empty() {
                        due = Instant::now() + self.interval;
                    }
                    batch.push(span);
                    true
                }
                Err(RecvTimeoutError::Timeout) => true,
                Err(RecvTimeoutError::Disconnected) => false,
            };
            if !batch.is_empty() && (batch.len() >= BATCH || Instant::now() >= due || !open) {
                let n = batch.len() as u64;
                match self.post(&agent, std::mem::take(&mut batch)) {
                    Ok(()) => {
                        self.exported.fetch_add(n, Ordering::Relaxed);
                        if down {
                            tracing::info!("OpenTelemetry export resumed");
                            down = false;
                        }
                    }
                    Err(e) => {
                        self.dropped.fetch_add(n, Ordering::Relaxed);
                        if !down {
                            tracing::warn!(
                                endpoint = %cn_process::redact::redact(&self.endpoint),
                                dropped = self.dropped.load(Ordering::Relaxed),
                                "OpenTelemetry export failed (spans are dropped and counted until it works): {e}"
                            );
                            down = true;
                        }
                    }
                }
            }
            if !open {
                return;
            }
        }
    }

    /// One OTLP/HTTP request; the error names no header value.
    fn post(&self, agent: &ureq::Agent, spans: Vec<Finished>) -> Result<(), ExportError> {
        let body = self.encode(spans).encode_to_vec();
        let mut req = agent.post(&self.endpoint).header("content-type", "application/x-protobuf");
        for (k, v) in &self.headers {
            req = req.header(k.as_str(), v.as_str());
        }
        let resp = req
            .send(&body[..])
            .map_err(|e| ExportError::Send(self.scrub(cn_process::redact::redact(&cn_compute::chain(&e)))))?;
        let status = resp.status();
        if status.is_success() {
            Ok(())
        } else {
            Err(ExportError::Status(status))
        }
    }

    /// `text` without any header value in it.
    fn scrub(&self, mut text: String) -> String {
        for (_, v) in &self.headers {
            if !v.is_empty() {
                text = text.replace(v.as_str(), "[redacted]");
            }
        }
        text
    }

    fn encode(&self, spans: Vec<Finished>) -> ExportTraceServiceRequest {
        let kv = |key: &str, value: Attr| KeyValue {
            key: key.to_string(),
            value: Some(AnyValue {
                value: Some(match value {
                    Attr::Str(s) => any_value::Value::StringValue(s),
                    Attr::Int(i) => any_value::Value::IntValue(i),
                    Attr::Float(f) => any_value::Value::DoubleValue(f),
                }),
            }),
            ..Default::default()
        };
        let spans = spans
            .into_iter()
            .map(|s| Span {
                trace_id: s.trace_id.to_vec(),
                span_id: s.span_id.to_vec(),
                parent_span_id: s.parent.map(|p| p.to_vec()).unwrap_or_default(),
                name: s.name,
                kind: s.kind as i32,
                start_time_unix_nano: s.start,
                end_time_unix_nano: s.end.max(s.start),
                attributes: s
                    .attrs
                    .into_iter()
                    .chain(s.error.as_ref().map(|e| ("error.type", Attr::Str(error_type(e)))))
                    .map(|(k, v)| kv(k, v))
                    .collect(),
                status: Some(match s.error {
                    Some(message) => Status { message, code: StatusCode::Error as i32 },
                    None => Status { message: String::new(), code: StatusCode::Unset as i32 },
                }),
                ..Default::default()
            })
            .collect();
        ExportTraceServiceRequest {
            resource_spans: vec![ResourceSpans {
                resource: Some(Resource {
                    attributes: vec![kv("service.name", Attr::Str(self.service.clone()))],
                    ..Default::default()
                }),
                scope_spans: vec![ScopeSpans {
                    scope: Some(InstrumentationScope {
                        name: "cn".into(),
                        version: env!("CARGO_PKG_VERSION").into(),
                        ..Default::default()
                    }),
                    spans,
                    ..Default::default()
                }],
                ..Default::default()
            }],
        }
    }
}

/// `error.type`: the error's kind, its text up to the first colon (short and low-cardinality).
fn error_type(message: &str) -> String {
    message.split(':').next().unwrap_or(message).trim().chars().take(64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(endpoint: String, queue: usize) -> OtelConfig {
        OtelConfig {
            endpoint,
            headers_env: Default::default(),
            service_name: "cn".into(),
            queue,
            interval: Duration::from_millis(1),
            timeout: Duration::from_secs(2),
        }
    }

    /// A collector that accepts and never answers: the exporter's post hangs, the queue fills,
    /// and every span after that is dropped and counted; queuing one never waits.
    #[test]
    fn a_hanging_collector_blocks_nothing_and_spans_are_dropped_and_counted() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1/traces", listener.local_addr().unwrap());
        let t = Telemetry::start(&config(url, 1), "ada", &ModelsConfig::default()).unwrap();
        t.begin_item("it-0", "pi", "inbox");
        t.end_item(Some(2), None);
        // The exporter is posting that span (and hangs): wait for its connection.
        let (_held, _) = listener.accept().unwrap();
        for i in 1..=10 {
            t.begin_item(&format!("it-{i}"), "pi", "inbox");
            t.end_item(Some(2), None);
        }
        assert_eq!(t.dropped(), 9, "one span fits the queue, nine are dropped");
        assert_eq!(t.exported(), 0);
    }

    #[test]
    fn a_header_value_never_shows_in_an_export_error() {
        let e = Exporter {
            endpoint: "http://127.0.0.1:9/v1/traces".into(),
            headers: vec![("authorization".into(), "Bearer s3cret-value".into())],
            service: "cn".into(),
            interval: Duration::from_millis(1),
            timeout: Duration::from_secs(1),
            dropped: Arc::default(),
            exported: Arc::default(),
        };
        assert_eq!(e.scrub("bad header Bearer s3cret-value here".into()), "bad header [redacted] here");
    }
}
