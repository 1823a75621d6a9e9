//! A run's progress (issue 33): one event per component per iteration — which component,
//! how long it took, the sensor's exit status, the controller's judgment — and one per
//! commit. `cn loop run` prints them as they come (a line each, or JSON with `--json`), and
//! each is appended to the loop's progress file in its git directory (outside the tree, so
//! never committed and never a component's to write), where the control room follows a
//! running loop ([`read`], [`running`]).
//!
//! Invariant: the progress file holds one run, the latest: `start` first, then its events,
//! then `end` (or `failed`); a crash leaves it without an end, and a dead pid says so.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::{LoopError, Result};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// A run started: the process, how components are sandboxed, the iteration it starts at.
    Start { dir: String, pid: u32, sandbox: String, iteration: u64 },
    /// A component finished its part of an iteration.
    Component {
        iteration: u64,
        /// `sensor`, `controller` or `actuator`.
        role: String,
        /// The sensor's name (task.md's key).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        elapsed_ms: u64,
        /// A command's exit status (`None`: killed by a signal, or not a command).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_status: Option<i32>,
        /// What came of it, in words: `exit 1`, `target not met`, …
        outcome: String,
    },
    /// The iteration's commit.
    Commit {
        iteration: u64,
        status: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        files_changed: Vec<String>,
    },
    /// The run ended (the loop ended, or waits for a person).
    End { iteration: u64, status: String },
    /// The run stopped on an error; nothing of the iteration is committed.
    Failed { iteration: u64, error: String },
}

impl Event {
    pub fn component(
        iteration: u64,
        role: &str,
        name: Option<&str>,
        elapsed: Duration,
        exit_status: Option<i32>,
        outcome: impl Into<String>,
    ) -> Event {
        Event::Component {
            iteration,
            role: role.to_string(),
            name: name.map(str::to_string),
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            exit_status,
            outcome: outcome.into(),
        }
    }
}

/// One line for people.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Start { dir, sandbox, iteration, .. } => {
                write!(f, "loop {dir}: from iteration {iteration}; sandbox: {sandbox}")
            }
            Event::Component { iteration, role, name, elapsed_ms, outcome, .. } => {
                let who = match name {
                    Some(n) => format!("{role} {n}"),
                    None => role.clone(),
                };
                write!(f, "iteration {iteration} · {who} · {outcome} · {:.2} s", *elapsed_ms as f64 / 1000.0)
            }
            Event::Commit { iteration, status, files_changed } => {
                write!(f, "iteration {iteration} · commit · {status}")?;
                if !files_changed.is_empty() {
                    write!(f, " · files changed: {}", files_changed.join(", "))?;
                }
                Ok(())
            }
            Event::End { iteration, status } => write!(f, "iteration {iteration} · end · {status}"),
            Event::Failed { iteration, error } => write!(f, "iteration {iteration} · failed · {error}"),
        }
    }
}

/// Who else hears of each event (the CLI prints them).
type Sink = Box<dyn FnMut(&Event)>;

/// Where a run's events go: its progress file and, when given, the caller.
pub struct Progress {
    file: Option<(PathBuf, std::fs::File)>,
    sink: Option<Sink>,
}

impl Progress {
    /// Events to nobody (tests, benchmarks).
    pub fn none() -> Progress {
        Progress { file: None, sink: None }
    }

    /// Start the progress file of the loop whose git directory is `git_dir` and DIR is
    /// `dir` (emptied: it holds the latest run).
    pub(crate) fn to_file(git_dir: &Path, dir: &Path) -> Result<Progress> {
        let path = file_of(git_dir, dir);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(LoopError::io(parent))?;
        }
        let file = std::fs::File::create(&path).map_err(LoopError::io(&path))?;
        Ok(Progress { file: Some((path, file)), sink: None })
    }

    /// Also hand every event to `sink` (the CLI prints them).
    pub fn with_sink(mut self, sink: impl FnMut(&Event) + 'static) -> Progress {
        self.sink = Some(Box::new(sink));
        self
    }

    pub fn emit(&mut self, event: Event) {
        if let Some((path, file)) = &mut self.file {
            // A line per event, written whole: a reader sees whole lines only.
            let mut line = serde_json::to_vec(&event).unwrap_or_default();
            line.push(b'\n');
            if let Err(e) = file.write_all(&line) {
                tracing::warn!(path = %path.display(), error = %e, "cannot record the loop's progress");
            }
        }
        if let Some(sink) = &mut self.sink {
            sink(&event);
        }
    }
}

/// The progress file of the loop at DIR: `<git dir>/cn-loops/<DIR's hash>.jsonl`.
fn file_of(git_dir: &Path, dir: &Path) -> PathBuf {
    use sha2::Digest;
    let key: String =
        sha2::Sha256::digest(dir.as_os_str().as_encoded_bytes()).iter().take(8).map(|b| format!("{b:02x}")).collect();
    git_dir.join("cn-loops").join(format!("{key}.jsonl"))
}

/// The latest run's events of the loop at `dir` (empty when none was recorded).
pub fn read(dir: &Path) -> Result<Vec<Event>> {
    let dir = dir.canonicalize().map_err(LoopError::io(dir))?;
    let git = crate::git::Git::open(&dir)?;
    let path = file_of(&git.git_dir()?, &dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(LoopError::Io { path, source: e }),
    };
    // A torn last line (a run writing it now) is left for the next read.
    Ok(text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect())
}

/// Whether these events are of a run still going: started, not ended, its process alive.
pub fn running(events: &[Event]) -> bool {
    let Some(Event::Start { pid, .. }) = events.first() else { return false };
    if matches!(events.last(), Some(Event::End { .. } | Event::Failed { .. })) {
        return false;
    }
    Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_print_a_line_and_round_trip_as_json() {
        let e = Event::component(1, "sensor", Some("compilation"), Duration::from_millis(412), Some(1), "exit 1");
        assert_eq!(e.to_string(), "iteration 1 · sensor compilation · exit 1 · 0.41 s");
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(
            json,
            r#"{"event":"component","iteration":1,"role":"sensor","name":"compilation","elapsed_ms":412,"exit_status":1,"outcome":"exit 1"}"#
        );
        assert_eq!(serde_json::from_str::<Event>(&json).unwrap(), e);
        let c = Event::Commit { iteration: 1, status: "running".into(), files_changed: vec!["src/A.java".into()] };
        assert_eq!(c.to_string(), "iteration 1 · commit · running · files changed: src/A.java");
        let start = Event::Start { dir: "/x".into(), pid: std::process::id(), sandbox: "s".into(), iteration: 0 };
        assert!(running(std::slice::from_ref(&start)));
        assert!(!running(&[start, Event::End { iteration: 2, status: "complete".into() }]));
    }
}
