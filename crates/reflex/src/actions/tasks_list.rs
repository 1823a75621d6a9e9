//! `tasks_list` — the open tasks, all or by when they are due (today and this week include
//! the overdue), or those whose words match; the asker's own only when the item is not the
//! owner's.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_hub::tasks::Filter;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::routine::{keep_named, named, state_failed, world};
use super::Shared;
use crate::routine::{act, Act, Outcome};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// open (default), today, tomorrow, week, next_week, overdue, or one day as 2026-11-27.
    filter: Option<String>,
    /// Only the tasks these words name (e.g. "car insurance").
    words: Option<String>,
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed(
        "tasks_list",
        "List open tasks (state/tasks.json), due first: {tasks: [{id, task, due, priority, source}], answer}.",
        move |ctx, p: Params| {
            let filter: Filter = p.filter.as_deref().unwrap_or("open").parse().map_err(ToolError::BadParams)?;
            let world = world(&shared, ctx, "");
            named(&world)?;
            let Outcome::Listed { filter, mut tasks } = act(Act::List(filter), &world).map_err(state_failed)? else {
                return Err(ToolError::Failed("listing the tasks gave no list".into()));
            };
            keep_named(&mut tasks, p.words.as_deref(), |t| t.task.clone());
            let listed: Vec<Value> = tasks
                .iter()
                .map(|t| json!({"id": t.id, "task": t.task, "due": t.due, "priority": t.priority, "source": t.source}))
                .collect();
            let answer = crate::routine::answer::answer(&[Outcome::Listed { filter, tasks }], &world.now);
            Ok(json!({ "tasks": listed, "answer": answer }))
        },
    )
}
