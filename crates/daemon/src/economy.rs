//! `cn budget`: what thinking cost today and what the lower levels saved.
//!
//! - today's executive spend and the calls in flight (the ledger, `state/budget.json`);
//! - the share of today's items answered at each level: reflex runs from the journal (by
//!   their level; escalated runs count as level 3), and items the kernel asked a model about
//!   from `state/interactions.jsonl` (by the highest level asked);
//! - the executive tokens each reflex saved: its answered runs × the average tokens of an
//!   executive call on this hub ([`DEFAULT_CALL_TOKENS`] before any was made);
//! - the days before, from the ledger's history.

use std::collections::BTreeMap;
use std::fmt;

use cn_hub::journal::{ts, HubJournal};
use serde::Serialize;
use serde_json::Value;

/// An executive call's tokens assumed before the hub has made one.
pub const DEFAULT_CALL_TOKENS: u64 = 3000;

#[derive(Debug, Serialize)]
pub struct Report {
    pub today: cn_models::ledger::DayTotal,
    pub cap_tokens: Option<u64>,
    pub cap_cost: Option<f64>,
    /// Calls in flight: how many and their reserved tokens.
    pub in_flight: usize,
    pub reserved_tokens: u64,
    /// Level → items answered there today.
    pub levels: BTreeMap<u8, u64>,
    /// The tokens an executive call has cost here on average.
    pub call_tokens: u64,
    /// Reflex → (answered runs, executive tokens saved), all time.
    pub saved: BTreeMap<String, (u64, u64)>,
    pub history: Vec<cn_models::ledger::DayTotal>,
}

/// Build the report for `hub`.
pub fn report(hub: &cn_hub::Hub) -> Result<Report, cn_models::ledger::BudgetError> {
    let config = hub.config();
    let ledger = cn_models::ledger_of(&config.budget, &config.models, hub.root());
    let state = ledger.read()?;
    let midnight = ledger.now().replace_time(time::Time::MIDNIGHT).unix_timestamp();
    let since = jiff::Timestamp::from_second(midnight).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let layout = hub.layout();

    let mut levels: BTreeMap<u8, u64> = BTreeMap::new();
    if let Ok(read) = HubJournal::read(&layout.state()) {
        for e in read.entries.iter().filter(|e| e.kind() == "reflex" && ts(e).is_some_and(|t| t >= since)) {
            if e.0.get("test") == Some(&Value::Bool(true)) {
                continue;
            }
            let level = match e.0.get("skipped_executive") {
                Some(Value::Bool(true)) => e.0.get("level").and_then(Value::as_u64).unwrap_or(0) as u8,
                _ => 3,
            };
            *levels.entry(level).or_default() += 1;
        }
    }
    let mut items: BTreeMap<String, u8> = BTreeMap::new();
    if let Ok(read) = cn_storage::Journal::read(&layout.interactions()) {
        for e in read.entries.iter().filter(|e| ts(e).is_some_and(|t| t >= since)) {
            let (Some(item), Some(level)) = (e.0.get("item").and_then(Value::as_str), e.0.get("level")) else {
                continue;
            };
            let level = level.as_u64().unwrap_or(2) as u8;
            let max = items.entry(item.to_string()).or_default();
            *max = (*max).max(level);
        }
    }
    for level in items.into_values() {
        *levels.entry(level).or_default() += 1;
    }

    let call_tokens = average_call(&state);
    let stats = cn_reflex::Stats::open(layout.reflex_stats());
    let saved = stats
        .map
        .iter()
        .map(|(name, s)| {
            let answered = s.fired.saturating_sub(s.escalated);
            (name.clone(), (answered, answered * call_tokens))
        })
        .collect();
    Ok(Report {
        cap_tokens: config.budget.daily_tokens,
        cap_cost: config.budget.daily_cost,
        in_flight: state.reserved.len(),
        reserved_tokens: state.reserved_tokens(),
        today: state.today,
        levels,
        call_tokens,
        saved,
        history: state.history,
    })
}

/// The tokens an executive call has cost on this hub on average (all days of the ledger),
/// or [`DEFAULT_CALL_TOKENS`] before any: what a reflex's answered item is counted as saving.
fn average_call(state: &cn_models::ledger::BudgetState) -> u64 {
    let (tokens, calls) =
        state.history.iter().chain(std::iter::once(&state.today)).fold((0, 0), |(t, c), d| (t + d.tokens, c + d.calls));
    tokens.checked_div(calls).unwrap_or(DEFAULT_CALL_TOKENS)
}

/// [`average_call`] for `hub` (an unreadable ledger counts as none yet).
pub fn call_tokens(hub: &cn_hub::Hub) -> u64 {
    let config = hub.config();
    let ledger = cn_models::ledger_of(&config.budget, &config.models, hub.root());
    ledger.read().map_or(DEFAULT_CALL_TOKENS, |s| average_call(&s))
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = &self.today;
        let cap = |c: Option<u64>| c.map_or("no cap".to_string(), |c| format!("of {c}"));
        writeln!(
            f,
            "today ({}): {} executive tokens {}, ${:.4}{}",
            t.day,
            t.tokens,
            cap(self.cap_tokens),
            t.cost,
            self.cap_cost.map_or(String::new(), |c| format!(" of ${c:.2}"))
        )?;
        writeln!(f, "  calls answered {}, refused {}, failed and charged {}", t.calls, t.refused, t.failed)?;
        writeln!(f, "  in flight: {} call(s) holding {} tokens", self.in_flight, self.reserved_tokens)?;
        let total: u64 = self.levels.values().sum();
        if total == 0 {
            writeln!(f, "items by level today: none yet")?;
        } else {
            write!(f, "items by level today ({total}):")?;
            for (level, n) in &self.levels {
                write!(f, "  L{level} {n} ({:.0}%)", 100.0 * *n as f64 / total as f64)?;
            }
            writeln!(f)?;
        }
        let saved: u64 = self.saved.values().map(|(_, s)| s).sum();
        writeln!(f, "executive tokens saved by reflexes: {saved} (at {} tokens a call)", self.call_tokens)?;
        for (name, (runs, tokens)) in self.saved.iter().filter(|(_, (r, _))| *r > 0) {
            writeln!(f, "  {name:<24} {runs:>6} answered  {tokens:>9} tokens")?;
        }
        if !self.history.is_empty() {
            writeln!(f, "days before:")?;
            for d in self.history.iter().rev().take(14) {
                writeln!(
                    f,
                    "  {}  {:>9} tokens  ${:.4}  {} calls  {} refused  {} failed",
                    d.day, d.tokens, d.cost, d.calls, d.refused, d.failed
                )?;
            }
        }
        Ok(())
    }
}
