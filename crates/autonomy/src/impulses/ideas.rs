//! `state/ideas.json` — curiosities: "I want to explore X someday". Explored only when the
//! agent is truly idle. The document's format (`id`, `idea`, `sparked_by`, `added`), unknown
//! fields kept.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::state::{self, StateError};

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
#[derive(Debug, Clone)]
pub struct Ideas {
    path: PathBuf,
}

impl Ideas {
    pub fn of_hub(hub: &Path) -> Self {
        Ideas { path: crate::hub::state_dir(hub).join("ideas.json") }
    }
    pub fn at(path: impl Into<PathBuf>) -> Self {
        Ideas { path: path.into() }
    }
    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn load(&self) -> Result<Vec<Idea>, StateError> {
        state::read(&self.path)
    }
    pub fn add(&self, idea: Idea) -> Result<Idea, StateError> {
        let mut all = self.load()?;
        all.push(idea.clone());
        state::write(&self.path, &all)?;
        Ok(idea)
    }
}
