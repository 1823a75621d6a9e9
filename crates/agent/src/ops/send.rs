//! `do send --to --message [--body]`: mail a peer. `message` is the summary; `body`, when
//! given, is the full text the peer reads.

use super::{Ctx, Effect};
use crate::error::Result;

pub(crate) fn perform(ctx: &Ctx, to: &str, message: &str, body: Option<&str>) -> Result<Effect> {
    let mut mail = ctx.mail(to, "send", body.unwrap_or(message).to_string());
    if body.is_some() {
        mail.subject = Some(message.to_string());
    }
    let mut effect = Effect::done(format!("sent to {to}: {message}"));
    effect.mail.push(ctx.post(&mail)?);
    Ok(effect)
}
