//! `schedule_add` — a recurring entry in `state/schedule.json`: when, as words ("every Monday
//! at 9am", "every weekday at 8:30", "on the 1st of every month") or a five-field cron, read
//! in the hub's time zone unless `tz` names another. A cron that is not standard or never
//! fires, or words cron cannot keep exactly ("every other Tuesday"), are refused, named. The
//! owner's only: an entry fires as the owner's own work.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_hub::schedule::ScheduleEntry;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Map;

use super::routine::{answered, owner_only, state_failed, world};
use super::Shared;
use crate::routine::perform::slug;
use crate::routine::{act, Act};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// What to do each time it fires.
    action: String,
    /// When, in words: "every Monday at 9am", "every 2 hours", "on the 15th of every month".
    every: Option<String>,
    /// Or when, as five-field cron (minute hour day-of-month month day-of-week).
    cron: Option<String>,
    /// A unique name (default: from the action's words).
    name: Option<String>,
    /// The IANA time zone the time is read in (default: the hub's).
    tz: Option<String>,
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("schedule_add", "Add a recurring entry to the schedule: {answer, changed}.", move |ctx, p: Params| {
        let world = world(&shared, ctx, "");
        owner_only(&world)?;
        if p.action.trim().is_empty() {
            return Err(ToolError::BadParams("action is empty".into()));
        }
        let (cron, human) = match (p.every.as_deref(), p.cron.as_deref()) {
            (Some(words), None) => {
                let phrase = if words.trim_start().to_ascii_lowercase().starts_with("every") || words.contains("every")
                {
                    words.to_string()
                } else {
                    format!("every {words}")
                };
                match crate::when::every(&phrase, &world.now) {
                    Ok(Some(e)) => (e.cron, e.human),
                    Ok(None) => return Err(ToolError::BadParams(format!("`{words}` says no repeating time"))),
                    Err(e) => return Err(ToolError::BadParams(e.to_string())),
                }
            }
            (None, Some(cron)) => (cron.trim().to_string(), format!("cron `{}`", cron.trim())),
            _ => return Err(ToolError::BadParams("give exactly one of `every` (words) or `cron`".into())),
        };
        let tz = match p.tz {
            Some(tz) => tz,
            None => world.now.time_zone().iana_name().map(str::to_string).ok_or_else(|| {
                ToolError::BadParams("the hub's time zone has no name: give `tz` (or set reflexes.time_zone)".into())
            })?,
        };
        let entry = ScheduleEntry {
            name: p.name.filter(|n| !n.trim().is_empty()).unwrap_or_else(|| slug(&p.action)),
            cron,
            action: p.action.trim().to_string(),
            tz: Some(tz),
            catch_up: None,
            remind: None,
            until: None,
            stride: None,
            extra: Map::new(),
        };
        let (cron, tz) = entry.timing().map_err(|e| ToolError::BadParams(cn_compute::chain(&e)))?;
        // A cron that never fires (`0 0 31 2 *`) is refused now, not found out never.
        if let Err(e) = cron.next_after(world.now.timestamp(), &tz) {
            return Err(ToolError::BadParams(format!("`{}` never fires: {}", entry.cron, cn_compute::chain(&e))));
        }
        let outcome = act(Act::AddEvery(entry, human), &world).map_err(state_failed)?;
        Ok(answered(&shared, vec![outcome], &world))
    })
}
