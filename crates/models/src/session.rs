//! The thinking budget's active-session check (document 003: "Daily limit, active session
//! check, minimum interval; CPU watcher as fallback for session completion"). While an
//! executive session runs — an interactive `cn chat`, a coding-agent command the owner runs,
//! an AI loop's controller — the daemon does no autonomous executive work: the executive is
//! the owner's then, and two minds on one hub would contend.
//!
//! A session announces itself with a file in `state/sessions/` ([`Sessions::begin`]) that
//! names its process and is held with an OS lock for as long as the session runs; the lock
//! is released when the process ends, however it ends, so a finished session is seen at
//! once. A session file written by a program that cannot hold the lock (only `{"pid": N}`)
//! falls back to the CPU watcher: the session has ended when its process is gone, or when
//! its CPU time has not moved for `idle_after` (an agent waiting at a prompt forever).
//!
//! Invariant: a session leaves nothing behind. Its guard removes its file and its lock when
//! it ends; a session killed before its guard dropped (Ctrl-C on `cn chat`) is swept, file
//! and lock, by the next [`Sessions::active`] or [`Sessions::begin`] — as is a lock whose
//! process died before writing its file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// How old a lock without a session file must be before it is swept.
const SWEEP_AFTER: Duration = Duration::from_secs(10);

/// One running executive session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub pid: u32,
    /// What it is: `chat`, `loop`, a command's name.
    #[serde(default)]
    pub what: String,
    #[serde(default)]
    pub started: String,
}

/// Held while a session runs; dropping it ends the session (its file and lock are removed).
pub struct SessionGuard {
    path: PathBuf,
    lock: Option<cn_storage::ProcessLock>,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        // The lock file goes while still held (no other session can have taken it: the name
        // is this process's), then the lock is released.
        let _ = std::fs::remove_file(self.path.with_extension("lock"));
        drop(self.lock.take());
    }
}

/// The sessions of one hub (`state/sessions/`), with the CPU watcher's memory.
pub struct Sessions {
    dir: PathBuf,
    idle_after: Duration,
    watched: HashMap<u32, (u64, Instant)>,
}

impl Sessions {
    /// The sessions of the hub whose state directory is `state`.
    pub fn in_state(state: &Path) -> Sessions {
        Sessions { dir: state.join("sessions"), idle_after: Duration::from_secs(600), watched: HashMap::new() }
    }

    /// How long an unlocked session's process may use no CPU before it counts as ended.
    pub fn idle_after(mut self, d: Duration) -> Sessions {
        self.idle_after = d;
        self
    }

    /// Announce a session of this process (`what`: chat, loop …) until the guard drops.
    pub fn begin(&self, what: &str) -> std::io::Result<SessionGuard> {
        std::fs::create_dir_all(&self.dir)?;
        self.sweep_locks();
        let pid = std::process::id();
        let path = self.dir.join(format!("{pid}-{what}.json"));
        let lock = cn_storage::ProcessLock::try_acquire(&path.with_extension("lock"))?
            .ok_or_else(|| std::io::Error::other(format!("{} is held by another process", path.display())))?;
        let s = Session { pid, what: what.to_string(), started: cn_storage::now_rfc3339() };
        cn_storage::write_json_atomic(&path, &s)?;
        Ok(SessionGuard { path, lock: Some(lock) })
    }

    /// Remove what ended sessions left: a session file whose lock no process holds, with its
    /// lock (a chat killed by Ctrl-C), and a lock no process holds and no session file names
    /// (a process that died between taking its lock and writing its file, or an older cn's
    /// leftovers). A lock younger than [`SWEEP_AFTER`] without a file is left alone: its
    /// session may be starting right now. (A file without a lock is the CPU watcher's, in
    /// [`Sessions::active`].)
    fn sweep_locks(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        let settled = |e: &std::fs::DirEntry| {
            e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|a| a >= SWEEP_AFTER)
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "lock") {
                continue;
            }
            let file = path.with_extension("json");
            let ended = if file.exists() { true } else { settled(&e) };
            if ended && !cn_storage::ProcessLock::is_held(&path) {
                let _ = std::fs::remove_file(&file);
                let _ = std::fs::remove_file(&path);
            }
        }
    }

    /// The sessions running now; ended ones are removed.
    pub fn active(&mut self) -> Vec<Session> {
        self.sweep_locks();
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return Vec::new() };
        let mut out = Vec::new();
        for e in entries.flatten() {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let Some(s) = std::fs::read_to_string(&path).ok().and_then(|t| serde_json::from_str::<Session>(&t).ok())
            else {
                continue;
            };
            let lock = path.with_extension("lock");
            let running = if lock.exists() { cn_storage::ProcessLock::is_held(&lock) } else { self.busy(s.pid) };
            if running {
                out.push(s);
            } else {
                let _ = std::fs::remove_file(&path);
                let _ = std::fs::remove_file(&lock);
                self.watched.remove(&s.pid);
            }
        }
        out
    }

    /// The CPU watcher: whether `pid` still runs and has used CPU within `idle_after`.
    fn busy(&mut self, pid: u32) -> bool {
        let Some(ticks) = cpu_ticks(pid) else { return false };
        let now = Instant::now();
        let seen = self.watched.entry(pid).or_insert((ticks, now));
        if seen.0 != ticks {
            *seen = (ticks, now);
        }
        now.duration_since(seen.1) < self.idle_after || self.idle_after.is_zero() && seen.1 == now
    }
}

/// The CPU time (user + system, in clock ticks) `pid` has used; `None` when it is gone.
pub fn cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: fields count from the last `)`.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
    if fields.first() == Some(&"Z") {
        return None;
    }
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_session_is_active_until_its_guard_drops() {
        let dir = tempfile::tempdir().unwrap();
        let mut sessions = Sessions::in_state(dir.path());
        assert!(sessions.active().is_empty());
        let guard = sessions.begin("chat").unwrap();
        let active = sessions.active();
        assert_eq!(active.len(), 1);
        assert_eq!((active[0].pid, active[0].what.as_str()), (std::process::id(), "chat"));
        drop(guard);
        assert!(sessions.active().is_empty());
        assert!(std::fs::read_dir(dir.path().join("sessions")).unwrap().next().is_none(), "nothing left behind");
    }

    #[test]
    fn a_killed_sessions_file_and_lock_are_swept() {
        let dir = tempfile::tempdir().unwrap();
        let sessions_dir = dir.path().join("sessions");
        std::fs::create_dir_all(&sessions_dir).unwrap();
        // As a `cn chat` killed by Ctrl-C leaves them: its file, and its lock no one holds;
        // and a lock whose process died before writing its file.
        std::fs::write(sessions_dir.join("999999-chat.json"), r#"{"pid": 999999, "what": "chat"}"#).unwrap();
        std::fs::write(sessions_dir.join("999999-chat.lock"), "").unwrap();
        let old = std::fs::File::create(sessions_dir.join("999998-loop.lock")).unwrap();
        old.set_modified(std::time::SystemTime::now() - Duration::from_secs(60)).unwrap();
        // A lock just made, without its file yet: its session may be starting; kept.
        std::fs::write(sessions_dir.join("999996-chat.lock"), "").unwrap();
        assert!(Sessions::in_state(dir.path()).active().is_empty());
        assert!(sessions_dir.join("999996-chat.lock").exists(), "a fresh lock is left alone");
        std::fs::remove_file(sessions_dir.join("999996-chat.lock")).unwrap();
        assert!(std::fs::read_dir(&sessions_dir).unwrap().next().is_none(), "swept");
        // begin sweeps too, and keeps its own.
        let old = std::fs::File::create(sessions_dir.join("999997-chat.lock")).unwrap();
        old.set_modified(std::time::SystemTime::now() - Duration::from_secs(60)).unwrap();
        let guard = Sessions::in_state(dir.path()).begin("chat").unwrap();
        let left: Vec<_> = std::fs::read_dir(&sessions_dir).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left.len(), 2, "its own file and lock only: {left:?}");
        drop(guard);
    }

    #[test]
    fn the_cpu_watcher_ends_a_session_whose_process_is_gone_or_idle() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path();
        std::fs::create_dir_all(state.join("sessions")).unwrap();
        // A process that uses no CPU: idle from the first look on (idle_after zero).
        let mut child = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let write = |pid: u32| {
            std::fs::write(state.join(format!("sessions/{pid}-agent.json")), format!("{{\"pid\": {pid}}}")).unwrap()
        };
        write(child.id());
        let mut sessions = Sessions::in_state(state).idle_after(Duration::from_secs(3600));
        assert_eq!(sessions.active().len(), 1, "a live process with a fresh CPU reading is busy");
        let mut idle = Sessions::in_state(state).idle_after(Duration::ZERO);
        assert_eq!(idle.active().len(), 1, "first reading");
        assert!(idle.active().is_empty(), "no CPU since: ended, and its file removed");
        assert!(std::fs::read_dir(state.join("sessions")).unwrap().next().is_none());
        // A process that is gone.
        child.kill().unwrap();
        child.wait().unwrap();
        write(child.id());
        assert!(sessions.active().is_empty());
    }
}
