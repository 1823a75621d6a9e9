//! `senses:` (cn-autonomy): where percepts come from, each sense on when its key is present.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};

use super::{duration, or_default};

/// `senses:` — each sense is on when its key is present (the owner endpoint by default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SensesConfig {
    /// Address of the HTTP server for the owner endpoint and GitHub webhooks.
    pub bind: SocketAddr,
    /// Whether `bind` may be an address other than loopback (issue 34): the owner endpoint
    /// is plain HTTP, so its token would cross the network in clear. GitHub's webhook needs
    /// a public address; put a TLS proxy in front, or say so here.
    pub allow_remote: bool,
    pub owner: OwnerConfig,
    pub github: Option<GithubConfig>,
    pub discord: Option<DiscordConfig>,
    pub telegram: Option<TelegramConfig>,
    pub email: Option<EmailConfig>,
    pub files: Option<FilesConfig>,
    pub calendar: Vec<CalendarConfig>,
    /// Peer mail: on by default — the daemon syncs whenever the hub has peers.
    #[serde(deserialize_with = "or_default")]
    pub peers: PeersConfig,
}

impl Default for SensesConfig {
    fn default() -> Self {
        SensesConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 7878)),
            allow_remote: false,
            owner: OwnerConfig::default(),
            github: None,
            discord: None,
            telegram: None,
            email: None,
            files: None,
            calendar: Vec::new(),
            peers: PeersConfig::default(),
        }
    }
}

/// `senses.owner:` — `POST /owner/message`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OwnerConfig {
    pub enabled: bool,
    /// Environment variable holding a bearer token the request must carry.
    pub token_env: Option<String>,
    /// Where the owner's reminders are told when they were not asked on a channel
    /// (`cn task add --remind`, `cn schedule add --remind`): `chat` (the default: `cn chat`
    /// and the control room show it), `telegram:CHAT_ID`, `discord:CHANNEL_ID`,
    /// `email:ADDRESS` or `peer:NAME`.
    pub remind: Option<String>,
}

impl Default for OwnerConfig {
    fn default() -> Self {
        OwnerConfig { enabled: true, token_env: None, remind: None }
    }
}

impl OwnerConfig {
    /// Where the owner's reminders are told ([`OwnerConfig::remind`]), or why
    /// `senses.owner.remind` cannot be read (checked when cn.yaml is loaded).
    pub fn reminders_to(&self) -> Result<crate::origin::AnswerTo, String> {
        use crate::origin::{AnswerTo, Via};
        let Some(said) = self.remind.as_deref().map(str::trim) else { return Ok(AnswerTo::Chat) };
        let bad = |why: &str| {
            format!("`{said}` {why} (chat, telegram:CHAT_ID, discord:CHANNEL_ID, email:ADDRESS or peer:NAME)")
        };
        let (via, at) = match said.split_once(':') {
            None => (said, ""),
            Some((via, at)) => (via.trim(), at.trim()),
        };
        let number = || match at.parse::<i64>() {
            Ok(_) => Ok(at.to_string()),
            Err(_) => Err(bad("does not name a chat or channel by its number")),
        };
        match (Via::of_name(via), at) {
            (Via::None, _) => Err(bad("is not a channel")),
            (Via::Chat, "") => Ok(AnswerTo::Chat),
            (Via::Telegram, at) if !at.is_empty() => Ok(AnswerTo::Telegram { chat: number()?, message: None }),
            (Via::Discord, at) if !at.is_empty() => Ok(AnswerTo::Discord { channel: number()?, message: None }),
            (Via::Email, at) if !at.is_empty() => {
                Ok(AnswerTo::Email { to: at.into(), message: None, subject: None, references: None, no_reply: false })
            }
            (Via::Peer, at) if !at.is_empty() => Ok(AnswerTo::Peer { to: at.into() }),
            _ => Err(bad("says where, but not whom")),
        }
    }
}

/// `senses.github:` — webhook receiver and/or notification polling.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GithubConfig {
    /// Environment variable holding the webhook secret (e.g. `CN_GITHUB_WEBHOOK_SECRET`);
    /// the webhook route exists only when this is set.
    pub secret_env: Option<String>,
    /// Logins whose events count as the owner's.
    pub owners: Vec<String>,
    pub poll: Option<PollConfig>,
}

/// `senses.github.poll:` — the notifications API.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PollConfig {
    pub token_env: String,
    pub base_url: String,
    #[serde(with = "duration")]
    pub every: Duration,
}

impl Default for PollConfig {
    fn default() -> Self {
        PollConfig {
            token_env: "GITHUB_TOKEN".into(),
            base_url: "https://api.github.com".into(),
            every: Duration::from_secs(60),
        }
    }
}

/// `senses.peers:` — while the hub has peers (cn.yaml's `peers:` or `cn peer add`), the
/// daemon runs `cn sync` every `every` (mail in from peers, the outbox out to `origin`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PeersConfig {
    /// `false`: the daemon never syncs (`cn sync` by hand, or from cron).
    pub enabled: bool,
    #[serde(with = "duration")]
    pub every: Duration,
}

impl Default for PeersConfig {
    fn default() -> Self {
        PeersConfig { enabled: true, every: Duration::from_secs(300) }
    }
}

/// `senses.discord:` — a bot on Discord's gateway; its messages become percepts, and the
/// daemon answers through it (with the typing indicator while it works).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DiscordConfig {
    /// Environment variable holding the bot token.
    pub token_env: String,
    /// Channel ids whose messages are sensed; empty: every channel the bot sees (and DMs).
    #[serde(deserialize_with = "snowflakes")]
    pub channels: Vec<u64>,
    /// User ids whose messages count as the owner's.
    #[serde(deserialize_with = "snowflakes")]
    pub owners: Vec<u64>,
    /// Base URL of the HTTP API (`/api/v10/…` follows it).
    pub api_base: String,
    /// The gateway's websocket URL, when not Discord's own (tests, a gateway proxy).
    pub gateway_url: Option<String>,
    /// How often the typing indicator is triggered again while the executive works (Discord
    /// shows it for about ten seconds).
    #[serde(with = "duration")]
    pub typing_every: Duration,
}

impl Default for DiscordConfig {
    fn default() -> Self {
        DiscordConfig {
            token_env: "DISCORD_TOKEN".into(),
            channels: Vec::new(),
            owners: Vec::new(),
            api_base: "https://discord.com".into(),
            gateway_url: None,
            typing_every: Duration::from_secs(8),
        }
    }
}

/// Discord ids (snowflakes) as YAML numbers or strings: `[1234]` or `["1234"]`.
fn snowflakes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    numeric_ids(d, "a Discord id")
}

/// Ids written as YAML numbers or strings, each read as a `T`; `what` names one in errors.
fn numeric_ids<'de, D, T>(d: D, what: &str) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + std::str::FromStr,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw<T> {
        Number(T),
        Text(String),
    }
    Vec::<Raw<T>>::deserialize(d)?
        .into_iter()
        .map(|r| match r {
            Raw::Number(n) => Ok(n),
            Raw::Text(t) => {
                t.trim().parse().map_err(|_| serde::de::Error::custom(format!("`{t}` is not {what} (a number)")))
            }
        })
        .collect()
}

/// `senses.telegram:` — a bot on Telegram's Bot API, long polling `getUpdates` (no public
/// URL needed); its messages become percepts, and the daemon answers in the same chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelegramConfig {
    /// Environment variable holding the bot token (from @BotFather).
    pub token_env: String,
    /// Telegram user ids whose messages count as the owner's (a username can change hands;
    /// an id cannot).
    #[serde(deserialize_with = "telegram_ids")]
    pub owners: Vec<i64>,
    /// Chat ids whose messages are sensed; empty: every chat the bot is in (and private
    /// chats).
    #[serde(deserialize_with = "telegram_ids")]
    pub chats: Vec<i64>,
    /// Base URL of the Bot API (`/bot<token>/<method>` follows it).
    pub api_base: String,
    /// How long one `getUpdates` long poll waits for a message before asking again.
    #[serde(with = "duration")]
    pub poll_timeout: Duration,
    /// How often "typing…" is sent again while a model works (Telegram shows it for five
    /// seconds).
    #[serde(with = "duration")]
    pub typing_every: Duration,
}

impl Default for TelegramConfig {
    fn default() -> Self {
        TelegramConfig {
            token_env: "TELEGRAM_BOT_TOKEN".into(),
            owners: Vec::new(),
            chats: Vec::new(),
            api_base: "https://api.telegram.org".into(),
            poll_timeout: Duration::from_secs(30),
            typing_every: Duration::from_secs(4),
        }
    }
}

/// `senses.email:` — mail read over IMAP from one folder (IDLE where the server offers it,
/// polling otherwise) and answered over SMTP, threaded. The owner is an address in `owners`,
/// and only when the receiving server's `Authentication-Results` (from `authserv_id`) pass
/// or the secret tag (from `tag_env`) is present: a From line alone is forgeable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EmailConfig {
    /// The agent's own address: the From of its answers.
    pub address: String,
    pub imap: MailServerConfig,
    pub smtp: MailServerConfig,
    /// The folder read (`INBOX` unless set).
    pub folder: String,
    /// Addresses whose mail counts as the owner's (when authenticated, see above).
    pub owners: Vec<String>,
    /// The authserv-id of the receiving server whose `Authentication-Results` are trusted
    /// (e.g. `mx.example.com`); none: no such header is trusted.
    pub authserv_id: Option<String>,
    /// Environment variable holding a secret tag; mail with it in the subject or in a
    /// recipient's `+tag` counts as authenticated.
    pub tag_env: Option<String>,
    /// How often the folder is read when the server has no IDLE (and the longest an IDLE
    /// waits before it is renewed).
    #[serde(with = "duration")]
    pub poll_every: Duration,
}

impl Default for EmailConfig {
    fn default() -> Self {
        EmailConfig {
            address: String::new(),
            imap: MailServerConfig { port: 993, ..MailServerConfig::default() },
            smtp: MailServerConfig { port: 465, ..MailServerConfig::default() },
            folder: "INBOX".into(),
            owners: Vec::new(),
            authserv_id: None,
            tag_env: None,
            poll_every: Duration::from_secs(60),
        }
    }
}

/// One mail server (`senses.email.imap`, `senses.email.smtp`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MailServerConfig {
    pub host: String,
    pub port: u16,
    /// `tls` (implicit TLS: 993, 465), `starttls` (SMTP 587), or `plain` (only to a loopback
    /// address: a password never crosses a network in clear).
    pub security: MailSecurity,
    /// The login; the agent's address when empty.
    pub user: String,
    /// Environment variable holding the password.
    pub password_env: String,
}

impl Default for MailServerConfig {
    fn default() -> Self {
        MailServerConfig {
            host: String::new(),
            port: 0,
            security: MailSecurity::Tls,
            user: String::new(),
            password_env: "CN_EMAIL_PASSWORD".into(),
        }
    }
}

/// How a mail connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MailSecurity {
    Tls,
    Starttls,
    Plain,
}

/// Telegram ids as YAML numbers or strings (group chats are negative): `[42]`, `["-100123"]`.
fn telegram_ids<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<i64>, D::Error> {
    numeric_ids(d, "a Telegram id")
}

/// `senses.files:` — a debounced watcher.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FilesConfig {
    /// Paths to watch, relative to the hub (or absolute).
    pub paths: Vec<PathBuf>,
    #[serde(with = "duration")]
    pub debounce: Duration,
    /// Path components to ignore; the hub's own `state`, `threads`, `.git` and lock by
    /// default, so the agent's own writes do not wake it.
    pub ignore: Vec<String>,
}

impl Default for FilesConfig {
    fn default() -> Self {
        FilesConfig {
            paths: Vec::new(),
            debounce: Duration::from_millis(500),
            ignore: vec![
                ".git".into(),
                crate::layout::STATE.into(),
                crate::layout::THREADS.into(),
                crate::layout::LOCK.into(),
            ],
        }
    }
}

/// One `senses.calendar:` entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalendarConfig {
    /// An `http(s)://` URL or a file path (relative to the hub).
    pub source: String,
    /// How long before an event starts it becomes a percept.
    #[serde(default = "default_lead", with = "duration")]
    pub lead: Duration,
    /// How often the calendar is read again.
    #[serde(default = "default_refresh", with = "duration")]
    pub refresh: Duration,
}

fn default_lead() -> Duration {
    Duration::from_secs(15 * 60)
}
fn default_refresh() -> Duration {
    Duration::from_secs(15 * 60)
}
