//! `Percept` — something sensed outside the agent (the owner, GitHub, the calendar, a file,
//! a peer). Senses make them; attention scores them together with impulses.

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Which sense produced a percept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SenseKind {
    /// The owner's endpoint or `cn chat`.
    Owner,
    Discord,
    Telegram,
    /// Mail over IMAP.
    Email,
    Github,
    Calendar,
    File,
    /// Mail from a peer hub (`cn sync`).
    Peer,
}

impl SenseKind {
    pub fn name(self) -> &'static str {
        match self {
            SenseKind::Owner => "owner",
            SenseKind::Discord => "discord",
            SenseKind::Telegram => "telegram",
            SenseKind::Email => "email",
            SenseKind::Github => "github",
            SenseKind::Calendar => "calendar",
            SenseKind::File => "file",
            SenseKind::Peer => "peer",
        }
    }
}

/// One thing sensed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Percept {
    /// Links every journal entry about this percept (`p-…`).
    pub id: String,
    pub sense: SenseKind,
    /// From the owner: always first, never shed.
    pub owner: bool,
    /// One line a person can read in the journal.
    pub summary: String,
    /// Percepts with the same key are the same thing sensed again (one file, one issue) and
    /// are coalesced in the pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// When it was sensed.
    pub at: Timestamp,
    /// When it matters, if it has a time (a calendar event's start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<Timestamp>,
    /// The sense's own payload (the webhook's event, the message text, the path).
    #[serde(default)]
    pub data: Value,
}

impl Percept {
    pub fn new(sense: SenseKind, summary: impl Into<String>) -> Self {
        Percept {
            id: cn_hub::id::prefixed("p"),
            sense,
            owner: sense == SenseKind::Owner,
            summary: summary.into(),
            key: None,
            at: Timestamp::now(),
            due: None,
            data: Value::Null,
        }
    }
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
    pub fn data(mut self, data: Value) -> Self {
        self.data = data;
        self
    }
    pub fn due(mut self, due: Timestamp) -> Self {
        self.due = Some(due);
        self
    }
    pub fn owner(mut self, owner: bool) -> Self {
        self.owner = owner;
        self
    }
}
