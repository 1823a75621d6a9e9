//! tools — effects. A [`Tool`] has a name, docs (a description and a JSON schema of its
//! params, which `plan` puts into the prompt and from which a grammar can be built) and a
//! function. The [`Registry`] implements the kernel's `Tools`: it looks a call up, asks the
//! [`Policy`] whether the current level may make it, and runs it with a [`ToolContext`] the
//! model never sees.
//!
//! Architecture invariant: `Registry::call` is the one place that decides whether a level
//! may call a tool. A tool is never reachable except through it.

mod context;
mod policy;
mod registry;
pub mod sandbox;

pub use context::{confine, ToolContext, Working};
pub use policy::{Grant, Policy};
pub use registry::{check_from, typed, LateTools, Registry, Tool, ToolDoc};
