//! `delegate --to`: forward the item to a peer, with its content and thread. The forward
//! carries `reply-to`: whoever the item should answer (its origin), so the peer that finally
//! decides notifies the origin directly when it knows it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Effect, Field, OpKind};
use crate::error::Result;
use crate::hub::Hub;

/// `Delegate of {to_}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Delegate {
    /// The peer's name.
    pub to: String,
}

impl OpKind for Delegate {
    const NAME: &'static str = "delegate";
    const FIELDS: &'static [Field] = &[Field::required("to", "PEER")];
    const DOC: &'static str = "delegate: forward the current item to a peer.";
    const EXAMPLE: &'static str = "to: pi\n";

    fn check(&mut self, hub: &Hub) -> Result<()> {
        Ok(hub.require_peer(&self.to).map(drop)?)
    }

    fn perform(&self, ctx: &Ctx) -> Result<Effect> {
        let to = self.to.as_str();
        let mut mail = ctx.mail(to, "delegate", ctx.item.content.clone());
        let origin =
            ctx.item.reply_to.clone().or_else(|| (ctx.item.from != ctx.hub.name()).then(|| ctx.item.from.clone()));
        mail.reply_to = origin.filter(|o| o != to);
        mail.subject = Some(format!("delegated by {} (item {} from {})", ctx.hub.name(), ctx.item.id, ctx.item.from));
        let mut effect = Effect::done(format!("delegated to {to}"));
        effect.mail.push(ctx.post(&mail)?);
        Ok(effect)
    }
}
