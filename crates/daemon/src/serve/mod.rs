//! The control room: `cn serve`, a web page to watch and steer the agent (issue 20).
//!
//! One axum server on its own thread and tokio runtime, serving a page whose assets are
//! embedded in the binary (`assets/`: HTML, CSS and vanilla JS; no build step, no CDN) and a
//! JSON API over the hub's files ([`data`]): Now, Journal (live over server-sent events),
//! Thought and money, Reflexes, Approvals, Peers, Loops, and Chat as the owner. It runs alone
//! on a hub's files (`cn serve`) or inside the daemon when `cn.yaml` has `serve:`; inside,
//! the Now view reads the live attention pool and chat admits the owner's message to it as
//! the owner endpoint does.
//!
//! Invariants (the owner only; see SECURITY.md):
//! - Every request carries the hub's owner token — `Authorization: Bearer`, or the cookie the
//!   page load sets — compared in constant time, or gets 401 and nothing else. The token is
//!   taken from the query only on `GET /?token=…`, which sets an `HttpOnly; SameSite=Strict`
//!   cookie and redirects to `/` so the token leaves the address bar and history.
//! - Every response says `Referrer-Policy: no-referrer` and a CSP without inline script
//!   (`script-src 'self'`), `X-Frame-Options: DENY`, `nosniff`.
//! - `Host` must be a loopback name or an IP address (DNS rebinding); every mutating request
//!   is a `POST` with `Content-Type: application/json` whose `Origin`, when the token came
//!   by cookie, must be present and the page's own.
//! - The server binds loopback unless `allow_remote` is set ([`ServeError::Remote`]).

pub mod data;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use cn_autonomy::senses::owner::Message;
use cn_autonomy::senses::Reply;
use cn_autonomy::Attention;
use cn_hub::config::ServeConfig;
use cn_hub::Hub;
use serde_json::{json, Value};
use subtle::ConstantTimeEq;
use tokio::sync::watch;

/// The page's assets, embedded in the binary.
const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");

/// The CSP of every response: scripts and styles from the page's origin only, no inline
/// script, no framing, requests only back to the server.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; \
                       base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Most bytes of journal one live update sends.
const EVENT_BATCH_BYTES: usize = 1 << 20;

/// Why the control room cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("serve: `{bind}` is not an address to listen on (write IP:PORT, e.g. 127.0.0.1:8787; port 0 picks one)")]
    Address { bind: String },
    #[error(
        "serve: {addr} is not a loopback address; the page is plain HTTP, so the owner token would cross the \
         network in clear. Bind 127.0.0.1 or [::1] (and tunnel, e.g. ssh -L), or pass --allow-remote \
         (`serve.allow_remote: true`) if you mean it"
    )]
    Remote { addr: SocketAddr },
    #[error("serve: cannot listen on {addr}")]
    Bind { addr: SocketAddr, source: std::io::Error },
    #[error("serve: the owner token")]
    Token(#[from] cn_hub::owner_token::TokenError),
    #[error("serve: cannot start its thread: {0}")]
    Thread(std::io::Error),
}

/// A running control room; it stops when dropped.
pub struct Server {
    addr: SocketAddr,
    token: String,
    shutdown: watch::Sender<bool>,
    app: Shared,
    /// Told when the server's thread has ended (its listener closed).
    ended: std::sync::mpsc::Receiver<()>,
}

/// The address `config` binds, if the control room may listen there (loopback, unless
/// `allow_remote`): what [`Server::start`] checks first, and `cn run` before it starts.
pub fn check(config: &ServeConfig) -> Result<SocketAddr, ServeError> {
    let addr: SocketAddr = config.bind.parse().map_err(|_| ServeError::Address { bind: config.bind.clone() })?;
    if !addr.ip().is_loopback() && !config.allow_remote {
        return Err(ServeError::Remote { addr });
    }
    Ok(addr)
}

impl Server {
    /// Bind `config.bind` and serve `hub` on a thread of its own. `attention`: the daemon's
    /// live pool (inside the daemon), else `None` (alone on the hub's files).
    pub fn start(hub: Hub, config: &ServeConfig, attention: Option<Attention>) -> Result<Server, ServeError> {
        let addr = check(config)?;
        let token = cn_hub::owner_token::load_or_create(hub.layout(), &hub.config().senses.owner)?;
        let listener = std::net::TcpListener::bind(addr).map_err(|source| ServeError::Bind { addr, source })?;
        let addr = listener.local_addr().map_err(|source| ServeError::Bind { addr, source })?;
        listener.set_nonblocking(true).map_err(|source| ServeError::Bind { addr, source })?;
        let (shutdown, stopped) = watch::channel(false);
        let (bump, journal) = watch::channel(0u64);
        let app = Arc::new(App {
            hub: std::sync::RwLock::new(hub),
            token: token.clone(),
            cookie: format!("cn_owner_{}", addr.port()),
            attention,
            journal,
            shutdown: stopped.clone(),
        });
        let served = app.clone();
        let (end, ended) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("cn-serve".into())
            .spawn(move || {
                serve(listener, served, bump, stopped);
                let _ = end.send(());
            })
            .map_err(ServeError::Thread)?;
        Ok(Server { addr, token, shutdown, app, ended })
    }

    /// Serve the hub as the daemon runs it from now on (cn.yaml changed; the address, the
    /// owner token and every open page stay).
    pub fn set_hub(&self, hub: Hub) {
        *self.app.hub.write().unwrap_or_else(|p| p.into_inner()) = hub;
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The address to open, with the owner token (what `cn serve` prints first).
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token)
    }

    /// The address without the token.
    pub fn base_url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

impl Drop for Server {
    /// Stop, and wait (a few seconds at most) until the address is free again: a daemon
    /// whose `serve:` changed binds the new one next.
    fn drop(&mut self) {
        self.shutdown.send_replace(true);
        let _ = self.ended.recv_timeout(Duration::from_secs(5));
    }
}

/// The server's thread: a tokio runtime, the journal watcher, axum until shutdown.
fn serve(listener: std::net::TcpListener, app: Shared, bump: watch::Sender<u64>, mut stopped: watch::Receiver<bool>) {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => return tracing::error!(e = %cn_compute::Chain(&e), "control room: cannot start its runtime"),
    };
    runtime.block_on(async move {
        // Kept alive for the server's life: a change to state/ wakes the live journal.
        let _watcher = watch_journal(&app.hub(), bump);
        let listener = match tokio::net::TcpListener::from_std(listener) {
            Ok(l) => l,
            Err(e) => return tracing::error!(e = %cn_compute::Chain(&e), "control room: cannot listen"),
        };
        let router = router(app);
        let stop = async move {
            let _ = stopped.wait_for(|s| *s).await;
        };
        if let Err(e) = axum::serve(listener, router).with_graceful_shutdown(stop).await {
            tracing::error!(e = %cn_compute::Chain(&e), "control room: the server stopped");
        }
    });
}

/// Watch `state/` (the journal is appended there) and bump `bump` on every change. Without
/// a watcher (the system refuses one) the live view falls back to a look every second.
fn watch_journal(hub: &Hub, bump: watch::Sender<u64>) -> Option<notify::RecommendedWatcher> {
    use notify::Watcher;
    let journal = cn_hub::journal::HubJournal::path_in(&hub.layout().state());
    let name = journal.file_name().map(|n| n.to_os_string());
    let tick = bump.clone();
    let handler = move |res: notify::Result<notify::Event>| {
        if let Ok(ev) = res {
            if ev.paths.iter().any(|p| p.file_name().map(|n| n.to_os_string()) == name) {
                bump.send_modify(|g| *g += 1);
            }
        }
    };
    let watched = notify::recommended_watcher(handler)
        .and_then(|mut w| w.watch(&hub.layout().state(), notify::RecursiveMode::NonRecursive).map(|()| w));
    match watched {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!(e = %cn_compute::Chain(&e), "control room: no file watcher; the live journal looks every second");
            tokio::spawn(async move {
                let mut every = tokio::time::interval(Duration::from_secs(1));
                loop {
                    every.tick().await;
                    if tick.is_closed() {
                        break;
                    }
                    tick.send_modify(|g| *g += 1);
                }
            });
            None
        }
    }
}

/// What every handler shares.
struct App {
    /// The hub as the daemon runs it now (a changed cn.yaml swaps it: [`Server::set_hub`]).
    hub: std::sync::RwLock<Hub>,
    token: String,
    /// The cookie's name carries the port: cookies are not kept apart by port, and two hubs
    /// served on one machine must not overwrite each other's.
    cookie: String,
    attention: Option<Attention>,
    /// Bumped when the journal may have grown.
    journal: watch::Receiver<u64>,
    shutdown: watch::Receiver<bool>,
}

type Shared = Arc<App>;

impl App {
    fn hub(&self) -> Hub {
        self.hub.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

fn router(app: Shared) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }))
        .route("/app.css", get(|| async { asset("text/css; charset=utf-8", APP_CSS) }))
        .route("/boot/now.js", get(boot_now))
        .route("/boot/journal.js", get(boot_journal))
        .route("/api/now", get(now))
        .route("/api/journal", get(journal))
        .route("/api/events", get(events))
        .route("/api/why/{id}", get(why))
        .route("/api/money", get(money))
        .route("/api/reflexes", get(reflexes))
        .route("/api/reflexes/{name}/{switch}", post(reflex_switch))
        .route("/api/approvals", get(approvals))
        .route("/api/approvals/{id}/{verdict}", post(approval_verdict))
        .route("/api/peers", get(peers))
        .route("/api/loops", get(loops))
        .route("/api/chat", post(chat))
        .route("/api/chat/history", get(chat_history))
        .route("/api/answer/{id}", get(answer))
        .layer(axum::middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Headers every response carries.
fn harden(headers: &mut HeaderMap) {
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    headers.insert("content-security-policy", HeaderValue::from_static(CSP));
    headers.insert("x-frame-options", HeaderValue::from_static("DENY"));
    headers.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    headers.insert("cross-origin-resource-policy", HeaderValue::from_static("same-origin"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}

fn refuse(status: StatusCode, why: &str) -> Response {
    let mut r = (status, Json(json!({"error": why}))).into_response();
    harden(r.headers_mut());
    r
}

/// A query parameter's value, percent-decoded.
fn query(uri: &Uri, key: &str) -> Option<String> {
    url::form_urlencoded::parse(uri.query()?.as_bytes()).find(|(k, _)| k == key).map(|(_, v)| v.into_owned())
}

/// How a request proved it is the owner's.
#[derive(PartialEq)]
enum Proof {
    Bearer,
    Cookie,
    Query,
}

/// The owner's check before every route (see the module's invariants).
async fn guard(State(app): State<Shared>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let text = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let host = text(header::HOST).unwrap_or("").to_string();
    if !cn_autonomy::senses::owner::local_host(&host) {
        return refuse(StatusCode::FORBIDDEN, "the Host header must be an IP address or localhost");
    }
    let matches = |given: &str| bool::from(given.as_bytes().ct_eq(app.token.as_bytes()));
    let bearer = text(header::AUTHORIZATION).and_then(|v| v.strip_prefix("Bearer "));
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == app.cookie)
        .map(|(_, v)| v.to_string());
    let from_query =
        (req.uri().path() == "/" && req.method() == Method::GET).then(|| query(req.uri(), "token")).flatten();
    // The query first: opening the printed address again always drops the token from it.
    let proof = if from_query.as_deref().is_some_and(matches) {
        Proof::Query
    } else if bearer.is_some_and(matches) {
        Proof::Bearer
    } else if cookie.as_deref().is_some_and(matches) {
        Proof::Cookie
    } else {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "the owner token is missing or wrong: open the address `cn serve` printed (it carries the token)",
        );
    };
    if req.method() != Method::GET && req.method() != Method::HEAD {
        if req.method() != Method::POST {
            return refuse(StatusCode::METHOD_NOT_ALLOWED, "only GET and POST");
        }
        let origin = text(header::ORIGIN);
        let own = format!("http://{host}");
        match origin {
            Some(o) if o != own => return refuse(StatusCode::FORBIDDEN, "cross-origin requests are refused"),
            None if proof == Proof::Cookie => {
                return refuse(StatusCode::FORBIDDEN, "a request with the page's cookie must say its Origin")
            }
            _ => {}
        }
        let json_body = text(header::CONTENT_TYPE)
            .and_then(|ct| ct.split(';').next())
            .is_some_and(|ct| ct.trim().eq_ignore_ascii_case("application/json"));
        if !json_body {
            return refuse(StatusCode::UNSUPPORTED_MEDIA_TYPE, "send JSON with Content-Type: application/json");
        }
    }
    if proof == Proof::Query {
        // The token leaves the address bar: a cookie only this origin's scripts cannot read.
        let mut r = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
        let cookie = format!("{}={}; Path=/; HttpOnly; SameSite=Strict", app.cookie, app.token);
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            r.headers_mut().insert(header::SET_COOKIE, v);
        }
        harden(r.headers_mut());
        return r;
    }
    let mut r = next.run(req).await;
    harden(r.headers_mut());
    r
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX_HTML)
}

/// The page's first data, as scripts of its own: `/boot/now.js` (the Now view, before the
/// page's script) and `/boot/journal.js` (the timeline, after it). Deferred scripts run before
/// the page's `load` event, so the page shows its data the moment it has loaded — a fresh
/// headless profile captured the page before its fetches came back, 3 loads in 4 — while the
/// page itself still paints at once. Each is a JSON value (data, not code) handed to the
/// page's script; the owner's token guards them like every route, and
/// `Cross-Origin-Resource-Policy: same-origin` keeps other sites from loading them.
async fn boot_now(State(app): State<Shared>) -> Response {
    match blocking(move || data::now(&app.hub(), app.attention.as_ref())).await {
        Ok(v) => asset_owned("text/javascript; charset=utf-8", format!("window.cnBootNow = {v};\n")),
        Err(r) => r,
    }
}

async fn boot_journal(State(app): State<Shared>) -> Response {
    let read = blocking(move || data::journal_tail(&app.hub().layout().state())).await;
    match read {
        Ok(read) => {
            let entries: Vec<Value> = read.entries.into_iter().map(|(_, e)| Value::Object(data::readable(e))).collect();
            let v = json!({"entries": entries, "offset": read.offset});
            asset_owned("text/javascript; charset=utf-8", format!("window.cnBootJournal({v});\n"))
        }
        Err(r) => r,
    }
}

fn asset_owned(kind: &'static str, body: String) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// Run blocking file and git work off the server's thread.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T, Response> {
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        refuse(StatusCode::INTERNAL_SERVER_ERROR, &format!("the request's work failed: {e}", e = cn_compute::Chain(&e)))
    })
}

/// A GET view built from the hub's files.
async fn view(app: Shared, f: fn(&Hub) -> Value) -> Response {
    match blocking(move || f(&app.hub())).await {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

async fn now(State(app): State<Shared>) -> Response {
    match blocking(move || data::now(&app.hub(), app.attention.as_ref())).await {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

async fn chat_history(State(app): State<Shared>) -> Response {
    view(app, data::chat_history).await
}

async fn money(State(app): State<Shared>) -> Response {
    view(app, data::money).await
}

async fn reflexes(State(app): State<Shared>) -> Response {
    view(app, data::reflexes).await
}

async fn approvals(State(app): State<Shared>) -> Response {
    view(app, data::approvals).await
}

async fn peers(State(app): State<Shared>) -> Response {
    view(app, data::peers).await
}

async fn loops(State(app): State<Shared>) -> Response {
    view(app, data::loops).await
}

/// The timeline's first page: the journal's last entries and where live updates continue.
async fn journal(State(app): State<Shared>) -> Response {
    match blocking(move || data::journal_tail(&app.hub().layout().state())).await {
        Ok(read) => {
            let entries: Vec<Value> = read.entries.into_iter().map(|(_, e)| Value::Object(data::readable(e))).collect();
            Json(json!({"entries": entries, "offset": read.offset})).into_response()
        }
        Err(r) => r,
    }
}

/// Where an event id points: `DEV.INO.OFFSET` (the offset just past an entry of the file
/// with that identity, which may since have become a segment), or a bare `OFFSET` in the
/// live file (`?from=`).
fn event_position(id: &str) -> Option<(u64, Option<(u64, u64)>)> {
    let mut parts = id.split('.');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some(offset), None, None, None) => Some((offset.parse().ok()?, None)),
        (Some(dev), Some(ino), Some(offset), None) => {
            Some((offset.parse().ok()?, Some((dev.parse().ok()?, ino.parse().ok()?))))
        }
        _ => None,
    }
}

/// The live journal: every entry appended after `?from=OFFSET` (or the `Last-Event-ID` a
/// reconnecting browser sends), one event each, its id naming the file and the offset just
/// past it — so a browser reconnecting after the journal rotated gets the rest of the old
/// file (now a segment), then the new one, and nothing twice.
async fn events(State(app): State<Shared>, headers: HeaderMap, uri: Uri) -> Response {
    let from = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| query(&uri, "from"))
        .and_then(|v| event_position(&v));
    let path = cn_hub::journal::HubJournal::path_in(&app.hub().layout().state());
    // The file the offset is in, by identity: when the journal rotates, the rest of that file
    // (now a segment) is sent before the new one is read from its start.
    let live = cn_storage::journal::file_id(&path);
    let (from, file) = match from {
        Some((offset, Some(file))) => (offset, Some(file)),
        Some((offset, None)) => (offset, live),
        None => (std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0), live),
    };
    let state = (VecDeque::<Event>::new(), (from, file), app.journal.clone(), app.shutdown.clone(), path);
    let stream = futures_util::stream::unfold(state, |(mut queued, mut at, mut changed, mut stop, path)| async move {
        loop {
            if let Some(ev) = queued.pop_front() {
                return Some((Ok::<_, Infallible>(ev), (queued, at, changed, stop, path)));
            }
            if *stop.borrow() {
                return None;
            }
            changed.borrow_and_update();
            let (offset, file) = at;
            let live = cn_storage::journal::file_id(&path);
            let rotated = file.is_some() && live != file;
            let source = match file.filter(|_| rotated) {
                Some(id) => cn_storage::Journal::segment_of(&path, id),
                None => Some(path.clone()),
            };
            let read = match &source {
                Some(p) => data::journal_from(p, offset, EVENT_BATCH_BYTES),
                None => data::JournalRead { entries: Vec::new(), offset },
            };
            let file = if file.is_none() { live } else { file };
            at = (read.offset, file);
            for (end, entry) in read.entries {
                let data = Value::Object(data::readable(entry)).to_string();
                let id = match file {
                    Some((dev, ino)) => format!("{dev}.{ino}.{end}"),
                    None => end.to_string(),
                };
                queued.push_back(Event::default().event("entry").id(id).data(data));
            }
            if !queued.is_empty() {
                continue;
            }
            if rotated {
                // That segment is read to its end: follow the live file from its start.
                at = (0, live);
                continue;
            }
            tokio::select! {
                r = changed.changed() => if r.is_err() { return None },
                _ = stop.wait_for(|s| *s) => return None,
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))).into_response()
}

async fn why(State(app): State<Shared>, UrlPath(id): UrlPath<String>) -> Response {
    if !data::plain_id(&id) {
        return refuse(StatusCode::BAD_REQUEST, "not an id");
    }
    match blocking(move || data::why(&app.hub(), &id)).await {
        Ok(v) => Json(v).into_response(),
        Err(r) => r,
    }
}

/// `POST /api/approvals/{id}/approve|deny`.
async fn approval_verdict(State(app): State<Shared>, UrlPath((id, verdict)): UrlPath<(String, String)>) -> Response {
    let yes = match verdict.as_str() {
        "approve" => true,
        "deny" => false,
        other => return refuse(StatusCode::NOT_FOUND, &format!("`{other}`: approve or deny")),
    };
    let done = blocking(move || {
        if yes {
            crate::approve::approve(&app.hub(), &id).map(|a| json!({"approved": a}))
        } else {
            crate::approve::deny(&app.hub(), &id).map(|a| json!({"denied": a}))
        }
    })
    .await;
    match done {
        Ok(Ok(v)) => Json(v).into_response(),
        Ok(Err(e)) if e.is_usage() => refuse(StatusCode::CONFLICT, &cn_compute::chain(&e)),
        Ok(Err(e)) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &cn_compute::chain(&e)),
        Err(r) => r,
    }
}

/// `POST /api/reflexes/{name}/enable|disable|approve` (approve: promote a shadow reflex).
async fn reflex_switch(State(app): State<Shared>, UrlPath((name, switch)): UrlPath<(String, String)>) -> Response {
    let on = match switch.as_str() {
        "enable" => true,
        "disable" => false,
        "approve" => {
            let done = blocking(move || {
                let _lock = cn_agent::lock(&app.hub()).map_err(|e| cn_compute::chain(&e))?;
                let mut engine = cn_reflex::Engine::of_hub(&app.hub());
                cn_reflex::learn::approve(&mut engine, &name).map_err(|e| cn_compute::chain(&e))
            })
            .await;
            return match done {
                Ok(Ok(committed)) => Json(json!({"mode": "active", "committed": committed})).into_response(),
                Ok(Err(e)) => refuse(StatusCode::CONFLICT, &e),
                Err(r) => r,
            };
        }
        other => return refuse(StatusCode::NOT_FOUND, &format!("`{other}`: enable, disable or approve")),
    };
    let done = blocking(move || {
        let _lock = cn_agent::lock(&app.hub()).map_err(|e| cn_compute::chain(&e))?;
        cn_reflex::set_enabled(app.hub().root(), &name, on).map_err(|e| cn_compute::chain(&e))
    })
    .await;
    match done {
        Ok(Ok(i)) => Json(json!({"enabled": on, "committed": i.committed})).into_response(),
        Ok(Err(e)) => refuse(StatusCode::CONFLICT, &e),
        Err(r) => r,
    }
}

/// `POST /api/chat {"text"}`: a message from the owner, by the path `cn chat` takes —
/// inside the daemon straight into attention (as the owner endpoint admits it); alone, to the
/// running daemon's owner endpoint, or into the inbox when no daemon runs.
async fn chat(State(app): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let text = match Message::parse(&body) {
        Ok(m) => m.text.trim().to_string(),
        Err(why) => return refuse(StatusCode::BAD_REQUEST, &why),
    };
    if text.is_empty() {
        return refuse(StatusCode::BAD_REQUEST, cn_autonomy::senses::owner::EMPTY);
    }
    // An `Idempotency-Key` (the page sends one with each message, and again with a message
    // sent again): the same key and text are the same item, decided once.
    let key = match headers.get("idempotency-key").map(|v| cn_autonomy::senses::owner::idempotency_key(v.as_bytes())) {
        Some(None) => {
            let max = cn_autonomy::senses::owner::IDEMPOTENCY_KEY_MAX;
            return refuse(
                StatusCode::BAD_REQUEST,
                &format!("Idempotency-Key must be 1 to {max} visible ASCII characters"),
            );
        }
        Some(Some(key)) => Some(key.to_string()),
        None => None,
    };
    if let Some(attention) = &app.attention {
        let mut p = cn_autonomy::senses::owner::percept(&text, None);
        if let Ok(Some(id)) = cn_autonomy::senses::owner::keyed_id(attention, &headers, &text) {
            p.id = id;
        }
        let id = p.id.clone();
        return match attention.admit_durable(p) {
            Ok(_) => match cn_autonomy::senses::replicated(attention).await {
                Ok(()) => (StatusCode::ACCEPTED, Json(json!({"accepted": id, "by": "daemon"}))).into_response(),
                Err(why) => cn_autonomy::senses::not_in_origin("control room", &why).into_response(),
            },
            Err(e) => cn_autonomy::senses::not_recorded("control room", &e).into_response(),
        };
    }
    if let Some(url) = crate::owner_url(app.hub().root()) {
        let (to, token) = (url.clone(), app.token.clone());
        let posted = match blocking(move || post_owner(&to, &token, &text, key.as_deref())).await {
            Ok(posted) => posted,
            Err(r) => return r,
        };
        return match posted {
            Ok(id) => (StatusCode::ACCEPTED, Json(json!({"accepted": id, "by": "daemon"}))).into_response(),
            // The daemon took it but cannot confirm origin keeps it: the page sends it again
            // under its key, as to the daemon itself.
            Err((Some(503), e)) => refuse(StatusCode::SERVICE_UNAVAILABLE, &format!("the daemon at {url}: {e}")),
            Err((_, e)) => refuse(StatusCode::BAD_GATEWAY, &format!("the daemon at {url}: {e}")),
        };
    }
    let queued = blocking(move || {
        let hub = app.hub();
        let Some(key) = &key else {
            return cn_agent::enqueue_new(&hub, cn_agent::OWNER, cn_agent::Cadence::Inbox, &text).map(|item| item.id);
        };
        // Keyed, the item's id is the one the daemon would give it: sent again, it is found,
        // not queued twice.
        let id_key = cn_hub::owner_token::id_key(hub.layout()).map_err(cn_agent::AgentError::from)?;
        let id = cn_hub::id::delivery(&id_key, &cn_autonomy::senses::owner::key_seed(key, &text));
        if cn_agent::locate(&hub, &id)?.is_none() {
            let mut item = cn_agent::Item::new(&id, cn_agent::OWNER, cn_agent::Cadence::Inbox, &text);
            item.set_origin(&cn_hub::Origin::owner(cn_hub::Sense::Chat));
            cn_agent::enqueue(&hub, &item)?;
        }
        Ok(id)
    })
    .await;
    match queued {
        Ok(Ok(id)) => (
            StatusCode::ACCEPTED,
            Json(json!({"accepted": id, "by": "inbox", "note": "no daemon runs: the message waits in the inbox for `cn run`"})),
        )
            .into_response(),
        Ok(Err(e)) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &cn_compute::chain(&e)),
        Err(r) => r,
    }
}

/// Post one owner message to a daemon's endpoint on loopback: one request, no redirect
/// followed, no proxy, 30 s from connecting to the answer's last byte, at most 64 KiB of answer.
/// A failure after connecting may have left the message taken (a resend under its key is then
/// the same message): told as a 503.
fn post_owner(url: &str, token: &str, text: &str, key: Option<&str>) -> Result<String, (Option<u16>, String)> {
    let rest = url.strip_prefix("http://").ok_or((None, "not an http:// address".to_string()))?;
    let (authority, path) = rest.split_once('/').map_or((rest, "/"), |(a, _)| (a, cn_autonomy::senses::OWNER_PATH));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .max_redirects(0)
        .proxy(None)
        .timeout_global(Some(OWNER_POST_TIMEOUT))
        .build()
        .into();
    let mut req = agent
        .post(format!("http://{authority}{path}"))
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json");
    // Checked visible ASCII (`owner::idempotency_key`).
    if let Some(k) = key {
        req = req.header("idempotency-key", k);
    }
    let message = serde_json::to_string(&Message::new(text)).map_err(|e| (None, e.to_string()))?;
    let mut resp = req.send(message).map_err(|e| match e {
        ureq::Error::Timeout(_) => (Some(503), format!("no answer in {}s", OWNER_POST_TIMEOUT.as_secs())),
        // Not connected: nothing was sent.
        ureq::Error::Io(ref io) if io.kind() == std::io::ErrorKind::ConnectionRefused => (None, e.to_string()),
        ureq::Error::HostNotFound | ureq::Error::ConnectionFailed | ureq::Error::BadUri(_) | ureq::Error::Http(_) => {
            (None, e.to_string())
        }
        e => (Some(503), e.to_string()),
    })?;
    let status = resp.status().as_u16();
    let head = format!("{:?} {}", resp.version(), resp.status());
    let body = resp.body_mut().with_config().limit(64 * 1024).read_to_string().unwrap_or_default();
    match Reply::read(&body) {
        Some(Reply::Accepted { accepted }) if status == 202 => Ok(accepted),
        Some(Reply::Refused { error }) => Err((Some(status), error)),
        _ => Err((Some(status), head)),
    }
}

/// How long the control room waits on the daemon's owner endpoint for one message.
const OWNER_POST_TIMEOUT: Duration = Duration::from_secs(30);

/// `GET /api/answer/{id}`: the agent's answer once the item is decided.
async fn answer(State(app): State<Shared>, UrlPath(id): UrlPath<String>) -> Response {
    if !data::plain_id(&id) {
        return refuse(StatusCode::BAD_REQUEST, "not an id");
    }
    match blocking(move || cn_agent::answer_to(&app.hub(), &id)).await {
        Ok(Ok(Some(a))) => Json(json!({"decided": true, "answer": a})).into_response(),
        Ok(Ok(None)) => Json(json!({"decided": false})).into_response(),
        Ok(Err(e)) => refuse(StatusCode::BAD_REQUEST, &cn_compute::chain(&e)),
        Err(r) => r,
    }
}

#[cfg(test)]
mod tests {
    use super::{event_position, post_owner};
    use std::io::{Read, Write};

    /// A one-connection server on loopback answering `answer`; the request it read.
    fn answering(answer: &'static str) -> (String, std::thread::JoinHandle<String>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/owner/message", listener.local_addr().unwrap());
        let served = std::thread::spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            let mut request = Vec::new();
            let mut buf = [0; 4096];
            // The head, then the body its Content-Length announces.
            while !String::from_utf8_lossy(&request).split_once("\r\n\r\n").is_some_and(|(head, body)| {
                head.lines()
                    .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length: ").map(str::to_string))
                    .and_then(|n| n.trim().parse::<usize>().ok())
                    .is_some_and(|n| body.len() >= n)
            }) {
                let n = conn.read(&mut buf).unwrap();
                assert!(n > 0, "the request ended early");
                request.extend_from_slice(&buf[..n]);
            }
            conn.write_all(answer.as_bytes()).unwrap();
            String::from_utf8(request).unwrap()
        });
        (url, served)
    }

    #[test]
    fn the_control_room_posts_an_owner_message_to_the_daemon_and_reads_its_answer() {
        let (url, served) = answering(
            "HTTP/1.1 202 Accepted\r\ncontent-type: application/json\r\ncontent-length: 17\r\nconnection: close\r\n\r\n{\"accepted\":\"i1\"}",
        );
        assert_eq!(post_owner(&url, "tok", "hi \"there\"", Some("k-1")), Ok("i1".to_string()));
        let request = served.join().unwrap();
        let lower = request.to_ascii_lowercase();
        assert!(request.starts_with("POST /owner/message HTTP/1.1\r\n"), "{request}");
        for header in
            ["authorization: bearer tok\r\n", "content-type: application/json\r\n", "idempotency-key: k-1\r\n"]
        {
            assert!(lower.contains(header), "{header:?} in {request}");
        }
        assert!(request.ends_with("\r\n\r\n{\"text\":\"hi \\\"there\\\"\"}"), "{request}");

        // The daemon's refusal is told with its status and reason; without a reason, the
        // status line.
        let (url, _served) = answering(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 22\r\nconnection: close\r\n\r\n{\"error\":\"not origin\"}",
        );
        assert_eq!(post_owner(&url, "tok", "hi", None), Err((Some(503), "not origin".to_string())));
        let (url, _served) = answering(
            "HTTP/1.1 302 Found\r\nlocation: http://example.com/\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
        assert_eq!(post_owner(&url, "tok", "hi", None), Err((Some(302), "HTTP/1.1 302 Found".to_string())));

        // Nothing listening: nothing was sent (no status); not http://, not tried.
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        assert!(matches!(
            post_owner(&format!("http://127.0.0.1:{port}/owner/message"), "t", "hi", None),
            Err((None, _))
        ));
        assert_eq!(
            post_owner("https://127.0.0.1:1/owner/message", "t", "hi", None),
            Err((None, "not an http:// address".to_string()))
        );
    }

    #[test]
    fn an_event_id_is_read_as_a_position_or_not_at_all() {
        assert_eq!(event_position("120"), Some((120, None)));
        assert_eq!(event_position("2049.77.5"), Some((5, Some((2049, 77)))));
        // Whatever a client sends: no panic, no position.
        for bad in ["", "x", "1.2", "1.2.3.4", "-1", "1.2.-3", "99999999999999999999999", "1..2", "\u{0}"] {
            assert_eq!(event_position(bad), None, "{bad:?}");
        }
    }
}
