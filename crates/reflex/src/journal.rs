//! The journal entries the reflexes write, one typed record each (`cn_storage::Typed`): a
//! reflex's run ([`Ran`]), its shadow run and the comparison with the decision its item got
//! ([`Shadowed`], [`Compared`]), a change to a reflex's file or standing ([`Changed`]), a
//! reflex's `log` step ([`Logged`]) and the routine's act on a task or idea ([`Routine`]).
//! A field that is `None` is left out of the line; the order of the fields is the line's.

use cn_compute::Level;
use cn_storage::Typed;
use serde::Serialize;
use serde_json::Value;

/// A `reflex` entry: a reflex ran on a message (matched, its steps, its outcome).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ran<'a> {
    pub summary: String,
    pub pattern: &'a str,
    pub name: &'a str,
    pub level: Level,
    /// How it was triggered (`pattern`, `heuristic`; null for none).
    pub trigger: Value,
    /// Its last step's action (null when it had none).
    pub action: Option<&'a str>,
    pub actions: Vec<&'a str>,
    pub skipped_executive: bool,
    /// `ok`, `escalated` or `error`.
    pub outcome: &'static str,
    pub latency_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'a str>,
    /// Why it failed (outcome `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
    /// Why it escalated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triage: Option<&'a str>,
    /// A test run (`cn reflex test`): only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub test: bool,
}

/// A `reflex` entry: a shadow reflex's run, what it would have done.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shadowed<'a> {
    pub pattern: &'a str,
    pub name: &'a str,
    pub level: Level,
    /// `shadow`.
    pub action: &'static str,
    /// true.
    pub shadow: bool,
    /// false.
    pub skipped_executive: bool,
    /// `would OP`.
    pub outcome: String,
    pub would: &'a str,
    pub check: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_reply: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_file: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<&'a str>,
}

impl<'a> Shadowed<'a> {
    /// The shadow run of `name` at `level`, which would do `would`.
    pub fn new(name: &'a str, level: Level, would: &'a str, check: bool) -> Self {
        Shadowed {
            pattern: name,
            name,
            level,
            action: "shadow",
            shadow: true,
            skipped_executive: false,
            outcome: format!("would {would}"),
            would,
            check,
            would_reply: None,
            would_file: None,
            reason: None,
            item: None,
            source: None,
        }
    }
}

/// A `reflex` entry: a shadow run compared with the decision its item got.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compared<'a> {
    pub pattern: &'a str,
    pub name: &'a str,
    /// `compare`.
    pub action: &'static str,
    pub would: &'a str,
    pub decided: &'a str,
    /// The deciding level, or `"owner"`.
    pub decided_by: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<&'a str>,
    /// `agreed`, `disagreed` or `not compared`.
    pub outcome: &'static str,
    /// false: not counted (decided below the executive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counted: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agreed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compared: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distinct_agreed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A `reflex` entry: a reflex's file or standing changed — written, proposed, promoted,
/// demoted, refused promotion, enabled, disabled — by whom, why, and whether it was
/// committed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Changed<'a> {
    pub pattern: &'a str,
    pub name: &'a str,
    /// `write`, `propose`, `promote`, `demote`, `enable`, `disable`.
    pub action: &'a str,
    /// What it is now (`shadow`, `active`, `enabled`, `off`, `disabled`, `refused`).
    pub outcome: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<&'a str>,
    /// The approval it was written on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'a str>,
    /// What it was learned from (`executive`, `proposal`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learned: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dry_run_on: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_items: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub committed: Option<bool>,
}

impl<'a> Changed<'a> {
    /// Reflex `name` had `action` done, and is `outcome` now.
    pub fn new(name: &'a str, action: &'a str, outcome: &'a str) -> Self {
        Changed {
            pattern: name,
            name,
            action,
            outcome,
            by: None,
            approval: None,
            reason: None,
            learned: None,
            dry_run_on: None,
            trigger: None,
            op: None,
            from_items: None,
            committed: None,
        }
    }
}

macro_rules! reflex_entries {
    ($($t:ident),*) => {$(
        impl Typed for $t<'_> {
            fn kind(&self) -> &'static str {
                "reflex"
            }
        }
    )*};
}
reflex_entries!(Ran, Shadowed, Compared, Changed);

/// A `log` entry: a reflex's `log` step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Logged<'a> {
    pub reflex: &'a str,
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub test: bool,
}

impl Typed for Logged<'_> {
    fn kind(&self) -> &'static str {
        "log"
    }
}

/// A `routine` entry: what one routine outcome changed, in words, what was done (`act`) to
/// which task or idea, who asked (`by`, when not the owner), and what the learned
/// understanding read in the message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Routine<'a> {
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub understood: Option<Value>,
}

impl Typed for Routine<'_> {
    fn kind(&self) -> &'static str {
        "routine"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_storage::Entry;
    use serde_json::json;

    const TS: &str = "2026-01-06T15:00:00Z";

    /// Each record's line, byte for byte what the entry built field by field wrote before.
    #[test]
    fn reflex_entries_keep_their_lines() {
        let ran = Ran {
            summary: "reflex `hi` (level 0): its pattern matched; replied".into(),
            pattern: "hi",
            name: "hi",
            level: 0,
            trigger: json!("pattern"),
            action: Some("reply"),
            actions: vec!["reply"],
            skipped_executive: true,
            outcome: "ok",
            latency_ms: 0.25,
            item: Some("it-1"),
            source: None,
            error: None,
            reason: None,
            triage: None,
            test: false,
        };
        assert_eq!(
            Entry::of_at(&ran, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"reflex","summary":"reflex `hi` (level 0): its pattern matched; replied","pattern":"hi","name":"hi","level":0,"trigger":"pattern","action":"reply","actions":["reply"],"skipped_executive":true,"outcome":"ok","latency_ms":0.25,"item":"it-1"}"#
        );
        let failed = Ran { action: None, outcome: "error", error: Some("boom"), test: true, item: None, ..ran };
        let before = Entry::at(TS, "reflex")
            .with("summary", failed.summary.as_str())
            .with("pattern", "hi")
            .with("name", "hi")
            .with("level", 0u8)
            .with("trigger", json!("pattern"))
            .with("action", Value::Null)
            .with("actions", json!(["reply"]))
            .with("skipped_executive", true)
            .with("outcome", "error")
            .with("latency_ms", 0.25)
            .with("error", "boom")
            .with("test", true);
        assert_eq!(Entry::of_at(&failed, TS).json_line(), before.json_line());

        let files = vec!["add_task".to_string()];
        let mut shadow = Shadowed::new("hi", 1, "reply", false);
        (shadow.would_reply, shadow.would_file, shadow.item) = (Some("hello"), Some(files.as_slice()), Some("it-1"));
        let before = Entry::at(TS, "reflex")
            .with("pattern", "hi")
            .with("name", "hi")
            .with("level", 1u8)
            .with("action", "shadow")
            .with("shadow", true)
            .with("skipped_executive", false)
            .with("outcome", "would reply")
            .with("would", "reply")
            .with("check", false)
            .with("would_reply", "hello")
            .with("would_file", files.clone())
            .with("item", "it-1");
        assert_eq!(Entry::of_at(&shadow, TS).json_line(), before.json_line());

        let compared = Compared {
            pattern: "hi",
            name: "hi",
            action: "compare",
            would: "reply",
            decided: "ack",
            decided_by: Value::from("owner"),
            item: Some("it-1"),
            outcome: "disagreed",
            counted: None,
            agreed: Some(2),
            compared: Some(3),
            distinct_agreed: Some(2),
            reason: Some("the op differs".into()),
        };
        assert_eq!(
            Entry::of_at(&compared, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"reflex","pattern":"hi","name":"hi","action":"compare","would":"reply","decided":"ack","decided_by":"owner","item":"it-1","outcome":"disagreed","agreed":2,"compared":3,"distinct_agreed":2,"reason":"the op differs"}"#
        );

        let mut proposed = Changed::new("greet", "propose", "shadow");
        (proposed.learned, proposed.trigger, proposed.op) = (Some("proposal"), Some("^hi$"), Some("reply"));
        (proposed.from_items, proposed.committed) = (Some(vec!["a", "b"]), Some(true));
        let before = Entry::at(TS, "reflex")
            .with("pattern", "greet")
            .with("name", "greet")
            .with("action", "propose")
            .with("outcome", "shadow")
            .with("learned", "proposal")
            .with("trigger", "^hi$")
            .with("op", "reply")
            .with("from_items", json!(["a", "b"]))
            .with("committed", true);
        assert_eq!(Entry::of_at(&proposed, TS).json_line(), before.json_line());
        let mut promoted = Changed::new("greet", "promote", "active");
        (promoted.by, promoted.reason, promoted.committed) = (Some("agreement"), Some("agreed"), Some(false));
        assert_eq!(
            Entry::of_at(&promoted, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"reflex","pattern":"greet","name":"greet","action":"promote","outcome":"active","by":"agreement","reason":"agreed","committed":false}"#
        );
    }

    #[test]
    fn log_and_routine_entries_keep_their_lines() {
        let logged = Logged { reflex: "hi", message: "seen", item: Some("it-1"), test: true };
        assert_eq!(
            Entry::of_at(&logged, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"log","reflex":"hi","message":"seen","item":"it-1","test":true}"#
        );
        let done = Routine {
            summary: "Done: call the bank.".into(),
            act: Some("done"),
            task: Some("call the bank"),
            by: Some("peer pi".into()),
            item: None,
            understood: Some(json!({"intent": "complete"})),
        };
        assert_eq!(
            Entry::of_at(&done, TS).json_line(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"routine","summary":"Done: call the bank.","act":"done","task":"call the bank","by":"peer pi","understood":{"intent":"complete"}}"#
        );
    }
}
