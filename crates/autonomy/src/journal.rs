//! The journal's entry types (decision, impulse, reflex, exploration, action, observation)
//! and the questions it answers: "what did you do today?" ([`Query`]) and "why did you do
//! that?" ([`why`]). Entries are written through `cn_storage::Journal`; this module only
//! shapes them.
//!
//! Every entry has `ts`, `type`, `id` (linking the entries of one item from trigger to
//! outcome), `summary`, and where known `context`, `reasoning`, `outcome` and `data`.

use std::fmt;
use std::str::FromStr;

use cn_storage::Entry;
use jiff::Timestamp;
use serde_json::{json, Value};

use crate::attention::{Candidate, FloodReport, Input};

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
    pub const ALL: [Kind; 6] = [Kind::Decision, Kind::Impulse, Kind::Reflex, Kind::Exploration, Kind::Action, Kind::Observation];
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

/// A name that is not one of the journal's entry types.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown entry type `{name}` (expected one of decision, impulse, reflex, exploration, action, observation)")]
pub struct UnknownKind {
    pub name: String,
}

impl FromStr for Kind {
    type Err = UnknownKind;
    fn from_str(s: &str) -> Result<Self, UnknownKind> {
        Kind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| UnknownKind { name: s.to_string() })
    }
}

/// A journal entry in the document's shape. Build it, then `into_entry()` and append it
/// with `cn_storage::Journal::append`.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub kind: Kind,
    pub id: String,
    pub summary: String,
    pub context: Option<String>,
    pub reasoning: Option<String>,
    pub outcome: Option<String>,
    pub data: Option<Value>,
}

impl Record {
    pub fn new(kind: Kind, id: impl Into<String>, summary: impl Into<String>) -> Self {
        Record { kind, id: id.into(), summary: summary.into(), context: None, reasoning: None, outcome: None, data: None }
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
        let mut e = Entry::at(ts, self.kind.name()).with("id", self.id).with("summary", self.summary);
        for (k, v) in [("context", self.context), ("reasoning", self.reasoning), ("outcome", self.outcome)] {
            if let Some(v) = v {
                e = e.with(k, v);
            }
        }
        if let Some(d) = self.data {
            e = e.with("data", d);
        }
        e
    }
}

/// The entry for attention choosing an item: the trigger of its chain, with the salience
/// explanation as the reasoning. An impulse is an `impulse` entry; a percept an
/// `observation`.
pub fn selected(c: &Candidate) -> Record {
    let kind = match c.item {
        Input::Impulse(_) => Kind::Impulse,
        Input::Percept(_) => Kind::Observation,
    };
    let mut context = format!("from {}", c.item.source_name());
    if c.item.owner() {
        context.push_str(" (the owner)");
    }
    if c.merged_count > 0 {
        context.push_str(&format!("; {} more like it coalesced", c.merged_count));
    }
    let merged: Vec<&str> = c.merged.iter().map(Input::id).collect();
    Record::new(kind, c.item.id(), c.item.summary())
        .context(context)
        .reasoning(format!("salience {}", c.salience.explanation))
        .outcome("selected")
        .data(json!({"source": c.item.source_name(), "salience": c.salience.score, "merged": merged, "item": c.item}))
}

/// The entry for what a flood made attention coalesce or shed.
pub fn flood(report: &FloodReport) -> Record {
    let shed: Vec<Value> =
        report.shed_sample.iter().map(|(id, source, summary)| json!({"id": id, "source": source, "summary": summary})).collect();
    Record::new(
        Kind::Observation,
        crate::new_id("flood"),
        format!("attention under a flood: {} coalesced, {} shed (the least salient; never the owner's)", report.coalesced, report.shed),
    )
    .reasoning("the pool is bounded; items with the same key were merged and the least salient let go")
    .outcome(if report.shed > 0 { "shed" } else { "coalesced" })
    .data(json!({"coalesced": report.coalesced, "shed": report.shed, "shed_sample": shed}))
}

/// The entry for a schedule time skipped because it was missed while down.
pub fn schedule_skipped(name: &str, cron: &str, at: Timestamp) -> Record {
    Record::new(Kind::Impulse, format!("schedule-{name}-{}", at.as_second()), format!("Scheduled: {name} skipped"))
        .context(format!("cron `{cron}` was due at {at} while the daemon was down"))
        .reasoning("catch_up is false for this entry")
        .outcome("skipped")
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
    if let Some(tool) = s("tool") {
        return format!("{tool} → {}", s("outcome").unwrap_or("?"));
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
    use crate::attention::{Attention, PoolConfig};
    use crate::percept::{Percept, SenseKind};

    #[test]
    fn a_chain_is_linked_by_id_and_explains_the_score() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let mut j = cn_storage::Journal::open(&path).unwrap();
        let a = Attention::new(PoolConfig::default());
        a.admit(Percept::new(SenseKind::Owner, "please review PR 42"));
        let c = a.decide(Timestamp::now()).unwrap();
        let id = c.item.id().to_string();
        j.append(&selected(&c).into_entry()).unwrap();
        j.append(&Record::new(Kind::Action, "other", "unrelated").into_entry()).unwrap();
        j.append(&Record::new(Kind::Decision, &id, "do: review").reasoning("owner asked").outcome("replied").into_entry()).unwrap();
        let read = cn_storage::Journal::read(&path).unwrap();
        let chain = why(&read.entries, &id);
        assert_eq!(chain.len(), 2);
        assert_eq!(chain[0].kind(), "observation");
        assert!(chain[0].0["reasoning"].as_str().unwrap().contains("owner 1000"), "{:?}", chain[0]);
        assert_eq!(chain[1].0["outcome"], "replied");
        let q = Query { kind: Some("decision".into()), since: None };
        assert_eq!(read.entries.iter().filter(|e| q.matches(e)).count(), 1);
    }
}
