//! `delegate --to`: forward the item to a peer, with its content and thread. The forward
//! carries `reply-to`: whoever the item should answer (its origin), so the peer that finally
//! decides notifies the origin directly when it knows it.

use super::{Ctx, Effect};
use crate::error::Result;

pub(crate) fn perform(ctx: &Ctx, to: &str) -> Result<Effect> {
    let mut mail = ctx.mail(to, "delegate", ctx.item.content.clone());
    let origin = ctx.item.reply_to.clone().or_else(|| (ctx.item.from != ctx.hub.name()).then(|| ctx.item.from.clone()));
    mail.reply_to = origin.filter(|o| o != to);
    mail.subject = Some(format!("delegated by {} (item {} from {})", ctx.hub.name(), ctx.item.id, ctx.item.from));
    let mut effect = Effect::done(format!("delegated to {to}"));
    effect.mail.push(ctx.post(&mail)?);
    Ok(effect)
}
