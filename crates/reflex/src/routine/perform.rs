//! Typed requests → changes to the hub's files (`cn_hub::tasks`, `cn_hub::schedule`), in two
//! phases: every request is first resolved against the files as they are (what its words
//! name, where a task moves to, whether the person may do it), and only when all resolve to
//! something to do is anything changed. Each change is one locked read–change–write of its
//! file (temp file and rename, `cn_storage`). The person's answer to a question ("the
//! second one", "Friday at 3") is the message done again with that request as answered
//! ([`perform_chosen`]), all or nothing as before.
//!
//! Invariants: two matches, no match for words said to be about a task, a move without a time,
//! a request that says no what or no when, or a refusal change nothing and say so; several
//! tasks that share the words, none named whole, are asked about, never picked by length; a
//! statement that names no task ("I paid for lunch") and a verb whose object is no task
//! ("Cancel my 3pm meeting") are not routine — the executive's; a stranger's or a peer's
//! request sees and changes only what they filed (`source`), and never the schedule.

use cn_hub::origin::AnswerTo;
use cn_hub::schedule::{Schedule, ScheduleEntry};
use cn_hub::tasks::{self, Filter, Idea, StateError, Task, Timestamp};
use cn_hub::words::{best, content, fit, Fit};
use cn_hub::Provenance;
use jiff::Zoned;
use serde_json::Map;

use super::{Missing, Parsed, Reply, Request, Said, Target};
use crate::when::WhenError;

/// Where and when a request is done, and for whom.
#[derive(Debug, Clone)]
pub struct World {
    pub layout: cn_hub::Layout,
    /// Now, in the hub's time zone.
    pub now: Zoned,
    /// Who asked: decides what they may see and change.
    pub who: Provenance,
    /// The message, kept as the context of what it files.
    pub message: String,
    /// Where the message came from, as a place to answer (its item's typed origin): a task it
    /// files is a reminder told there at its minute, and an answer to a reminder acts on the
    /// one last told there. `None` for a call with no person's message behind it.
    pub answer: Option<AnswerTo>,
}

/// What is named: a task, an idea, a schedule entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Task,
    Idea,
    Entry,
}

/// What one request did, or why nothing was done.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Added {
        task: Task,
    },
    Scheduled {
        entry: ScheduleEntry,
        human: String,
        next: Option<Zoned>,
    },
    Listed {
        filter: Filter,
        tasks: Vec<Task>,
    },
    Completed {
        task: Task,
        left_today: usize,
    },
    Moved {
        before: Box<Task>,
        after: Box<Task>,
    },
    Cancelled {
        task: Task,
        open: usize,
    },
    Shown {
        task: Task,
    },
    IdeaAdded {
        idea: Idea,
    },
    IdeasListed {
        ideas: Vec<Idea>,
    },
    IdeaDropped {
        idea: Idea,
        left: usize,
    },
    ScheduleListed {
        entries: Vec<ScheduleEntry>,
    },
    /// "What's next?", in sentences ([`super::day::next`]).
    Next {
        text: String,
    },
    Unscheduled {
        entry: ScheduleEntry,
    },
    /// Several match: named, the person asked which.
    Which {
        words: String,
        kind: Kind,
        names: Vec<String>,
        ids: Vec<String>,
    },
    /// Nothing matches words said to be about one.
    NoMatch {
        words: String,
        kind: Kind,
    },
    /// A move without a time.
    AskWhen {
        task: Task,
    },
    /// Not theirs to change.
    Refused {
        why: String,
    },
    /// A time that cannot be read or has passed.
    AskDate {
        error: WhenError,
    },
    /// A request to file something that said no what or no when: asked.
    Missing {
        missing: Missing,
    },
    /// "Never mind", said to a question the routine asked: it is dropped, nothing done.
    Dismissed,
}

impl Outcome {
    /// Whether it changed a file.
    pub fn changed(&self) -> bool {
        matches!(
            self,
            Outcome::Added { .. }
                | Outcome::Scheduled { .. }
                | Outcome::Completed { .. }
                | Outcome::Moved { .. }
                | Outcome::Cancelled { .. }
                | Outcome::IdeaAdded { .. }
                | Outcome::IdeaDropped { .. }
                | Outcome::Unscheduled { .. }
        )
    }

    /// Whether it is a question back to the person (nothing was done).
    pub fn asks(&self) -> bool {
        matches!(
            self,
            Outcome::Which { .. } | Outcome::AskWhen { .. } | Outcome::AskDate { .. } | Outcome::Missing { .. }
        )
    }

    /// Whether it did or answered nothing the person asked (asked back or refused).
    pub fn held(&self) -> bool {
        matches!(
            self,
            Outcome::Which { .. }
                | Outcome::NoMatch { .. }
                | Outcome::AskWhen { .. }
                | Outcome::Refused { .. }
                | Outcome::AskDate { .. }
                | Outcome::Missing { .. }
        )
    }
}

/// What a message did: each request's outcome, and the answer that says so.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    pub outcomes: Vec<Outcome>,
    pub answer: String,
    /// Which request (its index in the message) the first question is about, when one is
    /// asked of a request (not of the whole message: a date, a missing what).
    pub asked: Option<usize>,
}

impl Done {
    pub fn changed(&self) -> bool {
        self.outcomes.iter().any(Outcome::changed)
    }
    pub fn asks(&self) -> bool {
        self.outcomes.iter().any(Outcome::asks)
    }
}

/// Why the routine did not answer a message itself.
#[derive(Debug, thiserror::Error)]
pub enum RoutineError {
    /// Not the routine's: the executive's (or another reflex's).
    #[error("not a routine request: {reason}")]
    NotRoutine { reason: String },
    /// A file could not be read or written: the request is not done (what was done before
    /// it, if anything, is said).
    #[error("the request was not done{}", if done.is_empty() { String::new() } else { format!(" (done before it: {done})") })]
    State { done: String, source: StateError },
}

impl RoutineError {
    fn not_routine(reason: impl Into<String>) -> RoutineError {
        RoutineError::NotRoutine { reason: reason.into() }
    }
}

impl From<StateError> for RoutineError {
    fn from(source: StateError) -> Self {
        RoutineError::State { done: String::new(), source }
    }
}

/// One thing to change or read, once every request resolved (and what the executive's
/// tools do, one at a time: `task_done`, `task_move` …).
#[derive(Debug, Clone)]
pub enum Act {
    Add(Task),
    AddEvery(ScheduleEntry, String),
    List(Filter),
    Complete(Task),
    Move(Task, Timestamp),
    Cancel(Task),
    Show(Task),
    AddIdea(Idea),
    ListIdeas,
    DropIdea(Idea),
    ListSchedule,
    Unschedule(ScheduleEntry),
    Next,
}

/// The files as they were when the message came.
struct Files {
    tasks: tasks::Tasks,
    ideas: tasks::Ideas,
    schedule: Schedule,
    task_list: Option<Vec<Task>>,
    idea_list: Option<Vec<Idea>>,
    entry_list: Option<Vec<ScheduleEntry>>,
}

impl Files {
    fn of(layout: &cn_hub::Layout) -> Files {
        let state = layout.state();
        Files {
            tasks: tasks::tasks_in(&state),
            ideas: tasks::ideas_in(&state),
            schedule: Schedule::in_layout(layout),
            task_list: None,
            idea_list: None,
            entry_list: None,
        }
    }
    fn tasks(&mut self) -> Result<&[Task], StateError> {
        if self.task_list.is_none() {
            self.task_list = Some(self.tasks.load()?);
        }
        Ok(self.task_list.as_deref().unwrap_or_default())
    }
    fn ideas(&mut self) -> Result<&[Idea], StateError> {
        if self.idea_list.is_none() {
            self.idea_list = Some(self.ideas.load()?);
        }
        Ok(self.idea_list.as_deref().unwrap_or_default())
    }
    fn entries(&mut self) -> Result<&[ScheduleEntry], StateError> {
        if self.entry_list.is_none() {
            self.entry_list = Some(self.schedule.load()?);
        }
        Ok(self.entry_list.as_deref().unwrap_or_default())
    }
}

/// Do what `parsed` asks in `world`: all of it, or — when any request cannot be done as
/// said — none of it, with the questions.
pub fn perform(parsed: &Parsed, world: &World) -> Result<Done, RoutineError> {
    perform_with(parsed, None, world)
}

/// The person's answer to the question one request of a message raised.
#[derive(Debug, Clone, PartialEq)]
pub enum Chosen {
    /// "Which one?": the tasks (ideas; schedule entries by name) it is done to — one, or all
    /// of them ("both").
    Ids(Vec<String>),
    /// "Move it to when?": the time.
    To(Target),
}

/// Do what `parsed` asks in `world`, its request number `index` as `chosen` answers — the
/// rest as [`perform`] does: all of it, or none of it, with the questions.
pub fn perform_chosen(parsed: &Parsed, index: usize, chosen: &Chosen, world: &World) -> Result<Done, RoutineError> {
    perform_with(parsed, Some((index, chosen)), world)
}

fn perform_with(parsed: &Parsed, choice: Option<(usize, &Chosen)>, world: &World) -> Result<Done, RoutineError> {
    let requests = match parsed {
        Parsed::NotRoutine => return Err(RoutineError::not_routine("no routine request in it")),
        Parsed::Ask(error) => return Ok(done(vec![Outcome::AskDate { error: error.clone() }], world)),
        Parsed::Missing(missing) => return Ok(done(vec![Outcome::Missing { missing: missing.clone() }], world)),
        Parsed::Routine(r) => r,
    };
    let mut files = Files::of(&world.layout);
    let mut acts = Vec::new();
    let mut held = Vec::new();
    let mut asked = None;
    for (i, request) in requests.iter().enumerate() {
        let resolved = match choice {
            Some((at, Chosen::Ids(ids))) if at == i => resolve_chosen(request, ids, world, &mut files)?,
            Some((at, Chosen::To(to))) if at == i => resolve(&moved(request, to), world, &mut files)?.map(|a| vec![a]),
            _ => match all_at(request, world, &mut files)? {
                Some(all) => Ok(all),
                None => resolve(request, world, &mut files)?.map(|a| vec![a]),
            },
        };
        match resolved {
            Ok(a) => acts.extend(a),
            Err(outcome) => {
                if outcome.asks() {
                    asked = asked.or(Some(i));
                }
                held.push(outcome)
            }
        }
    }
    if !held.is_empty() {
        return Ok(Done { asked, ..done(held, world) });
    }
    let mut outcomes = Vec::new();
    for a in acts {
        match apply(a, world, &files) {
            Ok(o) => outcomes.push(o),
            Err(source) => {
                let so_far = super::answer::answer(&outcomes, &world.now);
                return Err(RoutineError::State { done: so_far.replace('\n', " "), source });
            }
        }
    }
    Ok(done(outcomes, world))
}

fn done(outcomes: Vec<Outcome>, world: &World) -> Done {
    let answer = super::answer::answer(&outcomes, &world.now);
    Done { outcomes, answer, asked: None }
}

/// What a message that dismissed the pending question did: nothing.
pub(crate) fn dismissed(world: &World) -> Done {
    done(vec![Outcome::Dismissed], world)
}

impl World {
    /// Whether `source` (a task's or an idea's) is the asker's: the owner's are all; a
    /// stranger's or a peer's only those they filed.
    fn owns(&self, source: Option<&str>) -> bool {
        self.who.is_owner() || source == Some(self.who.label().as_str())
    }
    fn source(&self) -> Option<String> {
        (!self.who.is_owner()).then(|| self.who.label())
    }
    /// The open tasks the asker may see.
    fn open<'t>(&self, all: &'t [Task]) -> impl Iterator<Item = &'t Task> + 't {
        let who = self.clone();
        all.iter().filter(move |t| !t.done && who.owns(t.source.as_deref()))
    }
    /// The open task whose reminder was last told in this conversation (the same channel,
    /// chat or address) — only one the asker may change, so a stranger's "done" in a group
    /// chat finds none of the owner's.
    fn reminded<'t>(&self, all: &'t [Task]) -> Option<&'t Task> {
        let here = self.answer.as_ref()?;
        let same = |a: &AnswerTo| a.via() == here.via() && a.whom() == here.whom();
        self.open(all)
            .filter(|t| t.reminded.is_some() && t.answer_to.as_ref().is_some_and(same))
            .max_by_key(|t| t.reminded.map(|r| r.at))
    }
    fn context(&self) -> String {
        format!("asked: {}", self.message.trim())
    }
    fn schedule_refused(&self) -> Outcome {
        Outcome::Refused { why: "only my owner can see or change my schedule".into() }
    }
}

fn enough(said: Said) -> fn(&Fit) -> bool {
    match said {
        Said::Explicit => Fit::weak,
        Said::Implicit => Fit::strong,
    }
}

/// The open tasks `words` name. Several that share the most words of the query, none named
/// whole ("the dentist": "dentist appointment", "pay the dentist bill"), are all named — a
/// question, not a guess by length; one named whole ("call mom" beside "call mom about the
/// trip") is the one.
fn tasks_named(words: &str, said: Said, world: &World, files: &mut Files) -> Result<Vec<Task>, StateError> {
    if let Some(found) = tasks_at(words, world, files)? {
        return Ok(found);
    }
    let all = files.tasks()?;
    let query = content(words);
    let enough = enough(said);
    let fits: Vec<(Task, Fit)> =
        world.open(all).map(|t| (t.clone(), fit(&query, &content(&t.task)))).filter(|(_, f)| enough(f)).collect();
    let top = fits.iter().map(|(_, f)| f.matched).max().unwrap_or(0);
    let at_top: Vec<&(Task, Fit)> = fits.iter().filter(|(_, f)| f.matched == top).collect();
    if at_top.len() > 1 && !at_top.iter().any(|(_, f)| f.size == f.matched) {
        return Ok(at_top.into_iter().map(|(t, _)| t.clone()).collect());
    }
    Ok(best(
        &query,
        fits.into_iter().map(|(t, _)| {
            let words = content(&t.task);
            (t, words)
        }),
        enough,
    ))
}

/// "cancel all reminders I have set up for tomorrow", "no more alarms for today": every open
/// task the words name by their time, when they say "all" (or "every", or "alarms") and name
/// more than one.
/// `None` for any other request, or when the words name one task or none (asked as usual).
fn all_at(request: &Request, world: &World, files: &mut Files) -> Result<Option<Vec<Act>>, StateError> {
    let Request::Cancel { words, said: Said::Explicit } = request else { return Ok(None) };
    let lower = words.to_ascii_lowercase();
    if !lower.split_whitespace().any(|w| matches!(w, "all" | "every" | "alarms" | "timers")) {
        return Ok(None);
    }
    Ok(tasks_at(words, world, files)?
        .filter(|found| found.len() > 1)
        .map(|found| found.into_iter().map(Act::Cancel).collect()))
}

/// The open tasks words name by their time ("the alarm for 6pm", "my wednesday reminder",
/// "tomorrow's dinner with Bob"): those due then (the day said, and the hour when one is
/// said), narrowed by the other words when any names some of them. `None` when the words
/// name no time, or no task is due then (the words are matched by name instead).
fn tasks_at(words: &str, world: &World, files: &mut Files) -> Result<Option<Vec<Task>>, StateError> {
    // A due phrase in the words, read as a day or time of the task's: "Friday's" as "Friday".
    // "the alarm from six" (to five): the time it is due now.
    let plain = super::learned::without_possessive(words).replace(" from ", " at ");
    let Ok(Some(due)) = crate::when::parse(&plain, &world.now) else { return Ok(None) };
    let tz = world.now.time_zone().clone();
    let at = |t: &Task| t.due.map(|d| d.to_zoned(tz.clone()));
    // A time said is the time read (its next occurrence: "6pm" is today's if still ahead); a
    // day alone is any time that day.
    // A time said without a day ("my reminder at 7:00") names that time on any day, and,
    // said without am or pm, either half of the day.
    let phrase = due.phrase.to_ascii_lowercase();
    let hour_said: String =
        phrase.chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
    let half_open = !["am", "pm", "a.m", "p.m", "noon", "midnight"].iter().any(|w| phrase.contains(w))
        && !hour_said.starts_with('0')
        && hour_said.parse::<u8>().is_ok_and(|h| (1..=12).contains(&h));
    // "my reminder for this evening", "tomorrow morning's alarm": a part of the day, no clock
    // said — any time in it.
    let part = (hour_said.is_empty() && due.day_given)
        .then(|| {
            [("morning", 5, 12), ("afternoon", 12, 18), ("evening", 17, 24), ("night", 18, 24)]
                .into_iter()
                .find(|(w, ..)| phrase.contains(w))
                .map(|(_, from, to)| from..to)
        })
        .flatten();
    let same = |d: &Zoned| {
        if let Some(hours) = &part {
            d.date() == due.at.date() && hours.contains(&d.hour())
        } else if due.time_given && due.day_given {
            d.timestamp() == due.at.timestamp()
        } else if due.time_given {
            let minutes = |z: &Zoned| i32::from(z.hour()) * 60 + i32::from(z.minute());
            let (a, b) = (minutes(d), minutes(&due.at));
            a == b || (half_open && (a - b).abs() == 12 * 60)
        } else {
            d.date() == due.at.date()
        }
    };
    let all = files.tasks()?;
    let then: Vec<Task> = world.open(all).filter(|t| at(t).is_some_and(|d| same(&d))).cloned().collect();
    if then.is_empty() {
        return Ok(None);
    }
    // The other words, without those that only say it is on the list.
    const LIST: &[&str] = &[
        "remind",
        "reminder",
        "reminders",
        "task",
        "tasks",
        "todo",
        "alert",
        "set",
        "item",
        "one",
        "entry",
        "up",
        "setup",
        "scheduled",
        "planned",
        "created",
        "made",
        "added",
        "saved",
        "have",
        "all",
        "every",
    ];
    // Compared as `content` reads both (stems: "reminders" and "reminder" alike).
    let list = content(&LIST.join(" "));
    let rest: Vec<String> = content(&due.rest).into_iter().filter(|w| !list.contains(w)).collect();
    if rest.is_empty() {
        return Ok(Some(then));
    }
    // Words that name none of the tasks due then name another: matched by name instead.
    let (named, others): (Vec<Task>, Vec<Task>) =
        then.into_iter().partition(|t| fit(&rest, &content(&t.task)).matched > 0);
    if !named.is_empty() {
        return Ok(Some(named));
    }
    // "turn off my 8pm alarm", "tomorrow's alarm": an alarm set without a name ("Alarm",
    // "Wake up") due then — never a task of another name due at that hour ("water the
    // plants" at 18:00 is not "the alarm from six").
    const DEVICE: &[&str] = &["alarm", "alarms", "timer", "timers", "wake"];
    if !rest.iter().all(|w| DEVICE.contains(&w.as_str())) {
        return Ok(None);
    }
    let alarms: Vec<Task> = others.into_iter().filter(|t| super::learned::device_name(&t.task)).collect();
    Ok((!alarms.is_empty()).then_some(alarms))
}

/// `request` with its time as the person answered "to when?".
fn moved(request: &Request, to: &Target) -> Request {
    match request {
        Request::Move { words, said, .. } => Request::Move { words: words.clone(), to: to.clone(), said: *said },
        Request::Reply { reply: Reply::Snooze(_) } => Request::Reply { reply: Reply::Snooze(to.clone()) },
        other => other.clone(),
    }
}

/// `request` done to the things `ids` name (the person's answer to "which one?"): the open
/// tasks of those ids the asker may change, else the ideas, else the schedule entries of
/// those names. Gone since (done elsewhere): no match.
fn resolve_chosen(
    request: &Request,
    ids: &[String],
    world: &World,
    files: &mut Files,
) -> Result<Result<Vec<Act>, Outcome>, RoutineError> {
    let chosen = |id: &String| ids.contains(id);
    let tasks: Vec<Task> = world.open(files.tasks()?).filter(|t| chosen(&t.id)).cloned().collect();
    let none = |kind| Outcome::NoMatch { words: ids.join(", "), kind };
    Ok(match request {
        Request::Complete { .. } | Request::Show { .. } | Request::Cancel { .. } | Request::Move { .. }
            if !tasks.is_empty() =>
        {
            let mut acts = Vec::new();
            for task in tasks {
                acts.push(match request {
                    Request::Complete { .. } => Act::Complete(task),
                    Request::Show { .. } => Act::Show(task),
                    Request::Cancel { .. } => Act::Cancel(task),
                    Request::Move { to, .. } => match moved_to(&task, to, &world.now) {
                        Some(at) => Act::Move(task, seconds(at.timestamp())),
                        None => return Ok(Err(Outcome::AskWhen { task })),
                    },
                    _ => unreachable!("a request on tasks"),
                });
            }
            Ok(acts)
        }
        Request::DropIdea { .. } => {
            let ideas: Vec<Idea> =
                files.ideas()?.iter().filter(|i| chosen(&i.id) && world.owns(i.source.as_deref())).cloned().collect();
            if ideas.is_empty() {
                Err(none(Kind::Idea))
            } else {
                Ok(ideas.into_iter().map(Act::DropIdea).collect())
            }
        }
        Request::Cancel { .. } | Request::Unschedule { .. } => {
            if !world.who.is_owner() {
                return Ok(Err(world.schedule_refused()));
            }
            let entries: Vec<ScheduleEntry> = files.entries()?.iter().filter(|e| chosen(&e.name)).cloned().collect();
            if entries.is_empty() {
                Err(none(Kind::Entry))
            } else {
                Ok(entries.into_iter().map(Act::Unschedule).collect())
            }
        }
        Request::Complete { .. } | Request::Show { .. } | Request::Move { .. } => Err(none(Kind::Task)),
        other => resolve(other, world, files)?.map(|a| vec![a]),
    })
}

fn entry_words(e: &ScheduleEntry) -> Vec<String> {
    content(&format!("{} {}", e.name.replace(['-', '_'], " "), e.action))
}

/// Why a tool's name for a task, an idea or a schedule entry names no single one.
#[derive(Debug, thiserror::Error)]
pub enum NameError {
    #[error("no {kind} matches “{name}” (list them to see the ids)")]
    None { name: String, kind: &'static str },
    #[error("several match “{name}”: {listed}; call again with one id")]
    Several { name: String, listed: String },
    #[error(transparent)]
    State(#[from] StateError),
}

impl World {
    /// The open task `name` names: its id, or its words (two matching is an error listing
    /// both). Only the asker's (see [`World::owns`]): another's id is answered as one that
    /// does not exist, so the answer tells no one which ids are there.
    pub fn task(&self, name: &str) -> Result<Task, NameError> {
        let all = tasks::tasks_in(&self.layout.state()).load()?;
        if let Some(t) = all.iter().find(|t| t.id == name.trim() && self.owns(t.source.as_deref())) {
            if !t.done {
                return Ok(t.clone());
            }
        }
        let found = best(&content(name), self.open(&all).map(|t| (t.clone(), content(&t.task))), Fit::weak);
        match Found::from(found) {
            Found::One(t) => Ok(t),
            Found::None => Err(NameError::None { name: name.into(), kind: "open task" }),
            Found::Several(all) => Err(NameError::Several {
                name: name.into(),
                listed: all.iter().map(|t| format!("{} ({})", t.id, t.task)).collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// The idea `name` names: its id or its words; only the asker's.
    pub fn idea(&self, name: &str) -> Result<Idea, NameError> {
        let all = tasks::ideas_in(&self.layout.state()).load()?;
        if let Some(i) = all.iter().find(|i| i.id == name.trim() && self.owns(i.source.as_deref())) {
            return Ok(i.clone());
        }
        let mine = all.iter().filter(|i| self.owns(i.source.as_deref()));
        match Found::from(best(&content(name), mine.map(|i| (i.clone(), content(&i.idea))), Fit::weak)) {
            Found::One(i) => Ok(i),
            Found::None => Err(NameError::None { name: name.into(), kind: "idea" }),
            Found::Several(all) => Err(NameError::Several {
                name: name.into(),
                listed: all.iter().map(|i| format!("{} ({})", i.id, i.idea)).collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// The schedule entry `name` names: its name or its words.
    pub fn entry(&self, name: &str) -> Result<ScheduleEntry, NameError> {
        let all = Schedule::in_layout(&self.layout).load()?;
        if let Some(e) = all.iter().find(|e| e.name == name.trim()) {
            return Ok(e.clone());
        }
        match Found::from(best(&content(name), all.iter().map(|e| (e.clone(), entry_words(e))), Fit::weak)) {
            Found::One(e) => Ok(e),
            Found::None => Err(NameError::None { name: name.into(), kind: "schedule entry" }),
            Found::Several(all) => Err(NameError::Several {
                name: name.into(),
                listed: all.iter().map(|e| format!("{} ({})", e.name, e.action)).collect::<Vec<_>>().join(", "),
            }),
        }
    }
}

/// What a search found: none, one, or several (to ask which).
enum Found<T> {
    None,
    One(T),
    Several(Vec<T>),
}

impl<T> From<Vec<T>> for Found<T> {
    fn from(mut v: Vec<T>) -> Found<T> {
        match (v.pop(), v.is_empty()) {
            (None, _) => Found::None,
            (Some(one), true) => Found::One(one),
            (Some(last), false) => {
                v.push(last);
                Found::Several(v)
            }
        }
    }
}

/// "Which one?" about `several`, each named and identified by `name` and `id`.
fn which<T>(words: &str, kind: Kind, several: &[T], name: impl Fn(&T) -> String, id: impl Fn(&T) -> String) -> Outcome {
    Outcome::Which {
        words: words.to_string(),
        kind,
        names: several.iter().map(&name).collect(),
        ids: several.iter().map(&id).collect(),
    }
}

fn which_tasks(words: &str, tasks: &[Task]) -> Outcome {
    which(words, Kind::Task, tasks, |t| t.task.clone(), |t| t.id.clone())
}

fn which_entries(words: &str, entries: &[ScheduleEntry]) -> Outcome {
    which(words, Kind::Entry, entries, |e| format!("{} ({})", e.name, e.action), |e| e.name.clone())
}

/// The one task `found` holds; none is the person's answer when they said it was a task, and
/// not the routine's when they did not.
fn one_task(found: Vec<Task>, words: &str, said: Said) -> Result<Result<Task, Outcome>, RoutineError> {
    match (Found::from(found), said) {
        (Found::One(t), _) => Ok(Ok(t)),
        (Found::None, Said::Explicit) => Ok(Err(Outcome::NoMatch { words: words.to_string(), kind: Kind::Task })),
        (Found::None, Said::Implicit) => Err(RoutineError::not_routine(format!("no open task matches “{words}”"))),
        (Found::Several(all), _) => Ok(Err(which_tasks(words, &all))),
    }
}

/// One request against the files: the step to take, or the outcome that holds it.
fn resolve(request: &Request, world: &World, files: &mut Files) -> Result<Result<Act, Outcome>, RoutineError> {
    Ok(match request {
        Request::AddTask { task, due } => {
            let mut t = Task::new(task.clone());
            t.due = due.as_ref().map(|d| seconds(d.at.timestamp()));
            t.priority = Some(2);
            t.context = Some(world.context());
            t.source = world.source();
            // The person is told where they asked, at its minute.
            t.answer_to = world.answer.clone().filter(|_| t.due.is_some());
            Ok(Act::Add(t))
        }
        Request::AddEvery { action, every } => {
            if !world.who.is_owner() {
                return Ok(Err(world.schedule_refused()));
            }
            let Some(tz) = world.now.time_zone().iana_name().map(str::to_string) else {
                return Ok(Err(Outcome::Refused {
                    why: "I can't tell the hub's time zone by name: set `reflexes.time_zone` in cn.yaml".into(),
                }));
            };
            let mut extra = Map::new();
            extra.insert("context".into(), world.context().into());
            let entry = ScheduleEntry {
                name: slug(action),
                cron: every.cron.clone(),
                action: action.clone(),
                tz: Some(tz),
                catch_up: None,
                // The person is told where they asked, at each firing.
                remind: world.answer.clone(),
                until: every.until.as_ref().map(Zoned::timestamp),
                stride: every.stride,
                extra,
            };
            Ok(Act::AddEvery(entry, every.human.clone()))
        }
        Request::ListTasks { filter } => Ok(Act::List(*filter)),
        Request::Complete { words, said } => {
            let found = tasks_named(words, *said, world, files)?;
            one_task(found, words, *said)?.map(Act::Complete)
        }
        Request::Show { words, said } => {
            let found = tasks_named(words, *said, world, files)?;
            one_task(found, words, *said)?.map(Act::Show)
        }
        Request::Move { words, to, said } => {
            let found = tasks_named(words, *said, world, files)?;
            match one_task(found, words, *said)? {
                Err(held) => Err(held),
                Ok(task) => match moved_to(&task, to, &world.now) {
                    Some(at) => Ok(Act::Move(task, seconds(at.timestamp()))),
                    None => Err(Outcome::AskWhen { task }),
                },
            }
        }
        Request::Cancel { words, said } => {
            let found = tasks_named(words, *said, world, files)?;
            if !found.is_empty() {
                return Ok(one_task(found, words, *said)?.map(Act::Cancel));
            }
            // No task: a schedule entry of that name ("cancel the daily reflection").
            match (entries_named(words, enough(*said), files)?, world.who.is_owner()) {
                (Found::None, _) => one_task(Vec::new(), words, *said)?.map(Act::Cancel),
                (_, false) => Err(world.schedule_refused()),
                (Found::One(e), true) => Ok(Act::Unschedule(e)),
                (Found::Several(all), true) => Err(which_entries(words, &all)),
            }
        }
        Request::Unschedule { words } => {
            if !world.who.is_owner() {
                return Ok(Err(world.schedule_refused()));
            }
            match entries_named(words, Fit::weak, files)? {
                Found::None => Err(Outcome::NoMatch { words: words.clone(), kind: Kind::Entry }),
                Found::One(e) => Ok(Act::Unschedule(e)),
                Found::Several(all) => Err(which_entries(words, &all)),
            }
        }
        Request::AddIdea { idea } => {
            let mut i = Idea::new(idea.clone(), Some(world.context()), seconds(world.now.timestamp()));
            i.source = world.source();
            Ok(Act::AddIdea(i))
        }
        Request::ListIdeas => Ok(Act::ListIdeas),
        Request::DropIdea { words } => {
            let query = content(words);
            let all = files.ideas()?;
            let mine = all.iter().filter(|i| world.owns(i.source.as_deref()));
            match Found::from(best(&query, mine.map(|i| (i.clone(), content(&i.idea))), Fit::weak)) {
                Found::None => Err(Outcome::NoMatch { words: words.clone(), kind: Kind::Idea }),
                Found::One(i) => Ok(Act::DropIdea(i)),
                Found::Several(all) => Err(which(words, Kind::Idea, &all, |i| i.idea.clone(), |i| i.id.clone())),
            }
        }
        Request::Reply { reply } => {
            let Some(task) = world.reminded(files.tasks()?).cloned() else {
                return Err(RoutineError::not_routine("no reminder of theirs was told in this conversation"));
            };
            match reply {
                Reply::Done => Ok(Act::Complete(task)),
                Reply::Snooze(to) => match moved_to(&task, to, &world.now) {
                    Some(at) => Ok(Act::Move(task, seconds(at.timestamp()))),
                    None => Err(Outcome::AskWhen { task }),
                },
            }
        }
        Request::Next => Ok(Act::Next),
        Request::ListSchedule => {
            if !world.who.is_owner() {
                return Ok(Err(world.schedule_refused()));
            }
            Ok(Act::ListSchedule)
        }
    })
}

/// The schedule entries `words` name (by their name and their action).
fn entries_named(words: &str, enough: fn(&Fit) -> bool, files: &mut Files) -> Result<Found<ScheduleEntry>, StateError> {
    // "my daily alarm": how often an entry comes names none ("daily-reflection" is no alarm).
    // "skip my next alarm": which one ("next", "last") names none either ("… what comes next?"
    // is no alarm).
    let how_often = content(
        "daily nightly hourly weekly monthly yearly every each recurring repeating next last first upcoming current previous",
    );
    let query: Vec<String> = content(words).into_iter().filter(|w| !how_often.contains(w)).collect();
    if query.is_empty() {
        return Ok(Found::None);
    }
    // An alarm or a timer asked for is an entry that says so.
    let device: Vec<&String> = query.iter().filter(|w| content("alarm timer").contains(w)).collect();
    let entries = files
        .entries()?
        .iter()
        .map(|e| (e.clone(), entry_words(e)))
        .filter(|(_, w)| device.iter().all(|d| w.contains(d)));
    Ok(Found::from(best(&query, entries, enough)))
}

/// Whole seconds, as the files have always been written.
pub fn seconds(t: Timestamp) -> Timestamp {
    Timestamp::from_second(t.as_second()).unwrap_or(t)
}

/// Where `task` moves to: a day alone keeps its time of day (09:00 if it had none); a time
/// alone keeps its day while that is still ahead; a span counts from its due time or now,
/// whichever is later. `None` when no time was said.
pub fn moved_to(task: &Task, to: &Target, now: &Zoned) -> Option<Zoned> {
    let tz = now.time_zone();
    let due = task.due.map(|d| d.to_zoned(tz.clone()));
    let base = || due.clone().filter(|d| d > now).unwrap_or_else(|| now.clone());
    match to {
        Target::Unsaid => None,
        Target::Later => base().checked_add(jiff::Span::new().hours(1)).ok(),
        Target::By(span) => base().checked_add(*span).ok(),
        Target::At(d) if d.day_given && !d.time_given => {
            let time = due.as_ref().map_or(jiff::civil::Time::constant(9, 0, 0, 0), Zoned::time);
            d.at.date().to_datetime(time).to_zoned(tz.clone()).ok().filter(|z| z > now).or_else(|| Some(d.at.clone()))
        }
        Target::At(d) if !d.day_given => {
            let same_day = due.as_ref().and_then(|due| due.date().to_datetime(d.at.time()).to_zoned(tz.clone()).ok());
            same_day.filter(|z| z > now).or_else(|| Some(d.at.clone()))
        }
        Target::At(d) => Some(d.at.clone()),
    }
}

/// A schedule entry's name from its action: `take-my-vitamins`.
pub fn slug(action: &str) -> String {
    let words: Vec<String> = action
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(5)
        .map(str::to_ascii_lowercase)
        .collect();
    let mut name = words.join("-");
    name.truncate(40);
    let name = name.trim_end_matches('-').to_string();
    if name.is_empty() {
        "reminder".into()
    } else {
        name
    }
}

/// Do one act in `world`, as a tool asks (the routine's messages go through [`perform`]).
pub fn act(a: Act, world: &World) -> Result<Outcome, StateError> {
    apply(a, world, &Files::of(&world.layout))
}

/// Take one act.
fn apply(step: Act, world: &World, files: &Files) -> Result<Outcome, StateError> {
    let gone = |kind| Outcome::NoMatch { words: String::new(), kind };
    Ok(match step {
        Act::Add(task) => {
            files.tasks.add(task.clone())?;
            Outcome::Added { task }
        }
        Act::AddEvery(entry, human) => {
            let entry = files.schedule.add_unique(entry)?;
            let next = entry.timing().ok().and_then(|(cron, tz)| cron.next_after(world.now.timestamp(), &tz).ok());
            Outcome::Scheduled { entry, human, next }
        }
        Act::List(filter) => {
            let all = files.tasks.load()?;
            let mut tasks: Vec<Task> = tasks::ordered(&all)
                .into_iter()
                .filter(|t| world.owns(t.source.as_deref()))
                .filter(|t| filter.keeps(t, &world.now))
                .cloned()
                .collect();
            if filter == Filter::Open {
                tasks.retain(|t| !t.done);
            }
            Outcome::Listed { filter, tasks }
        }
        Act::Complete(task) => match files.tasks.complete_open(&task.id)? {
            Some(task) => {
                let all = files.tasks.load()?;
                let left_today = world.open(&all).filter(|t| Filter::Today.keeps(t, &world.now)).count();
                Outcome::Completed { task, left_today }
            }
            None => gone(Kind::Task),
        },
        Act::Move(task, at) => match files.tasks.reschedule(&task.id, at)? {
            Some((before, after)) => Outcome::Moved { before: Box::new(before), after: Box::new(after) },
            None => gone(Kind::Task),
        },
        Act::Cancel(task) => match files.tasks.cancel(&task.id)? {
            Some(task) => {
                let all = files.tasks.load()?;
                Outcome::Cancelled { task, open: world.open(&all).count() }
            }
            None => gone(Kind::Task),
        },
        Act::Show(task) => Outcome::Shown { task },
        Act::AddIdea(idea) => {
            files.ideas.add(idea.clone())?;
            Outcome::IdeaAdded { idea }
        }
        Act::ListIdeas => {
            let ideas = files.ideas.load()?.into_iter().filter(|i| world.owns(i.source.as_deref())).collect();
            Outcome::IdeasListed { ideas }
        }
        Act::DropIdea(idea) => match files.ideas.drop_idea(&idea.id)? {
            Some(idea) => {
                let left = files.ideas.load()?.iter().filter(|i| world.owns(i.source.as_deref())).count();
                Outcome::IdeaDropped { idea, left }
            }
            None => gone(Kind::Idea),
        },
        Act::ListSchedule => Outcome::ScheduleListed { entries: files.schedule.load()? },
        Act::Next => {
            // The schedule is the owner's to see; another's "what's next?" reads only the tasks.
            let schedule = if world.who.is_owner() { files.schedule.load()? } else { Vec::new() };
            Outcome::Next { text: super::day::next(&files.tasks.load()?, &schedule, &world.who, &world.now) }
        }
        Act::Unschedule(entry) => match files.schedule.remove_entry(&entry.name)? {
            Some(entry) => Outcome::Unscheduled { entry },
            None => gone(Kind::Entry),
        },
    })
}
