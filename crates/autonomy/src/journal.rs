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

/// Document 003's fields of an `impulse` line, beside cn's own: its `source` (task, idea,
/// schedule), the task, idea or schedule entry's action under that source's name (`"idea":
/// "explore tides"`), and attention's `decision` on it. A percept's entry is left as it is.
pub fn with_impulse_fields(entry: cn_storage::Entry, input: &Input, decision: &str) -> cn_storage::Entry {
    let Input::Impulse(imp) = input else { return entry };
    let key = match imp.source {
        ImpulseSource::Task => "task",
        ImpulseSource::Idea => "idea",
        ImpulseSource::Schedule => "action",
    };
    let what = imp.data.get(key).and_then(Value::as_str).map_or_else(|| imp.summary.clone(), str::to_string);
    entry.with("source", imp.source.name()).with(imp.source.name(), what).with("decision", decision)
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
pub fn schedule_skipped(name: &str, action: &str, cron: &str, at: Timestamp) -> cn_storage::Entry {
    Record::new(Kind::Impulse, format!("schedule-{name}-{}", at.as_second()), format!("Scheduled: {name} skipped"))
        .context(format!("cron `{cron}` was due at {at} while the daemon was down"))
        .reasoning("catch_up is false for this entry")
        .outcome("skipped")
        .into_entry()
        .with("source", ImpulseSource::Schedule.name())
        .with(ImpulseSource::Schedule.name(), action)
        .with("decision", "skipped")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::{Attention, PoolConfig};
    use crate::percept::{Percept, SenseKind};

    #[test]
    fn a_chain_is_linked_by_id_and_explains_the_score() {
        let dir = tempfile::tempdir().unwrap();
        let mut j = cn_hub::journal::HubJournal::open(dir.path()).unwrap();
        let a = Attention::new(PoolConfig::default());
        a.admit(Percept::new(SenseKind::Owner, "please review PR 42"));
        let c = a.decide(Timestamp::now()).unwrap();
        let id = c.item.id().to_string();
        j.append(&selected(&c).into_entry()).unwrap();
        j.append(&Record::new(Kind::Action, "other", "unrelated").into_entry()).unwrap();
        j.append(
            &Record::new(Kind::Decision, &id, "do: review").reasoning("owner asked").outcome("replied").into_entry(),
        )
        .unwrap();
        let read = cn_hub::journal::HubJournal::read(dir.path()).unwrap();
        let chain = why(&read.entries, &id);
        assert_eq!(chain.len(), 2);
        assert_eq!(chain[0].kind(), "observation");
        assert!(chain[0].0["reasoning"].as_str().unwrap().contains("owner 1000"), "{:?}", chain[0]);
        assert_eq!(chain[1].0["outcome"], "replied");
        let q = Query { kind: Some("decision".into()), since: None };
        assert_eq!(read.entries.iter().filter(|e| q.matches(e)).count(), 1);
    }
}
