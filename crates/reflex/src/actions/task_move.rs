//! `task_move` — give an open task a new due time: RFC 3339, words ("next Friday", "tomorrow
//! at 9am": a day alone keeps the task's time of day), or a span ("by 2 hours", "back a
//! week": from the due time, or now if that has passed). A time that cannot be read or has
//! passed is refused, named. An item that is not the owner's may move only a task it filed.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;

use super::routine::{answered, named, not_named, state_failed, world};
use super::Shared;
use crate::routine::perform::{moved_to, seconds};
use crate::routine::{act, Act, Target};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The task's id (task-…) or words that name it.
    name: String,
    /// When: RFC 3339 (2026-12-01T09:00:00Z), words ("next Friday at 10"), or a span ("by 2 hours").
    to: String,
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("task_move", "Move or snooze an open task to a new due time: {answer, changed}.", move |ctx, p: Params| {
        let world = world(&shared, ctx, "");
        named(&world)?;
        let task = world.task(&p.name).map_err(not_named)?;
        let to = p.to.trim();
        let at = if let Ok(t) = to.parse::<jiff::Timestamp>() {
            if t <= world.now.timestamp() {
                return Err(ToolError::BadParams(format!("`{to}` is in the past")));
            }
            t
        } else {
            let target = match crate::when::shift(to) {
                Some(s) => Target::By(s.span),
                None => match crate::when::parse(to, &world.now) {
                    Ok(Some(due)) => Target::At(due),
                    Ok(None) => {
                        return Err(ToolError::BadParams(format!(
                        "`{to}` says no time: give RFC 3339, words (\"next Friday at 10\") or a span (\"by 2 hours\")"
                    )))
                    }
                    Err(e) => return Err(ToolError::BadParams(e.to_string())),
                },
            };
            let Some(at) = moved_to(&task, &target, &world.now) else {
                return Err(ToolError::BadParams(format!("`{to}` says no time")));
            };
            at.timestamp()
        };
        let outcome = act(Act::Move(task, seconds(at)), &world).map_err(state_failed)?;
        Ok(answered(&shared, vec![outcome], &world))
    })
}
