//! What a child of the hub may do, as the hub's format says it: the `sandbox:` entry of
//! cn.yaml and task.md ([`SandboxSpec`]), and the paths of a hub a child may not write
//! ([`places`], [`cns`]) or read ([`secrets`], [`hub_tokens_above`], [`hub_secrets`]).
//! cn-process's sandbox takes them as arguments (composed in `cn_tools::sandbox`): the hub
//! names what is protected, the process crate enforces it.

use std::path::{Path, PathBuf};

use crate::layout::OWN;
use crate::Layout;

/// The hub-relative places that are or hold what a child may not write (cn's own files and
/// folders, git's directory): the sandbox grants their ancestors piecewise.
pub fn places(layout: &Layout) -> Vec<PathBuf> {
    let mut places: Vec<PathBuf> = layout.protected_paths().into_iter().map(|(p, _)| p).collect();
    places.extend(OWN.iter().map(PathBuf::from));
    places.push(PathBuf::from(".git"));
    places
}

/// Whether a child may not write `rel` (hub-relative): it is cn's — never `.git/`, `cn.yaml`,
/// `.gitignore`, the hub lock, `state/`, `threads/`, `loops/` (cn changes those itself, by its
/// own commands), nor secret files.
pub fn cns(layout: &Layout, rel: &Path) -> bool {
    layout.write_protected(rel).is_some() || OWN.iter().any(|o| rel.starts_with(o))
}

/// What a child of the hub at `root` may not read: its `.git/` (the owner token lives there)
/// and secret files anywhere in it (git's directory left out of the walk), and the home
/// directory's key stores.
pub fn secrets(root: &Path) -> Vec<PathBuf> {
    let layout = Layout::new(root);
    let mut out = vec![root.join(".git")];
    let mut stack = vec![root.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            seen += 1;
            if seen > 100_000 {
                break;
            }
            let path = e.path();
            let rel = path.strip_prefix(root).unwrap_or(&path);
            if layout.read_protected(rel).is_some() {
                if !rel.starts_with(".git") {
                    out.push(path);
                }
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        for key in [".ssh", ".gnupg", ".aws", ".netrc", ".git-credentials", ".config/gh", ".docker/config.json"] {
            let p = home.join(key);
            if p.symlink_metadata().is_ok() && !root.starts_with(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The secrets in the git directory of each hub that holds `root` (a loop in a hub's
/// `loops/`), or that `root` is: its `.git/cn-*` files ([`git_secrets`]).
pub fn hub_tokens_above(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in root.ancestors() {
        if dir.join(crate::layout::CONFIG).is_file() {
            out.extend(git_secrets(dir));
        }
    }
    out
}

/// What a command run for the hub at `hub` on the tree at `tree` (a loop's components) may
/// not read of the hub: its whole `.git/` when the tree lies outside the hub (nothing there
/// is the tree's), else the `.git/cn-*` files (the tree may be in the hub's repository, whose
/// objects its tools read). Paths that do not exist are left out.
pub fn hub_secrets(hub: &Path, tree: &Path) -> Vec<PathBuf> {
    let hub = hub.canonicalize().unwrap_or_else(|_| hub.to_path_buf());
    let git = hub.join(".git");
    if !tree.starts_with(&hub) && git.symlink_metadata().is_ok() {
        return vec![git];
    }
    git_secrets(&hub)
}

/// The hub's own files in its git directory (`.git/cn-owner-token`, `.git/cn-id-key`, the
/// lease, and whatever `cn-` file comes next): never committed, never for a child to read.
fn git_secrets(hub: &Path) -> Vec<PathBuf> {
    let l = Layout::new(hub);
    let mut out: Vec<PathBuf> = [l.owner_token(), l.id_key()].into_iter().filter(|p| p.exists()).collect();
    if let Ok(entries) = std::fs::read_dir(hub.join(".git")) {
        for e in entries.flatten() {
            let path = e.path();
            if e.file_name().to_string_lossy().starts_with("cn-") && !out.contains(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A child's `sandbox:` in cn.yaml (a `command` model's or an MCP server's entry) or in a
/// loop's task.md: absent or `true`, the default sandbox; `false`, none; a mapping changes
/// the default: `{network: true, write: [~/.cache/tool, build]}` (a leading `~/` is `$HOME`;
/// a relative path is in the loop's tree; a path that does not exist is left out).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged, expecting = "`true`, `false` or `{network: true|false, write: [paths]}`")]
pub enum SandboxSpec {
    On(bool),
    Widened {
        /// TCP allowed or not (absent: the default's).
        #[serde(default)]
        network: Option<bool>,
        #[serde(default)]
        write: Vec<PathBuf>,
    },
}

impl Default for SandboxSpec {
    fn default() -> Self {
        SandboxSpec::On(true)
    }
}

impl SandboxSpec {
    /// Absent or `true`.
    pub fn is_default(&self) -> bool {
        *self == SandboxSpec::On(true)
    }

    /// The relative `write:` entries (folders in a loop's tree), or why one is refused: it
    /// may not be empty or `.`, climb out with `..`, or name `.git` or `loop-run`.
    pub fn relative_writes(&self) -> Result<Vec<PathBuf>, String> {
        let SandboxSpec::Widened { write, .. } = self else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        for w in write.iter().filter(|w| w.is_relative() && !w.starts_with("~")) {
            let mut parts = w.components().peekable();
            let ok = parts.peek().is_some()
                && w.components().all(|c| matches!(c, std::path::Component::Normal(_)))
                && !w.components().any(|c| c.as_os_str() == ".git")
                && !w.starts_with("loop-run");
            if !ok {
                return Err(format!(
                    "`{}`: a relative entry names a folder inside the tree (not `.`, `..`, `.git` or `loop-run`)",
                    w.display()
                ));
            }
            out.push(w.clone());
        }
        Ok(out)
    }

    /// What this adds to a child's default sandbox, or `None` when it says `false` (no
    /// sandbox): `cn_process::sandbox::Sandbox::widen` takes it. A leading `~/` is `$HOME`;
    /// relative entries are beneath `tree` (left out when there is none).
    pub fn resolve(&self, tree: Option<&Path>) -> Option<Widening> {
        match self {
            SandboxSpec::On(false) => None,
            SandboxSpec::On(true) => Some(Widening { network: None, write: Vec::new() }),
            SandboxSpec::Widened { network, write } => {
                let home = std::env::var_os("HOME").map(PathBuf::from);
                let mut out = Widening { network: *network, write: Vec::new() };
                for w in write {
                    match (w.strip_prefix("~"), &home) {
                        (Ok(rest), Some(home)) => out.write.push(home.join(rest)),
                        _ if w.is_relative() => {
                            if let Some(tree) = tree {
                                out.write.push(tree.join(w));
                            }
                        }
                        _ => out.write.push(w.clone()),
                    }
                }
                Some(out)
            }
        }
    }
}

/// What a `sandbox:` entry adds to a child's default sandbox ([`SandboxSpec::resolve`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Widening {
    /// TCP allowed or not (`None`: the default's).
    pub network: Option<bool>,
    /// Paths it may write besides the default's, resolved.
    pub write: Vec<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_relative_writes_stay_in_the_tree() {
        let spec: SandboxSpec = serde_yaml_ng::from_str("{write: [build, out/classes, ~/.m2]}").unwrap();
        assert_eq!(spec.relative_writes().unwrap(), [PathBuf::from("build"), PathBuf::from("out/classes")]);
        let w = spec.resolve(Some(Path::new("/t"))).unwrap();
        assert!(w.write.contains(&PathBuf::from("/t/build")));
        for bad in
            ["{write: ['.']}", "{write: ['../x']}", "{write: [.git/hooks]}", "{write: [loop-run]}", "{write: [a/.git]}"]
        {
            let spec: SandboxSpec = serde_yaml_ng::from_str(bad).unwrap();
            assert!(spec.relative_writes().is_err(), "{bad}");
        }
    }
}
