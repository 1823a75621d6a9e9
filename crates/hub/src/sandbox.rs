//! A sandbox for the commands cn runs for a model (the shell action; the lead wires it into
//! the one child-process runner): with Landlock, the child may write only beneath the
//! directories given (the hub, or the loop's working tree, plus `/dev/null`) and, unless
//! granted, open no TCP connection and bind no TCP port. Reading stays allowed.
//!
//! Invariant: fail closed. Where the kernel cannot enforce all of it (no Landlock, or a
//! Landlock too old for network rules), [`Sandbox::apply`] refuses with a message that says
//! how to run unsandboxed (`policy.sandbox: false` in cn.yaml); nothing runs half-sandboxed.

use std::path::PathBuf;
use std::process::Command;

/// What a sandboxed child may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Directories the child may write beneath.
    pub writable: Vec<PathBuf>,
    /// Whether it may open TCP connections and bind TCP ports.
    pub network: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error(
        "cannot sandbox the command ({0}); cn runs commands only inside a Landlock sandbox (Linux 6.7+ with Landlock enabled). \
         To run them unsandboxed, set `policy.sandbox: false` in cn.yaml"
    )]
    Unavailable(String),
}

impl Sandbox {
    /// Writes beneath `dir` only, no network.
    pub fn writes_in(dir: impl Into<PathBuf>) -> Sandbox {
        Sandbox { writable: vec![dir.into()], network: false }
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

        let err = |e: &dyn std::fmt::Display| SandboxError::Unavailable(e.to_string());
        let abi = ABI::V4;
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_write(abi))
            .map_err(|e| err(&e))?;
        if !self.network {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp).map_err(|e| err(&e))?;
        }
        let mut created = ruleset.create().map_err(|e| err(&e))?;
        for dir in &self.writable {
            let fd = PathFd::new(dir).map_err(|e| err(&format!("{}: {e}", dir.display())))?;
            created = created.add_rule(PathBeneath::new(fd, AccessFs::from_write(abi))).map_err(|e| err(&e))?;
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
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::PermissionDenied, e.to_string())),
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
        Err(SandboxError::Unavailable("Landlock is Linux only".into()))
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
            // A kernel without Landlock: refused, with the way out named.
            Err(e) => assert!(e.to_string().contains("policy.sandbox: false"), "{e}"),
        }
    }
}
