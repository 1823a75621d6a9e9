//! `do reply --message`: append the message to the item's thread; when the item came from a
//! peer, the message goes to that peer too, in the same thread.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Effect, Field, OpKind};
use crate::error::Result;

/// `Reply of {message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    /// The text to append to the item's thread (sent to the peer the item came from).
    pub message: String,
}

impl OpKind for Reply {
    const NAME: &'static str = "reply";
    const FIELDS: &'static [Field] = &[Field::required("message", "TEXT")];
    const DOC: &'static str =
        "do reply: append a message to the current item's thread (a peer's item sends the peer the text).";
    const EXAMPLE: &'static str = "message: LGTM\n";

    fn perform(&self, ctx: &Ctx) -> Result<Effect> {
        let mut effect = Effect::done(&self.message);
        if let Some(peer) = ctx.notify_target()? {
            let mail = ctx.mail(&peer, "reply", self.message.clone());
            effect.mail.push(ctx.post(&mail)?);
        }
        Ok(effect)
    }
}
