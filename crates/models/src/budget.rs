//! The thinking budget (the design's `ThinkingBudget.CanDoAutonomousWork()`): how much the
//! executive (level 3) may think per day, and how often on its own initiative.
//!
//! - a daily cap on executive tokens (input + output), and an optional cost cap from the
//!   executive's prices in `cn.yaml`;
//! - a minimum interval between autonomous executive calls; owner items (`plan.owner`) are
//!   exempt from the interval, never from the caps;
//! - when a call is refused, the plan falls back to the local level (whose tool calls then run
//!   with the local level's grants, never the executive's) or the ask fails with
//!   `ModelError::Budget` (the caller defers the item with the reason), as configured.
//!
//! The rule that keeps the cap: a call is admitted only if the day's usage plus its
//! estimated input (bytes / 3, which over-estimates tokens for any script) plus its whole
//! `max_tokens` fits under the cap. An answer never exceeds `max_tokens`, so the cap can be
//! passed only by an input estimate that was too low — in practice never, and never by
//! more than one call's `max_tokens`.
//!
//! Invariants: usage survives restarts (`state/budget.json`, written atomically after every
//! change) and resets at local midnight; the clock is injected so tests can cross midnight.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cn_compute::{Answer, AskFn, Decorator, Model, ModelError, Plan, State};
use serde::{Deserialize, Serialize};
use time::{OffsetDateTime, UtcOffset};

use crate::config::{BudgetConfig, OnExhausted};

/// The executive's level: the only one the budget meters.
pub const EXECUTIVE: cn_compute::Level = 3;

/// What has been spent today (`state/budget.json`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BudgetState {
    /// The local date these counts belong to (`YYYY-MM-DD`).
    pub day: String,
    pub tokens: u64,
    pub cost: f64,
    pub calls: u64,
    /// Calls refused today (fallen back or deferred).
    pub refused: u64,
    /// When the last autonomous executive call was admitted (Unix seconds).
    pub last_autonomous: Option<i64>,
}

pub type Clock = Arc<dyn Fn() -> OffsetDateTime + Send + Sync>;

/// The local time now. The offset is looked up each time (it can change with DST) and the
/// one found at start-up is used when the platform cannot tell from a threaded process.
pub fn system_clock() -> Clock {
    let fallback = UtcOffset::current_local_offset().unwrap_or(UtcOffset::UTC);
    Arc::new(move || {
        let offset = UtcOffset::current_local_offset().unwrap_or(fallback);
        OffsetDateTime::now_utc().to_offset(offset)
    })
}

#[derive(Debug, thiserror::Error)]
pub enum BudgetError {
    #[error("thinking budget {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
}

/// Why the budget refuses an executive call now.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refusal {
    #[error("daily executive tokens spent ({spent} of {cap}; this call may need {need}); resets at local midnight")]
    Tokens { spent: u64, cap: u64, need: u64 },
    #[error("daily executive cost spent (${spent:.4} of ${cap:.2}); resets at local midnight")]
    Cost { spent: f64, cap: f64 },
    #[error("autonomous executive calls are paced: next one in {wait_secs}s")]
    Paced { wait_secs: i64 },
}

pub struct Budget {
    path: PathBuf,
    config: BudgetConfig,
    /// Dollars per million tokens in / out (the executive's prices).
    prices: (f64, f64),
    /// `max_tokens` of a plan sent down to the local level.
    fallback_max_tokens: u32,
    clock: Clock,
    state: BudgetState,
}

impl std::fmt::Debug for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget")
            .field("path", &self.path)
            .field("config", &self.config)
            .field("state", &self.state)
            .finish()
    }
}

/// A budget shared by the ask decorator and whoever chooses levels.
pub type SharedBudget = Arc<Mutex<Budget>>;

impl Budget {
    /// Open the budget kept at `path` (usually `state/budget.json`).
    pub fn open(
        path: impl Into<PathBuf>,
        config: BudgetConfig,
        prices: (f64, f64),
        clock: Clock,
    ) -> Result<Budget, BudgetError> {
        let path = path.into();
        let state =
            cn_storage::read_json_or_default(&path).map_err(|source| BudgetError::Io { path: path.clone(), source })?;
        let fallback_max_tokens = crate::plan::LevelLimits::default_for(2).max_tokens;
        Ok(Budget { path, config, prices, fallback_max_tokens, clock, state })
    }

    pub fn shared(self) -> SharedBudget {
        Arc::new(Mutex::new(self))
    }

    pub fn state(&self) -> &BudgetState {
        &self.state
    }

    pub fn config(&self) -> &BudgetConfig {
        &self.config
    }

    /// Start a new day's counts when the local date has changed.
    fn roll(&mut self, now: OffsetDateTime) {
        let today = day(now);
        if self.state.day != today {
            self.state =
                BudgetState { day: today, last_autonomous: self.state.last_autonomous, ..BudgetState::default() };
        }
    }

    fn cost(&self, tokens_in: u64, tokens_out: u64) -> f64 {
        (tokens_in as f64 * self.prices.0 + tokens_out as f64 * self.prices.1) / 1_000_000.0
    }

    /// Whether a call of this kind could run now; the reason when not. Changes nothing
    /// but the day.
    pub fn check(&mut self, owner: bool, tokens_in: u64, max_tokens: u32) -> Result<(), Refusal> {
        let now = (self.clock)();
        self.roll(now);
        let need = tokens_in + max_tokens as u64;
        if let Some(cap) = self.config.daily_tokens {
            if self.state.tokens + need > cap {
                return Err(Refusal::Tokens { spent: self.state.tokens, cap, need });
            }
        }
        if let Some(cap) = self.config.daily_cost {
            let need = self.cost(tokens_in, max_tokens as u64);
            if self.state.cost + need > cap {
                return Err(Refusal::Cost { spent: self.state.cost, cap });
            }
        }
        if !owner && self.config.min_interval_secs > 0 {
            if let Some(last) = self.state.last_autonomous {
                let next = last + self.config.min_interval_secs as i64;
                let now_s = now.unix_timestamp();
                if now_s < next {
                    return Err(Refusal::Paced { wait_secs: next - now_s });
                }
            }
        }
        Ok(())
    }

    /// `CanDoAutonomousWork()`: may an autonomous item go to the executive now?
    pub fn can_do_autonomous_work(&mut self) -> bool {
        self.check(false, 0, crate::plan::LevelLimits::default_for(EXECUTIVE).max_tokens).is_ok()
    }

    /// Admit `plan` (stamping the interval for autonomous calls) or say why not.
    pub fn admit(&mut self, plan: &Plan) -> Result<(), Refusal> {
        let tokens_in = (plan.system.len() + plan.prompt.len()).div_ceil(3) as u64;
        let verdict = self.check(plan.owner, tokens_in, plan.max_tokens);
        match &verdict {
            Ok(()) if !plan.owner => self.state.last_autonomous = Some((self.clock)().unix_timestamp()),
            Ok(()) => {}
            Err(_) => self.state.refused += 1,
        }
        self.save();
        verdict
    }

    /// Count what an answered call used.
    pub fn charge(&mut self, answer: &Answer) {
        let now = (self.clock)();
        self.roll(now);
        self.state.tokens += answer.tokens_in + answer.tokens_out;
        self.state.cost += self.cost(answer.tokens_in, answer.tokens_out);
        self.state.calls += 1;
        self.save();
    }

    /// A failure to persist is logged: the in-memory counts still hold for this run.
    fn save(&self) {
        if let Err(e) = cn_storage::write_json_atomic(&self.path, &self.state) {
            tracing::error!(path = %self.path.display(), error = %e, "cannot save the thinking budget");
        }
    }

    /// Ask through the budget: executive plans are admitted, sent down, or refused.
    pub fn guard(
        budget: &SharedBudget,
        plan: Plan,
        mut ask: impl FnMut(Plan) -> Result<Answer, ModelError>,
    ) -> Result<Answer, ModelError> {
        if plan.level != EXECUTIVE {
            return ask(plan);
        }
        let lock = || budget.lock().map_err(|_| ModelError::Other("thinking budget lock poisoned".into()));
        let (verdict, on_exhausted, fallback_max) = {
            let mut b = lock()?;
            (b.admit(&plan), b.config.on_exhausted, b.fallback_max_tokens)
        };
        match verdict {
            Ok(()) => {
                let answer = ask(plan)?;
                lock()?.charge(&answer);
                Ok(answer)
            }
            Err(reason) => match on_exhausted {
                // The model's error carries text (it is shown and serialized): the edge.
                OnExhausted::Defer => Err(ModelError::Budget(reason.to_string())),
                OnExhausted::Local => {
                    tracing::info!(%reason, "thinking budget: asking the local level instead");
                    let mut local = plan;
                    local.level = 2;
                    local.max_tokens = local.max_tokens.min(fallback_max).max(1);
                    ask(local)
                }
            },
        }
    }

    /// The budget as a decorator on `ask`.
    pub fn decorator(budget: SharedBudget) -> Decorator {
        Decorator::Ask(Box::new(move |mut inner: AskFn| -> AskFn {
            Box::new(move |state: &mut State, plan: Plan| {
                Budget::guard(&budget, plan, |p| {
                    // A plan sent down to the local level acts with that level's grants, not
                    // the executive's: `act` checks every tool call against `state.level`.
                    state.level = p.level;
                    inner(state, p)
                })
            })
        }))
    }
}

/// A model behind the budget (for asking outside the kernel's verbs, like `cn ask`).
pub struct Budgeted<M> {
    pub inner: M,
    pub budget: SharedBudget,
}

impl<M: Model> Model for Budgeted<M> {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let inner = &mut self.inner;
        Budget::guard(&self.budget, plan.clone(), |p| inner.ask(&p))
    }
}

fn day(t: OffsetDateTime) -> String {
    format!("{:04}-{:02}-{:02}", t.year(), u8::from(t.month()), t.day())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_compute::Scripted;
    use std::time::Duration;
    use time::macros::datetime;

    struct Fixture {
        _dir: tempfile::TempDir,
        path: PathBuf,
        now: Arc<Mutex<OffsetDateTime>>,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/budget.json");
        Fixture { _dir: dir, path, now: Arc::new(Mutex::new(datetime!(2026-01-07 22:00 +01:00))) }
    }

    impl Fixture {
        fn budget(&self, config: BudgetConfig) -> SharedBudget {
            let now = self.now.clone();
            Budget::open(&self.path, config, (3.0, 15.0), Arc::new(move || *now.lock().unwrap())).unwrap().shared()
        }
        fn advance(&self, d: Duration) {
            let mut now = self.now.lock().unwrap();
            *now += d;
        }
    }

    /// A router stand-in: level 3 answers "exec", level 2 "local", each with a fixed usage.
    struct Levels;
    impl Model for Levels {
        fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
            let name = if plan.level == 3 { "exec" } else { "local" };
            Ok(Answer {
                markdown: name.into(),
                model: name.into(),
                tokens_in: 300,
                tokens_out: 200,
                elapsed: Duration::ZERO,
            })
        }
    }

    fn plan(owner: bool) -> Plan {
        Plan { level: 3, prompt: "x".repeat(300), max_tokens: 200, owner, ..Default::default() }
        // 100 tokens in (bytes/3)
    }

    #[test]
    fn degrades_to_local_when_spent_and_resets_at_local_midnight() {
        let f = fixture();
        let config = BudgetConfig { daily_tokens: Some(1600), ..Default::default() };
        let mut m = Budgeted { inner: Levels, budget: f.budget(config.clone()) };
        // Each call is admitted needing 100 + 200 and charged 500: 1600 admits 3 calls
        // (0, 500, 1000 used: 1000 + 300 <= 1600), the fourth (1500 + 300 > 1600) falls back.
        let answers: Vec<String> = (0..5).map(|_| m.ask(&plan(true)).unwrap().markdown).collect();
        assert_eq!(answers, ["exec", "exec", "exec", "local", "local"]);
        let state = m.budget.lock().unwrap().state().clone();
        assert_eq!((state.tokens, state.calls, state.refused, state.day.as_str()), (1500, 3, 2, "2026-01-07"));
        assert!(state.tokens <= 1600, "never over the cap");

        // Usage survives a restart.
        let mut m = Budgeted { inner: Levels, budget: f.budget(config.clone()) };
        assert_eq!(m.ask(&plan(true)).unwrap().markdown, "local");
        // Local midnight (23:00 UTC here) resets it.
        f.advance(Duration::from_secs(2 * 3600));
        assert_eq!(m.ask(&plan(true)).unwrap().markdown, "exec");
        let state = m.budget.lock().unwrap().state().clone();
        assert_eq!((state.tokens, state.day.as_str()), (500, "2026-01-08"));
        let on_disk: BudgetState = cn_storage::read_json_or_default(&f.path).unwrap();
        assert_eq!(on_disk, state);
    }

    #[test]
    fn defers_with_the_reason_when_configured() {
        let f = fixture();
        let config = BudgetConfig { daily_cost: Some(0.0001), on_exhausted: OnExhausted::Defer, ..Default::default() };
        let mut m = Budgeted { inner: Levels, budget: f.budget(config) };
        match m.ask(&plan(true)) {
            Err(ModelError::Budget(reason)) => assert!(reason.contains("cost"), "{reason}"),
            other => panic!("{other:?}"),
        }
        // Lower levels are never metered.
        assert_eq!(m.ask(&Plan { level: 2, ..plan(true) }).unwrap().markdown, "local");
    }

    #[test]
    fn paces_autonomous_calls_but_not_the_owner() {
        let f = fixture();
        let config = BudgetConfig { min_interval_secs: 600, on_exhausted: OnExhausted::Defer, ..Default::default() };
        let budget = f.budget(config);
        let mut m = Budgeted { inner: Levels, budget: budget.clone() };
        assert!(m.ask(&plan(false)).is_ok());
        assert!(!budget.lock().unwrap().can_do_autonomous_work());
        assert!(matches!(m.ask(&plan(false)), Err(ModelError::Budget(r)) if r.contains("paced")));
        assert_eq!(m.ask(&plan(true)).unwrap().markdown, "exec", "owner items are exempt from pacing");
        f.advance(Duration::from_secs(601));
        assert!(budget.lock().unwrap().can_do_autonomous_work());
        assert!(m.ask(&plan(false)).is_ok());
    }

    #[test]
    fn the_decorator_wraps_ask_in_the_kernel() {
        use cn_compute::{begin, Decision, Inputs, MemoryStore, Mind, Outcomes, Parts, ToolCall, ToolError, Tools};
        struct OneMove(u8);
        impl Mind for OneMove {
            fn decide(&mut self, _: &Outcomes) -> Decision {
                if self.0 == 0 {
                    Decision::Rest
                } else {
                    self.0 -= 1;
                    Decision::Move
                }
            }
            fn plan(&mut self, _: &Outcomes) -> Plan {
                plan(false)
            }
        }
        struct NoTools;
        impl Tools for NoTools {
            fn call(&mut self, _: u8, _: &ToolCall) -> Result<serde_json::Value, ToolError> {
                Ok(serde_json::Value::Null)
            }
        }
        let f = fixture();
        let budget =
            f.budget(BudgetConfig { daily_tokens: Some(0), on_exhausted: OnExhausted::Defer, ..Default::default() });
        let store = MemoryStore::default();
        let stop = cn_compute::StopToken::new();
        let mut inputs = Inputs::new(
            f.path.parent().unwrap(),
            Parts {
                mind: Box::new(OneMove(1)),
                model: Box::new(Scripted::new(["```yaml\ntool: noop\n```"])),
                tools: Box::new(NoTools),
                store: Box::new(store.clone()),
            },
        );
        let s2 = stop.clone();
        inputs.decorators = vec![
            Budget::decorator(budget),
            // Stop after the first rest so the loop ends.
            Decorator::Rest(Box::new(move |_inner| Box::new(move || s2.stop()))),
        ];
        inputs.stop = stop;
        let state = begin(inputs).unwrap();
        let last = state.outcomes.last().cloned();
        assert!(matches!(last, Some(cn_compute::Outcome::AskFailed { error: ModelError::Budget(_), .. })), "{last:?}");
    }
}
