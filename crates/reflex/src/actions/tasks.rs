//! `add_task` and `add_idea` — append to `state/tasks.json` / `state/ideas.json` through the
//! hub's typed files (`cn_hub::tasks`, which `cn task` and the daemon use too): the documents'
//! formats, whatever else the entries hold kept, written atomically, a malformed file left
//! as it is.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_hub::tasks::{ideas_in, tasks_in, StateError, Timestamp};
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::Shared;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Task {
    /// What to do.
    task: String,
    /// When: RFC 3339 (e.g. 2026-01-07T10:00:00Z), a date, a span (2h, 1 day) or words
    /// ("friday", "tomorrow 9am") in the hub's time zone.
    due: Option<String>,
    /// 1 is the highest (default 2).
    priority: Option<u8>,
    /// Why the task exists (default: the item that prompted it).
    context: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Idea {
    /// What to explore someday.
    idea: String,
    /// What sparked it (default: the item that prompted it).
    sparked_by: Option<String>,
}

pub(crate) fn add_task(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("add_task", "Add a commitment to state/tasks.json.", move |ctx, p: Task| {
        // Read as `cn task add --due` reads it, in the hub's zone; a phrase to the second.
        let due = match &p.due {
            Some(due) => {
                let at = crate::when::typed(due, &shared.now(), crate::when::Direction::Future)
                    .map_err(|e| ToolError::BadParams(format!("due: {e}")))?
                    .timestamp();
                Some(Timestamp::from_second(at.as_second()).unwrap_or(at))
            }
            None => None,
        };
        let turn = shared.turn();
        let mut task = cn_hub::tasks::Task::new(p.task);
        task.due = due;
        task.priority = Some(p.priority.unwrap_or(2));
        task.context = Some(p.context.unwrap_or_else(|| format!("reflex {}: {}", turn.reflex, turn.target.text)));
        task.source = source(ctx);
        let id = task.id.clone();
        tasks_in(&cn_hub::Layout::new(&shared.hub).state()).add(task).map_err(failed)?;
        Ok(Value::String(id))
    })
}

pub(crate) fn add_idea(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("add_idea", "Add a curiosity to state/ideas.json.", move |ctx, p: Idea| {
        let turn = shared.turn();
        // Whole seconds, as the file has always been written.
        let now = Timestamp::now();
        let added = Timestamp::from_second(now.as_second()).unwrap_or(now);
        let sparked_by = p.sparked_by.unwrap_or_else(|| format!("reflex {}: {}", turn.reflex, turn.target.text));
        let mut idea = cn_hub::tasks::Idea::new(p.idea, Some(sparked_by), added);
        idea.source = source(ctx);
        let id = idea.id.clone();
        ideas_in(&cn_hub::Layout::new(&shared.hub).state()).add(idea).map_err(failed)?;
        Ok(Value::String(id))
    })
}

/// Whom a filed task or idea came from: none for the owner's (and the owner's commands).
fn source(ctx: &cn_tools::ToolContext) -> Option<String> {
    ctx.from.as_ref().filter(|f| !f.is_owner()).map(cn_hub::Provenance::label)
}

/// A state file that cannot be written fails the step; the message names the file.
fn failed(e: StateError) -> ToolError {
    ToolError::Failed(cn_compute::chain(&e))
}
