//! The sensor's throwaway view of the tree (issue 33): a sensor is read-only — "never
//! modifies code" — yet `javac src/**/*.java` writes `.class` files beside the sources and
//! `cargo test` writes `target/`. So the sensors of one measurement run in a view of the tree
//! whose writes are thrown away afterwards, and never reach the tree, the iteration's commit,
//! or the actuator's "Files changed":
//!
//! - an **overlay** on the tree, where the kernel gives a user namespace and an overlay on
//!   DIR (`cn_process::sandbox::overlay_works`): same paths, writes land in a scratch directory;
//! - else a **copy** of the tree's tracked and untracked files (`git ls-files --cached
//!   --others --exclude-standard`; ignored files such as build output are not copied), with
//!   `.git` and `loop-run/` linked in read-only (the sandbox grants only the copy).
//!
//! The sensors of one measurement share the view (a second sensor sees the first one's
//! build), then it is removed.

use std::path::{Path, PathBuf};

use crate::artifacts::{LoopRun, LOOP_RUN};
use crate::error::{LoopError, Result};

pub(crate) enum View {
    /// The tree under an overlay whose writes go to this scratch directory.
    Overlay(tempfile::TempDir),
    /// A copy of the tree's files.
    Copy(tempfile::TempDir),
}

impl View {
    pub(crate) fn new(run: &LoopRun) -> Result<View> {
        let scratch = |what: &str| {
            tempfile::Builder::new()
                .prefix(&format!("cn-sensor-{what}-"))
                .tempdir()
                .map_err(|e| LoopError::component_from("sensor", "cannot make the sensor's view of the tree", e))
        };
        let sandboxed = run.sandbox != cn_hub::SandboxSpec::On(false);
        // The owner token of a hub that is the tree would show through an overlay: copy then.
        let tokens_inside = cn_hub::protect::hub_tokens_above(&run.dir).iter().any(|t| t.starts_with(&run.dir));
        if sandboxed && !tokens_inside && cn_process::sandbox::overlay_works(&run.dir) {
            return Ok(View::Overlay(scratch("overlay")?));
        }
        let copy = scratch("copy")?;
        copy_tree(&run.dir, copy.path())?;
        Ok(View::Copy(copy))
    }

    /// Where the sensor runs.
    pub(crate) fn cwd<'a>(&'a self, run: &'a LoopRun) -> &'a Path {
        match self {
            View::Overlay(_) => &run.dir,
            View::Copy(dir) => dir.path(),
        }
    }
}

/// Copy `dir`'s tracked and untracked (not ignored) files into `to`, modes and links kept;
/// link `.git` and `loop-run` to the originals.
fn copy_tree(dir: &Path, to: &Path) -> Result<()> {
    let git = cn_git::Git::new(dir);
    let listed = git
        .run(&["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."])
        .map_err(|e| LoopError::component_from("sensor", "cannot list the tree's files for the sensor's view", e))?;
    let fail = |p: &Path, e: std::io::Error| {
        LoopError::component_from("sensor", format!("copying {} for the sensor's view", p.display()), e)
    };
    for rel in listed.split('\0').filter(|r| !r.is_empty()) {
        if Path::new(rel).starts_with(LOOP_RUN) {
            continue;
        }
        // The index still lists `x/f` when a component has just swapped the folder `x` for a
        // link: followed, cn (unsandboxed) would copy from wherever it points — a file no
        // component may read — or onto it. Only real folders are gone through, on both sides.
        if !folders_only(dir, rel) || !folders_only(to, rel) {
            continue;
        }
        let (src, dst) = (dir.join(rel), to.join(rel));
        if dst.symlink_metadata().is_ok() {
            continue; // listed twice (an unmerged path)
        }
        let Ok(meta) = src.symlink_metadata() else { continue }; // deleted, not yet staged
        if let Some(parent) = dst.parent() {
            std::fs::create_dir_all(parent).map_err(|e| fail(parent, e))?;
        }
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&src).map_err(|e| fail(&src, e))?;
            std::os::unix::fs::symlink(target, &dst).map_err(|e| fail(&dst, e))?;
        } else if meta.is_file() {
            std::fs::copy(&src, &dst).map_err(|e| fail(&src, e))?;
        }
    }
    for name in [".git", LOOP_RUN] {
        let original: PathBuf = dir.join(name);
        if original.symlink_metadata().is_ok() {
            std::os::unix::fs::symlink(&original, to.join(name)).map_err(|e| fail(&original, e))?;
        }
    }
    Ok(())
}

/// Whether every folder between `root` and `rel`'s file that exists is a real folder, not a
/// link (or a file): what is missing, [`copy_tree`] creates.
fn folders_only(root: &Path, rel: &str) -> bool {
    let mut at = root.to_path_buf();
    let Some(parent) = Path::new(rel).parent() else { return true };
    for part in parent.components() {
        at.push(part);
        match at.symlink_metadata() {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return false,
            Err(_) => return true,
        }
    }
    true
}
