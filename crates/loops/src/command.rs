//! Running a program as a component: `bash -O globstar -c COMMAND` in DIR, so the document's
//! `javac src/**/*.java` works literally, with `CN_LOOP_RUN` (absolute `loop-run/`) and
//! `CN_LOOP_ITERATION` in the environment. Standard output and error are captured together,
//! in the order the program wrote them.

use std::io::Read;
use std::process::{Command, Stdio};

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

pub fn run_command(run: &LoopRun, role: &'static str, command: &str, iteration: u64) -> Result<CommandRun> {
    let spawn_error = |e: std::io::Error| LoopError::component_from(role, format!("cannot run `{command}`"), e);
    let (mut reader, writer) = std::io::pipe().map_err(spawn_error)?;
    let mut cmd = Command::new("bash");
    cmd.args(["-O", "globstar", "-c", command])
        .current_dir(&run.dir)
        .env("CN_LOOP_RUN", &run.run)
        .env("CN_LOOP_ITERATION", iteration.to_string())
        .stdin(Stdio::null())
        .stdout(writer.try_clone().map_err(spawn_error)?)
        .stderr(writer);
    let mut child = cmd.spawn().map_err(spawn_error)?;
    // The Command holds the pipe's write ends; drop it so reading ends when the child exits.
    drop(cmd);
    let mut bytes = Vec::new();
    reader.read_to_end(&mut bytes).map_err(spawn_error)?;
    let status = child.wait().map_err(spawn_error)?;
    let mut output = String::from_utf8_lossy(&bytes).into_owned();
    if output.len() > MAX_OUTPUT {
        let mut cut = output.len() - MAX_OUTPUT;
        while !output.is_char_boundary(cut) {
            cut += 1;
        }
        output = format!("[… {cut} bytes of earlier output left out …]\n{}", &output[cut..]);
    }
    Ok(CommandRun { command: command.to_string(), output, code: status.code() })
}
