//! The Discord sense against a fake Discord on loopback: a websocket gateway that speaks the
//! real protocol (HELLO, IDENTIFY, READY, MESSAGE_CREATE dispatches with the real payload
//! shape, heartbeat ACKs) and an axum server standing in for the HTTP API, recording every
//! typing trigger and posted message. Waits are on recorded events with a deadline.
#![cfg(feature = "senses")]

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use futures_util::{SinkExt as _, StreamExt as _};
use serde_json::{json, Value};
use tokio_websockets::Message;

use cn_autonomy::attention::{Attention, PoolConfig};
use cn_autonomy::config::AutonomyConfig;
use cn_autonomy::senses::discord::{channel_of, DiscordHandle};
use cn_autonomy::{Item, Senses};

mod common;
use common::wait_until;

const DEADLINE: Duration = Duration::from_secs(20);
/// The bot's own user id (in READY).
const BOT_ID: &str = "900";

/// One request the fake Discord received.
#[derive(Debug, Clone)]
struct Seen {
    /// `identify`, `typing`, `message` or `other`.
    what: &'static str,
    channel: u64,
    body: Value,
    auth: Option<String>,
}

#[derive(Default)]
struct Log {
    seen: Mutex<Vec<Seen>>,
    changed: Condvar,
}

impl Log {
    fn push(&self, s: Seen) {
        self.seen.lock().unwrap().push(s);
        self.changed.notify_all();
    }

    /// Wait (bounded) until `cond` holds for what was received; return it.
    fn wait(&self, what: &str, cond: impl Fn(&[Seen]) -> bool) -> Vec<Seen> {
        let deadline = Instant::now() + DEADLINE;
        let mut seen = self.seen.lock().unwrap();
        while !cond(&seen) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "timed out waiting for {what}; received: {:?}", *seen);
            seen = self.changed.wait_timeout(seen, left).unwrap().0;
        }
        seen.clone()
    }

    fn in_channel(&self, channel: u64) -> Vec<Seen> {
        self.seen.lock().unwrap().iter().filter(|s| s.channel == channel).cloned().collect()
    }
}

fn count(seen: &[Seen], what: &str, channel: u64) -> usize {
    seen.iter().filter(|s| s.what == what && s.channel == channel).count()
}

/// A fake Discord: the gateway and the HTTP API, on a runtime of their own.
struct FakeDiscord {
    _rt: tokio::runtime::Runtime,
    api: String,
    gateway: String,
    log: Arc<Log>,
}

impl FakeDiscord {
    /// Every connection gets HELLO; after IDENTIFY, READY and then `dispatches` (message
    /// payloads) as MESSAGE_CREATE events, in order.
    fn start(dispatches: Vec<Value>) -> FakeDiscord {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
        let log = Arc::new(Log::default());
        let (api, gateway) = rt.block_on(async {
            let app = axum::Router::new()
                .route("/api/v10/channels/{id}/typing", axum::routing::post(typing))
                .route("/api/v10/channels/{id}/messages", axum::routing::post(message))
                .fallback(other)
                .with_state(log.clone());
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let api = format!("http://{}", listener.local_addr().unwrap());
            tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let gateway = format!("ws://{}", listener.local_addr().unwrap());
            let (log, url) = (log.clone(), gateway.clone());
            tokio::spawn(async move {
                while let Ok((stream, _)) = listener.accept().await {
                    tokio::spawn(gateway_session(stream, dispatches.clone(), log.clone(), url.clone()));
                }
            });
            (api, gateway)
        });
        FakeDiscord { _rt: rt, api, gateway, log }
    }

    fn yaml(&self, token_env: &str, extra: &str) -> String {
        format!(
            "senses:\n  owner: {{enabled: false}}\n  discord:\n    token_env: {token_env}\n    api_base: {}\n    gateway_url: {}\n    typing_every: 100ms\n{extra}",
            self.api, self.gateway
        )
    }
}

fn bearer(headers: &HeaderMap) -> Option<String> {
    headers.get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string)
}

async fn typing(State(log): State<Arc<Log>>, Path(id): Path<u64>, headers: HeaderMap) -> StatusCode {
    log.push(Seen { what: "typing", channel: id, body: Value::Null, auth: bearer(&headers) });
    StatusCode::NO_CONTENT
}

async fn message(State(log): State<Arc<Log>>, Path(id): Path<u64>, headers: HeaderMap, Json(body): Json<Value>) -> (StatusCode, Json<Value>) {
    if id == 13 {
        return (StatusCode::FORBIDDEN, Json(json!({"message": "Missing Access", "code": 50001})));
    }
    log.push(Seen { what: "message", channel: id, body: body.clone(), auth: bearer(&headers) });
    (StatusCode::OK, Json(json!({"id": "1200", "channel_id": id.to_string(), "content": body["content"]})))
}

async fn other(State(log): State<Arc<Log>>, uri: axum::http::Uri) -> StatusCode {
    log.push(Seen { what: "other", channel: 0, body: json!(uri.to_string()), auth: None });
    StatusCode::NOT_FOUND
}

/// One gateway connection, as Discord runs it.
async fn gateway_session(stream: tokio::net::TcpStream, dispatches: Vec<Value>, log: Arc<Log>, url: String) {
    let Ok((_request, mut ws)) = tokio_websockets::ServerBuilder::new().accept(stream).await else { return };
    let send = |v: Value| Message::text(v.to_string());
    if ws.send(send(json!({"op": 10, "d": {"heartbeat_interval": 41250}, "s": null, "t": null}))).await.is_err() {
        return;
    }
    while let Some(Ok(frame)) = ws.next().await {
        let Some(text) = frame.as_text() else { continue };
        let payload: Value = serde_json::from_str(text).unwrap();
        match payload["op"].as_u64() {
            Some(1) => {
                let _ = ws.send(send(json!({"op": 11, "d": null, "s": null, "t": null}))).await;
            }
            Some(2) => {
                log.push(Seen { what: "identify", channel: 0, body: payload["d"].clone(), auth: None });
                let ready = json!({
                    "v": 10,
                    "user": {"id": BOT_ID, "username": "cn-bot", "discriminator": "0", "avatar": null, "bot": true, "mfa_enabled": false, "verified": true, "flags": 0},
                    "guilds": [{"id": "7", "unavailable": true}],
                    "session_id": "a1b2c3",
                    "resume_gateway_url": url,
                    "shard": [0, 1],
                    "application": {"id": "901", "flags": 0},
                });
                let mut out = vec![json!({"op": 0, "s": 1, "t": "READY", "d": ready})];
                for (i, d) in dispatches.iter().enumerate() {
                    out.push(json!({"op": 0, "s": i + 2, "t": "MESSAGE_CREATE", "d": d}));
                }
                for v in out {
                    if ws.send(send(v)).await.is_err() {
                        return;
                    }
                }
            }
            _ => {}
        }
    }
}

/// A MESSAGE_CREATE payload as Discord sends it for a guild text channel.
fn message_payload(id: u64, channel: u64, author: (&str, &str, Option<&str>, bool), content: &str) -> Value {
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

/// Wait (bounded) until `handle` has no typing keep-alive left in `channel`.
fn wait_not_typing(handle: &DiscordHandle, channel: u64) {
    let deadline = Instant::now() + DEADLINE;
    while handle.is_typing(channel) {
        assert!(Instant::now() < deadline, "the typing keep-alive in {channel} did not end");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn start(fake: &FakeDiscord, token_env: &str, token: &str, extra: &str) -> (Senses, Attention) {
    std::env::set_var(token_env, token);
    let hub = tempfile::tempdir().unwrap();
    let config = AutonomyConfig::from_yaml(&fake.yaml(token_env, extra)).unwrap();
    let attention = Attention::new(PoolConfig::default());
    let senses = Senses::start(hub.path(), &config.senses, attention.clone()).unwrap();
    (senses, attention)
}

#[test]
fn messages_become_percepts_the_owner_by_id_and_bots_are_ignored() {
    let grace = ("42", "grace", Some("Grace"), false);
    let ada = ("100", "ada", None, false);
    let fake = FakeDiscord::start(vec![
        message_payload(1001, 10, (BOT_ID, "cn-bot", None, true), "my own earlier answer"),
        message_payload(1002, 10, ("901", "other-bot", None, true), "beep"),
        message_payload(1003, 99, ada, "in a channel not on the list"),
        message_payload(1004, 10, grace, "Can you look at the build?\nIt fails on main."),
        // Last: once it is in the pool, everything before it has been handled.
        message_payload(1005, 11, ada, "thanks!"),
    ]);
    let (senses, attention) = start(&fake, "CN_TEST_DISCORD_TOKEN_A", "token-a", "    channels: [10, \"11\"]\n    owners: [\"42\"]\n");
    wait_until(&attention, "ada's message", |a| a.with_pool(|p| p.iter().any(|x| x.item.summary() == "ada: thanks!")));
    let got: Vec<_> = std::iter::from_fn(|| attention.decide(cn_autonomy::jiff::Timestamp::now())).collect();
    let summaries: Vec<&str> = got.iter().map(|c| c.item.summary()).collect();
    assert_eq!(summaries, ["Grace: Can you look at the build?", "ada: thanks!"], "the owner first; bots and other channels not sensed");

    let Item::Percept(owner) = &got[0].item else { panic!("not a percept") };
    assert!(owner.owner, "user 42 is in senses.discord.owners");
    assert_eq!(owner.sense, cn_autonomy::Sense::Discord);
    assert_eq!(owner.key.as_deref(), Some("discord:10/1004"));
    assert_eq!(
        owner.data,
        json!({"channel_id": "10", "message_id": "1004", "author_id": "42", "author": "Grace", "guild_id": "7", "content": "Can you look at the build?\nIt fails on main."})
    );
    assert_eq!(channel_of(owner), Some(10));
    let Item::Percept(other) = &got[1].item else { panic!("not a percept") };
    assert!(!other.owner);
    assert_eq!((other.data["author"].as_str(), other.data["channel_id"].as_str()), (Some("ada"), Some("11")));

    let identify = fake.log.wait("IDENTIFY", |s| s.iter().any(|x| x.what == "identify"));
    let d = &identify.iter().find(|x| x.what == "identify").unwrap().body;
    assert_eq!(d["token"], "Bot token-a");
    let intents = d["intents"].as_u64().unwrap();
    assert_eq!(intents & (1 << 9 | 1 << 12 | 1 << 15), 1 << 9 | 1 << 12 | 1 << 15, "guild messages, DMs and message content");
    assert!(!format!("{got:?}").contains("token-a"), "the token never reaches a percept");
    senses.stop();
}

#[test]
fn typing_starts_at_once_is_kept_alive_and_ends_with_the_guard() {
    let fake = FakeDiscord::start(Vec::new());
    let (senses, _attention) = start(&fake, "CN_TEST_DISCORD_TOKEN_B", "token-b", "");
    let discord = senses.discord().expect("senses.discord is on");

    // Dropped: the keep-alive ends on its own; then nothing more is triggered.
    let guard = discord.typing(10);
    let seen = fake.log.wait("the first typing trigger", |s| count(s, "typing", 10) >= 1);
    assert_eq!(seen.iter().find(|x| x.what == "typing").unwrap().auth.as_deref(), Some("Bot token-b"));
    fake.log.wait("the typing indicator kept alive", |s| count(s, "typing", 10) >= 3);
    assert!(discord.is_typing(10));
    drop(guard);
    wait_not_typing(&discord, 10);
    let triggers = count(&fake.log.in_channel(10), "typing", 10);
    discord.send(10, "sentinel").unwrap();
    let after = fake.log.in_channel(10);
    assert_eq!(count(&after, "typing", 10), triggers, "no trigger after the guard dropped");
    assert_eq!(after.last().map(|s| (s.what, s.body["content"].as_str())), Some(("message", Some("sentinel"))));

    // Stopped: stop() returns once the last trigger has been answered.
    let guard = discord.typing(11);
    fake.log.wait("two triggers in 11", |s| count(s, "typing", 11) >= 2);
    guard.stop();
    assert!(!discord.is_typing(11));
    let triggers = count(&fake.log.in_channel(11), "typing", 11);
    discord.send(11, "sentinel").unwrap();
    let after = fake.log.in_channel(11);
    assert_eq!(count(&after, "typing", 11), triggers, "no trigger after stop()");
    assert_eq!(after.last().map(|s| s.what), Some("message"));
    senses.stop();
}

#[test]
fn sending_the_answer_stops_typing_and_long_text_is_split() {
    let fake = FakeDiscord::start(Vec::new());
    let (senses, _attention) = start(&fake, "CN_TEST_DISCORD_TOKEN_C", "token-c", "");
    let discord = senses.discord().unwrap();
    let guard = discord.typing(12);
    fake.log.wait("typing in 12", |s| count(s, "typing", 12) >= 2);
    let para = |c: char| c.to_string().repeat(1500);
    let answer = format!("{}\n{}\n{} @everyone", para('a'), para('b'), para('c'));
    discord.send(12, &answer).unwrap();
    assert!(!discord.is_typing(12), "sending the answer ended the typing indicator");
    let seen = fake.log.in_channel(12);
    let first_message = seen.iter().position(|s| s.what == "message").unwrap();
    assert!(seen[first_message..].iter().all(|s| s.what == "message"), "no trigger after the answer: {seen:?}");
    let parts: Vec<&str> = seen[first_message..].iter().map(|s| s.body["content"].as_str().unwrap()).collect();
    assert_eq!(parts.len(), 3);
    assert!(parts.iter().all(|p| p.chars().count() <= 2000));
    assert_eq!(parts.join("\n"), answer);
    let body = &seen[first_message].body;
    assert_eq!(body["allowed_mentions"]["parse"], json!([]), "answers ping nobody: {body}");
    assert_eq!(seen[first_message].auth.as_deref(), Some("Bot token-c"));
    drop(guard);

    // Errors say what went wrong.
    let e = discord.send(13, "hello").unwrap_err().to_string();
    assert!(e.contains("channel 13"), "{e}");
    assert!(discord.send(12, " \n ").unwrap_err().to_string().contains("empty"));
    assert!(discord.send(0, "hello").unwrap_err().to_string().contains("not a Discord channel id"));
    assert!(fake.log.seen.lock().unwrap().iter().all(|s| s.what != "other"), "only the documented routes were used");
    senses.stop();
}

#[test]
fn config_errors_name_the_key() {
    let e = AutonomyConfig::from_yaml("senses:\n  discord:\n    token_env: X\n    typing_evry: 1s\n").unwrap_err();
    assert!(e.contains("senses.discord") && e.contains("typing_evry"), "{e}");

    let hub = tempfile::tempdir().unwrap();
    let attention = Attention::new(PoolConfig::default());
    std::env::remove_var("CN_TEST_DISCORD_TOKEN_UNSET");
    let config = AutonomyConfig::from_yaml("senses:\n  owner: {enabled: false}\n  discord: {token_env: CN_TEST_DISCORD_TOKEN_UNSET}\n").unwrap();
    let e = Senses::start(hub.path(), &config.senses, attention.clone()).err().expect("no token, no start").to_string();
    assert!(e.contains("senses.discord.token_env") && e.contains("CN_TEST_DISCORD_TOKEN_UNSET") && e.contains("not set"), "{e}");

    std::env::set_var("CN_TEST_DISCORD_TOKEN_D", "token-d");
    let config =
        AutonomyConfig::from_yaml("senses:\n  owner: {enabled: false}\n  discord: {token_env: CN_TEST_DISCORD_TOKEN_D, gateway_url: 'http://127.0.0.1:9'}\n")
            .unwrap();
    let e = Senses::start(hub.path(), &config.senses, attention).err().expect("not a websocket URL").to_string();
    assert!(e.contains("gateway_url") && !e.contains("token-d"), "{e}");
}
