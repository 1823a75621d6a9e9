//! compute — the agent's core runtime, written as verbs.
//!
//! `begin` chains `prepare` → `loop`; `loop` calls `decide`, then either `rest` or
//! `plan` → `ask` → `parse` → `act` (once per tool call), and repeats. Each verb lives in
//! its own file and exports exactly one function. Decorators wrap verbs by step name, and
//! wrapping happens only in `prepare`: there is no event system and no runtime registration.
//!
//! The kernel owns flow only. Decisions come from a [`Mind`] and a [`Model`] (intelligence),
//! effects from [`Tools`], history from a [`Store`] — all traits, so the whole loop runs in a
//! unit test with a scripted model and an in-memory store.
//!
//! Invariant: no verb touches the file system, the network or a clock except through the
//! parts it is given; the only I/O here is `prepare` reading the config file it is pointed at.

mod act;
mod ask;
mod begin;
mod call;
mod chain;
mod decide;
mod decorator;
mod r#loop;
mod parse;
mod plan;
mod prepare;
mod rest;
mod scripted;
mod state;
mod stop;
mod types;
pub mod yaml;

pub use act::act;
pub use ask::ask;
pub use begin::begin;
pub use call::{open, Params, Reader, Returned, ToolCall, Typed};
pub use chain::{chain, Chain};
pub use decide::decide;
pub use decorator::{ActFn, AskFn, DecideFn, Decorator, ParseFn, PlanFn, RestFn, Step, UnknownStep, Verbs};
pub use parse::{parse, parse_with};
pub use plan::plan;
pub use prepare::{prepare, ConfigSource, Inputs, Parts, PrepareError, Prepared};
pub use r#loop::r#loop;
pub use rest::rest;
pub use scripted::{Memory, MemoryStore, Scripted};
pub use state::State;
pub use stop::StopToken;
pub use types::*;
