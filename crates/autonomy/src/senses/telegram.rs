//! Telegram as a sense: a bot on the Bot API whose messages become percepts, and the
//! [`Channel`] the daemon answers through — "typing…" (`sendChatAction`) while a model works
//! on a Telegram item, the answer (`sendMessage`) in the chat it came from.
//!
//! Messages arrive by long polling `getUpdates` (no public URL, no webhook). Telegram keeps an
//! update until a later `getUpdates` names an `offset` past it; the sense writes that offset
//! to `state/telegram.json` right after the batch's percepts are in attention's spool, and
//! starts from it after a restart — so a message already taken is never taken (or answered)
//! again, and one that was not is never lost. (A kill between the spool's write and the
//! offset's would take the batch again: the same keys, which attention coalesces.)
//!
//! Plain ureq against the documented JSON API rather than a bot framework: the sense
//! needs three methods, and `senses.telegram.api_base` points it at a fake Bot API on
//! loopback in tests.
//!
//! Invariants:
//! - The bot token is part of every request's path (`/bot<token>/<method>`): no error, log
//!   line or journal entry quotes a request's URL (`without_url`, `bot***` when one is
//!   named).
//! - The owner is a Telegram user id in `senses.telegram.owners`, never a name; a message
//!   posted on behalf of a chat (`sender_chat`) is nobody's, so never the owner's.
//! - Answers are plain text (no `parse_mode`): a model's text cannot format links or mention
//!   anyone by markup.
//! - Typing never outlives the answer: the keep-alive is stopped, and its last request
//!   answered, before the answer is sent.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::watch;

use super::{
    block_on, first_line, read_capped, split, BadUrl, Post, Running, Sense, SenseContext, SenseError, BODY_MAX,
};
use crate::attention::Attention;
use crate::channel::{Channel, Channels};
use crate::config::{env_secret, TelegramConfig};
use crate::percept::Percept;

/// Telegram's limit on one message's text, in characters.
pub const MESSAGE_MAX: usize = 4096;

/// How many times an answer's part is sent again after Telegram asks to wait (HTTP 429).
const RETRIES: u32 = 3;

/// Which messages are sensed, and whose are the owner's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Chat ids to sense; empty: all.
    pub chats: Vec<i64>,
    /// User ids whose messages count as the owner's.
    pub owners: Vec<i64>,
}

/// What a message's percept keeps in its `data` (shown whole to the model when it has no
/// words): under these names and in this order, as it was written before it was typed, so a
/// spool line either cn wrote reads the same.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Posted {
    /// The author's id is `None` for a forward from a hidden user, a chat or a channel too.
    #[serde(flatten)]
    pub post: Post,
    pub username: Option<String>,
    /// `private`, `group`, `supergroup` or `channel`.
    pub chat_type: Option<String>,
    #[serde(default)]
    pub forwarded: bool,
    /// What it carries besides text, as words (never fetched or opened).
    #[serde(default)]
    pub attachments: Vec<String>,
}

/// The percept for one update from `getUpdates`; `None` when it is not a message for the
/// agent: another kind of update, a bot's message, a message without a sender (a channel
/// post), or one outside `filter.chats`.
pub fn percept(update: &Value, filter: &Filter) -> Option<Percept> {
    let msg = update.get("message")?;
    let chat = msg.pointer("/chat/id")?.as_i64()?;
    let message_id = msg.get("message_id")?.as_i64()?;
    let from = msg.get("from")?;
    let user = from.get("id")?.as_i64()?;
    if from.get("is_bot").and_then(Value::as_bool).unwrap_or(false) {
        return None;
    }
    if !filter.chats.is_empty() && !filter.chats.contains(&chat) {
        return None;
    }
    let on_behalf_of_a_chat = msg.get("sender_chat").is_some_and(|c| !c.is_null());
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let author = name_of(from).unwrap_or_else(|| user.to_string());
    // A forwarded message is its original author's, whoever forwarded it (issue 34): the
    // owner forwarding a stranger's words (or a stranger's `approve ap-…`) does not make them
    // the owner's. Even the owner's own message forwarded is a quote, not a command: when,
    // and to whom, it was first written, cn cannot tell. A message an inline bot wrote
    // (`via_bot`) is the bot's.
    let original = forwarded_from(msg);
    let via_bot = msg.get("via_bot").is_some_and(|b| !b.is_null());
    let owner = filter.owners.contains(&user) && !on_behalf_of_a_chat && original.is_none() && !via_bot;
    let author_id = match &original {
        Some((id, _)) => *id,
        None if via_bot => None,
        None => Some(user),
    };
    let text = str_of(msg, "text").filter(|t| !t.is_empty()).or_else(|| str_of(msg, "caption")).unwrap_or_default();
    let attached = attachments(msg);
    let mut content = match &original {
        Some((_, name)) => format!("(forwarded by {author} from {name})\n\n{text}"),
        None if via_bot => format!("(sent by {author} via an inline bot)\n\n{text}"),
        None => text.clone(),
    };
    if !attached.is_empty() {
        if !content.is_empty() {
            content.push_str("\n\n");
        }
        content.push_str(&format!("(attached, not opened: {})", attached.join("; ")));
    }
    let line = first_line(&content, 200);
    let line = if line.is_empty() { "(no text)".to_string() } else { line };
    Some(
        Percept::new(cn_hub::Sense::Telegram, format!("{author}: {line}"))
            .key(format!("telegram:{chat}/{message_id}"))
            .with_origin(cn_hub::Origin {
                sense: cn_hub::Sense::Telegram,
                author: crate::percept::author(cn_hub::Sense::Telegram, owner, author_id.map(|id| id.to_string())),
                kind: cn_hub::Kind::Message,
                thread: None,
                answer: Some(cn_hub::AnswerTo::Telegram {
                    chat: chat.to_string(),
                    message: Some(message_id.to_string()),
                }),
            })
            .data_of(&Posted {
                post: Post {
                    channel_id: chat.to_string(),
                    message_id: message_id.to_string(),
                    author_id: author_id.map(|id| id.to_string()),
                    author,
                },
                username: str_of(from, "username"),
                chat_type: msg.pointer("/chat/type").and_then(Value::as_str).map(str::to_string),
                forwarded: original.is_some(),
                attachments: attached,
            })
            .text(content),
    )
}

/// A user's or a chat's name as Telegram gives it: first and last name, else the username,
/// else the title.
fn name_of(v: &Value) -> Option<String> {
    let str_of = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty()).map(|s| first_line(s, 80));
    match (str_of("first_name"), str_of("last_name"), str_of("username"), str_of("title")) {
        (Some(f), Some(l), _, _) => Some(format!("{f} {l}")),
        (Some(f), None, _, _) => Some(f),
        (None, _, Some(u), _) => Some(u),
        (None, _, None, t) => t,
    }
}

/// Who first wrote a forwarded message: their user id when Telegram says (a hidden user, a
/// chat or a channel has none), and a name; `None` when the message is not a forward. Reads
/// `forward_origin` (Bot API 7) and the older `forward_from*` fields alike.
fn forwarded_from(msg: &Value) -> Option<(Option<i64>, String)> {
    let present = |k: &str| msg.get(k).filter(|v| !v.is_null());
    if let Some(origin) = present("forward_origin") {
        let kind = origin.get("type").and_then(Value::as_str).unwrap_or("");
        let (id, name) = match kind {
            "user" => {
                let u = origin.get("sender_user").unwrap_or(&Value::Null);
                (u.get("id").and_then(Value::as_i64), name_of(u))
            }
            "hidden_user" => (None, origin.get("sender_user_name").and_then(Value::as_str).map(|n| first_line(n, 80))),
            "chat" => (None, origin.get("sender_chat").and_then(name_of)),
            _ => (None, origin.get("chat").and_then(name_of)),
        };
        return Some((id, name.unwrap_or_else(|| "someone".into())));
    }
    if let Some(user) = present("forward_from") {
        return Some((user.get("id").and_then(Value::as_i64), name_of(user).unwrap_or_else(|| "someone".into())));
    }
    if let Some(chat) = present("forward_from_chat") {
        return Some((None, name_of(chat).unwrap_or_else(|| "a chat".into())));
    }
    if let Some(name) = present("forward_sender_name").and_then(Value::as_str) {
        return Some((None, first_line(name, 80)));
    }
    present("forward_date").map(|_| (None, "someone".to_string()))
}

/// What a message carries besides text, as words: noted for the agent, never fetched or
/// opened.
fn attachments(msg: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let kinds = [
        ("document", "a document"),
        ("photo", "a photo"),
        ("video", "a video"),
        ("audio", "an audio file"),
        ("voice", "a voice message"),
        ("video_note", "a video message"),
        ("sticker", "a sticker"),
        ("animation", "an animation"),
        ("contact", "a contact"),
        ("location", "a location"),
        ("poll", "a poll"),
    ];
    for (key, words) in kinds {
        let Some(v) = msg.get(key).filter(|v| !v.is_null()) else { continue };
        let mut said = words.to_string();
        if let Some(name) = v.get("file_name").and_then(Value::as_str) {
            said.push_str(&format!(" `{}`", first_line(name, 80)));
        }
        if let Some(mime) = v.get("mime_type").and_then(Value::as_str) {
            said.push_str(&format!(" ({})", first_line(mime, 60)));
        }
        out.push(said);
    }
    out
}

/// The chat a Telegram percept came from: where the answer goes.
pub fn chat_of(p: &Percept) -> Option<i64> {
    match p.origin.as_deref()?.answer.as_ref()? {
        cn_hub::AnswerTo::Telegram { chat, .. } if p.sense == cn_hub::Sense::Telegram => chat.parse().ok(),
        _ => None,
    }
}

/// The Bot API with one bot's token. The token is only ever put in a request's path.
struct Api {
    http: ureq::Agent,
    base: String,
    token: String,
}

/// One Bot API call that failed.
#[derive(Debug)]
enum CallError {
    /// Telegram asks to wait this long (HTTP 429, `parameters.retry_after`).
    RetryAfter(Duration),
    Other(SenseError),
}

impl From<SenseError> for CallError {
    fn from(e: SenseError) -> Self {
        CallError::Other(e)
    }
}

impl Api {
    /// The URL as errors show it: the token replaced.
    fn shown(&self, method: &str) -> String {
        format!("{}/bot***/{method}", self.base)
    }

    /// POST `body` to `method`; its `result`, or why not (the token in no error).
    async fn call(&self, method: &'static str, body: &Value, timeout: Duration) -> Result<Value, CallError> {
        let shown = self.shown(method);
        let url = format!("{}/bot{}/{method}", self.base, self.token);
        let req = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .config()
            .timeout_global(Some(timeout))
            .build();
        let body = serde_json::to_vec(body).unwrap_or_default();
        let at = shown.clone();
        let (status, bytes) = super::fetch(&shown, move || {
            // The only error that could name the URL (and so the token) is a bad one: not shown.
            let http = |source| {
                let source = match source {
                    ureq::Error::BadUri(_) => ureq::Error::BadUri(at.clone()),
                    other => other,
                };
                SenseError::Http { url: at.clone(), source }
            };
            let mut resp = req.send(&body[..]).map_err(http)?;
            Ok((resp.status(), read_capped(&mut resp, &at, BODY_MAX)))
        })
        .await?;
        let bytes = bytes?;
        let answer: Value = match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(_) if !status.is_success() => return Err(SenseError::Status { url: shown, status }.into()),
            Err(source) => return Err(SenseError::NotJson { url: shown, what: "a Bot API answer", source }.into()),
        };
        if answer.get("ok").and_then(Value::as_bool) == Some(true) {
            return Ok(answer.get("result").cloned().unwrap_or(Value::Null));
        }
        if let Some(secs) = answer.pointer("/parameters/retry_after").and_then(Value::as_u64) {
            return Err(CallError::RetryAfter(Duration::from_secs(secs.clamp(1, 300))));
        }
        let description = answer.get("description").and_then(Value::as_str).unwrap_or("no description");
        Err(SenseError::Telegram {
            method,
            message: format!("HTTP {}: {}", status.as_u16(), first_line(description, 200)),
        }
        .into())
    }
}

/// Telegram (`senses.telegram`) as a [`Sense`]: `getUpdates`' messages become percepts, and
/// its [`TelegramChannel`] answers in their chats.
pub struct TelegramSense {
    config: TelegramConfig,
    token: String,
}

impl TelegramSense {
    /// From `senses.telegram`; the bot token read from its variable.
    pub fn configured(config: &TelegramConfig) -> Result<Self, SenseError> {
        let token = env_secret("senses.telegram.token_env", &config.token_env)?;
        // A token is `<digits>:<letters>`; anything with a `/`, `?` or space would change the
        // request's path.
        if !token.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-')) {
            return Err(SenseError::Start {
                sense: "telegram",
                message: format!(
                    "the token in ${} is not a bot token (digits, a colon, letters); see @BotFather",
                    config.token_env
                ),
            });
        }
        Ok(TelegramSense { config: config.clone(), token })
    }
}

impl Sense for TelegramSense {
    fn name(&self) -> &str {
        "telegram"
    }

    fn start(self: Box<Self>, ctx: &mut SenseContext<'_>) -> Result<Running, SenseError> {
        let base = api_base(&self.config.api_base).map_err(|url| SenseError::Url { sense: "telegram", url })?;
        // Each call sets its own timeout (a long poll's is longer).
        let http = super::http_client(None);
        let api = Arc::new(Api { http, base, token: self.token });
        let filter = Filter { chats: self.config.chats.clone(), owners: self.config.owners.clone() };
        let state = ctx.hub.layout().telegram();
        let poll_timeout = self.config.poll_timeout.clamp(Duration::from_secs(1), Duration::from_secs(50));
        ctx.runtime.spawn(poll(api.clone(), filter, ctx.attention.clone(), state, poll_timeout));
        let channel = TelegramChannel {
            api,
            runtime: ctx.runtime.handle().clone(),
            typing_every: self.config.typing_every.max(Duration::from_millis(10)),
            typing: HashMap::new(),
        };
        Ok(Running::tasks().with_channels(Channels { telegram: Some(channel), ..Channels::default() }))
    }
}

/// `https://api.telegram.org/` → `https://api.telegram.org`, checked.
fn api_base(base: &str) -> Result<String, BadUrl> {
    let trimmed = base.trim_end_matches('/');
    let ok = (trimmed.starts_with("https://") || trimmed.starts_with("http://"))
        && trimmed.split_once("://").is_some_and(|(_, rest)| !rest.is_empty() && !rest.contains(['?', '#', '@', ' ']));
    if ok {
        Ok(trimmed.to_string())
    } else {
        Err(BadUrl {
            key: "senses.telegram.api_base",
            url: base.to_string(),
            expected: "an http(s) URL such as https://api.telegram.org",
        })
    }
}

/// The offset saved in `path`: the first update not taken yet. A missing file is a first
/// start; an unreadable one is reported and Telegram's own record (what earlier polls
/// confirmed) is used.
pub fn load_offset(path: &Path) -> Option<i64> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            tracing::error!(path = %path.display(), e = %cn_compute::Chain(&e), "cannot read the Telegram offset; starting from Telegram's own");
            return None;
        }
    };
    match serde_json::from_str::<Value>(&text).ok().and_then(|v| v.get("offset")?.as_i64()) {
        Some(n) => Some(n),
        None => {
            tracing::error!(path = %path.display(), "the Telegram offset is not {{\"offset\": N}}; starting from Telegram's own");
            None
        }
    }
}

/// Save `offset` to `path` (a temporary file renamed over it, synced).
pub fn save_offset(path: &Path, offset: i64) -> std::io::Result<()> {
    cn_storage::write_json_atomic(path, &json!({ "offset": offset }))
}

/// Long-poll `getUpdates` for as long as the senses run: each message admitted, then the
/// offset past the batch saved, then asked for (which tells Telegram to forget the batch).
async fn poll(api: Arc<Api>, filter: Filter, attention: Attention, state: PathBuf, timeout: Duration) {
    let mut offset = load_offset(&state);
    let mut failures = 0u32;
    loop {
        let body = json!({
            "offset": offset,
            "timeout": timeout.as_secs(),
            "allowed_updates": ["message"],
        });
        match api.call("getUpdates", &body, timeout + super::FETCH_TIMEOUT).await {
            Ok(result) => {
                failures = 0;
                let updates = result.as_array().map(Vec::as_slice).unwrap_or_default();
                let mut next = offset;
                let mut admitted = false;
                for update in updates {
                    let Some(id) = update.get("update_id").and_then(Value::as_i64) else {
                        tracing::warn!("Telegram: an update without an update_id; skipped");
                        continue;
                    };
                    if offset.is_some_and(|o| id < o) {
                        continue; // already taken
                    }
                    if let Some(mut p) = percept(update, &filter) {
                        if let Some(id) = attention.delivery_id(&format!("telegram:update/{id}")) {
                            p.id = id;
                        }
                        attention.admit(p);
                        admitted = true;
                    } else if update.get("message").is_some() {
                        tracing::debug!(update = id, "Telegram: a message not for the agent");
                    }
                    next = Some(next.map_or(id + 1, |n: i64| n.max(id + 1)));
                }
                // Leased, Telegram forgets the batch (the offset past it) only once origin holds
                // what was admitted of it. When origin cannot (this daemon lost the lease), the
                // sense stops here: the clone that holds the lease is given the batch again.
                if admitted {
                    if let Err(why) = super::replicated(&attention).await {
                        tracing::warn!(%why, "Telegram: the batch is not in origin; left to the lease's holder");
                        return;
                    }
                }
                if next != offset {
                    if let Some(n) = next {
                        if let Err(e) = save_offset(&state, n) {
                            tracing::error!(path = %state.display(), e = %cn_compute::Chain(&e), "cannot save the Telegram offset");
                        }
                    }
                    offset = next;
                }
            }
            Err(CallError::RetryAfter(wait)) => tokio::time::sleep(wait).await,
            Err(CallError::Other(e)) => {
                failures += 1;
                let wait = super::backoff(Duration::from_secs(1), failures);
                tracing::warn!(e = %cn_compute::Chain(&e), ?wait, "Telegram getUpdates failed; trying again");
                tokio::time::sleep(wait).await;
            }
        }
    }
}

/// Send `text` to `chat` as messages of at most [`MESSAGE_MAX`] characters, the first one a
/// reply to `reply_to` (when that message still exists).
async fn send(api: &Api, chat: i64, reply_to: Option<i64>, text: &str) -> Result<(), SenseError> {
    let parts = split(text, MESSAGE_MAX);
    if parts.is_empty() {
        return Err(SenseError::Telegram { method: "sendMessage", message: "an empty message cannot be sent".into() });
    }
    let n = parts.len();
    for (i, part) in parts.iter().enumerate() {
        let mut body = json!({"chat_id": chat, "text": part});
        if let (0, Some(m)) = (i, reply_to) {
            body["reply_parameters"] = json!({"message_id": m, "allow_sending_without_reply": true});
        }
        let mut tries = 0;
        loop {
            match api.call("sendMessage", &body, super::FETCH_TIMEOUT).await {
                Ok(_) => break,
                Err(CallError::RetryAfter(wait)) if tries < RETRIES => {
                    tries += 1;
                    tokio::time::sleep(wait).await;
                }
                Err(CallError::RetryAfter(wait)) => {
                    return Err(SenseError::Telegram {
                        method: "sendMessage",
                        message: format!("part {}/{n} to chat {chat}: still asked to wait {wait:?}", i + 1),
                    })
                }
                Err(CallError::Other(e)) => {
                    return Err(SenseError::Telegram {
                        method: "sendMessage",
                        message: format!("part {}/{n} to chat {chat}: {e}", i + 1, e = cn_compute::Chain(&e)),
                    })
                }
            }
        }
    }
    Ok(())
}

/// "typing…" in `chat` now and every `every` until `stop`; a request in flight is finished
/// first, so none follows the answer.
async fn keep_typing(api: Arc<Api>, chat: i64, every: Duration, mut stop: watch::Receiver<bool>) {
    while !*stop.borrow() {
        tracing::trace!(chat, "Telegram: sendChatAction");
        let body = json!({"chat_id": chat, "action": "typing"});
        if let Err(CallError::Other(e)) = api.call("sendChatAction", &body, super::FETCH_TIMEOUT).await {
            tracing::warn!(chat, e = %cn_compute::Chain(&e), "Telegram typing indicator");
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
    }
}

/// The Telegram [`Channel`]: while a model works on an item from a Telegram chat, the chat
/// shows "typing…"; a reply is sent there (after the typing has stopped); any other end
/// stops the typing.
pub struct TelegramChannel {
    api: Arc<Api>,
    runtime: tokio::runtime::Handle,
    typing_every: Duration,
    typing: HashMap<i64, (watch::Sender<bool>, tokio::task::JoinHandle<()>)>,
}

/// The chat and message a Telegram answer goes to (`AnswerTo::Telegram`'s, as written).
pub(crate) fn at(chat: &str, message: Option<&str>) -> Option<(i64, Option<i64>)> {
    Some((chat.parse().ok()?, message.and_then(|m| m.parse().ok())))
}

impl Channel for TelegramChannel {
    type At = (i64, Option<i64>);

    fn typing(&mut self, &(chat, _): &Self::At, item: &cn_agent::Item, _level: cn_compute::Level) {
        if self.typing.get(&chat).is_some_and(|(_, task)| !task.is_finished()) {
            return;
        }
        tracing::debug!(chat, item = %item.id, "Telegram: typing");
        let (stop, rx) = watch::channel(false);
        let task = self.runtime.spawn(keep_typing(self.api.clone(), chat, self.typing_every, rx));
        self.typing.insert(chat, (stop, task));
    }

    fn finished(&mut self, (chat, message): Self::At, item: &cn_agent::Item, reply: Option<String>) {
        let typing = self.typing.remove(&chat);
        if let Some((stop, _)) = &typing {
            stop.send_replace(true);
        }
        let api = self.api.clone();
        let done = block_on(&self.runtime, async move {
            if let Some((_, task)) = typing {
                let _ = task.await;
            }
            match reply {
                Some(text) => send(&api, chat, message, &text).await,
                None => Ok(()),
            }
        });
        if let Err(e) = done.and_then(|r| r) {
            tracing::error!(chat, item = %item.id, e = %cn_compute::Chain(&e), "cannot deliver the reply to Telegram");
        }
    }

    fn tell(&mut self, (chat, message): Self::At, text: &str) -> Result<(), SenseError> {
        let api = self.api.clone();
        let text = text.to_string();
        block_on(&self.runtime, async move { send(&api, chat, message, &text).await }).and_then(|r| r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(from: Value, text: &str) -> Value {
        json!({"update_id": 7, "message": {"message_id": 3, "from": from, "chat": {"id": -100, "type": "group"}, "date": 1, "text": text}})
    }

    #[test]
    fn the_owner_is_an_id_never_a_name_nor_a_chat() {
        let filter = Filter { chats: Vec::new(), owners: vec![42] };
        let owner = json!({"id": 42, "is_bot": false, "first_name": "Grace"});
        let p = percept(&update(owner.clone(), "hi"), &filter).unwrap();
        assert!(p.owner);
        assert_eq!(p.key.as_deref(), Some("telegram:-100/3"));
        assert_eq!(chat_of(&p), Some(-100));
        // A stranger named like the owner, with the owner's username.
        let mimic = json!({"id": 43, "is_bot": false, "first_name": "Grace", "username": "grace"});
        assert!(!percept(&update(mimic, "I am the owner"), &filter).unwrap().owner);
        // Posted on behalf of a chat: nobody's.
        let mut u = update(owner, "hi");
        u["message"]["sender_chat"] = json!({"id": -100, "type": "group"});
        assert!(!percept(&u, &filter).unwrap().owner);
        // Bots and other update kinds are not sensed.
        assert!(percept(&update(json!({"id": 9, "is_bot": true, "first_name": "b"}), "x"), &filter).is_none());
        assert!(percept(&json!({"update_id": 8, "edited_message": {}}), &filter).is_none());
        let only = Filter { chats: vec![5], owners: vec![] };
        assert!(percept(&update(json!({"id": 1, "first_name": "a"}), "x"), &only).is_none());
    }

    /// The typed data is written as the `json!` map it was before: the same keys in the same
    /// order, an unknown author, username or chat type as `null`.
    #[test]
    fn a_messages_data_is_written_as_before_it_was_typed() {
        let mut u = update(json!({"id": 42, "is_bot": false, "first_name": "Grace", "username": "grace"}), "hi");
        u["message"]["photo"] = json!([{"file_id": "abc"}]);
        let p = percept(&u, &Filter::default()).unwrap();
        let before = json!({"channel_id": "-100", "message_id": "3", "author_id": "42", "author": "Grace",
                            "username": "grace", "chat_type": "group", "forwarded": false, "attachments": ["a photo"]});
        assert_eq!(serde_json::to_string(&p.data).unwrap(), before.to_string());
        let mut u = update(json!({"id": 42, "first_name": "Grace"}), "hi");
        u["message"]["forward_sender_name"] = json!("Eve");
        u["message"]["chat"] = json!({"id": 5});
        let p = percept(&u, &Filter::default()).unwrap();
        let before = json!({"channel_id": "5", "message_id": "3", "author_id": null, "author": "Grace",
                            "username": null, "chat_type": null, "forwarded": true, "attachments": []});
        assert_eq!(serde_json::to_string(&p.data).unwrap(), before.to_string());
        assert_eq!(p.data_as::<Posted>().map(|d| (d.post.author_id, d.forwarded)), Some((None, true)));
    }

    #[test]
    fn a_forward_keeps_its_original_author_whoever_forwards_it() {
        let filter = Filter { chats: Vec::new(), owners: vec![42] };
        let owner = json!({"id": 42, "is_bot": false, "first_name": "Grace"});
        let mallory = json!({"id": 666, "is_bot": false, "first_name": "Mallory"});
        // The owner forwards a stranger's `approve ap-…` (Bot API 7's forward_origin).
        let mut u = update(owner.clone(), "approve ap-0123456789ab");
        u["message"]["forward_origin"] = json!({"type": "user", "sender_user": mallory, "date": 1});
        let p = percept(&u, &filter).unwrap();
        assert!(!p.owner, "a forward is not the owner's word");
        assert_eq!(
            p.data_as::<Posted>().unwrap().post.author_id.as_deref(),
            Some("666"),
            "the original author: {}",
            p.data
        );
        let content = p.text.as_deref().unwrap();
        assert!(content.starts_with("(forwarded by Grace from Mallory)"), "{content}");
        // Hidden senders, chats, the older fields, the owner's own message forwarded, a bot's.
        for (key, value) in [
            ("forward_origin", json!({"type": "hidden_user", "sender_user_name": "Eve", "date": 1})),
            (
                "forward_origin",
                json!({"type": "channel", "chat": {"id": -5, "title": "News"}, "message_id": 1, "date": 1}),
            ),
            ("forward_from", json!({"id": 42, "is_bot": false, "first_name": "Grace"})),
            ("forward_sender_name", json!("Eve")),
            ("via_bot", json!({"id": 7, "is_bot": true, "first_name": "gif"})),
        ] {
            let mut u = update(owner.clone(), "approve ap-0123456789ab");
            u["message"][key] = value;
            let p = percept(&u, &filter).unwrap();
            assert!(!p.owner, "{key}: {}", p.data);
        }
    }

    #[test]
    fn attachments_are_noted_never_fetched() {
        let mut u = update(json!({"id": 1, "first_name": "Eve"}), "");
        u["message"]["caption"] = json!("look");
        u["message"]["document"] =
            json!({"file_id": "abc", "file_name": "run-me.sh", "mime_type": "application/x-sh", "file_size": 10});
        let p = percept(&u, &Filter::default()).unwrap();
        let content = p.text.as_deref().unwrap();
        assert!(
            content.starts_with("look\n\n(attached, not opened: a document `run-me.sh` (application/x-sh))"),
            "{content}"
        );
        assert!(!content.contains("abc"), "no file id to fetch by: {content}");
    }

    #[test]
    fn the_offset_survives_and_a_bad_file_is_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("telegram.json");
        assert_eq!(load_offset(&path), None);
        save_offset(&path, 12).unwrap();
        assert_eq!(load_offset(&path), Some(12));
        std::fs::write(&path, "{\"offset\": \"x\"").unwrap();
        assert_eq!(load_offset(&path), None);
    }

    #[test]
    fn api_base_is_checked() {
        assert_eq!(api_base("https://api.telegram.org/").unwrap(), "https://api.telegram.org");
        assert!(api_base("api.telegram.org").unwrap_err().to_string().contains("senses.telegram.api_base"));
        assert!(api_base("https://user@evil").is_err());
    }
}
