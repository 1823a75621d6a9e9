//! Typed state files (`tasks.json`, `ideas.json`, `schedule.json`, `schedule-state.json`):
//! read with an error that names the file, line, column and field; written atomically. The
//! reader and writer are the hub's (`cn_hub::tasks`); this module adds [`Cached`], the
//! daemon's stat-vouched copy.
//!
//! Invariant: a file that does not parse is reported and left exactly as it is — never
//! replaced by a default, since it may hold the owner's hand edits.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;

pub use cn_hub::tasks::{read, write, JsonList, StateError};

/// What the last read gave: the value, or the error (shared, so it is kept as it is).
type Read<T> = Result<Arc<T>, Arc<StateError>>;

/// A state file the daemon checks every pacing interval, read once and kept while its
/// [`cn_storage::Stamp`] vouches that it is unchanged: an idle check costs a stat per file.
/// A read error is kept too (shared), so a malformed file is not re-parsed either.
#[derive(Debug)]
pub struct Cached<T> {
    path: PathBuf,
    seen: Option<(Option<cn_storage::Stamp>, Read<T>)>,
}

impl<T: DeserializeOwned + Default> Cached<T> {
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Cached { path: path.into(), seen: None }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's value as of now (missing or blank: the default), or why it cannot be used.
    pub fn get(&mut self) -> Result<Arc<T>, Arc<StateError>> {
        let now = match cn_storage::Stamp::of(&self.path) {
            Ok(s) => s,
            Err(e) => return Err(Arc::new(StateError::Io { path: self.path.clone(), source: e })),
        };
        if let Some((_, value)) = self.seen.as_ref().filter(|(stamp, _)| cn_storage::Stamp::vouches(Some(stamp), &now))
        {
            return value.clone();
        }
        let value = read::<T>(&self.path).map(Arc::new).map_err(Arc::new);
        self.seen = Some((now, value.clone()));
        value
    }

    /// Forget what was read (after this process wrote the file).
    pub fn invalidate(&mut self) {
        self.seen = None;
    }
}
