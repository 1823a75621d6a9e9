//! reflex — cheap answers before the expensive executive: YAML pipelines at levels 0–2.
//!
//! A reflex is a file `state/reflexes/NAME.yaml` (see [`reflex`] for the format): a trigger
//! and a pipeline of steps, each step one core action (`fetch_url`, `local_prompt`, `reply`,
//! ...) or a call to another reflex. The [`Engine`] tries, in order: the level-0 patterns of
//! every reflex at once (one `RegexSet`), the level-1 heuristics, then level-2 triage by the
//! local model; an item nothing handles escalates to the executive (level 3).
//!
//! Every step is a [`cn_compute::ToolCall`] run through a [`cn_tools::Registry`], so the
//! policy (which level may call which action, paths confined to the hub, URL allowlist, size
//! and time limits) is checked in the one place it is checked for the executive too.
//!
//! Invariants: an item is never lost — a reflex that fails journals a `reflex` entry with the
//! error and the item escalates. A broken reflex file is reported (file, line, field) and
//! skipped; the others load. State files (`reflex-stats.json`, tasks, ideas, reflexes the
//! executive writes) are written atomically.

pub mod actions;
pub mod config;
mod engine;
pub mod examples;
mod html;
pub mod journal;
pub mod learn;
mod listing;
mod load;
mod load_error;
mod mode;
pub mod pattern;
pub mod reflex;
pub mod routine;
pub mod shadow;
mod spec;
mod stats;
pub mod testing;
mod vars;
pub mod vet;
pub mod when;
mod write;

pub use actions::{McpCaller, NoReplier, Replier, ReplyError, Target};
pub use config::{ConfigError, ReflexConfig};
pub use engine::{skipped, Engine, Handled, HeldRun, Input, StepRun};
pub use html::html_to_text;
pub use learn::{Decided, ShadowRun, Verdict};
pub use listing::listing;
pub use load_error::LoadError;
pub use mode::Mode;
pub use reflex::{Learned, Reflex, ReflexMode, Step, Trigger, TriggerKind};
pub use stats::{Disabled, ReflexStats, RunOutcome, Stats};
pub use write::{apply_approved, reflex_write_tool, set_enabled, Installed, WriteError, Written};
