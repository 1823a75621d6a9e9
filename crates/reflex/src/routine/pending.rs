//! The question the routine asked, kept for the conversation it was asked in, so that the
//! person's next message there can answer it: "set a reminder" → "What should I remind you
//! of, and when?" → "call the bank tomorrow at 10"; "cancel the dentist" → "Two tasks match
//! …" → "the appointment". One entry per conversation, in `state/routine-pending.json` (a
//! runtime file, never committed), holding the message's requests as read, the question
//! (what is missing, the candidates' ids and names, the task to move), and when it was asked.
//!
//! [`respond`] is one turn: the message first tries to answer the question pending in its
//! conversation ([`answer`], deterministic); what answers nothing drops the question and is
//! read as new by the caller's `understand` (the patterns, or a learned layer) and done as
//! always ([`super::perform`]). A question the turn asks replaces the one before.
//!
//! Invariants: a conversation is who said it and where ([`conversation`]): a stranger in the
//! owner's group chat never answers the owner's question; a question expires [`TTL`] after it
//! was asked; "never mind" to a question changes nothing; only the next message may answer
//! (the engine drops the question when another reflex, or none, takes a person's message
//! there); the file is changed under the state directory's lock, written whole (temp file
//! and rename), and one that cannot be read or written loses the question, never a request.

use std::path::Path;
use std::sync::OnceLock;

use cn_hub::origin::AnswerTo;
use cn_hub::tasks::{Filter, JsonList, StateError, Timestamp};
use cn_hub::words::{best, content, Fit};
use cn_hub::Provenance;
use jiff::Zoned;
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::frames::trim_words;
use super::parse::{clean, unquote};
use super::perform::{dismissed, perform, perform_chosen, Chosen, Done, Kind, Outcome, RoutineError, World};
use super::{Missing, Parsed, Reply, Request, Said, Target, Want};
use crate::when::{self, Due, Every};

/// The file, in the hub's state directory.
pub const FILE: &str = "routine-pending.json";

/// How long a question waits for its answer.
pub const TTL: jiff::SignedDuration = jiff::SignedDuration::from_mins(30);

/// A question the routine asked, waiting for the person's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    /// Who asked, and where ([`conversation`]).
    pub conversation: String,
    /// When the question was asked: it expires [`TTL`] later.
    pub asked: Timestamp,
    /// The message the question is about (its words, as said).
    pub message: String,
    /// The message's requests, as they were read (the one asked about among them).
    #[serde(default)]
    pub requests: Vec<Stored>,
    pub question: Question,
}

/// What was asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "ask", rename_all = "snake_case")]
pub enum Question {
    /// A request to file something said no what, or no when.
    Missing {
        want: Want,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        what: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        due: Option<StoredDue>,
    },
    /// Which of `candidates` request number `index` is about.
    Which { index: usize, kind: String, candidates: Vec<Candidate> },
    /// To when request number `index` moves `task`.
    When { index: usize, task: String },
    /// The message's `phrase` is no date that can be used: another is asked.
    Date { phrase: String },
}

/// One of the things a "which one?" named.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub id: String,
    pub name: String,
}

/// A due time as read, in UTC (the zone is the hub's when it is used again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredDue {
    pub at: Timestamp,
    pub phrase: String,
    #[serde(default)]
    pub rest: String,
    pub day_given: bool,
    pub time_given: bool,
}

impl StoredDue {
    fn of(due: &Due) -> StoredDue {
        StoredDue {
            at: due.at.timestamp(),
            phrase: due.phrase.clone(),
            rest: due.rest.clone(),
            day_given: due.day_given,
            time_given: due.time_given,
        }
    }
    fn due(&self, now: &Zoned) -> Due {
        Due {
            at: self.at.to_zoned(now.time_zone().clone()),
            phrase: self.phrase.clone(),
            rest: self.rest.clone(),
            day_given: self.day_given,
            time_given: self.time_given,
        }
    }
}

/// Where a task moves to, as said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "to", rename_all = "snake_case")]
pub enum StoredTarget {
    At {
        due: StoredDue,
    },
    /// A span, ISO 8601 (`PT1H`).
    By {
        span: String,
    },
    Later,
    Unsaid,
}

impl StoredTarget {
    fn of(t: &Target) -> StoredTarget {
        match t {
            Target::At(d) => StoredTarget::At { due: StoredDue::of(d) },
            Target::By(s) => StoredTarget::By { span: s.to_string() },
            Target::Later => StoredTarget::Later,
            Target::Unsaid => StoredTarget::Unsaid,
        }
    }
    fn target(&self, now: &Zoned) -> Target {
        match self {
            StoredTarget::At { due } => Target::At(due.due(now)),
            StoredTarget::By { span } => span.parse().map_or(Target::Unsaid, Target::By),
            StoredTarget::Later => Target::Later,
            StoredTarget::Unsaid => Target::Unsaid,
        }
    }
}

/// A [`Request`], as the file keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Stored {
    AddTask {
        task: String,
        due: Option<StoredDue>,
    },
    AddEvery {
        action: String,
        cron: String,
        human: String,
        phrase: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<Timestamp>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stride: Option<cn_hub::schedule::Stride>,
    },
    ListTasks {
        filter: Filter,
    },
    Complete {
        words: String,
        explicit: bool,
    },
    Move {
        words: String,
        to: StoredTarget,
        explicit: bool,
    },
    Cancel {
        words: String,
        explicit: bool,
    },
    Show {
        words: String,
        #[serde(default = "explicit_by_default")]
        explicit: bool,
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
    Next,
    ReplyDone,
    ReplySnooze {
        to: StoredTarget,
    },
}

/// (A question kept before it said how it was asked was asked of a task.)
fn explicit_by_default() -> bool {
    true
}

fn said(explicit: bool) -> Said {
    if explicit {
        Said::Explicit
    } else {
        Said::Implicit
    }
}

impl Stored {
    pub fn of(r: &Request) -> Stored {
        let explicit = |s: &Said| *s == Said::Explicit;
        match r {
            Request::AddTask { task, due } => {
                Stored::AddTask { task: task.clone(), due: due.as_ref().map(StoredDue::of) }
            }
            Request::AddEvery { action, every } => Stored::AddEvery {
                action: action.clone(),
                cron: every.cron.clone(),
                human: every.human.clone(),
                phrase: every.phrase.clone(),
                until: every.until.as_ref().map(Zoned::timestamp),
                stride: every.stride,
            },
            Request::ListTasks { filter } => Stored::ListTasks { filter: *filter },
            Request::Complete { words, said } => Stored::Complete { words: words.clone(), explicit: explicit(said) },
            Request::Move { words, to, said } => {
                Stored::Move { words: words.clone(), to: StoredTarget::of(to), explicit: explicit(said) }
            }
            Request::Cancel { words, said } => Stored::Cancel { words: words.clone(), explicit: explicit(said) },
            Request::Show { words, said } => Stored::Show { words: words.clone(), explicit: explicit(said) },
            Request::AddIdea { idea } => Stored::AddIdea { idea: idea.clone() },
            Request::ListIdeas => Stored::ListIdeas,
            Request::DropIdea { words } => Stored::DropIdea { words: words.clone() },
            Request::ListSchedule => Stored::ListSchedule,
            Request::Unschedule { words } => Stored::Unschedule { words: words.clone() },
            Request::Next => Stored::Next,
            Request::Reply { reply: Reply::Done } => Stored::ReplyDone,
            Request::Reply { reply: Reply::Snooze(to) } => Stored::ReplySnooze { to: StoredTarget::of(to) },
        }
    }

    /// The request again, its times in `now`'s zone.
    pub fn request(&self, now: &Zoned) -> Request {
        match self {
            Stored::AddTask { task, due } => {
                Request::AddTask { task: task.clone(), due: due.as_ref().map(|d| d.due(now)) }
            }
            Stored::AddEvery { action, cron, human, phrase, until, stride } => Request::AddEvery {
                action: action.clone(),
                every: Every {
                    cron: cron.clone(),
                    human: human.clone(),
                    phrase: phrase.clone(),
                    rest: action.clone(),
                    clock: true,
                    until: until.map(|u| u.to_zoned(now.time_zone().clone())),
                    stride: *stride,
                },
            },
            Stored::ListTasks { filter } => Request::ListTasks { filter: *filter },
            Stored::Complete { words, explicit } => Request::Complete { words: words.clone(), said: said(*explicit) },
            Stored::Move { words, to, explicit } => {
                Request::Move { words: words.clone(), to: to.target(now), said: said(*explicit) }
            }
            Stored::Cancel { words, explicit } => Request::Cancel { words: words.clone(), said: said(*explicit) },
            Stored::Show { words, explicit } => Request::Show { words: words.clone(), said: said(*explicit) },
            Stored::AddIdea { idea } => Request::AddIdea { idea: idea.clone() },
            Stored::ListIdeas => Request::ListIdeas,
            Stored::DropIdea { words } => Request::DropIdea { words: words.clone() },
            Stored::ListSchedule => Request::ListSchedule,
            Stored::Unschedule { words } => Request::Unschedule { words: words.clone() },
            Stored::Next => Request::Next,
            Stored::ReplyDone => Request::Reply { reply: Reply::Done },
            Stored::ReplySnooze { to } => Request::Reply { reply: Reply::Snooze(to.target(now)) },
        }
    }
}

/// The conversation a message is in: who said it, and where they are answered (the channel,
/// the chat, the address — as a reminder told there is found, `World::reminded`); with no
/// place to answer, who alone.
pub fn conversation(answer: Option<&AnswerTo>, who: &Provenance) -> String {
    match answer {
        Some(a) => {
            // As keys were written when these were an answer's `channel` and `to`.
            let (channel, to) = match a {
                AnswerTo::Telegram { chat: channel, .. } | AnswerTo::Discord { channel, .. } => (channel.as_str(), ""),
                AnswerTo::Email { to, .. } | AnswerTo::Peer { to } => ("", to.as_str()),
                AnswerTo::Chat | AnswerTo::None => ("", ""),
            };
            format!("{} via {}|{channel}|{to}", who.label(), a.via())
        }
        None => who.label(),
    }
}

/// The questions waiting in a hub.
#[derive(Debug, Clone)]
pub struct Store {
    list: JsonList<Pending>,
}

impl Store {
    /// `state/routine-pending.json` of the hub at `root`.
    pub fn of(root: &Path) -> Store {
        Store { list: JsonList::at(cn_hub::Layout::new(root).state().join(FILE)) }
    }

    /// The question waiting in `conversation` at `now`, if one was asked less than [`TTL`]
    /// ago.
    pub fn get(&self, conversation: &str, now: Timestamp) -> Result<Option<Pending>, StateError> {
        if !self.list.path().exists() {
            return Ok(None);
        }
        Ok(self.list.load()?.into_iter().find(|p| p.conversation == conversation && live(p, now)))
    }

    /// Keep `pending` as its conversation's one question (the one before, if any, replaced);
    /// expired ones go.
    pub fn put(&self, pending: Pending, now: Timestamp) -> Result<(), StateError> {
        self.list.change(|all| {
            all.retain(|p| p.conversation != pending.conversation && live(p, now));
            all.push(pending);
            ((), true)
        })
    }

    /// Drop the question of `conversation` (and any expired one); the file is untouched when
    /// there was none.
    pub fn clear(&self, conversation: &str, now: Timestamp) -> Result<(), StateError> {
        if !self.list.path().exists() {
            return Ok(());
        }
        self.list.change(|all| {
            let before = all.len();
            all.retain(|p| p.conversation != conversation && live(p, now));
            ((), all.len() != before)
        })
    }
}

fn live(p: &Pending, now: Timestamp) -> bool {
    p.asked <= now && now.duration_since(p.asked) < TTL
}

/// What a message does to the question pending in its conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// It answers: `parsed` (the message's requests, or the request it completes) is done,
    /// request number `.0` of it as `.1` chose.
    Do { parsed: Box<Parsed>, chosen: Option<(usize, Chosen)>, message: String },
    /// "Never mind": the question is dropped, nothing done.
    Dismissed,
}

use super::parse::{pattern, re};

pattern!(
    dismiss_re,
    "dismiss",
    r"(?i)^(?:never\s*mind|nvm|cancel(?:\s+(?:that|it|this))?|forget\s+(?:it|that|about\s+it)|no|nope|nah|none|neither|neither\s+one|none\s+of\s+them|stop|stop\s+it|leave\s+it|skip\s+it|don'?t|no\s+thanks|no\s+thank\s+you|not\s+now|nothing)(?:[\s,]+(?:thanks|then|please|after\s+all))*$"
);
pattern!(
    ordinal_re,
    "ordinal",
    r"(?i)^(?:(?:the|number|no\.?|#)\s*)?(?:(?P<first>first|1st|1)|(?P<second>second|2nd|2|two)|(?P<third>third|3rd|3|three)|(?P<fourth>fourth|4th|4|four)|(?P<last>last|latter))(?:\s+(?:one|task|idea|entry))?$"
);
pattern!(
    all_re,
    "all",
    r"(?i)^(?:(?:yes|yeah|ok|okay)[\s,]+)?(?:both|both\s+of\s+them|all|all\s+of\s+them|all\s+(?:two|three|four|\d+)|each|every\s+one|them\s+all)$"
);
pattern!(
    filler_re,
    "answer filler",
    r"(?i)^(?:(?:remind\s+me\s+(?:to|about|of)|it'?s|it\s+is|that'?s|that\s+is|make\s+it|(?:move|push|put)\s+it(?:\s+to)?|about|of|to|for|at|on|until|till|by|um|uh|well|oh|hmm|let'?s\s+say|say)\s+)+"
);

/// The message cleaned as an answer is: politeness gone, then "to", "remind me to", "it's"
/// and the like at its start.
fn answer_words(text: &str) -> Option<String> {
    let t = clean(text)?;
    let t = filler_re().replace(&t, "").trim().to_string();
    (!t.is_empty()).then_some(t)
}

/// Whether `text` is a request or a question of its own, not an answer to one: read as new.
fn new_request(text: &str, now: &Zoned) -> bool {
    text.trim_end().ends_with('?')
        || match super::parse(text, now) {
            Parsed::Routine(r) => r.iter().any(|r| !matches!(r, Request::AddTask { .. })),
            Parsed::Missing(_) => true,
            Parsed::Ask(_) | Parsed::NotRoutine => false,
        }
}

/// What `text`, said in `p`'s conversation at `now`, does to its question: `None` when it
/// answers nothing (it is a new message).
pub fn answer(p: &Pending, text: &str, now: &Zoned) -> Option<Answer> {
    let cleaned = clean(text).unwrap_or_default();
    if dismiss_re().is_match(cleaned.trim()) {
        return Some(Answer::Dismissed);
    }
    let requests = || Parsed::Routine(p.requests.iter().map(|r| r.request(now)).collect());
    let original =
        |chosen| Some(Answer::Do { parsed: Box::new(requests()), chosen: Some(chosen), message: p.message.clone() });
    match &p.question {
        Question::Missing { want: Want::When, what, .. } => {
            let what = what.clone()?;
            let due = time_only(text, now)?;
            let parsed = Parsed::Routine(vec![Request::AddTask { task: what, due: Some(due) }]);
            Some(Answer::Do { parsed: Box::new(parsed), chosen: None, message: text.to_string() })
        }
        Question::Missing { due, .. } => {
            if new_request(text, now) {
                return None;
            }
            let words = answer_words(text)?;
            let (task, due) = match when::parse(&words, now) {
                Ok(Some(d)) => (unquote(&trim_words(&d.rest)), Some(d)),
                Ok(None) => (unquote(&words), due.as_ref().map(|d| d.due(now))),
                Err(e) => {
                    return Some(Answer::Do { parsed: Box::new(Parsed::Ask(e)), chosen: None, message: text.into() })
                }
            };
            if content(&task).is_empty() {
                return None;
            }
            let parsed = Parsed::Routine(vec![Request::AddTask { task, due }]);
            Some(Answer::Do { parsed: Box::new(parsed), chosen: None, message: text.to_string() })
        }
        Question::Which { index, candidates, .. } => {
            let ids = chosen(p, *index, candidates, &cleaned)?;
            original((*index, Chosen::Ids(ids)))
        }
        Question::When { index, .. } => {
            let words = answer_words(text)?;
            let to = match when::shift(&words) {
                Some(s) if trim_words(&s.rest).is_empty() => Target::By(s.span),
                _ => Target::At(time_only(&words, now)?),
            };
            original((*index, Chosen::To(to)))
        }
        Question::Date { phrase } => {
            time_only(text, now)?;
            let words = answer_words(text)?;
            let at = p.message.to_ascii_lowercase().find(&phrase.to_ascii_lowercase())?;
            let (before, after) = (&p.message[..at], &p.message[at + phrase.len()..]);
            // The date answered in the place of the one that could not be used ("the 3rd",
            // said for "on the 45th", is read "on the 3rd" if it must be).
            [words.clone(), format!("on {words}"), format!("at {words}")].into_iter().find_map(|w| {
                let message = format!("{before}{w}{after}");
                match super::parse(&message, now) {
                    parsed @ Parsed::Routine(_) => Some(Answer::Do { parsed: Box::new(parsed), chosen: None, message }),
                    _ => None,
                }
            })
        }
    }
}

/// The time `text` says and nothing else ("tomorrow at 10", "on Friday", "it's at 5pm").
fn time_only(text: &str, now: &Zoned) -> Option<Due> {
    let words = answer_words(text)?;
    match when::parse(&words, now) {
        Ok(Some(due)) if trim_words(&due.rest).is_empty() => Some(due),
        _ => None,
    }
}

/// Which candidates `text` picks: by place ("the first one", "2", "the last one"), all of
/// them ("both", for a cancel or a done), or by words that fit one best.
fn chosen(p: &Pending, index: usize, candidates: &[Candidate], text: &str) -> Option<Vec<String>> {
    let ids = |c: &[&Candidate]| c.iter().map(|c| c.id.clone()).collect::<Vec<_>>();
    if let Some(c) = ordinal_re().captures(text.trim()) {
        let at = if c.name("first").is_some() {
            0
        } else if c.name("second").is_some() {
            1
        } else if c.name("third").is_some() {
            2
        } else if c.name("fourth").is_some() {
            3
        } else {
            candidates.len().checked_sub(1)?
        };
        return candidates.get(at).map(|c| vec![c.id.clone()]);
    }
    if all_re().is_match(text.trim()) {
        let all_ok = matches!(p.requests.get(index), Some(Stored::Cancel { .. } | Stored::Complete { .. }));
        return all_ok.then(|| ids(&candidates.iter().collect::<Vec<_>>()));
    }
    let query = content(text);
    if query.is_empty() {
        return None;
    }
    let found = best(&query, candidates.iter().map(|c| (c, content(&c.name))), Fit::weak);
    (found.len() == 1).then(|| ids(&found))
}

/// The question `done` asks about `parsed` (said as `message`), to keep for the next message.
pub fn question_of(message: &str, parsed: &Parsed, done: &Done, world: &World) -> Option<Pending> {
    let question = done.outcomes.iter().find(|o| o.asks()).and_then(|o| match o {
        Outcome::Which { kind, names, ids, .. } => Some(Question::Which {
            index: done.asked?,
            kind: match kind {
                Kind::Task => "task",
                Kind::Idea => "idea",
                Kind::Entry => "entry",
            }
            .into(),
            candidates: ids
                .iter()
                .zip(names)
                .map(|(id, name)| Candidate { id: id.clone(), name: name.clone() })
                .collect(),
        }),
        Outcome::AskWhen { task } => Some(Question::When { index: done.asked?, task: task.task.clone() }),
        Outcome::AskDate { error } => Some(Question::Date { phrase: error.phrase().to_string() }),
        Outcome::Missing { missing: Missing { want, what, due } } => {
            Some(Question::Missing { want: *want, what: what.clone(), due: due.as_ref().map(StoredDue::of) })
        }
        _ => None,
    })?;
    let requests = match parsed {
        Parsed::Routine(r) => r.iter().map(Stored::of).collect(),
        _ => Vec::new(),
    };
    Some(Pending {
        conversation: conversation(world.answer.as_ref(), &world.who),
        asked: world.now.timestamp(),
        message: message.to_string(),
        requests,
        question,
    })
}

/// Whether `text`, said by `who` where `answer` says at `now`, answers the question pending
/// in its conversation in the hub at `root`: the routine's trigger takes it then, as it takes
/// what its patterns read.
pub fn answers(root: &Path, answer_to: Option<&AnswerTo>, who: &Provenance, text: &str, now: &Zoned) -> bool {
    let key = conversation(answer_to, who);
    match Store::of(root).get(&key, now.timestamp()) {
        Ok(Some(p)) => answer(&p, text, now).is_some(),
        _ => false,
    }
}

/// Drop the question pending in the conversation of `who` where `answer_to` says: the next
/// message there was not the routine's (the engine calls it when another reflex, or none,
/// takes a person's message).
pub fn forget(root: &Path, answer_to: Option<&AnswerTo>, who: &Provenance, now: &Zoned) {
    let key = conversation(answer_to, who);
    if let Err(e) = Store::of(root).clear(&key, now.timestamp()) {
        tracing::warn!(e = %cn_compute::Chain(&e), "the routine's pending question could not be dropped");
    }
}

/// One turn of the routine in a conversation: `text` answers the question pending there, if
/// it does ([`answer`]); else the question is dropped and `understand` reads the text as new
/// (the patterns, `super::parse`, or a learned layer) and it is done ([`perform`]). A question
/// this turn asks is kept for the next message. The pending file failing loses the question
/// (said in the log), never the request.
pub fn respond(text: &str, world: &World, understand: impl FnOnce(&str) -> Parsed) -> Result<Done, RoutineError> {
    let store = Store::of(world.layout.root());
    let key = conversation(world.answer.as_ref(), &world.who);
    let now = world.now.timestamp();
    let warn = |e: StateError| {
        tracing::warn!(e = %cn_compute::Chain(&e), "the routine's pending question file");
    };
    let pending = store.get(&key, now).unwrap_or_else(|e| {
        warn(e);
        None
    });
    if let Some(p) = pending {
        let answered = answer(&p, text, &world.now);
        store.clear(&key, now).unwrap_or_else(warn);
        match answered {
            Some(Answer::Dismissed) => return Ok(dismissed(world)),
            Some(Answer::Do { parsed, chosen, message }) => {
                let done = match &chosen {
                    Some((index, c)) => perform_chosen(&parsed, *index, c, world)?,
                    None => perform(&parsed, world)?,
                };
                keep(&store, &message, &parsed, &done, world);
                return Ok(done);
            }
            None => {}
        }
    }
    let parsed = understand(text);
    let done = perform(&parsed, world)?;
    keep(&store, text, &parsed, &done, world);
    Ok(done)
}

/// Keep the question `done` asks, if it asks one.
fn keep(store: &Store, message: &str, parsed: &Parsed, done: &Done, world: &World) {
    if let Some(p) = question_of(message, parsed, done, world) {
        if let Err(e) = store.put(p, world.now.timestamp()) {
            tracing::warn!(e = %cn_compute::Chain(&e), "the routine's question could not be kept for the answer");
        }
    }
}

#[cfg(test)]
mod tests;
