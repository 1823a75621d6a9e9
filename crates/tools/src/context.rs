//! What a tool runs with and the model never sees: where it is, and what it may touch.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    /// Who the call is made for, when the caller knows (`cn reflex test --source`, a test).
    /// Unset, the registry takes it from [`ToolContext::working`], else reads it from the
    /// hub's current item ([`ToolContext::provenance`]).
    pub from: Option<cn_hub::Provenance>,
    /// The item its decider works on, as the decider holds it. Shared by clones.
    pub working: Working,
    /// The current item's provenance as last read, by the file's identity: an item's
    /// frontmatter does not change while it is current, so each item is read once however
    /// many calls its decision makes. Shared by clones.
    seen: Arc<Mutex<Option<(FileStamp, Current)>>>,
}

/// The item a decider works on, its provenance parsed once when it took it (the daemon's mind
/// sets it when the model starts on an item, and clears it when the item's turn ends): while
/// it is set, a call is checked against it and no item file is read. Shared by clones.
#[derive(Debug, Clone, Default)]
pub struct Working(Arc<Mutex<Option<Current>>>);

impl Working {
    /// The decider works on item `id`, from `from`.
    pub fn set(&self, from: cn_hub::Provenance, id: &str) {
        *self.lock() = Some((from, Some(id.to_string())));
    }

    /// The item's turn ended.
    pub fn clear(&self) {
        *self.lock() = None;
    }

    fn get(&self) -> Option<Current> {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Current>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A file's identity and version: device, inode, length, modification time.
type FileStamp = (u64, u64, u64, i64, i64);
/// The current item's provenance and id.
type Current = (cn_hub::Provenance, Option<String>);

fn stamp(path: &Path) -> Option<FileStamp> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
}

impl ToolContext {
    pub fn new(workdir: impl Into<PathBuf>) -> Self {
        ToolContext {
            workdir: workdir.into(),
            hub: None,
            policy: Policy::default(),
            level: 0,
            item: None,
            from: None,
            working: Working::default(),
            seen: Arc::default(),
        }
    }

    /// Who the call is made for, and the item: [`ToolContext::from`] when set, else the item
    /// its decider works on ([`ToolContext::working`]), else the provenance of the hub's
    /// current item (`state/input.md`, its typed `origin:`: a process without the item in
    /// hand, as `cn mcp`'s tools). `None` outside an item (the owner's own commands, a loop's
    /// tree).
    pub fn provenance(&self) -> Option<Current> {
        if let Some(from) = &self.from {
            return Some((from.clone(), self.item.clone()));
        }
        if let Some(working) = self.working.get() {
            return Some(working);
        }
        let layout = cn_hub::Layout::new(self.hub.as_ref()?);
        let now = stamp(&layout.input())?;
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, current)) = seen.as_ref() {
            if *at == now {
                return Some(current.clone());
            }
        }
        let current = cn_hub::Provenance::of_current(&layout)?;
        // Kept only if the file did not change while it was read.
        if stamp(&layout.input()) == Some(now) {
            *seen = Some((now, current.clone()));
        }
        Some(current)
    }

    /// Resolve `path` inside the working directory, or refuse.
    pub fn confine(&self, path: &str) -> Result<PathBuf, ToolError> {
        confine(&self.workdir, path)
    }

    /// [`confine`], and refuse what no tool may read: `.git/` and secret files (see
    /// `cn_hub::Layout::read_protected`).
    pub fn confine_read(&self, path: &str) -> Result<PathBuf, ToolError> {
        let full = self.confine(path)?;
        self.protected(path, &full, |layout, rel| layout.read_protected(rel))?;
        Ok(full)
    }

    /// [`confine`], and refuse what no tool may write: the hub's configuration and trust
    /// (`cn.yaml`, peers, reflexes, core memory, journal…), `.git/` and secret files. Only the
    /// owner's own commands change those.
    pub fn confine_write(&self, path: &str) -> Result<PathBuf, ToolError> {
        let full = self.confine(path)?;
        self.protected(path, &full, |layout, rel| layout.write_protected(rel))?;
        Ok(full)
    }

    /// Check `full` against `rule`, relative to the hub when it is inside it, else relative
    /// to the working directory (a loop's tree: its `.git/` and secrets are protected too).
    fn protected(
        &self,
        path: &str,
        full: &Path,
        rule: impl Fn(&cn_hub::Layout, &Path) -> Option<&'static str>,
    ) -> Result<(), ToolError> {
        let roots = self.hub.iter().chain(std::iter::once(&self.workdir));
        for root in roots {
            let Ok(root) = root.canonicalize() else { continue };
            let Ok(rel) = full.strip_prefix(&root) else { continue };
            let layout = cn_hub::Layout::new(&root);
            let why = if Some(&root) == self.hub.as_ref().and_then(|h| h.canonicalize().ok()).as_ref() {
                rule(&layout, rel)
            } else {
                layout.read_protected(rel)
            };
            if let Some(why) = why {
                return Err(ToolError::Denied(format!(
                    "`{path}` is protected ({why}): no tool may touch it; only the owner's own commands change it"
                )));
            }
        }
        Ok(())
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
    fn protected_paths_are_refused_for_reading_and_writing() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = ToolContext::new(dir.path());
        ctx.hub = Some(dir.path().to_path_buf());
        assert!(ctx.confine_write("cn.yaml").is_err());
        assert!(ctx.confine_write("./state/../state/peers.json").is_err());
        assert!(ctx.confine_read(".git/config").is_err());
        assert!(ctx.confine_read("cn.yaml").is_ok());
        assert!(ctx.confine_write("state/notes/plans.md").is_ok());
        // A loop's tree: its .git and secrets, not the hub's files.
        let tree = tempfile::tempdir().unwrap();
        let mut ctx = ToolContext::new(tree.path());
        ctx.hub = Some(dir.path().to_path_buf());
        assert!(ctx.confine_write("cn.yaml").is_ok());
        assert!(ctx.confine_write(".git/hooks/pre-commit").is_err());
        assert!(ctx.confine_read(".env").is_err());
    }

    #[test]
    fn provenance_is_the_current_items_and_follows_the_next_item() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = ToolContext::new(dir.path());
        ctx.hub = Some(dir.path().to_path_buf());
        assert!(ctx.provenance().is_none(), "no current item: the owner's own command");
        std::fs::create_dir_all(dir.path().join("state")).unwrap();
        let current = |id: &str, from: &str, sense: &str| {
            let tmp = dir.path().join("state/.input.md");
            std::fs::write(&tmp, format!("---\nid: {id}\nfrom: {from}\n{sense}---\nhi\n")).unwrap();
            std::fs::rename(&tmp, dir.path().join("state/input.md")).unwrap();
        };
        current("i-1", "github", "sense: github\nauthor-id: mallory\n");
        let clone = ctx.clone();
        for c in [&ctx, &clone, &ctx] {
            let (from, id) = c.provenance().unwrap();
            assert_eq!((from.label().as_str(), id.as_deref()), ("github:mallory", Some("i-1")));
        }
        current("i-2", "owner", "");
        assert_eq!(clone.provenance().unwrap(), (cn_hub::Provenance::Owner, Some("i-2".to_string())));
        // Read through the typed origin, whatever older keys beside it claim.
        let typed = "origin:\n  sense: github\n  author: github:mallory\n  kind: message\nsense: chat\n";
        current("i-3", "owner", typed);
        let (from, id) = ctx.provenance().unwrap();
        assert_eq!((from.label().as_str(), id.as_deref()), ("github:mallory", Some("i-3")));
        // The item its decider works on, as the decider holds it: no file is read for it, and
        // the file speaks again once the item's turn ended.
        std::fs::remove_file(dir.path().join("state/input.md")).unwrap();
        clone.working.set(cn_hub::Provenance::Peer("ada".into()), "i-4");
        assert_eq!(ctx.provenance().unwrap(), (cn_hub::Provenance::Peer("ada".into()), Some("i-4".to_string())));
        ctx.working.clear();
        assert!(clone.provenance().is_none());
    }

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
