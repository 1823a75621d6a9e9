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
use serde_json::{json, Value};

use cn_autonomy::journal::{self, Kind, Record};
use cn_autonomy::{AutonomousLoop, Candidate, Channel, ImpulseSource, Input, Percept, SenseKind};
use cn_compute::{Decision, Level, Outcome, Outcomes, Plan, StopToken};
use cn_models::{build_plan, LevelLimits, PlanInput};
use cn_storage::Entry;
use cn_tools::ToolDoc;

use crate::context;

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

/// Reflex replies decide the current item with the `reply` op (journaled, committed, and
/// sent back to a peer when the item came from one). A reaction never decides the item (a
/// `react` then `reply` pipeline replies once): on a channel that has reactions (Discord) it
/// is a real reaction on the item's message; elsewhere it is journaled.
struct HubReplier {
    hub: Hub,
    reactor: Option<Reactor>,
    decisions: cn_agent::Decisions,
}

/// A real reaction: (channel id, message id, emoji); the channel's error if it failed.
pub type Reactor = Arc<dyn Fn(u64, u64, &str) -> Result<(), cn_autonomy::senses::SenseError> + Send + Sync>;

impl cn_reflex::Replier for HubReplier {
    fn reply(&self, to: &cn_reflex::Target, message: &str) -> Result<(), cn_reflex::ReplyError> {
        let reply = Gtd::Do(cn_agent::Op::Reply(cn_agent::ops::Reply { message: message.trim().to_string() }));
        let by = format!("reflex `{}`", to.reflex);
        let decided = cn_agent::decide_below_executive_by(&self.hub, &reply, to.level, &by)
            .map_err(cn_reflex::ReplyError::channel)?;
        self.decisions.push(&decided);
        Ok(())
    }
    fn react(&self, to: &cn_reflex::Target, emoji: &str) -> Result<(), cn_reflex::ReplyError> {
        let current = cn_agent::queue::current(&self.hub).ok().flatten();
        let on_discord = current.as_ref().and_then(|i| {
            let answer = i.origin(|_| false).answer.filter(|a| a.via == "discord")?;
            Some((answer.channel?.parse::<u64>().ok()?, answer.message?.parse::<u64>().ok()?))
        });
        if let (Some(react), Some((channel, message))) = (&self.reactor, on_discord) {
            return react(channel, message, emoji).map_err(cn_reflex::ReplyError::channel);
        }
        let id = to.item.clone().or(current.map(|i| i.id)).unwrap_or_default();
        let entry = Entry::new("reaction")
            .with("id", id.as_str())
            .with("summary", format!("reacted {emoji} to {id}"))
            .with("emoji", emoji);
        cn_hub::journal::HubJournal::append_to(&self.hub.path("state"), &entry).map_err(cn_reflex::ReplyError::channel)
    }
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
    channels: Vec<Box<dyn Channel>>,
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
            channels: Vec::new(),
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

    /// Answer on `channel` too: its typing indicator while a model works on one of its
    /// items, the reply sent there when the item is decided.
    pub fn with_channel(mut self, channel: Box<dyn Channel>) -> Self {
        self.channels.push(channel);
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

    /// Keep the decisions made in this process here (the op tools register with the same).
    pub fn with_decisions(mut self, decisions: cn_agent::Decisions) -> Self {
        self.decisions = decisions;
        self
    }

    fn note(&mut self, entry: Entry) {
        self.auto.append(&entry);
    }

    /// Let the reflexes try the current item. True when one handled it (no model needed).
    /// They see its origin: a trigger takes only the kinds and authors it names (the triage,
    /// only a person's message).
    fn reflex(&mut self, item: &Item, origin: &Origin) -> bool {
        let Some(engine) = self.reflexes.clone() else { return false };
        let Ok(mut engine) = engine.lock() else { return false };
        let source = item.doc.get_str("sense").unwrap_or(if item.from == OWNER { "owner" } else { "hub" });
        let handled = engine.handle(&cn_reflex::Input::new(&item.content).source(source).id(&item.id).origin(origin));
        drop(engine);
        self.shadow = handled.shadow.clone();
        self.stopped = handled.reflex.as_ref().and_then(|name| {
            let failed = handled.steps.iter().rev().find_map(|s| Some((s.action.as_str(), s.error.as_deref()?)))?;
            Some((item.id.clone(), format!("my reflex `{name}` could not {}: {}", failed.0, failed.1)))
        });
        // A step held for the owner's approval: the item waits for their word (the sender is
        // told), and the run resumes from that step once it comes.
        if let Some(held) = &handled.held {
            return self.wait_for_approval(item, &held.approval, serde_json::to_value(held).ok());
        }
        if handled.escalate {
            return false;
        }
        self.close_after_reflex(item, &handled)
    }

    /// A reflex ran without replying: it still handled the item. Another's item is closed
    /// saying which reflex; an owner's request is never closed below the executive: the owner
    /// is told what the reflex did, from its steps' results. False when it cannot be recorded.
    fn close_after_reflex(&mut self, item: &Item, handled: &cn_reflex::Handled) -> bool {
        if let Ok(Some(now)) = cn_agent::current(&self.hub) {
            if now.id == item.id {
                let name = handled.reflex.as_deref().unwrap_or("?");
                let decided = if item.from == OWNER {
                    let message = what_the_reflex_did(name, &handled.steps);
                    cn_agent::decide_below_executive_by(
                        &self.hub,
                        &Gtd::Do(cn_agent::Op::Reply(cn_agent::ops::Reply { message })),
                        handled.level,
                        &format!("reflex `{name}`"),
                    )
                } else {
                    let reason = format!("handled by reflex {name}");
                    let by = cn_agent::DecideAs {
                        automatic: true,
                        level: Some(handled.level),
                        handed_up: None,
                        by: Some(format!("reflex `{name}`")),
                    };
                    cn_agent::decide_as(&self.hub, &Gtd::Do(cn_agent::Op::Ack(cn_agent::ops::Ack { reason })), &by)
                };
                match decided {
                    Ok(d) => self.decisions.push(&d),
                    Err(e) => {
                        tracing::error!(e = %cn_compute::Chain(&e), "cannot close {} after its reflex", item.id);
                        return false;
                    }
                }
            }
        }
        true
    }

    /// The current item waits for the owner's word on approval `id`: handed up saying what is
    /// held (the sender is told); `resume` (a reflex's held run) is kept in the approval, so
    /// the work goes on from there when the owner decides.
    fn wait_for_approval(&mut self, item: &Item, id: &str, resume: Option<Value>) -> bool {
        let layout = self.hub.layout().clone();
        let what = match cn_hub::approvals::update(&layout, id, |a| {
            if resume.is_some() {
                a.resume = resume;
            }
        }) {
            Ok(a) => a.what(),
            Err(e) => {
                tracing::error!(e = %cn_compute::Chain(&e), "cannot record how {} resumes after {id}", item.id);
                "an action".into()
            }
        };
        self.hand_up(item, &cn_agent::HandUp::Held { approval: id.to_string(), what }, None)
    }

    /// An item whose work waited for the owner's word on an approval, back once they gave it:
    /// a reflex's held run resumes with the call's result (its reply goes to whoever asked);
    /// a denial is told to them. True when that decided the item; otherwise (the executive's
    /// item, which reads the result in its text) the item goes on as usual.
    fn resume_after_approval(&mut self, item: &Item, origin: &Origin) -> bool {
        let layout = self.hub.layout().clone();
        let Ok(Some(a)) = cn_hub::approvals::decided_for(&layout, &item.id) else { return false };
        if let Err(e) = cn_hub::approvals::update(&layout, &a.id, |r| r.settled = true) {
            tracing::error!(e = %cn_compute::Chain(&e), "cannot settle approval {}", a.id);
        }
        let held = a.resume.clone().and_then(|v| serde_json::from_value::<cn_reflex::HeldRun>(v).ok());
        let Some(held) = held else { return false };
        if a.status == cn_hub::approvals::Status::Denied {
            let who = if origin.author.is_owner() { "You" } else { "My owner" };
            let message = format!("{who} declined {}, so I did not do it.", a.what());
            let reply = Gtd::Do(cn_agent::Op::Reply(cn_agent::ops::Reply { message }));
            return match cn_agent::decide_below_executive(&self.hub, &reply, 1) {
                Ok(d) => {
                    self.decisions.push(&d);
                    true
                }
                Err(e) => {
                    tracing::error!(e = %cn_compute::Chain(&e), "cannot tell {} of the denial", item.id);
                    false
                }
            };
        }
        let Some(engine) = self.reflexes.clone() else { return false };
        let Ok(mut engine) = engine.lock() else { return false };
        let source = item.doc.get_str("sense").unwrap_or(if item.from == OWNER { "owner" } else { "hub" });
        let input = cn_reflex::Input::new(&item.content).source(source).id(&item.id).origin(origin);
        let result = a.result.clone().unwrap_or(Value::Null);
        let handled = engine.resume(&held, result, &input);
        drop(engine);
        match handled {
            Some(h) if !h.escalate => self.close_after_reflex(item, &h),
            _ => false,
        }
    }

    /// The owner's word on a held action, as a message (`approve ap-…` or `deny ap-…` in
    /// `cn chat`, the owner's Discord or Telegram DM): decided here, without a model, and
    /// answered with what ran. Only an item whose provenance is the owner's decides; the
    /// same words from anyone else are an ordinary message. True when it was one.
    fn owner_word(&mut self, item: &Item, from: &cn_hub::Provenance) -> bool {
        if !from.is_owner() || item.from != OWNER {
            return false;
        }
        let mut words = item.content.split_whitespace();
        let (Some(verb), Some(id), None) = (words.next(), words.next(), words.next()) else { return false };
        let approve = match verb.to_ascii_lowercase().as_str() {
            "approve" => true,
            "deny" => false,
            _ => return false,
        };
        if !id.starts_with("ap-") {
            return false;
        }
        let message = if approve {
            match crate::approve::approve(&self.hub, id) {
                Ok(done) => done.summary(),
                Err(e) => format!("Could not approve {id}: {e}", e = cn_compute::Chain(&e)),
            }
        } else {
            match crate::approve::deny(&self.hub, id) {
                Ok(a) => format!("denied {}: nothing runs", a.id),
                Err(e) => format!("Could not deny {id}: {e}", e = cn_compute::Chain(&e)),
            }
        };
        let reply = Gtd::Do(cn_agent::Op::Reply(cn_agent::ops::Reply { message }));
        match cn_agent::decide_as(&self.hub, &reply, &cn_agent::DecideAs { level: Some(0), ..Default::default() }) {
            Ok(d) => {
                self.decisions.push(&d);
                true
            }
            Err(e) => {
                tracing::error!(e = %cn_compute::Chain(&e), "cannot answer the owner's word on {id}");
                false
            }
        }
    }

    /// A scheduled reflection when nothing was decided since the last one of its cadence (no
    /// item other than reflections; without an earlier one, over the cadence's period) is
    /// closed without a model: there is nothing to reflect on, and a quiet
    /// week costs no thinking. True when it closed the item.
    fn quiet_reflection(&mut self, item: &Item) -> bool {
        if item.doc.get_str("impulse") != Some(ImpulseSource::Schedule.name()) {
            return false;
        }
        match crate::reflection::work_since_last(&self.hub, item.cadence) {
            Some(work) if work.is_empty() => {}
            _ => return false,
        }
        let reason = format!(
            "A quiet {}: nothing was decided since the last reflection, so there is nothing to reflect on.",
            crate::reflection::period_word(item.cadence)
        );
        self.ack_by_cn(item, reason, "cannot close the quiet reflection {}")
    }

    /// The current item was decided by a level above the reflexes (or the owner): compare a
    /// shadow reflex's would-be decision with it, or, when none ran, let the reflexes learn
    /// from it (a proposal after several executive decisions of one shape).
    fn learn(&mut self, item: &Item, decided: Option<&cn_agent::Decided>, outcomes: &Outcomes) {
        let Some(engine) = self.reflexes.clone() else { return };
        let shadow = self.shadow.take().filter(|s| s.item.as_deref() == Some(item.id.as_str()));
        let Some(decided) = decided else { return };
        let gtd = &decided.gtd;
        let op = gtd.op().map_or(gtd.name(), |o| o.name()).to_string();
        let message = gtd.to_json().get("message").and_then(Value::as_str).map(String::from);
        let tools = outcomes
            .since(self.mark)
            .iter()
            .filter_map(|o| match o {
                Outcome::Acted { call, result: Ok(_) } => Some(call.tool.clone()),
                _ => None,
            })
            .collect();
        let source = item.doc.get_str("sense").unwrap_or(if item.from == OWNER { "owner" } else { "hub" });
        let decided = cn_reflex::Decided {
            op,
            message,
            tools,
            level: self.level,
            // What the person said, never cn's own notes on the item (a hand-up's reason).
            text: item.said(self.hub.name()).to_string(),
            source: Some(source.to_string()),
            item: Some(item.id.clone()),
        };
        let Ok(mut engine) = engine.lock() else { return };
        match shadow {
            Some(run) => {
                engine.settle_shadow(&run, &decided);
            }
            // Proposals learn only from what people asked: never from the agent's own
            // impulses, notices or automatic answers (their text is cn's or another agent's).
            None if item.origin_kind().is_message() => {
                engine.observe_decision(&decided);
            }
            None => {}
        }
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
                    self.note(
                        Entry::new("budget")
                            .with("summary", format!("the executive was not asked: {}", refused.why.reason()))
                            .with("outcome", "refused")
                            .with("refusal", refused.why.reason())
                            .with("until", refused.until.clone().map_or(Value::Null, Value::String)),
                    );
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

    /// Decide an item no level that could do it may take, truly, without a model: a person's
    /// message is handed up with the reason (and waits for what it needs); the agent's own
    /// impulses and events wait for the budget, or — with no executive at all — are closed
    /// saying what happened and that nothing below the executive can do more (a reflection
    /// gets its digest of the journal). Nothing is filed again as a task or an idea.
    fn close_truly(&mut self, item: &Item, origin: &Origin, mut refused: Refused) -> bool {
        // A reflex took it and a step failed: that is why it is not done (an executive would
        // not change a refused fetch or an unreachable page).
        if origin.kind.is_message() && refused.why == cn_agent::HandUp::NoExecutive {
            if let Some((_, why)) = self.stopped.take().filter(|(id, _)| *id == item.id) {
                refused.why = cn_agent::HandUp::Stopped { why };
            }
        }
        if origin.kind.is_message() || refused.why != cn_agent::HandUp::NoExecutive {
            return self.hand_up(item, &refused.why, refused.until);
        }
        let what = first_line(&item.content);
        let reason = match origin.kind {
            ItemKind::Impulse(ImpulseKind::Schedule) if item.cadence.is_reflection() => {
                match crate::reflection::work_since_last(&self.hub, item.cadence) {
                    Some(work) => crate::reflection::digest(item.cadence, &work),
                    None => format!("{what}: nothing below the executive can reflect, and no executive is configured"),
                }
            }
            ItemKind::Impulse(ImpulseKind::Task | ImpulseKind::FollowUp) => format!(
                "{what} — nothing below the executive can do it and no executive is configured; the task stays open"
            ),
            ItemKind::Impulse(ImpulseKind::Idea) => format!(
                "{what} — not explored: exploring needs an executive and none is configured; the idea stays"
            ),
            ItemKind::Impulse(ImpulseKind::Schedule) => format!(
                "{what} — the schedule entry fired; nothing below the executive can do it and no executive is configured"
            ),
            _ => format!("noted: {what} (no reflex takes it, and no executive is configured)"),
        };
        self.ack_by_cn(item, reason, "cannot close {}")
    }

    /// Another agent's automatic answer or notice: recorded on its thread (the item is filed
    /// with its thread), never new work, never answered.
    fn record_on_thread(&mut self, item: &Item, origin: &Origin) -> bool {
        let thread = origin.thread.as_deref().unwrap_or(&item.thread);
        let reason = format!("recorded on thread {thread}: {}", first_line(&item.content));
        self.ack_by_cn(item, reason, "cannot record {} on its thread")
    }

    /// Hand the current item up for `why` (deferred with the true reason; its sender told);
    /// false when the hub could not record it.
    fn hand_up(&mut self, item: &Item, why: &cn_agent::HandUp, until: Option<String>) -> bool {
        match cn_agent::hand_up_current(&self.hub, why, until) {
            Ok(d) => {
                if self.current.as_ref().is_some_and(|c| c.id == item.id) {
                    self.finish_with(item, Some(&d));
                } else {
                    self.decisions.push(&d);
                }
                true
            }
            Err(e) => {
                tracing::error!(e = %cn_compute::Chain(&e), "cannot hand {} up", item.id);
                false
            }
        }
    }

    /// Why the model working on the current item failed, if its last ask did: the budget's
    /// refusal, or the executive's error (a level below it: only it can do the item now).
    fn ask_failed(&self, outcomes: &Outcomes) -> Option<cn_agent::HandUp> {
        match outcomes.since(self.mark).last()? {
            Outcome::AskFailed { level, error } => Some(match error {
                cn_compute::ModelError::Budget(refusal) => cn_agent::HandUp::Budget { refusal: refusal.clone() },
                e if *level >= 3 => cn_agent::HandUp::ExecutiveFailed { error: cn_compute::chain(e) },
                _ => cn_agent::HandUp::Later,
            }),
            _ => None,
        }
    }

    /// Close `item` with an `ack` saying `reason`, decided by cn's own rules (level 1, an
    /// automatic answer); false when the hub could not record it (`failed`: what is logged,
    /// `{}` the item's id).
    fn ack_by_cn(&mut self, item: &Item, reason: String, failed: &str) -> bool {
        let by =
            cn_agent::DecideAs { automatic: true, level: Some(1), handed_up: None, by: Some("cn's own rules".into()) };
        match cn_agent::decide_as(&self.hub, &Gtd::Do(cn_agent::Op::Ack(cn_agent::ops::Ack { reason })), &by) {
            Ok(d) => {
                self.decisions.push(&d);
                true
            }
            Err(e) => {
                tracing::error!(e = %cn_compute::Chain(&e), "{}", failed.replace("{}", &item.id));
                false
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

    /// An item born of a task completes the task only when a decision did the task: not a
    /// noop, and not a level below the executive (the small model cannot do a task, and a
    /// reflex only answers). Left open, the task is followed up a day later; a deferred item
    /// comes back by itself at its `until`.
    fn settle_task(&mut self, item: &Item, decided: &cn_agent::Decided) {
        let Some(task) = item.doc.get_str("task").map(str::to_string) else { return };
        if matches!(decided.gtd, Gtd::Defer(_)) {
            return;
        }
        let noop = matches!(decided.gtd, Gtd::Do(cn_agent::Op::Noop(_)));
        let below = decided.level.is_some_and(|l| l < 3);
        let tasks = cn_autonomy::impulses::tasks::tasks_of(self.hub.root());
        if !noop && !below {
            match tasks.complete(&task) {
                Ok(_) => self.note(
                    Entry::new("observation")
                        .with("id", item.id.as_str())
                        .with("summary", format!("task {task} done"))
                        .with("outcome", "done"),
                ),
                Err(e) => tracing::error!(e = %cn_compute::Chain(&e), "cannot mark task {task} done"),
            }
            return;
        }
        let at = Timestamp::from_second(Timestamp::now().as_second() + FOLLOW_UP_HOURS * 3600)
            .unwrap_or_else(|_| Timestamp::now());
        let why = if noop { "a noop does not do it" } else { "a level below the executive cannot do it" };
        match tasks.follow_up(&task, at) {
            Ok(_) => self.note(
                Entry::new("observation")
                    .with("id", item.id.as_str())
                    .with("summary", format!("task {task} left open: {why}; followed up at {}", second(at)))
                    .with("outcome", "open"),
            ),
            Err(e) => tracing::error!(e = %cn_compute::Chain(&e), "cannot set the follow-up of task {task}"),
        }
    }

    /// An item born of an idea, once explored (decided by the executive, or by the owner), is
    /// an exploration: journaled (the idea, how long, the outcome, what was learned — the
    /// decision's note) and the idea marked explored in ideas.json. One no level could explore
    /// stays an idea.
    fn settle_idea(&mut self, item: &Item, decided: &cn_agent::Decided) {
        let Some(idea) = item.doc.get_str("idea").map(str::to_string) else { return };
        if decided.level.is_some_and(|l| l < 3) || matches!(decided.gtd, Gtd::Defer(_)) {
            return;
        }
        let done = &decided.item;
        let now = Timestamp::now();
        let began = done.queued.parse::<Timestamp>().unwrap_or(now);
        let duration = now.duration_since(began).as_secs().max(0);
        let outcome = decided.gtd.summary();
        // What was learned: the decision's own note on the item ("## do ack — …\n\nthe note").
        let learned: String = done
            .content
            .rsplit("\n## ")
            .next()
            .and_then(|n| n.split_once("\n\n"))
            .map_or("", |(_, b)| b.trim())
            .chars()
            .take(500)
            .collect();
        let idea_text = first_line(&item.content);
        self.note(
            Entry::new("exploration")
                .with("id", item.id.as_str())
                .with("idea", idea_text.strip_prefix("Idea to explore: ").unwrap_or(&idea_text).to_string())
                .with("idea_id", idea.as_str())
                .with("provenance", item.origin_in(&self.hub).author.label())
                .with("duration_sec", duration)
                .with("outcome", outcome)
                .with("learned", learned),
        );
        if let Err(e) = cn_autonomy::impulses::ideas::ideas_of(self.hub.root()).mark_explored(&idea, now) {
            tracing::error!(e = %cn_compute::Chain(&e), "cannot mark idea {idea} explored");
        }
    }

    /// What was decided on `item`: as this process's decider returned it, or — decided by
    /// another process (the owner's `cn out`) — as the hub recorded it.
    fn decided(&self, item: &Item) -> Option<cn_agent::Decided> {
        self.decisions.take(&item.id).or_else(|| cn_agent::queue::read_decided(&self.hub, &item.id).ok().flatten())
    }

    /// The current item was decided (by a model's op, a reflex, `cn out`, cn's own rules, or
    /// the move limit).
    fn finish(&mut self, item: &Item) {
        let decided = self.decided(item);
        self.finish_with(item, decided.as_ref());
    }

    fn finish_with(&mut self, item: &Item, decided: Option<&cn_agent::Decided>) {
        if let Some(t) = &self.telemetry {
            t.end_item(self.level, None);
        }
        self.current = None;
        self.origin = None;
        self.moves = 0;
        if let Some(d) = decided {
            self.settle_task(item, d);
            self.settle_idea(item, d);
        }
        self.level = None;
        // Leased, the decision is in origin before its answer leaves: a daemon that lost the
        // lease tells no one (the clone that took over decides the item and answers).
        let told = self.checkpoint(&format!("cn: decided {}", item.id));
        for channel in &mut self.channels {
            channel.finished(item, decided.filter(|_| told));
        }
        self.handled.fetch_add(1, Ordering::Relaxed);
        // What was written about the item after its decision's commit joins that commit.
        if let Err(e) = cn_agent::decide::seal(&self.hub, &item.id) {
            tracing::warn!(e = %cn_compute::Chain(&e), item = %item.id, "cannot commit what the item's decision left");
        }
        if self.mode == RunMode::Once {
            self.stop.stop();
        }
    }

    /// An owner item waits: put the current (autonomous) item back in the inbox, undecided.
    fn preempt(&mut self, item: &Item) -> bool {
        match cn_agent::return_current(&self.hub) {
            Ok(Some(back)) if back.id == item.id => {
                if let Some(t) = &self.telemetry {
                    t.end_item(self.level, Some("paused: the owner comes first"));
                }
                self.auto.record(
                    Record::new(Kind::Decision, item.id.as_str(), format!("paused {}: the owner comes first", item.id))
                        .reasoning("an owner item arrived; autonomous work yields at the next decide")
                        .outcome("returned to the queue"),
                );
                self.current = None;
                self.moves = 0;
                self.level = None;
                for channel in &mut self.channels {
                    channel.finished(item, None);
                }
                true
            }
            // Decided meanwhile (a recorded decision was finished): the next decide sees it.
            Ok(_) => true,
            Err(e) => {
                tracing::error!(e = %cn_compute::Chain(&e), "cannot pause {} for the owner", item.id);
                false
            }
        }
    }

    /// The move limit: defer the current item with the reason. False when the hub could not
    /// record it: the item stays current (nothing is finished, no channel told), and the next
    /// decide after the stall tries the defer again, without asking a model.
    fn defer_current(&mut self, item: &Item, outcomes: &Outcomes) -> bool {
        let last = outcomes.since(self.mark).last().map(describe).unwrap_or_else(|| "no tool call".into());
        let reason = format!("no decision after {} moves (last: {last})", self.moves);
        // Always with an `until`: an item the daemon defers itself comes back (an owner's
        // request is handed up with that time, never left without one).
        let until = Some(cn_storage::rfc3339_after(self.auto.pacing.retry_deferred));
        let gtd = Gtd::Defer(cn_agent::ops::Defer { reason: reason.clone(), until });
        match cn_agent::decide_below_executive(&self.hub, &gtd, 1) {
            Ok(d) => {
                self.decisions.push(&d);
                self.stalled = None;
                self.note(
                    Entry::new("decision")
                        .with("id", item.id.as_str())
                        .with("summary", format!("deferred {}: move limit", item.id))
                        .with("reasoning", reason),
                );
                self.finish(item);
                true
            }
            Err(e) => {
                tracing::error!(e = %cn_compute::Chain(&e), "cannot defer {}", item.id);
                false
            }
        }
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

    /// Offer attention the inbox items it has not seen (`cn input`, peer mail, items put
    /// back, deferred items due again — `cn_agent::resume` moved those back).
    fn offer_inbox(&mut self) {
        // An item offered but no longer pooled was shed (the pool was full) and is still in
        // the inbox: once there is room, offer it again.
        let mut shed = false;
        if !self.offered.is_empty() {
            let (pooled, room) = self.auto.attention.with_pool(|pool| {
                let pooled: HashSet<String> =
                    pool.iter().filter_map(|p| p.item.inbox_item().map(str::to_string)).collect();
                (pooled, pool.has_room())
            });
            if room {
                let before = self.offered.len();
                self.offered.retain(|id| pooled.contains(id));
                shed = self.offered.len() < before;
            }
        }
        let dir = self.hub.inbox();
        // Adding or removing an item changes the directory's stamp; unchanged, there is
        // nothing new to offer (and no listing wakes the hub watcher).
        let stamp = cn_storage::Stamp::of(&dir).ok();
        if !shed && stamp.as_ref().is_some_and(|now| cn_storage::Stamp::vouches(self.inbox_seen.as_ref(), now)) {
            return;
        }
        self.inbox_seen = stamp;
        let Ok(entries) = std::fs::read_dir(&dir) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".md")).filter(|n| !n.starts_with('.')) else {
                continue;
            };
            if self.offered.contains(id) || self.unreadable.contains(id) {
                continue;
            }
            let item = match Item::read(&entry.path()) {
                Ok(item) => item,
                Err(e) => {
                    // Left where it is for a person to fix; reported once.
                    tracing::warn!("skipping {}: {e}", entry.path().display(), e = cn_compute::Chain(&e));
                    self.unreadable.insert(id.to_string());
                    continue;
                }
            };
            self.offered.insert(item.id.clone());
            self.auto.attention.admit(inbox_percept(&item));
        }
    }

    /// Attention's choice as an item in the hub's inbox; its id, or `None` when the choice is
    /// stale (an inbox item decided meanwhile, an impulse already handled).
    fn enqueue_selected(&mut self, c: &Candidate) -> Result<Option<String>, cn_agent::AgentError> {
        let item = match &c.item {
            Input::Percept(p) => {
                if let Some(id) = c.item.inbox_item() {
                    let id = id.to_string();
                    self.offered.remove(&id);
                    return Ok(matches!(cn_agent::locate(&self.hub, &id)?, Some(Place::Inbox(_))).then_some(id));
                }
                let id = percept_id(p);
                if cn_agent::locate(&self.hub, &id)?.is_some() {
                    return Ok(Some(id));
                }
                percept_item(&id, p, c.merged_count)
            }
            Input::Impulse(imp) => {
                // One item per impulse, ever: the id derives from the impulse (a task at one
                // due time, one schedule firing, an idea on one day).
                let seed = match imp.source {
                    ImpulseSource::Idea => format!("{}-{}", imp.id, Timestamp::now().as_second() / 86_400),
                    ImpulseSource::Task => format!("{}@{}", imp.id, imp.due.map(|d| d.to_string()).unwrap_or_default()),
                    ImpulseSource::Schedule => imp.id.clone(),
                };
                // Keyed with the hub's secret, so a peer cannot pre-file the item (same id:
                // "already handled") and suppress the run.
                let key = cn_hub::owner_token::id_key(self.hub.layout()).map_err(cn_agent::AgentError::from)?;
                let id = cn_hub::id::keyed(&key, &seed);
                if cn_agent::locate(&self.hub, &id)?.is_some() {
                    self.settle(imp);
                    return Ok(None);
                }
                let content = match &imp.context {
                    Some(ctx) => format!("{}\n\n{ctx}", imp.summary),
                    None => imp.summary.clone(),
                };
                let cadence = match imp.source {
                    ImpulseSource::Schedule => imp
                        .data
                        .get("cadence")
                        .and_then(Value::as_str)
                        .and_then(Cadence::parse)
                        .unwrap_or(Cadence::Adhoc),
                    _ => Cadence::Adhoc,
                };
                let mut item = Item::new(&id, self.hub.name(), cadence, &content);
                item.set("impulse", imp.source.name());
                // A task or idea someone other than the owner filed brings its item back
                // as theirs (`cn_hub::Provenance`): filing cannot launder a request.
                let source = imp.data.get("source").and_then(Value::as_str);
                if let Some(source) = source {
                    item.set("source", source);
                }
                let kind = match imp.source {
                    // Due and not yet followed up: the task falling due; else a follow-up.
                    ImpulseSource::Task
                        if imp.data.get("due").is_some_and(|v| !v.is_null())
                            && imp.data.get("follow_up").is_none_or(Value::is_null) =>
                    {
                        ImpulseKind::Task
                    }
                    ImpulseSource::Task => ImpulseKind::FollowUp,
                    ImpulseSource::Idea => ImpulseKind::Idea,
                    ImpulseSource::Schedule => ImpulseKind::Schedule,
                };
                let author = source.map_or(cn_hub::Provenance::Owner, cn_hub::Provenance::parse);
                item.set_origin(&Origin::impulse(kind, author));
                if let Some(origin) = imp.data.get("id").and_then(Value::as_str) {
                    match imp.source {
                        ImpulseSource::Task => item.set("task", origin),
                        ImpulseSource::Idea => item.set("idea", origin),
                        ImpulseSource::Schedule => {}
                    }
                }
                item
            }
        };
        cn_agent::enqueue(&self.hub, &item)?;
        if let Input::Impulse(imp) = &c.item {
            self.settle(imp);
        }
        Ok(Some(item.id))
    }

    /// The hub holds the item of `imp`: a schedule firing is recorded as fired now, with it.
    fn settle(&mut self, imp: &cn_autonomy::Impulse) {
        if let Err(e) = self.auto.impulses.settle(imp) {
            tracing::error!(e = %cn_compute::Chain(&e), "cannot record that {} fired", imp.id);
        }
    }

    /// The next item to work on: one left current by an earlier run, else attention's
    /// choice. `None` when nothing is salient.
    fn next_item(&mut self) -> Result<Option<Item>, cn_agent::AgentError> {
        if let Some(item) = cn_agent::resume(&self.hub)? {
            return Ok(Some(item));
        }
        loop {
            // Read the inbox and the impulse files as of now: a change after this point must
            // still wake the rest that follows an empty decide.
            let generation = self.auto.attention.generation();
            self.offer_inbox();
            let now = Timestamp::now();
            let idle = self.auto.attention.is_empty();
            self.auto.gather(now, idle);
            for task in self.auto.take_reminders() {
                let told = crate::remind::tell(&self.hub, &mut self.channels, &task, now);
                self.auto.append(&told);
            }
            let Some(c) = self.auto.attention.decide(now) else {
                self.auto.attention.seen_up_to(generation);
                return Ok(None);
            };
            let id = match self.enqueue_selected(&c) {
                Ok(id) => id,
                Err(e) => {
                    // Still in the spool; back in the pool for the next decide.
                    self.auto.attention.readmit(c.item.clone());
                    return Err(e);
                }
            };
            let Some(id) = id else {
                self.auto.attention.done(&c);
                continue;
            };
            let mut chosen = journal::selected(&c);
            chosen.id = id.clone();
            if let Some(Value::Object(data)) = chosen.data.as_mut() {
                data.insert("origin".into(), c.item.id().into());
            }
            let entry = chosen.into_entry().with("source", c.item.source_name());
            self.auto.append(&journal::with_impulse_fields(entry, &c.item, "selected"));
            // The hub holds it now: it may leave the spool.
            self.auto.attention.done(&c);
            if let Some(item) = cn_agent::take(&self.hub, &id)? {
                return Ok(Some(item));
            }
        }
    }
}

/// The percept for an item waiting in the inbox: the owner's, or anyone else's (a peer's
/// mail, `cn input --from`, an item put back). Its sense is the one its typed origin names,
/// so a stranger's GitHub item put back is scored as GitHub's, never as a peer's.
fn inbox_percept(item: &Item) -> Percept {
    let sense = if item.from == OWNER {
        SenseKind::Owner
    } else {
        match SenseKind::of_name(&item.origin(|_| false).sense) {
            SenseKind::Owner => SenseKind::Peer,
            sense => sense,
        }
    };
    let mut p = Percept::new(sense, format!("{}: {}", item.from, first_line(&item.content)))
        .key(format!("inbox:{}", item.id))
        .data(json!({"inbox": item.id, "from": item.from}));
    if let Ok(at) = item.queued.parse::<Timestamp>() {
        p.at = at;
    }
    p
}

/// The id of a sensed percept's item: its own when it is a valid name, else one derived from
/// it (the same percept is the same item, however often it is offered).
pub(crate) fn percept_id(p: &Percept) -> String {
    if cn_agent::hub::valid_name(&p.id) {
        p.id.clone()
    } else {
        cn_hub::id::stable(&p.id)
    }
}

/// A sensed percept as a hub item: from the owner, or from the sense; its text, and how many
/// were coalesced into it.
pub(crate) fn percept_item(id: &str, p: &Percept, merged_count: u64) -> Item {
    let from = if p.owner { OWNER.to_string() } else { p.sense.name().to_string() };
    let mut content = p.summary.clone();
    let text = ["text", "content"].iter().find_map(|k| p.data.get(*k).and_then(Value::as_str));
    match text {
        Some(t) if !t.trim().is_empty() && t.trim() != p.summary.trim() => {
            content = t.to_string();
        }
        Some(_) => {}
        None if !p.data.is_null() => {
            let mut shown = serde_json::to_string(&p.data).unwrap_or_default();
            if shown.len() > 2000 {
                let cut = (0..=2000).rev().find(|i| shown.is_char_boundary(*i)).unwrap_or(0);
                shown.truncate(cut);
                shown.push('…');
            }
            content = format!("{}\n\nData: {shown}", p.summary);
        }
        None => {}
    }
    if merged_count > 0 {
        content.push_str(&format!("\n\n({merged_count} more like it were coalesced into this item.)"));
    }
    let mut item = Item::new(id, &from, Cadence::Inbox, &content);
    item.set("sense", p.sense.name());
    // Who wrote it, what it is and where to answer (the channel, the message, a mail's
    // thread): the percept's typed origin, one field.
    item.set_origin(&p.origin());
    item
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
                        // Decided: the hub takes writes again.
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
                    self.note(
                        Entry::new("observation")
                            .with("id", item.id.as_str())
                            .with("summary", format!("took item {} from {}", item.id, item.from))
                            .with("origin", origin.describe())
                            .with("provenance", origin.author.label())
                            .with("kind", origin.kind.as_str())
                            .with("context", first_line(&item.content)),
                    );
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
                    self.note(
                        Entry::new("observation")
                            .with("summary", "cannot take the next item")
                            .with("outcome", cn_compute::chain(&e)),
                    );
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
            for channel in &mut self.channels {
                channel.typing(item, level.level);
            }
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

/// What a reflex that ran without replying did, in words for the owner: each step's action
/// and its result as the step gave it (shortened), nothing more.
fn what_the_reflex_did(reflex: &str, steps: &[cn_reflex::StepRun]) -> String {
    const MOST: usize = 160;
    let done: Vec<String> = steps
        .iter()
        .map(|s| {
            let result = match &s.output {
                Value::Null => String::new(),
                Value::String(t) => t.trim().to_string(),
                other => other.to_string(),
            };
            let mut short: String = result.chars().take(MOST).collect();
            if result.chars().count() > MOST {
                short.push('…');
            }
            if short.is_empty() {
                s.action.clone()
            } else {
                format!("{} → {short}", s.action)
            }
        })
        .collect();
    if done.is_empty() {
        format!("My reflex `{reflex}` took this and did nothing more (it has no steps).")
    } else {
        format!("My reflex `{reflex}` took this and did: {}.", done.join("; "))
    }
}
