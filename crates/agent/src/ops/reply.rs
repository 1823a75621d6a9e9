//! `do reply --message`: append the message to the item's thread; when the item came from a
//! peer, the message goes to that peer too, in the same thread.

use super::{Ctx, Effect};
use crate::error::Result;

pub(crate) fn perform(ctx: &Ctx, message: &str) -> Result<Effect> {
    let mut effect = Effect::done(message);
    if let Some(peer) = ctx.notify_target()? {
        let mail = ctx.mail(&peer, "reply", message.to_string());
        effect.mail.push(ctx.post(&mail)?);
    }
    Ok(effect)
}
