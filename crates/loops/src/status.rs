//! `cn loop status`: the iteration, the status and the history, from git — plus what the
//! working tree says when it is ahead of the last commit (an iteration in progress, waiting
//! for a person, or failed).

use std::fmt;
use std::path::Path;

use crate::artifacts::{LoopRun, ORCHESTRATOR_OUTPUT};
use crate::error::{LoopError, Result};
use crate::git::{Git, LoopCommit};
use crate::orchestrator::{OrchestratorOutput, Status};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopStatus {
    /// The last committed iteration and its status.
    pub iteration: u64,
    pub status: Status,
    /// The loop's commits, oldest first (their bodies are the history lines).
    pub commits: Vec<LoopCommit>,
    /// The working tree's `orchestrator-output.md` state when it differs from the commit.
    pub pending: Option<(u64, Status)>,
}

pub fn status(dir: &Path) -> Result<LoopStatus> {
    let run = LoopRun::new(dir)?;
    let git = Git::open(&run.dir)?;
    let rel = LoopRun::rel(ORCHESTRATOR_OUTPUT);
    let committed = git.show_head(&rel).and_then(|t| OrchestratorOutput::state_of(&t)).ok_or_else(|| {
        LoopError::input(format!(
            "{}: no loop has committed here yet ({rel} is not in HEAD); start one with `cn loop run`",
            run.dir.display()
        ))
    })?;
    let on_disk = run.read(ORCHESTRATOR_OUTPUT)?.and_then(|t| OrchestratorOutput::state_of(&t));
    let pending = on_disk.filter(|s| *s != committed);
    Ok(LoopStatus { iteration: committed.0, status: committed.1, commits: git.loop_commits()?, pending })
}

impl fmt::Display for LoopStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "iteration: {}", self.iteration)?;
        writeln!(f, "status: {}", self.status)?;
        if let Some((n, st)) = self.pending {
            writeln!(f, "working tree: iteration {n} {st} (not committed)")?;
        }
        writeln!(f, "history:")?;
        for c in &self.commits {
            let short = c.sha.get(..7).unwrap_or(&c.sha);
            writeln!(f, "  {short} {}", c.body)?;
        }
        Ok(())
    }
}
