//! Files as a sense: a watcher (`notify`) on configured paths that senses changes — a
//! file's content or metadata written, a file created, removed or renamed — and not reads
//! (opening, reading, closing without writing, access times). A burst of changes to one
//! file becomes one percept: a path is reported once it has been quiet for `debounce` (and
//! the pool coalesces by path).
//!
//! Invariant: paths under an ignored component (the hub's own `state/`, `threads/` and
//! `.git` by default) never produce percepts, and reads never do — so cn's own writes (its
//! state files, items, commits) and git reading the tree (`git add -A`) cannot wake the
//! agent in a loop.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::event::{EventKind, MetadataKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode, Watcher};

use super::{Running, Sense, SenseContext, SenseError};
use crate::attention::Attention;
use crate::config::FilesConfig;
use crate::percept::Percept;

/// A running watcher; dropping it stops watching.
pub struct FileSense {
    _watcher: RecommendedWatcher,
}

/// Whether an event is a change (not a read, not an access time).
pub fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)) => false,
        EventKind::Modify(_) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

fn ignored(path: &Path, ignore: &[String]) -> bool {
    path.components().any(|c| matches!(c, Component::Normal(n) if ignore.iter().any(|i| n == i.as_str())))
}

/// What a changed path's percept keeps in its `data` (shown whole to the model): under these
/// names and in this order, as it was written before it was typed, so a spool line either cn
/// wrote reads the same.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Changed {
    /// The path as watched (absolute); a name that is no UTF-8 is written with U+FFFD.
    #[serde(serialize_with = "lossy")]
    pub path: PathBuf,
    /// Whether it exists now (removed: `false`).
    pub exists: bool,
}

fn lossy<S: serde::Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&path.to_string_lossy())
}

/// The percept for a changed path (shown relative to the hub when inside it).
pub fn percept(hub: &Path, path: &Path) -> Percept {
    let shown = path.strip_prefix(hub).unwrap_or(path);
    let exists = path.exists();
    let what = if exists { "changed" } else { "removed" };
    Percept::new(cn_hub::Sense::File, format!("File {what}: {}", shown.display()))
        .key(format!("file:{}", path.display()))
        .with_origin(cn_hub::Origin {
            sense: cn_hub::Sense::File,
            author: crate::percept::author(cn_hub::Sense::File, false, None),
            kind: cn_hub::Kind::Event(cn_hub::origin::EventKind::File),
            thread: None,
            answer: None,
        })
        .data_of(&Changed { path: path.to_path_buf(), exists })
}

/// Changed files (`senses.files`) as a [`Sense`].
pub struct FilesSense {
    paths: Vec<PathBuf>,
    debounce: Duration,
    ignore: Vec<String>,
}

impl FilesSense {
    pub fn configured(config: &FilesConfig) -> Self {
        FilesSense { paths: config.paths.clone(), debounce: config.debounce, ignore: config.ignore.clone() }
    }
}

impl Sense for FilesSense {
    fn name(&self) -> &str {
        "files"
    }

    fn start(self: Box<Self>, ctx: &mut SenseContext<'_>) -> Result<Running, SenseError> {
        Ok(Running::keep(watch(ctx.hub.root(), &self.paths, self.debounce, self.ignore, ctx.attention.clone())?))
    }
}

/// Watch `paths` (relative to `hub` unless absolute), debounced by `debounce`.
pub fn watch(
    hub: &Path,
    paths: &[PathBuf],
    debounce: Duration,
    ignore: Vec<String>,
    attention: Attention,
) -> Result<FileSense, SenseError> {
    let root = hub.canonicalize().unwrap_or_else(|_| hub.to_path_buf());
    let handler_root = root.clone();
    let (tx, rx) = mpsc::channel::<PathBuf>();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
        Ok(event) if is_change(&event.kind) => {
            for path in event.paths {
                // Ignore components are relative to the hub: an absolute watch root
                // elsewhere may legitimately contain a `state` directory.
                let rel = path.strip_prefix(&handler_root).unwrap_or(&path);
                if !ignored(rel, &ignore) {
                    let _ = tx.send(path);
                }
            }
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(e = %cn_compute::Chain(&e), "file watcher error"),
    })
    .map_err(|source| SenseError::Watch { sense: "files", path: None, source })?;
    for p in paths {
        let full = if p.is_absolute() { p.clone() } else { root.join(p) };
        if let Err(source) = watcher.watch(&full, RecursiveMode::Recursive) {
            return Err(SenseError::Watch { sense: "files", path: Some(full), source });
        }
    }
    // The debouncer: blocks while nothing is pending (no polling when idle); a path is
    // reported once it has been quiet for `debounce`. Ends when the watcher is dropped.
    let percept_root = root.clone();
    std::thread::Builder::new()
        .name("cn-files".into())
        .spawn(move || {
            let mut pending: HashMap<PathBuf, Instant> = HashMap::new();
            loop {
                let next = pending.values().min().map(|t| (*t + debounce).saturating_duration_since(Instant::now()));
                let got = match next {
                    None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
                    Some(wait) => rx.recv_timeout(wait),
                };
                match got {
                    Ok(path) => {
                        pending.insert(path, Instant::now());
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                }
                let now = Instant::now();
                let quiet: Vec<PathBuf> = pending
                    .iter()
                    .filter(|(_, t)| now.duration_since(**t) >= debounce)
                    .map(|(p, _)| p.clone())
                    .collect();
                for path in quiet {
                    pending.remove(&path);
                    attention.admit(percept(&percept_root, &path));
                }
            }
        })
        .map_err(|e| SenseError::Watch { sense: "files", path: None, source: notify::Error::io(e) })?;
    Ok(FileSense { _watcher: watcher })
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, AccessMode, CreateKind, DataChange, RenameMode};

    /// The typed data is written as the `json!` map it was before: the same keys in the same
    /// order; a name that is no UTF-8 (which that map could not write) is written with U+FFFD.
    #[test]
    fn a_changes_data_is_written_as_before_it_was_typed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.md");
        std::fs::write(&path, "x").unwrap();
        let p = percept(dir.path(), &path);
        let before = serde_json::json!({"path": path, "exists": true});
        assert_eq!(serde_json::to_string(&p.data).unwrap(), before.to_string());
        assert_eq!(p.data_as(), Some(Changed { path, exists: true }));
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt as _;
            let odd = dir.path().join(std::ffi::OsStr::from_bytes(b"bad\xff.md"));
            let p = percept(dir.path(), &odd);
            let shown = format!("{}/bad\u{fffd}.md", dir.path().display());
            assert_eq!(
                serde_json::to_string(&p.data).unwrap(),
                serde_json::json!({"path": shown, "exists": false}).to_string()
            );
        }
    }

    #[test]
    fn reads_are_not_changes() {
        assert!(!is_change(&EventKind::Access(AccessKind::Open(AccessMode::Read))));
        assert!(!is_change(&EventKind::Access(AccessKind::Close(AccessMode::Read))));
        assert!(!is_change(&EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime))));
        assert!(is_change(&EventKind::Modify(ModifyKind::Data(DataChange::Any))));
        assert!(is_change(&EventKind::Modify(ModifyKind::Metadata(MetadataKind::Permissions))));
        assert!(is_change(&EventKind::Modify(ModifyKind::Name(RenameMode::Both))));
        assert!(is_change(&EventKind::Create(CreateKind::File)));
    }
}
