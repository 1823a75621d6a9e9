//! The hub's `Mind`: what `decide` and `plan` mean for an agent living in a hub.
//!
//! decide: an item stays current until a decision (a GTD op, through `cn out` or its tool)
//! closes it; with no current item the next one is taken from the queue (cn, not the model,
//! chooses the order). A per-item limit on moves defers an item whose model never decides,
//! with the reason. With nothing to do it rests, or — for `--once` / `--until-idle` — stops.
//!
//! A new item is first offered to the reflexes (levels 0–2): when one answers, its reply
//! decides the item through the same `reply` op as `cn out do reply`, and no model is asked.
//! Only what the reflexes escalate reaches `plan`.
//!
//! With the queue empty it checks the impulses (tasks due, schedule entries fired, and —
//! only then, when truly idle — ideas) and turns each into an item: a schedule entry with a
//! `cadence` becomes a reflection whose outcome goes to `threads/reflections/<cadence>/`.
//!
//! plan: the prompt for the current item at the level the budget allows: the executive
//! (level 3) when one is configured and the thinking budget has room, else the local model
//! (level 2), built by `cn_models::build_plan` from the core seed, the item and what
//! happened on it so far.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cn_agent::{Cadence, Gtd, Hub, Item, OWNER};

use crate::impulses::{Drive, ImpulseSources};
use cn_compute::{Decision, Level, Outcome, Outcomes, Plan, StopToken};
use cn_models::{build_plan, LevelLimits, PlanInput};
use cn_storage::{Entry, Journal};
use cn_tools::ToolDoc;

/// When the mind stops the loop by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// Handle one item, then stop.
    Once,
    /// Handle items until the queue is empty, then stop.
    UntilIdle,
    /// Run until stopped from outside.
    Daemon,
}

/// Per-level tool docs and limits, fixed at start.
pub struct LevelPlan {
    pub level: Level,
    pub docs: Vec<ToolDoc>,
    pub limits: LevelLimits,
}

pub struct HubMind {
    hub: Hub,
    mode: RunMode,
    stop: StopToken,
    /// Levels from cheapest to most expensive that may plan a move (2, then 3 if configured).
    local: LevelPlan,
    executive: Option<LevelPlan>,
    /// Whether the executive may be asked now (the thinking budget's answer).
    executive_allowed: Box<dyn FnMut(bool) -> bool + Send>,
    max_moves: u32,
    current: Option<Item>,
    moves: u32,
    mark: u64,
    /// Items decided while this mind ran (shared, so the caller can read it after the loop).
    handled: Arc<AtomicU64>,
    journal: Option<Journal>,
    impulses: ImpulseSources,
    reflexes: Option<cn_reflex::Engine>,
}

/// Reflex replies decide the current item with the `reply` op (journaled, committed, and
/// sent back to a peer when the item came from one).
struct HubReplier {
    hub: Hub,
}

impl cn_reflex::Replier for HubReplier {
    fn reply(&self, _to: &cn_reflex::Target, message: &str) -> Result<(), String> {
        cn_agent::decide(&self.hub, &Gtd::Do(cn_agent::Op::Reply { message: message.to_string() }))
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
    fn react(&self, to: &cn_reflex::Target, emoji: &str) -> Result<(), String> {
        // A hub thread has no reactions; record it as a reply line so nothing is silent.
        self.reply(to, emoji)
    }
}

impl HubMind {
    pub fn new(hub: Hub, mode: RunMode, stop: StopToken, local: LevelPlan, executive: Option<LevelPlan>) -> Self {
        let journal = Journal::open(hub.path("state/journal.jsonl")).ok();
        let impulses = ImpulseSources::of_hub(hub.root(), jiff::Timestamp::now());
        HubMind {
            hub,
            mode,
            stop,
            local,
            executive,
            executive_allowed: Box::new(|_| true),
            max_moves: 4,
            current: None,
            moves: 0,
            mark: 0,
            handled: Arc::new(AtomicU64::new(0)),
            impulses,
            journal,
            reflexes: None,
        }
    }

    /// Offer new items to these reflexes first (levels 0–2) before any model is asked.
    pub fn with_reflexes(mut self, mut engine: cn_reflex::Engine) -> Self {
        engine.set_replier(std::sync::Arc::new(HubReplier { hub: self.hub.clone() }));
        self.reflexes = Some(engine);
        self
    }

    /// Let the reflexes try the current item. True when one handled it (no model needed).
    fn reflex(&mut self, item: &Item) -> bool {
        let Some(engine) = self.reflexes.as_mut() else { return false };
        let source = if item.from == OWNER { "owner" } else { "hub" };
        let handled = engine.handle(&cn_reflex::Percept::new(&item.content).source(source).id(&item.id));
        if handled.escalate {
            return false;
        }
        // A reflex that ran without replying still handled the item: close it, saying which.
        if let Ok(Some(now)) = cn_agent::current(&self.hub) {
            if now.id == item.id {
                let reason = format!("handled by reflex {}", handled.reflex.as_deref().unwrap_or("?"));
                if let Err(e) = cn_agent::decide(&self.hub, &Gtd::Do(cn_agent::Op::Ack { reason })) {
                    tracing::error!(%e, "cannot close {} after its reflex", item.id);
                    return false;
                }
            }
        }
        true
    }

    /// How many items were decided while this mind ran.
    pub fn handled(&self) -> Arc<AtomicU64> {
        self.handled.clone()
    }

    pub fn max_moves(mut self, n: u32) -> Self {
        self.max_moves = n.max(1);
        self
    }

    /// Ask before every executive plan; `owner` says whether the item is the owner's.
    pub fn executive_allowed(mut self, f: impl FnMut(bool) -> bool + Send + 'static) -> Self {
        self.executive_allowed = Box::new(f);
        self
    }

    fn note(&mut self, entry: Entry) {
        if let Some(j) = self.journal.as_mut() {
            if let Err(e) = j.append(&entry) {
                tracing::error!(%e, "cannot journal");
            }
        }
    }

    /// Idle: rest, or stop when running to idle.
    fn idle(&mut self) -> Decision {
        if self.mode != RunMode::Daemon {
            self.stop.stop();
        }
        Decision::Rest
    }

    /// An item born of a task completes the task once it is decided — unless it was deferred,
    /// which leaves the task open.
    fn complete_task(&mut self, item: &Item) {
        let Some(task) = item.doc.get_str("task").map(str::to_string) else { return };
        if matches!(cn_agent::locate(&self.hub, &item.id), Ok(Some(cn_agent::Place::Decided(_)))) {
            match crate::impulses::tasks::tasks_of(self.hub.root()).complete(&task) {
                Ok(_) => self.note(
                    Entry::new("observation")
                        .with("id", item.id.as_str())
                        .with("summary", format!("task {task} done"))
                        .with("outcome", "done"),
                ),
                Err(e) => tracing::error!(%e, "cannot mark task {task} done"),
            }
        }
    }

    /// Turn due impulses into items. Returns how many were queued.
    fn gather_impulses(&mut self) -> usize {
        let check = self.impulses.check(jiff::Timestamp::now(), true);
        for problem in &check.problems {
            self.note(Entry::new("observation").with("summary", "an impulse file has a problem").with("outcome", problem.as_str()));
        }
        for (entry, at) in &check.skipped {
            self.note(
                Entry::new("impulse")
                    .with("source", "schedule")
                    .with("summary", format!("skipped {} missed at {at} (catch_up: false)", entry.name))
                    .with("decision", "skipped"),
            );
        }
        let mut queued = 0;
        for imp in check.impulses {
            let content = match &imp.context {
                Some(c) => format!("{}\n\n{c}", imp.summary),
                None => imp.summary.clone(),
            };
            let cadence = imp.data.get("cadence").and_then(|v| v.as_str()).and_then(Cadence::parse);
            // One item per impulse, ever: the id is derived from the impulse (a task, one
            // schedule firing, an idea on one day), so a restart never queues it twice.
            let seed = match imp.source {
                Drive::Idea => format!("{}-{}", imp.id, jiff::Timestamp::now().as_second() / 86_400),
                _ => imp.id.clone(),
            };
            let id = cn_agent::item::stable_id(&seed);
            if matches!(cn_agent::locate(&self.hub, &id), Ok(Some(_))) {
                continue;
            }
            let (from, cadence) = match (imp.source, cadence) {
                (Drive::Schedule, Some(c)) => (self.hub.name().to_string(), c),
                _ => (self.hub.name().to_string(), Cadence::Adhoc),
            };
            let mut item = Item::new(&id, &from, cadence, &content);
            if imp.source == Drive::Task {
                if let Some(task) = imp.data.get("id").and_then(|v| v.as_str()) {
                    item.set("task", task);
                }
            }
            let result = cn_agent::enqueue(&self.hub, &item).map(|_| item);
            match result {
                Ok(item) => {
                    queued += 1;
                    self.note(
                        Entry::new("impulse")
                            .with("id", item.id.as_str())
                            .with("source", imp.source.name())
                            .with("summary", imp.summary.as_str())
                            .with("context", imp.context.clone().unwrap_or_default())
                            .with("decision", "queued")
                            .with("data", imp.data.clone()),
                    );
                }
                Err(e) => {
                    // Not lost: the source still holds it and offers it again once released.
                    self.impulses.release(&imp.id);
                    tracing::error!(%e, "cannot queue impulse {}", imp.id);
                }
            }
        }
        queued
    }

    fn finish_item(&mut self) {
        if let Some(item) = self.current.take() {
            self.complete_task(&item);
        }
        self.moves = 0;
        self.handled.fetch_add(1, Ordering::Relaxed);
        if self.mode == RunMode::Once {
            self.stop.stop();
        }
    }
}

impl cn_compute::Mind for HubMind {
    fn decide(&mut self, outcomes: &Outcomes) -> Decision {
        // Did the last move decide the current item?
        if let Some(item) = &self.current {
            match cn_agent::current(&self.hub) {
                Ok(Some(now)) if now.id == item.id => {}
                Ok(_) => {
                    self.finish_item();
                    if self.stop.is_stopped() {
                        return Decision::Rest;
                    }
                }
                Err(e) => {
                    tracing::error!(%e, "cannot read the current item");
                    return Decision::Rest;
                }
            }
        }
        if self.current.is_none() {
            match cn_agent::take_next(&self.hub) {
                Ok(Some(item)) => {
                    self.note(
                        Entry::new("observation")
                            .with("id", item.id.as_str())
                            .with("summary", format!("took item {} from {}", item.id, item.from))
                            .with("context", first_line(&item.content)),
                    );
                    if self.reflex(&item) {
                        self.finish_item();
                        return Decision::Rest;
                    }
                    self.current = Some(item);
                    self.moves = 0;
                    self.mark = outcomes.mark();
                }
                Ok(None) if self.gather_impulses() > 0 => return Decision::Rest,
                Ok(None) => return self.idle(),
                Err(e) => {
                    tracing::error!(%e, "cannot take the next item");
                    return self.idle();
                }
            }
        }
        if self.moves >= self.max_moves {
            let id = self.current.as_ref().map(|i| i.id.clone()).unwrap_or_default();
            let last = outcomes.since(self.mark).last().map(describe).unwrap_or_else(|| "no tool call".into());
            let reason = format!("no decision after {} moves (last: {last})", self.moves);
            match cn_agent::decide(&self.hub, &Gtd::Defer { reason: reason.clone(), until: None }) {
                Ok(_) => {
                    self.note(
                        Entry::new("decision")
                            .with("id", id.as_str())
                            .with("summary", format!("deferred {id}: move limit"))
                            .with("reasoning", reason),
                    );
                }
                Err(e) => tracing::error!(%e, "cannot defer {id}"),
            }
            self.finish_item();
            return Decision::Rest;
        }
        Decision::Move
    }

    fn plan(&mut self, outcomes: &Outcomes) -> Plan {
        self.moves += 1;
        let (content, id, owner) = match &self.current {
            Some(i) => (format!("From: {}\n\n{}", i.from, i.content), Some(i.id.clone()), i.from == OWNER),
            None => (String::new(), None, false),
        };
        let use_exec = match &self.executive {
            Some(_) => (self.executive_allowed)(owner),
            None => false,
        };
        let level = match (&self.executive, use_exec) {
            (Some(l), true) => l,
            _ => &self.local,
        };
        let seed = std::fs::read_to_string(self.hub.path("state/notes/core_seed.md")).unwrap_or_default();
        let docs: Vec<&ToolDoc> = level.docs.iter().collect();
        let recent = outcomes.since(self.mark);
        let input = PlanInput {
            level: level.level,
            core_seed: &seed,
            item: &content,
            item_id: id,
            owner,
            thread: &[],
            outcomes: Some(&recent),
            tools: &docs,
        };
        build_plan(&input, level.limits)
    }
}

fn first_line(s: &str) -> String {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").chars().take(120).collect()
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Acted { call, result: Ok(_) } => format!("{} ok", call.tool),
        Outcome::Acted { call, result: Err(e) } => format!("{} failed: {e}", call.tool),
        Outcome::Unparsed(e) => format!("unparsed block: {}", e.message),
        Outcome::AskFailed { error, .. } => format!("model failed: {error}"),
    }
}
