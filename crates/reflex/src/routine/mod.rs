//! The assistant's routine (issue 31): what a person says about their tasks, ideas and
//! schedule — "remind me to call the bank tomorrow at 10", "what's due this week?", "done with
//! the car insurance", "push the plumber to Monday", "drop the cello idea", "every Monday at 9
//! water the plants" — understood and done below the executive, on the hub's files.
//!
//! Three steps, each its own module: [`parse`] turns a message into typed [`Request`]s, or
//! says it is not routine, or that it must ask (a date it cannot read or that has passed, a
//! reminder that says no what or no when: [`Missing`]) — deterministically, with patterns
//! and the date reader [`crate::when`]; [`perform`] finds
//! what the words name (a task, an idea, a schedule entry), asks which when two match, and
//! changes the files, all or nothing; [`answer`] says exactly what changed. When the patterns
//! are unsure, [`classify`] lets the local model choose among the routine's intents under a
//! grammar — it never writes a task, a date or an answer. A question the routine asks is
//! kept for the conversation ([`pending`]), so the person's next message can answer it
//! ([`respond`] is the whole turn: the pending question first, then the message as new).
//!
//! Invariants: an effect is decided by the words and by who said them, never by a model; a
//! message with two requests has both done or both asked about; a stranger's or a peer's
//! message changes only what they filed themselves (tasks carry their `source`) and never the
//! schedule (its entries fire as the owner's own work); a file that cannot be read or written
//! leaves the request undone, with the reason.

pub mod answer;
pub mod classify;
pub mod corpus;
pub mod day;
pub mod device;
pub(crate) mod frames;
pub mod learned;
pub mod parse;
pub mod pending;
pub mod perform;
pub mod why;

use cn_hub::tasks::Filter;
use jiff::Zoned;

use crate::when::{Due, Every, WhenError};

pub use parse::{parse, recognizes};
pub use pending::{respond, Pending};
pub use perform::{act, perform, perform_chosen, Act, Chosen, Done, NameError, Outcome, RoutineError, World};

/// Whether the person said the words were about a task ("mark the tax thing as done", "the
/// plumber task"), or only made a statement that may be about one ("I called the plumber").
/// A statement acts only on a strong match, and one that matches nothing is not routine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    Explicit,
    Implicit,
}

/// Where a task is moved to.
#[derive(Debug, Clone)]
pub enum Target {
    /// A day and/or time ("to Monday", "until 9pm"): a day alone keeps the task's time.
    At(Due),
    /// Later by a span ("by an hour", "back a week"), from the due time or now, whichever is
    /// later.
    By(jiff::Span),
    /// "snooze" and nothing more: an hour later.
    Later,
    /// "move the plumber" and no time: asked.
    Unsaid,
}

impl PartialEq for Target {
    fn eq(&self, other: &Target) -> bool {
        match (self, other) {
            (Target::At(a), Target::At(b)) => a == b,
            (Target::By(a), Target::By(b)) => a.fieldwise() == b.fieldwise(),
            (Target::Later, Target::Later) | (Target::Unsaid, Target::Unsaid) => true,
            _ => false,
        }
    }
}

/// An answer to a reminder the person was told ("done", "snooze", "snooze 1 hour"): it acts
/// on the reminder last told in their conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Done,
    Snooze(Target),
}

/// One routine request, typed: what to do and the words that name what to do it to.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    AddTask {
        task: String,
        due: Option<Due>,
    },
    /// "every …": a schedule entry.
    AddEvery {
        action: String,
        every: Every,
    },
    ListTasks {
        filter: Filter,
    },
    Complete {
        words: String,
        said: Said,
    },
    Move {
        words: String,
        to: Target,
        said: Said,
    },
    /// A task, or — when no task matches — a schedule entry.
    Cancel {
        words: String,
        said: Said,
    },
    /// A question about one task ("when is my dentist appointment?"). Said only of what it
    /// may name ("when is the ice cream social?"), it acts on a strong match, and one that
    /// matches nothing is not routine.
    Show {
        words: String,
        said: Said,
    },
    AddIdea {
        idea: String,
    },
    ListIdeas,
    DropIdea {
        words: String,
    },
    ListSchedule,
    Unschedule {
        words: String,
    },
    /// "What's next?": the queue in sentences.
    Next,
    /// An answer to the reminder last told in this conversation.
    Reply {
        reply: Reply,
    },
}

impl Request {
    /// Whether it only reads (lists, shows): what the local model may choose and have done
    /// without the person confirming.
    pub fn reads_only(&self) -> bool {
        matches!(
            self,
            Request::ListTasks { .. }
                | Request::Show { .. }
                | Request::ListIdeas
                | Request::ListSchedule
                | Request::Next
        )
    }
}

/// What a request to be reminded (or to file a task or an event) left unsaid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Want {
    /// "set a reminder for 5pm": what to be reminded of.
    What,
    /// "remind me two days before my wife's birthday": when (a date relative to something
    /// the routine does not know is asked, never guessed).
    When,
    /// "set a reminder", "add a task": both.
    WhatAndWhen,
}

/// A request to file something that lacks a slot: asked about, nothing done. The answer
/// fills it ([`pending`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Missing {
    pub want: Want,
    /// What was said of the what ("my wife's birthday"), when `want` is [`Want::When`].
    pub what: Option<String>,
    /// The time that was said, when `want` is [`Want::What`].
    pub due: Option<Due>,
}

/// What a message is, for the routine.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// One or more requests, to be done together.
    Routine(Vec<Request>),
    /// A routine request whose time cannot be used: asked about, nothing done.
    Ask(WhenError),
    /// A request to file something that says no what, or no when: asked about, nothing done.
    Missing(Missing),
    /// Not the routine's: the executive's (or another reflex's).
    NotRoutine,
}

/// The time the routine runs at, in the hub's zone (`reflexes.time_zone`, else the system's).
pub fn now_in(time_zone: Option<&str>) -> Zoned {
    jiff::Timestamp::now().to_zoned(crate::when::time_zone(time_zone))
}

#[cfg(test)]
mod tests;
