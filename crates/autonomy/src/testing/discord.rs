//! A fake Discord on loopback: a websocket gateway that speaks the real protocol (HELLO,
//! IDENTIFY, READY, MESSAGE_CREATE dispatches with the real payload shape, heartbeat ACKs)
//! and an axum server standing in for the HTTP API, recording every IDENTIFY, typing trigger
//! and posted message in order. Tests wait on what was recorded, with a deadline
//! ([`super::Recorder::wait`]), never for a fixed time.
//!
//! Point `senses.discord.gateway_url` and `api_base` at it ([`FakeDiscord::sense_yaml`]).

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio_websockets::Message;

use super::Recorder;

/// How long [`Recorder::wait`] waits before it fails the test.
pub const DEADLINE: Duration = Duration::from_secs(20);
/// The bot's own user id (in READY).
pub const BOT_ID: &str = "900";

/// One request the fake Discord received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// `identify` (on the gateway), `typing`, `message`, or `other` (any other route).
    pub what: &'static str,
    /// The channel of a typing trigger or message; 0 otherwise.
    pub channel: u64,
    /// The IDENTIFY payload's `d`, the message's JSON body, or the other route's URI.
    pub body: Value,
    /// The `authorization` header of an HTTP request.
    pub auth: Option<String>,
}

/// Everything the fake received, in order (a [`Recorder`]: `wait`, `all`).
pub struct Log {
    seen: Recorder<Seen>,
    /// Channels where posting a message answers 403 Missing Access.
    denied: Mutex<HashSet<u64>>,
}

impl Default for Log {
    fn default() -> Self {
        Log { seen: Recorder::new(DEADLINE), denied: Mutex::default() }
    }
}

impl std::ops::Deref for Log {
    type Target = Recorder<Seen>;
    fn deref(&self) -> &Recorder<Seen> {
        &self.seen
    }
}

impl Log {
    /// What was received for `channel` (typing triggers and messages), in order.
    pub fn in_channel(&self, channel: u64) -> Vec<Seen> {
        self.all().into_iter().filter(|s| s.channel == channel).collect()
    }
}

/// How many of `seen` are `what` in `channel`.
pub fn count(seen: &[Seen], what: &str, channel: u64) -> usize {
    seen.iter().filter(|s| s.what == what && s.channel == channel).count()
}

/// A fake Discord: the gateway and the HTTP API, on a runtime of their own (dropped with it).
pub struct FakeDiscord {
    _rt: tokio::runtime::Runtime,
    /// The API's base URL (`http://127.0.0.1:PORT`), for `senses.discord.api_base`.
    pub api: String,
    /// The gateway's URL (`ws://127.0.0.1:PORT`), for `senses.discord.gateway_url`.
    pub gateway: String,
    pub log: Arc<Log>,
    dispatches: watch::Sender<Vec<Value>>,
}

impl FakeDiscord {
    /// Every gateway connection gets HELLO; after IDENTIFY, READY and then every message
    /// dispatched so far — `dispatches` (message payloads) first, then those given to
    /// [`FakeDiscord::dispatch`] — as MESSAGE_CREATE events in order, and each later one as
    /// it is dispatched.
    pub fn start(dispatches: Vec<Value>) -> FakeDiscord {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let log = Arc::new(Log::default());
        let (dispatches, _) = watch::channel(dispatches);
        let (api, gateway) = rt.block_on(async {
            let app = axum::Router::new()
                .route("/api/v10/channels/{id}/typing", axum::routing::post(typing))
                .route("/api/v10/channels/{id}/messages", axum::routing::post(message))
                .route("/api/v10/channels/{id}/messages/{mid}/reactions/{emoji}/@me", axum::routing::put(reaction))
                .fallback(other)
                .with_state(log.clone());
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
            let api = format!("http://{}", listener.local_addr().expect("bound"));
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });

            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
            let gateway = format!("ws://{}", listener.local_addr().expect("bound"));
            let (log, url, messages) = (log.clone(), gateway.clone(), dispatches.clone());
            tokio::spawn(async move {
                while let Ok((stream, _)) = listener.accept().await {
                    tokio::spawn(gateway_session(stream, messages.subscribe(), log.clone(), url.clone()));
                }
            });
            (api, gateway)
        });
        FakeDiscord { _rt: rt, api, gateway, log, dispatches }
    }

    /// Send `message` (a MESSAGE_CREATE payload, see [`message_payload`]) to every identified
    /// gateway connection, and to every later one after its READY.
    pub fn dispatch(&self, message: Value) {
        self.dispatches.send_modify(|all| all.push(message));
    }

    /// From now on, posting a message to `channel` answers 403 Missing Access.
    pub fn deny(&self, channel: u64) {
        self.log.denied.lock().unwrap_or_else(PoisonError::into_inner).insert(channel);
    }

    /// The `discord:` block under `senses:` in cn.yaml (indented by two spaces) pointing at
    /// this fake, with the token in `token_env` and a 100 ms typing keep-alive.
    pub fn sense_yaml(&self, token_env: &str) -> String {
        format!(
            "  discord:\n    token_env: {token_env}\n    api_base: {}\n    gateway_url: {}\n    typing_every: 100ms\n",
            self.api, self.gateway
        )
    }

    /// A whole `senses:` section: the owner endpoint off, Discord on this fake, then `extra`
    /// (more keys of `senses.discord`, indented by four spaces).
    pub fn yaml(&self, token_env: &str, extra: &str) -> String {
        format!("senses:\n  owner: {{enabled: false}}\n{}{extra}", self.sense_yaml(token_env))
    }
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string)
}

async fn typing(State(log): State<Arc<Log>>, Path(id): Path<u64>, headers: HeaderMap) -> StatusCode {
    log.push(Seen { what: "typing", channel: id, body: Value::Null, auth: bearer(&headers) });
    StatusCode::NO_CONTENT
}

async fn message(
    State(log): State<Arc<Log>>,
    Path(id): Path<u64>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    if log.denied.lock().unwrap_or_else(PoisonError::into_inner).contains(&id) {
        return (StatusCode::FORBIDDEN, Json(json!({"message": "Missing Access", "code": 50001})));
    }
    log.push(Seen { what: "message", channel: id, body: body.clone(), auth: bearer(&headers) });
    (StatusCode::OK, Json(json!({"id": "1200", "channel_id": id.to_string(), "content": body["content"]})))
}

async fn reaction(
    State(log): State<Arc<Log>>,
    Path((id, mid, emoji)): Path<(u64, u64, String)>,
    headers: HeaderMap,
) -> StatusCode {
    log.push(Seen {
        what: "reaction",
        channel: id,
        body: json!({"message": mid, "emoji": emoji}),
        auth: bearer(&headers),
    });
    StatusCode::NO_CONTENT
}

async fn other(State(log): State<Arc<Log>>, uri: axum::http::Uri) -> StatusCode {
    log.push(Seen { what: "other", channel: 0, body: json!(uri.to_string()), auth: None });
    StatusCode::NOT_FOUND
}

/// One gateway connection, as Discord runs it.
async fn gateway_session(
    stream: tokio::net::TcpStream,
    mut messages: watch::Receiver<Vec<Value>>,
    log: Arc<Log>,
    url: String,
) {
    let Ok((_request, mut ws)) = tokio_websockets::ServerBuilder::new().accept(stream).await else { return };
    let text = |v: Value| Message::text(v.to_string());
    if ws.send(text(json!({"op": 10, "d": {"heartbeat_interval": 41250}, "s": null, "t": null}))).await.is_err() {
        return;
    }
    // After READY: the sequence number of the last event sent, and how many messages were.
    let mut ready: Option<(u64, usize)> = None;
    loop {
        let out = tokio::select! {
            frame = ws.next() => {
                let Some(Ok(frame)) = frame else { return };
                let Some(frame) = frame.as_text() else { continue };
                let Ok(payload) = serde_json::from_str::<Value>(frame) else { return };
                match payload["op"].as_u64() {
                    Some(1) => vec![json!({"op": 11, "d": null, "s": null, "t": null})],
                    Some(2) => {
                        log.push(Seen { what: "identify", channel: 0, body: payload["d"].clone(), auth: None });
                        let ready_event = json!({
                            "v": 10,
                            "user": {"id": BOT_ID, "username": "cn-bot", "discriminator": "0", "avatar": null, "bot": true, "mfa_enabled": false, "verified": true, "flags": 0},
                            "guilds": [{"id": "7", "unavailable": true}],
                            "session_id": "a1b2c3",
                            "resume_gateway_url": url,
                            "shard": [0, 1],
                            "application": {"id": "901", "flags": 0},
                        });
                        ready = Some((1, 0));
                        let mut out = vec![json!({"op": 0, "s": 1, "t": "READY", "d": ready_event})];
                        out.extend(new_messages(&mut messages, &mut ready));
                        out
                    }
                    _ => continue,
                }
            }
            changed = messages.changed(), if ready.is_some() => {
                if changed.is_err() {
                    return;
                }
                new_messages(&mut messages, &mut ready)
            }
        };
        for v in out {
            if ws.send(text(v)).await.is_err() {
                return;
            }
        }
    }
}

/// The MESSAGE_CREATE events for the messages this connection has not been sent yet.
fn new_messages(messages: &mut watch::Receiver<Vec<Value>>, ready: &mut Option<(u64, usize)>) -> Vec<Value> {
    let Some((seq, sent)) = ready.as_mut() else { return Vec::new() };
    let all = messages.borrow_and_update();
    let out = all[*sent..]
        .iter()
        .map(|d| {
            *seq += 1;
            json!({"op": 0, "s": *seq, "t": "MESSAGE_CREATE", "d": d})
        })
        .collect();
    *sent = all.len();
    out
}

/// The author of a message: user id, username, display name, whether a bot.
pub type Author<'a> = (&'a str, &'a str, Option<&'a str>, bool);

/// A MESSAGE_CREATE payload as Discord sends it for a guild text channel.
pub fn message_payload(id: u64, channel: u64, author: Author<'_>, content: &str) -> Value {
    let (author_id, username, global_name, bot) = author;
    json!({
        "id": id.to_string(),
        "channel_id": channel.to_string(),
        "guild_id": "7",
        "author": {"id": author_id, "username": username, "global_name": global_name, "discriminator": "0", "avatar": null, "public_flags": 0, "bot": bot},
        "member": {"roles": [], "joined_at": "2025-01-01T00:00:00.000000+00:00", "deaf": false, "mute": false, "flags": 0, "nick": null, "communication_disabled_until": null},
        "content": content,
        "timestamp": "2026-01-07T10:00:00.000000+00:00",
        "edited_timestamp": null,
        "tts": false,
        "mention_everyone": false,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "pinned": false,
        "type": 0,
        "flags": 0,
        "components": [],
        "nonce": "1199",
    })
}
