//! Discord as a sense: a bot on Discord's gateway whose messages become percepts, and the
//! handle the daemon answers through — with the typing indicator while the executive works
//! on a Discord thread (document 003: started when the work begins, kept alive while it
//! thinks, stopped when the answer is sent or the work ends).
//!
//! Built on twilight (`twilight-gateway`, `twilight-http`, `twilight-model`): small,
//! maintained crates that do the protocol — heartbeats, identify, resume, reconnect with
//! backoff, rate limits — and that can both be pointed elsewhere: the gateway's `proxy_url`
//! and the HTTP client's `proxy` (host and scheme). `senses.discord.gateway_url` and
//! `api_base` set them, which is how the tests run this sense against a fake gateway and a
//! fake API on loopback. (serenity could be pointed at loopback too, but it brings a cache
//! and a command framework the agent does not need.)
//!
//! The daemon's kernel is synchronous: [`DiscordHandle::send`] and [`Typing::stop`] block
//! the calling thread while the senses' runtime does the I/O, and refuse (rather than
//! deadlock) when called from async code.
//!
//! Invariants:
//! - The bot token comes from the environment and reaches no percept, journal entry or log
//!   line (twilight prints it as `<redacted>`).
//! - Messages from bots — the agent's own answers among them — are never sensed.
//! - A typing indicator never outlives the answer: `send` stops the channel's keep-alives
//!   and waits for their last trigger to be answered before it posts, so no trigger can
//!   follow the message (which would show "typing…" again for ten seconds).
//! - Answers mention nobody: a model's text cannot ping @everyone or a role.
//! - Answers are plain text ([`plain`]): Discord's markdown is escaped and link previews are
//!   suppressed, so a stranger's masked link or formatting repeated by a model is shown as
//!   the characters it is.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::http::Uri;
use serde_json::Value;
use tokio::sync::watch;
use twilight_gateway::{ConfigBuilder, Intents, Message as GatewayMessage, Shard, ShardId};
use twilight_http::Client;
use twilight_model::channel::message::{AllowedMentions, MessageFlags, MessageReferenceType, MessageType};
use twilight_model::channel::Message;
use twilight_model::id::marker::{ChannelMarker, UserMarker};
use twilight_model::id::Id;

use super::{block_on, first_line, BadUrl, Post, Running, Sense, SenseContext, SenseError};
use crate::attention::Attention;
use crate::channel::{Channel, Channels};
use crate::config::{env_secret, DiscordConfig};
use crate::percept::Percept;

/// Discord's limit on one message's content, in characters.
pub const MESSAGE_MAX: usize = 2000;

/// Messages in servers and in DMs, with their text (Message Content is a privileged intent:
/// it must be enabled for the bot in Discord's developer portal).
const INTENTS: Intents = Intents::GUILD_MESSAGES.union(Intents::DIRECT_MESSAGES).union(Intents::MESSAGE_CONTENT);

/// Which messages are sensed, and whose are the owner's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Channel ids to sense; empty: all. A thread is a channel of its own.
    pub channels: Vec<u64>,
    /// User ids whose messages count as the owner's.
    pub owners: Vec<u64>,
}

/// What a message's percept keeps in its `data` (shown whole to the model when it has no
/// words): under these names and in this order, as it was written before it was typed, so a
/// spool line either cn wrote reads the same.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Posted {
    #[serde(flatten)]
    pub post: Post,
    pub guild_id: Option<String>,
    #[serde(default)]
    pub forwarded: bool,
}

/// The percept for one message; `None` when it is not for the agent: a bot's (the agent's
/// own among them, `me`), a system message (joins, pins), or outside `filter.channels`.
pub fn percept(msg: &Message, me: Option<Id<UserMarker>>, filter: &Filter) -> Option<Percept> {
    if msg.author.bot || Some(msg.author.id) == me || !matches!(msg.kind, MessageType::Regular | MessageType::Reply) {
        return None;
    }
    let channel = msg.channel_id.get();
    if !filter.channels.is_empty() && !filter.channels.contains(&channel) {
        return None;
    }
    let author = msg.author.global_name.as_deref().unwrap_or(&msg.author.name);
    // A forward is its original author's words (Discord does not say who that was), not the
    // forwarder's: never the owner's, whoever forwards it (issue 34).
    let forwarded = msg.reference.as_ref().is_some_and(|r| r.kind == MessageReferenceType::Forward)
        || !msg.message_snapshots.is_empty();
    let content = if forwarded {
        let quoted: Vec<&str> = msg.message_snapshots.iter().map(|s| s.message.content.as_str()).collect();
        format!("(forwarded by {author}; its author is not known)\n\n{}", quoted.join("\n\n"))
    } else {
        msg.content.clone()
    };
    let text = first_line(&content, 200);
    let text = if text.is_empty() { "(no text)".to_string() } else { text };
    let author_id = (!forwarded).then(|| msg.author.id.to_string());
    Some(
        Percept::new(cn_hub::Sense::Discord, format!("{author}: {text}"))
            .key(format!("discord:{channel}/{}", msg.id))
            .with_origin(cn_hub::Origin {
                sense: cn_hub::Sense::Discord,
                author: crate::percept::author(
                    cn_hub::Sense::Discord,
                    filter.owners.contains(&msg.author.id.get()) && !forwarded,
                    author_id.clone(),
                ),
                kind: cn_hub::Kind::Message,
                thread: None,
                answer: Some(cn_hub::AnswerTo::Discord {
                    channel: channel.to_string(),
                    message: Some(msg.id.to_string()),
                }),
            })
            .data_of(&Posted {
                post: Post {
                    channel_id: channel.to_string(),
                    message_id: msg.id.to_string(),
                    author_id,
                    author: author.to_string(),
                },
                guild_id: msg.guild_id.map(|g| g.to_string()),
                forwarded,
            })
            .text(content),
    )
}

/// `text` as Discord shows it verbatim: every character Discord's markdown reads (`*`, `_`,
/// `~`, `` ` ``, `|`, `[`, `]`, `<`, `>`, `\\`, and `#`, `-`, `+` at a line's start) escaped
/// with a backslash. A model's answer may repeat a stranger's text, and a masked link
/// (`[your bank](https://evil)`), a heading or a spoiler would then be posted as the
/// agent's own formatting; escaped, it is plain text.
pub fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut line_start = true;
    for c in text.chars() {
        let markup = matches!(c, '*' | '_' | '~' | '`' | '|' | '[' | ']' | '<' | '>' | '\\')
            || (line_start && matches!(c, '#' | '-' | '+'));
        if markup {
            out.push('\\');
        }
        out.push(c);
        line_start = c == '\n' || (line_start && c.is_whitespace());
    }
    out
}

/// `text` as the messages to post: cut at [`MESSAGE_MAX`] characters, each made [`plain`]; a
/// part the escapes make too long is cut again at half the length (escaping at most doubles
/// it), so no escape is ever split from its character.
fn plain_parts(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in split(text, MESSAGE_MAX) {
        let escaped = plain(&part);
        if escaped.chars().count() <= MESSAGE_MAX {
            out.push(escaped);
        } else {
            out.extend(split(&part, MESSAGE_MAX / 2).iter().map(|p| plain(p)));
        }
    }
    out
}

/// The channel a Discord percept came from: where the answer goes.
pub fn channel_of(p: &Percept) -> Option<u64> {
    match p.origin.as_deref()?.answer.as_ref()? {
        cn_hub::AnswerTo::Discord { channel, .. } if p.sense == cn_hub::Sense::Discord => channel.parse().ok(),
        _ => None,
    }
}

pub use super::split;

/// Discord (`senses.discord`) as a [`Sense`]: the gateway's messages become percepts, and
/// its [`DiscordChannel`] answers there.
pub struct DiscordSense {
    config: DiscordConfig,
    token: String,
}

impl DiscordSense {
    /// From `senses.discord`; the bot token read from its variable.
    pub fn configured(config: &DiscordConfig) -> Result<Self, SenseError> {
        let token = env_secret("senses.discord.token_env", &config.token_env)?;
        Ok(DiscordSense { config: config.clone(), token })
    }
}

impl Sense for DiscordSense {
    fn name(&self) -> &str {
        "discord"
    }

    fn start(self: Box<Self>, ctx: &mut SenseContext<'_>) -> Result<Running, SenseError> {
        let handle = start(&self.config, self.token, ctx.attention.clone(), ctx.runtime)?;
        Ok(Running::keep(handle.clone())
            .with_channels(Channels { discord: Some(DiscordChannel::new(handle)), ..Channels::default() }))
    }
}

/// Start the gateway task on `runtime` and build the handle. `token` is the bot token.
pub fn start(
    config: &DiscordConfig,
    token: String,
    attention: Attention,
    runtime: &tokio::runtime::Runtime,
) -> Result<DiscordHandle, SenseError> {
    let err = |message: String| SenseError::Start { sense: "discord", message };
    let url = |url| SenseError::Url { sense: "discord", url };
    let (host, plain_http) = api_host(&config.api_base).map_err(url)?;
    let gateway_url = config.gateway_url.as_deref().map(gateway_url).transpose().map_err(url)?;
    let _entered = runtime.enter();
    super::install_tls_provider();
    let http = Client::builder()
        .token(token.clone())
        .proxy(host, plain_http)
        .default_allowed_mentions(AllowedMentions::default())
        .build();
    // twilight unwraps its TLS connector (a panic, so an abort in release): build one first,
    // the same way, and refuse to start with its error instead.
    tokio_websockets::Connector::new().map_err(|e| err(format!("the gateway's TLS setup failed: {e}")))?;
    let mut builder = ConfigBuilder::new(token, INTENTS);
    if let Some(url) = gateway_url {
        builder = builder.proxy_url(url);
    }
    let shard_config = builder.build();
    let shard = Shard::with_config(ShardId::ONE, shard_config);
    let filter = Filter { channels: config.channels.clone(), owners: config.owners.clone() };
    runtime.spawn(run_gateway(shard, filter, attention));
    Ok(DiscordHandle {
        inner: Arc::new(Inner {
            http,
            runtime: runtime.handle().clone(),
            typing_every: config.typing_every.max(Duration::from_millis(10)),
            keepers: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
        }),
    })
}

/// `https://discord.com` → (`discord.com`, false): twilight's proxy is a host (and path)
/// plus whether to speak plain HTTP.
fn api_host(base: &str) -> Result<(String, bool), BadUrl> {
    let bad = || BadUrl {
        key: "senses.discord.api_base",
        url: base.to_string(),
        expected: "an http(s) URL such as https://discord.com",
    };
    let uri: Uri = base.parse().map_err(|_| bad())?;
    let plain = match uri.scheme_str() {
        Some("https") => false,
        Some("http") => true,
        _ => return Err(bad()),
    };
    if uri.authority().is_none() || uri.query().is_some() {
        return Err(bad());
    }
    let rest = base.split_once("://").map_or(base, |(_, r)| r);
    Ok((rest.trim_end_matches('/').to_string(), plain))
}

/// A gateway URL twilight can connect to (it appends `/?v=10&encoding=json` and panics on a
/// URL it cannot parse, so it is checked here).
fn gateway_url(url: &str) -> Result<String, BadUrl> {
    let url = url.trim_end_matches('/');
    let bad = || BadUrl { key: "senses.discord.gateway_url", url: url.to_string(), expected: "a ws:// or wss:// URL" };
    let uri: Uri = format!("{url}/?v=10&encoding=json").parse().map_err(|_| bad())?;
    match (uri.scheme_str(), uri.authority()) {
        (Some("ws" | "wss"), Some(_)) => Ok(url.to_string()),
        _ => Err(bad()),
    }
}

/// Receive messages until the gateway closes for good; heartbeats, resumes and reconnects
/// are twilight's job (the shard handles them before it yields a message). Only the two
/// dispatches the sense uses are deserialized — READY (who the bot is) and MESSAGE_CREATE —
/// rather than twilight's whole `Event`, which would link a deserializer for every gateway
/// event into the binary.
async fn run_gateway(mut shard: Shard, filter: Filter, attention: Attention) {
    let mut me = None;
    while let Some(item) =
        std::future::poll_fn(|cx| futures_core::Stream::poll_next(std::pin::Pin::new(&mut shard), cx)).await
    {
        match item {
            Ok(GatewayMessage::Text(text)) => match dispatch(&text) {
                Some(Dispatch::Ready(id)) => {
                    me = Some(id);
                    tracing::info!(bot = %id, "Discord gateway ready");
                }
                Some(Dispatch::Message(msg)) => {
                    if let Some(p) = percept(&msg, me, &filter) {
                        attention.admit(p);
                    }
                }
                None => {}
            },
            Ok(GatewayMessage::Close(frame)) => tracing::warn!(?frame, "the Discord gateway closed the connection"),
            Err(e) => tracing::warn!(error = %cn_compute::Chain(&e), "Discord gateway"),
        }
    }
    tracing::error!("the Discord gateway refused the bot for good (a wrong token, or the Message Content intent not enabled for it); the Discord sense has stopped");
}

/// The dispatches the sense reads.
enum Dispatch {
    Ready(Id<UserMarker>),
    Message(Box<Message>),
}

/// Read a gateway payload: `{"op": 0, "t": NAME, "d": DATA}` for a dispatch.
fn dispatch(text: &str) -> Option<Dispatch> {
    #[derive(serde::Deserialize)]
    struct Payload {
        op: u8,
        t: Option<String>,
        #[serde(default)]
        d: Value,
    }
    let payload: Payload = match serde_json::from_str(text) {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(error = %cn_compute::Chain(&e), "Discord gateway: a payload that is not JSON");
            return None;
        }
    };
    if payload.op != 0 {
        return None;
    }
    match payload.t.as_deref()? {
        "READY" => {
            let id = payload.d.pointer("/user/id")?.as_str()?.parse().ok()?;
            Some(Dispatch::Ready(id))
        }
        "MESSAGE_CREATE" => match serde_json::from_value::<Message>(payload.d) {
            Ok(msg) => Some(Dispatch::Message(Box::new(msg))),
            Err(e) => {
                tracing::warn!(error = %cn_compute::Chain(&e), "Discord gateway: a MESSAGE_CREATE that does not read");
                None
            }
        },
        _ => None,
    }
}

/// The daemon's way to Discord: typing indicators and answers. Cheap to clone.
#[derive(Clone)]
pub struct DiscordHandle {
    inner: Arc<Inner>,
}

struct Inner {
    http: Client,
    runtime: tokio::runtime::Handle,
    typing_every: Duration,
    /// The running typing keep-alives, by channel.
    keepers: Mutex<HashMap<u64, Vec<Keeper>>>,
    next_id: AtomicU64,
}

/// One keep-alive as the handle sees it.
struct Keeper {
    id: u64,
    stop: watch::Sender<bool>,
    /// Closed when the keep-alive has ended (its last trigger answered).
    ended: watch::Receiver<()>,
}

impl Inner {
    fn keepers(&self) -> MutexGuard<'_, HashMap<u64, Vec<Keeper>>> {
        self.keepers.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ask the keep-alives in `channel` (only `id`, if given) to stop; what to wait on.
    fn signal(&self, channel: u64, id: Option<u64>) -> Vec<watch::Receiver<()>> {
        let keepers = self.keepers();
        let Some(list) = keepers.get(&channel) else { return Vec::new() };
        list.iter()
            .filter(|k| id.is_none_or(|id| k.id == id))
            .map(|k| {
                k.stop.send_replace(true);
                k.ended.clone()
            })
            .collect()
    }
}

impl std::fmt::Debug for DiscordHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiscordHandle").field("typing_every", &self.inner.typing_every).finish_non_exhaustive()
    }
}

fn discord_error(message: impl Into<String>) -> SenseError {
    SenseError::Discord { message: message.into() }
}

impl DiscordHandle {
    /// Show "typing…" in `channel_id` now and every `typing_every` until the guard is
    /// dropped or stopped, or an answer is sent there.
    pub fn typing(&self, channel_id: u64) -> Typing {
        let Some(channel) = Id::<ChannelMarker>::new_checked(channel_id) else {
            tracing::warn!("no typing indicator for channel 0: not a Discord id");
            return Typing { inner: None, channel: channel_id, id: 0 };
        };
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let (stop_tx, stop_rx) = watch::channel(false);
        let (ended_tx, ended_rx) = watch::channel(());
        self.inner.keepers().entry(channel_id).or_default().push(Keeper { id, stop: stop_tx, ended: ended_rx });
        let done = Done { inner: self.inner.clone(), channel: channel_id, id, _ended: ended_tx };
        self.inner.runtime.spawn(keep_typing(self.inner.clone(), channel, stop_rx, done));
        Typing { inner: Some(self.inner.clone()), channel: channel_id, id }
    }

    /// Is a typing keep-alive running in `channel_id`?
    pub fn is_typing(&self, channel_id: u64) -> bool {
        self.inner.keepers().get(&channel_id).is_some_and(|l| !l.is_empty())
    }

    /// Post `text` to `channel_id`, in several messages when it is longer than Discord
    /// allows. Stops the channel's typing indicator first (also when posting fails). Blocks
    /// until Discord has answered; for synchronous threads (an error from async code).
    pub fn send(&self, channel_id: u64, text: &str) -> Result<(), SenseError> {
        let channel = Id::<ChannelMarker>::new_checked(channel_id)
            .ok_or_else(|| discord_error(format!("{channel_id} is not a Discord channel id")))?;
        let parts = plain_parts(text);
        let ended = self.inner.signal(channel_id, None);
        if parts.is_empty() {
            return Err(discord_error("an empty message cannot be sent"));
        }
        let inner = self.inner.clone();
        block_on(&self.inner.runtime, async move {
            for e in ended {
                wait_ended(e).await;
            }
            let n = parts.len();
            for (i, part) in parts.iter().enumerate() {
                // No link previews either: a stranger's URL the model repeats is shown, not
                // fetched by Discord and unfurled under the agent's name.
                let sent = inner.http.create_message(channel).content(part).flags(MessageFlags::SUPPRESS_EMBEDS).await;
                if let Err(source) = sent {
                    return Err(SenseError::DiscordPost { part: i + 1, parts: n, channel: channel.get(), source });
                }
            }
            Ok(())
        })?
    }
}

impl DiscordHandle {
    /// React with `emoji` (a Unicode emoji) to message `message_id` in `channel_id`: a real
    /// reaction, not a message. Blocks until Discord has answered (a synchronous thread).
    pub fn react(&self, channel_id: u64, message_id: u64, emoji: &str) -> Result<(), SenseError> {
        let channel = Id::<ChannelMarker>::new_checked(channel_id)
            .ok_or_else(|| discord_error(format!("{channel_id} is not a Discord channel id")))?;
        let message = Id::<twilight_model::id::marker::MessageMarker>::new_checked(message_id)
            .ok_or_else(|| discord_error(format!("{message_id} is not a Discord message id")))?;
        let emoji = emoji.trim().to_string();
        if emoji.is_empty() {
            return Err(discord_error("an empty emoji cannot be a reaction"));
        }
        let inner = self.inner.clone();
        block_on(&self.inner.runtime, async move {
            let kind = twilight_http::request::channel::reaction::RequestReactionType::Unicode { name: &emoji };
            inner
                .http
                .create_reaction(channel, message, &kind)
                .await
                .map(|_| ())
                .map_err(|e| discord_error(format!("reacting in channel {channel_id}: {e}", e = cn_compute::Chain(&e))))
        })?
    }
}

async fn wait_ended(mut ended: watch::Receiver<()>) {
    // Nothing is ever sent: `changed` fails once the keep-alive drops its sender.
    while ended.changed().await.is_ok() {}
}

/// Trigger the indicator, then again every `typing_every`, until asked to stop. A trigger
/// in flight is always finished, so that once the keep-alive has ended none can follow.
async fn keep_typing(inner: Arc<Inner>, channel: Id<ChannelMarker>, mut stop: watch::Receiver<bool>, _done: Done) {
    while !*stop.borrow() {
        if let Err(e) = inner.http.create_typing_trigger(channel).await {
            tracing::warn!(%channel, error = %cn_compute::Chain(&e), "Discord typing indicator");
        }
        tokio::select! {
            _ = tokio::time::sleep(inner.typing_every) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
    }
}

/// Forgets a keep-alive when it ends — also when its task is dropped with the runtime —
/// and then (by dropping `_ended`) wakes whoever waits for it.
struct Done {
    inner: Arc<Inner>,
    channel: u64,
    id: u64,
    _ended: watch::Sender<()>,
}

impl Drop for Done {
    fn drop(&mut self) {
        let mut keepers = self.inner.keepers();
        if let Some(list) = keepers.get_mut(&self.channel) {
            list.retain(|k| k.id != self.id);
            if list.is_empty() {
                keepers.remove(&self.channel);
            }
        }
    }
}

/// The typing indicator in one channel, kept alive while this guard lives. Dropping it
/// stops the keep-alive without waiting; [`Typing::stop`] waits until it has ended.
#[must_use = "the typing indicator stops when the guard is dropped"]
pub struct Typing {
    inner: Option<Arc<Inner>>,
    channel: u64,
    id: u64,
}

impl Typing {
    /// The channel it types in.
    pub fn channel(&self) -> u64 {
        self.channel
    }

    /// Stop, and wait until the last trigger has been answered: after this returns no
    /// trigger from this guard reaches Discord. (From async code it only asks to stop.)
    pub fn stop(mut self) {
        let Some(inner) = self.inner.take() else { return };
        let ended = inner.signal(self.channel, Some(self.id));
        if let Err(e) = block_on(&inner.runtime, async move {
            for e in ended {
                wait_ended(e).await;
            }
        }) {
            tracing::debug!(e = %cn_compute::Chain(&e), "typing indicator asked to stop without waiting");
        }
    }
}

impl Drop for Typing {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.take() {
            inner.signal(self.channel, Some(self.id));
        }
    }
}

impl std::fmt::Debug for Typing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Typing").field("channel", &self.channel).field("active", &self.inner.is_some()).finish()
    }
}

/// The Discord [`Channel`]: while a model works on an item that
/// came from a Discord channel, that channel shows "typing…"; when the item is decided with
/// a reply, the reply is sent there (which ends the typing); any other end stops the typing.
pub struct DiscordChannel {
    handle: DiscordHandle,
    typing: HashMap<u64, Typing>,
}

impl DiscordChannel {
    pub fn new(handle: DiscordHandle) -> Self {
        DiscordChannel { handle, typing: HashMap::new() }
    }
}

/// The Discord channel an answer goes to (`AnswerTo::Discord`'s, as written).
pub(crate) fn at(channel: &str) -> Option<u64> {
    channel.parse().ok()
}

impl Channel for DiscordChannel {
    type At = u64;

    fn typing(&mut self, &ch: &u64, _item: &cn_agent::Item, _level: cn_compute::Level) {
        let handle = &self.handle;
        self.typing.entry(ch).or_insert_with(|| handle.typing(ch));
    }

    fn finished(&mut self, ch: u64, item: &cn_agent::Item, told: Option<String>) {
        if let Some(message) = told {
            // `send` stops the channel's typing before the message goes out.
            if let Err(e) = self.handle.send(ch, &message) {
                tracing::error!(channel = ch, item = %item.id, e = %cn_compute::Chain(&e), "cannot deliver the reply to Discord");
            }
        }
        if let Some(t) = self.typing.remove(&ch) {
            t.stop();
        }
    }

    fn tell(&mut self, ch: u64, text: &str) -> Result<(), SenseError> {
        self.handle.send(ch, text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_splits_at_line_breaks_within_the_limit() {
        assert_eq!(split("hello", 2000), ["hello"]);
        assert!(split("  \n ", 2000).is_empty());
        let para = "x".repeat(1500);
        let text = format!("{para}\n{para}\n{para}");
        let parts = split(&text, 2000);
        assert_eq!(parts, [para.clone(), para.clone(), para.clone()]);
        // No break at all: hard cuts, nothing lost.
        let long = "é".repeat(4500);
        let parts = split(&long, 2000);
        assert_eq!(parts.iter().map(|p| p.chars().count()).collect::<Vec<_>>(), [2000, 2000, 500]);
        assert_eq!(parts.concat(), long);
        // Words: cut at a space, each part within the limit, words intact.
        let words = "word ".repeat(1000);
        let parts = split(&words, 2000);
        assert!(parts.iter().all(|p| p.chars().count() <= 2000 && !p.starts_with(' ')));
        assert_eq!(parts.join(" ").split_whitespace().count(), 1000);
    }

    #[test]
    fn answers_are_plain_text_whatever_markup_they_repeat() {
        assert_eq!(plain("see [your bank](https://evil.test)"), "see \\[your bank\\](https://evil.test)");
        assert_eq!(plain("# Heading\n- item\n  > quote"), "\\# Heading\n\\- item\n  \\> quote");
        assert_eq!(
            plain("a-b #1 **bold** ||x|| <@123> `c` \\"),
            "a-b #1 \\*\\*bold\\*\\* \\|\\|x\\|\\| \\<@123\\> \\`c\\` \\\\"
        );
        // Long answers: every part within the limit, nothing lost, no escape cut off.
        let text = "[".repeat(3000);
        let parts = plain_parts(&text);
        assert!(parts.len() > 2 && parts.iter().all(|p| p.chars().count() <= MESSAGE_MAX && p.starts_with("\\[")));
        assert_eq!(parts.concat(), "\\[".repeat(3000));
    }

    #[test]
    fn api_base_and_gateway_url_are_checked() {
        assert_eq!(api_host("https://discord.com").unwrap(), ("discord.com".into(), false));
        assert_eq!(api_host("http://127.0.0.1:8080/").unwrap(), ("127.0.0.1:8080".into(), true));
        assert!(api_host("discord.com").unwrap_err().to_string().contains("api_base"));
        assert!(api_host("ftp://x").is_err());
        assert_eq!(gateway_url("ws://127.0.0.1:9/").unwrap(), "ws://127.0.0.1:9");
        assert!(gateway_url("http://127.0.0.1:9").unwrap_err().to_string().contains("gateway_url"));
        assert!(gateway_url("wss://").is_err());
    }
}
