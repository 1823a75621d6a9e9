//! The thinking budget (the design's `ThinkingBudget.CanDoAutonomousWork()`): how much the
//! executive (level 3) may think per day, and how often on its own initiative.
//!
//! - a daily cap on executive tokens (input + output), and an optional cost cap from the
//!   executive's prices in `cn.yaml`, kept by the [`Ledger`] across every process on the hub:
//!   each executive try reserves its worst case before it starts and settles after;
//! - a minimum interval between autonomous executive calls; owner items (`plan.owner`) are
//!   exempt from the interval, never from the caps;
//! - when a call is refused, the plan falls back to the local level (whose tool calls then run
//!   with the local level's grants, never the executive's) or the ask fails with
//!   `ModelError::Budget` (the caller defers the item with the reason), as configured.
//!
//! This decorator does the pacing and the fallback; the caps are the ledger's, enforced by
//! the [`crate::ledger::Metered`] executive that [`crate::tiered`] builds — so a caller that
//! skips the decorator still cannot pass them.
//!
//! Invariants: usage survives restarts (`state/budget.json`, written atomically under its
//! lock) and resets at local midnight; the clock is injected so tests can cross midnight.

use std::sync::{Arc, Mutex};

use cn_compute::{Answer, AskFn, Decorator, Model, ModelError, Plan, State};

use crate::config::{BudgetConfig, OnExhausted};
pub use crate::ledger::{system_clock, BudgetError, BudgetState, Clock, Ledger, Refusal};

/// The executive's level: the only one the budget meters.
pub const EXECUTIVE: cn_compute::Level = 3;

pub struct Budget {
    ledger: Arc<Ledger>,
    /// `max_tokens` of a plan sent down to the local level.
    fallback_max_tokens: u32,
}

impl std::fmt::Debug for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget").field("ledger", &self.ledger).finish()
    }
}

/// A budget shared by the ask decorator and whoever chooses levels.
pub type SharedBudget = Arc<Mutex<Budget>>;

impl Budget {
    /// The budget kept by `ledger`.
    pub fn new(ledger: Arc<Ledger>) -> Budget {
        let fallback_max_tokens = crate::plan::LevelLimits::default_for(2).max_tokens;
        Budget { ledger, fallback_max_tokens }
    }

    pub fn shared(self) -> SharedBudget {
        Arc::new(Mutex::new(self))
    }

    pub fn ledger(&self) -> &Arc<Ledger> {
        &self.ledger
    }

    /// Today's state as the file holds it now.
    pub fn state(&self) -> Result<BudgetState, BudgetError> {
        self.ledger.read()
    }

    pub fn config(&self) -> &BudgetConfig {
        self.ledger.config()
    }

    /// When the next autonomous call may run (pacing), or `None` if it may now.
    fn paced(&self, s: &BudgetState) -> Option<Refusal> {
        let interval = self.config().min_interval_secs as i64;
        let next = s.last_autonomous? + interval;
        let now = self.ledger.now().timestamp().as_second();
        (interval > 0 && now < next).then_some(Refusal::Paced { wait_secs: next - now })
    }

    /// Whether a call of this kind could run now; the reason when not. Changes nothing.
    pub fn check(&self, owner: bool, tokens_in: u64, max_tokens: u32) -> Result<(), Refusal> {
        let verdict = self.ledger.update(|s| {
            let paced = if owner { None } else { self.paced(s) };
            (false, paced.map_or_else(|| self.ledger.room(s, tokens_in, max_tokens).map(|_| ()), Err))
        });
        match verdict {
            Ok(v) => v,
            Err(e) => {
                tracing::error!(e = %cn_compute::Chain(&e), "cannot read the thinking budget: refusing");
                Err(Refusal::Paced { wait_secs: 0 })
            }
        }
    }

    /// `CanDoAutonomousWork()`: may an autonomous item go to the executive now?
    pub fn can_do_autonomous_work(&self) -> bool {
        self.check(false, 0, crate::ledger::MIN_ANSWER_TOKENS).is_ok()
    }

    /// Admit `plan` (stamping the interval for autonomous calls) or say why not. The caps
    /// are checked here on the state as it is now, and again when the call reserves (the
    /// ledger's reservation is what holds them against other processes).
    pub fn admit(&self, plan: &Plan) -> Result<(), Refusal> {
        let now = self.ledger.now().timestamp().as_second();
        let tokens_in = crate::ledger::input_estimate(plan);
        let max_tokens = if plan.max_tokens > 0 { plan.max_tokens } else { crate::ledger::MIN_ANSWER_TOKENS };
        let verdict = self.ledger.update(|s| {
            let paced = if plan.owner { None } else { self.paced(s) };
            match paced.map_or_else(|| self.ledger.room(s, tokens_in, max_tokens).map(|_| ()), Err) {
                Err(refusal) => {
                    s.today.refused += 1;
                    (true, Err(refusal))
                }
                Ok(()) if plan.owner => (false, Ok(())),
                Ok(()) => {
                    s.last_autonomous = Some(now);
                    (true, Ok(()))
                }
            }
        });
        verdict.unwrap_or_else(|e| {
            tracing::error!(e = %cn_compute::Chain(&e), "cannot update the thinking budget: refusing");
            Err(Refusal::Paced { wait_secs: 0 })
        })
    }

    /// Ask through the budget: executive plans are admitted, sent down, or refused.
    pub fn guard(
        budget: &SharedBudget,
        plan: Plan,
        ask: impl FnMut(Plan) -> Result<Answer, ModelError>,
    ) -> Result<Answer, ModelError> {
        Budget::guard_with(budget, plan, true, ask)
    }

    /// [`Budget::guard`]; with `fall_back` false a refused plan is the refusal
    /// ([`ModelError::Budget`]) whatever `on_exhausted` says — for a person who asked for the
    /// executive by name (`cn ask --level 3`).
    pub fn guard_with(
        budget: &SharedBudget,
        plan: Plan,
        fall_back: bool,
        mut ask: impl FnMut(Plan) -> Result<Answer, ModelError>,
    ) -> Result<Answer, ModelError> {
        if plan.level != EXECUTIVE {
            return ask(plan);
        }
        let lock = || budget.lock().map_err(|_| ModelError::Other("thinking budget lock poisoned".into()));
        let (verdict, on_exhausted, fallback_max) = {
            let b = lock()?;
            (b.admit(&plan), b.config().on_exhausted, b.fallback_max_tokens)
        };
        let reason = match verdict {
            Ok(()) => match ask(plan.clone()) {
                // The ledger refused the call before it was sent.
                Err(ModelError::Budget(reason)) => reason,
                other => return other,
            },
            Err(refusal) => refusal.to_string(),
        };
        match on_exhausted {
            _ if !fall_back => Err(ModelError::Budget(reason)),
            OnExhausted::Defer => Err(ModelError::Budget(reason)),
            OnExhausted::Local => {
                tracing::info!(%reason, "thinking budget: asking the local level instead");
                let mut local = plan;
                local.level = 2;
                local.max_tokens = local.max_tokens.min(fallback_max).max(1);
                ask(local)
            }
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
    /// Whether a refused executive plan may go down to the local level (`on_exhausted:
    /// local`); false when the person asked for the executive by name.
    pub fall_back: bool,
}

impl<M: Model> Model for Budgeted<M> {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let inner = &mut self.inner;
        Budget::guard_with(&self.budget, plan.clone(), self.fall_back, |p| inner.ask(&p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Metered;
    use crate::Tiered;
    use cn_compute::Scripted;
    use jiff::Zoned;
    use std::path::PathBuf;
    use std::time::Duration;

    struct Fixture {
        _dir: tempfile::TempDir,
        root: PathBuf,
        path: PathBuf,
        now: Arc<Mutex<Zoned>>,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let path = cn_hub::Layout::new(&root).budget();
        Fixture {
            _dir: dir,
            root,
            path,
            now: Arc::new(Mutex::new("2026-01-07T22:00:00+01:00[+01:00]".parse::<Zoned>().unwrap())),
        }
    }

    impl Fixture {
        fn ledger(&self, config: BudgetConfig) -> Arc<Ledger> {
            let now = self.now.clone();
            let clock: Clock = Arc::new(move || now.lock().unwrap().clone());
            Arc::new(Ledger::new(&cn_hub::Layout::new(&self.root), config, (3.0, 15.0), clock))
        }
        fn budget(&self, config: BudgetConfig) -> SharedBudget {
            Budget::new(self.ledger(config)).shared()
        }
        /// The router the budget guards: level 3 metered by the same ledger.
        fn model(&self, budget: &SharedBudget) -> Budgeted<Tiered> {
            let ledger = budget.lock().unwrap().ledger().clone();
            let exec = Metered { inner: Levels, ledger, default_max_tokens: 1024 };
            Budgeted {
                inner: Tiered::new().with(2, Box::new(Levels)).with(3, Box::new(exec)),
                budget: budget.clone(),
                fall_back: true,
            }
        }
        fn advance(&self, d: Duration) {
            let mut now = self.now.lock().unwrap();
            *now += d;
        }
    }

    /// A model stand-in: level 3 answers "exec", level 2 "local", each with a fixed usage.
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
        let mut m = f.model(&f.budget(config.clone()));
        // Each call reserves 100 + 200 and is charged 500: 1600 admits 3 calls (0, 500, 1000
        // used: 1000 + 100 + 200 <= 1600), the fourth (1500 + 100 + the least answer > 1600)
        // falls back.
        let answers: Vec<String> = (0..5).map(|_| m.ask(&plan(true)).unwrap().markdown).collect();
        assert_eq!(answers, ["exec", "exec", "exec", "local", "local"]);
        let state = m.budget.lock().unwrap().state().unwrap();
        assert_eq!(
            (state.today.tokens, state.today.calls, state.today.refused, state.today.day.as_str()),
            (1500, 3, 2, "2026-01-07")
        );
        assert!(state.today.tokens <= 1600, "never over the cap");

        // Usage survives a restart.
        let mut m = f.model(&f.budget(config.clone()));
        assert_eq!(m.ask(&plan(true)).unwrap().markdown, "local");
        // Local midnight (23:00 UTC here) resets it.
        f.advance(Duration::from_secs(2 * 3600));
        assert_eq!(m.ask(&plan(true)).unwrap().markdown, "exec");
        let state = m.budget.lock().unwrap().state().unwrap();
        assert_eq!((state.today.tokens, state.today.day.as_str()), (500, "2026-01-08"));
        assert_eq!(state.history.len(), 1, "the day before is kept");
        let on_disk: BudgetState = cn_storage::read_json_or_default(&f.path).unwrap();
        assert_eq!(on_disk, state);
    }

    #[test]
    fn defers_with_the_reason_when_configured() {
        let f = fixture();
        let config = BudgetConfig { daily_cost: Some(0.0001), on_exhausted: OnExhausted::Defer, ..Default::default() };
        let mut m = f.model(&f.budget(config));
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
        let mut m = f.model(&budget);
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
            fn call(&mut self, _: u8, _: &ToolCall) -> Result<cn_compute::Returned, ToolError> {
                Ok(serde_json::Value::Null.into())
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
