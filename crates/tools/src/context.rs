//! What a tool runs with and the model never sees: where it is, and what it may touch.

use std::path::{Component, Path, PathBuf};

use cn_compute::{Level, ToolError};

use crate::Policy;

#[derive(Debug, Clone)]
pub struct ToolContext {
    /// The directory relative paths resolve against (the hub, or a loop's working tree).
    pub workdir: PathBuf,
    /// The hub, when there is one.
    pub hub: Option<PathBuf>,
    pub policy: Policy,
    /// The level making the call.
    pub level: Level,
    /// The item the call works on, if any.
    pub item: Option<String>,
}

impl ToolContext {
    pub fn new(workdir: impl Into<PathBuf>) -> Self {
        ToolContext { workdir: workdir.into(), hub: None, policy: Policy::default(), level: 0, item: None }
    }

    /// Resolve `path` inside the working directory, or refuse.
    pub fn confine(&self, path: &str) -> Result<PathBuf, ToolError> {
        confine(&self.workdir, path)
    }
}

/// Resolve a model-supplied `path` against `root` and refuse anything that would leave it:
/// absolute paths outside it, `..` escapes, and symlinks pointing out.
pub fn confine(root: &Path, path: &str) -> Result<PathBuf, ToolError> {
    if path.is_empty() {
        return Err(ToolError::BadParams("`path` is empty".into()));
    }
    let root = root.canonicalize().map_err(|e| ToolError::Failed(format!("{}: {e}", root.display())))?;
    let candidate = Path::new(path);
    let joined = if candidate.is_absolute() { candidate.to_path_buf() } else { root.join(candidate) };
    // Normalize lexically first, so `a/../../x` is caught even when nothing exists yet.
    let mut normal = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                if !normal.pop() {
                    return Err(outside(path));
                }
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    if !normal.starts_with(&root) {
        return Err(outside(path));
    }
    // Then resolve symlinks on the longest existing prefix.
    let mut existing = normal.clone();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.file_name().map(|n| n.to_owned()), existing.parent().map(Path::to_path_buf)) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent;
            }
            _ => break,
        }
    }
    let mut real = existing.canonicalize().map_err(|e| ToolError::Failed(format!("{path}: {e}")))?;
    if !real.starts_with(&root) {
        return Err(outside(path));
    }
    for name in rest.into_iter().rev() {
        real.push(name);
    }
    Ok(real)
}

fn outside(path: &str) -> ToolError {
    ToolError::Denied(format!("path `{path}` is outside the allowed directory"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confines_paths_to_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("a")).unwrap();
        assert!(confine(root, "a/new.txt").unwrap().ends_with("a/new.txt"));
        assert!(confine(root, "a/../b/c.txt").is_ok());
        for bad in ["../x", "a/../../x", "/etc/passwd", ""] {
            assert!(confine(root, bad).is_err(), "{bad}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("out")).unwrap();
            assert!(matches!(confine(root, "out/passwd"), Err(ToolError::Denied(_))));
        }
    }
}
