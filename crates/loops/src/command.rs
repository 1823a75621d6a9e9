//! Running a program as a component: `bash -O globstar -c COMMAND` in DIR, so the document's
//! `javac src/**/*.java` works literally, with `CN_LOOP_RUN` (absolute `loop-run/`) and
//! `CN_LOOP_ITERATION` in the environment. Standard output and error are captured together,
//! in the order the program wrote them. Run by `cn_hub::child`: a cleared environment (a
//! minimal `PATH`, `HOME`, `LANG`, the build variables of `COMPONENT_ENV`), a time limit, an
//! output cap, the whole process group killed; in the Landlock sandbox (`cn_hub::sandbox`)
//! unless task.md says `sandbox: false`: writes only in the tree outside `.git/` (in its
//! existing directories and files: a new top-level entry would need a right that reaches
//! `.git/` too) and a private `TMPDIR`, no network unless `sandbox: {network: true}`.

use std::time::Duration;

use cn_hub::child::{Child, ChildError};
use cn_hub::sandbox::Sandbox;

use crate::artifacts::LoopRun;
use crate::error::{LoopError, Result};

/// Most output kept in an artifact; beyond it the tail is kept (errors come last).
const MAX_OUTPUT: usize = 256 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRun {
    pub command: String,
    pub output: String,
    /// The exit code; `None` when a signal ended the program.
    pub code: Option<i32>,
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

/// Variables a component sees besides `cn_hub::child::BASE_ENV` and `CN_LOOP_*`: what a
/// build commonly needs, nothing secret.
const COMPONENT_ENV: &[&str] = &["JAVA_HOME", "CARGO_HOME", "RUSTUP_HOME", "GOPATH", "VIRTUAL_ENV"];

pub fn run_command(run: &LoopRun, role: &'static str, command: &str, iteration: u64) -> Result<CommandRun> {
    let spawn_error = |e: std::io::Error| LoopError::component_from(role, format!("cannot run `{command}`"), e);
    // The one child runner: a cleared environment, its own process group (killed whole at
    // the time limit or when bash exits), output read as it comes and capped.
    let mut child = Child::new("bash")
        .args(["-O", "globstar", "-c", command])
        .cwd(&run.dir)
        .pass_env(COMPONENT_ENV)
        .pass_env(&run.env)
        .env("CN_LOOP_RUN", &run.run)
        .env("CN_LOOP_ITERATION", iteration.to_string())
        .merge_stderr()
        .timeout(COMPONENT_TIMEOUT)
        .max_output(READ_MAX);
    // Writes only in the loop's tree (never its `.git/`: the loop's clock, and a hook or a
    // config written there would run outside the sandbox) and a private temporary directory;
    // no network; unless task.md's `sandbox:` says otherwise.
    let base = Sandbox::for_tree(&run.dir).way_out("`sandbox: false` in loop-run/task.md's frontmatter");
    if let Some(sandbox) = run.sandbox.widen(base) {
        child = child.sandbox(sandbox);
    }
    let ran = child.run();
    let (bytes, code, note) = match ran {
        Ok(out) if out.truncated => (out.stdout, None, format!("\n[output cut at {READ_MAX} bytes; stopped]\n")),
        Ok(out) => (out.stdout, out.status.and_then(|s| s.code()), String::new()),
        Err(ChildError::Spawn { source, .. }) => return Err(spawn_error(source)),
        Err(e @ ChildError::Sandbox(_)) => {
            return Err(spawn_error(std::io::Error::new(std::io::ErrorKind::PermissionDenied, e)))
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
    Ok(CommandRun { command: command.to_string(), output, code })
}
