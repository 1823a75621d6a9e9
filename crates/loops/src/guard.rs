//! The loop's files are the orchestrator's (issue 34): a component may write its own
//! `{role}-output.md` and nothing else in `loop-run/`, nor the tree's `cn.yaml` (which would
//! choose the next run's models and sandboxes). Where the kernel gives a mount namespace
//! those files are bound read-only for the component; everywhere, [`Guard`] compares them
//! before and after it ran, and a change stops the run, says so, and is never obeyed — cn
//! read task.md once, at the start of the run, and the next run accepts only the task.md
//! committed with the loop (`Loop::open`).

use std::path::PathBuf;

use crate::artifacts::{LoopRun, LOOP_RUN};
use crate::error::{LoopError, Result};

/// The files a component may not change, as they were before it ran.
pub(crate) struct Guard {
    /// Relative to DIR, with their bytes (`None`: absent).
    files: Vec<(String, Option<Vec<u8>>)>,
    own: Option<&'static str>,
}

/// `cn.yaml` at the tree's top: a hub or loop defaults there would steer the next run.
const CONFIG: &str = cn_hub::layout::CONFIG;

impl Guard {
    /// Take the state of `loop-run/` (but `own`, the component's output) and `cn.yaml`.
    pub(crate) fn before(run: &LoopRun, own: Option<&'static str>) -> Result<Guard> {
        let mut files = Vec::new();
        for name in names(run)? {
            if Some(name.as_str()) != own {
                let path = run.run.join(&name);
                files.push((LoopRun::rel(&name), read(&path)?));
            }
        }
        files.push((CONFIG.to_string(), read(&run.dir.join(CONFIG))?));
        Ok(Guard { files, own })
    }

    /// The paths a component must not change (absolute), for read-only binds.
    pub(crate) fn protected(run: &LoopRun, own: Option<&'static str>) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = names(run)
            .unwrap_or_default()
            .into_iter()
            .filter(|n| Some(n.as_str()) != own)
            .map(|n| run.run.join(n))
            .collect();
        out.push(run.dir.join(CONFIG));
        out
    }

    /// Refuse what `role`'s `command` changed.
    pub(crate) fn after(&self, run: &LoopRun, role: &'static str, command: &str) -> Result<()> {
        let mut changes = Vec::new();
        if !run.run.symlink_metadata().is_ok_and(|m| m.is_dir()) {
            changes.push(format!("replaced {LOOP_RUN}/ (it is no longer a folder)"));
        }
        for (rel, was) in &self.files {
            let now = read(&run.dir.join(rel))?;
            match (was, &now) {
                (Some(a), Some(b)) if a != b => changes.push(format!("changed {rel}")),
                (Some(_), None) => changes.push(format!("removed {rel}")),
                (None, Some(_)) => changes.push(format!("created {rel}")),
                _ => {}
            }
        }
        for name in names(run)? {
            let rel = LoopRun::rel(&name);
            if Some(name.as_str()) != self.own && !self.files.iter().any(|(r, _)| *r == rel) {
                changes.push(format!("created {rel}"));
            }
        }
        if changes.is_empty() {
            return Ok(());
        }
        Err(LoopError::Tampered { role, command: command.to_string(), changes, dir: run.dir.clone() })
    }
}

/// The entries of `loop-run/`, sorted.
fn names(run: &LoopRun) -> Result<Vec<String>> {
    let mut out = Vec::new();
    match std::fs::read_dir(&run.run) {
        Ok(entries) => {
            for e in entries {
                let e = e.map_err(LoopError::io(&run.run))?;
                out.push(e.file_name().to_string_lossy().into_owned());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(LoopError::Io { path: run.run.clone(), source: e }),
    }
    out.sort();
    Ok(out)
}

/// A file's bytes, `None` when absent; a folder (or a link) counts as its listing so a swap is
/// seen too.
fn read(path: &std::path::Path) -> Result<Option<Vec<u8>>> {
    match path.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(LoopError::Io { path: path.to_path_buf(), source: e }),
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::read_link(path).map_err(LoopError::io(path))?;
            Ok(Some(format!("link to {}", target.display()).into_bytes()))
        }
        Ok(m) if m.is_dir() => Ok(Some(b"a folder".to_vec())),
        Ok(_) => std::fs::read(path).map(Some).map_err(LoopError::io(path)),
    }
}
