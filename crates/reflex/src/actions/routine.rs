//! `routine` — the assistant's routine below the executive (issue 31): a person's message
//! about their tasks, ideas or schedule, understood and done on the hub's files
//! ([`crate::routine`]), answered with exactly what changed — or, when the message is not
//! routine or cannot be done here (a file that cannot be written), left to the executive
//! with the reason. A question it asks ("which one?", "what should I remind you of?") waits
//! for the next message in that conversation (`routine::pending`). When the patterns are
//! unsure, the level-2 model may choose among the routine's intents under a grammar
//! (`routine::classify`); it never writes anything.
//!
//! Also the helpers the routine's executive tools share (`task_done`, `task_move` …: one file
//! each beside this one): the world a call runs in, and its answer.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_hub::Provenance;
use cn_tools::{typed, Tool, ToolContext};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::Shared;
use crate::routine::{self, classify, Outcome, Parsed, RoutineError, World};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The person's message.
    text: String,
}

/// The world a call runs in: the hub, now in its zone, and who the item is from (the owner
/// when the call is the owner's own).
pub(super) fn world(shared: &Shared, ctx: &ToolContext, message: &str) -> World {
    World {
        layout: cn_hub::Layout::new(&shared.hub),
        now: shared.now(),
        who: ctx.from.clone().unwrap_or(Provenance::Owner),
        message: message.to_string(),
        answer: current_origin(shared).and_then(|o| o.answer),
    }
}

/// The typed origin of the item being handled (an older cn's keys included), if there is one.
fn current_origin(shared: &Shared) -> Option<cn_hub::Origin> {
    let item = shared.turn().target.item?;
    let text = std::fs::read_to_string(cn_hub::Layout::new(&shared.hub).input()).ok()?;
    let doc = cn_storage::Doc::parse(&text).ok()?;
    (doc.get_str("id") == Some(item.as_str())).then(|| cn_hub::Origin::of_doc(&doc, |_| false))
}

/// Journal what an outcome changed, so "what did you do today?" finds it: the answer, what
/// was done (`act`) to which task or idea, and who asked (`by`, when not the owner).
pub(super) fn journal(shared: &Shared, outcomes: &[Outcome], world: &World) {
    use routine::day::act;
    let turn = shared.turn();
    for o in outcomes.iter().filter(|o| o.changed()) {
        let summary = routine::answer::answer(std::slice::from_ref(o), &world.now);
        let did = match o {
            Outcome::Added { task } => Some((act::ADDED, task.task.as_str())),
            Outcome::Completed { task, .. } => Some((act::DONE, task.task.as_str())),
            Outcome::Moved { after, .. } => Some((act::MOVED, after.task.as_str())),
            Outcome::Cancelled { task, .. } => Some((act::CANCELLED, task.task.as_str())),
            Outcome::IdeaAdded { idea } => Some((act::IDEA, idea.idea.as_str())),
            Outcome::IdeaDropped { idea, .. } => Some((act::IDEA_DROPPED, idea.idea.as_str())),
            Outcome::Scheduled { entry, .. } => Some((act::SCHEDULED, entry.action.as_str())),
            Outcome::Unscheduled { entry } => Some((act::UNSCHEDULED, entry.action.as_str())),
            _ => None,
        };
        shared.journal(&crate::journal::Routine {
            summary,
            act: did.map(|(what, _)| what),
            task: did.map(|(_, name)| name),
            by: (!world.who.is_owner()).then(|| world.who.label()),
            item: turn.target.item.as_deref(),
            // What the learned understanding read in the message: part of why it was done.
            understood: routine::learned::reading(&world.message),
        });
    }
}

/// The JSON a routine tool answers with: the answer, and whether it changed or asks anything.
pub(super) fn answered(shared: &Shared, outcomes: Vec<Outcome>, world: &World) -> Value {
    journal(shared, &outcomes, world);
    let answer = routine::answer::answer(&outcomes, &world.now);
    let changed = outcomes.iter().any(Outcome::changed);
    json!({ "answer": answer, "changed": changed })
}

/// Keep what `words` (a list tool's optional filter) names, by the words of `text(item)`;
/// no words, or blank ones, keep everything.
pub(super) fn keep_named<T>(items: &mut Vec<T>, words: Option<&str>, text: impl Fn(&T) -> String) {
    let Some(words) = words.filter(|w| !w.trim().is_empty()) else { return };
    let query = cn_hub::words::content(words);
    items.retain(|i| cn_hub::words::fit(&query, &cn_hub::words::content(&text(i))).weak());
}

/// A file that cannot be read or written: the step fails, naming the file.
pub(super) fn state_failed(e: cn_hub::tasks::StateError) -> ToolError {
    ToolError::Failed(cn_compute::chain(&e))
}

/// A name that names no single task, idea or entry: the caller's to fix.
pub(super) fn not_named(e: routine::NameError) -> ToolError {
    match e {
        routine::NameError::State(e) => state_failed(e),
        e => ToolError::BadParams(e.to_string()),
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Named {
    /// Its id (task-…, idea-…; a schedule entry's name) or words that name it ("car insurance").
    name: String,
}

/// What a tool on one named thing does: find it in the world (`World::task`, `idea`,
/// `entry`), then the act on it.
pub(super) type On<T> = (fn(&World, &str) -> Result<T, routine::NameError>, fn(T) -> routine::Act);

/// A tool that acts on one task, idea or schedule entry named by its id or its words, and
/// answers what changed; `owner` keeps it to the owner's items (the schedule).
pub(super) fn on_one<T: 'static>(
    shared: &Arc<Shared>,
    name: &str,
    description: &str,
    owner: bool,
    on: On<T>,
) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed(name, description, move |ctx, p: Named| {
        let world = world(&shared, ctx, "");
        if owner {
            owner_only(&world)?;
        }
        named(&world)?;
        let (find, make) = on;
        let found = find(&world, &p.name).map_err(not_named)?;
        let outcome = routine::act(make(found), &world).map_err(state_failed)?;
        Ok(answered(&shared, vec![outcome], &world))
    })
}

/// An unnamed provenance owns nothing (issue 42): every unauthenticated mailer is `email`, so
/// "what its author filed" would be what all of them filed. It may file tasks and ideas;
/// it may not list, change or read back any.
pub(super) fn named(world: &World) -> Result<(), ToolError> {
    if world.who.is_unnamed() {
        Err(ToolError::Denied(unnamed(&world.who)))
    } else {
        Ok(())
    }
}

/// Why an unnamed provenance is refused.
pub(super) fn unnamed(who: &Provenance) -> String {
    format!(
        "an item from {who} names no one (every sender it cannot vouch for is `{who}`), so nothing filed is \
         theirs: it may file tasks and ideas, never list, change or read them back"
    )
}

/// Whether `parsed` only files (tasks, ideas; a schedule entry the routine itself refuses to
/// anyone but the owner), or asks about nothing changed.
fn files_only(parsed: &Parsed) -> bool {
    match parsed {
        Parsed::Routine(requests) => requests.iter().all(|r| {
            matches!(
                r,
                routine::Request::AddTask { .. } | routine::Request::AddIdea { .. } | routine::Request::AddEvery { .. }
            )
        }),
        Parsed::Ask(_) | Parsed::Missing(_) | Parsed::NotRoutine => true,
    }
}

/// The schedule is the owner's: an entry fires as the owner's own work, so another's item
/// may neither read nor change it.
pub(super) fn owner_only(world: &World) -> Result<(), ToolError> {
    if world.who.is_owner() {
        Ok(())
    } else {
        Err(ToolError::Denied(format!("an item from {} may not read or change the owner's schedule", world.who)))
    }
}

/// Whether the item being handled is not a person's message: one of the agent's own
/// impulses (a task falling due, an idea, a schedule entry) or another agent's automatic
/// answer or notice. Those are never the routine's — "Task due: …" is no request to file a
/// task. The starter reflex's trigger says `kind: message` too; this holds for any reflex that
/// calls the action.
fn not_a_message(shared: &Shared) -> bool {
    // The item's typed origin says whether a person wrote it (an older cn's keys included).
    current_origin(shared).is_some_and(|o| !o.is_a_persons_message())
}

/// The level-2 model's choice among the routine's intents, if it has one.
fn classified(shared: &Shared, text: &str) -> Option<&'static str> {
    let turn = shared.turn();
    let plan = classify::plan(text, turn.target.item.as_deref());
    let mut models = shared.models.lock().ok()?;
    let model = models.default.as_mut()?;
    match model.ask(&plan) {
        Ok(a) => classify::intent(&a.markdown),
        Err(e) => {
            tracing::warn!(e = %cn_compute::Chain(&e), "the routine's level-2 question failed");
            None
        }
    }
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed(
        "routine",
        "Do what a person's message asks of their tasks, ideas or schedule (add, list, done, move, snooze, cancel, show; ideas add, list, drop; every … → the schedule), and answer what changed: {answer, changed, asks, intent}. Not routine, or not doable here: the item goes up, with why.",
        move |ctx, p: Params| {
            if not_a_message(&shared) {
                return Err(ToolError::Escalate("not a person's message: the agent's own work or an automatic one".into()));
            }
            let world = world(&shared, ctx, &p.text);
            let mut intent = None;
            // The question pending in this conversation first; else the message, as new.
            let mut understand = |text: &str| {
                let parsed = routine::parse(text, &world.now);
                // "Text the work chat we have moved the deadline": what the built-in model is sure
                // is none of the routine's is not asked of the level-2 model again.
                if parsed == Parsed::NotRoutine
                    && classify::unsure(text)
                    && routine::learned::sure(text) != routine::learned::Sure::NotRoutine
                    && !routine::learned::for_another(text)
                {
                    if let Some(i) = classified(&shared, text).filter(|i| routine::learned::level_two_may(i, text)) {
                        intent = Some(i);
                        return classify::request(i, text, &world.now);
                    }
                }
                parsed
            };
            // An unnamed provenance keeps no question for its "conversation" (anyone can be
            // it, and an answer is done without being read as new), and may only file.
            let done = if world.who.is_unnamed() {
                let parsed = understand(&p.text);
                if !files_only(&parsed) {
                    let answer = unnamed(&world.who);
                    return Ok(json!({ "answer": answer, "changed": false, "asks": false, "intent": intent }));
                }
                routine::perform(&parsed, &world)
            } else {
                routine::respond(&p.text, &world, understand)
            };
            match done {
                Ok(done) => {
                    journal(&shared, &done.outcomes, &world);
                    Ok(json!({
                        "answer": done.answer,
                        "changed": done.changed(),
                        "asks": done.asks(),
                        "intent": intent,
                    }))
                }
                Err(RoutineError::NotRoutine { reason }) => Err(ToolError::Escalate(reason)),
                // The request stays open: the executive (or the owner) is told why.
                Err(e @ RoutineError::State { .. }) => Err(ToolError::Escalate(cn_compute::chain(&e))),
            }
        },
    )
}
