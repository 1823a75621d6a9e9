//! `defer --reason [--until]`: move the item to `threads/deferred/`; with `until`, the queue
//! takes it back once that time has passed.

use super::{Ctx, Effect, Target};

pub(crate) fn perform(_ctx: &Ctx, reason: &str, until: Option<&str>) -> Effect {
    let note = match until {
        Some(u) => format!("deferred until {u}: {reason}"),
        None => format!("deferred: {reason}"),
    };
    let mut e = Effect::done(note);
    e.target = Target::Deferred { until: until.map(str::to_string) };
    e
}
