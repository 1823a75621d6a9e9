//! `state/tasks.json` — commitments: "I will do X". The document's format
//! (`id`, `task`, `due`, `priority`, `context`) plus optional `done` and `status`; fields we
//! do not know are kept, so a hand-added field survives our writes.

use std::path::Path;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::state::{JsonList, StateError};

/// One commitment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub task: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<Timestamp>,
    /// 1 is the most urgent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub done: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Task {
    pub fn new(task: impl Into<String>) -> Self {
        Task {
            id: crate::new_id("task"),
            task: task.into(),
            due: None,
            priority: None,
            context: None,
            done: false,
            status: None,
            extra: Map::new(),
        }
    }

    /// Open, and due at or before `now`.
    pub fn is_due(&self, now: Timestamp) -> bool {
        !self.done && self.due.is_some_and(|d| d <= now)
    }
}

/// The tasks file of a hub (`Tasks::of_hub(hub, "tasks.json")`, or [`tasks_of`]).
pub type Tasks = JsonList<Task>;

/// `state/tasks.json` of a hub.
pub fn tasks_of(hub: &Path) -> Tasks {
    Tasks::of_hub(hub, cn_hub::layout::TASKS)
}

impl JsonList<Task> {
    /// Mark a task done; false if no task has that id.
    pub fn complete(&self, id: &str) -> Result<bool, StateError> {
        let mut all = self.load()?;
        let Some(t) = all.iter_mut().find(|t| t.id == id) else { return Ok(false) };
        t.done = true;
        t.status = Some("done".into());
        self.save(&all)?;
        Ok(true)
    }
}

/// Open tasks in the order a person reads a to-do list: due first (earliest first), then by
/// priority, then as written.
pub fn ordered(tasks: &[Task]) -> Vec<&Task> {
    let mut open: Vec<&Task> = tasks.iter().filter(|t| !t.done).collect();
    open.sort_by_key(|t| (t.due.is_none(), t.due, t.priority.unwrap_or(u8::MAX)));
    open
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documents_format_and_keeps_unknown_fields() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = Tasks::at(dir.path().join("tasks.json"));
        std::fs::write(
            tasks.path(),
            r#"[{"id":"task-abc123","task":"Review PR #42","due":"2026-01-07T10:00:00Z","priority":1,"context":"Promised in conversation","mood":"keen"}]"#,
        )
        .unwrap();
        let all = tasks.load().unwrap();
        assert_eq!(all[0].task, "Review PR #42");
        assert!(all[0].is_due("2026-01-07T10:00:00Z".parse().unwrap()));
        assert!(!all[0].is_due("2026-01-07T09:59:59Z".parse().unwrap()));
        tasks.complete("task-abc123").unwrap();
        let text = std::fs::read_to_string(tasks.path()).unwrap();
        assert!(text.contains("\"mood\": \"keen\"") && text.contains("\"done\": true"), "{text}");
    }
}
