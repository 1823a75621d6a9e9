//! The journal entries autonomy writes: attention choosing an item ([`selected`]), a flood
//! ([`flood`]), a schedule time skipped ([`schedule_skipped`]). The entry types and the
//! questions the journal answers ("what did you do today?", [`Query`]; "why did you do
//! that?", [`why`]) are the hub's (`cn_hub::journal`), re-exported here; entries are written
//! through `cn_hub::journal::HubJournal`.
//!
//! Every entry has `ts`, `type`, `id` (linking the entries of one item from trigger to
//! outcome), `summary`, and where known `context`, `reasoning`, `outcome` and `data`.

use jiff::Timestamp;
use serde_json::{json, Value};

pub use cn_hub::journal::{item_id, line, summary, ts, why, Kind, Query, Record, UnknownKind};

use crate::attention::{Candidate, FloodReport, Input};
use crate::ImpulseSource;

/// The entry for attention choosing an item: the trigger of its chain, with the salience
/// explanation as the reasoning. An impulse is an `impulse` entry; a percept an
/// `observation`. Filed in the hub as item `filed` (a percept gets an id of its own), the
/// entry has that id, and its data the id it had in attention (`origin`).
pub fn selected<'a>(c: &'a Candidate, filed: Option<&str>) -> Attended<'a> {
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
    let record = Record::new(kind, filed.unwrap_or(c.item.id()), c.item.summary())
        .context(context)
        .reasoning(format!("salience {}", c.salience.explanation))
        .outcome("selected");
    let chosen = Chosen {
        source: c.item.source_name(),
        salience: c.salience.score,
        merged: c.merged.iter().map(Input::id).collect(),
        item: &c.item,
        origin: filed.map(|_| c.item.id()),
    };
    Attended { chosen: Some(chosen), ..attended(record, &c.item, "selected") }
}

/// The `data` of a `selected` entry: the percept's sense or the impulse's source, its
/// salience, the ids coalesced into it, the item as attention held it, and the id it had there
/// once it was filed under another.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Chosen<'a> {
    pub source: &'a str,
    pub salience: f64,
    pub merged: Vec<&'a str>,
    pub item: &'a Input,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<&'a str>,
}

/// An entry of attention's: a [`Record`] in the document's shape, then its `source` and, for
/// an impulse, document 003's fields of an `impulse` line beside cn's own — the task, idea or
/// schedule entry's action under that source's name (`"idea": "explore tides"`), and
/// attention's `decision` on it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Attended<'a> {
    #[serde(flatten)]
    pub record: Record,
    /// A `selected` entry's data (its record has none of its own).
    #[serde(rename = "data", skip_serializing_if = "Option::is_none")]
    pub chosen: Option<Chosen<'a>>,
    /// The percept's sense, or the impulse's source (task, idea, schedule).
    pub source: &'a str,
    /// The impulse's task, idea or action, under its source's name.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub what: Option<std::collections::BTreeMap<&'static str, String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<&'a str>,
}

impl cn_storage::Typed for Attended<'_> {
    fn kind(&self) -> &'static str {
        self.record.kind.name()
    }
}

/// `record` of attention's about `input`, on which attention decided `decision` (an
/// impulse's; a percept's entry says only its sense).
pub fn attended<'a>(record: Record, input: &'a Input, decision: &'a str) -> Attended<'a> {
    let Input::Impulse(imp) = input else {
        return Attended { record, chosen: None, source: input.source_name(), what: None, decision: None };
    };
    let what = imp.what().unwrap_or(&imp.summary).to_string();
    let what = Some([(imp.source.name(), what)].into());
    Attended { record, chosen: None, source: imp.source.name(), what, decision: Some(decision) }
}

/// The entry for what a flood made attention coalesce or shed.
pub fn flood(report: &FloodReport) -> Record {
    let shed: Vec<Value> = report
        .shed_sample
        .iter()
        .map(|(id, source, summary)| json!({"id": id, "source": source, "summary": summary}))
        .collect();
    Record::new(
        Kind::Observation,
        cn_hub::id::prefixed("flood"),
        format!(
            "attention under a flood: {} coalesced, {} shed (the least salient; never the owner's)",
            report.coalesced, report.shed
        ),
    )
    .reasoning("the pool is bounded; items with the same key were merged and the least salient let go")
    .outcome(if report.shed > 0 { "shed" } else { "coalesced" })
    .data(json!({"coalesced": report.coalesced, "shed": report.shed, "shed_sample": shed}))
}

/// The entry for a schedule time skipped because it was missed while down, with document
/// 003's fields of an `impulse` line (`source`, the entry's action, `decision`).
pub fn schedule_skipped(name: &str, action: &str, cron: &str, at: Timestamp) -> Attended<'static> {
    let record =
        Record::new(Kind::Impulse, format!("schedule-{name}-{}", at.as_second()), format!("Scheduled: {name} skipped"))
            .context(format!("cron `{cron}` was due at {at} while the daemon was down"))
            .reasoning("catch_up is false for this entry")
            .outcome("skipped");
    let source = ImpulseSource::Schedule.name();
    Attended {
        record,
        chosen: None,
        source,
        what: Some([(source, action.to_string())].into()),
        decision: Some("skipped"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::{Attention, PoolConfig};
    use crate::percept::Percept;
    use cn_hub::Sense;

    #[test]
    fn a_chain_is_linked_by_id_and_explains_the_score() {
        let dir = tempfile::tempdir().unwrap();
        let layout = cn_hub::Layout::new(dir.path());
        let mut j = layout.open_journal().unwrap();
        let a = Attention::new(PoolConfig::default());
        a.admit(Percept::new(Sense::Chat, "please review PR 42"));
        let c = a.decide(Timestamp::now()).unwrap();
        let id = c.item.id().to_string();
        j.write(&selected(&c, None)).unwrap();
        j.record(Record::new(Kind::Action, "other", "unrelated")).unwrap();
        j.record(Record::new(Kind::Decision, &id, "do: review").reasoning("owner asked").outcome("replied")).unwrap();
        let read = cn_hub::journal::HubJournal::read(&layout.state()).unwrap();
        let chain = why(&read.entries, &id);
        assert_eq!(chain.len(), 2);
        assert_eq!(chain[0].kind(), "observation");
        assert!(chain[0].0["reasoning"].as_str().unwrap().contains("owner 1000"), "{:?}", chain[0]);
        assert_eq!(chain[1].0["outcome"], "replied");
        let q = Query { kind: Some("decision".into()), since: None };
        assert_eq!(read.entries.iter().filter(|e| q.matches(e)).count(), 1);
    }

    /// The impulse `idea-1`, the idea `idea` to explore (none: what its data said no longer
    /// reads).
    fn idea(idea: Option<&str>) -> Input {
        let data = idea.map(|idea| {
            Box::new(crate::impulses::Cause::Idea(crate::impulses::Idea {
                id: "idea-1".into(),
                ..crate::impulses::Idea::new(idea, None, Timestamp::from_second(0).unwrap())
            }))
        });
        Input::Impulse(crate::impulses::Impulse {
            id: "idea-1".into(),
            source: ImpulseSource::Idea,
            summary: "Idea to explore: tides".into(),
            due: None,
            priority: None,
            context: None,
            at: Timestamp::from_second(0).unwrap(),
            data,
        })
    }

    /// A `selected` entry, typed, byte for byte the line it had when its data was a JSON value
    /// the daemon added `origin` to: a percept's filed under an id of its own, an impulse's.
    #[test]
    fn a_selected_entry_keeps_its_line() {
        use cn_storage::Entry;
        let ts = "2026-01-06T15:00:00Z";
        let a = Attention::new(PoolConfig::default());
        a.admit(Percept::new(Sense::Chat, "please review PR 42").text("please review PR 42\nby noon"));
        a.admit(Percept::new(Sense::Github, "issue 7").key("gh#7"));
        a.admit(Percept::new(Sense::Github, "issue 7 again").key("gh#7"));
        a.admit(idea(Some("explore tides")));
        let mut filed = 0;
        while let Some(c) = a.decide(Timestamp::now()) {
            filed += 1;
            let id = format!("it-{filed}");
            let merged: Vec<&str> = c.merged.iter().map(Input::id).collect();
            let kind = match &c.item {
                Input::Impulse(_) => Kind::Impulse,
                Input::Percept(_) => Kind::Observation,
            };
            let mut record = Record::new(kind, c.item.id(), c.item.summary())
                .context(selected(&c, None).record.context.unwrap())
                .reasoning(format!("salience {}", c.salience.explanation))
                .outcome("selected")
                .data(json!({"source": c.item.source_name(), "salience": c.salience.score, "merged": merged, "item": c.item}));
            let before = Entry::of_at(&attended(record.clone(), &c.item, "selected"), ts).json_line();
            assert_eq!(Entry::of_at(&selected(&c, None), ts).json_line(), before, "{kind:?}");
            record.id = id.clone();
            if let Some(Value::Object(data)) = record.data.as_mut() {
                data.insert("origin".into(), c.item.id().into());
            }
            let before = Entry::of_at(&attended(record, &c.item, "selected"), ts).json_line();
            assert_eq!(Entry::of_at(&selected(&c, Some(&id)), ts).json_line(), before, "{kind:?}");
        }
        assert_eq!(filed, 3);
    }

    /// Attention's entries, byte for byte the lines they had when built field by field: a
    /// percept's says its sense; an impulse's has document 003's fields after cn's.
    #[test]
    fn attended_entries_keep_their_lines() {
        use cn_storage::Entry;
        let ts = "2026-01-06T15:00:00Z";
        let line = Entry::json_line;
        let skipped = schedule_skipped("standup", "post the standup", "0 9 * * *", Timestamp::from_second(0).unwrap());
        assert_eq!(
            line(&Entry::of_at(&skipped, ts)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"impulse","id":"schedule-standup-0","summary":"Scheduled: standup skipped","context":"cron `0 9 * * *` was due at 1970-01-01T00:00:00Z while the daemon was down","reasoning":"catch_up is false for this entry","outcome":"skipped","source":"schedule","schedule":"post the standup","decision":"skipped"}"#
        );
        let a = Attention::new(PoolConfig::default());
        a.admit(Percept::new(Sense::Chat, "please review PR 42"));
        let c = a.decide(Timestamp::now()).unwrap();
        let record = Record::new(Kind::Observation, "it-1", "please review PR 42").outcome("selected");
        let before = record.clone().into_entry_at(ts).with("source", c.item.source_name());
        assert_eq!(Entry::of_at(&attended(record, &c.item, "selected"), ts).json_line(), before.json_line());
        assert_eq!(before.0["source"], "owner");

        // An impulse's: its source, then its idea (or task, or action) under the source's
        // name — the summary when its data names none — and attention's decision.
        let record = Record::new(Kind::Impulse, "idea-1", "Idea to explore: tides")
            .outcome("selected")
            .data(json!({"source": "idea", "salience": 2.0}));
        let tides = idea(Some("explore tides"));
        let before = record
            .clone()
            .into_entry_at(ts)
            .with("source", tides.source_name())
            .with("source", "idea")
            .with("idea", "explore tides")
            .with("decision", "selected");
        assert_eq!(Entry::of_at(&attended(record.clone(), &tides, "selected"), ts).json_line(), before.json_line());
        assert_eq!(
            line(&before),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"impulse","id":"idea-1","summary":"Idea to explore: tides","outcome":"selected","data":{"source":"idea","salience":2.0},"source":"idea","idea":"explore tides","decision":"selected"}"#
        );
        let bare = Entry::of_at(&attended(record, &idea(None), "selected"), ts);
        assert_eq!(bare.0["idea"], "Idea to explore: tides");
    }
}
