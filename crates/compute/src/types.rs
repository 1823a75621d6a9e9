//! The plain values that flow between verbs, and the traits the parts implement.
//!
//! These types are the kernel's protocol: every other crate speaks them. They carry data
//! only; behaviour lives in the verbs and in the implementations of the traits.

use std::collections::VecDeque;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Returned, ToolCall};

/// Intelligence level. 0 and 1 are reflexes, 2 the local model, 3 the executive.
pub type Level = u8;

/// What a level below the executive says when it cannot do a person's request: the reason of
/// the defer that hands the item up, to come back when the executive (or a level that can)
/// takes it.
pub const HAND_UP: &str = "I'll need my executive for that — queued";

/// What `decide` returns: the only choice between action and stillness.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Move,
    Rest,
}

/// What `plan` hands to `ask`: the prompt and how to ask it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Which level should answer (chosen by plan).
    pub level: Level,
    /// System prompt: who the agent is and the tools it may call.
    pub system: String,
    /// The user-turn prompt: the item, its thread, recent outcomes.
    pub prompt: String,
    /// Upper bound on the answer's tokens.
    pub max_tokens: u32,
    /// Names of the tools this level may call; a constrained model builds its grammar from them.
    pub tools: Vec<String>,
    /// An optional grammar (llama.cpp GBNF) that constrains a local model's answer.
    pub grammar: Option<String>,
    /// Id of the item this move works on, linking journal entries.
    pub item: Option<String>,
    /// True when the item comes from the owner (exempt from pacing, never from caps).
    pub owner: bool,
}

/// A model's answer: markdown plus what it cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub markdown: String,
    pub model: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
    #[serde(with = "duration_ms")]
    pub elapsed: Duration,
}

/// A YAML block that did not yield a tool call; the model is told about it next turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseError {
    pub block: usize,
    pub line: usize,
    pub message: String,
}

/// One entry of `parse`'s output, in document order.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Call(ToolCall),
    Error(ParseError),
}

/// Why a tool call failed. The model sees `to_string()` next turn.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", content = "message", rename_all = "snake_case")]
pub enum ToolError {
    #[error("unknown tool `{0}`")]
    Unknown(String),
    #[error("bad params: {0}")]
    BadParams(String),
    #[error("not allowed: {0}")]
    Denied(String),
    /// Not run: held until the owner approves or denies it: the approval's id, and a message
    /// saying what to do meanwhile.
    #[error("held for the owner's approval: {message}")]
    Held { approval: String, message: String },
    /// Not run to an end at this level: the item is for a higher one (a reflex action that
    /// finds the request is not its own, or cannot be done here), and this is why.
    #[error("left to a higher level: {0}")]
    Escalate(String),
    #[error("{0}")]
    Failed(String),
}

/// Why a model gave no answer. A retry layer decides which kinds are worth another try.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "kind", content = "message", rename_all = "snake_case")]
pub enum ModelError {
    #[error("could not connect: {0}")]
    Connect(String),
    #[error("timed out: {0}")]
    Timeout(String),
    #[error("HTTP {status}: {message}")]
    Status { status: u16, message: String, retry_after_ms: Option<u64> },
    #[error("the answer stream was cut off: {0}")]
    Cut(String),
    #[error("malformed answer: {0}")]
    Malformed(String),
    #[error("thinking budget: {0}")]
    Budget(String),
    #[error("model not configured: {0}")]
    Config(String),
    #[error("{0}")]
    Other(String),
}

/// What became of one step of a move, kept for `decide` and the next `plan`.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// A tool was called (successfully or not).
    Acted { call: ToolCall, result: Result<Returned, ToolError> },
    /// A YAML block did not parse into a call.
    Unparsed(ParseError),
    /// The model did not answer.
    AskFailed { level: Level, error: ModelError },
}

/// The recent outcomes, bounded so a long-running agent does not grow.
#[derive(Debug, Clone)]
pub struct Outcomes {
    items: VecDeque<Outcome>,
    cap: usize,
    /// How many outcomes were ever pushed: a mark that survives the ring dropping old ones.
    pushed: u64,
}

impl Outcomes {
    pub fn with_capacity(cap: usize) -> Self {
        Outcomes { items: VecDeque::with_capacity(cap.min(1024)), cap: cap.max(1), pushed: 0 }
    }
    pub fn push(&mut self, o: Outcome) {
        if self.items.len() == self.cap {
            self.items.pop_front();
        }
        self.items.push_back(o);
        self.pushed += 1;
    }
    /// A mark for [`Outcomes::since`]: take it when an item starts.
    pub fn mark(&self) -> u64 {
        self.pushed
    }
    /// The outcomes pushed after `mark` that are still kept, oldest first: what happened
    /// while working on the current item.
    pub fn since(&self, mark: u64) -> Outcomes {
        let newer = self.pushed.saturating_sub(mark).min(self.items.len() as u64) as usize;
        let mut out = Outcomes::with_capacity(self.cap);
        for o in self.items.iter().skip(self.items.len() - newer) {
            out.push(o.clone());
        }
        out
    }
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Outcome> {
        self.items.iter()
    }
    pub fn last(&self) -> Option<&Outcome> {
        self.items.back()
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// Forget everything (when the item they belong to is decided).
    pub fn clear(&mut self) {
        self.items.clear();
    }
}

impl Default for Outcomes {
    fn default() -> Self {
        Outcomes::with_capacity(64)
    }
}

/// Decisions: what to do next (attention) and how to ask (strategy). Intelligence, not flow.
pub trait Mind: Send {
    /// Inspect the world and the recent outcomes; move or rest.
    fn decide(&mut self, outcomes: &Outcomes) -> Decision;
    /// Build the prompt for the move `decide` chose.
    fn plan(&mut self, outcomes: &Outcomes) -> Plan;
}

/// A model answers a plan with markdown. Providers, reflex levels and the scripted model
/// all implement it; routing by level is itself a `Model`.
pub trait Model: Send {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError>;
}

/// A boxed model is a model, so wrappers (retry, budget, recording) compose over
/// `Box<dyn Model>` as well as over concrete ones.
impl<M: Model + ?Sized> Model for Box<M> {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        (**self).ask(plan)
    }
}

/// Effects. The implementation holds the context the model never sees (working directory,
/// hub, policy) and decides whether `level` may call the tool.
pub trait Tools: Send {
    fn call(&mut self, level: Level, call: &ToolCall) -> Result<Returned, ToolError>;
}

/// History. Failures to record are reported by the store itself (it knows where it writes).
pub trait Store: Send {
    /// One model interaction: what was asked, what came back (or why nothing did).
    fn interaction(&mut self, plan: &Plan, answer: &Result<Answer, ModelError>);
    /// One action and its result.
    fn action(&mut self, level: Level, outcome: &Outcome);
}

/// Config, loaded as-is: the kernel does not interpret it; the layers that own a key do.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    pub value: Value,
}

impl Config {
    /// Load a YAML file as-is. A missing file is an empty config; an unreadable or invalid
    /// one is an error naming the file (and the YAML error's line).
    pub fn load(path: &std::path::Path) -> Result<Config, ConfigLoadError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(source) => return Err(ConfigLoadError::Read { path: path.to_path_buf(), source }),
        };
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        serde_yaml_ng::from_str(&text)
            .map(|value| Config { value })
            .map_err(|source| ConfigLoadError::Yaml { path: path.to_path_buf(), source })
    }

    /// Look a dotted path up (`models.executive.provider`).
    pub fn get(&self, path: &str) -> Option<&Value> {
        path.split('.').try_fold(&self.value, |v, k| v.get(k))
    }
}

/// Why [`Config::load`] found no config: the file is there but unreadable, or not YAML.
#[derive(Debug, thiserror::Error)]
pub enum ConfigLoadError {
    #[error("cannot read {}", path.display())]
    Read { path: std::path::PathBuf, source: std::io::Error },
    #[error("{} is not valid YAML", path.display())]
    Yaml { path: std::path::PathBuf, source: serde_yaml_ng::Error },
}

mod duration_ms {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(i: usize) -> Outcome {
        Outcome::Unparsed(ParseError { block: i, line: 1, message: String::new() })
    }

    #[test]
    fn outcomes_are_bounded_and_since_survives_the_ring() {
        let mut outs = Outcomes::with_capacity(3);
        outs.push(o(0));
        let mark = outs.mark();
        for i in 1..6 {
            outs.push(o(i));
        }
        assert_eq!(outs.len(), 3);
        let blocks = |os: &Outcomes| {
            os.iter()
                .map(|x| match x {
                    Outcome::Unparsed(e) => e.block,
                    _ => 99,
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(blocks(&outs), [3, 4, 5]);
        assert_eq!(blocks(&outs.since(mark)), [3, 4, 5], "only what is still kept");
        assert_eq!(blocks(&outs.since(outs.mark() - 1)), [5]);
        assert!(outs.since(outs.mark()).is_empty());
    }
}
