//! What the loop tests share: real git repositories in temp dirs, the loop run through
//! cn-loops's API (in this process, or in a child process of its own when a test must kill
//! it, attack it, or probe the sandbox under `CN_TEST_SANDBOX_WITHOUT`), how it ended as
//! `cn loop run` would report it, and readers for the artifacts as each commit holds them.
#![allow(dead_code)]

use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;

use cn_loops::progress::Event;
use cn_loops::{Defaults, LoopError, RunEnd};
use serde::{Deserialize, Serialize};

pub use cn_testkit::{git, loop_repo as repo, show, subjects, write_exec};

/// The Factorial file as the walkthrough's iteration 1 writes it: a missing return type
/// (line 3) and an unclosed brace (end of file at line 8).
pub const BROKEN: &str = "public class Factorial {\n\n    public factorial(int n) {\n        long result = 1;\n        for (int i = 2; i <= n; i++) {\n            result *= i;\n        }\n        return result;\n";
/// After iteration 2's two fixes.
pub const FIXED: &str = "public class Factorial {\n\n    public static long factorial(int n) {\n        long result = 1;\n        for (int i = 2; i <= n; i++) {\n            result *= i;\n        }\n        return result;\n    }\n}\n";

pub const JAVA: &str = "src/main/java/Factorial.java";

/// Commit shas, oldest first.
pub fn shas(dir: &Path) -> Vec<String> {
    git(dir, &["log", "--reverse", "--format=%H"]).lines().map(str::to_string).collect()
}

/// A file's frontmatter at a commit, as YAML text (between the `---` lines).
pub fn front(dir: &Path, sha: &str, file: &str) -> String {
    let t = show(dir, sha, &format!("loop-run/{file}"));
    if !t.starts_with("---\n") {
        return String::new();
    }
    let rest = &t[4..];
    rest[..rest.find("\n---\n").map(|i| i + 1).unwrap_or(0)].to_string()
}

/// `cn loop status DIR`'s text.
pub fn status(dir: &Path) -> String {
    cn_loops::status(dir).unwrap_or_else(|e| panic!("status: {}", cn_compute::chain(&e))).to_string()
}

/// How a run ended, as `cn loop run` tells it: its exit code is 0 for `Run` complete or
/// waiting for the actuator, 3 for `Run` with nothing to do, 2 for `Refused`, 1 otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ended {
    /// The loop ended, or pauses for a person: [`RunEnd`], its status in words.
    Run { iteration: u64, status: String, nothing_to_do: bool, recovered: Vec<String>, resumed_at: Option<u64> },
    /// Bad input, refused before anything ran: the error's chain.
    Refused(String),
    /// The run stopped on an error: the error's chain.
    Failed(String),
}

impl Ended {
    fn of(result: Result<RunEnd, LoopError>) -> Ended {
        match result {
            Ok(e) => Ended::Run {
                iteration: e.iteration,
                status: e.status.to_string(),
                nothing_to_do: e.nothing_to_do,
                recovered: e.recovered,
                resumed_at: e.resumed_at,
            },
            Err(e) if e.is_input() => Ended::Refused(cn_compute::chain(&e)),
            Err(e) => Ended::Failed(cn_compute::chain(&e)),
        }
    }
}

/// A run: how it ended and every progress event it sent (the lines `cn loop run` prints).
pub struct Ran {
    pub ended: Ended,
    pub events: Vec<Event>,
    /// A child process's stderr (empty for a run in this process).
    pub stderr: String,
}

impl Ran {
    /// The iteration and status it ended at; a run that did something.
    pub fn end(&self) -> (u64, &str) {
        match &self.ended {
            Ended::Run { iteration, status, nothing_to_do: false, .. } => (*iteration, status),
            _ => panic!("the loop did not run to an end: {self}"),
        }
    }

    /// It ran, and met the target at `iteration`.
    pub fn complete_at(&self, iteration: u64) {
        assert_eq!(self.end(), (iteration, "complete"), "{self}");
    }

    /// It ran and ended `complete` (`cn loop run`'s exit 0 and "complete — the target is met").
    pub fn complete(&self) {
        assert_eq!(self.end().1, "complete", "{self}");
    }

    /// The loop had ended (or still waits for a person): nothing ran (`cn loop`'s exit 3).
    pub fn nothing_to_do(&self) {
        assert!(matches!(self.ended, Ended::Run { nothing_to_do: true, .. }), "{self}");
    }

    /// Refused as bad input (`cn loop`'s exit 2): the message.
    pub fn refused(&self) -> &str {
        match &self.ended {
            Ended::Refused(m) => m,
            _ => panic!("not refused: {self}"),
        }
    }

    /// Stopped on an error (`cn loop`'s exit 1): the message.
    pub fn failed(&self) -> &str {
        match &self.ended {
            Ended::Failed(m) => m,
            _ => panic!("not failed: {self}"),
        }
    }

    /// `cn loop run`'s exit code for this end: 0 complete or waiting for the person acting,
    /// 1 stopped short of the target (or failed), 2 bad input, 3 nothing to do.
    pub fn exit_code(&self) -> i32 {
        match &self.ended {
            Ended::Run { nothing_to_do: true, .. } => 3,
            Ended::Run { status, .. } if status == "complete" || status == "waiting-for-actuator" => 0,
            Ended::Run { .. } | Ended::Failed(_) => 1,
            Ended::Refused(_) => 2,
        }
    }

    /// All `cn loop run` would say: the error (if it ended on one), the progress lines, and a
    /// child process's stderr.
    pub fn text(&self) -> String {
        let error = match &self.ended {
            Ended::Refused(m) | Ended::Failed(m) => m.as_str(),
            Ended::Run { .. } => "",
        };
        format!("{error}\n{}{}", self.lines(), self.stderr)
    }

    /// The progress lines `cn loop run` prints, one per event.
    pub fn lines(&self) -> String {
        self.events.iter().map(|e| format!("{e}\n")).collect()
    }

    /// How the components were sandboxed (the start event's words).
    pub fn sandbox(&self) -> String {
        self.events
            .iter()
            .find_map(|e| match e {
                Event::Start { sandbox, .. } => Some(sandbox.clone()),
                _ => None,
            })
            .unwrap_or_default()
    }
}

impl fmt::Display for Ran {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}\nprogress:\n{}stderr:\n{}", self.ended, self.lines(), self.stderr)
    }
}

/// `cn loop run DIR`, in this process, with no model providers (`model: scripted` replays).
pub fn run(dir: &Path) -> Ran {
    run_for(dir, false, None)
}

/// `cn loop done DIR`: the person acting as the actuator has finished.
pub fn done(dir: &Path) -> Ran {
    run_for(dir, true, None)
}

/// `cn [--hub HUB] loop run|done DIR` as the binary drives cn-loops: the defaults from the
/// hub's cn.yaml (or the nearest one above DIR), each event as it happens.
pub fn run_for(dir: &Path, done: bool, hub: Option<&Path>) -> Ran {
    let events = Rc::new(RefCell::new(Vec::new()));
    let sink = events.clone();
    let result = Defaults::load(dir, hub).and_then(|defaults| {
        cn_loops::run_with(dir, &defaults, &mut cn_loops::no_models, done, move |e| sink.borrow_mut().push(e.clone()))
    });
    let events = events.borrow().clone();
    Ran { ended: Ended::of(result), events, stderr: String::new() }
}

/// The loop in a child process of its own (this test binary's [`driver`]).
pub struct Driver {
    cmd: Command,
}

impl Driver {
    pub fn new(dir: &Path) -> Driver {
        let mut cmd = cn_testkit::child::test_command("support::driver");
        cmd.env("CN_LOOPS_TEST_DIR", dir).env_remove("CN_TEST_SANDBOX_WITHOUT");
        Driver { cmd }
    }

    /// The sandbox layers to take away (`CN_TEST_SANDBOX_WITHOUT`), if any.
    pub fn without(mut self, layers: Option<&str>) -> Driver {
        if let Some(w) = layers {
            self.cmd.env("CN_TEST_SANDBOX_WITHOUT", w);
        }
        self
    }

    /// Run for this hub (`cn --hub HUB loop run`).
    pub fn hub(mut self, hub: &Path) -> Driver {
        self.cmd.env("CN_LOOPS_TEST_HUB", hub);
        self
    }

    /// `cn loop done` rather than `run`.
    pub fn done(mut self) -> Driver {
        self.cmd.env("CN_LOOPS_TEST_DONE", "1");
        self
    }

    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Driver {
        self.cmd.env(key, value);
        self
    }

    /// The command, to wrap (`unshare … --`).
    pub fn command(self) -> Command {
        self.cmd
    }

    pub fn spawn(mut self) -> Child {
        self.cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the test binary runs")
    }

    pub fn run(self) -> Ran {
        finish(self.spawn())
    }
}

/// A [`Driver`]'s child, waited for: its run. Panics when it did not exit by itself (killed).
pub fn finish(child: Child) -> Ran {
    ran_of(child.wait_with_output().expect("the loop's process"))
}

/// What a [`Driver`]'s process reported.
pub fn ran_of(out: std::process::Output) -> Ran {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let mut events = Vec::new();
    let mut ended = None;
    for v in cn_testkit::child::said(&out.stdout) {
        if let Some(e) = v.get("event") {
            events.push(serde_json::from_value(e.clone()).expect("an event"));
        } else if let Some(e) = v.get("ended") {
            ended = Some(serde_json::from_value(e.clone()).expect("an end"));
        }
    }
    let Some(ended) = ended else {
        panic!("the loop's process ended without a report: {}", cn_testkit::text(&out));
    };
    assert!(out.status.success(), "the loop's process: {}", cn_testkit::text(&out));
    Ran { ended, events, stderr }
}

/// Not a test: the loop's own process for the tests that need one ([`Driver`]). Runs the
/// loop at `CN_LOOPS_TEST_DIR` (for `CN_LOOPS_TEST_HUB`; `done` with `CN_LOOPS_TEST_DONE`)
/// and reports each event as it happens, then how it ended.
#[test]
#[ignore = "the loop's process for the tests that kill or attack it (support::Driver); runs only as their child"]
fn driver() {
    let Some(dir) = std::env::var_os("CN_LOOPS_TEST_DIR").map(PathBuf::from) else { return };
    let hub = std::env::var_os("CN_LOOPS_TEST_HUB").map(PathBuf::from);
    let done = std::env::var_os("CN_LOOPS_TEST_DONE").is_some();
    let result = Defaults::load(&dir, hub.as_deref()).and_then(|defaults| {
        cn_loops::run_with(&dir, &defaults, &mut cn_loops::no_models, done, |e| {
            cn_testkit::child::say(&serde_json::json!({ "event": e }))
        })
    });
    cn_testkit::child::say(&serde_json::json!({ "ended": Ended::of(result) }));
}
