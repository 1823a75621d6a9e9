//! `do reply --message`: append the message to the item's thread; when the item came from a
//! peer, the message goes to that peer too, in the same thread. A promise in it ("I'll get
//! back to you …") becomes a task followed up a day later (see `promise`).

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
            match ctx.withheld(&peer) {
                Some(why) => {
                    effect.note.push_str(&format!("\n\n({why})"));
                    effect.facts.insert("withheld".into(), why.into());
                }
                None => {
                    let mut mail = ctx.mail(&peer, "reply", self.message.clone());
                    if ctx.automatic {
                        mail.kind = Some(crate::item::AUTO.to_string());
                    }
                    effect.mail.push(ctx.post(&mail)?);
                }
            }
        }
        if let Some(task) = super::promise::task_of(ctx, &self.message)? {
            effect.facts.insert("promise".into(), task.into());
        }
        Ok(effect)
    }
}
