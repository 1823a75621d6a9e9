//! Senses — real clients that turn events outside the agent into percepts and admit them to
//! attention: the owner's HTTP endpoint, GitHub (webhooks and notification polling), Discord
//! (the gateway), Telegram (Bot API long polling) and email (IMAP in, SMTP out) — each with a
//! [`Channel`](crate::channel::Channel) to answer on — a file watcher, calendars, peer mail, and the hub itself. Each is enabled in cn.yaml (`senses:`); base URLs
//! are configurable so tests run them against servers on loopback.
//!
//! Every sense is one [`Sense`]: it starts on the senses' runtime given a [`SenseContext`]
//! (the hub, the runtime, attention to admit percepts into, the HTTP routes it may mount) and
//! returns what keeps it running, with its channel to answer on ([`Channels`]). A new channel
//! is one file implementing `Sense` plus its section in `senses:` and one
//! line in [`configured`]; [`Senses::start`] is a loop over them.
//!
//! The senses run on a small tokio runtime of their own (one worker thread), so the daemon's
//! kernel stays synchronous; [`Attention`] is the channel between them — bounded, and a
//! percept admitted wakes a resting daemon at once.
//!
//! Invariant: the HTTP server binds 127.0.0.1 unless cn.yaml says otherwise; secrets come
//! from environment variables and never reach a percept, the journal or a log.

pub mod calendar;
pub mod discord;
#[cfg(feature = "email")]
pub mod email;
pub mod files;
pub mod github;
pub mod hub;
pub mod owner;
pub mod peers;
#[cfg(feature = "email")]
pub mod quoted;
pub mod telegram;

use std::any::Any;
use std::net::SocketAddr;

use axum::Router;

use crate::attention::Attention;
use crate::channel::Channels;
use crate::config::{ConfigError, SensesConfig};

/// Where the owner endpoint listens.
pub const OWNER_PATH: &str = "/owner/message";

/// What an HTTP sense answers a delivery (the owner endpoint's whole answer, which `cn chat`
/// and the control room read back): `{"accepted": id}` or `{"error": why}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Reply {
    Accepted { accepted: String },
    Refused { error: String },
}

impl Reply {
    /// An answer's body, if it is one (other fields are ignored).
    pub fn read(body: &str) -> Option<Reply> {
        serde_json::from_str(body.trim()).ok()
    }
}

/// The answer of an HTTP sense whose item the spool could not record (a full disk): 507, and
/// nothing taken, so the sender sends it again. The details go to the log, not to the sender.
pub fn not_recorded(
    sense: &str,
    e: &crate::attention::spool::NotSpooled,
) -> (axum::http::StatusCode, axum::Json<Reply>) {
    tracing::error!(sense, e = %cn_compute::Chain(&e), "refused an item the hub cannot record (507)");
    let error = "the hub cannot record it now (its disk is full or read-only); nothing was taken: send it again later";
    (axum::http::StatusCode::INSUFFICIENT_STORAGE, axum::Json(Reply::Refused { error: error.into() }))
}

/// Wait, off the async runtime, until origin holds what attention admitted so far (a leased
/// hub: see [`Attention::replicated`]; at once otherwise) — before a sense acknowledges it.
pub async fn replicated(attention: &Attention) -> Result<(), String> {
    let a = attention.clone();
    tokio::task::spawn_blocking(move || a.replicated())
        .await
        .unwrap_or_else(|e| Err(format!("the wait for origin ended: {e}")))
}

/// The answer of an HTTP sense whose item was admitted here but could not be put in origin
/// (a leased hub whose lease was lost, or origin unreachable for the lease's time): 503. The
/// item stays in this machine's queue (an earlier push may have carried it all the same); the
/// sender is told it may still be answered, and where to send it again if not.
pub fn not_in_origin(sense: &str, why: &str) -> (axum::http::StatusCode, axum::Json<Reply>) {
    tracing::warn!(sense, %why, "an item admitted here is not in origin (503)");
    let error = format!(
        "taken by this machine, but it could not be confirmed that the hub's origin keeps it ({why}): it may still be answered; if no answer comes, send it again to the machine that holds the hub's lease (`cn lease`)"
    );
    (axum::http::StatusCode::SERVICE_UNAVAILABLE, axum::Json(Reply::Refused { error }))
}

/// Where GitHub delivers webhooks.
pub const GITHUB_PATH: &str = "/github/webhook";

/// A URL in cn.yaml a sense cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{key} `{url}` is not {expected}")]
pub struct BadUrl {
    /// The cn.yaml key (`senses.discord.api_base`).
    pub key: &'static str,
    pub url: String,
    /// What it should be (`an http(s) URL such as https://discord.com`).
    pub expected: &'static str,
}

/// A sense that could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum SenseError {
    #[error("cannot start the senses' runtime")]
    Runtime { source: std::io::Error },
    /// A setting the sense cannot use (the message names the cn.yaml key).
    #[error("cannot start the {sense} sense: {message}")]
    Start { sense: &'static str, message: String },
    /// The owner's token could not be read or made (the source says why).
    #[error("cannot start the owner sense")]
    OwnerToken(#[source] cn_hub::owner_token::TokenError),
    /// (The URL's error is in the message, so it is not also the source: `cn` prints the
    /// chain.)
    #[error("cannot start the {sense} sense: {url}")]
    Url { sense: &'static str, url: BadUrl },
    #[error("cannot start the {sense} sense: cannot create {path}")]
    Create { sense: &'static str, path: std::path::PathBuf, source: std::io::Error },
    #[error("cannot start the {sense} sense{}", path.as_ref().map(|p| format!(": cannot watch {}", p.display())).unwrap_or_default())]
    Watch { sense: &'static str, path: Option<std::path::PathBuf>, source: notify::Error },
    /// (Another hub's daemon on the same port is the usual cause: say how to choose one.)
    #[error("cannot listen on {addr} (senses.bind in cn.yaml; another hub's daemon may hold it: set a free port, or 127.0.0.1:0 to take any)")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error(
        "senses.bind: {addr} is not a loopback address; the owner endpoint is plain HTTP, so the owner token \
         would cross the network in clear. Bind 127.0.0.1 (and put a TLS proxy or an ssh tunnel in front), or \
         set `senses.allow_remote: true` in cn.yaml if you mean it"
    )]
    Remote { addr: SocketAddr },
    #[error("{url}")]
    Http { url: String, source: ureq::Error },
    #[error("{url}: HTTP {status}")]
    Status { url: String, status: ureq::http::StatusCode },
    #[error("{url}: not {what}")]
    NotJson { url: String, what: &'static str, source: serde_json::Error },
    /// An outbound read longer than its cap: cut, not read on.
    #[error("{url}: the answer is larger than {cap} bytes; not read further")]
    TooLarge { url: String, cap: usize },
    #[error("{}", path.display())]
    Read { path: std::path::PathBuf, source: std::io::Error },
    /// iCalendar text that does not parse (the parser reports a message, not an error type).
    #[error("calendar: {message}")]
    Parse { message: String },
    #[error("discord: {message}")]
    Discord { message: String },
    /// Mail that could not be read or sent (no password in it).
    #[error("email: {message}")]
    Email { message: String },
    /// A Bot API call Telegram refused or could not answer (the token is never in it).
    #[error("telegram {method}: {message}")]
    Telegram { method: &'static str, message: String },
    #[error("discord: posting part {part}/{parts} to channel {channel}")]
    DiscordPost { part: usize, parts: usize, channel: u64, source: twilight_http::Error },
    /// A blocking call (an answer, a typing indicator's stop) from async code: it would
    /// stall the senses' runtime.
    #[error("a blocking call from async code (it would stall the runtime); call it from a synchronous thread")]
    FromAsync,
    #[error("the senses have stopped")]
    Stopped,
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// The wait before the next try of a sense that failed `failures` times in a row: `every`
/// doubled per failure (up to 32×), at most [`BACKOFF_MAX`], never less than `every`.
pub fn backoff(every: std::time::Duration, failures: u32) -> std::time::Duration {
    every.saturating_mul(1 << failures.min(5)).min(BACKOFF_MAX.max(every))
}

/// The longest a failing sense waits between tries.
pub const BACKOFF_MAX: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// Most bytes one outbound read takes (a calendar, a page of GitHub notifications).
pub const BODY_MAX: usize = 8 << 20;

/// How long one outbound request may take, connection to last byte.
pub const FETCH_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The body of `resp`, read as it comes and refused past `cap` bytes (a declared
/// `Content-Length` over the cap is refused before reading anything). Blocking: call it
/// inside [`fetch`].
pub fn read_capped(resp: &mut ureq::http::Response<ureq::Body>, url: &str, cap: usize) -> Result<Vec<u8>, SenseError> {
    let too_large = || SenseError::TooLarge { url: url.to_string(), cap };
    if resp.body().content_length().is_some_and(|n| n > cap as u64) {
        return Err(too_large());
    }
    resp.body_mut().with_config().limit(cap as u64).read_to_vec().map_err(|source| match source {
        ureq::Error::BodyExceedsLimit(_) => too_large(),
        source => SenseError::Http { url: url.to_string(), source },
    })
}

/// The HTTP client of the senses' outbound requests (a calendar, GitHub's notifications,
/// Telegram's Bot API): ureq, blocking, so each exchange runs through [`fetch`]. The
/// platform's certificate verifier; the system's proxy variables; redirects followed (10 at
/// most), the `Authorization` header kept only to the same host; every request bounded by
/// `timeout` from connecting to the body's last byte (`None`: each request sets its own);
/// HTTP error statuses are answers, not errors.
pub fn http_client(timeout: Option<std::time::Duration>) -> ureq::Agent {
    let tls = ureq::tls::TlsConfig::builder().root_certs(ureq::tls::RootCerts::PlatformVerifier).build();
    ureq::Agent::config_builder()
        .user_agent(concat!("cn/", env!("CARGO_PKG_VERSION")))
        .timeout_global(timeout)
        .http_status_as_error(false)
        .redirect_auth_headers(ureq::config::RedirectAuthHeaders::SameHost)
        .tls_config(tls)
        .build()
        .into()
}

/// Run a blocking exchange `f` (ureq) off the senses' runtime, on a thread of its own, and
/// wait for it. Dropped (the senses stopping), the future leaves the thread to finish its
/// exchange within its timeout: the runtime's shutdown does not wait for it.
pub async fn fetch<T: Send + 'static>(
    url: &str,
    f: impl FnOnce() -> Result<T, SenseError> + Send + 'static,
) -> Result<T, SenseError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new().name("cn-sense-http".into()).spawn(move || {
        let _ = tx.send(f());
    });
    let lost = |e: std::io::Error| SenseError::Http { url: url.to_string(), source: ureq::Error::Io(e) };
    spawned.map_err(lost)?;
    rx.await.unwrap_or_else(|_| Err(lost(std::io::Error::other("the request's thread ended without an answer"))))
}

/// Most connections the senses' HTTP server holds at once; more wait in the kernel's
/// backlog until one closes. Each costs at most its header buffer ([`HEADER_MAX`]) until the
/// request is authenticated, so a flood of half-sent requests is bounded in memory.
pub const CONNECTIONS_MAX: usize = 64;

/// How long a client has to send a request's header; a slower one is disconnected.
pub const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// How long a client has to send a body, once its request is authenticated (or, for
/// GitHub, its headers checked).
pub const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// The longest a connection lives, whatever it does (keep-alive included).
pub const CONNECTION_TIME: std::time::Duration = std::time::Duration::from_secs(120);

/// Most bytes of a request's header.
pub const HEADER_MAX: usize = 64 << 10;

/// Serve `app` on `listener` until `stop`: one task per connection, at most
/// [`CONNECTIONS_MAX`] at once, each with a header deadline ([`HEADER_TIMEOUT`]), a header
/// cap ([`HEADER_MAX`]) and a lifetime ([`CONNECTION_TIME`]). (axum's own `serve` has
/// neither a header deadline nor a connection limit.)
async fn serve(listener: tokio::net::TcpListener, app: Router, mut stop: tokio::sync::oneshot::Receiver<()>) {
    let permits = std::sync::Arc::new(tokio::sync::Semaphore::new(CONNECTIONS_MAX));
    loop {
        let permit = tokio::select! {
            p = permits.clone().acquire_owned() => p,
            _ = &mut stop => break,
        };
        let Ok(permit) = permit else { break };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors, say: wait a moment rather than spin.
                    tracing::warn!(e = %cn_compute::Chain(&e), "the senses' HTTP server cannot accept a connection");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_TIMEOUT).max_buf_size(HEADER_MAX);
            let conn = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
            match tokio::time::timeout(CONNECTION_TIME, conn).await {
                Ok(Err(e)) => {
                    tracing::debug!(e = %cn_compute::Chain(&e), "a senses' HTTP connection ended with an error")
                }
                Err(_) => tracing::debug!("a senses' HTTP connection reached its time limit"),
                Ok(Ok(())) => {}
            }
        });
    }
}

/// Why a request's body was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum BodyError {
    #[error("the body is larger than {0} bytes")]
    TooLarge(usize),
    #[error("the body did not arrive within {0:?}")]
    TooSlow(std::time::Duration),
    #[error("the body could not be read")]
    Broken,
}

impl BodyError {
    /// The HTTP answer: 413, 408 or 400 with the reason.
    pub fn answer(self) -> (axum::http::StatusCode, axum::Json<Reply>) {
        let status = match self {
            BodyError::TooLarge(_) => axum::http::StatusCode::PAYLOAD_TOO_LARGE,
            BodyError::TooSlow(_) => axum::http::StatusCode::REQUEST_TIMEOUT,
            BodyError::Broken => axum::http::StatusCode::BAD_REQUEST,
        };
        (status, axum::Json(Reply::Refused { error: self.to_string() }))
    }
}

/// A request's body, read only now (after its request was authenticated), at most `cap`
/// bytes (a declared `Content-Length` over it is refused before reading anything) and
/// within [`BODY_TIMEOUT`].
pub async fn read_body(
    headers: &axum::http::HeaderMap,
    body: axum::body::Body,
    cap: usize,
) -> Result<axum::body::Bytes, BodyError> {
    let declared = headers.get(axum::http::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > cap as u64) {
        return Err(BodyError::TooLarge(cap));
    }
    match tokio::time::timeout(BODY_TIMEOUT, axum::body::to_bytes(body, cap)).await {
        Err(_) => Err(BodyError::TooSlow(BODY_TIMEOUT)),
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => {
            let too_large = std::error::Error::source(&e).is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
            Err(if too_large { BodyError::TooLarge(cap) } else { BodyError::Broken })
        }
    }
}

/// Where a message on a chat platform (Discord, Telegram) was posted and who posted it: the
/// head of its percept's `data`, under the names those senses always wrote.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Post {
    /// The channel's (Discord) or chat's (Telegram) id.
    pub channel_id: String,
    pub message_id: String,
    /// Who wrote it, when the platform names them: a forward's original author (Discord
    /// names none), never who forwarded it; `None` for an inline bot's message.
    pub author_id: Option<String>,
    /// Who sent it (a forward's: who forwarded it).
    pub author: String,
}

/// The first non-empty line of `text`, trimmed, cut to `max` characters (for summaries).
pub(crate) fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Cut `text` into messages of at most `max` characters, at a line break or else a space in
/// the second half of each piece when there is one. Pieces of only whitespace are dropped.
pub fn split(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut out = Vec::new();
    let mut rest = text.trim_end();
    while !rest.is_empty() {
        let Some((limit, _)) = rest.char_indices().nth(max) else {
            out.push(rest.to_string());
            break;
        };
        let window = &rest[..limit];
        let late = |i: &usize| *i >= limit / 2 && *i > 0;
        let (head, tail) =
            match window.rfind('\n').filter(late).or_else(|| window.rfind(char::is_whitespace).filter(late)) {
                Some(cut) => {
                    let (head, tail) = rest.split_at(cut);
                    // Drop the separator itself.
                    let sep = tail.chars().next().map_or(0, char::len_utf8);
                    (head, &tail[sep..])
                }
                None => rest.split_at(limit),
            };
        let head = head.trim_end();
        if !head.trim().is_empty() {
            out.push(head.to_string());
        }
        rest = tail;
    }
    out
}

/// Run `fut` on the senses' runtime and wait for it on this (synchronous) thread: how the
/// daemon's synchronous kernel answers on a channel. Refused (rather than deadlocking) from
/// async code.
pub(crate) fn block_on<T: Send + 'static>(
    runtime: &tokio::runtime::Handle,
    fut: impl std::future::Future<Output = T> + Send + 'static,
) -> Result<T, SenseError> {
    if tokio::runtime::Handle::try_current().is_ok() {
        return Err(SenseError::FromAsync);
    }
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime.spawn(async move {
        let _ = tx.send(fut.await);
    });
    rx.recv().map_err(|_| SenseError::Stopped)
}

/// What a sense gets when it starts.
pub struct SenseContext<'a> {
    /// The open hub (relative paths in cn.yaml are relative to its root).
    pub hub: &'a cn_hub::Hub,
    /// The senses' runtime: spawn tasks on it; they end when [`Senses`] is dropped.
    pub runtime: &'a tokio::runtime::Runtime,
    /// Where percepts go.
    pub attention: Attention,
    /// Routes for the senses' one HTTP server (bound to `senses.bind` once every sense has
    /// started, only when some sense mounted a route).
    routes: Option<Router>,
}

impl SenseContext<'_> {
    /// Serve `router`'s routes on the senses' HTTP server.
    pub fn mount(&mut self, router: Router) {
        self.routes = Some(match self.routes.take() {
            Some(app) => app.merge(router),
            None => router,
        });
    }
}

/// A started sense: what keeps it running (dropped when the senses stop), and the channel to
/// answer on when it has one.
#[derive(Default)]
pub struct Running {
    guard: Option<Box<dyn Any + Send>>,
    channels: Channels,
}

impl Running {
    /// Nothing to keep: the sense runs as tasks on the senses' runtime.
    pub fn tasks() -> Self {
        Running::default()
    }

    /// Keep `guard` alive while the senses run (a watcher, a client handle). A guard of a
    /// cloneable type can be read back with [`Senses::get`].
    pub fn keep(guard: impl Any + Send) -> Self {
        Running { guard: Some(Box::new(guard)), channels: Channels::default() }
    }

    /// The place this sense answers on (its slot in `channels`).
    pub(crate) fn with_channels(mut self, channels: Channels) -> Self {
        self.channels = channels;
        self
    }
}

/// A source of percepts outside the agent.
pub trait Sense: Send {
    /// Its name in logs and errors (`discord`, `github`, …).
    fn name(&self) -> &str;
    /// Start sensing: spawn on `ctx.runtime`, admit to `ctx.attention`, mount routes.
    fn start(self: Box<Self>, ctx: &mut SenseContext<'_>) -> Result<Running, SenseError>;
}

/// The senses `config` enables, in start order. Secrets are read from the environment here,
/// so a missing one is reported before anything starts.
pub fn configured(hub: &cn_hub::Hub, config: &SensesConfig) -> Result<Vec<Box<dyn Sense>>, SenseError> {
    // What `cn config check` says of the address is what `cn run` does with it.
    check_bind(config)?;
    let mut senses: Vec<Box<dyn Sense>> = Vec::new();
    if let Some(owner) = owner::OwnerSense::configured(hub, &config.owner)? {
        senses.push(Box::new(owner));
    }
    if let Some(github) = config.github.as_ref().map(github::GithubSense::configured).transpose()? {
        senses.push(Box::new(github));
    }
    for cal in &config.calendar {
        senses.push(Box::new(calendar::CalendarSense::configured(cal, hub)));
    }
    if let Some(discord) = config.discord.as_ref().map(discord::DiscordSense::configured).transpose()? {
        senses.push(Box::new(discord));
    }
    if let Some(telegram) = config.telegram.as_ref().map(telegram::TelegramSense::configured).transpose()? {
        senses.push(Box::new(telegram));
    }
    #[cfg(feature = "email")]
    if let Some(email) = config.email.as_ref().map(email::EmailSense::configured).transpose()? {
        senses.push(Box::new(email));
    }
    #[cfg(not(feature = "email"))]
    if config.email.is_some() {
        return Err(SenseError::Start {
            sense: "email",
            message: "senses.email is set, but this cn was built without the email sense \
                      (the default build has it: `cargo build --release -p cn`)"
                .into(),
        });
    }
    // Peer mail runs while the hub has peers (a peer added later restarts the senses: the
    // daemon follows `state/peers.json` as it follows cn.yaml). An unreadable peers file
    // starts it, so its sync reports the error.
    if config.peers.enabled && hub.peers().map_or(true, |p| !p.is_empty()) {
        senses.push(Box::new(peers::PeersSense { every: config.peers.every }));
    }
    if let Some(f) = config.files.as_ref().filter(|f| !f.paths.is_empty()) {
        senses.push(Box::new(files::FilesSense::configured(f)));
    }
    Ok(senses)
}

/// `senses.bind` is loopback, or the owner said `senses.allow_remote: true`.
fn check_bind(config: &SensesConfig) -> Result<(), SenseError> {
    if !config.bind.ip().is_loopback() && !config.allow_remote {
        return Err(SenseError::Remote { addr: config.bind });
    }
    Ok(())
}

/// Install ring as rustls' process-wide crypto provider (the binary's one TLS backend;
/// twilight and the MCP client build their TLS configs from it). Installing twice is harmless.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The running senses. Dropping it stops them.
pub struct Senses {
    runtime: Option<tokio::runtime::Runtime>,
    addr: Option<SocketAddr>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    running: Vec<Running>,
}

impl Senses {
    /// Start every sense `config` enables, admitting percepts to `attention`.
    pub fn start(hub: &cn_hub::Hub, config: &SensesConfig, attention: Attention) -> Result<Senses, SenseError> {
        Senses::start_all(hub, config, configured(hub, config)?, attention)
    }

    /// Start `senses` (from [`configured`], and any the caller adds), admitting percepts to
    /// `attention`; the HTTP server listens on `config.bind` when a sense mounted a route.
    pub fn start_all(
        hub: &cn_hub::Hub,
        config: &SensesConfig,
        senses: Vec<Box<dyn Sense>>,
        attention: Attention,
    ) -> Result<Senses, SenseError> {
        install_tls_provider();
        check_bind(config)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("cn-senses")
            .enable_all()
            .build()
            .map_err(|source| SenseError::Runtime { source })?;
        let mut ctx = SenseContext { hub, runtime: &runtime, attention, routes: None };
        let mut running = Vec::with_capacity(senses.len());
        for sense in senses {
            let name = sense.name().to_string();
            running.push(sense.start(&mut ctx)?);
            tracing::debug!(sense = %name, "sense started");
        }

        let mut addr = None;
        let mut shutdown = None;
        if let Some(app) = ctx.routes.take() {
            let listener = runtime
                .block_on(tokio::net::TcpListener::bind(config.bind))
                .map_err(|source| SenseError::Bind { addr: config.bind, source })?;
            addr = listener.local_addr().ok();
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            shutdown = Some(tx);
            runtime.spawn(serve(listener, app, rx));
            tracing::info!(?addr, "senses listening");
        }

        Ok(Senses { runtime: Some(runtime), addr, shutdown, running })
    }

    /// The HTTP server's address (useful with port 0).
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.addr
    }

    /// The channels the senses answer on (Discord's, when `senses.discord` is on); taken
    /// once, by the daemon's mind.
    pub fn take_channels(&mut self) -> Channels {
        self.running.iter_mut().fold(Channels::default(), |all, r| all.or(std::mem::take(&mut r.channels)))
    }

    /// A guard a sense keeps, by type (a cloneable handle such as [`discord::DiscordHandle`]).
    pub fn get<T: Any + Clone>(&self) -> Option<T> {
        self.running.iter().find_map(|r| r.guard.as_ref()?.downcast_ref::<T>().cloned())
    }

    /// The way to answer on Discord and show the typing indicator, when `senses.discord` is
    /// on.
    pub fn discord(&self) -> Option<discord::DiscordHandle> {
        self.get()
    }

    /// Stop every sense: the server finishes the requests in flight.
    pub fn stop(mut self) {
        self.shutdown_now();
    }

    fn shutdown_now(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_timeout(std::time::Duration::from_secs(5));
        }
    }
}

impl Drop for Senses {
    fn drop(&mut self) {
        self.shutdown_now();
    }
}
