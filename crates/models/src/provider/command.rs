//! The command provider: an external program gets the prompt on stdin and answers on
//! stdout — how a coding-agent command line (`claude -p`, `codex exec -`, ...) serves as the
//! executive.
//!
//! Invariants: the program runs with a deadline and is killed when it passes; a non-zero
//! exit or an empty answer is an error (with the tail of its stderr), never an answer. It
//! runs in the Landlock sandbox (`cn_process::sandbox`): it writes only its own temporary
//! directory (it may use the network: it reaches its API), unless its cn.yaml entry changes
//! that (`sandbox: {write: [~/.claude], network: false}`) or says `sandbox: false`; where the
//! kernel cannot sandbox it is refused with a message naming that way out.

use std::time::{Duration, Instant};

use cn_compute::{Answer, Model, ModelError, Plan};
use cn_process::child::{Child, ChildError};

use crate::config::{CommandLine, ConfigError, ProviderConfig};
use crate::http::estimate_tokens;

const MAX_OUTPUT: usize = 16 * 1024 * 1024;

#[derive(Debug, Clone)]
pub struct CommandModel {
    pub command: CommandLine,
    pub timeout: Duration,
    /// Reported as the answer's model.
    pub name: String,
    /// Variables of cn's environment the program sees (`env:` in its cn.yaml entry).
    pub env: Vec<String>,
    /// The sandbox it runs in (`sandbox:` in its entry); `None` when the entry says `false`.
    pub sandbox: Option<cn_process::sandbox::Sandbox>,
    /// The hub's state directory when the program is the executive: each call is an
    /// executive session there ([`crate::Sessions`]), so no daemon on the hub starts
    /// autonomous executive work meanwhile.
    pub session: Option<std::path::PathBuf>,
}

impl CommandModel {
    pub fn new(command: CommandLine, timeout: Duration) -> Self {
        let name = match &command {
            CommandLine::Shell(s) => s.split_whitespace().next().unwrap_or("command").to_string(),
            CommandLine::Argv(a) => a.first().cloned().unwrap_or_else(|| "command".into()),
        };
        let sandbox = Some(base_sandbox("the model's cn.yaml entry"));
        CommandModel { command, timeout, name, env: Vec::new(), sandbox, session: None }
    }

    /// Announce each call as an executive session in the hub whose state directory is `state`.
    pub fn with_session(mut self, state: &std::path::Path) -> Self {
        self.session = Some(state.to_path_buf());
        self
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
        m.env = cfg.env.clone();
        let base = base_sandbox(&format!("`{key}` in cn.yaml"));
        m.sandbox = cfg.sandbox.resolve(None).map(|w| base.widen(w.network, w.write));
        if let Some(model) = &cfg.model {
            m.name = model.clone();
        }
        Ok(m)
    }

    /// The child to run, fed `input`: `cn_process::child`'s runner, so the environment holds only
    /// `env`'s variables (and a minimal `PATH`, `HOME`, `LANG`), the program's whole process
    /// group is killed at the deadline or when it exits, and its answer is capped.
    fn child(&self, input: String) -> Child {
        let child = match &self.command {
            CommandLine::Shell(s) => Child::shell(s),
            // An empty list is refused by `from_config`; here it is a program that cannot run.
            CommandLine::Argv(a) => match a.split_first() {
                Some((program, args)) => Child::new(program).args(args),
                None => Child::new(""),
            },
        };
        let child = child.pass_env(&self.env).stdin(input).timeout(self.timeout).max_output(MAX_OUTPUT);
        match &self.sandbox {
            Some(sandbox) => child.sandbox(sandbox.clone()),
            None => child,
        }
    }
}

/// A command model's default sandbox: it writes only its own temporary directory (never the
/// hub: a coding agent fed a stranger's text could be talked into editing it) and may use the
/// network (a model's program reaches its API).
fn base_sandbox(entry: &str) -> cn_process::sandbox::Sandbox {
    let mut sandbox = cn_process::sandbox::Sandbox::nothing().way_out(format!("`sandbox: false` in {entry}"));
    sandbox.network = true;
    sandbox
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
        let _session = self.session.as_ref().and_then(|state| crate::Sessions::in_state(state).begin("command").ok());
        let out = match self.child(stdin_text(plan)).run() {
            Ok(out) => out,
            Err(ChildError::Spawn { source, .. }) => {
                return Err(ModelError::Connect(format!("cannot run `{}`: {source}", self.name)))
            }
            Err(e @ ChildError::Sandbox(_)) => return Err(ModelError::Other(cn_compute::chain(&e))),
            Err(ChildError::TimedOut { .. }) => {
                return Err(ModelError::Timeout(format!(
                    "`{}` did not answer within {:?}; killed it",
                    self.name, self.timeout
                )))
            }
        };
        let tail = |b: &[u8]| {
            let s = String::from_utf8_lossy(b);
            let s = s.trim();
            s.chars().rev().take(500).collect::<Vec<_>>().into_iter().rev().collect::<String>()
        };
        if out.truncated {
            return Err(ModelError::Cut(format!("`{}` answered more than {MAX_OUTPUT} bytes; stopped it", self.name)));
        }
        if !out.success() {
            let status = out.status.map_or("killed".to_string(), |s| s.to_string());
            return Err(ModelError::Other(format!("`{}` failed ({status}): {}", self.name, tail(&out.stderr))));
        }
        let stderr = out.stderr;
        let out = out.stdout;
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

    #[test]
    fn an_executive_call_is_a_session_while_it_runs() {
        let dir = tempfile::tempdir().unwrap();
        let listing = format!("cat > /dev/null; ls {}", dir.path().join("sessions").display());
        let mut m = CommandModel::new(CommandLine::Shell(listing), Duration::from_secs(10)).with_session(dir.path());
        let a = m.ask(&plan("x")).unwrap();
        assert!(a.markdown.contains(&format!("{}-command.json", std::process::id())), "{}", a.markdown);
        assert!(crate::Sessions::in_state(dir.path()).active().is_empty(), "the session ends with the call");
    }
}
