//! A sandbox for the commands cn runs (the shell action, command model providers, AI-loop
//! components, MCP stdio servers; `crate::child::Child::sandbox`), in layers, each from what
//! the kernel gives without root ([`kernel()`]):
//!
//! - **Landlock** (required, ABI 4: Linux 6.7): the child writes only beneath the paths
//!   given — the hub or the loop's tree without their protected parts, a private temporary
//!   directory, `/dev/null`, what cn.yaml or task.md grants — and, unless granted, opens no
//!   TCP connection and binds no TCP port. Where a sandbox names paths it may not read
//!   ([`Sandbox::unreadable`]: the hub's `.git/`, its tokens, secret files), reading is
//!   restricted too. Landlock also keeps the child from tracing (ptrace, `/proc/PID/mem`,
//!   `/proc/PID/environ`) any process outside its sandbox.
//! - **A user and mount namespace**, where the kernel allows one (Codex's and bubblewrap's
//!   way): protected paths inside a granted tree are bound read-only
//!   ([`Sandbox::read_only`]), so a loop's whole tree can be granted — build tools create
//!   `build/`, `target/`, `Cargo.lock` at its top — while `.git/` stays unwritable; an
//!   overlay gives a throwaway view ([`Sandbox::overlay`]).
//! - **Signals**: Landlock's scope (ABI 6: Linux 6.12) keeps signals inside the sandbox;
//!   without it a seccomp filter does ([`seccomp`]). The same filter refuses non-local
//!   sockets when there is no network (Landlock's rules cover TCP only).
//!
//! Without namespaces, a tree with protected parts is granted piecewise ([`grants`]): every
//! directory that holds no protected path is writable beneath; a directory that does is not
//! itself granted, its unprotected files may be written in place. So there a sandboxed child
//! cannot create a new top-level entry in a loop's tree; `sandbox: {write: [build]}` in
//! task.md names the top-level folders cn creates for it.
//!
//! Invariant: fail closed. Where the kernel cannot enforce what a sandbox asks (no Landlock, a
//! Landlock too old for network rules, read-only binds without namespaces, a namespace step
//! that fails in the child), nothing runs, and the refusal says how to run unsandboxed
//! ([`Sandbox::way_out`]); nothing runs half-sandboxed.

mod grants;
mod kernel;
#[cfg(target_os = "linux")]
mod mounts;
#[cfg(target_os = "linux")]
mod seccomp;

use std::path::{Path, PathBuf};
use std::process::Command;

pub use kernel::{kernel, overlay_works, Kernel};

/// What a sandboxed child may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// Paths the child may write: beneath a directory, in place for a file.
    pub writable: Vec<PathBuf>,
    /// Whether it may open TCP connections and bind TCP ports (and non-local sockets).
    pub network: bool,
    /// How the owner runs this command unsandboxed, for the refusal's message.
    pub way_out: String,
    /// Paths it may not read (empty: it reads everything).
    pub unreadable: Vec<PathBuf>,
    /// Paths bound read-only in a mount namespace (beneath a writable path). Non-empty only
    /// where [`Kernel::namespaces`]; a sandbox with them does not run without a namespace.
    pub read_only: Vec<PathBuf>,
    /// A throwaway view: writes beneath `dir` land in `scratch` (needs a namespace).
    pub overlay: Option<Overlay>,
}

/// An overlay on `dir`: the child sees `dir`; what it writes there goes to `scratch`, which
/// the caller removes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlay {
    pub dir: PathBuf,
    pub scratch: PathBuf,
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
    /// A step of the sandbox failed in the child, before the command ran.
    #[error("cannot sandbox the command: {doing} failed; nothing ran. To run it unsandboxed, set {way_out}")]
    Setup {
        doing: &'static str,
        way_out: String,
        #[source]
        source: std::io::Error,
    },
}

impl SandboxError {
    /// The sandbox's own failure in a spawn error, if that is what it is (a step in the
    /// child between fork and exec).
    pub fn from_spawn(e: &std::io::Error, way_out: &str) -> Option<SandboxError> {
        #[cfg(target_os = "linux")]
        if let Some((step, source)) = mounts::explain(e) {
            return Some(SandboxError::Setup { doing: step.doing(), way_out: way_out.to_string(), source });
        }
        let _ = (e, way_out);
        None
    }
}

impl Sandbox {
    fn with(writable: Vec<PathBuf>) -> Sandbox {
        Sandbox {
            writable,
            network: false,
            way_out: POLICY_WAY_OUT.into(),
            unreadable: Vec::new(),
            read_only: Vec::new(),
            overlay: None,
        }
    }

    /// Writes beneath `dir` only, no network.
    pub fn writes_in(dir: impl Into<PathBuf>) -> Sandbox {
        Sandbox::with(vec![dir.into()])
    }

    /// Writes nowhere (but `/dev/null` and the private temporary directory the child runner
    /// adds), no network.
    pub fn nothing() -> Sandbox {
        Sandbox::with(Vec::new())
    }

    /// The same, with `way_out` named in a refusal.
    pub fn way_out(mut self, way_out: impl Into<String>) -> Sandbox {
        self.way_out = way_out.into();
        self
    }

    /// Writes beneath `root` but not in what `protected` says (a `root`-relative path: cn's
    /// own files in a hub, `cn_hub::protect::cns`), no network. `places` are the
    /// `root`-relative paths that are or hold protected ones: granted piecewise (see the
    /// module doc), with or without namespaces, so nothing new at `root`'s top.
    pub fn writes_in_but(root: &Path, places: &[PathBuf], protected: &dyn Fn(&Path) -> bool) -> Sandbox {
        Sandbox::with(grants::grants(root, places, protected))
    }

    /// A working tree at `root`: it writes anywhere in it but its git directory (`.git/`, or
    /// the `.git` file and the directories it points to) and the top-level files `protected`
    /// names (a `root`-relative path: secret files, `cn_hub::Layout::read_protected`). No
    /// network. With namespaces (and `root` a repository's root) the protected paths are
    /// bound read-only and the tree granted whole; otherwise the tree is granted piecewise
    /// (no new top-level entries). What it may not read is the caller's to add.
    pub fn for_tree(root: &Path, protected: &dyn Fn(&Path) -> bool) -> Sandbox {
        Sandbox::for_tree_on(root, protected, kernel())
    }

    /// [`Sandbox::for_tree`] on a given kernel's layers.
    pub fn for_tree_on(root: &Path, protected: &dyn Fn(&Path) -> bool, k: &Kernel) -> Sandbox {
        // Namespaces only for a tree that is its repository's root: in a subdirectory of a
        // repository there is no `.git` to bind, and granting the directory whole would let
        // a command plant one there — which cn's own git would then obey.
        if k.namespaces && root.join(".git").symlink_metadata().is_ok() {
            let mut ro = git_paths(root);
            if let Ok(entries) = std::fs::read_dir(root) {
                for e in entries.flatten() {
                    if e.file_type().is_ok_and(|t| t.is_file()) && protected(Path::new(&e.file_name())) {
                        ro.push(e.path());
                    }
                }
            }
            let mut s = Sandbox::with(vec![root.to_path_buf()]);
            s.read_only = ro;
            s
        } else {
            let places = [PathBuf::from(".git")];
            Sandbox::with(grants::grants(root, &places, protected))
        }
    }

    /// `self` widened: TCP allowed or not as `network` says (`None`: as it was), and `write`
    /// added to what it may write (a `sandbox:` entry resolved by `cn_hub::SandboxSpec`).
    pub fn widen(mut self, network: Option<bool>, write: impl IntoIterator<Item = PathBuf>) -> Sandbox {
        if let Some(network) = network {
            self.network = network;
        }
        self.writable.extend(write);
        self
    }

    /// Also bind these read-only, where the kernel gives a user namespace (paths that do not
    /// exist are left out). Without one this adds nothing: the caller checks the paths after
    /// the run instead (as a loop does its files).
    pub fn protect(self, paths: impl IntoIterator<Item = PathBuf>) -> Sandbox {
        self.protect_on(paths, kernel())
    }

    /// [`Sandbox::protect`] on a given kernel's layers.
    pub fn protect_on(mut self, paths: impl IntoIterator<Item = PathBuf>, k: &Kernel) -> Sandbox {
        if k.namespaces {
            self.read_only.extend(paths.into_iter().filter(|p| p.symlink_metadata().is_ok()));
        }
        self
    }

    /// Whether this sandbox relies on a mount namespace (read-only binds or an overlay).
    pub fn in_namespace(&self) -> bool {
        !self.read_only.is_empty() || self.overlay.is_some()
    }

    /// Build the ruleset now (so an unsupported kernel is reported before anything runs) and
    /// have `cmd`'s child enter the namespace, restrict itself and install its filter
    /// between fork and exec (`pre_exec`).
    #[cfg(target_os = "linux")]
    pub fn apply(&self, cmd: &mut Command) -> Result<(), SandboxError> {
        self.apply_on(cmd, kernel())
    }

    /// [`Sandbox::apply`] with the layers of `k` (a subset of what this kernel gives).
    #[cfg(target_os = "linux")]
    pub fn apply_on(&self, cmd: &mut Command, k: &Kernel) -> Result<(), SandboxError> {
        use landlock::{
            Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset, RulesetAttr,
            RulesetCreatedAttr, Scope, ABI,
        };
        use std::os::fd::{AsRawFd, OwnedFd};
        use std::os::unix::process::CommandExt;

        let err = |why: &dyn std::fmt::Display| SandboxError::Unavailable {
            why: why.to_string(),
            way_out: self.way_out.clone(),
        };
        let abi = ABI::V4;
        let write = AccessFs::from_write(abi);
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(write)
            .map_err(|e| err(&e))?;
        if !self.unreadable.is_empty() {
            ruleset = ruleset.handle_access(AccessFs::ReadFile).map_err(|e| err(&e))?;
        }
        if !self.network {
            ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp).map_err(|e| err(&e))?;
        }
        if k.scope {
            ruleset = ruleset.scope(Scope::from_all(ABI::V6)).map_err(|e| err(&e))?;
        }
        let mut created = ruleset.create().map_err(|e| err(&e))?;
        let beneath_overlay = |p: &Path| self.overlay.as_ref().is_some_and(|o| p.starts_with(&o.dir));
        // A path that does not exist is left out: the child could not create it anyway.
        for path in self.writable.iter().filter(|p| p.exists() && !beneath_overlay(p)) {
            let fd = PathFd::new(path).map_err(|e| err(&format!("{}: {e}", path.display())))?;
            // A file takes only the rights a file can have (write, truncate): Landlock
            // refuses directory rights on a file.
            let access = if path.is_dir() { write } else { write & AccessFs::from_file(abi) };
            created = created.add_rule(PathBeneath::new(fd, access)).map_err(|e| err(&e))?;
        }
        let null = PathFd::new("/dev/null").map_err(|e| err(&e))?;
        created = created.add_rule(PathBeneath::new(null, write & AccessFs::from_file(abi))).map_err(|e| err(&e))?;
        if !self.unreadable.is_empty() {
            for path in grants::readable_except(&self.unreadable) {
                let Ok(fd) = PathFd::new(&path) else { continue };
                created = created.add_rule(PathBeneath::new(fd, AccessFs::ReadFile)).map_err(|e| err(&e))?;
            }
        }

        let plan = if self.in_namespace() {
            if !k.namespaces {
                return Err(err(
                    &"the sandbox binds paths read-only, which needs a user namespace this kernel does not give",
                ));
            }
            let existing: Vec<PathBuf> =
                self.read_only.iter().filter(|p| p.symlink_metadata().is_ok()).cloned().collect();
            let mut plan =
                mounts::Plan::new(&existing, cmd.get_current_dir()).map_err(|e| err(&e))?.with_pid_namespace();
            if let Some(o) = &self.overlay {
                plan = plan
                    .overlay(&o.dir, &o.scratch)
                    .map_err(|e| err(&format!("overlay on {}: {e}", o.dir.display())))?;
            }
            Some(plan)
        } else {
            None
        };
        // The overlay's root exists only in the child: its write rule is added there, on a
        // second handle of the same ruleset.
        let overlay_rule = match &self.overlay {
            Some(o) => {
                let dup: Option<OwnedFd> = created.try_clone().map_err(|e| err(&e))?.into();
                let dup = dup.ok_or_else(|| err(&"no Landlock ruleset"))?;
                let dir = std::ffi::CString::new(o.dir.as_os_str().as_encoded_bytes()).map_err(|e| err(&e))?;
                Some((dup, dir, write.bits()))
            }
            None => None,
        };
        // Without a PID namespace the command's processes are held in its process group.
        let mut filter = seccomp::Filter::new(!self.network, !k.scope, plan.is_none()).map_err(|e| err(&e))?;
        let caps = mounts::DropCaps::for_this_process();
        keep_to_itself();
        let mut ruleset = Some(created);
        let step = move || -> std::io::Result<()> {
            // SAFETY (whole body): in the forked child before exec. `enter` makes system
            // calls on prepared data; the rest opens one path, adds one rule, restricts the
            // process and installs a prepared filter — no allocation.
            unsafe {
                // A session of its own: no controlling terminal, so no `TIOCSTI` typing into
                // the owner's shell (bubblewrap's `--new-session`, for the same reason); and
                // its own process group, which cn kills whole.
                if libc::setsid() < 0 {
                    return Err(mounts::step_error(mounts::Step::Session));
                }
                if let Some(plan) = &plan {
                    plan.enter()?;
                }
                if let Some((ruleset_fd, dir, access)) = &overlay_rule {
                    add_rule_raw(ruleset_fd.as_raw_fd(), dir, *access)?;
                }
                if let Some(caps) = &caps {
                    caps.drop_all()?;
                }
                if let Some(r) = ruleset.take() {
                    r.restrict_self().map_err(|_| mounts::step_error(mounts::Step::Landlock))?;
                }
                if let Some(f) = filter.as_mut() {
                    f.install().map_err(|_| mounts::step_error(mounts::Step::Seccomp))?;
                }
            }
            Ok(())
        };
        // SAFETY: the closure runs in the forked child before exec and only makes system
        // calls on data prepared here (see `step`).
        unsafe {
            cmd.pre_exec(step);
        }
        Ok(())
    }

    /// Not Linux: no Landlock, so commands are refused (fail closed).
    #[cfg(not(target_os = "linux"))]
    pub fn apply(&self, _cmd: &mut Command) -> Result<(), SandboxError> {
        Err(SandboxError::Unavailable { why: "Landlock is Linux only".into(), way_out: self.way_out.clone() })
    }
}

/// cn's memory and environment (its API keys) are not for the children it sandboxes: a
/// process that is not dumpable can be traced — `/proc/PID/environ`, `/proc/PID/mem`, ptrace
/// — only with `CAP_SYS_PTRACE` in cn's user namespace, which a sandboxed child never has
/// (it drops its capabilities or lives in a namespace of its own). Landlock alone refuses
/// attaching but not reading `environ`. Set once, on the first sandboxed child.
#[cfg(target_os = "linux")]
fn keep_to_itself() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: prctl with integer arguments on the calling process.
        if unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) } != 0 {
            tracing::warn!(error = %std::io::Error::last_os_error(), "cannot make cn undumpable");
        }
    });
}

/// `landlock_add_rule` for a path opened now (in the child, after its mounts).
///
/// # Safety
/// Between fork and exec: open, one system call, close.
#[cfg(target_os = "linux")]
unsafe fn add_rule_raw(ruleset: i32, dir: &std::ffi::CStr, access: u64) -> std::io::Result<()> {
    #[repr(C, packed)]
    struct PathBeneathAttr {
        allowed_access: u64,
        parent_fd: i32,
    }
    const LANDLOCK_RULE_PATH_BENEATH: libc::c_int = 1;
    // SAFETY: a NUL-terminated path; the attribute lives across the call.
    unsafe {
        let fd = libc::open(dir.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(mounts::step_error(mounts::Step::Landlock));
        }
        let attr = PathBeneathAttr { allowed_access: access, parent_fd: fd };
        let r = libc::syscall(libc::SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0u32);
        let failed = (r != 0).then(|| mounts::step_error(mounts::Step::Landlock));
        libc::close(fd);
        failed.map_or(Ok(()), Err)
    }
}

/// The tree's git directory: `.git/`, or a `.git` file (a worktree or submodule) and the
/// directories it points to (its `gitdir:` and that one's `commondir`, where hooks live).
fn git_paths(root: &Path) -> Vec<PathBuf> {
    let dot = root.join(".git");
    let mut out = Vec::new();
    let Ok(meta) = dot.symlink_metadata() else { return out };
    out.push(dot.clone());
    if meta.is_file() {
        let Some(gitdir) = std::fs::read_to_string(&dot)
            .ok()
            .and_then(|t| t.trim().strip_prefix("gitdir:").map(|g| root.join(g.trim())))
        else {
            return out;
        };
        if let Ok(common) = std::fs::read_to_string(gitdir.join("commondir")) {
            out.push(gitdir.join(common.trim()));
        }
        out.push(gitdir);
    }
    out
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

    /// What `cn_hub::Layout::read_protected` says of a tree holding only `.git` and sources.
    fn git_only(rel: &Path) -> bool {
        rel.components().any(|c| c.as_os_str() == ".git")
    }

    #[test]
    fn a_worktrees_git_file_protects_the_directories_it_points_to() {
        let d = tempfile::tempdir().unwrap();
        let main = d.path().join("main/.git");
        std::fs::create_dir_all(main.join("worktrees/w")).unwrap();
        std::fs::write(main.join("worktrees/w/commondir"), "../..\n").unwrap();
        let tree = d.path().join("w");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::write(tree.join(".git"), format!("gitdir: {}\n", main.join("worktrees/w").display())).unwrap();
        let got = git_paths(&tree);
        assert_eq!(got[0], tree.join(".git"));
        assert!(got.iter().any(|p| p.canonicalize().ok() == main.canonicalize().ok()), "{got:?}");
        assert!(got.contains(&main.join("worktrees/w")), "{got:?}");
    }

    /// Every combination of layers this kernel has: what a loop component may and may not do.
    #[test]
    fn each_layer_combination_holds_the_tree_signals_traces_and_sockets() {
        let real = kernel();
        if real.landlock < 4 {
            assert!(std::env::var_os("CN_TEST_NO_LANDLOCK").is_some(), "no Landlock ABI 4 here");
            return;
        }
        let mut combos = Vec::new();
        for namespaces in [false, true] {
            for scope in [false, true] {
                if (namespaces && !real.namespaces) || (scope && !real.scope) {
                    eprintln!(
                        "*** this kernel lacks {}: that combination is not tested here ***",
                        if namespaces && !real.namespaces { "user namespaces" } else { "Landlock scoping" }
                    );
                    continue;
                }
                combos.push(Kernel { landlock: real.landlock, namespaces, scope, without: Vec::new() });
            }
        }
        for k in combos {
            let d = tempfile::tempdir().unwrap();
            let tree = d.path().join("tree");
            std::fs::create_dir_all(tree.join(".git/hooks")).unwrap();
            std::fs::create_dir_all(tree.join("src")).unwrap();
            std::fs::write(tree.join(".git/config"), "[core]\n").unwrap();
            let me = std::process::id();
            let script = format!(
                "echo a > src/a && echo wrote-src; \
                 mkdir build 2>/dev/null && echo made-top; \
                 echo x >> .git/config 2>/dev/null && echo wrote-git; \
                 echo x > .git/hooks/post-commit 2>/dev/null && echo wrote-hook; \
                 kill -0 {me} 2>/dev/null && echo signalled-parent; \
                 kill -0 -$(ps -o pgid= {me} | tr -d ' ') 2>/dev/null && echo signalled-group; \
                 (sleep 5 & kill $! && echo signalled-own-child); \
                 kill -0 0 && echo signalled-own-group; \
                 cat /proc/{me}/environ >/dev/null 2>&1 && echo read-environ; \
                 (exec 3<>/dev/udp/127.0.0.1/9) 2>/dev/null && echo udp-socket; \
                 (exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null && echo tcp-socket; \
                 echo done"
            );
            let mut cmd = Command::new("bash");
            cmd.arg("-c").arg(script).current_dir(&tree).stdin(std::process::Stdio::null());
            Sandbox::for_tree_on(&tree, &git_only, &k).apply_on(&mut cmd, &k).unwrap();
            let out = cmd.output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let has = |w: &str| text.lines().any(|l| l == w);
            assert!(has("wrote-src") && has("done"), "{k:?}: {text} {}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(has("made-top"), k.namespaces, "{k:?}: {text}");
            for never in [
                "wrote-git",
                "wrote-hook",
                "signalled-parent",
                "signalled-group",
                "read-environ",
                "udp-socket",
                "tcp-socket",
            ] {
                assert!(!has(never), "{k:?}: {never}: {text}");
            }
            assert!(has("signalled-own-child") && has("signalled-own-group"), "{k:?}: {text}");
            assert_eq!(std::fs::read_to_string(tree.join(".git/config")).unwrap(), "[core]\n");
        }
    }

    #[test]
    fn an_overlay_is_a_throwaway_view() {
        let d = tempfile::tempdir().unwrap();
        let tree = d.path().join("tree");
        std::fs::create_dir_all(tree.join(".git")).unwrap();
        std::fs::write(tree.join("A.java"), "class A {}\n").unwrap();
        if !overlay_works(&tree) {
            eprintln!(
                "*** no overlay in a user namespace here ({}): the throwaway view is a copy (tested in cn-loops) ***",
                kernel().describe()
            );
            return;
        }
        let scratch = tempfile::tempdir().unwrap();
        let mut sandbox = Sandbox::for_tree(&tree, &git_only);
        sandbox.overlay = Some(Overlay { dir: tree.clone(), scratch: scratch.path().to_path_buf() });
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg("echo changed > A.java && mkdir -p build/classes && touch build/classes/A.class && cat A.java && echo x > .git/x")
            .current_dir(&tree);
        sandbox.apply(&mut cmd).unwrap();
        let out = cmd.output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "changed\n", "{}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.status.success(), ".git stays read-only in the view too");
        assert_eq!(std::fs::read_to_string(tree.join("A.java")).unwrap(), "class A {}\n");
        assert!(!tree.join("build").exists());
        assert!(scratch.path().join("upper/build/classes/A.class").exists());
    }
}
