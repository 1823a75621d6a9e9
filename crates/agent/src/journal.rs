//! The journal entries cn-agent writes, one typed record each (`cn_storage::Typed`): a
//! decision ([`Decision`]), a mail queued by `cn send` ([`Sent`]) and a sync that moved mail
//! ([`Synced`]). A field that is `None` is left out of the line; the order of the fields is
//! the line's.

use cn_compute::Level;
use cn_storage::Typed;
use serde::Serialize;
use serde_json::{Map, Value};

/// A `decision` entry: what was decided on an item, cn's fields and then document 003's
/// (what it was about, why, what was done). Made durable before `decide` goes on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision<'a> {
    pub id: &'a str,
    pub summary: String,
    pub item: &'a str,
    pub from: &'a str,
    pub cadence: &'a str,
    pub decided: &'a str,
    /// The decision's key: a decision is journaled once per key.
    pub key: &'a str,
    pub item_kind: &'a str,
    pub author: String,
    /// The decision itself (`gtd`, `op` and the op's fields; a mail's body left out).
    #[serde(flatten)]
    pub gtd: Map<String, Value>,
    pub place: &'a str,
    pub mail: &'a [String],
    /// What the op's effect reports of itself.
    #[serde(flatten)]
    pub facts: &'a Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handed_up: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    pub context: String,
    pub reasoning: String,
    pub action: String,
}

impl Typed for Decision<'_> {
    fn kind(&self) -> &'static str {
        "decision"
    }
}

/// A `send` entry: a mail to a peer queued by `cn send`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sent<'a> {
    pub to: &'a str,
    pub thread: &'a str,
    pub message: &'a str,
}

impl Typed for Sent<'_> {
    fn kind(&self) -> &'static str {
        "send"
    }
}

/// A `sync` entry: the peer mail a sync moved (ids sent, received, rejected).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Synced<'a> {
    pub summary: String,
    pub sent: &'a [String],
    pub received: &'a [String],
    pub rejected: &'a [String],
}

impl Typed for Synced<'_> {
    fn kind(&self) -> &'static str {
        "sync"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_storage::Entry;
    use serde_json::json;

    const TS: &str = "2026-01-06T15:00:00Z";

    /// The decision's line, byte for byte what the entry built field by field wrote before —
    /// an op's field named like one of cn's keeps cn's place, as it did.
    #[test]
    fn a_decision_keeps_its_line() {
        let mut gtd = Map::new();
        gtd.insert("gtd".into(), json!("do"));
        gtd.insert("op".into(), json!("reply"));
        gtd.insert("message".into(), json!("hi"));
        gtd.insert("level".into(), json!(9));
        let mut facts = Map::new();
        facts.insert("answered".into(), json!(true));
        let mail = vec!["m-1".to_string()];
        let d = Decision {
            id: "it-1",
            summary: "reply: hi (item from owner)".into(),
            item: "it-1",
            from: "owner",
            cadence: "now",
            decided: TS,
            key: "k1",
            item_kind: "message",
            author: "owner".into(),
            gtd: gtd.clone(),
            place: "threads/archived/it-1.md",
            mail: &mail,
            facts: &facts,
            handed_up: None,
            level: Some(3),
            context: "chat: “hi”".into(),
            reasoning: "the executive decided".into(),
            action: "reply: hi".into(),
        };
        let mut before = Entry::at(TS, "decision")
            .with("id", "it-1")
            .with("summary", "reply: hi (item from owner)")
            .with("item", "it-1")
            .with("from", "owner")
            .with("cadence", "now")
            .with("decided", TS)
            .with("key", "k1")
            .with("item_kind", "message")
            .with("author", "owner");
        for (k, v) in gtd {
            before = before.with(&k, v);
        }
        before = before.with("place", "threads/archived/it-1.md").with("mail", mail.clone()).with("answered", true);
        before = before
            .with("level", 3u8)
            .with("context", "chat: “hi”")
            .with("reasoning", "the executive decided")
            .with("action", "reply: hi");
        let now = Entry::of_at(&d, TS);
        assert_eq!(now.json_line(), before.json_line());
        assert_eq!(
            now.json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"decision","id":"it-1","summary":"reply: hi (item from owner)","item":"it-1","from":"owner","cadence":"now","decided":"2026-01-06T15:00:00Z","key":"k1","item_kind":"message","author":"owner","gtd":"do","op":"reply","message":"hi","level":3,"place":"threads/archived/it-1.md","mail":["m-1"],"answered":true,"context":"chat: “hi”","reasoning":"the executive decided","action":"reply: hi"}"#
        );
    }

    #[test]
    fn send_and_sync_keep_their_lines() {
        let sent = Sent { to: "pi", thread: "m-1", message: "hello" };
        assert_eq!(
            Entry::of_at(&sent, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"send","to":"pi","thread":"m-1","message":"hello"}"#
        );
        let (sent, received, rejected) = (vec!["a".to_string()], vec![], vec!["b".to_string()]);
        let synced =
            Synced { summary: "peer mail synced".into(), sent: &sent, received: &received, rejected: &rejected };
        assert_eq!(
            Entry::of_at(&synced, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"sync","summary":"peer mail synced","sent":["a"],"received":[],"rejected":["b"]}"#
        );
    }
}
