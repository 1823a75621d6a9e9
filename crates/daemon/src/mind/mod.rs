//! The hub's `Mind`: what `decide` and `plan` mean for an agent living in a hub. It lives
//! in the daemon, not in autonomy: it composes attention and impulses (cn-autonomy) with the
//! hub's items (cn-agent), the reflexes (cn-reflex) and the plan builder (cn-models) — the
//! daemon's assembly, which autonomy itself need not depend on.
//!
//! decide is attention (document 003): one pool holds the percepts the senses admit, the
//! items waiting in the hub's inbox (`cn input`, peer mail from `cn sync`) and the impulses
//! (tasks due, schedule entries fired, and — only when nothing else waits — ideas). The most
//! salient becomes the current item: a percept or impulse is first written to the inbox as
//! an item (so it is durable in the hub before it leaves attention's spool), then taken. The
//! choice is journaled with its salience explanation, under the item's id.
//!
//! An item stays current until a decision (a GTD op, through `cn out` or its tool) closes
//! it; a per-item limit on moves defers an item whose model never decides, with the reason.
//! An owner item waiting pre-empts autonomous work at the next decide: the current item goes
//! back to the inbox undecided (the act in flight has finished: decide runs between moves).
//! With nothing salient it rests, or — for `--once` / `--until-idle` — stops.
//!
//! A new item is first offered to the reflexes (levels 0–2): when one answers, its reply
//! decides the item through the same `reply` op as `cn out do reply`, and no model is asked.
//! Only what the reflexes escalate reaches `plan`.
//!
//! plan: the prompt for the current item at the level the budget allows: the executive
//! (level 3) when one is configured and the thinking budget has room, else the local model
//! (level 2), built by `cn_models::build_plan` from the core seed, the item and what
//! happened on it so far.
//!
//! Invariant: an item is always somewhere durable — attention's spool until it is written to
//! the inbox, then the hub (inbox, current, deferred, decided); nothing leaves the spool
//! before the hub holds it. An inbox item that attention shed (its pool was full) is offered
//! again once the pool has room, so none is stranded in the inbox.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use cn_agent::{Cadence, Gtd, Hub, Item, Place, OWNER};
use cn_autonomy::jiff::Timestamp;
use cn_hub::origin::{ImpulseKind, Kind as ItemKind};
use cn_hub::Origin;
use serde_json::Value;

use cn_autonomy::journal::{self, Kind, Record};
use cn_autonomy::{AutonomousLoop, Candidate, Channels, ImpulseSource, Input, Percept};
use cn_compute::{Decision, Level, Outcome, Outcomes, Plan, StopToken};
use cn_models::{build_plan, LevelLimits, PlanInput};
use cn_tools::ToolDoc;

use crate::context;

mod close;
mod intake;
mod reflexes;

pub(crate) use intake::{percept_id, percept_item};
use reflexes::HubReplier;
pub use reflexes::Reactor;

/// When the mind stops the loop by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// Handle one item, then stop.
    Once,
    /// Handle items until nothing is salient, then stop.
    UntilIdle,
    /// Run until stopped from outside.
    Daemon,
}

/// Per-level tool docs and limits, fixed at start, plus the tools that join later (an MCP
/// server's, once it answers) as far as `policy` grants them to the level.
pub struct LevelPlan {
    pub level: Level,
    pub docs: Vec<ToolDoc>,
    pub limits: LevelLimits,
    pub late: cn_tools::LateTools,
    pub policy: cn_tools::Policy,
}

pub struct HubMind {
    hub: Hub,
    mode: RunMode,
    stop: StopToken,
    local: LevelPlan,
    executive: Option<LevelPlan>,
    /// Whether the executive may be asked now for an item (`true`: the owner's): the
    /// thinking budget's answer, or why not and until when.
    executive_allowed: Box<dyn FnMut(bool) -> Result<(), Refused> + Send>,
    /// Level 2 is a model the owner chose to trust with decisions (Ollama, an API, a command);
    /// `false` for the embedded SmolLM2, which classifies and extracts under a grammar but
    /// never decides an item itself.
    local_decides: bool,
    /// The level that works on the current item (chosen when it is taken).
    work_level: Level,
    /// The current item's origin (read once, when it is taken).
    origin: Option<Origin>,
    /// Its author and id, for the tool registry's provenance check (set with `origin`,
    /// cleared when the item's turn ends).
    working: cn_tools::Working,
    /// The decisions made in this process (the op tools', the reflexes', the mind's own).
    decisions: cn_agent::Decisions,
    max_moves: u32,
    current: Option<Item>,
    moves: u32,
    mark: u64,
    /// Items decided while this mind ran (shared, so the caller can read it after the loop).
    handled: Arc<AtomicU64>,
    /// Attention, the impulse sources and the journal.
    auto: AutonomousLoop,
    /// Inbox items offered to attention and not chosen yet.
    offered: HashSet<String>,
    /// Inbox files that could not be read (reported once, left for a person to fix).
    unreadable: HashSet<String>,
    /// The inbox directory as last listed: unchanged, it is not listed again.
    inbox_seen: Option<Option<cn_storage::Stamp>>,
    reflexes: Option<Arc<Mutex<cn_reflex::Engine>>>,
    /// Where items came from, as places to answer (typing indicator, the reply).
    channels: Channels,
    /// The level that last worked on the current item (a model's plan, or a reflex); `None`
    /// when only `cn out` (the owner) decided it.
    level: Option<Level>,
    /// `otel:`: a span per item (its model and tool calls are the children).
    telemetry: Option<crate::otel::Telemetry>,
    /// What a shadow reflex would have done with the current item, compared with the real
    /// decision when it comes (kept in memory: a restart in between loses one comparison).
    shadow: Option<cn_reflex::ShadowRun>,
    /// Why the reflex that took the current item stopped, when a step of it failed (a fetch
    /// the policy refused, a page that could not be fetched): the true reason when no level
    /// above can take the item — never "it needs an executive".
    stopped: Option<(String, String)>,
    /// The hub could not record a decision (a full disk): no item is taken before this, and
    /// the wait doubles while it lasts — so a full disk costs a few model calls a minute, not
    /// a loop of them (the disk-full bench saw 240 failed writes a second without it).
    stalled: Option<(std::time::Instant, std::time::Duration)>,
    /// The hub kept in origin (cn.yaml `origin:`): leased, an item's take and its decision
    /// are in origin before a model works on it and before its answer leaves the machine.
    replica: Option<Arc<crate::replica::Replica>>,
}

/// The first wait after the hub could not record a decision; it doubles up to [`STALL_MAX`].
const STALL_FIRST: std::time::Duration = std::time::Duration::from_secs(1);
const STALL_MAX: std::time::Duration = std::time::Duration::from_secs(300);

/// Lines of the recent-journal digest in the executive's prompt.
const JOURNAL_DIGEST_LINES: usize = 12;

/// When a task a decision left open comes up again.
const FOLLOW_UP_HOURS: i64 = 24;

/// Why the executive may not take an item now, and when it may (the budget's reset, the
/// pacing's next slot); `None` when nothing will change by itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub why: cn_agent::HandUp,
    pub until: Option<String>,
}

/// A time to the second, as the journal and the hub's files keep times.
fn second(t: Timestamp) -> String {
    Timestamp::from_second(t.as_second()).unwrap_or(t).to_string()
}

impl HubMind {
    pub fn new(
        hub: Hub,
        auto: AutonomousLoop,
        mode: RunMode,
        stop: StopToken,
        local: LevelPlan,
        executive: Option<LevelPlan>,
    ) -> Self {
        // Inbox items restored from attention's spool are offered already.
        let offered = auto
            .attention
            .with_pool(|pool| pool.iter().filter_map(|p| p.item.inbox_item().map(str::to_string)).collect());
        HubMind {
            hub,
            mode,
            stop,
            local,
            executive,
            executive_allowed: Box::new(|_| Ok(())),
            local_decides: true,
            work_level: 2,
            origin: None,
            decisions: cn_agent::Decisions::default(),
            working: cn_tools::Working::default(),
            max_moves: 4,
            current: None,
            moves: 0,
            mark: 0,
            handled: Arc::new(AtomicU64::new(0)),
            auto,
            offered,
            unreadable: HashSet::new(),
            inbox_seen: None,
            reflexes: None,
            channels: Channels::default(),
            level: None,
            telemetry: None,
            shadow: None,
            stopped: None,
            stalled: None,
            replica: None,
        }
    }

    /// Push the hub to origin at item boundaries (see [`crate::replica`]).
    pub fn with_replica(mut self, replica: Arc<crate::replica::Replica>) -> Self {
        self.replica = Some(replica);
        self
    }

    /// Commit and push the hub at an item boundary; false when the lease is lost (the daemon
    /// stops deciding: the fence has stopped its loop).
    fn checkpoint(&self, message: &str) -> bool {
        let Some(replica) = &self.replica else { return true };
        match replica.checkpoint(message) {
            Ok(()) => true,
            Err(fenced) => {
                tracing::warn!(%fenced, "{message}: not in origin; this daemon stops deciding");
                false
            }
        }
    }

    /// Trace every item as a span (`otel:` in cn.yaml).
    pub fn with_telemetry(mut self, telemetry: crate::otel::Telemetry) -> Self {
        self.telemetry = Some(telemetry);
        self
    }

    /// Offer new items to these reflexes first (levels 0–2) before any model is asked. The
    /// engine is shared (the executive's `reflex_write` tool changes it).
    pub fn with_reflexes(mut self, engine: Arc<Mutex<cn_reflex::Engine>>) -> Self {
        if let Ok(mut e) = engine.lock() {
            e.set_replier(Arc::new(HubReplier {
                hub: self.hub.clone(),
                reactor: None,
                decisions: self.decisions.clone(),
            }));
        }
        self.reflexes = Some(engine);
        self
    }

    /// Reactions go to a channel that has them (Discord) through `reactor`.
    pub fn with_reactor(self, reactor: Reactor) -> Self {
        if let Some(Ok(mut e)) = self.reflexes.as_ref().map(|r| r.lock()) {
            e.set_replier(Arc::new(HubReplier {
                hub: self.hub.clone(),
                reactor: Some(reactor),
                decisions: self.decisions.clone(),
            }));
        }
        self
    }

    /// Answer on the senses' `channels`: the typing indicator while a model works on an
    /// item of theirs, the reply sent there when the item is decided.
    pub fn with_channels(mut self, channels: Channels) -> Self {
        self.channels = channels;
        self
    }

    /// How many items were decided while this mind ran.
    pub fn handled(&self) -> Arc<AtomicU64> {
        self.handled.clone()
    }

    pub fn max_moves(mut self, n: u32) -> Self {
        self.max_moves = n.max(1);
        self
    }

    /// Ask before an item goes to the executive; `owner` says whether the item is the
    /// owner's. Every refusal is journaled.
    pub fn executive_allowed(mut self, f: impl FnMut(bool) -> Result<(), Refused> + Send + 'static) -> Self {
        self.executive_allowed = Box::new(f);
        self
    }

    /// Whether level 2 may decide items (a model the owner trusts), or only classify under a
    /// grammar (the embedded SmolLM2): see [`HubMind::local_decides`]'s field.
    pub fn local_decides(mut self, decides: bool) -> Self {
        self.local_decides = decides;
        self
    }

    /// Tell the tool registry (its context's [`cn_tools::Working`]) whose item the model works
    /// on, so its provenance check reads no file.
    pub fn with_working(mut self, working: cn_tools::Working) -> Self {
        self.working = working;
        self
    }

    /// Keep the decisions made in this process here (the op tools register with the same).
    pub fn with_decisions(mut self, decisions: cn_agent::Decisions) -> Self {
        self.decisions = decisions;
        self
    }

    fn note<T: cn_storage::Typed>(&mut self, record: &T) {
        self.auto.write(record);
    }

    /// Who works on an item no reflex took: the executive when one is configured and the
    /// budget allows (every refusal journaled), else level 2 when it is a model the owner
    /// trusts to decide; else nobody — and why, for [`HubMind::close_truly`].
    fn who_works(&mut self, origin: &Origin) -> Result<Level, Refused> {
        let owner = origin.kind.is_message() && origin.author.is_owner();
        if let Some(exec) = &self.executive {
            let level = exec.level;
            match (self.executive_allowed)(owner) {
                Ok(()) => return Ok(level),
                Err(refused) => {
                    let reason = refused.why.reason();
                    self.note(&crate::journal::BudgetRefused {
                        summary: format!("the executive was not asked: {reason}"),
                        outcome: "refused",
                        refusal: &reason,
                        until: refused.until.as_deref(),
                    });
                    if self.local_decides {
                        return Ok(self.local.level);
                    }
                    return Err(refused);
                }
            }
        }
        if self.local_decides {
            return Ok(self.local.level);
        }
        Err(Refused { why: cn_agent::HandUp::NoExecutive, until: None })
    }

    /// Idle: rest, or stop when running to idle.
    fn idle(&mut self) -> Decision {
        if self.mode != RunMode::Daemon {
            self.stop.stop();
        }
        Decision::Rest
    }

    /// The hub could not record a decision: take no item for a while (1 s, doubling to
    /// [`STALL_MAX`] while it lasts), and wake when the wait is over.
    fn stall(&mut self) -> Decision {
        let wait = self.stalled.map_or(STALL_FIRST, |(_, w)| (w * 2).min(STALL_MAX));
        let until = std::time::Instant::now() + wait;
        tracing::warn!("the hub cannot record a decision; taking no item for {wait:?}");
        self.stalled = Some((until, wait));
        self.auto.attention.wake_at(Some(until));
        Decision::Rest
    }
}

impl cn_compute::Mind for HubMind {
    fn decide(&mut self, outcomes: &Outcomes) -> Decision {
        loop {
            if self.stop.is_stopped() {
                return Decision::Rest;
            }
            // Leased: nothing more once the lease is gone (the fence stops the loop too).
            if let Some(Err(fenced)) = self.replica.as_ref().map(|r| r.holds()) {
                tracing::warn!(%fenced, "not deciding");
                return Decision::Rest;
            }
            if let Some((until, _)) = self.stalled.filter(|(until, _)| std::time::Instant::now() < *until) {
                self.auto.attention.wake_at(Some(until));
                return Decision::Rest;
            }
            if let Some(item) = self.current.clone() {
                // Decided in this process (an op tool, a reflex, a hand-up): the `Decided` its
                // decider returned ends the item's turn, and `state/input.md` is not read.
                if let Some(decided) = self.decisions.take(&item.id) {
                    self.stalled = None;
                    self.learn(&item, Some(&decided), outcomes);
                    self.finish_with(&item, Some(&decided));
                    continue;
                }
                // Else only another process (`cn out`) can have decided it: the hub says.
                match cn_agent::current(&self.hub) {
                    Ok(Some(now)) if now.id == item.id => {
                        // The model failed: the item is handed up with the true reason (the
                        // budget refused it, or the executive failed), not asked again and again.
                        if let Some(why) = self.ask_failed(outcomes) {
                            if !self.hand_up(&item, &why, None) {
                                return self.stall();
                            }
                            continue;
                        }
                        // A call held for the owner's approval: the item waits for their word
                        // (its sender is told), then comes back with what the call returned.
                        if let Some(approval) = held_call(outcomes.since(self.mark).iter()) {
                            if !self.wait_for_approval(&item, &approval, None) {
                                return self.stall();
                            }
                            continue;
                        }
                        if item.from != OWNER && self.auto.attention.owner_waiting() {
                            if !self.preempt(&item) {
                                return self.stall();
                            }
                            continue;
                        }
                        if self.moves >= self.max_moves {
                            if !self.defer_current(&item, outcomes) {
                                return self.stall();
                            }
                            continue;
                        }
                        return Decision::Move;
                    }
                    Ok(_) => {
                        // Decided by another process: the hub takes writes again.
                        self.stalled = None;
                        let decided = self.decided(&item);
                        self.learn(&item, decided.as_ref(), outcomes);
                        self.finish_with(&item, decided.as_ref());
                        continue;
                    }
                    Err(e) => {
                        tracing::error!(e = %cn_compute::Chain(&e), "cannot read the current item");
                        return Decision::Rest;
                    }
                }
            }
            match self.next_item() {
                Ok(Some(item)) => {
                    // Leased, the take is in origin before anyone works on the item: a clone
                    // taking over resumes it as the current item, never takes it anew.
                    if !self.checkpoint(&format!("cn: took {}", item.id)) {
                        return Decision::Rest;
                    }
                    if let Some(t) = &self.telemetry {
                        t.begin_item(&item.id, &item.from, item.cadence.as_str());
                    }
                    let origin = item.origin_in(&self.hub);
                    self.note(&crate::journal::Taken {
                        id: &item.id,
                        summary: format!("took item {} from {}", item.id, item.from),
                        origin: origin.describe(),
                        provenance: origin.author.label(),
                        kind: origin.kind.as_str(),
                        context: &first_line(&item.content),
                    });
                    if self.owner_word(&item, &origin.author)
                        || self.quiet_reflection(&item)
                        || self.resume_after_approval(&item, &origin)
                    {
                        self.finish(&item);
                        continue;
                    }
                    if self.reflex(&item, &origin) {
                        self.level = Some(2);
                        self.finish(&item);
                        continue;
                    }
                    // Another agent's automatic answer or notice is news on a thread: recorded
                    // there, never new work (and never answered: two agents would go on).
                    if origin.kind.is_automatic() {
                        if !self.record_on_thread(&item, &origin) {
                            return self.stall();
                        }
                        self.finish(&item);
                        continue;
                    }
                    match self.who_works(&origin) {
                        Ok(level) => {
                            self.work_level = level;
                            self.working.set(origin.author.clone(), &item.id);
                            self.origin = Some(origin);
                            self.current = Some(item);
                            self.moves = 0;
                            self.mark = outcomes.mark();
                            return Decision::Move;
                        }
                        Err(refused) => {
                            if !self.close_truly(&item, &origin, refused) {
                                return self.stall();
                            }
                            self.finish(&item);
                            continue;
                        }
                    }
                }
                Ok(None) => return self.idle(),
                Err(e) => {
                    tracing::error!(e = %cn_compute::Chain(&e), "cannot take the next item");
                    let outcome = cn_compute::chain(&e);
                    self.note(&cn_hub::journal::Noted { summary: "cannot take the next item", outcome: &outcome });
                    return self.idle();
                }
            }
        }
    }

    fn plan(&mut self, outcomes: &Outcomes) -> Plan {
        self.moves += 1;
        // The owner's own message (pacing does not apply; the small model's grammar is the
        // owner's), not the agent's own work on something the owner filed.
        let owner = self.origin.as_ref().is_some_and(|o| o.kind.is_message() && o.author.is_owner());
        let use_exec = self.executive.is_some() && self.work_level >= 3;
        // The time, so "tomorrow" and "by Friday" mean something. The local level gets it to
        // the minute: every token after the first that differs from the last ask is evaluated
        // again (the prompt cache), and seconds and a zone name cost it ~25 of them.
        let now = jiff::Zoned::now();
        let clock = if use_exec {
            format!(
                "Now: {} ({}, time zone {})",
                now.strftime("%Y-%m-%d %H:%M:%S %:z"),
                now.strftime("%A"),
                now.time_zone().iana_name().unwrap_or("local")
            )
        } else {
            format!("Now: {} ({})", now.strftime("%Y-%m-%d %H:%M %:z"), now.strftime("%A"))
        };
        let (content, id) = match &self.current {
            Some(i) => (format!("{clock}\nFrom: {}\n\n{}", i.from, i.content), Some(i.id.clone())),
            None => (String::new(), None),
        };
        self.level = Some(match (&self.executive, use_exec) {
            (Some(l), true) => l.level,
            _ => self.local.level,
        });
        let level = match (&self.executive, use_exec) {
            (Some(l), true) => l,
            _ => &self.local,
        };
        if let Some(item) = self.current.as_ref() {
            self.channels.typing(item, level.level);
        }
        let seed = std::fs::read_to_string(self.hub.layout().core_seed()).unwrap_or_default();
        // The executive also reads the item's thread and what the agent did lately (the
        // small local model's context is too short for them).
        let mut thread = Vec::new();
        if level.level >= 3 {
            if let Some(item) = &self.current {
                thread = context::thread_of(&self.hub, item);
            }
            // Told as its reader may know it: the owner's words only in the owner's prompt.
            let reader = match &self.origin {
                Some(o) if o.author.is_owner() => context::Reader::Owner,
                _ => context::Reader::Other,
            };
            let digest = context::journal_digest(&self.hub.layout().journal(), JOURNAL_DIGEST_LINES, reader);
            if !digest.is_empty() {
                thread.push(format!("What you did lately (from your journal):\n{digest}"));
            }
        }
        let late = level.late.docs_for(&level.policy, level.level);
        let docs: Vec<&ToolDoc> = level.docs.iter().chain(&late).collect();
        let recent = outcomes.since(self.mark);
        let input = PlanInput {
            level: level.level,
            core_seed: &seed,
            item: &content,
            item_id: id,
            owner,
            thread: &thread,
            outcomes: Some(&recent),
            tools: &docs,
        };
        build_plan(&input, level.limits)
    }
}

/// The approval a tool call was held as, if one was.
fn held_call<'a>(mut outcomes: impl Iterator<Item = &'a Outcome>) -> Option<String> {
    outcomes.find_map(|o| match o {
        Outcome::Acted { result: Err(cn_compute::ToolError::Held { approval, .. }), .. } => Some(approval.clone()),
        _ => None,
    })
}

fn first_line(s: &str) -> String {
    s.lines().find(|l| !l.trim().is_empty()).unwrap_or("").chars().take(120).collect()
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Acted { call, result: Ok(_) } => format!("{} ok", call.tool),
        Outcome::Acted { call, result: Err(e) } => format!("{} failed: {e}", call.tool, e = cn_compute::Chain(&e)),
        Outcome::Unparsed(e) => format!("unparsed block: {}", e.message),
        Outcome::AskFailed { error, .. } => format!("model failed: {error}", error = cn_compute::Chain(&error)),
    }
}
