//! The executive's ledger: a hard budget shared by every process on one hub.
//!
//! Every executive call (each try of it) **reserves** its worst case — the estimated input
//! (bytes / 3, an over-estimate of tokens for any script) plus its whole `max_tokens`, in
//! tokens and at the configured prices — in `state/budget.json` under an OS file lock
//! (`state/budget.lock`) *before* it starts, and **settles** after: the reservation is
//! replaced by the usage the provider reported. A call that would not fit is refused before
//! any request is sent; one that fits only with a shorter answer has its `max_tokens` clamped
//! to what remains (never below [`MIN_ANSWER_TOKENS`]).
//!
//! What a failed try is charged: a connect failure nothing (no request reached the server);
//! an HTTP error status its input estimate (the server read the prompt); a cut stream, a
//! timeout, a malformed answer or any other failure its whole reservation (it may have
//! generated up to `max_tokens` that we never saw). A process that dies between reserve and
//! settle leaves its reservation behind; the next reservation on the hub finds its holder
//! dead (each process holds an OS lock on `state/budget-holders/<id>.lock` while it has a
//! reservation) and charges it in full.
//!
//! Invariants: the day's charged tokens plus the reservations in flight never pass the cap
//! when the input estimates hold, so `cn run`, `cn chat`, `cn ask` and `cn loop run` on one
//! hub, together, never overshoot it; `state/budget.json` is only written under the lock,
//! atomically; the days before are kept in `history` (newest last, [`HISTORY_DAYS`] of them).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cn_compute::{Answer, Model, ModelError, Plan};
use jiff::{SignedDuration, Zoned};
use serde::{Deserialize, Serialize};

use crate::config::BudgetConfig;

/// The shortest answer worth asking for when `max_tokens` must be clamped.
pub const MIN_ANSWER_TOKENS: u32 = 64;
/// How many past days `state/budget.json` keeps.
pub const HISTORY_DAYS: usize = 60;

pub type Clock = Arc<dyn Fn() -> Zoned + Send + Sync>;

/// The local time now, in the system's time zone (`TZ`, else `/etc/localtime`; UTC when
/// neither says): its offset is looked up each time, so it follows DST.
pub fn system_clock() -> Clock {
    Arc::new(Zoned::now)
}

/// One call in flight: what it may still cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Reservation {
    pub id: String,
    /// The process holding it (`state/budget-holders/<holder>.lock`).
    pub holder: String,
    pub tokens: u64,
    pub cost: f64,
    /// When it was made (Unix seconds).
    pub since: i64,
}

/// One day's totals.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DayTotal {
    /// The local date (`YYYY-MM-DD`).
    pub day: String,
    /// Tokens charged (answered calls, failed tries, reservations of dead processes).
    pub tokens: u64,
    pub cost: f64,
    /// Calls answered.
    pub calls: u64,
    /// Calls refused (fallen back or deferred).
    pub refused: u64,
    /// Tries that failed and were charged what they may have consumed.
    pub failed: u64,
}

/// What has been spent today and what is in flight (`state/budget.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BudgetState {
    /// Today's totals (flat in the file: `day`, `tokens`, `cost`, …).
    #[serde(flatten)]
    pub today: DayTotal,
    /// When the last autonomous executive call was admitted (Unix seconds).
    pub last_autonomous: Option<i64>,
    /// Calls in flight.
    pub reserved: Vec<Reservation>,
    /// The days before, oldest first.
    pub history: Vec<DayTotal>,
}

impl BudgetState {
    pub fn reserved_tokens(&self) -> u64 {
        self.reserved.iter().map(|r| r.tokens).sum()
    }

    pub fn reserved_cost(&self) -> f64 {
        self.reserved.iter().map(|r| r.cost).sum()
    }

    /// Start a new day's counts when the local date is not this state's; the old day goes
    /// to `history`. Reservations in flight stay (they settle on the new day).
    pub fn roll(&mut self, today: &str) {
        if self.today.day == today {
            return;
        }
        let old = std::mem::replace(&mut self.today, DayTotal { day: today.to_string(), ..DayTotal::default() });
        let used = old.tokens > 0 || old.calls > 0 || old.refused > 0 || old.failed > 0;
        if !old.day.is_empty() && used {
            self.history.push(old);
            let extra = self.history.len().saturating_sub(HISTORY_DAYS);
            self.history.drain(..extra);
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BudgetError {
    #[error("thinking budget {path}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// Why the budget refuses an executive call now.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    #[error("daily executive tokens spent ({spent} charged and {reserved} reserved of {cap}; this call needs at least {need}); resets at local midnight")]
    Tokens { spent: u64, reserved: u64, cap: u64, need: u64 },
    #[error("daily executive cost spent (${spent:.4} charged and ${reserved:.4} reserved of ${cap:.2}); resets at local midnight")]
    Cost { spent: f64, reserved: f64, cap: f64 },
    #[error("autonomous executive calls are paced: next one in {wait_secs}s")]
    Paced { wait_secs: i64 },
}

impl Refusal {
    /// When the refused call could run: a spent cap at the next local midnight, paced calls
    /// when the interval is over (RFC 3339, to the second).
    /// Written in `now`'s offset (the next midnight too, whatever DST does overnight).
    pub fn retry_at(&self, now: &Zoned) -> String {
        let at = match self {
            Refusal::Paced { wait_secs } => now.timestamp() + SignedDuration::from_secs((*wait_secs).max(1)),
            Refusal::Tokens { .. } | Refusal::Cost { .. } => now
                .date()
                .tomorrow()
                .ok()
                .and_then(|d| now.offset().to_timestamp(d.to_datetime(jiff::civil::Time::midnight())).ok())
                .unwrap_or_else(|| now.timestamp() + SignedDuration::from_hours(24)),
        };
        cn_storage::rfc3339_in(at, now.offset())
    }
}

/// A reservation made: settle it with [`Ledger::settle`] or [`Ledger::fail`].
#[derive(Debug, Clone, PartialEq)]
pub struct Ticket {
    pub id: String,
    /// The input estimate reserved.
    pub tokens_in: u64,
    /// The answer's cap, clamped to what remained.
    pub max_tokens: u32,
}

/// The budget file of one hub and the caps from `cn.yaml`.
pub struct Ledger {
    path: PathBuf,
    lock: PathBuf,
    holders: PathBuf,
    config: BudgetConfig,
    /// Dollars per million tokens in / out (the executive's prices).
    prices: (f64, f64),
    clock: Clock,
    /// This process's holder id and the lock that says it is alive (taken at the first
    /// reservation).
    holder: Mutex<Option<(String, cn_storage::ProcessLock)>>,
}

impl std::fmt::Debug for Ledger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ledger").field("path", &self.path).field("config", &self.config).finish()
    }
}

impl Ledger {
    /// The ledger of the hub whose layout is `layout`.
    pub fn new(layout: &cn_hub::Layout, config: BudgetConfig, prices: (f64, f64), clock: Clock) -> Ledger {
        Ledger {
            path: layout.budget(),
            lock: layout.budget_lock(),
            holders: layout.budget_holders(),
            config,
            prices,
            clock,
            holder: Mutex::new(None),
        }
    }

    pub fn config(&self) -> &BudgetConfig {
        &self.config
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn now(&self) -> Zoned {
        (self.clock)()
    }

    pub fn cost(&self, tokens_in: u64, tokens_out: u64) -> f64 {
        (tokens_in as f64 * self.prices.0 + tokens_out as f64 * self.prices.1) / 1_000_000.0
    }

    fn io(&self, source: std::io::Error) -> BudgetError {
        BudgetError::Io { path: self.path.clone(), source }
    }

    /// Run `f` on the state read fresh under the lock (the day rolled, dead holders' calls
    /// charged); the state is written back when `f` returns `true` or anything was reaped or
    /// rolled in an existing file.
    pub fn update<T>(&self, f: impl FnOnce(&mut BudgetState) -> (bool, T)) -> Result<T, BudgetError> {
        if let Some(dir) = self.lock.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.io(e))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&self.lock)
            .map_err(|e| self.io(e))?;
        file.lock().map_err(|e| self.io(e))?;
        let mut state: BudgetState = cn_storage::read_json_or_default(&self.path).map_err(|e| self.io(e))?;
        let before = state.clone();
        state.roll(&day(&self.now()));
        self.reap(&mut state);
        let (write, out) = f(&mut state);
        // A day rolled over in a file that is not there yet is nothing to keep: reading the
        // budget (`cn budget`) leaves no file behind.
        if write || (state != before && self.path.exists()) {
            cn_storage::write_json_atomic(&self.path, &state).map_err(|e| self.io(e))?;
        }
        drop(file);
        Ok(out)
    }

    /// Today's state as the file holds it now (read under the lock).
    pub fn read(&self) -> Result<BudgetState, BudgetError> {
        self.update(|s| (false, s.clone()))
    }

    /// Charge in full the reservations of processes that died holding them.
    fn reap(&self, state: &mut BudgetState) {
        let own = self.holder.lock().ok().and_then(|h| h.as_ref().map(|(id, _)| id.clone()));
        let mut dead = Vec::new();
        state.reserved.retain(|r| {
            let alive =
                Some(&r.holder) == own.as_ref() || cn_storage::ProcessLock::is_held(&self.holder_file(&r.holder));
            if !alive {
                dead.push(r.clone());
            }
            alive
        });
        for r in dead {
            tracing::warn!(holder = %r.holder, tokens = r.tokens, "an executive call's process died mid-call: charged its whole reservation");
            state.today.tokens += r.tokens;
            state.today.cost += r.cost;
            state.today.failed += 1;
            let _ = std::fs::remove_file(self.holder_file(&r.holder));
        }
    }

    fn holder_file(&self, holder: &str) -> PathBuf {
        self.holders.join(format!("{holder}.lock"))
    }

    /// This process's holder id, taking its lock the first time (called under the ledger lock).
    fn holder_id(&self) -> Result<String, BudgetError> {
        let mut slot = self.holder.lock().map_err(|_| self.io(std::io::Error::other("holder lock poisoned")))?;
        if let Some((id, _)) = slot.as_ref() {
            return Ok(id.clone());
        }
        let id = format!("{}-{:08x}", std::process::id(), fastrand::u32(..));
        let lock = cn_storage::ProcessLock::try_acquire(&self.holder_file(&id))
            .map_err(|e| self.io(e))?
            .ok_or_else(|| self.io(std::io::Error::other("holder id taken")))?;
        *slot = Some((id.clone(), lock));
        Ok(id)
    }

    /// Whether a call needing `tokens_in` + `max_tokens` could be reserved now (no change).
    pub fn fits(&self, tokens_in: u64, max_tokens: u32) -> Result<Result<u32, Refusal>, BudgetError> {
        self.update(|s| (false, self.room(s, tokens_in, max_tokens)))
    }

    /// The `max_tokens` a call may have now (clamped), or why it may not run.
    pub fn room(&self, s: &BudgetState, tokens_in: u64, max_tokens: u32) -> Result<u32, Refusal> {
        let floor = max_tokens.min(MIN_ANSWER_TOKENS);
        let mut max = max_tokens;
        if let Some(cap) = self.config.daily_tokens {
            let used = s.today.tokens + s.reserved_tokens();
            let left = cap.saturating_sub(used).saturating_sub(tokens_in);
            if left < floor as u64 {
                return Err(Refusal::Tokens {
                    spent: s.today.tokens,
                    reserved: s.reserved_tokens(),
                    cap,
                    need: tokens_in + floor as u64,
                });
            }
            max = max.min(left.min(u32::MAX as u64) as u32);
        }
        if let Some(cap) = self.config.daily_cost {
            let left = cap - s.today.cost - s.reserved_cost() - self.cost(tokens_in, 0);
            let fits = |n: u32| self.cost(0, n as u64) <= left;
            if left < 0.0 || !fits(floor) {
                return Err(Refusal::Cost { spent: s.today.cost, reserved: s.reserved_cost(), cap });
            }
            if !fits(max) {
                // Prices are positive here (else everything fits): the most tokens `left` buys.
                max = ((left * 1_000_000.0 / self.prices.1).floor() as u32).clamp(floor, max);
            }
        }
        Ok(max)
    }

    /// Reserve the worst case of a call: its input estimate and `max_tokens` (clamped to what
    /// remains). A refusal is counted.
    pub fn reserve(&self, tokens_in: u64, max_tokens: u32) -> Result<Result<Ticket, Refusal>, BudgetError> {
        let holder = self.holder_id()?;
        let since = self.now().timestamp().as_second();
        self.update(|s| match self.room(s, tokens_in, max_tokens) {
            Ok(max) => {
                let id = format!("{holder}-{}", fastrand::u64(..));
                let tokens = tokens_in + max as u64;
                s.reserved.push(Reservation {
                    id: id.clone(),
                    holder,
                    tokens,
                    cost: self.cost(tokens_in, max as u64),
                    since,
                });
                (true, Ok(Ticket { id, tokens_in, max_tokens: max }))
            }
            Err(refusal) => {
                s.today.refused += 1;
                (true, Err(refusal))
            }
        })
    }

    /// Replace a reservation by what the answered call used. A reservation already charged
    /// (reaped as dead) is not charged twice.
    pub fn settle(&self, ticket: &Ticket, tokens_in: u64, tokens_out: u64) -> Result<(), BudgetError> {
        self.charge(ticket, tokens_in, tokens_out, |s| s.today.calls += 1)
    }

    /// Settle a failed try with what it may have consumed (see the module doc).
    pub fn fail(&self, ticket: &Ticket, error: &ModelError) -> Result<(), BudgetError> {
        let (tokens_in, tokens_out) = failure_charge(ticket, error);
        self.charge(ticket, tokens_in, tokens_out, |s| s.today.failed += 1)
    }

    fn charge(
        &self,
        ticket: &Ticket,
        tokens_in: u64,
        tokens_out: u64,
        count: impl FnOnce(&mut BudgetState),
    ) -> Result<(), BudgetError> {
        self.update(|s| {
            let before = s.reserved.len();
            s.reserved.retain(|r| r.id != ticket.id);
            if s.reserved.len() < before {
                s.today.tokens += tokens_in + tokens_out;
                s.today.cost += self.cost(tokens_in, tokens_out);
                count(s);
            }
            (true, ())
        })
    }
}

impl Drop for Ledger {
    fn drop(&mut self) {
        if let Ok(mut slot) = self.holder.lock() {
            if let Some((id, lock)) = slot.take() {
                drop(lock);
                let _ = std::fs::remove_file(self.holder_file(&id));
            }
        }
    }
}

/// What a failed try is charged, in tokens in and out.
pub fn failure_charge(ticket: &Ticket, error: &ModelError) -> (u64, u64) {
    match error {
        ModelError::Connect(_) | ModelError::Budget(_) | ModelError::Config(_) => (0, 0),
        ModelError::Status { .. } => (ticket.tokens_in, 0),
        ModelError::Timeout(_) | ModelError::Cut(_) | ModelError::Malformed(_) | ModelError::Other(_) => {
            (ticket.tokens_in, ticket.max_tokens as u64)
        }
    }
}

/// The input estimate of a plan: bytes / 3, more than the tokens of any script.
pub fn input_estimate(plan: &Plan) -> u64 {
    (plan.system.len() + plan.prompt.len()).div_ceil(3) as u64
}

/// The executive behind the ledger: each try reserves, then settles (wrap it in `Retry`
/// so every try is charged).
pub struct Metered<M> {
    pub inner: M,
    pub ledger: Arc<Ledger>,
    /// The `max_tokens` the provider uses when a plan sets none.
    pub default_max_tokens: u32,
}

impl<M: Model> Model for Metered<M> {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let wanted = if plan.max_tokens > 0 { plan.max_tokens } else { self.default_max_tokens };
        let ledger_error = |e: BudgetError| ModelError::Other(cn_compute::chain(&e));
        let ticket = match self.ledger.reserve(input_estimate(plan), wanted).map_err(ledger_error)? {
            Ok(ticket) => ticket,
            Err(refusal) => return Err(ModelError::Budget(refusal.to_string())),
        };
        let mut clamped;
        let plan = if ticket.max_tokens == wanted && plan.max_tokens > 0 {
            plan
        } else {
            clamped = plan.clone();
            clamped.max_tokens = ticket.max_tokens;
            &clamped
        };
        match self.inner.ask(plan) {
            Ok(answer) => {
                self.ledger.settle(&ticket, answer.tokens_in, answer.tokens_out).map_err(ledger_error)?;
                Ok(answer)
            }
            Err(error) => {
                if let Err(e) = self.ledger.fail(&ticket, &error) {
                    tracing::error!(e = %cn_compute::Chain(&e), "cannot charge a failed executive call");
                }
                Err(error)
            }
        }
    }
}

pub fn day(t: &Zoned) -> String {
    format!("{:04}-{:02}-{:02}", t.year(), t.month(), t.day())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A time in a fixed offset (`2026-01-07T22:00:00+01:00[+01:00]`).
    fn at(s: &str) -> Zoned {
        s.parse().unwrap()
    }

    fn ledger(dir: &Path, config: BudgetConfig, now: Arc<Mutex<Zoned>>) -> Arc<Ledger> {
        Arc::new(Ledger::new(
            &cn_hub::Layout::new(dir),
            config,
            (3.0, 15.0),
            Arc::new(move || now.lock().unwrap().clone()),
        ))
    }

    #[test]
    fn a_refusal_says_when_to_retry_in_the_local_offset() {
        let now = at("2026-01-07T22:00:30+01:00[+01:00]");
        assert_eq!(Refusal::Paced { wait_secs: 90 }.retry_at(&now), "2026-01-07T22:02:00+01:00");
        assert_eq!(Refusal::Paced { wait_secs: 0 }.retry_at(&now), "2026-01-07T22:00:31+01:00");
        let spent = Refusal::Cost { spent: 1.0, reserved: 0.0, cap: 1.0 };
        assert_eq!(spent.retry_at(&now), "2026-01-08T00:00:00+01:00");
        assert_eq!(spent.retry_at(&at("2026-01-07T23:59:59Z[UTC]")), "2026-01-08T00:00:00Z");
        // The offset of now, even where DST changes it overnight (New York, 2026-03-08).
        assert_eq!(spent.retry_at(&at("2026-03-07T21:00:00-05:00[America/New_York]")), "2026-03-08T00:00:00-05:00");
        assert_eq!(day(&now), "2026-01-07");
    }

    struct Fixed(Result<Answer, ModelError>, Vec<u32>);
    impl Model for Fixed {
        fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
            self.1.push(plan.max_tokens);
            // An answer never passes its max_tokens.
            self.0.clone().map(|a| Answer { tokens_out: a.tokens_out.min(plan.max_tokens as u64), ..a })
        }
    }

    fn answer(tokens_in: u64, tokens_out: u64) -> Answer {
        Answer { markdown: "ok".into(), model: "m".into(), tokens_in, tokens_out, elapsed: Duration::ZERO }
    }

    fn plan(max_tokens: u32) -> Plan {
        Plan { level: 3, prompt: "x".repeat(300), max_tokens, ..Default::default() }
        // 100 in
    }

    #[test]
    fn reserves_the_worst_case_settles_the_usage_and_clamps_to_what_remains() {
        let dir = tempfile::tempdir().unwrap();
        let now = Arc::new(Mutex::new(at("2026-01-07T22:00:00+01:00[+01:00]")));
        let l = ledger(dir.path(), BudgetConfig { daily_tokens: Some(1000), ..Default::default() }, now.clone());
        let mut m = Metered { inner: Fixed(Ok(answer(90, 300)), vec![]), ledger: l.clone(), default_max_tokens: 1024 };
        // 1000: 100 + 500 fits; charged 390.
        m.ask(&plan(500)).unwrap();
        let s = l.read().unwrap();
        assert_eq!((s.today.tokens, s.today.calls, s.reserved.len()), (390, 1, 0));
        // 610 left: 100 in, the answer clamped to 510.
        m.ask(&plan(800)).unwrap();
        assert_eq!(m.inner.1, [500, 510]);
        // 220 left: 100 in + 120 ≥ 64 → clamped to 120; then 0 left → refused.
        m.ask(&plan(800)).unwrap();
        assert_eq!(m.inner.1[2], 120);
        let e = m.ask(&plan(800)).unwrap_err();
        assert!(matches!(&e, ModelError::Budget(r) if r.contains("of 1000")), "{e}");
        assert_eq!(m.inner.1.len(), 3, "a refused call is never sent");
        let s = l.read().unwrap();
        assert_eq!((s.today.tokens, s.today.refused), (990, 1), "never over the cap");
        // The next day starts at zero and keeps the day before.
        *now.lock().unwrap() += Duration::from_secs(3 * 3600);
        let s = l.read().unwrap();
        assert_eq!(
            (s.today.day.as_str(), s.today.tokens, s.history.len(), s.history[0].tokens),
            ("2026-01-08", 0, 1, 990)
        );
    }

    #[test]
    fn failed_tries_are_charged_what_they_may_have_consumed() {
        let dir = tempfile::tempdir().unwrap();
        let now = Arc::new(Mutex::new(at("2026-01-07T12:00:00Z[UTC]")));
        let l = ledger(dir.path(), BudgetConfig::default(), now);
        let cases = [
            (ModelError::Connect("refused".into()), 0),
            (ModelError::Status { status: 500, message: "x".into(), retry_after_ms: None }, 100),
            (ModelError::Cut("half".into()), 100 + 200),
            (ModelError::Timeout("slow".into()), 100 + 200),
        ];
        let mut total = 0;
        for (error, charge) in cases {
            let mut m = Metered { inner: Fixed(Err(error), vec![]), ledger: l.clone(), default_max_tokens: 1024 };
            assert!(m.ask(&plan(200)).is_err());
            total += charge;
            let s = l.read().unwrap();
            assert_eq!((s.today.tokens, s.reserved.len()), (total, 0));
        }
        assert_eq!(l.read().unwrap().today.failed, 4);
    }

    #[test]
    fn a_dead_processes_reservation_is_charged_in_full() {
        let dir = tempfile::tempdir().unwrap();
        let now = Arc::new(Mutex::new(at("2026-01-07T12:00:00Z[UTC]")));
        let config = BudgetConfig { daily_tokens: Some(10_000), ..Default::default() };
        let dead = ledger(dir.path(), config.clone(), now.clone());
        let ticket = dead.reserve(100, 200).unwrap().unwrap();
        assert_eq!(ticket.max_tokens, 200);
        drop(dead); // the process ends without settling: its holder lock is released
        let alive = ledger(dir.path(), config, now);
        let s = alive.read().unwrap();
        assert_eq!((s.today.tokens, s.today.failed, s.reserved.len()), (300, 1, 0));
    }

    #[test]
    fn the_cost_cap_clamps_and_refuses_too() {
        let dir = tempfile::tempdir().unwrap();
        let now = Arc::new(Mutex::new(at("2026-01-07T12:00:00Z[UTC]")));
        // $15/M out: $0.0033 buys 100 in ($0.0003) + 200 out ($0.003).
        let l = ledger(dir.path(), BudgetConfig { daily_cost: Some(0.0033), ..Default::default() }, now);
        assert_eq!(l.reserve(100, 1000).unwrap().unwrap().max_tokens, 200);
        assert!(matches!(l.reserve(100, 1000).unwrap(), Err(Refusal::Cost { .. })));
    }
}
