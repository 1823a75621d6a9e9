//! A scripted model and an in-memory store: the parts a test (or a replay) needs to run the
//! whole loop without a network or a disk.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::{Answer, Level, ModelError, Outcome, Plan, Store};

/// Answers from a list, in order. When the list runs out it fails with `ModelError::Other`
/// rather than inventing an answer.
#[derive(Debug, Clone, Default)]
pub struct Scripted {
    answers: VecDeque<String>,
    name: String,
    /// Every plan it was asked, for tests to inspect.
    pub asked: Arc<Mutex<Vec<Plan>>>,
}

impl Scripted {
    pub fn new<I, S>(answers: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Scripted {
            answers: answers.into_iter().map(Into::into).collect(),
            name: "scripted".into(),
            asked: Default::default(),
        }
    }
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
    pub fn remaining(&self) -> usize {
        self.answers.len()
    }
}

impl crate::Model for Scripted {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        if let Ok(mut asked) = self.asked.lock() {
            asked.push(plan.clone());
        }
        let markdown = self
            .answers
            .pop_front()
            .ok_or_else(|| ModelError::Other(format!("{}: no scripted answer left", self.name)))?;
        Ok(Answer {
            tokens_in: (plan.system.len() + plan.prompt.len()) as u64 / 4,
            tokens_out: markdown.len() as u64 / 4,
            markdown,
            model: self.name.clone(),
            elapsed: Duration::ZERO,
        })
    }
}

/// What a [`MemoryStore`] recorded, shared so a test can look after the loop ends.
#[derive(Debug, Default)]
pub struct Memory {
    pub interactions: Vec<(Plan, Result<Answer, ModelError>)>,
    pub actions: Vec<(Level, Outcome)>,
}

#[derive(Debug, Clone, Default)]
pub struct MemoryStore {
    pub memory: Arc<Mutex<Memory>>,
}

impl Store for MemoryStore {
    fn interaction(&mut self, plan: &Plan, answer: &Result<Answer, ModelError>) {
        if let Ok(mut m) = self.memory.lock() {
            m.interactions.push((plan.clone(), answer.clone()));
        }
    }
    fn action(&mut self, level: Level, outcome: &Outcome) {
        if let Ok(mut m) = self.memory.lock() {
            m.actions.push((level, outcome.clone()));
        }
    }
}
