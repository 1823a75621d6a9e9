//! A sandbox for the commands cn runs (the shell action, command model providers, AI-loop
//! components, MCP stdio servers; `crate::child::Child::sandbox`): with Landlock, the child
//! may write only beneath the paths given (the hub or the loop's working tree without their
//! protected parts, a private temporary directory, `/dev/null`, what cn.yaml grants) and,
//! unless granted, open no TCP connection and bind no TCP port. Reading stays allowed.
//!
//! Landlock only allows (a rule grants rights beneath a directory, never takes them away), so
//! a tree with protected parts — the hub's `.git/`, `cn.yaml`, `state/peers.json`, … — is
//! granted piecewise ([`Sandbox::for_hub`], [`Sandbox::for_tree`]): every directory that
//! holds no protected path is writable beneath; a directory that does is not itself granted
//! (nothing new can be created directly in it, nothing removed or renamed there), its
//! unprotected files may be written in place, and its other subdirectories are handled the
//! same way. So a sandboxed child cannot create a new top-level file in the hub or the loop's
//! tree (that would need a right on the root, which reaches `.git/` too); it works in the
//! existing directories. Symbolic links are never granted (a link's target could be
//! anywhere).
//!
//! Invariant: fail closed. Where the kernel cannot enforce all of it (no Landlock, or a
//! Landlock too old for network rules), [`Sandbox::apply`] refuses with a message that says
//! how to run unsandboxed (`policy.sandbox: false` in cn.yaml); nothing runs half-sandboxed.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What a sandboxed child may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Paths the child may write: beneath a directory, in place for a file.
    pub writable: Vec<PathBuf>,
    /// Whether it may open TCP connections and bind TCP ports.
    pub network: bool,
    /// How the owner runs this command unsandboxed, for the refusal's message.
    pub way_out: String,
}

/// What the shell action's refusal names.
pub const POLICY_WAY_OUT: &str = "`policy.sandbox: false` in cn.yaml";

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "cannot sandbox the command ({why}); cn runs commands only inside a Landlock sandbox (Linux 6.7+ with Landlock enabled). \
         To run it unsandboxed, set {way_out}"
    )]
    Unavailable { why: String, way_out: String },
}

/// A child's `sandbox:` in cn.yaml (a `command` model's or an MCP server's entry) or in a
/// loop's task.md: absent or `true`, the default sandbox; `false`, none; a mapping changes
/// the default: `{network: true, write: [~/.cache/tool]}` (a leading `~/` is `$HOME`; a
/// path that does not exist is left out).
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

    /// `base` widened as this says, or `None` when it says `false`.
    pub fn widen(&self, mut base: Sandbox) -> Option<Sandbox> {
        match self {
            SandboxSpec::On(false) => None,
            SandboxSpec::On(true) => Some(base),
            SandboxSpec::Widened { network, write } => {
                if let Some(network) = network {
                    base.network = *network;
                }
                let home = std::env::var_os("HOME").map(PathBuf::from);
                for w in write {
                    match (w.strip_prefix("~"), &home) {
                        (Ok(rest), Some(home)) => base.writable.push(home.join(rest)),
                        _ => base.writable.push(w.clone()),
                    }
                }
                Some(base)
            }
        }
    }
}

impl Sandbox {
    /// Writes beneath `dir` only, no network.
    pub fn writes_in(dir: impl Into<PathBuf>) -> Sandbox {
        Sandbox { writable: vec![dir.into()], network: false, way_out: POLICY_WAY_OUT.into() }
    }

    /// Writes nowhere (but `/dev/null` and the private temporary directory the child runner
    /// adds), no network.
    pub fn nothing() -> Sandbox {
        Sandbox { writable: Vec::new(), network: false, way_out: POLICY_WAY_OUT.into() }
    }

    /// The same, with `way_out` named in a refusal.
    pub fn way_out(mut self, way_out: impl Into<String>) -> Sandbox {
        self.way_out = way_out.into();
        self
    }

    /// Writes in the hub at `root` except where no tool may write
    /// (`crate::Layout::write_protected`: `.git/`, `cn.yaml`, `state/peers.json`, the
    /// reflexes, the journal, secret files, …); no network. See the module doc for how.
    pub fn for_hub(root: &Path) -> Sandbox {
        let layout = crate::Layout::new(root);
        let mut places: Vec<PathBuf> = layout.protected_paths().into_iter().map(|(p, _)| p).collect();
        places.push(PathBuf::from(".git"));
        Sandbox {
            writable: grants(root, &places, &|rel| layout.write_protected(rel).is_some()),
            network: false,
            way_out: POLICY_WAY_OUT.into(),
        }
    }

    /// Writes in the working tree at `root` except its `.git/` and secret files (a loop's
    /// tree: its git is the loop's clock); no network.
    pub fn for_tree(root: &Path) -> Sandbox {
        let layout = crate::Layout::new(root);
        let places = [PathBuf::from(".git")];
        Sandbox {
            writable: grants(root, &places, &|rel| layout.read_protected(rel).is_some()),
            network: false,
            way_out: POLICY_WAY_OUT.into(),
        }
    }

    /// Build the ruleset now (so an unsupported kernel is reported before anything runs) and
    /// have `cmd`'s child enforce it on itself between fork and exec (`pre_exec`).
    #[cfg(target_os = "linux")]
    pub fn apply(&self, cmd: &mut Command) -> Result<(), SandboxError> {
        use landlock::{
            AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
            RulesetCreatedAttr, ABI,
        };
        use std::os::unix::process::CommandExt;

        let err =
            |e: &dyn std::fmt::Display| SandboxError::Unavailable { why: e.to_string(), way_out: self.way_out.clone() };
        let abi = ABI::V4;
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_write(abi))
            .map_err(|e| err(&e))?;
        if !self.network {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp).map_err(|e| err(&e))?;
        }
        let mut created = ruleset.create().map_err(|e| err(&e))?;
        // A path that does not exist is left out: the child could not create it anyway.
        for path in self.writable.iter().filter(|p| p.exists()) {
            let fd = PathFd::new(path).map_err(|e| err(&format!("{}: {e}", path.display())))?;
            // A file takes only the rights a file can have (write, truncate): Landlock
            // refuses directory rights on a file.
            let access = if path.is_dir() {
                AccessFs::from_write(abi)
            } else {
                AccessFs::from_write(abi) & AccessFs::from_file(abi)
            };
            created = created.add_rule(PathBeneath::new(fd, access)).map_err(|e| err(&e))?;
        }
        let null = PathFd::new("/dev/null").map_err(|e| err(&e))?;
        created = created
            .add_rule(PathBeneath::new(null, AccessFs::from_write(abi) & AccessFs::from_file(abi)))
            .map_err(|e| err(&e))?;
        let mut ruleset = Some(created);
        let restrict = move || -> std::io::Result<()> {
            match ruleset.take() {
                Some(r) => r
                    .restrict_self()
                    .map(drop)
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::PermissionDenied, e)),
                None => Ok(()),
            }
        };
        // SAFETY: the closure runs in the forked child before exec; it only takes an
        // already-built ruleset and makes the two system calls (prctl, landlock_restrict_self)
        // that restrict the calling process.
        unsafe {
            cmd.pre_exec(restrict);
        }
        Ok(())
    }

    /// Not Linux: no Landlock, so commands are refused (fail closed).
    #[cfg(not(target_os = "linux"))]
    pub fn apply(&self, _cmd: &mut Command) -> Result<(), SandboxError> {
        Err(SandboxError::Unavailable { why: "Landlock is Linux only".into(), way_out: self.way_out.clone() })
    }
}

/// The paths to grant beneath `root`: see the module doc. `places` are the protected paths
/// (relative) whose ancestors must not be granted whole; `protected` says whether a path
/// (relative) is itself protected.
fn grants(root: &Path, places: &[PathBuf], protected: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(root, Path::new(""), places, protected, &mut out);
    out
}

fn walk(root: &Path, rel: &Path, places: &[PathBuf], protected: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else { return };
    for entry in entries.flatten() {
        let r = rel.join(entry.file_name());
        if protected(&r) {
            continue;
        }
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() && places.iter().any(|p| p.starts_with(&r) && *p != r) {
            walk(root, &r, places, protected, out);
        } else if kind.is_dir() || kind.is_file() {
            out.push(root.join(&r));
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_sandboxed_child_writes_only_where_allowed_or_nothing_runs() {
        let inside = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(format!(
            "echo ok > {in}/a; echo no > {out}/b; echo quiet > /dev/null",
            in = inside.path().display(),
            out = outside.path().display()
        ));
        match Sandbox::writes_in(inside.path()).apply(&mut cmd) {
            Ok(()) => {
                let _ = cmd.status().unwrap();
                assert!(inside.path().join("a").exists(), "writes inside are allowed");
                assert!(!outside.path().join("b").exists(), "writes outside are refused");
            }
            // A kernel without Landlock: refused, with the way out named; accepted only when
            // the machine is known to lack it.
            Err(e) => {
                assert!(e.to_string().contains("policy.sandbox: false"), "{e}");
                assert!(std::env::var_os("CN_TEST_NO_LANDLOCK").is_some(), "no Landlock ABI 4 here: {e}");
                eprintln!(
                    "*** this kernel cannot sandbox: only the refusal was tested ({e}) ***",
                    e = cn_compute::Chain(&e)
                );
            }
        }
    }

    #[test]
    fn a_hub_is_granted_without_its_protected_parts() {
        let hub = tempfile::tempdir().unwrap();
        let h = hub.path();
        for d in [".git/hooks", "state/reflexes", "state/notes", "threads/inbox", "src"] {
            std::fs::create_dir_all(h.join(d)).unwrap();
        }
        for f in ["cn.yaml", "notes.txt", "state/peers.json", "state/tasks.json", "state/notes/core_seed.md", ".env"] {
            std::fs::write(h.join(f), "x").unwrap();
        }
        std::os::unix::fs::symlink("/etc", h.join("etc")).unwrap();
        let mut got: Vec<String> =
            Sandbox::for_hub(h).writable.iter().map(|p| p.strip_prefix(h).unwrap().display().to_string()).collect();
        got.sort();
        assert_eq!(got, ["notes.txt", "src", "state/tasks.json", "threads"]);
        let mut tree: Vec<String> =
            Sandbox::for_tree(h).writable.iter().map(|p| p.strip_prefix(h).unwrap().display().to_string()).collect();
        tree.sort();
        assert_eq!(tree, ["cn.yaml", "notes.txt", "src", "state", "threads"]);
    }
}
