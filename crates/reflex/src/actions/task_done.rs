//! `task_done` — mark an open task done, named by its id or its words. An item that is not
//! the owner's may close only a task it filed (`source`).

use std::sync::Arc;

use cn_tools::Tool;

use super::routine::on_one;
use super::Shared;
use crate::routine::{Act, World};

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    on_one(shared, "task_done", "Mark an open task done: {answer, changed}.", false, (World::task, Act::Complete))
}
