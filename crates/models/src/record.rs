//! Recording and replay. The recording decorator on `ask` appends every real interaction
//! (the plan, then the answer or the error) to a JSONL file; [`Replay`] plays such a file
//! back in order, so a run against a real model becomes a test that needs no network.
//!
//! Invariant: one interaction is one line written with a single write (the journal's
//! append), so a crash leaves at most one partial last line, which replay skips.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use cn_compute::{Answer, AskFn, Decorator, Model, ModelError, Plan, State};
use cn_storage::Journal;
use serde::{Deserialize, Serialize};

/// One recorded interaction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interaction {
    pub plan: Plan,
    #[serde(flatten)]
    pub result: Recorded,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recorded {
    Answer(Answer),
    Error(ModelError),
}

/// Appends interactions to a file.
#[derive(Debug)]
pub struct Recorder {
    journal: Journal,
}

impl Recorder {
    pub fn open(path: impl Into<PathBuf>) -> std::io::Result<Recorder> {
        Ok(Recorder { journal: Journal::open(path)? })
    }

    pub fn record(&mut self, plan: &Plan, result: &Result<Answer, ModelError>) -> std::io::Result<()> {
        let result = match result {
            Ok(a) => Recorded::Answer(a.clone()),
            Err(e) => Recorded::Error(e.clone()),
        };
        self.journal.append_value(&Interaction { plan: plan.clone(), result })
    }
}

/// The recording decorator on `ask`. A failure to record is logged, never turned into a
/// failed ask: the answer is real either way.
pub fn recording(path: impl Into<PathBuf>) -> std::io::Result<Decorator> {
    let recorder = Arc::new(Mutex::new(Recorder::open(path)?));
    Ok(Decorator::Ask(Box::new(move |mut inner: AskFn| -> AskFn {
        Box::new(move |state: &mut State, plan: Plan| {
            let kept = plan.clone();
            let result = inner(state, plan);
            if let Ok(mut r) = recorder.lock() {
                if let Err(e) = r.record(&kept, &result) {
                    tracing::warn!(error = %cn_compute::Chain(&e), "could not record the interaction");
                }
            }
            result
        })
    })))
}

/// A `Model` wrapper that records what its inner model answers (for code that asks a model
/// directly, outside the kernel's verbs, like `cn ask`).
#[derive(Debug)]
pub struct Recording<M> {
    pub inner: M,
    recorder: Recorder,
}

impl<M: Model> Recording<M> {
    pub fn new(inner: M, path: impl Into<PathBuf>) -> std::io::Result<Self> {
        Ok(Recording { inner, recorder: Recorder::open(path)? })
    }
}

impl<M: Model> Model for Recording<M> {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let result = self.inner.ask(plan);
        if let Err(e) = self.recorder.record(plan, &result) {
            tracing::warn!(error = %cn_compute::Chain(&e), "could not record the interaction");
        }
        result
    }
}

/// Why a recording cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file cannot be read (the journal reader's error names the file).
    #[error(transparent)]
    Read(#[from] std::io::Error),
    #[error("{}: interaction {number}", path.display())]
    Interaction { path: PathBuf, number: usize, source: serde_json::Error },
}

/// Plays a recording back, in order. Runs out with `ModelError::Other`, never invents.
#[derive(Debug, Clone)]
pub struct Replay {
    queue: VecDeque<Interaction>,
    name: String,
}

impl Replay {
    pub fn new(interactions: impl IntoIterator<Item = Interaction>) -> Self {
        Replay { queue: interactions.into_iter().collect(), name: "replay".into() }
    }

    /// Load a file the recorder wrote; lines that are not interactions are errors naming
    /// their line (a torn last line is skipped, as the journal reader does).
    pub fn from_file(path: &Path) -> Result<Replay, ReplayError> {
        let read = Journal::read(path)?;
        let mut queue = VecDeque::with_capacity(read.entries.len());
        for (i, entry) in read.entries.into_iter().enumerate() {
            let it: Interaction = serde_json::from_value(serde_json::Value::Object(entry.0))
                .map_err(|source| ReplayError::Interaction { path: path.to_path_buf(), number: i + 1, source })?;
            queue.push_back(it);
        }
        Ok(Replay { queue, name: format!("replay:{}", path.display()) })
    }

    pub fn remaining(&self) -> usize {
        self.queue.len()
    }
}

impl Model for Replay {
    fn ask(&mut self, _plan: &Plan) -> Result<Answer, ModelError> {
        match self.queue.pop_front() {
            Some(Interaction { result: Recorded::Answer(a), .. }) => Ok(a),
            Some(Interaction { result: Recorded::Error(e), .. }) => Err(e),
            None => Err(ModelError::Other(format!("{}: no recorded interaction left", self.name))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_compute::Scripted;

    #[test]
    fn what_is_recorded_replays_in_order_errors_included() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("rec.jsonl");
        let mut rec = Recording::new(Scripted::new(["```yaml\ntool: noop\n```"]), &path).unwrap();
        let plan = Plan { level: 2, prompt: "hi".into(), ..Default::default() };
        let first = rec.ask(&plan).unwrap();
        let second = rec.ask(&plan).unwrap_err(); // the script ran out
        drop(rec);
        let mut replay = Replay::from_file(&path).unwrap();
        assert_eq!(replay.remaining(), 2);
        assert_eq!(replay.ask(&plan).unwrap(), first);
        assert_eq!(replay.ask(&plan).unwrap_err(), second);
        assert!(replay.ask(&plan).is_err());
    }
}
