//! Running a program as a component: `bash -O globstar -c COMMAND`, so the document's
//! `javac src/**/*.java` works literally, with `CN_LOOP_RUN` (absolute `loop-run/`) and
//! `CN_LOOP_ITERATION` in the environment. Standard output and error are captured together,
//! in the order the program wrote them. Run by `cn_process::child`: a cleared environment (a
//! minimal `PATH`, `HOME`, `LANG`, the build variables of `COMPONENT_ENV`), a time limit, an
//! output cap, the whole process group killed; sandboxed (`cn_process::sandbox`) unless task.md
//! says `sandbox: false`, by role:
//!
//! - the **sensor** runs in the throwaway view of the tree (`crate::view`): it may write
//!   anything there, and nothing of it is kept;
//! - the **controller** writes only in `loop-run/` (its `controller-output.md`);
//! - the **actuator** writes anywhere in the tree but its git directory (with a user
//!   namespace, new top-level entries too; without one, in existing folders and those
//!   task.md's `sandbox: {write: [build]}` names).
//!
//! None may change the loop's files but its own output ([`crate::guard`]); no network unless
//! `sandbox: {network: true}`; a private `TMPDIR`.

use std::time::Duration;

use std::path::Path;
use std::time::Instant;

use cn_hub::SandboxSpec;
use cn_process::child::{Child, ChildError};
use cn_process::sandbox::{Overlay, Sandbox};
use cn_tools::sandbox::for_tree;

use crate::artifacts::{LoopRun, ACTUATOR_OUTPUT, CONTROLLER_OUTPUT};
use crate::error::{LoopError, Result};
use crate::guard::Guard;
use crate::view::View;

/// Which component a command is: what it may write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Sensor,
    Controller,
    Actuator,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Sensor => "sensor",
            Role::Controller => "controller",
            Role::Actuator => "actuator",
        }
    }

    /// The one file of `loop-run/` it may write.
    fn own(self) -> Option<&'static str> {
        match self {
            Role::Sensor => None,
            Role::Controller => Some(CONTROLLER_OUTPUT),
            Role::Actuator => Some(ACTUATOR_OUTPUT),
        }
    }
}

/// Most output kept in an artifact; beyond it the tail is kept (errors come last).
const MAX_OUTPUT: usize = 256 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRun {
    pub command: String,
    pub output: String,
    /// The exit code; `None` when a signal ended the program.
    pub code: Option<i32>,
    /// How long it ran.
    pub elapsed: Duration,
}

impl CommandRun {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
    /// `0`, `1`, or `killed by a signal`, for artifacts and history.
    pub fn status_text(&self) -> String {
        match self.code {
            Some(c) => c.to_string(),
            None => "killed by a signal".to_string(),
        }
    }
}

/// Longest one component may run; past it its whole process group is killed.
pub const COMPONENT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Most output read from one component (the artifact keeps the last [`MAX_OUTPUT`] of it);
/// a component writing more is stopped.
const READ_MAX: usize = 16 * 1024 * 1024;

/// Variables a component sees besides `cn_process::child::BASE_ENV` and `CN_LOOP_*`: what a
/// build commonly needs, nothing secret.
const COMPONENT_ENV: &[&str] = &["JAVA_HOME", "CARGO_HOME", "RUSTUP_HOME", "GOPATH", "VIRTUAL_ENV"];

/// Run `command` as `role`'s component in DIR (the sensor: in `view`, which it requires).
pub fn run_command(run: &LoopRun, role: Role, command: &str, iteration: u64) -> Result<CommandRun> {
    run_in(run, role, command, iteration, None, COMPONENT_TIMEOUT)
}

pub(crate) fn run_in(
    run: &LoopRun,
    role: Role,
    command: &str,
    iteration: u64,
    view: Option<&View>,
    timeout: Duration,
) -> Result<CommandRun> {
    let name = role.name();
    let spawn_error = |e: std::io::Error| LoopError::component_from(name, format!("cannot run `{command}`"), e);
    let cwd: &Path = view.map_or(&run.dir, |v| v.cwd(run));
    // The one child runner: a cleared environment, its own process group (killed whole at
    // the time limit or when bash exits), output read as it comes and capped.
    let mut child = Child::new("bash")
        .args(["-O", "globstar", "-c", command])
        .cwd(cwd)
        .pass_env(COMPONENT_ENV)
        .pass_env(&run.env)
        .env("CN_LOOP_RUN", &run.run)
        .env("CN_LOOP_ITERATION", iteration.to_string())
        .merge_stderr()
        .timeout(timeout)
        .max_output(READ_MAX);
    if let Some(sandbox) = sandbox(run, role, view) {
        child = child.sandbox(sandbox);
    }
    let guard = Guard::before(run, role.own())?;
    let started = Instant::now();
    let ran = child.run();
    let (bytes, code, note) = match ran {
        Ok(out) if out.truncated => (out.stdout, None, format!("\n[output cut at {READ_MAX} bytes; stopped]\n")),
        Ok(out) => (out.stdout, out.status.and_then(|s| s.code()), String::new()),
        Err(ChildError::Spawn { source, .. }) => return Err(spawn_error(source)),
        Err(ChildError::Sandbox(e)) => {
            return Err(LoopError::component_from(name, format!("cannot run `{command}`"), e))
        }
        Err(ChildError::TimedOut { output, after, .. }) => {
            (output.stdout, None, format!("\n[ran past {after:?}; killed with its process group]\n"))
        }
    };
    let mut output = String::from_utf8_lossy(&bytes).into_owned() + &note;
    if output.len() > MAX_OUTPUT {
        let mut cut = output.len() - MAX_OUTPUT;
        while !output.is_char_boundary(cut) {
            cut += 1;
        }
        output = format!("[… {cut} bytes of earlier output left out …]\n{}", &output[cut..]);
    }
    let elapsed = started.elapsed();
    guard.after(run, name, command)?;
    Ok(CommandRun { command: command.to_string(), output, code, elapsed })
}

/// The sandbox of `role` (see the module doc), or none when task.md says `sandbox: false`.
fn sandbox(run: &LoopRun, role: Role, view: Option<&View>) -> Option<Sandbox> {
    if run.sandbox == SandboxSpec::On(false) {
        return None;
    }
    let base = match (role, view) {
        (Role::Sensor, Some(View::Overlay(scratch))) => {
            let mut s = for_tree(&run.dir);
            s.overlay = Some(Overlay { dir: run.dir.clone(), scratch: scratch.path().to_path_buf() });
            s
        }
        (Role::Sensor, Some(View::Copy(copy))) => {
            let mut s = Sandbox::writes_in(copy.path());
            s.unreadable = cn_hub::protect::hub_tokens_above(&run.dir);
            s
        }
        (Role::Controller, _) => {
            let mut s = Sandbox::writes_in(&run.run);
            s.unreadable = cn_hub::protect::hub_tokens_above(&run.dir);
            s
        }
        (Role::Sensor | Role::Actuator, _) => for_tree(&run.dir),
    };
    // The running hub's secrets, wherever the tree lies (a tree outside the hub is not
    // covered by `hub_tokens_above`).
    let mut base = base;
    for p in &run.unreadable {
        if !base.unreadable.contains(p) {
            base.unreadable.push(p.clone());
        }
    }
    // The loop's files and a cn.yaml at the top, read-only where a namespace allows it (the
    // guard checks them after the run everywhere). The sensor's view keeps them anyway.
    let base = match role {
        Role::Sensor => base,
        _ => base.protect(Guard::protected(run, role.own())),
    }
    .way_out(WAY_OUT);
    run.sandbox.resolve(Some(&run.dir)).map(|w| base.widen(w.network, w.write))
}

/// What a refusal of the sandbox names.
const WAY_OUT: &str = "`sandbox: false` in loop-run/task.md's frontmatter";
