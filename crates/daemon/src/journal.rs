//! The journal entries the daemon writes of its own, one typed record each
//! (`cn_storage::Typed`): an item taken ([`Taken`]), an idea explored ([`Explored`]), the
//! budget refusing the executive ([`BudgetRefused`]), a reaction ([`Reacted`]), cn.yaml
//! changing under it ([`ConfigChanged`]), an MCP server's state ([`McpServer`]), the
//! lease taken over ([`LeaseTaken`]) and a reminder told ([`Reminded`]). Entries in the document's shape are
//! `cn_hub::journal::Record`s. A field that is `None` is left out of the line; the order of
//! the fields is the line's.

use cn_storage::Typed;
use serde::Serialize;

/// An `observation`: the daemon took an item to work on — where it came from, who wrote
/// it, what it is, its first line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Taken<'a> {
    pub id: &'a str,
    pub summary: String,
    pub origin: String,
    pub provenance: String,
    pub kind: &'a str,
    pub context: &'a str,
}

/// An `exploration`: an item born of an idea, explored — the idea, how long, the outcome,
/// what was learned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explored<'a> {
    pub id: &'a str,
    pub idea: &'a str,
    pub idea_id: &'a str,
    pub provenance: String,
    pub duration_sec: i64,
    pub outcome: &'a str,
    pub learned: &'a str,
}

/// A `budget` entry: the executive was not asked, and until when.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BudgetRefused<'a> {
    pub summary: String,
    /// `refused`.
    pub outcome: &'static str,
    pub refusal: &'a str,
    /// null when the refusal names no end.
    pub until: Option<&'a str>,
}

/// A `reaction` entry: an emoji put on the message an item came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reacted<'a> {
    pub id: &'a str,
    pub summary: String,
    pub emoji: &'a str,
}

/// An `observation`: cn.yaml (or the peers) changed under the running daemon — taken (the
/// sections that changed), refused (why), or back to what it runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfigChanged<'a> {
    pub id: String,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sections: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    pub outcome: &'a str,
}

/// An `observation`: an MCP server is ready (its tools) or down (why).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct McpServer<'a> {
    pub summary: String,
    pub server: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}

/// An `observation`: this clone took over the hub's lease — its term, what it carried over
/// and dropped, the item it resumes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeaseTaken<'a> {
    pub id: String,
    pub summary: String,
    pub context: &'a str,
    /// `active`.
    pub outcome: &'static str,
    pub term: u64,
    pub carried: u64,
    pub dropped: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumed: Option<&'a str>,
}

/// A `reminder` entry: a task's reminder told where it was asked (`told`), or not (`not
/// delivered`, with the error; `skipped`). On the owner's chat the entry is the message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reminded<'a> {
    pub id: &'a str,
    /// The reminder's text.
    pub summary: String,
    pub task: &'a str,
    /// `told`, `not delivered` or `skipped`.
    pub outcome: &'static str,
    /// Where it was asked: the channel, and whom or which conversation on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<&'a str>,
    /// Who filed the task, when not the owner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'a str>,
    /// Why it was not delivered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

macro_rules! typed {
    ($($t:ident => $kind:literal),* $(,)?) => {$(
        impl Typed for $t<'_> {
            fn kind(&self) -> &'static str {
                $kind
            }
        }
    )*};
}
typed!(
    Taken => "observation",
    Explored => "exploration",
    BudgetRefused => "budget",
    Reacted => "reaction",
    ConfigChanged => "observation",
    McpServer => "observation",
    LeaseTaken => "observation",
    Reminded => "reminder",
);

#[cfg(test)]
mod tests {
    use super::*;
    use cn_storage::Entry;

    const TS: &str = "2026-01-06T15:00:00Z";

    /// Each record's line, byte for byte what the entry built field by field wrote before.
    #[test]
    fn the_daemons_entries_keep_their_lines() {
        let taken = Taken {
            id: "it-1",
            summary: "took item it-1 from owner".into(),
            origin: "chat from the owner".into(),
            provenance: "owner".into(),
            kind: "message",
            context: "hello",
        };
        assert_eq!(
            Entry::of_at(&taken, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"observation","id":"it-1","summary":"took item it-1 from owner","origin":"chat from the owner","provenance":"owner","kind":"message","context":"hello"}"#
        );
        let explored = Explored {
            id: "it-2",
            idea: "tides",
            idea_id: "idea-1",
            provenance: "agent".into(),
            duration_sec: 120,
            outcome: "do: reply",
            learned: "A, B",
        };
        assert_eq!(
            Entry::of_at(&explored, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"exploration","id":"it-2","idea":"tides","idea_id":"idea-1","provenance":"agent","duration_sec":120,"outcome":"do: reply","learned":"A, B"}"#
        );
        let refused = BudgetRefused {
            summary: "the executive was not asked: over budget".into(),
            outcome: "refused",
            refusal: "over budget",
            until: None,
        };
        assert_eq!(
            Entry::of_at(&refused, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"budget","summary":"the executive was not asked: over budget","outcome":"refused","refusal":"over budget","until":null}"#
        );
        let reacted = Reacted { id: "it-3", summary: "reacted 👍 to it-3".into(), emoji: "👍" };
        assert_eq!(
            Entry::of_at(&reacted, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"reaction","id":"it-3","summary":"reacted 👍 to it-3","emoji":"👍"}"#
        );
    }

    #[test]
    fn config_mcp_and_lease_entries_keep_their_lines() {
        let sections = vec!["models".to_string(), "senses".to_string()];
        let changed = ConfigChanged {
            id: "config-1".into(),
            summary: "cn.yaml changed".into(),
            sections: Some(&sections),
            error: None,
            outcome: "started again",
        };
        let before = Entry::at(TS, "observation")
            .with("id", "config-1")
            .with("summary", "cn.yaml changed")
            .with("sections", sections.clone())
            .with("outcome", "started again");
        assert_eq!(Entry::of_at(&changed, TS).json_line(), before.json_line());
        let refused = ConfigChanged { sections: None, error: Some("bad key"), ..changed };
        assert_eq!(
            Entry::of_at(&refused, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"observation","id":"config-1","summary":"cn.yaml changed","error":"bad key","outcome":"started again"}"#
        );
        let tools = vec!["fs.read".to_string()];
        let ready = McpServer { summary: "ready".into(), server: "fs", tools: Some(&tools), error: None };
        assert_eq!(
            Entry::of_at(&ready, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"observation","summary":"ready","server":"fs","tools":["fs.read"]}"#
        );
        let down = McpServer { summary: "down".into(), server: "fs", tools: None, error: Some("gone") };
        assert_eq!(
            Entry::of_at(&down, TS).json_line(),
            Entry::at(TS, "observation").with("summary", "down").with("server", "fs").with("error", "gone").json_line()
        );
        let lease = LeaseTaken {
            id: "lease-1".into(),
            summary: "took over".into(),
            context: "history",
            outcome: "active",
            term: 7,
            carried: 2,
            dropped: 0,
            resumed: Some("it-4"),
        };
        assert_eq!(
            Entry::of_at(&lease, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"observation","id":"lease-1","summary":"took over","context":"history","outcome":"active","term":7,"carried":2,"dropped":0,"resumed":"it-4"}"#
        );
    }

    /// The reminder's lines, byte for byte what the entry built field by field wrote before
    /// (the error after every other field); `cn chat` shows a `told` one on `chat`.
    #[test]
    fn reminder_entries_keep_their_lines() {
        let told = Reminded {
            id: "t-1",
            summary: "Reminder: call the bank.".into(),
            task: "call the bank",
            outcome: "told",
            via: Some("chat"),
            to: None,
            source: None,
            error: None,
        };
        assert_eq!(
            Entry::of_at(&told, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"reminder","id":"t-1","summary":"Reminder: call the bank.","task":"call the bank","outcome":"told","via":"chat"}"#
        );
        let lost = Reminded {
            outcome: "not delivered",
            via: Some("telegram"),
            to: Some("42"),
            source: Some("telegram:ada"),
            error: Some("no telegram sense is running to tell it on".into()),
            ..told.clone()
        };
        let before = Entry::at(TS, "reminder")
            .with("id", "t-1")
            .with("summary", "Reminder: call the bank.")
            .with("task", "call the bank")
            .with("outcome", "not delivered")
            .with("via", "telegram")
            .with("to", "42")
            .with("source", "telegram:ada")
            .with("error", "no telegram sense is running to tell it on");
        assert_eq!(Entry::of_at(&lost, TS).json_line(), before.json_line());
        assert_eq!(
            Entry::of_at(&lost, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"reminder","id":"t-1","summary":"Reminder: call the bank.","task":"call the bank","outcome":"not delivered","via":"telegram","to":"42","source":"telegram:ada","error":"no telegram sense is running to tell it on"}"#
        );
        let skipped = Reminded { summary: "not a reminder".into(), outcome: "skipped", via: None, ..told };
        assert_eq!(
            Entry::of_at(&skipped, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"reminder","id":"t-1","summary":"not a reminder","task":"call the bank","outcome":"skipped"}"#
        );
    }
}
