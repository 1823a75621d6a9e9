//! Decorators wrap verbs by step name. A decorator is a step name plus a function from the
//! verb it wraps to the verb that replaces it, so it can observe, log, block or substitute.
//! They are applied in `prepare` and nowhere else.

use std::fmt;
use std::str::FromStr;

use crate::state::State;
use crate::{Answer, Decision, ModelError, Outcome, Parsed, Plan, ToolCall};

pub type DecideFn = Box<dyn FnMut(&mut State) -> Decision + Send>;
pub type RestFn = Box<dyn FnMut() + Send>;
pub type PlanFn = Box<dyn FnMut(&mut State) -> Plan + Send>;
pub type AskFn = Box<dyn FnMut(&mut State, Plan) -> Result<Answer, ModelError> + Send>;
pub type ParseFn = Box<dyn FnMut(&str) -> Vec<Parsed> + Send>;
pub type ActFn = Box<dyn FnMut(&mut State, ToolCall) -> Outcome + Send>;

/// The verbs after wrapping: what `loop` calls.
pub struct Verbs {
    pub decide: DecideFn,
    pub rest: RestFn,
    pub plan: PlanFn,
    pub ask: AskFn,
    pub parse: ParseFn,
    pub act: ActFn,
}

/// The step names a decorator can declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    Decide,
    Rest,
    Plan,
    Ask,
    Parse,
    Act,
}

impl Step {
    pub const ALL: [Step; 6] = [Step::Decide, Step::Rest, Step::Plan, Step::Ask, Step::Parse, Step::Act];
    pub fn name(self) -> &'static str {
        match self {
            Step::Decide => "decide",
            Step::Rest => "rest",
            Step::Plan => "plan",
            Step::Ask => "ask",
            Step::Parse => "parse",
            Step::Act => "act",
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A step name that is none of the six verbs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown step `{0}` (expected one of decide, rest, plan, ask, parse, act)")]
pub struct UnknownStep(pub String);

impl FromStr for Step {
    type Err = UnknownStep;
    fn from_str(s: &str) -> Result<Self, UnknownStep> {
        Step::ALL.into_iter().find(|step| step.name() == s).ok_or_else(|| UnknownStep(s.to_string()))
    }
}

/// A decorator: the variant is the step name it declares; the function wraps that verb.
pub enum Decorator {
    Decide(Box<dyn FnOnce(DecideFn) -> DecideFn + Send>),
    Rest(Box<dyn FnOnce(RestFn) -> RestFn + Send>),
    Plan(Box<dyn FnOnce(PlanFn) -> PlanFn + Send>),
    Ask(Box<dyn FnOnce(AskFn) -> AskFn + Send>),
    Parse(Box<dyn FnOnce(ParseFn) -> ParseFn + Send>),
    Act(Box<dyn FnOnce(ActFn) -> ActFn + Send>),
}

impl Decorator {
    /// The step this decorator wraps.
    pub fn step(&self) -> Step {
        match self {
            Decorator::Decide(_) => Step::Decide,
            Decorator::Rest(_) => Step::Rest,
            Decorator::Plan(_) => Step::Plan,
            Decorator::Ask(_) => Step::Ask,
            Decorator::Parse(_) => Step::Parse,
            Decorator::Act(_) => Step::Act,
        }
    }

    /// Wrap the matching verb in `verbs`. Called by `prepare` only.
    pub(crate) fn apply(self, verbs: Verbs) -> Verbs {
        match self {
            Decorator::Decide(f) => Verbs { decide: f(verbs.decide), ..verbs },
            Decorator::Rest(f) => Verbs { rest: f(verbs.rest), ..verbs },
            Decorator::Plan(f) => Verbs { plan: f(verbs.plan), ..verbs },
            Decorator::Ask(f) => Verbs { ask: f(verbs.ask), ..verbs },
            Decorator::Parse(f) => Verbs { parse: f(verbs.parse), ..verbs },
            Decorator::Act(f) => Verbs { act: f(verbs.act), ..verbs },
        }
    }

    /// The pacing decorator on `rest`: wait `every` between moves, waking at once on stop.
    pub fn pacing(every: std::time::Duration, stop: crate::StopToken) -> Decorator {
        Decorator::Rest(Box::new(move |mut inner: RestFn| -> RestFn {
            Box::new(move || {
                inner();
                stop.wait(every);
            })
        }))
    }
}

impl fmt::Debug for Decorator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Decorator({})", self.step())
    }
}
