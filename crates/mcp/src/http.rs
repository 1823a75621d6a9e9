//! The streamable-HTTP MCP client's HTTP: rmcp's [`StreamableHttpClient`] on ureq, the one
//! HTTP client library cn's code calls (rmcp's own client would bring reqwest and hyper's
//! client into the binary for this alone).
//!
//! It does what rmcp's reqwest client does, answer for answer (the statuses, the content
//! types, the session, the limits of [`StreamableHttpResponseLimits`]), with these
//! properties of its own:
//! - Each exchange is blocking ureq on a thread of its own (as the senses' `fetch`); an event
//!   stream's body is read on another, which ends at the stream's end, at an error, or at the
//!   first chunk after the stream was dropped. No exchange runs on the MCP runtime's blocking
//!   pool: the runtime's shutdown (the daemon stopping) never waits on a socket.
//! - Connecting, sending and waiting for the answer's head are each bounded by the server's
//!   `timeout`; a body is bounded in bytes (a JSON answer, an error's text, one SSE event),
//!   not in time: a call's own deadline is the caller's.
//! - Redirects: only a 307 or 308 to the same origin is followed (the method and body kept),
//!   10 at most; any other redirect is the answer (an error naming its status). A session id,
//!   a bearer token or a header never reaches another origin.
//! - No connection is kept between exchanges (as rmcp's client); no compression asked for.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::stream::{BoxStream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ErrorData, ServerJsonRpcMessage};
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_MCP_PROTOCOL_VERSION, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::{Sse, SseStream};
use ureq::http::header::{
    ACCEPT, AUTHORIZATION, CONTENT_LENGTH, CONTENT_TYPE, LOCATION, RETRY_AFTER, WWW_AUTHENTICATE,
};
use ureq::http::{HeaderMap, HeaderName, HeaderValue, Method, Response, StatusCode};

/// Most redirects followed for one request.
pub const MAX_REDIRECTS: usize = 10;
/// The default limit of one SSE event, as rmcp's (16 MiB).
pub const MAX_SSE_EVENT: usize = 16 * 1024 * 1024;
/// Chunks of an event stream read ahead of its reader.
const READ_AHEAD: usize = 8;
const CHUNK: usize = 8 * 1024;
/// A header value rmcp keeps (`Retry-After`) is dropped when longer.
const MAX_RETRY_AFTER: usize = 128;
/// An error's text when its body could not be read.
const UNREAD: &str = "<failed to read response body>";

type Error = StreamableHttpError<ureq::Error>;
type Events = BoxStream<'static, Result<Sse, SseError>>;

/// The MCP client's HTTP: a ureq agent, cheap to clone.
#[derive(Clone)]
pub struct UreqClient {
    agent: ureq::Agent,
}

impl UreqClient {
    /// A client whose connecting, sending and waiting for an answer's head are each bounded
    /// by `timeout`. TLS is rustls with ring and the platform's certificate verifier, as the
    /// senses'; the system's proxy variables apply.
    pub fn new(timeout: Duration) -> UreqClient {
        let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
        let agent = ureq::Agent::config_builder()
            .user_agent(concat!("cn/", env!("CARGO_PKG_VERSION")))
            .http_status_as_error(false)
            .max_redirects(0)
            .accept_encoding("")
            .max_idle_connections(0)
            .max_idle_connections_per_host(0)
            .timeout_connect(Some(timeout))
            .timeout_send_request(Some(timeout))
            .timeout_send_body(Some(timeout))
            .timeout_recv_response(Some(timeout))
            .tls_config(tls)
            .build()
            .into();
        UreqClient { agent }
    }

    /// Send one request, following same-origin 307 and 308 redirects only.
    fn send(
        &self,
        method: Method,
        uri: &str,
        headers: &[(HeaderName, HeaderValue)],
        body: Option<&[u8]>,
    ) -> Result<Response<ureq::Body>, ureq::Error> {
        let first = url::Url::parse(uri).map_err(|e| ureq::Error::BadUri(e.to_string()))?;
        let mut at = first.clone();
        for hop in 0..=MAX_REDIRECTS {
            let mut request = ureq::http::Request::builder().method(method.clone()).uri(at.as_str());
            for (name, value) in headers {
                request = request.header(name, value);
            }
            let response = match body {
                Some(body) => self.agent.run(request.body(body).map_err(ureq::Error::Http)?),
                None => self.agent.run(request.body(()).map_err(ureq::Error::Http)?),
            }?;
            if !matches!(response.status(), StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT) {
                return Ok(response);
            }
            let next = response.headers().get(LOCATION).and_then(|l| l.to_str().ok()).and_then(|l| at.join(l).ok());
            // Another origin (or no usable location): the redirect is the answer.
            let Some(next) = next.filter(|n| n.origin() == first.origin()) else { return Ok(response) };
            if hop == MAX_REDIRECTS {
                break;
            }
            // Paths only: a query may carry a credential.
            tracing::debug!(status = %response.status(), from = at.path(), to = next.path(), "MCP: following a same-origin redirect");
            at = next;
        }
        Err(ureq::Error::TooManyRedirects)
    }
}

/// Run `f` on a thread of its own and wait for it.
async fn on_thread<T: Send + 'static>(f: impl FnOnce() -> Result<T, Error> + Send + 'static) -> Result<T, Error> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("cn-mcp-http".into())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|e| StreamableHttpError::Client(ureq::Error::Io(e)))?;
    rx.await.unwrap_or_else(|_| {
        Err(StreamableHttpError::Client(ureq::Error::Io(std::io::Error::other(
            "the request's thread ended without an answer",
        ))))
    })
}

/// The headers every request carries: the caller's own (none of the reserved ones but the
/// protocol version), the bearer token, the session.
fn request_headers(
    accept: Option<&str>,
    session: Option<&str>,
    auth: Option<String>,
    custom: HashMap<HeaderName, HeaderValue>,
) -> Result<Vec<(HeaderName, HeaderValue)>, Error> {
    let mut out = Vec::new();
    if let Some(accept) = accept {
        out.push((ACCEPT, HeaderValue::from_str(accept).map_err(|e| client_error(e.to_string()))?));
    }
    if let Some(token) = auth {
        let value = HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| client_error("the bearer token is not a valid header value".into()))?;
        out.push((AUTHORIZATION, value));
    }
    for (name, value) in custom {
        let reserved = [ACCEPT.as_str(), HEADER_SESSION_ID, HEADER_LAST_EVENT_ID]
            .iter()
            .any(|r| name.as_str().eq_ignore_ascii_case(r));
        if reserved && !name.as_str().eq_ignore_ascii_case(HEADER_MCP_PROTOCOL_VERSION) {
            return Err(StreamableHttpError::ReservedHeaderConflict(name.to_string()));
        }
        out.push((name, value));
    }
    if let Some(session) = session {
        let value = HeaderValue::from_str(session)
            .map_err(|_| client_error("the session id is not a valid header value".into()))?;
        out.push((HeaderName::from_static("mcp-session-id"), value));
    }
    Ok(out)
}

fn client_error(message: String) -> Error {
    StreamableHttpError::Client(ureq::Error::Other(message.into()))
}

fn io_error(e: std::io::Error) -> Error {
    StreamableHttpError::Client(ureq::Error::Io(e))
}

fn content_type(headers: &HeaderMap) -> Option<String> {
    headers.get(CONTENT_TYPE).map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// Whether a `Content-Type` is `expected`, parameters and case aside.
fn media_type_is(value: &str, expected: &str) -> bool {
    value.split(';').next().is_some_and(|essence| essence.trim_matches([' ', '\t']).eq_ignore_ascii_case(expected))
}

/// A 401 or 403 with a challenge: the error rmcp's authorization reads.
fn auth_error(status: StatusCode, headers: &HeaderMap) -> Option<Error> {
    if !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        return None;
    }
    let header = headers.get(WWW_AUTHENTICATE)?;
    let Ok(header) = header.to_str() else {
        return Some(StreamableHttpError::UnexpectedServerResponse(Cow::from("invalid www-authenticate header value")));
    };
    Some(if status == StatusCode::UNAUTHORIZED {
        StreamableHttpError::AuthRequired(AuthRequiredError::new(header.to_string()))
    } else {
        StreamableHttpError::InsufficientScope(InsufficientScopeError::new(header.to_string(), scope_of(header)))
    })
}

/// The `scope=` of a `WWW-Authenticate` value, quoted or not.
fn scope_of(header: &str) -> Option<String> {
    let at = header.to_ascii_lowercase().find("scope=")? + "scope=".len();
    let rest = &header[at..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.find('"').map(|end| quoted[..end].to_string());
    }
    let end = rest.find(|c: char| c == ',' || c == ';' || c.is_whitespace()).unwrap_or(rest.len());
    (end > 0).then(|| rest[..end].to_string())
}

/// A 429 or 5xx: its status and `Retry-After`, nothing else.
fn status_error(status: StatusCode, headers: &HeaderMap) -> Option<HttpStatusError> {
    if status != StatusCode::TOO_MANY_REQUESTS && !status.is_server_error() {
        return None;
    }
    let retry_after = headers
        .get(RETRY_AFTER)
        .filter(|v| v.as_bytes().len() <= MAX_RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    Some(HttpStatusError::new(status.as_u16(), retry_after))
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse().ok())
}

/// A whole body of at most `max` bytes, or an error: never more is kept.
fn read_bounded(body: ureq::Body, length: Option<u64>, max: usize) -> Result<Vec<u8>, Error> {
    if length.is_some_and(|n| n > max as u64) {
        return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
    }
    let mut out = Vec::new();
    body.into_reader().take(max as u64 + 1).read_to_end(&mut out).map_err(io_error)?;
    if out.len() > max {
        return Err(StreamableHttpError::ResponseBodyTooLarge { max_size: max });
    }
    Ok(out)
}

/// At most the first `max` bytes of a body (a diagnostic), the rest left unread.
fn read_prefix(body: ureq::Body, max: usize) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    body.into_reader().take(max as u64).read_to_end(&mut out).map_err(io_error)?;
    Ok(out)
}

/// A server's rejection of `server/discover` (an older server's 4xx), answered as the
/// JSON-RPC error the client's lifecycle falls back on; `None` for anything else.
fn legacy_discover(
    message: &ClientJsonRpcMessage,
    with_session: bool,
    status: StatusCode,
    body: &str,
) -> Option<StreamableHttpPostResponse> {
    if with_session || !status.is_client_error() || matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        return None;
    }
    let ClientJsonRpcMessage::Request(request) = message else { return None };
    if !matches!(request.request, ClientRequest::DiscoverRequest(_)) {
        return None;
    }
    let error = match serde_json::from_str::<ServerJsonRpcMessage>(body) {
        Ok(ServerJsonRpcMessage::Error(e)) => e.error,
        _ => ErrorData::invalid_request(format!("server/discover rejected with HTTP {status}: {body}"), None),
    };
    Some(StreamableHttpPostResponse::Json(ServerJsonRpcMessage::error(error, Some(request.id.clone())), None))
}

/// How much of one SSE event has come: a blank line ends an event, and no event may hold
/// more than `max` bytes (line ends aside).
struct EventLimit {
    max: usize,
    event: usize,
    line: usize,
    after_cr: bool,
}

impl EventLimit {
    fn new(max: usize) -> EventLimit {
        EventLimit { max, event: 0, line: 0, after_cr: false }
    }

    /// The offset in `chunk` at which the event in progress passes the limit, if it does.
    fn over(&mut self, chunk: &[u8]) -> Option<usize> {
        for (i, &b) in chunk.iter().enumerate() {
            if std::mem::take(&mut self.after_cr) && b == b'\n' {
                continue;
            }
            match b {
                b'\r' | b'\n' => {
                    if self.line == 0 {
                        self.event = 0;
                    }
                    self.line = 0;
                    self.after_cr = b == b'\r';
                }
                _ => {
                    self.line += 1;
                    self.event += 1;
                    if self.event > self.max {
                        return Some(i);
                    }
                }
            }
        }
        None
    }
}

/// An event stream read from `body` on a thread of its own, no event over `max` bytes.
fn event_stream(body: ureq::Body, max: usize) -> Events {
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Bytes, std::io::Error>>(READ_AHEAD);
    let pump = move || {
        let mut reader = body.into_reader();
        let mut limit = EventLimit::new(max);
        let mut buf = vec![0u8; CHUNK];
        loop {
            let n = match reader.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = tx.blocking_send(Err(e));
                    return;
                }
            };
            let over = limit.over(&buf[..n]);
            let keep = over.unwrap_or(n);
            if keep > 0 && tx.blocking_send(Ok(Bytes::copy_from_slice(&buf[..keep]))).is_err() {
                return;
            }
            if over.is_some() {
                let e = std::io::Error::other(format!("an SSE event exceeded the maximum size of {max} bytes"));
                let _ = tx.blocking_send(Err(e));
                return;
            }
        }
    };
    if let Err(e) = std::thread::Builder::new().name("cn-mcp-sse".into()).spawn(pump) {
        return futures::stream::once(async move { Err(SseError::Body(Box::new(e))) }).boxed();
    }
    let chunks = futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|chunk| (chunk, rx)) });
    SseStream::from_bytes_stream(chunks).boxed()
}

impl UreqClient {
    fn get_blocking(
        &self,
        uri: &str,
        headers: &[(HeaderName, HeaderValue)],
        max_event: usize,
    ) -> Result<Events, Error> {
        let response = self.send(Method::GET, uri, headers, None).map_err(StreamableHttpError::Client)?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if let Some(e) = auth_error(status, response.headers()) {
            return Err(e);
        }
        if let Some(e) = status_error(status, response.headers()) {
            return Err(e.into());
        }
        if !status.is_success() {
            return Err(StreamableHttpError::Client(ureq::Error::StatusCode(status.as_u16())));
        }
        match content_type(response.headers()) {
            Some(ct) if media_type_is(&ct, EVENT_STREAM_MIME_TYPE) || media_type_is(&ct, JSON_MIME_TYPE) => {}
            other => return Err(StreamableHttpError::UnexpectedContentType(other)),
        }
        Ok(event_stream(response.into_body(), max_event))
    }

    fn delete_blocking(&self, uri: &str, headers: &[(HeaderName, HeaderValue)]) -> Result<(), Error> {
        let response = self.send(Method::DELETE, uri, headers, None).map_err(StreamableHttpError::Client)?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            tracing::debug!("this MCP server does not delete sessions");
            return Ok(());
        }
        if !status.is_success() {
            return Err(StreamableHttpError::Client(ureq::Error::StatusCode(status.as_u16())));
        }
        Ok(())
    }

    fn post_blocking(
        &self,
        uri: &str,
        message: ClientJsonRpcMessage,
        headers: &[(HeaderName, HeaderValue)],
        with_session: bool,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let body = serde_json::to_vec(&message)?;
        let mut headers = headers.to_vec();
        headers.push((CONTENT_TYPE, HeaderValue::from_static(JSON_MIME_TYPE)));
        let response = self.send(Method::POST, uri, &headers, Some(&body)).map_err(StreamableHttpError::Client)?;
        let (parts, body) = response.into_parts();
        let status = parts.status;
        if let Some(e) = auth_error(status, &parts.headers) {
            return Err(e);
        }
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && with_session {
            return Err(StreamableHttpError::SessionExpired);
        }
        let content_type = content_type(&parts.headers);
        let is_json = content_type.as_deref().is_some_and(|ct| media_type_is(ct, JSON_MIME_TYPE));
        // Rate limits and non-JSON failures are answered without reading the body; a JSON
        // failure is read (bounded) for its JSON-RPC error.
        let failed = match (status_error(status, &parts.headers), is_json) {
            (Some(e), json) if !json || status == StatusCode::TOO_MANY_REQUESTS => return Err(e.into()),
            (e, _) => e,
        };
        let length = content_length(&parts.headers);
        let session_id = parts.headers.get(HEADER_SESSION_ID).and_then(|v| v.to_str().ok()).map(str::to_owned);
        // A POST of only a notification, response or error awaits nothing back.
        let awaits_nothing = matches!(
            message,
            ClientJsonRpcMessage::Notification(_) | ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_)
        );
        if status.is_success() && length == Some(0) && awaits_nothing {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if !status.is_success() {
            let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
            let unread = || UNREAD[..UNREAD.len().min(limits.max_error_response_size)].to_owned();
            let is_auth = matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
            let text = if is_json && !is_auth {
                match read_bounded(body, length, limits.max_json_response_size) {
                    Ok(raw) => {
                        let full = lossy(&raw);
                        if let Ok(error @ ServerJsonRpcMessage::Error(_)) =
                            serde_json::from_str::<ServerJsonRpcMessage>(&full)
                        {
                            if let Some(answer) = legacy_discover(&message, with_session, status, &full) {
                                return Ok(answer);
                            }
                            return Ok(StreamableHttpPostResponse::Json(error, session_id));
                        }
                        tracing::warn!("HTTP {status}: an MCP server's JSON body is not a JSON-RPC error");
                        lossy(&raw[..raw.len().min(limits.max_error_response_size)])
                    }
                    Err(e @ StreamableHttpError::ResponseBodyTooLarge { .. }) => {
                        return Err(failed.map(StreamableHttpError::from).unwrap_or(e))
                    }
                    Err(StreamableHttpError::Client(_)) => unread(),
                    Err(e) => return Err(e),
                }
            } else {
                match read_prefix(body, limits.max_error_response_size) {
                    Ok(prefix) => lossy(&prefix),
                    Err(StreamableHttpError::Client(_)) => unread(),
                    Err(e) => return Err(e),
                }
            };
            if let Some(answer) = legacy_discover(&message, with_session, status, &text) {
                return Ok(answer);
            }
            if let Some(e) = failed {
                return Err(e.into());
            }
            return Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!("HTTP {status}: {text}"))));
        }
        match content_type {
            Some(ct) if media_type_is(&ct, EVENT_STREAM_MIME_TYPE) => {
                Ok(StreamableHttpPostResponse::Sse(event_stream(body, limits.max_sse_event_size), session_id))
            }
            Some(ct) if media_type_is(&ct, JSON_MIME_TYPE) => {
                let raw = read_bounded(body, length, limits.max_json_response_size)?;
                match serde_json::from_slice::<ServerJsonRpcMessage>(&raw) {
                    Ok(parsed) => Ok(StreamableHttpPostResponse::Json(parsed, session_id)),
                    Err(e) if awaits_nothing => {
                        tracing::warn!(
                            "an MCP server's JSON answer to a notification does not parse, taken as accepted: {e}"
                        );
                        Ok(StreamableHttpPostResponse::Accepted)
                    }
                    Err(e) => {
                        let preview = String::from_utf8_lossy(&raw[..raw.len().min(256)]).into_owned();
                        Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(format!(
                            "could not parse JSON response as ServerJsonRpcMessage: {e}: {preview}"
                        ))))
                    }
                }
            }
            // Neither: a POST that awaits nothing needs nothing from the body.
            _ if awaits_nothing => Ok(StreamableHttpPostResponse::Accepted),
            other => Err(StreamableHttpError::UnexpectedContentType(other)),
        }
    }
}

impl StreamableHttpClient for UreqClient {
    type Error = ureq::Error;

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<Events, Error> {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_token,
            custom_headers,
            MAX_SSE_EVENT,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<Events, Error> {
        let accept = format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}");
        let mut headers = request_headers(Some(&accept), session_id.as_deref(), auth_token, custom_headers)?;
        if let Some(id) = last_event_id {
            let value = HeaderValue::from_str(&id)
                .map_err(|_| client_error("the last event id is not a valid header value".into()))?;
            headers.push((HeaderName::from_static("last-event-id"), value));
        }
        let client = self.clone();
        on_thread(move || client.get_blocking(&uri, &headers, max_sse_event_size)).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session: Arc<str>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), Error> {
        let headers = request_headers(None, Some(&session), auth_token, custom_headers)?;
        let client = self.clone();
        on_thread(move || client.delete_blocking(&uri, &headers)).await
    }

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, Error> {
        self.post_message_with_response_limits(uri, message, session_id, auth_token, custom_headers, Default::default())
            .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(uri, message, session_id, auth_token, custom_headers, limits).await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, Error> {
        let accept = format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}");
        let with_session = session_id.is_some();
        let headers = request_headers(Some(&accept), session_id.as_deref(), auth_token, custom_headers)?;
        let client = self.clone();
        on_thread(move || client.post_blocking(&uri, message, &headers, with_session, limits)).await
    }
}
