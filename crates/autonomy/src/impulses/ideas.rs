//! `state/ideas.json` — curiosities: "I want to explore X someday". Explored only when the
//! agent is truly idle. The document's format (`id`, `idea`, `sparked_by`, `added`), unknown
//! fields kept.

use std::path::Path;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::state::JsonList;

/// One curiosity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Idea {
    pub id: String,
    pub idea: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sparked_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub added: Option<Timestamp>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Idea {
    pub fn new(idea: impl Into<String>, sparked_by: Option<String>, added: Timestamp) -> Self {
        Idea { id: crate::new_id("idea"), idea: idea.into(), sparked_by, added: Some(added), extra: Map::new() }
    }
}

/// The ideas file of a hub.
pub type Ideas = JsonList<Idea>;

/// `state/ideas.json` of a hub.
pub fn ideas_of(hub: &Path) -> Ideas {
    Ideas::of_hub(hub, cn_hub::layout::IDEAS)
}
