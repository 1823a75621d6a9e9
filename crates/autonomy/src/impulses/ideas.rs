//! `state/ideas.json` — curiosities: "I want to explore X someday". Explored only when the
//! agent is truly idle. The type and its file are the hub's (`cn_hub::tasks`, shared with the
//! `add_idea` reflex action); this module finds the file of a hub.

use std::path::Path;

pub use cn_hub::tasks::{Idea, Ideas};

/// `state/ideas.json` of a hub.
pub fn ideas_of(hub: &Path) -> Ideas {
    cn_hub::tasks::ideas_in(&cn_hub::Layout::new(hub).state())
}
