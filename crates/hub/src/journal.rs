//! The hub's journal, `state/journal.jsonl`: what the agent did and why (document 003's
//! "Observability"). [`HubJournal`] is the one handle every writer opens it through
//! (`hub.journal()`, or `layout.open_journal()` for code holding only the hub's layout) and
//! writes typed records through ([`cn_storage::Typed`]: [`Record`], the document's shape for
//! its [`Kind`]s, [`Approval`], [`Noted`], and each crate's own records beside the code that
//! writes them); [`Query`] and [`why`] answer "what did you do today?" and "why did you do
//! that?".
//!
//! Invariants: the file is only ever appended to, one JSON object a line (`ts`, `type`,
//! then the entry's fields, in that order); a torn last line is sealed on open. The file
//! mechanics are `cn_storage::Journal`'s; this module only names the file and shapes entries.
//! Every entry of one item carries the same `id`, linking trigger to outcome.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use cn_storage::{Entry, Journal, JournalRead, Typed};
use jiff::Timestamp;
use serde_json::Value;

/// The journal's file name in the hub's state directory.
pub const FILE: &str = "journal.jsonl";

/// The journal could not be opened, appended to or read.
#[derive(Debug, thiserror::Error)]
#[error("{path}")]
pub struct JournalError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

/// The hub's journal, open for appending.
#[derive(Debug)]
pub struct HubJournal {
    journal: Journal,
}

impl HubJournal {
    /// `state_dir/journal.jsonl`.
    pub fn path_in(state_dir: &Path) -> PathBuf {
        state_dir.join(FILE)
    }

    /// Open the journal of the hub whose state directory is `state_dir` (created if
    /// missing; a torn last line is sealed): what `Hub::journal` and `Layout::open_journal`
    /// do.
    pub(crate) fn open(state_dir: &Path) -> Result<HubJournal, JournalError> {
        let path = Self::path_in(state_dir);
        match Journal::open(&path) {
            Ok(journal) => Ok(HubJournal { journal }),
            Err(source) => Err(JournalError { path, source }),
        }
    }

    /// Every whole entry of the journal in `state_dir` (a missing file is empty; a line
    /// that is not a JSON object is skipped and reported in [`JournalRead::skipped`]).
    pub fn read(state_dir: &Path) -> Result<JournalRead, JournalError> {
        let path = Self::path_in(state_dir);
        Journal::read(&path).map_err(|source| JournalError { path, source })
    }

    /// Stream the journal in `state_dir`: `f` sees each whole entry in order, one in memory
    /// at a time (a missing file has none; lines that do not parse are passed over).
    pub fn scan(state_dir: &Path, mut f: impl FnMut(Entry)) -> Result<(), JournalError> {
        let path = Self::path_in(state_dir);
        Journal::scan(&path, |line| {
            if let Ok(e) = line {
                f(e);
            }
        })
        .map_err(|source| JournalError { path, source })
    }

    pub fn path(&self) -> &Path {
        self.journal.path()
    }

    /// Move the journal in `state_dir` to its next segment (`state/journal/NNNNNN.jsonl`) if
    /// `config` says it is due, and the model calls' journal (`state/interactions.jsonl`,
    /// to `state/interactions/`) likewise; the journal's segment path when it rotated.
    /// Crash- and race-safe (`cn_storage::Journal::rotate_if_due`); every reader reads
    /// across segments.
    pub fn rotate_if_due(
        state_dir: &Path,
        config: &crate::config::JournalConfig,
    ) -> Result<Option<PathBuf>, JournalError> {
        let rotation = config.rotation();
        let interactions = state_dir.join(crate::layout::INTERACTIONS);
        Journal::rotate_if_due(&interactions, &rotation)
            .map_err(|source| JournalError { path: interactions, source })?;
        let path = Self::path_in(state_dir);
        Journal::rotate_if_due(&path, &rotation).map_err(|source| JournalError { path, source })
    }

    /// Append one typed record, stamped now, as one line (a single write). A `decision`
    /// entry is made durable (`fdatasync`) before this returns; other entries are not (the
    /// fsync policy: a power loss may take the last observations, never a decision; a crash
    /// of cn takes nothing).
    pub fn write<T: Typed + ?Sized>(&mut self, record: &T) -> Result<(), JournalError> {
        self.append(&Entry::of(record))
    }

    /// Append one entry as one line ([`HubJournal::write`]'s mechanics): for an entry read
    /// back or made by a test; every writer of cn writes a typed record.
    pub fn append(&mut self, entry: &Entry) -> Result<(), JournalError> {
        let appended = self.journal.append(entry);
        let synced = appended.and_then(|()| if entry.kind() == "decision" { self.journal.sync() } else { Ok(()) });
        synced.map_err(|source| JournalError { path: self.journal.path().to_path_buf(), source })
    }

    /// Append one [`Record`], stamped now.
    pub fn record(&mut self, record: Record) -> Result<(), JournalError> {
        self.write(&record)
    }

    /// The file underneath (for `cn_storage::JournalStore`, the kernel's store).
    pub fn into_inner(self) -> Journal {
        self.journal
    }
}

/// The document's entry types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Decision,
    Impulse,
    Reflex,
    Exploration,
    Action,
    Observation,
}

impl Kind {
    pub const ALL: [Kind; 6] =
        [Kind::Decision, Kind::Impulse, Kind::Reflex, Kind::Exploration, Kind::Action, Kind::Observation];
    pub fn name(self) -> &'static str {
        match self {
            Kind::Decision => "decision",
            Kind::Impulse => "impulse",
            Kind::Reflex => "reflex",
            Kind::Exploration => "exploration",
            Kind::Action => "action",
            Kind::Observation => "observation",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Every entry type the hub's journal holds: the document's [`Kind`]s, then the others — an
/// approval asked or given, a model interaction (the kernel's store), a reflex's `log` step, a
/// reaction, a mail queued by `cn send`, a sync that moved mail, a reminder told, the budget
/// refusing the executive, the routine's act on a task or idea.
pub const TYPES: [&str; 15] = [
    "decision",
    "impulse",
    "reflex",
    "exploration",
    "action",
    "observation",
    "approval",
    "interaction",
    "log",
    "reaction",
    "send",
    "sync",
    "reminder",
    "budget",
    "routine",
];

/// A `--type` filter that names no entry type the journal holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown entry type `{0}` (expected one of {list})", list = TYPES.join(", "))]
pub struct UnknownType(pub String);

/// `name` if it is one of [`TYPES`].
pub fn entry_type(name: &str) -> Result<&'static str, UnknownType> {
    TYPES.iter().copied().find(|t| *t == name).ok_or_else(|| UnknownType(name.to_string()))
}

/// A name that is not one of the journal's entry types.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown entry type `{0}` (expected one of decision, impulse, reflex, exploration, action, observation)")]
pub struct UnknownKind(pub String);

impl FromStr for Kind {
    type Err = UnknownKind;
    fn from_str(s: &str) -> Result<Self, UnknownKind> {
        Kind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| UnknownKind(s.to_string()))
    }
}

/// A journal entry in the document's shape: build it, then [`HubJournal::record`] it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Record {
    #[serde(skip)]
    pub kind: Kind,
    pub id: String,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Typed for Record {
    fn kind(&self) -> &'static str {
        self.kind.name()
    }
}

/// An `approval` entry: a tool call held for the owner (`outcome: held`, with what it runs,
/// its item and who asked), or the owner's answer to one.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Approval<'a> {
    pub id: &'a str,
    pub tool: &'a str,
    pub outcome: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'a str>,
}

impl Typed for Approval<'_> {
    fn kind(&self) -> &'static str {
        "approval"
    }
}

/// An `observation` of no item: what happened and what follows (the daemon's trouble taking
/// an item, a session check of the budget).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Noted<'a> {
    pub summary: &'a str,
    pub outcome: &'a str,
}

impl Typed for Noted<'_> {
    fn kind(&self) -> &'static str {
        "observation"
    }
}

impl Record {
    pub fn new(kind: Kind, id: impl Into<String>, summary: impl Into<String>) -> Self {
        Record {
            kind,
            id: id.into(),
            summary: summary.into(),
            context: None,
            reasoning: None,
            outcome: None,
            data: None,
        }
    }
    pub fn context(mut self, v: impl Into<String>) -> Self {
        self.context = Some(v.into());
        self
    }
    pub fn reasoning(mut self, v: impl Into<String>) -> Self {
        self.reasoning = Some(v.into());
        self
    }
    pub fn outcome(mut self, v: impl Into<String>) -> Self {
        self.outcome = Some(v.into());
        self
    }
    pub fn data(mut self, v: Value) -> Self {
        self.data = Some(v);
        self
    }

    /// The entry, stamped now.
    pub fn into_entry(self) -> Entry {
        self.into_entry_at(&cn_storage::now_rfc3339())
    }

    pub fn into_entry_at(self, ts: &str) -> Entry {
        Entry::of_at(&self, ts)
    }
}

/// A filter over the journal: since a time, of a type.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub since: Option<Timestamp>,
    pub kind: Option<String>,
}

impl Query {
    pub fn matches(&self, e: &Entry) -> bool {
        if let Some(k) = &self.kind {
            if e.kind() != k {
                return false;
            }
        }
        match self.since {
            None => true,
            Some(since) => ts(e).is_some_and(|t| t >= since),
        }
    }
}

/// The entry's time, if it has a readable one.
pub fn ts(e: &Entry) -> Option<Timestamp> {
    e.0.get("ts").and_then(Value::as_str).and_then(|s| s.parse().ok())
}

/// The id linking an entry to its item: `id`, else `item` (as the kernel's store writes).
pub fn item_id(e: &Entry) -> Option<&str> {
    e.0.get("id").or_else(|| e.0.get("item")).and_then(Value::as_str)
}

/// The chain for one item, trigger to outcome, in journal order.
pub fn why<'a>(entries: &'a [Entry], id: &str) -> Vec<&'a Entry> {
    entries.iter().filter(|e| item_id(e) == Some(id)).collect()
}

/// The chain's last link: the hub's commits that recorded item `id`'s decision, one
/// `"<short hash> <subject>"` each (none when the hub is no git repository).
pub fn why_commits(hub: &Path, id: &str) -> Vec<String> {
    cn_git::Git::new(hub).commits_mentioning(&format!("item {id} from"))
}

/// One line for a person: time, type, summary.
pub fn line(e: &Entry) -> String {
    let ts = e.0.get("ts").and_then(Value::as_str).unwrap_or("-");
    format!("{ts}  {:<11}  {}", e.kind(), summary(e))
}

/// What an entry is about, in a few words, for entries without a `summary` too.
pub fn summary(e: &Entry) -> String {
    let s = |k: &str| e.0.get(k).and_then(Value::as_str);
    if let Some(v) = s("summary") {
        return v.to_string();
    }
    let count = |k: &str| e.0.get(k).and_then(Value::as_array).map_or(0, Vec::len);
    let n = |k: &str| e.0.get(k).map(|v| v.to_string()).unwrap_or_else(|| "?".into());
    match e.kind() {
        "sync" => {
            return format!(
                "peer mail synced: {} sent, {} received, {} rejected",
                count("sent"),
                count("received"),
                count("rejected")
            )
        }
        "send" => {
            let to = s("to").unwrap_or("?");
            return match s("message").filter(|m| !m.is_empty()) {
                Some(m) => format!("mail to {to} queued: {m}"),
                None => format!("mail to {to} queued"),
            };
        }
        "log" => return format!("reflex {}: {}", s("reflex").unwrap_or("?"), s("message").unwrap_or("")),
        "interaction" => {
            return format!(
                "level {} asked {}: {} tokens in, {} out",
                n("level"),
                s("model").unwrap_or("a model"),
                n("tokens_in"),
                n("tokens_out")
            )
        }
        _ => {}
    }
    if let Some(tool) = s("tool") {
        // An op tool's call that cn decided otherwise (a noop below the executive handed up
        // as a defer, a reply withheld) shows what was decided, not the call.
        let result = e.0.get("result");
        let got = |k: &str| result.and_then(|r| r.get(k)).and_then(Value::as_str);
        let decided = match (got("gtd"), got("op")) {
            (Some("do"), Some(op)) => Some(op),
            (Some(gtd), _) => Some(gtd),
            _ => None,
        };
        let why = got("handed_up").or(got("withheld"));
        return match (decided, why) {
            (Some(d), Some(why)) if d != tool => format!("{tool} → {d} ({why})"),
            (Some(d), None) if d != tool => format!("{tool} → {d}"),
            (_, Some(why)) => format!("{tool} → {} ({why})", s("outcome").unwrap_or("?")),
            _ => format!("{tool} → {}", s("outcome").unwrap_or("?")),
        };
    }
    for k in ["action", "idea", "pattern", "context"] {
        if let Some(v) = s(k) {
            return v.to_string();
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_model_calls_journal_rotates_with_the_journal_and_reads_across_segments() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let mut interactions = Journal::open(state.join(crate::layout::INTERACTIONS)).unwrap();
        let mut journal = HubJournal::open(&state).unwrap();
        let config = crate::config::JournalConfig { rotate_bytes: 200, rotate_daily: false };
        for i in 0..10 {
            interactions.append(&Entry::new("interaction").with("n", i).with("prompt", "x".repeat(100))).unwrap();
            journal.append(&Entry::new("decision").with("n", i)).unwrap();
            HubJournal::rotate_if_due(&state, &config).unwrap();
        }
        let layout = crate::Layout::new(dir.path());
        assert!(Journal::segments(&layout.interactions()).unwrap().len() >= 3);
        let read = Journal::read(&layout.interactions()).unwrap();
        let ns: Vec<u64> = read.entries.iter().filter_map(|e| e.0.get("n").and_then(Value::as_u64)).collect();
        assert_eq!(ns, (0..10).collect::<Vec<u64>>(), "every call once, in order, across segments");
        assert!(layout.write_protected(Path::new("state/interactions/000001.jsonl")).is_some());
    }

    #[test]
    fn records_round_trip_in_the_documents_shape() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let mut j = HubJournal::open(&state).unwrap();
        assert_eq!(j.path(), state.join("journal.jsonl"));
        let ts = "2026-01-06T15:00:00Z";
        j.append(&Record::new(Kind::Impulse, "idea-1", "Idea to explore: tides").reasoning("idle").into_entry_at(ts))
            .unwrap();
        j.append(
            &Record::new(Kind::Exploration, "idea-1", "read about tides")
                .context("c")
                .outcome("learned A, B")
                .data(json!({"duration_sec": 120}))
                .into_entry_at(ts),
        )
        .unwrap();
        j.record(Record::new(Kind::Decision, "other", "do: reply")).unwrap();
        HubJournal::open(&state).unwrap().append(&Entry::at(ts, "send").with("to", "pi")).unwrap();
        let text = std::fs::read_to_string(state.join("journal.jsonl")).unwrap();
        let first = text.lines().next().unwrap();
        // Byte-for-byte what earlier builds wrote: key order ts, type, id, summary, context,
        // reasoning, outcome, data.
        assert_eq!(
            first,
            r#"{"ts":"2026-01-06T15:00:00Z","type":"impulse","id":"idea-1","summary":"Idea to explore: tides","reasoning":"idle"}"#
        );
        assert_eq!(
            text.lines().nth(1).unwrap(),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"exploration","id":"idea-1","summary":"read about tides","context":"c","outcome":"learned A, B","data":{"duration_sec":120}}"#
        );
        let read = HubJournal::read(&state).unwrap();
        assert_eq!(read.entries.len(), 4);
        assert!(read.skipped.is_empty());
        let chain = why(&read.entries, "idea-1");
        assert_eq!(chain.iter().map(|e| e.kind()).collect::<Vec<_>>(), ["impulse", "exploration"]);
        assert_eq!(summary(&read.entries[3]), "mail to pi queued", "every type reads as words");
        assert!(line(&read.entries[0]).ends_with("impulse      Idea to explore: tides"), "{}", line(&read.entries[0]));
        let q = Query { kind: Some("decision".into()), since: None };
        assert_eq!(read.entries.iter().filter(|e| q.matches(e)).count(), 1);
        let q = Query { kind: None, since: Some("2026-01-07T00:00:00Z".parse().unwrap()) };
        assert_eq!(read.entries.iter().filter(|e| q.matches(e)).count(), 1, "only the entry stamped now");
    }

    /// The hub's own records, byte for byte the lines their entries had when built field by
    /// field; `hub.journal()` writes them where every reader reads.
    #[test]
    fn approvals_and_notes_keep_their_lines() {
        let ts = "2026-01-06T15:00:00Z";
        let line = Entry::json_line;
        let held = Approval {
            id: "ap-1",
            tool: "shell",
            outcome: "held",
            runs: Some("ls"),
            item: Some("it-1"),
            from: Some("pi"),
        };
        assert_eq!(
            line(&Entry::of_at(&held, ts)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"approval","id":"ap-1","tool":"shell","outcome":"held","runs":"ls","item":"it-1","from":"pi"}"#
        );
        let answered = Approval { id: "ap-1", tool: "shell", outcome: "approved", runs: None, item: None, from: None };
        assert_eq!(
            line(&Entry::of_at(&answered, ts)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"approval","id":"ap-1","tool":"shell","outcome":"approved"}"#
        );
        let noted = Noted { summary: "cannot take the next item", outcome: "disk full" };
        assert_eq!(
            line(&Entry::of_at(&noted, ts)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"observation","summary":"cannot take the next item","outcome":"disk full"}"#
        );
        let dir = tempfile::tempdir().unwrap();
        let layout = crate::Layout::new(dir.path());
        layout.open_journal().unwrap().write(&noted).unwrap();
        let read = HubJournal::read(&layout.state()).unwrap();
        assert_eq!(read.entries.len(), 1);
        assert_eq!(summary(&read.entries[0]), "cannot take the next item");
        assert_eq!(std::fs::read_to_string(layout.journal()).unwrap().lines().count(), 1);
    }

    #[test]
    fn kinds_parse_by_name_and_a_missing_journal_reads_empty() {
        for k in Kind::ALL {
            assert_eq!(k.name().parse::<Kind>(), Ok(k));
        }
        let e = "dream".parse::<Kind>().unwrap_err();
        assert!(e.to_string().contains("unknown entry type `dream`"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        assert!(HubJournal::read(dir.path()).unwrap().entries.is_empty());
        // A state directory that cannot be one fails with the path.
        std::fs::write(dir.path().join("state"), "a file").unwrap();
        let e = HubJournal::open(&dir.path().join("state")).unwrap_err();
        assert!(e.to_string().contains("journal.jsonl"), "{e}");
    }
}
