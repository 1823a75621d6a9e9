//! `schedule_list` — the recurring entries of `state/schedule.json`, with their next fire
//! time. The schedule is the owner's: another's item may not read it (the policy holds the
//! call for the owner's approval, and the action refuses it too).

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::routine::{keep_named, owner_only, state_failed, world};
use super::Shared;
use crate::routine::{act, Act, Outcome};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// Only the entries these words name.
    words: Option<String>,
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed(
        "schedule_list",
        "List the schedule (state/schedule.json): {entries: [{name, cron, tz, action, next}], answer}.",
        move |ctx, p: Params| {
            let world = world(&shared, ctx, "");
            owner_only(&world)?;
            let Outcome::ScheduleListed { mut entries } = act(Act::ListSchedule, &world).map_err(state_failed)? else {
                return Err(ToolError::Failed("listing the schedule gave no list".into()));
            };
            keep_named(&mut entries, p.words.as_deref(), |e| format!("{} {}", e.name, e.action));
            let listed: Vec<Value> = entries
                .iter()
                .map(|e| {
                    let next = e
                        .timing()
                        .ok()
                        .and_then(|(c, tz)| c.next_after(world.now.timestamp(), &tz).ok())
                        .map(|z| cn_hub::cron::rfc3339(&z));
                    json!({"name": e.name, "cron": e.cron, "tz": e.tz, "action": e.action, "next": next})
                })
                .collect();
            let answer = crate::routine::answer::answer(&[Outcome::ScheduleListed { entries }], &world.now);
            Ok(json!({ "entries": listed, "answer": answer }))
        },
    )
}
