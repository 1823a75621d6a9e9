//! A fake Telegram Bot API on loopback (axum), speaking the real JSON shapes:
//! `POST /bot<token>/<method>` with a JSON body, answered `{"ok": true, "result": …}` or
//! `{"ok": false, "error_code": …, "description": …}`. `getUpdates` long-polls and keeps
//! updates until a later call's `offset` passes them, as Telegram does; `sendMessage` refuses
//! a text over 4096 characters ("message is too long"); a wrong token gets 401. Every
//! request is recorded in order; tests wait on the record with a deadline ([`Recorder::wait`]).
//!
//! [`FakeTelegram::outage_after_delivery`] makes every `getUpdates` after a delivered batch
//! fail with 502 (the request never reaches "Telegram", so nothing is confirmed there) — the
//! case where only the sense's own saved offset keeps a restart from taking a batch again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::Recorder;

/// How long [`Recorder::wait`] waits before it fails the test.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The Bot API method (`getUpdates`, `sendMessage`, `sendChatAction`, …).
    pub method: String,
    /// The request's `chat_id`, if any.
    pub chat: Option<i64>,
    /// Its JSON body.
    pub body: Value,
    /// Whether the path carried the bot's token.
    pub token_ok: bool,
}

/// Everything the fake received, in order.
pub type Log = Recorder<Seen>;

/// The texts sent to `chat`, in order.
pub fn sent(seen: &[Seen], chat: i64) -> Vec<String> {
    seen.iter()
        .filter(|s| s.method == "sendMessage" && s.chat == Some(chat))
        .filter_map(|s| s.body["text"].as_str().map(str::to_string))
        .collect()
}

/// What the Bot API holds.
struct Bot {
    token: String,
    log: Arc<Log>,
    /// Updates not yet confirmed by an offset past them.
    pending: Mutex<Vec<Value>>,
    next_update: Mutex<i64>,
    next_message: Mutex<i64>,
    arrived: tokio::sync::Notify,
    outage_after_delivery: AtomicBool,
    delivered: AtomicBool,
}

/// A fake Bot API on its own runtime (dropped with it).
pub struct FakeTelegram {
    _rt: tokio::runtime::Runtime,
    /// `http://127.0.0.1:PORT`, for `senses.telegram.api_base`.
    pub api: String,
    pub log: Arc<Log>,
    bot: Arc<Bot>,
}

impl FakeTelegram {
    /// A Bot API for the bot with `token`.
    pub fn start(token: &str) -> FakeTelegram {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let log = Arc::new(Log::new(DEADLINE));
        let bot = Arc::new(Bot {
            token: token.to_string(),
            log: log.clone(),
            pending: Mutex::new(Vec::new()),
            next_update: Mutex::new(500),
            next_message: Mutex::new(9000),
            arrived: tokio::sync::Notify::new(),
            outage_after_delivery: AtomicBool::new(false),
            delivered: AtomicBool::new(false),
        });
        let api = rt.block_on(async {
            let app = axum::Router::new().route("/{bot}/{method}", axum::routing::post(call)).with_state(bot.clone());
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a loopback port");
            let api = format!("http://{}", listener.local_addr().expect("bound"));
            tokio::spawn(async move {
                let _ = axum::serve(listener, app).await;
            });
            api
        });
        FakeTelegram { _rt: rt, api, log, bot }
    }

    /// The `senses.telegram:` section pointing at this fake (indented for `senses:`).
    pub fn sense_yaml(&self, token_env: &str) -> String {
        format!("  telegram:\n    token_env: {token_env}\n    api_base: {}\n    typing_every: 50ms\n", self.api)
    }

    /// A text message from user `from` (`(id, first_name, username)`) in `chat`, as
    /// Telegram delivers it; its update id.
    pub fn message(&self, from: (i64, &str, Option<&str>), chat: i64, text: &str) -> i64 {
        let message_id = {
            let mut n = self.bot.next_message.lock().unwrap_or_else(PoisonError::into_inner);
            *n += 1;
            *n
        };
        let (id, first_name, username) = from;
        let mut user = json!({"id": id, "is_bot": false, "first_name": first_name, "language_code": "en"});
        if let Some(u) = username {
            user["username"] = json!(u);
        }
        let chat = if chat > 0 {
            json!({"id": chat, "type": "private", "first_name": first_name})
        } else {
            json!({"id": chat, "type": "supergroup", "title": "the team"})
        };
        self.push(json!({"message_id": message_id, "from": user, "chat": chat, "date": 1_763_900_000, "text": text}))
    }

    /// An update carrying `message`; its update id.
    pub fn push(&self, message: Value) -> i64 {
        let id = {
            let mut n = self.bot.next_update.lock().unwrap_or_else(PoisonError::into_inner);
            *n += 1;
            *n
        };
        self.bot
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(json!({"update_id": id, "message": message}));
        self.bot.arrived.notify_waiters();
        id
    }

    /// From now on, every `getUpdates` after one that delivered updates fails with 502 and
    /// confirms nothing (`false` ends the outage).
    pub fn outage_after_delivery(&self, on: bool) {
        self.bot.outage_after_delivery.store(on, Ordering::SeqCst);
        if !on {
            self.bot.delivered.store(false, Ordering::SeqCst);
        }
    }
}

fn ok(result: Value) -> Response {
    Json(json!({"ok": true, "result": result})).into_response()
}

fn refuse(status: StatusCode, description: &str) -> Response {
    (status, Json(json!({"ok": false, "error_code": status.as_u16(), "description": description}))).into_response()
}

async fn call(State(bot): State<Arc<Bot>>, Path((path_bot, method)): Path<(String, String)>, body: String) -> Response {
    let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let token_ok = path_bot.strip_prefix("bot") == Some(bot.token.as_str());
    bot.log.push(Seen { method: method.clone(), chat: body["chat_id"].as_i64(), body: body.clone(), token_ok });
    if !token_ok {
        return refuse(StatusCode::UNAUTHORIZED, "Unauthorized");
    }
    match method.as_str() {
        "getUpdates" => get_updates(&bot, &body).await,
        "sendChatAction" => ok(json!(true)),
        "sendMessage" => {
            let text = body["text"].as_str().unwrap_or_default();
            if text.trim().is_empty() {
                return refuse(StatusCode::BAD_REQUEST, "Bad Request: message text is empty");
            }
            if text.chars().count() > 4096 {
                return refuse(StatusCode::BAD_REQUEST, "Bad Request: message is too long");
            }
            ok(json!({
                "message_id": 1,
                "from": {"id": 777, "is_bot": true, "first_name": "cn", "username": "cn_bot"},
                "chat": {"id": body["chat_id"], "type": "private"},
                "date": 1_763_900_001,
                "text": text,
            }))
        }
        "getMe" => ok(json!({"id": 777, "is_bot": true, "first_name": "cn", "username": "cn_bot"})),
        _ => refuse(StatusCode::NOT_FOUND, "Not Found"),
    }
}

async fn get_updates(bot: &Bot, body: &Value) -> Response {
    if bot.outage_after_delivery.load(Ordering::SeqCst) && bot.delivered.load(Ordering::SeqCst) {
        return (StatusCode::BAD_GATEWAY, "Bad Gateway").into_response();
    }
    if let Some(offset) = body["offset"].as_i64() {
        bot.pending.lock().unwrap_or_else(PoisonError::into_inner).retain(|u| u["update_id"].as_i64() >= Some(offset));
    }
    let wait = Duration::from_secs(body["timeout"].as_u64().unwrap_or(0).min(50));
    let deadline = tokio::time::Instant::now() + wait;
    loop {
        let arrived = bot.arrived.notified();
        tokio::pin!(arrived);
        arrived.as_mut().enable();
        let updates: Vec<Value> =
            bot.pending.lock().unwrap_or_else(PoisonError::into_inner).iter().take(100).cloned().collect();
        if !updates.is_empty() {
            bot.delivered.store(true, Ordering::SeqCst);
            return ok(Value::Array(updates));
        }
        if tokio::time::timeout_at(deadline, arrived).await.is_err() {
            return ok(json!([]));
        }
    }
}
