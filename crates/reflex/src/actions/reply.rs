//! `reply` and `react` — answer the item's sender. The engine does not know how (Discord, a
//! thread file, a peer): the agent layer injects a [`Replier`]. In `cn reflex test` they only
//! say what they would send.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::Shared;
use crate::mode::Mode;

/// Who a reply goes to: the item being handled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// The item's id (thread, message), when it has one.
    pub item: Option<String>,
    /// The sense it came from (`discord`, `github`, ...).
    pub source: Option<String>,
    /// The item's text.
    pub text: String,
    /// The reflex answering and its level (journaled with the decision its reply makes).
    pub reflex: String,
    pub level: u8,
}

/// How replies and reactions reach the sender; implemented by the agent layer.
pub trait Replier: Send + Sync {
    fn reply(&self, to: &Target, message: &str) -> Result<(), ReplyError>;
    fn react(&self, to: &Target, emoji: &str) -> Result<(), ReplyError>;
}

/// Why a reply or a reaction did not reach the sender.
#[derive(Debug, thiserror::Error)]
pub enum ReplyError {
    /// No replier was injected.
    #[error("no replier is configured (the agent layer provides one)")]
    NoReplier,
    /// The channel the replier sends on failed; its error is the source.
    #[error(transparent)]
    Channel(Box<dyn std::error::Error + Send + Sync>),
}

impl ReplyError {
    /// Wrap the channel's own error, keeping it as the source.
    pub fn channel(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        ReplyError::Channel(Box::new(e))
    }
}

/// The replier until one is injected: every reply fails, so the item escalates rather than
/// being answered into the void.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoReplier;

impl Replier for NoReplier {
    fn reply(&self, _: &Target, _: &str) -> Result<(), ReplyError> {
        Err(ReplyError::NoReplier)
    }
    fn react(&self, _: &Target, _: &str) -> Result<(), ReplyError> {
        Err(ReplyError::NoReplier)
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Reply {
    /// The message to send.
    message: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct React {
    /// The emoji to react with.
    emoji: String,
}

pub(crate) fn reply(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("reply", "Reply to the item's sender.", move |_ctx, p: Reply| {
        if p.message.trim().is_empty() {
            return Err(ToolError::Failed("the reply is empty".into()));
        }
        let turn = shared.turn();
        if turn.mode == Mode::Live {
            let replier =
                shared.replier.read().map_err(|_| ToolError::Failed("the replier is unavailable".into()))?.clone();
            replier.reply(&turn.target, &p.message).map_err(|e| ToolError::Failed(cn_compute::chain(&e)))?;
        }
        Ok(Value::String(p.message))
    })
}

pub(crate) fn react(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("react", "Add an emoji reaction to the item.", move |_ctx, p: React| {
        let turn = shared.turn();
        if turn.mode == Mode::Live {
            let replier =
                shared.replier.read().map_err(|_| ToolError::Failed("the replier is unavailable".into()))?.clone();
            replier.react(&turn.target, &p.emoji).map_err(|e| ToolError::Failed(cn_compute::chain(&e)))?;
        }
        Ok(Value::String(p.emoji))
    })
}
