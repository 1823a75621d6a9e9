//! git — git for cn: the git CLI (`std::process::Command`, this file), a method per command
//! cn runs (`named`, whose `list`, `read_commit` and `push_atomic` pick the transport in one
//! place), git's protocol v2 over `git://` for a sync's listing and fetch in one connection
//! (`v2`), a small push and a commit's read over `git://` (`wire`: a leased hub's renewal
//! and look, in no process), and the connector every `git://` connection of the git cn runs
//! goes through (`connect`). git is the hub's
//! timeline, the mail's transport and a loop's clock, and any remote git understands works;
//! this is the one place that spawns git or speaks its protocol. It knows no hub: cn.yaml's
//! `git.env` comes in with the [`Git`] made for the hub ([`Git::passing`]).
//!
//! Invariant: git runs with a scrubbed environment: only `child::BASE_ENV`, `LC_*`,
//! [`GIT_BASE_ENV`] and the names of its hub's `git.env` ([`Git::passing`]) reach git and what
//! git runs (hooks, ssh, credential helpers); an API key in cn's environment does not, nor a
//! `GIT_*` variable that was not named.
//!
//! Invariant: git never waits for a person. Its stdin is closed (unless input is given),
//! `GIT_TERMINAL_PROMPT=0` makes its own credential prompts fail, and `GIT_ASKPASS` is set
//! empty (unless `git.env` names it) so neither `core.askPass` nor
//! `SSH_ASKPASS` pops up a dialog; a remote that needs a password fails with git's message
//! instead of hanging the daemon. (ssh's own passphrase prompt is left to the user's ssh
//! setup: forcing `BatchMode` through `GIT_SSH_COMMAND` would override `core.sshCommand`.)
//!
//! Invariant: git never takes a user-supplied string where an option can go. A remote is
//! checked by [`check_remote`] (no leading `-`, a transport from the allowlist: https, ssh,
//! git, file or a local path; never a `::` transport helper) and passed after `--`;
//! `GIT_ALLOW_PROTOCOL` keeps git itself from transport helpers. git's errors are redacted
//! ([`cn_process::redact`]) so a credentialed URL never reaches the journal, a message or a commit.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub mod connect;
mod named;
pub mod v2;
pub mod wire;

pub use named::{rejected, Listing, Remote};

/// A git command that could not run or did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// git ran and failed; `stderr` is git's own explanation (one line, `; `-joined).
    #[error("git {args} (in {dir}) failed: {stderr}")]
    Failed { dir: PathBuf, args: String, stderr: String },
    /// git could not be started (or waited for).
    #[error("git {args} (in {dir}) failed: cannot run git (is git installed?)")]
    Spawn {
        dir: PathBuf,
        args: String,
        #[source]
        source: io::Error,
    },
    /// A bounded git ([`Git::run_bounded`]) went past a bound and was stopped.
    #[error("git {args} (in {dir}) stopped: {why}")]
    Bounded { dir: PathBuf, args: String, why: Exceeded },
}

/// Which bound a git command went past ([`Git::run_bounded`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Exceeded {
    #[error("it took too long: it ran past its time limit of {0:?} and was killed")]
    Time(Duration),
    #[error("it wrote more than {0} bytes of output")]
    Output(usize),
    /// A file it wrote (a fetched pack) would have grown past the limit (RLIMIT_FSIZE).
    #[error("a file it wrote would have grown past {0} bytes")]
    FileSize(u64),
}

/// What a git run by [`Git::run_for`] said: whether it succeeded, its stdout, and its stderr
/// (redacted, one line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Limits for a git command that reads someone else's bytes (a peer's mail):
/// [`Git::run_bounded`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounds {
    /// Killed, with its process group, past this.
    pub timeout: Duration,
    /// Most bytes of stdout (and of stderr) kept; past it git is stopped.
    pub output: usize,
    /// No file git writes may grow past this many bytes (`RLIMIT_FSIZE`, with `SIGXFSZ`
    /// ignored so git fails with its own error instead of dumping core).
    pub file_size: Option<u64>,
    /// No more address space than this (`RLIMIT_AS`): a pack's delta can describe an object
    /// of any size from a few bytes, and git builds it in memory.
    pub memory: Option<u64>,
    /// Where new objects go instead of the repository's own store (a quarantine,
    /// `GIT_OBJECT_DIRECTORY`; the store stays readable as an alternate): what is fetched
    /// leaves nothing in the repository once the directory is removed.
    pub objects: Option<PathBuf>,
    /// The repository's own object store, read as the alternate of `objects` (found by asking
    /// git when `None`: a caller making many bounded calls gives it once, saving a process
    /// each — a sync of a hundred peers made some six hundred).
    pub store: Option<PathBuf>,
}

impl Bounds {
    /// Only a time limit and an output limit: for git talking to a remote whose answer is
    /// small and whose objects, if any, go into the repository as usual.
    pub fn time_and_output(timeout: Duration, output: usize) -> Bounds {
        Bounds { timeout, output, file_size: None, memory: None, objects: None, store: None }
    }
}

impl GitError {
    /// git's stderr (empty when git could not run).
    pub fn stderr(&self) -> &str {
        match self {
            GitError::Failed { stderr, .. } => stderr,
            GitError::Spawn { .. } | GitError::Bounded { .. } => "",
        }
    }

    /// Whether the failure was the network's or a busy server's, not the remote's answer:
    /// a connection reset or dropped mid-way, a server error over HTTP. Worth trying again
    /// shortly; a refused connection (the server is not there), a connection that timed out
    /// (a host that drops packets: another try would wait as long again), a missing
    /// repository, an authentication failure or a bound cn set are not.
    pub fn is_transient(&self) -> bool {
        const TRANSIENT: &[&str] = &[
            "connection reset by peer",
            "broken pipe",
            "(sigpipe:",
            "the remote end hung up unexpectedly",
            connect::UNANSWERED,
            "early eof",
            "unexpected disconnect",
            "temporary failure in name resolution",
            "rpc failed",
            "the requested url returned error: 502",
            "the requested url returned error: 503",
            "the requested url returned error: 504",
        ];
        // The server's own answer, whatever followed it, is not the network's.
        const ANSWERED: &[&str] = &["remote error", "not found", "permission denied", "authentication failed"];
        let stderr = self.stderr().to_ascii_lowercase();
        TRANSIENT.iter().any(|t| stderr.contains(t)) && !ANSWERED.iter().any(|a| stderr.contains(a))
    }
}

/// Variables git gets from cn's environment besides `child::BASE_ENV` (and `LC_*`): where
/// its own configuration lives, the ssh agent that pushes to an ssh remote, and
/// `GIT_CEILING_DIRECTORIES` (it only stops git's search for a repository; it can redirect
/// git nowhere).
pub const GIT_BASE_ENV: &[&str] = &["XDG_CONFIG_HOME", "SSH_AUTH_SOCK", "GIT_CEILING_DIRECTORIES"];

/// The transports git itself may use (`GIT_ALLOW_PROTOCOL`): never a helper such as `ext`
/// (runs a command) or `fd`. A peer's remote is held to the stricter [`check_remote`].
pub const ALLOWED_PROTOCOLS: &str = "https:ssh:git:file:http";

/// A peer's remote git may not be given: which, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("peer remote `{remote}` refused: {why}")]
pub struct RemoteRefused {
    pub remote: String,
    pub why: RemoteProblem,
}

/// What is wrong with a peer's remote (see [`check_remote`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemoteProblem {
    #[error("it is empty; give a git URL or path")]
    Empty,
    #[error("it starts with `-`, which git would read as an option")]
    Option,
    #[error("its host or user starts with `-`, which ssh would read as an option (`-oProxyCommand=…` runs a command)")]
    HostOption,
    #[error("it holds a control character")]
    Control,
    #[error("git transport helpers (`x::…`) are not allowed")]
    Helper,
    #[error("plain http is allowed only to a loopback host (127.0.0.1, localhost); use https")]
    PlainHttp,
    #[error("transport `{0}` is not allowed (use https, ssh, git, file or a path)")]
    Transport(String),
    #[error(
        "it carries credentials, which would be committed with the hub's peers (and read by every hub that \
         fetches it); give git the credentials another way (a credential helper, an ssh key, `git.env`)"
    )]
    Credentials,
}

/// Why `remote` may not be given to git, or `Ok`: it must not be empty or start with `-`
/// (git would read it as an option: `--upload-pack=CMD` runs CMD), must not hold a control
/// character, and must be an `https://`, `ssh://`, `git://` or `file://` URL, an scp-like
/// `user@host:path`, or a local path (never a `transport::address` helper such as `ext::`).
pub fn check_remote(remote: &str) -> Result<(), RemoteRefused> {
    let refuse = |why: RemoteProblem| Err(RemoteRefused { remote: remote.to_string(), why });
    if remote.trim().is_empty() {
        return refuse(RemoteProblem::Empty);
    }
    if remote.starts_with('-') {
        return refuse(RemoteProblem::Option);
    }
    if remote.chars().any(char::is_control) {
        return refuse(RemoteProblem::Control);
    }
    if host_or_user_is_an_option(remote) {
        return refuse(RemoteProblem::HostOption);
    }
    if remote.contains("::") {
        return refuse(RemoteProblem::Helper);
    }
    if let Some((scheme, rest)) = remote.split_once("://") {
        return match scheme.to_ascii_lowercase().as_str() {
            "https" | "ssh" | "git" | "file" => Ok(()),
            // Plain HTTP only to this machine: a git server on loopback (a test's, or one
            // the owner runs beside the hub); anything farther needs TLS.
            "http" if is_loopback_authority(rest) => Ok(()),
            "http" => refuse(RemoteProblem::PlainHttp),
            other => refuse(RemoteProblem::Transport(other.to_string())),
        };
    }
    Ok(())
}

/// Whether the authority of `remote` — the `user@host:port` of a `scheme://` URL, or the
/// `user@host` before the `:` of an scp-like `host:path` — has a user or host starting with
/// `-` (or its percent-encoding `%2d`): git hands them to ssh, which would read them as an
/// option. A local path (a `/` before any `:`) has none.
fn host_or_user_is_an_option(remote: &str) -> bool {
    let authority = match remote.split_once("://") {
        Some((_, rest)) => rest.split(['/', '?', '#']).next().unwrap_or(""),
        None => match remote.split_once(':') {
            Some((before, _)) if !before.contains('/') => before,
            _ => return false,
        },
    };
    authority.split('@').any(|part| {
        let part = part.trim_start_matches('[').to_ascii_lowercase();
        part.starts_with('-') || part.starts_with("%2d")
    })
}

/// Refuse a peer's `remote` that carries credentials: a password (`user:password@`), or any
/// user name in an `http(s)://`, `git://` or `file://` URL (`https://TOKEN@host/…` is how
/// access tokens are usually written). The remote is recorded in `state/peers.json` or
/// cn.yaml, both committed — and pushed to `origin`, which every peer reads. An ssh user
/// (`ssh://git@host/…`, `git@host:path`) is a name, not a secret, and stays allowed.
pub fn check_no_credentials(remote: &str) -> Result<(), RemoteRefused> {
    let refused = || Err(RemoteRefused { remote: cn_process::redact::redact(remote), why: RemoteProblem::Credentials });
    let Some((scheme, rest)) = remote.split_once("://") else {
        // scp-like `user@host:path` or a local path: no password can be written there.
        return Ok(());
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let Some((userinfo, _)) = authority.rsplit_once('@') else { return Ok(()) };
    if userinfo.contains(':') || !scheme.eq_ignore_ascii_case("ssh") {
        return refused();
    }
    Ok(())
}

/// Whether the authority of a URL (what follows `scheme://`) names a loopback host. Any
/// `user:password@` is skipped; the host must then be exactly `127.0.0.1` or `localhost`
/// (`[::1]` would pass here, but its `::` is refused earlier as a transport helper's mark),
/// followed by a port, a path or nothing.
fn is_loopback_authority(rest: &str) -> bool {
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split_once(']').map_or("", |(h, _)| h)
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    matches!(host.to_ascii_lowercase().as_str(), "127.0.0.1" | "::1" | "localhost")
}

/// One repository directory (a working tree, a subdirectory of one, or a bare repository).
/// Every command runs as `git -C DIR`, so pathspecs are relative to DIR.
/// What git sees of cn's environment is this value's ([`Git::passing`]), never the process's:
/// two hubs in one process each run git with their own `git.env`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Git {
    dir: PathBuf,
    /// The names of cn's environment git gets besides [`GIT_BASE_ENV`] (cn.yaml's `git.env`).
    env: Vec<String>,
}

impl Git {
    /// The repository at (or containing) `dir`; nothing is checked until a command runs.
    /// git gets no variable of cn's but [`GIT_BASE_ENV`] (and `child::BASE_ENV`).
    pub fn new(dir: impl Into<PathBuf>) -> Git {
        Git { dir: dir.into(), env: Vec::new() }
    }

    /// Let git see these variables of cn's environment too (a hub's `git.env`: a proxy,
    /// `GIT_SSH_COMMAND`, …), for every command run through this value and its clones.
    pub fn passing(mut self, names: &[String]) -> Git {
        self.env = names.to_vec();
        self
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn command(&self, args: &[&str]) -> Command {
        // `-C DIR` rather than a working directory for the child: without a chdir the
        // standard library can spawn with posix_spawn instead of fork, which keeps the
        // per-iteration and per-decision git calls cheap.
        let mut c = Command::new("git");
        // `git://` connections made by cn itself, without Nagle's delay (`connect`).
        let proxy = connect::proxy_config();
        if let Some(proxy) = &proxy {
            c.arg("-c").arg(proxy);
        }
        c.arg("-C").arg(&self.dir).args(args);
        // A scrubbed environment, like every child's (`cn_process::child`): what git itself needs
        // and what `git.env` names, never an API key of cn's or a `GIT_*` variable that
        // would redirect git (`GIT_DIR`, `GIT_SSH_COMMAND`, `GIT_CONFIG_*`).
        let named = &self.env;
        let names: Vec<&str> = GIT_BASE_ENV.iter().copied().chain(named.iter().map(String::as_str)).collect();
        c.env_clear().envs(cn_process::child::base_env(&names));
        c.env("GIT_TERMINAL_PROMPT", "0");
        c.env("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS);
        if proxy.is_some() {
            c.env(connect::CONNECT_ENV, "1");
        }
        if !named.iter().any(|n| n == "GIT_ASKPASS") {
            c.env("GIT_ASKPASS", "");
        }
        c
    }

    /// The error of a git that ran and failed: its stderr, and the signal that ended it, if
    /// one did (a git writing to a connection the server closed dies of SIGPIPE, silently).
    fn failed(&self, args: &[&str], stderr: &[u8], status: Option<std::process::ExitStatus>) -> GitError {
        let mut said = cn_process::redact::redact(String::from_utf8_lossy(stderr).trim()).replace('\n', "; ");
        #[cfg(unix)]
        if let Some(signal) = status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)) {
            let name = match signal {
                libc::SIGPIPE => " (SIGPIPE: the other end closed the connection)",
                libc::SIGKILL => " (SIGKILL)",
                libc::SIGTERM => " (SIGTERM)",
                _ => "",
            };
            let sep = if said.is_empty() { "" } else { "; " };
            said = format!("{said}{sep}git was killed by signal {signal}{name}");
        }
        GitError::Failed { dir: self.dir.clone(), args: cn_process::redact::redact(&args.join(" ")), stderr: said }
    }

    fn spawn_error(&self, args: &[&str], source: io::Error) -> GitError {
        GitError::Spawn { dir: self.dir.clone(), args: cn_process::redact::redact(&args.join(" ")), source }
    }

    /// Run git; its stdout on success.
    pub fn run(&self, args: &[&str]) -> Result<String, GitError> {
        let out = self.command(args).stdin(Stdio::null()).output().map_err(|e| self.spawn_error(args, e))?;
        self.finish(args, out)
    }

    /// Whether `remote` answers: `git ls-remote` of its HEAD, stopped after `limit` with what
    /// it started (an unreachable host must not hold a command for a TCP timeout).
    pub fn ls_remote_answers(&self, remote: &str, limit: Duration) -> Result<(), GitError> {
        // HEAD alone: the remote is reached and its answer stays a line or two.
        let bounds = Bounds::time_and_output(limit, 64 << 10);
        self.run_bounded(&["ls-remote", "--", remote, "HEAD"], None, &bounds).map(drop)
    }

    /// Run git with `input` on its stdin (`fast-import`, `hash-object --stdin`).
    pub fn run_with_input(&self, args: &[&str], input: &[u8]) -> Result<String, GitError> {
        self.run_bytes_with_input(args, input).map(|out| String::from_utf8_lossy(&out).into_owned())
    }

    /// [`Git::run_with_input`] with stdout as raw bytes: for output whose byte offsets
    /// matter (`cat-file --batch` counts bytes, and a peer's file need not be UTF-8).
    pub fn run_bytes_with_input(&self, args: &[&str], input: &[u8]) -> Result<Vec<u8>, GitError> {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| self.spawn_error(args, e))?;
        let writer = child.stdin.take().map(|mut stdin| {
            // Written from a thread so a large output cannot deadlock against a full pipe.
            let bytes = input.to_vec();
            std::thread::spawn(move || stdin.write_all(&bytes))
        });
        let out = child.wait_with_output().map_err(|e| self.spawn_error(args, e))?;
        if let Some(w) = writer {
            // A write error (git exited early) shows as git's own failure below.
            let _ = w.join();
        }
        if out.status.success() {
            Ok(out.stdout)
        } else {
            Err(self.failed(args, &out.stderr, Some(out.status)))
        }
    }

    fn finish(&self, args: &[&str], out: Output) -> Result<String, GitError> {
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(self.failed(args, &out.stderr, Some(out.status)))
        }
    }

    /// git as a bounded child (`cn_process::child`: its own process group, killed past `timeout`,
    /// `output` bytes kept) with the scrubbed environment of [`Git::command`].
    fn child(&self, args: &[&str], timeout: Duration, output: usize) -> cn_process::child::Child {
        let named = &self.env;
        let mut child = cn_process::child::Child::new("git");
        if let Some(proxy) = connect::proxy_config() {
            child = child.arg("-c").arg(proxy).env(connect::CONNECT_ENV, "1");
        }
        let child = child
            .arg("-C")
            .arg(&self.dir)
            .args(args)
            .pass_env(GIT_BASE_ENV.iter().copied().chain(named.iter().map(String::as_str)))
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_ALLOW_PROTOCOL", ALLOWED_PROTOCOLS)
            // git's messages in English: "File too large" is how a passed size limit shows.
            .env("LC_ALL", "C")
            .timeout(timeout)
            .max_output(output);
        if named.iter().any(|n| n == "GIT_ASKPASS") {
            child
        } else {
            child.env("GIT_ASKPASS", "")
        }
    }

    /// Run git within `bounds` (see [`Bounds`]), `input` on its stdin; its stdout on success.
    /// For commands that take a peer's bytes: a fetch whose pack or objects would pass the
    /// size limit fails with [`Exceeded::FileSize`] and nothing is left of it when
    /// `bounds.objects` is a directory the caller removes.
    pub fn run_bounded(&self, args: &[&str], input: Option<&[u8]>, bounds: &Bounds) -> Result<Vec<u8>, GitError> {
        let mut child = self.child(args, bounds.timeout, bounds.output);
        if let Some(dir) = &bounds.objects {
            let store = match &bounds.store {
                Some(store) => store.clone(),
                None => self.git_dir()?.join("objects"),
            };
            child = child.env("GIT_OBJECT_DIRECTORY", dir).env("GIT_ALTERNATE_OBJECT_DIRECTORIES", store);
        }
        if let Some(bytes) = input {
            child = child.stdin(bytes.to_vec());
        }
        let (file_size, memory) = (bounds.file_size, bounds.memory);
        if file_size.is_some() || memory.is_some() {
            child = child.configure(move |cmd| {
                use std::os::unix::process::CommandExt as _;
                // SAFETY: between fork and exec only async-signal-safe calls (setrlimit,
                // signal) and no allocation.
                unsafe {
                    cmd.pre_exec(move || {
                        let limit = |resource, bytes: u64| {
                            let lim = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
                            if libc::setrlimit(resource, &lim) != 0 {
                                return Err(io::Error::last_os_error());
                            }
                            Ok(())
                        };
                        if let Some(bytes) = file_size {
                            limit(libc::RLIMIT_FSIZE, bytes)?;
                            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
                        }
                        if let Some(bytes) = memory {
                            limit(libc::RLIMIT_AS, bytes)?;
                        }
                        Ok(())
                    });
                }
            });
        }
        let shown = || cn_process::redact::redact(&args.join(" "));
        let out = match child.run() {
            Ok(out) => out,
            Err(cn_process::child::ChildError::TimedOut { after, .. }) => {
                return Err(GitError::Bounded { dir: self.dir.clone(), args: shown(), why: Exceeded::Time(after) })
            }
            Err(e) => {
                let source = match e {
                    cn_process::child::ChildError::Spawn { source, .. } => source,
                    other => io::Error::other(other.to_string()),
                };
                return Err(self.spawn_error(args, source));
            }
        };
        if out.truncated {
            return Err(GitError::Bounded {
                dir: self.dir.clone(),
                args: shown(),
                why: Exceeded::Output(bounds.output),
            });
        }
        if out.success() {
            return Ok(out.stdout);
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        match file_size {
            Some(limit) if stderr.contains("File too large") => {
                Err(GitError::Bounded { dir: self.dir.clone(), args: shown(), why: Exceeded::FileSize(limit) })
            }
            _ => Err(self.failed(args, &out.stderr, out.status)),
        }
    }

    /// Run git for at most `timeout` (killed with its process group past it), keeping what
    /// it said on both streams whatever its exit: for a push whose per-ref verdicts
    /// (`--porcelain`, on stdout) matter as much as whether it succeeded. `Err` only when git
    /// could not run or ran out of time.
    pub fn run_for(&self, args: &[&str], timeout: Duration) -> Result<Ran, GitError> {
        match self.child(args, timeout, 1 << 20).run() {
            Ok(out) => Ok(Ran {
                ok: out.success(),
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr: cn_process::redact::redact(String::from_utf8_lossy(&out.stderr).trim()).replace('\n', "; "),
            }),
            Err(cn_process::child::ChildError::TimedOut { after, .. }) => Err(GitError::Bounded {
                dir: self.dir.clone(),
                args: cn_process::redact::redact(&args.join(" ")),
                why: Exceeded::Time(after),
            }),
            Err(e) => {
                let source = match e {
                    cn_process::child::ChildError::Spawn { source, .. } => source,
                    other => io::Error::other(other.to_string()),
                };
                Err(self.spawn_error(args, source))
            }
        }
    }

    /// The error of a [`Git::run_for`] that ran and failed.
    pub fn failure(&self, args: &[&str], ran: &Ran) -> GitError {
        GitError::Failed {
            dir: self.dir.clone(),
            args: cn_process::redact::redact(&args.join(" ")),
            stderr: ran.stderr.clone(),
        }
    }

    /// Whether `rev` names an object of the repository.
    pub fn has_object(&self, rev: &str) -> bool {
        if rev.is_empty() || rev.starts_with('-') {
            return false;
        }
        self.command(&["cat-file", "-e", &format!("{rev}^{{object}}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Whether the working tree has nothing to commit (false if git fails). A submodule's
    /// own working tree is not looked into (`--ignore-submodules=dirty`): git would run
    /// `git status` there, and with it that repository's configuration (see
    /// [`Git::unstage_repositories`]).
    pub fn is_clean(&self) -> bool {
        self.run(&["status", "--porcelain", "--ignore-submodules=dirty"]).is_ok_and(|s| s.trim().is_empty())
    }

    /// Of the paths `git add -v` just staged (`added`, as it printed them: relative to DIR),
    /// take out of the index again those that are git repositories of their own, and return
    /// them.
    ///
    /// A repository inside the tree is staged as a gitlink, and from then on every `git add`
    /// and `git status` of the tree runs `git status` inside it — with *its* configuration:
    /// a `core.fsmonitor` hook, a clean filter. Whoever could write that folder (a sandboxed
    /// command, a loop's component) would have cn's git run their command as the owner,
    /// outside any sandbox. Staging it for the first time runs nothing of it (git only reads
    /// its HEAD); this takes it out again at once, so it never reaches a later `git add`.
    pub fn unstage_repositories(&self, added: &[String]) -> Result<Vec<String>, GitError> {
        let nested: Vec<String> = added
            .iter()
            .map(|p| p.trim_end_matches('/'))
            .filter(|p| !p.is_empty() && self.dir.join(p).join(".git").symlink_metadata().is_ok())
            .map(str::to_string)
            .collect();
        if !nested.is_empty() {
            let mut args = vec!["update-index", "--force-remove", "--"];
            args.extend(nested.iter().map(String::as_str));
            self.run(&args)?;
        }
        Ok(nested)
    }

    /// The paths `git add -v` printed as added (`add 'PATH'`), relative to DIR.
    pub fn added_paths(out: &str) -> Vec<String> {
        out.lines().filter_map(|l| l.strip_prefix("add ")).map(|p| p.trim().trim_matches('\'').to_string()).collect()
    }

    /// DIR relative to the root of its working tree (`""` at the root, else ending in `/`),
    /// or `None` when DIR is not inside a working tree.
    pub fn work_tree_prefix(&self) -> Option<String> {
        match self.run(&["rev-parse", "--is-inside-work-tree", "--show-prefix"]) {
            Ok(out) if out.lines().next() == Some("true") => Some(out.lines().nth(1).unwrap_or("").trim().to_string()),
            _ => None,
        }
    }

    /// The repository's git directory, absolute.
    pub fn git_dir(&self) -> Result<PathBuf, GitError> {
        let out = self.run(&["rev-parse", "--absolute-git-dir"])?;
        Ok(PathBuf::from(out.trim()))
    }

    /// A file (relative to DIR) as HEAD has it (`None` when HEAD or the file does not exist).
    pub fn show_head(&self, rel: &str) -> Option<String> {
        self.run(&["show", &format!("HEAD:./{rel}")]).ok()
    }

    /// Git's automatic maintenance (packing loose objects); failures only logged.
    pub fn maintain(&self) {
        if let Err(e) = self.run(&["maintenance", "run", "--auto", "--quiet"]) {
            tracing::warn!(error = %cn_compute::Chain(&e), "git maintenance");
        }
    }

    /// `git gc --auto`: nothing (a quick count of loose objects) until git's thresholds are
    /// passed, then git packs in the background (`gc.autoDetach`) — after a commit made
    /// without git's own housekeeping. Failures only logged.
    pub fn gc_auto(&self) {
        if let Err(e) = self.run(&["gc", "--auto", "--quiet"]) {
            tracing::warn!(error = %cn_compute::Chain(&e), "git gc --auto");
        }
    }

    /// Stage `paths` (those that exist) and fold them into HEAD's commit, keeping its message;
    /// false when there was nothing to add. For the caller that made HEAD a moment ago and
    /// knows no one has it yet.
    pub fn amend_paths(&self, paths: &[&str]) -> Result<bool, GitError> {
        let present: Vec<&str> = paths.iter().copied().filter(|p| self.dir.join(p).exists()).collect();
        if present.is_empty() {
            return Ok(false);
        }
        let mut status = vec!["--no-optional-locks", "status", "--porcelain", "--"];
        status.extend_from_slice(&present);
        if self.run(&status)?.trim().is_empty() {
            return Ok(false);
        }
        let mut add = vec!["add", "-A", "--"];
        add.extend_from_slice(&present);
        let amend =
            ["-c", "maintenance.auto=false", "commit", "-q", "--no-verify", "--no-gpg-sign", "--amend", "--no-edit"];
        // Someone's `git status` takes the index's lock for a moment: wait it out.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match self.run(&add).and_then(|_| self.run(&amend)) {
                Ok(_) => return Ok(true),
                Err(GitError::Failed { ref stderr, .. })
                    if stderr.contains("index.lock") && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Stage everything and commit with `message`; false when there was nothing to commit. A
    /// crashed git (killed with its parent) can leave `index.lock` behind for a moment, so a
    /// busy index is retried for a bounded time.
    pub fn commit_all(&self, message: &str) -> Result<bool, GitError> {
        self.commit_all_with(message, true, &[])
    }

    /// [`Git::commit_all`] without git's automatic housekeeping: for the per-item path, whose
    /// latency an external agent pays on every decision (`cn sync` and the other commands
    /// keep it).
    pub fn commit_all_quick(&self, message: &str) -> Result<bool, GitError> {
        self.commit_all_with(message, false, &[])
    }

    /// [`Git::commit_all_quick`] staging only `paths` (those that exist): a hub commits its
    /// own files, never whatever else the owner keeps in the folder.
    pub fn commit_paths_quick(&self, message: &str, paths: &[&str]) -> Result<bool, GitError> {
        self.commit_present(message, false, paths)
    }

    /// [`Git::commit_all`] staging only `paths` (those that exist), with git's housekeeping:
    /// `cn sync`, `cn send`, `cn peer add` commit the hub's own files, never what else the
    /// owner (or a command the owner let write there) keeps in the folder.
    pub fn commit_paths(&self, message: &str, paths: &[&str]) -> Result<bool, GitError> {
        self.commit_present(message, true, paths)
    }

    fn commit_present(&self, message: &str, housekeeping: bool, paths: &[&str]) -> Result<bool, GitError> {
        let present: Vec<&str> = paths.iter().copied().filter(|p| self.dir.join(p).exists()).collect();
        if present.is_empty() {
            return Ok(false);
        }
        self.commit_all_with(message, housekeeping, &present)
    }

    /// A repository `git add` just staged is taken out again (never committed), and said.
    fn unstage_nested(&self, added: &str) -> Result<(), GitError> {
        for path in self.unstage_repositories(&Self::added_paths(added))? {
            tracing::error!(
                dir = %self.dir.display(),
                path,
                "not committed: a git repository of its own inside the hub, whose configuration git would run on every later commit"
            );
        }
        Ok(())
    }

    fn commit_all_with(&self, message: &str, housekeeping: bool, paths: &[&str]) -> Result<bool, GitError> {
        let deadline = Instant::now() + Duration::from_secs(5);
        let mut args = vec!["commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message];
        if !housekeeping {
            args.splice(0..0, ["-c", "maintenance.auto=false"]);
        }
        let mut add = vec!["add", "-A", "-v"];
        if !paths.is_empty() {
            add.push("--");
            add.extend_from_slice(paths);
        }
        loop {
            let r = self.run(&add).and_then(|out| self.unstage_nested(&out)).and_then(|_| self.run(&args));
            match r {
                Ok(_) => return Ok(true),
                Err(GitError::Failed { stderr, .. })
                    if stderr.contains("nothing to commit") || stderr.is_empty() && self.is_clean() =>
                {
                    return Ok(false)
                }
                Err(GitError::Failed { ref stderr, .. })
                    if stderr.contains("index.lock") && Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => {
                    // `git commit` reports "nothing to commit" on stdout; check the tree itself.
                    if self.is_clean() {
                        return Ok(false);
                    }
                    return Err(e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What git printed (stderr, as `Git` keeps it: one line, `; `-joined) for failures seen
    /// on real servers: a busy `git daemon`, an HTTP proxy, a missing repository.
    #[test]
    fn a_dropped_connection_is_worth_another_try_and_a_servers_answer_is_not() {
        let failed =
            |stderr: &str| GitError::Failed { dir: PathBuf::new(), args: String::new(), stderr: stderr.into() };
        for transient in [
            "fatal: read error: Connection reset by peer",
            "fatal: the remote end hung up unexpectedly",
            "fetch-pack: unexpected disconnect while reading sideband packet; fatal: early EOF",
            "fatal: unable to access 'http://h/a.git/': The requested URL returned error: 503",
            "error: RPC failed; curl 56 Recv failure: Connection reset by peer",
            "git was killed by signal 13 (SIGPIPE: the other end closed the connection)",
        ] {
            assert!(failed(transient).is_transient(), "{transient}");
        }
        for answered in [
            "fatal: unable to connect to 127.0.0.1:; 127.0.0.1[0: 127.0.0.1]: errno=Connection refused",
            "fatal: remote error: access denied or repository not exported: /a.git",
            "remote: Repository not found.; fatal: repository 'https://h/a.git/' not found",
            "git@h: Permission denied (publickey).; fatal: Could not read from remote repository.",
            "fatal: Authentication failed for 'https://h/a.git/'",
            "fatal: the remote end hung up unexpectedly; remote error: access denied",
            "fatal: unable to connect to h:; h[0: 10.0.0.1]: errno=Connection timed out",
            "error: Server does not allow request for unadvertised object 0123",
        ] {
            assert!(!failed(answered).is_transient(), "{answered}");
        }
        let bounded = GitError::Bounded { dir: PathBuf::new(), args: String::new(), why: Exceeded::Output(1) };
        assert!(!bounded.is_transient());
    }

    #[test]
    fn remotes_that_git_would_read_as_options_or_helpers_are_refused() {
        for ok in [
            "https://h/r.git",
            "ssh://git@h/r",
            "git@github.com:o/r.git",
            "/srv/r.git",
            "../r",
            "file:///r",
            "http://127.0.0.1:8080/a.git",
            "http://u:p@localhost/a.git",
        ] {
            assert!(check_remote(ok).is_ok(), "{ok}");
        }
        for bad in ["--upload-pack=touch /tmp/x", "-u", "", "ext::sh -c touch% x", "http://h/r", "a\nb", "fd::3"]
            .into_iter()
            .chain(["http://127.0.0.1.evil.example/r", "http://localhost@evil.example/r", "http://evil/127.0.0.1"])
        {
            assert!(check_remote(bad).is_err(), "{bad}");
        }
        let refused = check_remote("--upload-pack=x").unwrap_err();
        assert_eq!(refused.why, RemoteProblem::Option);
        assert_eq!(
            refused.to_string(),
            "peer remote `--upload-pack=x` refused: it starts with `-`, which git would read as an option"
        );
        assert_eq!(check_remote("gopher://h/r").unwrap_err().why, RemoteProblem::Transport("gopher".into()));
        for bad in [
            "ssh://-oProxyCommand=touch%20x/r",
            "ssh://git@-oProxyCommand=x/r",
            "ssh://-oProxyCommand=x@h/r",
            "ssh://[-oProxyCommand=x]/r",
            "ssh://%2DoProxyCommand=x/r",
            "git@-oProxyCommand=x:r",
            "git://-h/r",
        ] {
            assert_eq!(check_remote(bad).map_err(|e| e.why), Err(RemoteProblem::HostOption), "{bad}");
        }
        for ok in ["ssh://git@h/-r", "/srv/-r.git", "./a:-b", "h:-r"] {
            assert!(check_remote(ok).is_ok(), "{ok}");
        }
    }

    fn repo() -> (tempfile::TempDir, Git) {
        let dir = tempfile::tempdir().unwrap();
        let git = Git::new(dir.path());
        git.run(&["init", "-q"]).unwrap();
        git.run(&["config", "user.name", "t"]).unwrap();
        git.run(&["config", "user.email", "t@t.invalid"]).unwrap();
        (dir, git)
    }

    #[test]
    fn commits_reads_back_and_reports_nothing_to_commit() {
        let (dir, git) = repo();
        assert_eq!(git.work_tree_prefix().as_deref(), Some(""));
        std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        assert!(!git.is_clean());
        assert!(git.commit_all("first").unwrap());
        assert!(git.is_clean());
        assert!(!git.commit_all_quick("nothing").unwrap());
        assert_eq!(git.show_head("a.txt").as_deref(), Some("one\n"));
        assert_eq!(git.show_head("missing.txt"), None);
        let head = git.run(&["rev-parse", "HEAD"]).unwrap();
        assert!(git.has_object(head.trim()));
        assert!(!git.has_object("-h"));
        assert!(!git.has_object("0123456789abcdef0123456789abcdef01234567"));
        assert!(git.git_dir().unwrap().ends_with(".git"));
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        assert_eq!(Git::new(&sub).work_tree_prefix().as_deref(), Some("sub/"));
    }

    #[test]
    fn input_goes_to_stdin_and_a_failure_names_dir_args_and_stderr() {
        let (dir, git) = repo();
        let sha = git.run_with_input(&["hash-object", "-w", "--stdin"], b"hello\n").unwrap();
        assert_eq!(git.run(&["cat-file", "-p", sha.trim()]).unwrap(), "hello\n");
        let e = git.run(&["rev-parse", "--verify", "no-such-branch"]).unwrap_err();
        let GitError::Failed { dir: d, args, stderr } = &e else { panic!("{e:?}") };
        assert_eq!(d, dir.path());
        assert_eq!(args, "rev-parse --verify no-such-branch");
        assert!(!stderr.is_empty() && !stderr.contains('\n'), "{stderr}");
        assert_eq!(e.stderr(), stderr);
        assert!(Git::new(dir.path().join("nowhere")).work_tree_prefix().is_none());
    }

    #[test]
    fn a_remote_that_wants_a_password_fails_instead_of_prompting() {
        // A loopback server that answers every request with 401: git would ask for a
        // username; with prompts off it must fail at once.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming().take(8) {
                let Ok(mut s) = stream else { continue };
                let mut buf = [0u8; 4096];
                let _ = io::Read::read(&mut s, &mut buf);
                let _ = s.write_all(
                    b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"x\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
        let (_dir, git) = repo();
        // No credential helper from the user's configuration may answer for the test.
        git.run(&["config", "credential.helper", ""]).unwrap();
        let started = Instant::now();
        let e = git.run(&["ls-remote", &format!("http://127.0.0.1:{port}/repo.git")]).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(20), "git waited {:?}", started.elapsed());
        assert!(matches!(e, GitError::Failed { .. }), "{e:?}");
        assert!(
            e.stderr().contains("terminal prompts disabled") || e.stderr().contains("Authentication failed"),
            "{e}"
        );
    }
}
