//! `cn budget`: what thinking cost today and what the lower levels saved.
//!
//! - today's executive spend and the calls in flight (the ledger, `state/budget.json`);
//! - the share of today's items decided at each level, from the journal's decisions (each
//!   records the level that decided it: a reflex's, cn's own rules at 1, the local model at 2,
//!   the executive at 3), and how many were handed up;
//! - the executive tokens each reflex saved: its answered runs × the average tokens of an
//!   executive call on this hub, measured by the budget ledger — with no executive call made
//!   yet, no saving is claimed;
//! - the days before, from the ledger's history.

use std::collections::BTreeMap;
use std::fmt;

use cn_hub::journal::{ts, HubJournal};
use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Serialize)]
pub struct Report {
    pub today: cn_models::ledger::DayTotal,
    pub cap_tokens: Option<u64>,
    pub cap_cost: Option<f64>,
    /// Calls in flight: how many and their reserved tokens.
    pub in_flight: usize,
    pub reserved_tokens: u64,
    /// Level → items decided there today (hand-ups not counted).
    pub levels: BTreeMap<u8, u64>,
    /// Items handed up today (no level that could do them could take them).
    pub handed_up: u64,
    /// The tokens an executive call has cost here on average; `None` before any was made.
    pub call_tokens: Option<u64>,
    /// Reflex → (answered runs, executive tokens saved), all time; empty before any
    /// executive call was measured.
    pub saved: BTreeMap<String, (u64, u64)>,
    pub history: Vec<cn_models::ledger::DayTotal>,
}

/// Build the report for `hub`.
pub fn report(hub: &cn_hub::Hub) -> Result<Report, cn_models::ledger::BudgetError> {
    let config = hub.config();
    let ledger = cn_models::ledger_of(&config.budget, &config.models, hub.root());
    let state = ledger.read()?;
    // Today's midnight in the offset it is now.
    let now = ledger.now();
    let since = now
        .offset()
        .to_timestamp(now.date().to_datetime(jiff::civil::Time::midnight()))
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let layout = hub.layout();

    let mut levels: BTreeMap<u8, u64> = BTreeMap::new();
    let mut handed_up = 0;
    if let Ok(read) = HubJournal::read(&layout.state()) {
        for e in read.entries.iter().filter(|e| e.kind() == "decision" && ts(e).is_some_and(|t| t >= since)) {
            if e.0.get("handed_up").is_some() {
                handed_up += 1;
            } else if let Some(level) = e.0.get("level").and_then(Value::as_u64) {
                *levels.entry(level as u8).or_default() += 1;
            }
        }
    }

    let call_tokens = average_call(&state);
    let stats = cn_reflex::Stats::open(layout.reflex_stats());
    let saved = match call_tokens {
        Some(per_call) => stats
            .map
            .iter()
            .map(|(name, s)| {
                let answered = s.fired.saturating_sub(s.escalated);
                (name.clone(), (answered, answered * per_call))
            })
            .collect(),
        None => BTreeMap::new(),
    };
    Ok(Report {
        cap_tokens: config.budget.daily_tokens,
        cap_cost: config.budget.daily_cost,
        in_flight: state.reserved.len(),
        reserved_tokens: state.reserved_tokens(),
        today: state.today,
        levels,
        handed_up,
        call_tokens,
        saved,
        history: state.history,
    })
}

/// The tokens an executive call has cost on this hub on average (all days of the ledger):
/// what a reflex's answered item is counted as saving. `None` before any call was measured —
/// a hub with no executive saves nothing it could claim.
fn average_call(state: &cn_models::ledger::BudgetState) -> Option<u64> {
    let (tokens, calls) =
        state.history.iter().chain(std::iter::once(&state.today)).fold((0, 0), |(t, c), d| (t + d.tokens, c + d.calls));
    tokens.checked_div(calls)
}

/// [`average_call`] for `hub` (an unreadable ledger counts as none yet).
pub fn call_tokens(hub: &cn_hub::Hub) -> Option<u64> {
    let config = hub.config();
    let ledger = cn_models::ledger_of(&config.budget, &config.models, hub.root());
    ledger.read().ok().and_then(|s| average_call(&s))
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
            writeln!(f, "items decided by level today: none yet")?;
        } else {
            write!(f, "items decided by level today ({total}):")?;
            for (level, n) in &self.levels {
                write!(f, "  L{level} {n} ({:.0}%)", 100.0 * *n as f64 / total as f64)?;
            }
            writeln!(f)?;
        }
        if self.handed_up > 0 {
            writeln!(f, "handed up today: {} (no level that could do them could take them)", self.handed_up)?;
        }
        match self.call_tokens {
            Some(per_call) => {
                let saved: u64 = self.saved.values().map(|(_, s)| s).sum();
                writeln!(f, "executive tokens saved by reflexes: {saved} (at {per_call} tokens a call, measured)")?;
                for (name, (runs, tokens)) in self.saved.iter().filter(|(_, (r, _))| *r > 0) {
                    writeln!(f, "  {name:<24} {runs:>6} answered  {tokens:>9} tokens")?;
                }
            }
            None => writeln!(f, "executive tokens saved by reflexes: none claimed (no executive call measured yet)")?,
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
