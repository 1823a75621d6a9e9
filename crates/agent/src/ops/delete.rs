//! `delete --reason`: archive the item with the reason. Data is never destroyed: the item
//! stays in `threads/archived/` (and in git).

use super::{Ctx, Effect};

pub(crate) fn perform(_ctx: &Ctx, reason: &str) -> Effect {
    let mut e = Effect::done(format!("deleted: {reason}"));
    e.facts.insert("status".into(), "deleted".into());
    e
}
