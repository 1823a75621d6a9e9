//! Files as a sense: a debounced watcher (`notify`) on configured paths. A burst of writes to
//! one file becomes one percept (the debouncer, then the pool's coalescing by path).
//!
//! Invariant: paths under an ignored component (the hub's own `state/` and `.git` by
//! default) never produce percepts, so the agent's own writes cannot wake it in a loop.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{new_debouncer, DebounceEventResult, Debouncer};
use serde_json::json;

use super::{Running, Sense, SenseContext, SenseError};
use crate::attention::Attention;
use crate::config::FilesConfig;
use crate::percept::{Percept, SenseKind};

/// A running watcher; dropping it stops watching.
pub struct FileSense {
    _debouncer: Debouncer<RecommendedWatcher>,
}

fn ignored(path: &Path, ignore: &[String]) -> bool {
    path.components().any(|c| matches!(c, Component::Normal(n) if ignore.iter().any(|i| n == i.as_str())))
}

/// The percept for a changed path (shown relative to the hub when inside it).
pub fn percept(hub: &Path, path: &Path) -> Percept {
    let shown = path.strip_prefix(hub).unwrap_or(path);
    let what = if path.exists() { "changed" } else { "removed" };
    Percept::new(SenseKind::File, format!("File {what}: {}", shown.display()))
        .key(format!("file:{}", path.display()))
        .data(json!({"path": path, "exists": path.exists()}))
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
        Ok(Running::keep(watch(ctx.hub, &self.paths, self.debounce, self.ignore, ctx.attention.clone())?))
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
    let mut debouncer = new_debouncer(debounce, move |res: DebounceEventResult| match res {
        Ok(events) => {
            for e in events {
                // Ignore components are relative to the hub: an absolute watch root
                // elsewhere may legitimately contain a `state` directory.
                let rel = e.path.strip_prefix(&handler_root).unwrap_or(&e.path);
                if !ignored(rel, &ignore) {
                    attention.admit(percept(&handler_root, &e.path));
                }
            }
        }
        Err(e) => tracing::warn!(%e, "file watcher error"),
    })
    .map_err(|source| SenseError::Watch { sense: "files", path: None, source })?;
    for p in paths {
        let full = if p.is_absolute() { p.clone() } else { root.join(p) };
        if let Err(source) = debouncer.watcher().watch(&full, RecursiveMode::Recursive) {
            return Err(SenseError::Watch { sense: "files", path: Some(full), source });
        }
    }
    Ok(FileSense { _debouncer: debouncer })
}
