//! Where a `model:` component's answers come from. `local` and `executive` come from a
//! [`ModelFactory`] the caller supplies (the binary wires the providers), so this crate
//! never talks to a model itself. `scripted` is a replay facility for tests and demos:
//! `{model: scripted, answers: FILE}` where FILE (relative to DIR, or absolute) is YAML
//! mapping an iteration number to the answer's markdown:
//!
//! ```yaml
//! 1: |
//!   ---
//!   target-met: false
//!   ---
//!   Write src/main/java/Factorial.java …
//! ```
//!
//! Keyed by iteration rather than consumed in order, so a resumed loop replays the same
//! answer for the same iteration.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cn_compute::{Answer, Level, Model, Plan, Scripted};

use crate::error::{BoxError, LoopError, Result};

/// Makes the model for a `model: local | executive` component (`role` is "controller" or
/// "actuator"). An error is reported as bad input naming the task's field, with the
/// factory's error as its source.
pub trait ModelFactory {
    fn model(&mut self, role: &'static str, kind: &str) -> Result<Box<dyn Model>, BoxError>;
}

impl<F> ModelFactory for F
where
    F: FnMut(&'static str, &str) -> Result<Box<dyn Model>, BoxError>,
{
    fn model(&mut self, role: &'static str, kind: &str) -> Result<Box<dyn Model>, BoxError> {
        self(role, kind)
    }
}

/// What [`no_models`] says to every `local`/`executive` component.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("no model provider is configured for `{kind}`")]
pub struct NoModelProvider {
    pub kind: String,
}

/// A factory for callers without model providers: every `local`/`executive` is refused.
pub fn no_models(_role: &'static str, kind: &str) -> Result<Box<dyn Model>, BoxError> {
    Err(NoModelProvider { kind: kind.to_string() }.into())
}

pub enum ModelSource {
    Model { model: Box<dyn Model>, level: Level },
    Replay { file: PathBuf, answers: BTreeMap<u64, String> },
}

impl ModelSource {
    pub fn new(
        role: &'static str,
        kind: &str,
        answers: Option<&Path>,
        dir: &Path,
        factory: &mut dyn ModelFactory,
    ) -> Result<ModelSource> {
        let field = format!("loop-run/task.md: frontmatter field `{role}`");
        let bad = |m: String| LoopError::input(format!("{field}: {m}"));
        let bad_from = |m: String, e: BoxError| LoopError::input_from(format!("{field}: {m}"), e);
        if kind == "scripted" {
            let file =
                answers.map(|a| dir.join(a)).ok_or_else(|| bad("`model: scripted` needs `answers: FILE`".into()))?;
            let text = std::fs::read_to_string(&file)
                .map_err(|e| bad_from(format!("answers file {}", file.display()), e.into()))?;
            let answers: BTreeMap<u64, String> = serde_yaml_ng::from_str(&text).map_err(|e| {
                bad_from(
                    format!("answers file {}: expected a mapping of iteration number to markdown", file.display()),
                    e.into(),
                )
            })?;
            return Ok(ModelSource::Replay { file, answers });
        }
        let level = if kind == "local" { 2 } else { 3 };
        let model = factory.model(role, kind).map_err(|e| bad_from(format!("`model: {kind}`"), e))?;
        Ok(ModelSource::Model { model, level })
    }

    pub fn level(&self) -> Level {
        match self {
            ModelSource::Model { level, .. } => *level,
            ModelSource::Replay { .. } => 3,
        }
    }

    pub fn ask(&mut self, role: &'static str, plan: &Plan, iteration: u64) -> Result<Answer> {
        let answer = match self {
            ModelSource::Model { model, .. } => model.ask(plan),
            ModelSource::Replay { file, answers } => match answers.get(&iteration) {
                Some(a) => Scripted::new([a.clone()]).named("scripted").ask(plan),
                None => {
                    return Err(LoopError::component(
                        role,
                        format!("the answers file {} has no answer for iteration {iteration}", file.display()),
                    ))
                }
            },
        };
        answer.map_err(|e| LoopError::component_from(role, "the model gave no answer", e))
    }
}
