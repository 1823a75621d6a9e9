//! `add_task` and `add_idea` — append to `state/tasks.json` / `state/ideas.json` in the
//! documents' formats, keeping whatever else the entries hold; written atomically.

use std::path::Path;
use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::Shared;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Task {
    /// What to do.
    task: String,
    /// When, as RFC 3339 (e.g. 2026-01-07T10:00:00Z).
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
    typed("add_task", "Add a commitment to state/tasks.json.", move |_ctx, p: Task| {
        if let Some(due) = &p.due {
            time::OffsetDateTime::parse(due, &time::format_description::well_known::Rfc3339)
                .map_err(|e| ToolError::BadParams(format!("due `{due}` is not an RFC 3339 time: {e}")))?;
        }
        let turn = shared.turn();
        let id = super::short_id("task");
        let mut entry = json!({"id": id, "task": p.task});
        if let Some(due) = p.due {
            entry["due"] = json!(due);
        }
        entry["priority"] = json!(p.priority.unwrap_or(2));
        entry["context"] = json!(p.context.unwrap_or_else(|| format!("reflex {}: {}", turn.reflex, turn.target.text)));
        append(&cn_hub::Layout::new(&shared.hub).tasks(), entry)?;
        Ok(Value::String(id))
    })
}

pub(crate) fn add_idea(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("add_idea", "Add a curiosity to state/ideas.json.", move |_ctx, p: Idea| {
        let turn = shared.turn();
        let id = super::short_id("idea");
        let entry = json!({
            "id": id,
            "idea": p.idea,
            "sparked_by": p.sparked_by.unwrap_or_else(|| format!("reflex {}: {}", turn.reflex, turn.target.text)),
            "added": cn_storage::now_rfc3339(),
        });
        append(&cn_hub::Layout::new(&shared.hub).ideas(), entry)?;
        Ok(Value::String(id))
    })
}

fn append(path: &Path, entry: Value) -> Result<(), ToolError> {
    let mut list: Vec<Value> = cn_storage::read_json_or_default(path).map_err(|e| ToolError::Failed(e.to_string()))?;
    list.push(entry);
    cn_storage::write_json_atomic(path, &list).map_err(|e| ToolError::Failed(format!("{}: {e}", path.display())))
}
