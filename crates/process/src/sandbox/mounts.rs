//! The mount namespace of a sandboxed child (Linux, no root needed): what `bubblewrap` and
//! Codex's Linux sandbox do for a writable workspace. Between fork and exec the child enters
//! a new user namespace (mapping its own uid and gid to themselves) and a new mount namespace
//! whose mounts are private, then binds each protected path onto itself and remounts it
//! read-only, so the tree around it can be granted whole (new top-level files and folders
//! included) while `.git/` stays unwritable. An optional overlay gives a throwaway view of a
//! directory: reads see it, writes land in a scratch directory that is thrown away.
//!
//! Landlock is applied after the mounts (a read-only mount holds whatever Landlock grants, and
//! a Landlock-restricted process can change no mount), so the mounts cannot be undone.
//!
//! Invariant: [`Plan::enter`] runs in the forked child of a multithreaded process, so it only
//! makes system calls on data prepared beforehand: no allocation, no lock.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Where [`Plan::enter`] failed; carried in the spawn error's code ([`step_error`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub(crate) enum Step {
    Unshare = 1,
    Setgroups,
    UidMap,
    GidMap,
    Private,
    Overlay,
    Bind,
    Remount,
    Chdir,
    Landlock,
    Seccomp,
    Capabilities,
    Fork,
    Session,
}

impl Step {
    /// Every step, in their codes' order.
    const ALL: [Step; 14] = [
        Step::Unshare,
        Step::Setgroups,
        Step::UidMap,
        Step::GidMap,
        Step::Private,
        Step::Overlay,
        Step::Bind,
        Step::Remount,
        Step::Chdir,
        Step::Landlock,
        Step::Seccomp,
        Step::Capabilities,
        Step::Fork,
        Step::Session,
    ];

    fn from_code(n: i32) -> Option<Step> {
        Step::ALL.into_iter().find(|s| *s as i32 == n)
    }

    pub(crate) fn doing(self) -> &'static str {
        match self {
            Step::Unshare => "entering a new user and mount namespace",
            Step::Setgroups | Step::UidMap | Step::GidMap => "mapping its user and group in the namespace",
            Step::Private => "making its mounts private",
            Step::Overlay => "mounting the throwaway overlay",
            Step::Bind | Step::Remount => "binding a protected path read-only",
            Step::Chdir => "entering its directory",
            Step::Landlock => "adding a Landlock rule",
            Step::Seccomp => "installing its seccomp filter",
            Step::Capabilities => "dropping its capabilities",
            Step::Fork => "starting it as the first process of its PID namespace",
            Step::Session => "giving it a session of its own",
        }
    }
}

/// Above any errno: a spawn error whose code is at least this came from a sandbox step.
const STEP_SHIFT: i32 = 16;

/// An error for the child to return from `pre_exec`: the step and the errno in one code
/// (the standard library passes only the code back to the parent).
pub(crate) fn step_error(step: Step) -> io::Error {
    step_errno(step, io::Error::last_os_error().raw_os_error().unwrap_or(0))
}

fn step_errno(step: Step, errno: i32) -> io::Error {
    io::Error::from_raw_os_error(((step as i32) << STEP_SHIFT) | (errno & 0xffff))
}

/// The step and the underlying error of a spawn error made by [`step_error`].
pub(crate) fn explain(e: &io::Error) -> Option<(Step, io::Error)> {
    let code = e.raw_os_error()?;
    let step = Step::from_code(code >> STEP_SHIFT)?;
    Some((step, io::Error::from_raw_os_error(code & 0xffff)))
}

/// What the child sets up, prepared in the parent.
pub(crate) struct Plan {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Each protected path with the flags its mount already has (a remount in a user
    /// namespace must keep the locked ones: `nosuid`, `nodev`, the atime mode …).
    read_only: Vec<(CString, libc::c_ulong)>,
    /// An overlay mounted on this directory: `(target, options)`.
    overlay: Option<(CString, CString)>,
    /// Entered again after the mounts (the directory the child was given may be beneath an
    /// overlay now).
    cwd: Option<CString>,
    /// A PID namespace too: the command runs as its first process, so every process it
    /// starts dies with it (the kernel kills a namespace whose first process exits) and no
    /// pid it can name is outside. The forked child stays outside as its parent, relays its
    /// exit status and holds nothing else open.
    pid: bool,
}

fn c_path(p: &Path) -> io::Result<CString> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in a path"))
}

impl Plan {
    pub(crate) fn new(read_only: &[std::path::PathBuf], cwd: Option<&Path>) -> io::Result<Plan> {
        // SAFETY: getuid/getgid only read the calling process's credentials.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let mut ro = Vec::new();
        for p in read_only {
            let c = c_path(p)?;
            ro.push((c.clone(), locked_flags(&c)?));
        }
        Ok(Plan {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            read_only: ro,
            overlay: None,
            cwd: cwd.map(c_path).transpose()?,
            pid: false,
        })
    }

    /// Run the command in a PID namespace of its own (see [`Plan::pid`]).
    pub(crate) fn with_pid_namespace(mut self) -> Plan {
        self.pid = true;
        self
    }

    /// An overlay on `dir` whose writes go to `scratch` (which holds `upper/` and `work/`).
    pub(crate) fn overlay(mut self, dir: &Path, scratch: &Path) -> io::Result<Plan> {
        let upper = scratch.join("upper");
        let work = scratch.join("work");
        std::fs::create_dir_all(&upper)?;
        std::fs::create_dir_all(&work)?;
        let escape = |p: &Path| -> io::Result<String> {
            let s =
                p.to_str().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "a path that is not UTF-8"))?;
            if s.contains([',', ':', '\\']) {
                return Err(io::Error::new(io::ErrorKind::InvalidInput, "a path with `,`, `:` or `\\`"));
            }
            Ok(s.to_string())
        };
        let options =
            format!("lowerdir={},upperdir={},workdir={},userxattr", escape(dir)?, escape(&upper)?, escape(&work)?);
        self.overlay = Some((c_path(dir)?, CString::new(options)?));
        Ok(self)
    }

    /// In the child between fork and exec: enter the namespaces and make the mounts.
    ///
    /// # Safety
    /// Call only in a forked child before exec (it changes the calling process's namespaces).
    pub(crate) unsafe fn enter(&self) -> io::Result<()> {
        // SAFETY (whole body): system calls on NUL-terminated strings and buffers owned by
        // `self`, which outlives the calls; nothing is allocated.
        unsafe {
            let pid = if self.pid { libc::CLONE_NEWPID } else { 0 };
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS | pid) != 0 {
                return Err(step_error(Step::Unshare));
            }
            // Kernels before 3.19 have no setgroups file; then the gid map needs no deny.
            match write_proc(c"/proc/self/setgroups", b"deny") {
                Ok(()) | Err(libc::ENOENT) => {}
                Err(errno) => return Err(step_errno(Step::Setgroups, errno)),
            }
            write_proc(c"/proc/self/uid_map", &self.uid_map).map_err(|e| step_errno(Step::UidMap, e))?;
            write_proc(c"/proc/self/gid_map", &self.gid_map).map_err(|e| step_errno(Step::GidMap, e))?;
            let none = std::ptr::null();
            if libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()) != 0 {
                return Err(step_error(Step::Private));
            }
            if let Some((target, options)) = &self.overlay {
                if libc::mount(c"overlay".as_ptr(), target.as_ptr(), c"overlay".as_ptr(), 0, options.as_ptr().cast())
                    != 0
                {
                    return Err(step_error(Step::Overlay));
                }
            }
            for (path, flags) in &self.read_only {
                if libc::mount(path.as_ptr(), path.as_ptr(), none, libc::MS_BIND | libc::MS_REC, std::ptr::null()) != 0
                {
                    return Err(step_error(Step::Bind));
                }
                let remount = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | flags;
                if libc::mount(none, path.as_ptr(), none, remount, std::ptr::null()) != 0 {
                    return Err(step_error(Step::Remount));
                }
            }
            if self.pid {
                match libc::fork() {
                    n if n < 0 => return Err(step_error(Step::Fork)),
                    0 => {
                        // It dies with the process outside that relays for it, and with it
                        // every process of the namespace: a cn killed mid-run leaves nothing.
                        // (Its parent is outside the namespace, where getppid cannot see
                        // it: a relay killed in the few calls before this one is missed.)
                        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                            return Err(step_error(Step::Fork));
                        }
                        // The namespace's first process: its own /proc where the kernel
                        // allows one (cn is not in it); the host's otherwise, whose pids
                        // this namespace cannot name anyway.
                        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
                        let _ =
                            libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), flags, std::ptr::null());
                    }
                    inner => relay(inner),
                }
            }
            if let Some(cwd) = &self.cwd {
                if libc::chdir(cwd.as_ptr()) != 0 {
                    return Err(step_error(Step::Chdir));
                }
            }
        }
        Ok(())
    }
}

/// The parent outside the PID namespace: close every descriptor but the standard three (the
/// standard library's exec-status pipe among them, so the spawn returns once the inner
/// process has exec'd), wait for the inner process and end as it did.
///
/// # Safety
/// Between fork and exec: close, waitpid, signal, kill, _exit.
unsafe fn relay(inner: libc::pid_t) -> ! {
    // SAFETY: system calls on integers and a local status word.
    unsafe {
        if libc::syscall(libc::SYS_close_range, 3u32, u32::MAX, 0u32) != 0 {
            for fd in 3..4096 {
                libc::close(fd);
            }
        }
        let mut status = 0;
        loop {
            let r = libc::waitpid(inner, &mut status, 0);
            if r == inner {
                break;
            }
            if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                libc::_exit(127);
            }
        }
        if libc::WIFSIGNALED(status) {
            let sig = libc::WTERMSIG(status);
            libc::signal(sig, libc::SIG_DFL);
            libc::kill(libc::getpid(), sig);
            libc::_exit(128 + sig);
        }
        libc::_exit(libc::WEXITSTATUS(status))
    }
}

/// Write a whole small buffer to a `/proc` file; the errno on failure.
///
/// # Safety
/// Between fork and exec: only open, write and close.
unsafe fn write_proc(path: &std::ffi::CStr, bytes: &[u8]) -> Result<(), i32> {
    let errno = || io::Error::last_os_error().raw_os_error().unwrap_or(0);
    // SAFETY: a NUL-terminated path and a buffer with its length.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(errno());
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let failed = (n != bytes.len() as isize).then(errno);
        libc::close(fd);
        match failed {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The per-mount flags a read-only remount of `path` must keep: in a user namespace the
/// kernel refuses to clear `nosuid`, `nodev`, `noexec` or change the atime mode of a mount
/// inherited from the parent namespace.
fn locked_flags(path: &CString) -> io::Result<libc::c_ulong> {
    // SAFETY: statvfs fills the zeroed struct for a NUL-terminated path.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let f = st.f_flag;
    let mut flags = 0;
    for (st_flag, ms_flag) in [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
    ] {
        if f & st_flag != 0 {
            flags |= ms_flag;
        }
    }
    flags |= if f & libc::ST_NOATIME != 0 {
        libc::MS_NOATIME
    } else if f & libc::ST_RELATIME != 0 {
        libc::MS_RELATIME
    } else {
        libc::MS_STRICTATIME
    };
    Ok(flags)
}

/// What a child of a root cn drops before exec: every capability, so that as root (or as
/// root of its user namespace) it cannot trace cn (`CAP_SYS_PTRACE`), read what its
/// permissions forbid (`CAP_DAC_*`), load modules, or anything else root may.
pub(crate) struct DropCaps {
    /// The highest capability number this kernel knows (`/proc/sys/kernel/cap_last_cap`).
    last: libc::c_ulong,
}

impl DropCaps {
    /// `None` when cn does not run as root: its children have no capabilities to drop
    /// (and `no_new_privs`, which Landlock sets, keeps set-uid programs from giving any).
    pub(crate) fn for_this_process() -> Option<DropCaps> {
        // SAFETY: geteuid only reads the calling process's credentials.
        if unsafe { libc::geteuid() } != 0 {
            return None;
        }
        let last = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(63);
        Some(DropCaps { last })
    }

    /// # Safety
    /// Between fork and exec: prctl and capset only.
    pub(crate) unsafe fn drop_all(&self) -> io::Result<()> {
        #[repr(C)]
        struct Header {
            version: u32,
            pid: i32,
        }
        #[repr(C)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        const VERSION_3: u32 = 0x2008_0522;
        // SAFETY: prctl with integer arguments; capset with a header and two data entries
        // that outlive the call.
        unsafe {
            for cap in 0..=self.last {
                if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0
                    && io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
                {
                    return Err(step_error(Step::Capabilities));
                }
            }
            let _ = libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
            let mut header = Header { version: VERSION_3, pid: 0 };
            let data = [
                Data { effective: 0, permitted: 0, inheritable: 0 },
                Data { effective: 0, permitted: 0, inheritable: 0 },
            ];
            if libc::syscall(libc::SYS_capset, &mut header, data.as_ptr()) != 0 {
                return Err(step_error(Step::Capabilities));
            }
        }
        Ok(())
    }
}
