//! `do ack --reason`: close the item with an explicit acknowledgment.

use super::{Ctx, Effect};

pub(crate) fn perform(_ctx: &Ctx, reason: &str) -> Effect {
    Effect::done(format!("acknowledged: {reason}"))
}
