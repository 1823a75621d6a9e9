//! What this kernel gives a sandbox without root, probed once per process:
//!
//! - Landlock's ABI version (writes beneath granted paths; TCP from ABI 4; signal and
//!   abstract-socket scoping from ABI 6);
//! - whether an unprivileged user, mount and PID namespace can be made and a bind mount
//!   made read-only in it (off where `kernel.unprivileged_userns_clone=0`, where AppArmor
//!   restricts user namespaces, in many containers);
//! - per directory, whether an overlay can be mounted on it in such a namespace (the
//!   throwaway view of a loop's tree).
//!
//! `CN_TEST_SANDBOX_WITHOUT` (a comma list of `namespaces`, `scope`, `overlay`) takes layers
//! away, so tests exercise the fallbacks of a kernel that lacks them on one that has them. It
//! can only remove a layer; the sandbox stays fail-closed whatever it says.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use super::mounts::Plan;

/// The sandboxing this kernel offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// Landlock's ABI version; 0 without Landlock.
    pub landlock: i32,
    /// An unprivileged user and mount namespace with read-only binds.
    pub namespaces: bool,
    /// Landlock's scoping of signals and abstract UNIX sockets (ABI 6, Linux 6.12).
    pub scope: bool,
    /// Layers taken away by `CN_TEST_SANDBOX_WITHOUT`.
    pub without: Vec<String>,
}

impl Kernel {
    /// One line for people: what sandboxes commands here.
    pub fn describe(&self) -> String {
        if self.landlock == 0 {
            return "no Landlock: sandboxed commands are refused".into();
        }
        let mut parts = Vec::new();
        if self.namespaces {
            parts.push("user and mount namespace (.git/ bound read-only)".to_string());
        }
        parts.push(format!("Landlock ABI {}", self.landlock));
        parts.push(if self.scope { "signals scoped by Landlock".into() } else { "signals filtered by seccomp".into() });
        let mut s = parts.join(", ");
        if !self.namespaces {
            s.push_str(
                "; no user namespaces, so an actuator cannot create new entries at the top of a loop's tree \
                 (name those folders in task.md, `sandbox: {write: [build]}`, and cn makes them)",
            );
        }
        if !self.without.is_empty() {
            s.push_str(&format!(" (CN_TEST_SANDBOX_WITHOUT={})", self.without.join(",")));
        }
        s
    }

    fn without(&self, layer: &str) -> bool {
        self.without.iter().any(|w| w == layer)
    }
}

/// The kernel's sandboxing, probed on first use.
pub fn kernel() -> &'static Kernel {
    static KERNEL: OnceLock<Kernel> = OnceLock::new();
    KERNEL.get_or_init(|| {
        let without: Vec<String> = std::env::var("CN_TEST_SANDBOX_WITHOUT")
            .unwrap_or_default()
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let landlock = landlock_abi();
        let mut k = Kernel { landlock, namespaces: false, scope: false, without };
        k.scope = landlock >= 6 && !k.without("scope");
        k.namespaces = !k.without("namespaces") && probe_namespaces();
        tracing::debug!(kernel = %k.describe(), "sandbox layers");
        k
    })
}

/// Whether an overlay can be mounted on `dir` (cached per directory).
pub fn overlay_works(dir: &Path) -> bool {
    let k = kernel();
    if !k.namespaces || k.without("overlay") {
        return false;
    }
    static SEEN: OnceLock<Mutex<HashMap<PathBuf, bool>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    if let Some(known) = seen.lock().ok().and_then(|m| m.get(dir).copied()) {
        return known;
    }
    let works = probe_overlay(dir);
    if let Ok(mut m) = seen.lock() {
        m.insert(dir.to_path_buf(), works);
    }
    works
}

fn landlock_abi() -> i32 {
    #[cfg(target_os = "linux")]
    {
        const VERSION: libc::c_uint = 1;
        // SAFETY: landlock_create_ruleset with a null attribute and the VERSION flag only
        // returns the ABI version (or fails); it touches no memory.
        let v = unsafe {
            libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<libc::c_void>(), 0usize, VERSION)
        };
        i32::try_from(v).unwrap_or(0).max(0)
    }
    #[cfg(not(target_os = "linux"))]
    0
}

fn probe_namespaces() -> bool {
    let Ok(dir) = tempfile::Builder::new().prefix("cn-probe-").tempdir() else { return false };
    match Plan::new(&[dir.path().to_path_buf()], None) {
        Ok(plan) => in_child(&plan.with_pid_namespace()),
        Err(_) => false,
    }
}

fn probe_overlay(dir: &Path) -> bool {
    let Ok(scratch) = tempfile::Builder::new().prefix("cn-probe-").tempdir() else { return false };
    match Plan::new(&[], None).and_then(|p| p.overlay(dir, scratch.path())) {
        Ok(plan) => in_child(&plan),
        Err(_) => false,
    }
}

/// Fork, enter `plan` in the child, report whether it could.
fn in_child(plan: &Plan) -> bool {
    // SAFETY: the child only runs `Plan::enter` (system calls on prepared data) and
    // `_exit`; the parent waits for it.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return false;
        }
        if pid == 0 {
            let code = if plan.enter().is_ok() { 0 } else { 1 };
            libc::_exit(code);
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                return false;
            }
        }
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
    }
}
