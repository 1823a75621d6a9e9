//! The git CLI, run with `std::process::Command`: git is the hub's timeline and the mail's
//! transport, and any remote git understands works. Nothing here speaks a protocol itself.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::error::{AgentError, Result};

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("git");
    c.arg("-C").arg(dir).args(args);
    // Never wait for a password prompt: a remote that needs one fails clearly instead.
    c.env("GIT_TERMINAL_PROMPT", "0");
    c
}

fn failed(dir: &Path, args: &[&str], stderr: &[u8]) -> AgentError {
    AgentError::Git {
        dir: dir.to_path_buf(),
        args: args.join(" "),
        stderr: String::from_utf8_lossy(stderr).trim().replace('\n', "; "),
    }
}

/// Run git in `dir`; its stdout on success.
pub fn git(dir: &Path, args: &[&str]) -> Result<String> {
    git_input(dir, args, None)
}

/// Run git in `dir` with `input` on stdin.
pub fn git_input(dir: &Path, args: &[&str], input: Option<&[u8]>) -> Result<String> {
    let mut c = command(dir, args);
    c.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() }).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = c.spawn().map_err(|e| AgentError::Git {
        dir: dir.to_path_buf(),
        args: args.join(" "),
        stderr: format!("cannot run git: {e}; is git installed?"),
    })?;
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        // Written from a thread so a large output cannot deadlock against a full pipe.
        let bytes = bytes.to_vec();
        let writer = std::thread::spawn(move || stdin.write_all(&bytes));
        let out = child.wait_with_output().map_err(|e| failed(dir, args, e.to_string().as_bytes()))?;
        let _ = writer.join();
        return finish(dir, args, out);
    }
    let out = child.wait_with_output().map_err(|e| failed(dir, args, e.to_string().as_bytes()))?;
    finish(dir, args, out)
}

fn finish(dir: &Path, args: &[&str], out: std::process::Output) -> Result<String> {
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(failed(dir, args, &out.stderr))
    }
}

/// Whether `rev` names an object of the repository.
pub fn has_object(dir: &Path, rev: &str) -> bool {
    if rev.is_empty() || rev.starts_with('-') {
        return false;
    }
    command(dir, &["cat-file", "-e", &format!("{rev}^{{object}}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Stage everything and commit with `message`; nothing to commit is fine. A crashed git
/// (killed with its parent) can leave `index.lock` behind for a moment, so a busy index is
/// retried for a bounded time.
pub fn commit_all(dir: &Path, message: &str) -> Result<bool> {
    commit(dir, message, true)
}

/// [`commit_all`] without git's automatic housekeeping: for the per-item path, whose latency
/// an external agent pays on every decision (`cn sync` and the other commands keep it).
pub fn commit_all_quick(dir: &Path, message: &str) -> Result<bool> {
    commit(dir, message, false)
}

fn commit(dir: &Path, message: &str, housekeeping: bool) -> Result<bool> {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut args = vec!["commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message];
    if !housekeeping {
        args.splice(0..0, ["-c", "maintenance.auto=false"]);
    }
    loop {
        let r = git(dir, &["add", "-A"]).and_then(|_| git(dir, &args));
        match r {
            Ok(_) => return Ok(true),
            Err(AgentError::Git { stderr, .. }) if stderr.contains("nothing to commit") || stderr.is_empty() && clean(dir) => {
                return Ok(false)
            }
            Err(AgentError::Git { ref stderr, .. }) if stderr.contains("index.lock") && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => {
                // `git commit` reports "nothing to commit" on stdout; check the tree itself.
                if clean(dir) {
                    return Ok(false);
                }
                return Err(e);
            }
        }
    }
}

fn clean(dir: &Path) -> bool {
    git(dir, &["status", "--porcelain"]).is_ok_and(|s| s.trim().is_empty())
}
