//! `state/tasks.json` — commitments: "I will do X". The type and its file are the hub's
//! (`cn_hub::tasks`, shared with the `add_task` reflex action); this module finds the file
//! of a hub.

use std::path::Path;

pub use cn_hub::tasks::{ordered, Task, Tasks};

/// `state/tasks.json` of a hub.
pub fn tasks_of(hub: &Path) -> Tasks {
    cn_hub::tasks::tasks_in(&cn_hub::Layout::new(hub).state())
}
