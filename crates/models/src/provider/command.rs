//! The command provider: an external program gets the prompt on stdin and answers on
//! stdout — how a coding-agent command line (`claude -p`, `codex exec -`, ...) serves as the
//! executive.
//!
//! Invariants: the program runs with a deadline and is killed when it passes; a non-zero
//! exit or an empty answer is an error (with the tail of its stderr), never an answer.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cn_compute::{Answer, Model, ModelError, Plan};

use crate::config::{CommandLine, ConfigError, ProviderConfig};
use crate::http::estimate_tokens;

const MAX_OUTPUT: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct CommandModel {
    pub command: CommandLine,
    pub timeout: Duration,
    /// Reported as the answer's model.
    pub name: String,
}

impl CommandModel {
    pub fn new(command: CommandLine, timeout: Duration) -> Self {
        let name = match &command {
            CommandLine::Shell(s) => s.split_whitespace().next().unwrap_or("command").to_string(),
            CommandLine::Argv(a) => a.first().cloned().unwrap_or_else(|| "command".into()),
        };
        CommandModel { command, timeout, name }
    }

    pub fn from_config(cfg: &ProviderConfig, key: &str) -> Result<Self, ConfigError> {
        let command = cfg.command.clone().ok_or_else(|| ConfigError::Invalid {
            key: format!("{key}.command"),
            message: "missing: the program that reads the prompt on stdin (e.g. `command: claude -p`)".into(),
        })?;
        let empty = match &command {
            CommandLine::Shell(s) => s.trim().is_empty(),
            CommandLine::Argv(a) => a.is_empty(),
        };
        if empty {
            return Err(ConfigError::Invalid { key: format!("{key}.command"), message: "is empty".into() });
        }
        let timeout = cfg.timeout_secs.map(Duration::from_secs).unwrap_or(super::DEFAULT_TIMEOUT);
        let mut m = CommandModel::new(command, timeout);
        if let Some(model) = &cfg.model {
            m.name = model.clone();
        }
        Ok(m)
    }

    fn spawn(&self) -> std::io::Result<std::process::Child> {
        let mut cmd = match &self.command {
            CommandLine::Shell(s) => {
                let mut c = Command::new("sh");
                c.arg("-c").arg(s);
                c
            }
            CommandLine::Argv(a) => {
                let mut c = Command::new(&a[0]);
                c.args(&a[1..]);
                c
            }
        };
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()
    }
}

/// The text the program reads: the system prompt, then the user prompt.
pub fn stdin_text(plan: &Plan) -> String {
    if plan.system.is_empty() {
        plan.prompt.clone()
    } else {
        format!("{}\n\n---\n\n{}", plan.system, plan.prompt)
    }
}

impl Model for CommandModel {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let started = Instant::now();
        let mut child = self.spawn().map_err(|e| ModelError::Connect(format!("cannot run `{}`: {e}", self.name)))?;
        // Feed stdin and drain stdout/stderr on threads so a full pipe never deadlocks us.
        let input = stdin_text(plan);
        let stdin = child.stdin.take();
        std::thread::spawn(move || {
            if let Some(mut s) = stdin {
                // A program that answers without reading all of stdin closes the pipe: fine.
                let _ = s.write_all(input.as_bytes());
            }
        });
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take();
        let out_tx = tx.clone();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let r = stdout.map(|s| s.take(MAX_OUTPUT).read_to_end(&mut buf));
            let _ = out_tx.send((true, buf, r.is_some_and(|r| r.is_ok())));
        });
        let stderr = child.stderr.take();
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = stderr.map(|s| s.take(MAX_OUTPUT).read_to_end(&mut buf));
            let _ = tx.send((false, buf, true));
        });
        let deadline = started + self.timeout;
        let mut stdout = None;
        let mut stderr = Vec::new();
        let mut pending = 2;
        while pending > 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok((true, buf, ok)) => {
                    stdout = Some((buf, ok));
                    pending -= 1;
                }
                Ok((false, buf, _)) => {
                    stderr = buf;
                    pending -= 1;
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(ModelError::Timeout(format!(
                        "`{}` did not answer within {:?}; killed it",
                        self.name, self.timeout
                    )));
                }
            }
        }
        // Both pipes closed: the program is exiting; wait for it within what is left.
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(ModelError::Timeout(format!(
                        "`{}` did not exit within {:?}; killed it",
                        self.name, self.timeout
                    )));
                }
                Err(e) => return Err(ModelError::Other(format!("`{}`: {e}", self.name))),
            }
        };
        let tail = |b: &[u8]| {
            let s = String::from_utf8_lossy(b);
            let s = s.trim();
            s.chars().rev().take(500).collect::<Vec<_>>().into_iter().rev().collect::<String>()
        };
        if !status.success() {
            return Err(ModelError::Other(format!("`{}` failed ({status}): {}", self.name, tail(&stderr))));
        }
        let (out, complete) = stdout.unwrap_or_default();
        if !complete {
            return Err(ModelError::Cut(format!("`{}`: could not read its whole output", self.name)));
        }
        let markdown = String::from_utf8(out)
            .map_err(|e| ModelError::Malformed(format!("`{}` answered non-UTF-8: {e}", self.name)))?;
        if markdown.trim().is_empty() {
            return Err(ModelError::Malformed(format!("`{}` answered nothing; stderr: {}", self.name, tail(&stderr))));
        }
        Ok(Answer {
            tokens_in: estimate_tokens(&plan.system) + estimate_tokens(&plan.prompt),
            tokens_out: estimate_tokens(&markdown),
            markdown,
            model: self.name.clone(),
            elapsed: started.elapsed(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(prompt: &str) -> Plan {
        Plan { level: 3, system: "sys".into(), prompt: prompt.into(), max_tokens: 10, ..Default::default() }
    }

    #[test]
    fn answers_with_stdout_of_the_program_fed_the_prompt() {
        let mut m = CommandModel::new(CommandLine::Shell("echo got; cat".into()), Duration::from_secs(10));
        let a = m.ask(&plan("hello")).unwrap();
        assert_eq!(a.markdown, "got\nsys\n\n---\n\nhello");
    }

    #[test]
    fn a_slow_program_is_killed_at_the_deadline() {
        let mut m = CommandModel::new(CommandLine::Argv(vec!["sleep".into(), "30".into()]), Duration::from_millis(200));
        let started = Instant::now();
        let e = m.ask(&plan("x")).unwrap_err();
        assert!(matches!(e, ModelError::Timeout(_)), "{e:?}");
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn failure_and_silence_are_errors_not_answers() {
        let mut m = CommandModel::new(CommandLine::Shell("echo boom >&2; exit 3".into()), Duration::from_secs(10));
        let e = m.ask(&plan("x")).unwrap_err();
        assert!(e.to_string().contains("boom"), "{e}");
        let mut m = CommandModel::new(CommandLine::Shell("cat >/dev/null".into()), Duration::from_secs(10));
        assert!(matches!(m.ask(&plan("x")).unwrap_err(), ModelError::Malformed(_)));
        let mut m = CommandModel::new(CommandLine::Argv(vec!["/nonexistent/agent".into()]), Duration::from_secs(10));
        assert!(matches!(m.ask(&plan("x")).unwrap_err(), ModelError::Connect(_)));
    }
}
