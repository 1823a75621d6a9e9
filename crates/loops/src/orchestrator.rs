//! Orchestrator: the clock and the shared registry. It writes `orchestrator-output.md`
//! (frontmatter `iteration`, `status`, `max-iterations`; a status paragraph and the history
//! in the body) and commits everything at the end of each iteration — the one commit that is
//! the iteration's tick. The state of a loop is what git says: the last committed
//! `orchestrator-output.md`.
//!
//! Invariant: one commit per iteration, subject `loop: iteration N (status)`, body that
//! iteration's history line and a `Task-SHA256:` trailer (the task.md the run read, once, at
//! its start); the history in the body is rebuilt from those commits.

use std::fmt;

use cn_storage::Doc;
use serde_yaml_ng::{Mapping, Value};

use crate::artifacts::{LoopRun, ORCHESTRATOR_OUTPUT};
use crate::error::{LoopError, Result};
use crate::git::{self, Git};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Running,
    Complete,
    MaxIterations,
    WaitingForActuator,
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Complete => "complete",
            Status::MaxIterations => "max-iterations",
            Status::WaitingForActuator => "waiting-for-actuator",
            Status::Failed => "failed",
        }
    }
    pub fn parse(s: &str) -> Option<Status> {
        [Status::Running, Status::Complete, Status::MaxIterations, Status::WaitingForActuator, Status::Failed]
            .into_iter()
            .find(|st| st.as_str() == s)
    }
    /// The loop has ended; `cn loop run` has nothing to do.
    pub fn is_final(self) -> bool {
        matches!(self, Status::Complete | Status::MaxIterations)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `orchestrator-output.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrchestratorOutput {
    pub iteration: u64,
    pub status: Status,
    pub max_iterations: u64,
    /// The paragraph under `## Current status` (or `## Result` once the loop has ended).
    pub current: String,
    /// What a resumed run found uncommitted, kept and reported (`## Recovered`).
    pub recovered: Option<String>,
    /// One line per iteration, oldest first.
    pub history: Vec<String>,
}

impl OrchestratorOutput {
    pub fn render(&self) -> Doc {
        let mut front = Mapping::new();
        front.insert("iteration".into(), Value::Number(self.iteration.into()));
        front.insert("status".into(), self.status.as_str().into());
        front.insert("max-iterations".into(), Value::Number(self.max_iterations.into()));
        let heading = if self.status.is_final() { "Result" } else { "Current status" };
        let mut body = format!("# Orchestrator Output\n\n## {heading}\n\n{}\n", self.current.trim_end());
        if let Some(r) = &self.recovered {
            body.push_str(&format!("\n## Recovered\n\n{}\n", r.trim_end()));
        }
        body.push_str("\n## History\n\n");
        for line in &self.history {
            body.push_str(&format!("- {line}\n"));
        }
        Doc::new(front, body)
    }

    /// `(iteration, status)` from an `orchestrator-output.md`'s frontmatter.
    pub fn state_of(text: &str) -> Option<(u64, Status)> {
        let doc = Doc::parse(text).ok()?;
        let iteration = doc.get("iteration")?.as_u64()?;
        let status = Status::parse(doc.get_str("status")?)?;
        Some((iteration, status))
    }
}

pub trait Orchestrator {
    /// The last committed `(iteration, status)`; `None` when the loop never committed.
    fn committed(&mut self) -> Result<Option<(u64, Status)>>;
    /// Write `orchestrator-output.md` (its history is the committed lines plus `line`).
    fn record(&mut self, out: OrchestratorOutput) -> Result<()>;
    /// The history lines committed so far, oldest first.
    fn history(&self) -> &[String];
    /// Code changed since the last commit, `loop-run/` excluded (`path (created)` …),
    /// without staging: for checks before anything runs.
    fn changed_code(&mut self) -> Result<Vec<String>>;
    /// Stage everything for the coming commit; return the code paths that changed.
    fn stage(&mut self) -> Result<Vec<String>>;
    /// Commit everything (staged, plus what was written since): the iteration's tick.
    /// `line` becomes its history line.
    fn commit(&mut self, iteration: u64, status: Status, line: &str) -> Result<()>;
}

/// The orchestrator on a git working tree.
pub struct GitOrchestrator {
    pub run: LoopRun,
    pub git: Git,
    history: Vec<String>,
    /// The SHA-256 of the task.md this run read: the trailer of each commit.
    pub task_sha256: Option<String>,
    /// Whether `orchestrator-output.md` is tracked (committed once), so the commit takes it without staging everything again.
    tracked: bool,
}

impl GitOrchestrator {
    pub fn new(run: LoopRun, git: Git) -> Result<GitOrchestrator> {
        let history = git.loop_commits()?.into_iter().map(|c| c.body).collect();
        let tracked = git.show_head(&LoopRun::rel(ORCHESTRATOR_OUTPUT)).is_some();
        Ok(GitOrchestrator { run, git, history, task_sha256: None, tracked })
    }
}

impl Orchestrator for GitOrchestrator {
    fn committed(&mut self) -> Result<Option<(u64, Status)>> {
        let rel = LoopRun::rel(ORCHESTRATOR_OUTPUT);
        match self.git.show_head(&rel) {
            None => Ok(None),
            Some(text) => OrchestratorOutput::state_of(&text).map(Some).ok_or_else(|| {
                LoopError::input(format!(
                    "{rel} as committed at HEAD has no valid `iteration` and `status` frontmatter; restore it from an earlier commit"
                ))
            }),
        }
    }

    fn record(&mut self, out: OrchestratorOutput) -> Result<()> {
        self.run.write_doc(ORCHESTRATOR_OUTPUT, &out.render())
    }

    fn history(&self) -> &[String] {
        &self.history
    }

    fn changed_code(&mut self) -> Result<Vec<String>> {
        self.git.changed_code()
    }

    fn stage(&mut self) -> Result<Vec<String>> {
        self.git.stage()
    }

    fn commit(&mut self, iteration: u64, status: Status, line: &str) -> Result<()> {
        let body = match &self.task_sha256 {
            Some(h) => format!("{line}\n\n{}{h}", git::TASK_TRAILER),
            None => line.to_string(),
        };
        self.git.commit(&git::subject(iteration, status.as_str()), &body, !self.tracked)?;
        self.tracked = true;
        self.history.push(line.to_string());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_documents_shape_and_reads_back() {
        let out = OrchestratorOutput {
            iteration: 1,
            status: Status::Running,
            max_iterations: 10,
            current: "Loop is running. Iteration 1 completed. Target not yet met.".into(),
            recovered: None,
            history: vec!["**Iteration 0**: Initial measurement.".into()],
        };
        let text = out.render().render();
        assert_eq!(
            text,
            "---\niteration: 1\nstatus: running\nmax-iterations: 10\n---\n\n# Orchestrator Output\n\n## Current status\n\nLoop is running. Iteration 1 completed. Target not yet met.\n\n## History\n\n- **Iteration 0**: Initial measurement.\n"
        );
        assert_eq!(OrchestratorOutput::state_of(&text), Some((1, Status::Running)));
        let done = OrchestratorOutput { status: Status::Complete, ..out };
        assert!(done.render().render().contains("## Result\n"));
    }
}
