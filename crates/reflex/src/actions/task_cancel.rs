//! `task_cancel` — call off an open task, named by its id or its words: kept in the file as
//! `cancelled`. An item that is not the owner's may cancel only a task it filed.

use std::sync::Arc;

use cn_tools::Tool;

use super::routine::on_one;
use super::Shared;
use crate::routine::{Act, World};

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let what = "Cancel an open task (it stays in the file as cancelled): {answer, changed}.";
    on_one(shared, "task_cancel", what, false, (World::task, Act::Cancel))
}
