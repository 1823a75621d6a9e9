//! `idea_drop` — remove an idea, named by its id or its words. An item that is not the
//! owner's may drop only an idea it sparked.

use std::sync::Arc;

use cn_tools::Tool;

use super::routine::on_one;
use super::Shared;
use crate::routine::{Act, World};

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    on_one(
        shared,
        "idea_drop",
        "Drop an idea from state/ideas.json: {answer, changed}.",
        false,
        (World::idea, Act::DropIdea),
    )
}
