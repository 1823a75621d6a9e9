//! `schedule_remove` — remove a recurring entry, named by its name or its words. The owner's
//! only (an entry fires as the owner's own work).

use std::sync::Arc;

use cn_tools::Tool;

use super::routine::on_one;
use super::Shared;
use crate::routine::{Act, World};

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    on_one(
        shared,
        "schedule_remove",
        "Remove a schedule entry: {answer, changed}.",
        true,
        (World::entry, Act::Unschedule),
    )
}
