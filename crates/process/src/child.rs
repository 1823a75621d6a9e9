//! The one runner for child processes cn starts on someone's behalf: the `shell` action,
//! command model providers, AI-loop components. A builder over [`std::process::Command`]:
//!
//! - the environment is cleared, then only [`BASE_ENV`] (a minimal `PATH`, `HOME`, `LANG` …)
//!   and the names the caller (from `cn.yaml`) allows are passed — an API key in cn's own
//!   environment never reaches a child that was not given it;
//! - a working directory, stdin bytes (fed from a thread), a timeout;
//! - stdout and stderr read as they come, each kept up to a cap; a child that writes past
//!   the cap is stopped (its output is cut there, [`ChildOutput::truncated`]);
//! - its own process group, and the whole group is SIGKILLed on timeout, on cap, when the
//!   child exits (so a grandchild left holding stdout cannot keep cn waiting) and on drop.
//!
//! [`Child::configure`] gives the caller the `Command` just before it is spawned: that is
//! where a sandbox (`pre_exec`) is installed.
//!
//! Invariant: [`Child::run`] returns within its timeout plus a short grace, whatever the
//! child and its descendants do (a descendant that left the group and holds a pipe is
//! abandoned, not waited for).

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Variables every child gets from cn's environment (when cn has them): enough to find
/// programs, a home and a locale; nothing secret. Every `LC_*` variable is passed too.
pub const BASE_ENV: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER", "TZ"];

/// What a child's cleared environment starts from: [`BASE_ENV`], every `LC_*`, then `names`
/// (those cn has), and a default `PATH` when cn has none. Git uses it too
/// (`crate::git::Git`).
pub fn base_env<S: AsRef<str>>(names: &[S]) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = Vec::new();
    let wanted = BASE_ENV.iter().copied().chain(names.iter().map(AsRef::as_ref));
    for name in wanted {
        if let Some(v) = std::env::var_os(name) {
            env.push((name.into(), v));
        }
    }
    for (k, v) in std::env::vars_os() {
        if k.to_str().is_some_and(|k| k.starts_with("LC_") && k != "LC_ALL") {
            env.push((k, v));
        }
    }
    if std::env::var_os("PATH").is_none() {
        env.push(("PATH".into(), DEFAULT_PATH.into()));
    }
    env
}

/// `PATH` when cn itself has none.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// How long the pipes are still read after the child exited (or was killed).
const GRACE: Duration = Duration::from_millis(500);

#[derive(Debug, thiserror::Error)]
pub enum ChildError {
    #[error("cannot run `{program}`")]
    Spawn { program: String, source: std::io::Error },
    #[error("`{program}` ran past its time limit of {after:?} and was killed (with its process group)")]
    TimedOut { program: String, after: Duration, output: Box<ChildOutput> },
    /// The sandbox asked for cannot be set up here (fail closed: nothing ran).
    #[error(transparent)]
    Sandbox(#[from] crate::sandbox::SandboxError),
}

/// What a finished child left.
#[derive(Debug, Clone)]
pub struct ChildOutput {
    /// `None` when cn killed it (timeout or cap) before it exited on its own.
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Output went past the cap: what is here is the first `cap` bytes, and the child was
    /// stopped.
    pub truncated: bool,
    pub elapsed: Duration,
}

impl ChildOutput {
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }
}

/// A child process to run: see the module doc.
pub struct Child {
    program: OsString,
    args: Vec<OsString>,
    cwd: Option<PathBuf>,
    pass: Vec<String>,
    set: Vec<(OsString, OsString)>,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
    cap: usize,
    merge: bool,
    configure: Vec<Configure>,
    sandbox: Option<crate::sandbox::Sandbox>,
}

/// The child is SIGKILLed when cn dies (`PR_SET_PDEATHSIG`): a `cn` killed mid-run leaves no
/// component running on unwatched. Only for [`Child::run`], whose spawning thread is the one
/// that waits (the signal follows the thread that forked, not the process). A sandbox in a
/// PID namespace does the same for the namespace's first process (`sandbox::mounts`).
fn die_with_cn(cmd: &mut Command) {
    // SAFETY: getpid only reads the calling process's id.
    let cn = unsafe { libc::getpid() };
    // SAFETY: between fork and exec: prctl and getppid, no allocation.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            // cn died before the signal was armed: end now, as the signal would have.
            if libc::getppid() != cn {
                libc::_exit(137);
            }
            Ok(())
        });
    }
}

/// A change to the `Command` made just before it is spawned.
type Configure = Box<dyn FnOnce(&mut Command) + Send>;

impl Child {
    /// `program` with no arguments; 60 s and 1 MiB until told otherwise.
    pub fn new(program: impl AsRef<OsStr>) -> Self {
        Child {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            cwd: None,
            pass: Vec::new(),
            set: Vec::new(),
            stdin: None,
            timeout: Duration::from_secs(60),
            cap: 1 << 20,
            merge: false,
            configure: Vec::new(),
            sandbox: None,
        }
    }

    /// `sh -c line`.
    pub fn shell(line: &str) -> Self {
        Child::new("sh").arg("-c").arg(line)
    }

    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Self {
        self.args.push(a.as_ref().to_owned());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Pass these variables from cn's environment (those that are set), besides [`BASE_ENV`].
    pub fn pass_env<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, names: I) -> Self {
        self.pass.extend(names.into_iter().map(|n| n.as_ref().to_string()));
        self
    }

    /// Set a variable for the child.
    pub fn env(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.set.push((name.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Bytes for the child's stdin (otherwise stdin is `/dev/null`).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// Most bytes kept of stdout (and, separately, of stderr).
    pub fn max_output(mut self, bytes: usize) -> Self {
        self.cap = bytes;
        self
    }

    /// stderr into the same pipe as stdout, in the order written (`stderr` stays empty).
    pub fn merge_stderr(mut self) -> Self {
        self.merge = true;
        self
    }

    /// Change the `Command` just before spawning (a sandbox's `pre_exec`, say). Runs after
    /// the environment, directory and process group are set.
    pub fn configure(mut self, f: impl FnOnce(&mut Command) + Send + 'static) -> Self {
        self.configure.push(Box::new(f));
        self
    }

    /// Run inside `sandbox` (Landlock): where the kernel cannot enforce it, `run` refuses
    /// with [`ChildError::Sandbox`] and nothing runs.
    pub fn sandbox(mut self, sandbox: crate::sandbox::Sandbox) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// The program's name for messages.
    pub fn program(&self) -> String {
        self.program.to_string_lossy().into_owned()
    }

    fn command(&mut self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args).env_clear().envs(base_env(&self.pass));
        for (k, v) in &self.set {
            cmd.env(k, v);
        }
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        // Its own process group, killed whole (a sandboxed child makes its own session,
        // which is a new group too: `crate::sandbox`).
        if self.sandbox.is_none() {
            cmd.process_group(0);
        }
        for f in self.configure.drain(..) {
            f(&mut cmd);
        }
        cmd
    }

    /// Start a long-lived child that talks on its stdin and stdout (an MCP server on stdio):
    /// the same cleared environment, directory and own process group as [`Child::run`]'s,
    /// stderr discarded. The time limit and the cap do not apply: the caller bounds each
    /// exchange. Dropping the [`Spawned`] kills the whole group.
    pub fn spawn(mut self) -> Result<Spawned, ChildError> {
        let program = self.program();
        let mut cmd = self.command();
        let tmp = self.confine(&mut cmd)?;
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let child = cmd.spawn().map_err(|source| self.spawn_error(program, source))?;
        let group = Group(child.id());
        Ok(Spawned { child, _group: group, _tmp: tmp })
    }

    /// A spawn error, or the sandbox's own failure in the child (a namespace step, Landlock,
    /// the seccomp filter) when that is what it was.
    fn spawn_error(&self, program: String, source: std::io::Error) -> ChildError {
        match self.sandbox.as_ref().and_then(|s| crate::sandbox::SandboxError::from_spawn(&source, &s.way_out)) {
            Some(e) => ChildError::Sandbox(e),
            None => ChildError::Spawn { program, source },
        }
    }

    /// Install the sandbox, if one was asked for, with a private temporary directory (the
    /// child's `TMPDIR`, removed when the returned handle drops): the only temp it may write.
    fn confine(&self, cmd: &mut Command) -> Result<Option<tempfile::TempDir>, ChildError> {
        let Some(sandbox) = &self.sandbox else { return Ok(None) };
        let tmp = tempfile::Builder::new().prefix("cn-child-").tempdir().map_err(|e| {
            crate::sandbox::SandboxError::Unavailable {
                why: format!("cannot make its temporary directory: {e}", e = cn_compute::Chain(&e)),
                way_out: sandbox.way_out.clone(),
            }
        })?;
        let mut sandbox = sandbox.clone();
        sandbox.writable.push(tmp.path().to_path_buf());
        sandbox.apply(cmd)?;
        cmd.env("TMPDIR", tmp.path());
        Ok(Some(tmp))
    }

    /// Run to the end (or the timeout, or the cap).
    pub fn run(mut self) -> Result<ChildOutput, ChildError> {
        let started = Instant::now();
        let program = self.program();
        let spawn_err = |source| ChildError::Spawn { program: program.clone(), source };
        let mut cmd = self.command();
        die_with_cn(&mut cmd);
        let _tmp = self.confine(&mut cmd)?;
        let (tx, rx) = mpsc::channel::<Chunk>();
        let merged = if self.merge {
            let (reader, writer) = std::io::pipe().map_err(spawn_err)?;
            cmd.stdout(writer.try_clone().map_err(spawn_err)?).stderr(writer);
            Some(reader)
        } else {
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            None
        };
        cmd.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        let mut child = cmd.spawn().map_err(|source| self.spawn_error(program.clone(), source))?;
        // The Command holds the merged pipe's write ends: drop it so EOF can come.
        drop(cmd);
        let group = Group(child.id());
        if let (Some(bytes), Some(mut pipe)) = (self.stdin.take(), child.stdin.take()) {
            // A child that answers without reading all its input closes the pipe: fine.
            std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
            });
        }
        let mut open = 0;
        if let Some(r) = merged {
            open += spawn_reader(r, Stream::Out, tx.clone());
        }
        if let Some(r) = child.stdout.take() {
            open += spawn_reader(r, Stream::Out, tx.clone());
        }
        if let Some(r) = child.stderr.take() {
            open += spawn_reader(r, Stream::Err, tx.clone());
        }
        drop(tx);

        let deadline = started + self.timeout;
        let mut out = ChildOutput {
            status: None,
            stdout: Vec::new(),
            stderr: Vec::new(),
            truncated: false,
            elapsed: Duration::ZERO,
        };
        let mut timed_out = false;
        // Read until both pipes close, the cap is passed, or the deadline; poll the child
        // meanwhile so its exit (with a grandchild holding the pipes) is noticed.
        let mut exited_at: Option<Instant> = None;
        while open > 0 {
            let now = Instant::now();
            if out.status.is_none() {
                if let Ok(Some(status)) = child.try_wait() {
                    out.status = Some(status);
                    exited_at = Some(now);
                    // The child is gone: what is left in its group only holds pipes.
                    group.kill();
                }
            }
            if exited_at.is_some_and(|t| now >= t + GRACE) {
                break;
            }
            if now >= deadline {
                timed_out = out.status.is_none();
                break;
            }
            let wait = deadline.saturating_duration_since(now).min(Duration::from_millis(20));
            match rx.recv_timeout(wait) {
                Ok(Chunk::Data(stream, bytes)) => {
                    let buf = match stream {
                        Stream::Out => &mut out.stdout,
                        Stream::Err => &mut out.stderr,
                    };
                    let room = self.cap.saturating_sub(buf.len());
                    buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
                    if bytes.len() > room {
                        out.truncated = true;
                        break;
                    }
                }
                Ok(Chunk::Closed) => open -= 1,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        if out.status.is_none() && !timed_out && !out.truncated {
            // The pipes closed; the child may still be finishing: wait, up to the deadline.
            loop {
                match child.try_wait() {
                    Ok(Some(status)) => break out.status = Some(status),
                    Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
                    Ok(None) => break timed_out = true,
                    Err(_) => break,
                }
            }
        }
        // Whatever is still running of the group goes now.
        group.kill();
        if out.status.is_none() {
            // Killed by cn: reap it (at once, it was SIGKILLed); its status stays `None`.
            let _ = wait_briefly(&mut child);
        }
        out.elapsed = started.elapsed();
        if timed_out {
            return Err(ChildError::TimedOut { program, after: self.timeout, output: Box::new(out) });
        }
        Ok(out)
    }
}

/// Wait for a killed child, a little: it was SIGKILLed, so it is reaped at once.
fn wait_briefly(child: &mut std::process::Child) -> Option<ExitStatus> {
    let until = Instant::now() + GRACE;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(2)),
            _ => return None,
        }
    }
}

#[derive(Clone, Copy)]
enum Stream {
    Out,
    Err,
}

enum Chunk {
    Data(Stream, Vec<u8>),
    Closed,
}

fn spawn_reader<R: Read + Send + 'static>(mut pipe: R, stream: Stream, tx: mpsc::Sender<Chunk>) -> usize {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(Chunk::Data(stream, buf[..n].to_vec())).is_err() {
                        // The runner is gone: stop reading, which lets the writer fail.
                        return;
                    }
                }
            }
        }
        let _ = tx.send(Chunk::Closed);
    });
    1
}

/// A process group, SIGKILLed when dropped (and on [`Group::kill`]).
/// A child started by [`Child::spawn`]: its pipes are `child.stdin` and `child.stdout`; its
/// process group is killed when this is dropped.
pub struct Spawned {
    pub child: std::process::Child,
    _group: Group,
    _tmp: Option<tempfile::TempDir>,
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // The group is killed by `_group`; reap the leader so it leaves no zombie.
        self._group.kill();
        // A leader that left its group is not reached by the group's kill: kill it too.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Group(u32);

impl Group {
    fn kill(&self) {
        if let Ok(pid) = i32::try_from(self.0) {
            // SAFETY: kill(2) with a negative pid signals the process group the child leads
            // (`process_group(0)` made its pid the group id); no memory is involved.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_status_and_stdin() {
        let out = Child::shell("cat; echo err >&2; exit 3").stdin("hi\n").run().unwrap();
        assert_eq!((out.stdout.as_slice(), out.stderr.as_slice()), (&b"hi\n"[..], &b"err\n"[..]));
        assert_eq!(out.status.and_then(|s| s.code()), Some(3));
        assert!(!out.truncated);
        let merged = Child::shell("echo a; echo b >&2; echo c").merge_stderr().run().unwrap();
        assert_eq!(merged.stdout, b"a\nb\nc\n");
    }

    #[test]
    fn a_grandchild_holding_stdout_does_not_keep_us_waiting() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let line = format!("sleep 300 & echo $! > {}; echo done", pidfile.display());
        let started = Instant::now();
        let out = Child::shell(&line).timeout(Duration::from_secs(120)).run().unwrap();
        assert!(started.elapsed() < Duration::from_secs(60), "{:?}", started.elapsed());
        assert_eq!(out.stdout, b"done\n");
        assert!(out.success());
        // And the grandchild is gone with its group.
        let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        // SAFETY: signal 0 only checks whether the process exists.
        while unsafe { libc::kill(pid, 0) } == 0 && !is_zombie(pid) {
            assert!(Instant::now() < deadline, "the grandchild {pid} survived");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    fn is_zombie(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| s.rsplit(')').next().is_some_and(|r| r.trim_start().starts_with('Z')))
            .unwrap_or(true)
    }

    #[test]
    fn a_secret_in_our_environment_is_not_seen_unless_passed() {
        std::env::set_var("CN_CHILD_TEST_API_KEY", "sk-secret");
        let out = Child::shell("env").run().unwrap();
        let env = String::from_utf8(out.stdout).unwrap();
        assert!(!env.contains("sk-secret"), "{env}");
        assert!(env.contains("PATH="), "{env}");
        let out = Child::shell("echo $CN_CHILD_TEST_API_KEY").pass_env(["CN_CHILD_TEST_API_KEY"]).run().unwrap();
        assert_eq!(out.stdout, b"sk-secret\n");
        let out = Child::shell("echo $X").env("X", "set").run().unwrap();
        assert_eq!(out.stdout, b"set\n");
    }

    #[test]
    fn a_flood_is_cut_at_the_cap_and_stopped() {
        let started = Instant::now();
        let out = Child::new("yes").max_output(100_000).timeout(Duration::from_secs(120)).run().unwrap();
        assert!(out.truncated);
        assert_eq!(out.stdout.len(), 100_000);
        assert_eq!(out.status, None, "stopped by cn");
        assert!(started.elapsed() < Duration::from_secs(60));
    }

    #[test]
    fn past_the_timeout_the_group_is_killed() {
        let err = Child::shell("echo partial; sleep 300").timeout(Duration::from_millis(300)).run().unwrap_err();
        match err {
            ChildError::TimedOut { output, .. } => assert_eq!(output.stdout, b"partial\n"),
            e => panic!("{e}"),
        }
        assert!(matches!(Child::new("/nonexistent/x").run(), Err(ChildError::Spawn { .. })));
    }

    #[test]
    fn configure_sees_the_command() {
        let out = Child::shell("echo $Y")
            .configure(|c| {
                c.env("Y", "configured");
            })
            .run()
            .unwrap();
        assert_eq!(out.stdout, b"configured\n");
    }
}
