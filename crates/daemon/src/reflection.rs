//! What happened since the last reflection of a cadence, from the journal: the decisions on
//! items other than reflections. A reflection with nothing to look back on is closed without
//! a model (`HubMind::quiet_reflection`); one the local model cannot write gets a digest of
//! these decisions instead of invented prose (`vet`).

use std::collections::BTreeMap;

use cn_agent::{Cadence, Hub};
use cn_autonomy::jiff::{SignedDuration, Timestamp};
use serde_json::Value;

const REFLECTIONS: [Cadence; 5] =
    [Cadence::Daily, Cadence::Weekly, Cadence::Monthly, Cadence::Quarterly, Cadence::Yearly];

/// The period a reflection looks back over when it has no earlier one; `None` for items
/// that are not reflections.
fn period_days(cadence: Cadence) -> Option<i64> {
    Some(match cadence {
        Cadence::Daily => 1,
        Cadence::Weekly => 7,
        Cadence::Monthly => 31,
        Cadence::Quarterly => 92,
        Cadence::Yearly => 366,
        Cadence::Inbox | Cadence::Adhoc => return None,
    })
}

/// The word for one period of `cadence` ("day", "week" …).
pub fn period_word(cadence: Cadence) -> &'static str {
    match cadence {
        Cadence::Weekly => "week",
        Cadence::Monthly => "month",
        Cadence::Quarterly => "quarter",
        Cadence::Yearly => "year",
        _ => "day",
    }
}

/// The work decided since the last reflection of `cadence`: how many decisions of each
/// kind (`reply`, `defer` …). `None` when `cadence` is not a reflection's or the journal
/// cannot be read.
pub fn work_since_last(hub: &Hub, cadence: Cadence) -> Option<BTreeMap<String, usize>> {
    let days = period_days(cadence)?;
    let mut last_reflection = None::<Timestamp>;
    let mut work: Vec<(Timestamp, String)> = Vec::new();
    cn_hub::journal::HubJournal::scan(&hub.layout().state(), |e| {
        let Some(t) = (e.kind() == "decision").then(|| cn_hub::journal::ts(&e)).flatten() else { return };
        match e.0.get("cadence").and_then(Value::as_str) {
            Some(c) if c == cadence.as_str() => last_reflection = last_reflection.max(Some(t)),
            Some(c) if REFLECTIONS.iter().any(|r| r.as_str() == c) => {}
            _ => {
                let kind = e.0.get("op").or_else(|| e.0.get("gtd")).and_then(Value::as_str).unwrap_or("decision");
                work.push((t, kind.to_string()));
            }
        }
    })
    .ok()?;
    // Since the last one; without one, over the cadence's period.
    let since = last_reflection.unwrap_or_else(|| Timestamp::now() - SignedDuration::from_hours(24 * days));
    let mut counts = BTreeMap::new();
    for (_, kind) in work.into_iter().filter(|(t, _)| *t >= since) {
        *counts.entry(kind).or_insert(0) += 1;
    }
    Some(counts)
}

/// A true account of `work` for a reflection the local model could not write.
pub fn digest(cadence: Cadence, work: &BTreeMap<String, usize>) -> String {
    let total: usize = work.values().sum();
    if total == 0 {
        return format!("Since the last {} reflection: nothing was decided.", cadence.as_str());
    }
    let kinds: Vec<String> = work.iter().map(|(k, n)| format!("{n} {k}")).collect();
    format!(
        "Since the last {} reflection: {total} item(s) decided ({}). Reflecting on them needs my executive.",
        cadence.as_str(),
        kinds.join(", ")
    )
}
