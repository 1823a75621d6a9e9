//! Typed state files (`tasks.json`, `ideas.json`, `schedule.json`, `schedule-state.json`):
//! read with an error that names the file, line, column and field; written atomically.
//!
//! Invariant: a file that does not parse is reported and left exactly as it is — never
//! replaced by a default, since it may hold the owner's hand edits.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A state file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("{path}: line {line}, column {column}, field `{field}`: {message}; fix the file by hand (it was left unchanged)")]
    Malformed { path: PathBuf, line: usize, column: usize, field: String, message: String },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// Read a JSON state file; a missing or blank file is the default value.
pub fn read<T: DeserializeOwned + Default>(path: &Path) -> Result<T, StateError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(T::default()),
        Err(source) => return Err(StateError::Io { path: path.to_path_buf(), source }),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    let malformed = |line: usize, column: usize, field: String, message: String| StateError::Malformed {
        path: path.to_path_buf(),
        line,
        column,
        field,
        message,
    };
    let mut de = serde_json::Deserializer::from_slice(&bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let field = match e.path().to_string() {
            p if p == "." || p.is_empty() => "(top level)".to_string(),
            p => p,
        };
        let inner = e.inner();
        malformed(inner.line(), inner.column(), field, strip_position(&inner.to_string()))
    })?;
    // Trailing garbage after the value is as malformed as a bad field.
    de.end().map_err(|e| malformed(e.line(), e.column(), "(top level)".into(), strip_position(&e.to_string())))?;
    Ok(value)
}

/// Write a JSON state file atomically (pretty, final newline).
pub fn write<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), StateError> {
    cn_storage::write_json_atomic(path, value).map_err(|source| StateError::Io { path: path.to_path_buf(), source })
}

/// A state file holding a JSON array of `T` (tasks.json, ideas.json, schedule.json).
#[derive(Debug, Clone)]
pub struct JsonList<T> {
    path: PathBuf,
    _items: std::marker::PhantomData<fn() -> T>,
}

impl<T: Serialize + DeserializeOwned> JsonList<T> {
    pub fn at(path: impl Into<PathBuf>) -> Self {
        JsonList { path: path.into(), _items: std::marker::PhantomData }
    }
    /// `state/<name>` of a hub.
    pub fn of_hub(hub: &Path, name: &str) -> Self {
        Self::at(crate::hub::state_dir(hub).join(name))
    }
    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn load(&self) -> Result<Vec<T>, StateError> {
        read(&self.path)
    }
    pub fn save(&self, items: &[T]) -> Result<(), StateError> {
        write(&self.path, items)
    }
    /// Append one item (read, push, atomic write); a malformed file stays as it is.
    pub fn add(&self, item: T) -> Result<(), StateError> {
        let mut all = self.load()?;
        all.push(item);
        self.save(&all)
    }
}

/// A state file the daemon checks every pacing interval, read once and kept while its
/// [`cn_storage::Stamp`] vouches that it is unchanged: an idle check costs a stat per file.
/// A read error is kept too (shared), so a malformed file is not re-parsed either.
#[derive(Debug)]
pub struct Cached<T> {
    path: PathBuf,
    seen: Option<(Option<cn_storage::Stamp>, Result<Arc<T>, Arc<StateError>>)>,
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
        if let Some((_, value)) = self.seen.as_ref().filter(|(stamp, _)| cn_storage::Stamp::vouches(Some(stamp), &now)) {
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

/// serde_json appends " at line L column C"; the error already says where.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Default, Deserialize, Serialize, PartialEq)]
    struct Row {
        id: String,
        priority: Option<u8>,
    }

    #[test]
    fn malformed_file_names_line_and_field_and_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tasks.json");
        let text = "[\n  {\"id\": \"a\"},\n  {\"id\": \"b\", \"priority\": \"high\"}\n]\n";
        std::fs::write(&p, text).unwrap();
        let e = read::<Vec<Row>>(&p).unwrap_err().to_string();
        assert!(e.contains("tasks.json: line 3"), "{e}");
        assert!(e.contains("field `[1].priority`"), "{e}");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
    }

    #[test]
    fn missing_is_empty_and_write_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state/ideas.json");
        assert!(read::<Vec<Row>>(&p).unwrap().is_empty());
        let rows = vec![Row { id: "x".into(), priority: Some(1) }];
        write(&p, &rows).unwrap();
        assert_eq!(read::<Vec<Row>>(&p).unwrap(), rows);
    }
}
