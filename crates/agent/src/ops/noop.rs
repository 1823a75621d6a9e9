//! `do noop --reason`: close the item; nothing to do.

use super::{Ctx, Effect};

pub(crate) fn perform(_ctx: &Ctx, reason: &str) -> Effect {
    Effect::done(reason)
}
