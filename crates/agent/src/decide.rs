//! Deciding the current item: the one code path behind `cn out` and the executive's op tools.
//!
//! Under the hub lock:
//! 1. check the decision against the hub (a known peer, a real git object, a valid time);
//! 2. record it in `state/output.md` (`id`, `decided`, then the flat decision);
//! 3. perform the op (mail, an MCA …), with names derived from the record;
//! 4. append the note to the item and mark it `decided` in `state/input.md`;
//! 5. journal a `decision` entry;
//! 6. rename `state/input.md` to where the item now belongs;
//! 7. commit the hub.
//!
//! Invariant: a crash anywhere leaves a state [`recover_locked`] completes — with the
//! *recorded* decision, never a second one — before any command goes on. The item is in one
//! place throughout, since its only move is a rename.

use std::path::{Path, PathBuf};

use cn_hub::journal::HubJournal;
use cn_storage::Doc;
use serde_json::Value;

use crate::answer::{Answer, HandUp};
use crate::error::{format_at, io_at, parse_at, AgentError, Result};
use crate::gtd::{Gtd, Op};
use crate::hub::Hub;
use crate::item::{Item, Marks, NOTICE};
use crate::lock::lock;
use crate::ops::{Ctx, Effect, Target};

/// What became of a decided item: the one typed record a decider hands back, which the daemon
/// keeps (it re-reads no file to learn what it just did).
#[derive(Debug, Clone)]
pub struct Decided {
    pub item: Item,
    pub gtd: Gtd,
    /// What the item's sender is told (also the decided item's `answer:`).
    pub answer: Answer,
    /// The level that decided: 0–2 a reflex or cn's own rules (1) below the executive, 2 the
    /// local model, 3 the executive; `None` for `cn out` (the owner, or an agent acting as it).
    pub level: Option<u8>,
    /// When it was decided (RFC 3339).
    pub decided: String,
    /// Where the item went, relative to the hub.
    pub place: String,
    /// Mail posted to the outbox (sent by the next `cn sync`).
    pub mail: Vec<String>,
    /// Whether a commit was made.
    pub committed: bool,
}

impl Decided {
    /// What the item's sender is told on the channel they wrote on: a reply's text, or — for a
    /// person's message that was handed up — the true reason and what happens next. Nothing
    /// for the closing of anything that was not a request (an impulse, an event, a notice).
    pub fn told(&self) -> Option<String> {
        match &self.answer {
            Answer::Reply { text } => Some(text.clone()),
            Answer::HandedUp { .. } if self.item.origin_kind().is_message() => {
                let owner = self.item.is_owners();
                Some(self.answer.to_person(owner))
            }
            _ => None,
        }
    }

    /// The flat decision object plus `id`, `place` and `mail`.
    pub fn to_json(&self) -> serde_json::Map<String, Value> {
        let mut m = self.gtd.to_json();
        m.insert("id".into(), self.item.id.as_str().into());
        m.insert("place".into(), self.place.as_str().into());
        if !self.mail.is_empty() {
            m.insert("mail".into(), self.mail.clone().into());
        }
        if let Answer::Withheld { why, .. } = &self.answer {
            m.insert("withheld".into(), why.as_str().into());
        }
        if let Answer::HandedUp { why, .. } = &self.answer {
            m.insert("handed_up".into(), why.reason().into());
        }
        m
    }
}

/// What an op tool returns to the kernel: its JSON is [`Decided::to_json`].
impl cn_compute::Typed for Decided {
    fn to_json(&self) -> Value {
        Value::Object(Decided::to_json(self))
    }
}

/// Check `gtd` against the hub without changing anything; returns it normalized (an
/// `until` written as a date becomes midnight UTC).
pub fn validate(hub: &Hub, gtd: &Gtd) -> Result<Gtd> {
    let mut gtd = gtd.clone();
    gtd.check(hub)?;
    Ok(gtd)
}

/// Decide the current item, saying who decides and how it is checked ([`DecideAs`]): take
/// the hub lock, then [`decide_locked`]. The one entry every decider takes: `cn out` and `cn
/// mcp`'s `out` ([`DecideAs::agent`]), the op tools, the reflexes and the daemon's own rules
/// ([`DecideAs::below_executive`]).
pub fn decide(hub: &Hub, gtd: &Gtd, by: &DecideAs) -> Result<Decided> {
    let _lock = lock(hub)?;
    decide_locked(hub, gtd, by)
}

/// The level `cn out` and `cn mcp`'s `out` decide at: they speak for the executive (a coding
/// agent, or a script acting as the agent).
pub const AGENT_LEVEL: cn_compute::Level = 3;

/// Who decides, besides the decision itself.
#[derive(Debug, Clone, Default)]
pub struct DecideAs {
    /// A level below the executive: its answers are automatic messages ([`crate::item::AUTO`]).
    pub automatic: bool,
    /// The level deciding (journaled; `cn budget` counts items by it).
    pub level: Option<u8>,
    /// A hand-up's true reason, recorded typed in the item's answer (with what it waits for,
    /// [`crate::answer::WAITS_FOR`]).
    pub handed_up: Option<HandUp>,
    /// Who decided, in words ("reflex `hello`"), when the caller knows: the decision's
    /// journaled `reasoning` names it ([`DECIDED_BY`]).
    pub by: Option<String>,
    /// What is checked of the decision before it is made, by who makes it.
    pub check: Check,
}

/// What [`decide_locked`] checks of a decision before it makes it, beyond the hub's own
/// checks ([`validate`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Check {
    /// Nothing more: the owner, a hand-up cn makes itself, or the executive's op tools (the
    /// registry checked the call).
    #[default]
    AsGiven,
    /// The agent through cn's own interface (`cn out`, `cn mcp`'s `out`): the current item's
    /// provenance is checked exactly as the executive's op tools are (`cn_tools::check_from`,
    /// `policy.from`) — a peer's or a stranger's item may not make the agent `send` or
    /// `delegate` unless the owner allows it; such a decision is held for the owner's approval
    /// ([`AgentError::Held`]) and nothing is decided. Checked under the same lock the decision
    /// takes, so it is the item decided.
    Agent,
    /// A level below the executive: the decision as given, unless it would drop an owner's
    /// request or answer a person with a token — then the hand-up instead
    /// ([`crate::handup`]).
    BelowExecutive,
    /// [`Check::BelowExecutive`] for a model's own decision (an op tool called below the
    /// executive): a defer it chose also waits at least as long as a hand-up
    /// ([`crate::handup::no_sooner_than_a_hand_up`]). cn's own defers (the move limit's
    /// `retry_deferred`) keep the time they were configured with.
    ModelBelowExecutive,
}

impl DecideAs {
    /// The agent through cn's own interface (`cn out`, `cn mcp`'s `out`): [`Check::Agent`].
    pub fn agent() -> DecideAs {
        DecideAs { check: Check::Agent, ..DecideAs::default() }
    }

    /// A level below the executive (`level`): its answers automatic messages, checked by
    /// [`Check::BelowExecutive`].
    pub fn below_executive(level: u8) -> DecideAs {
        DecideAs { automatic: true, level: Some(level), check: Check::BelowExecutive, ..DecideAs::default() }
    }

    /// A model's own decision below the executive (`level`): [`Check::ModelBelowExecutive`].
    pub fn model_below_executive(level: u8) -> DecideAs {
        DecideAs { check: Check::ModelBelowExecutive, ..DecideAs::below_executive(level) }
    }

    /// Who decided, in words ("reflex `hello`").
    pub fn by(self, who: impl Into<String>) -> DecideAs {
        DecideAs { by: Some(who.into()), ..self }
    }
}

/// The item's key for who decided it ([`DecideAs::by`]), kept with the item like its level so
/// a decision a crash interrupted is journaled the same.
pub use crate::item::DECIDED_BY;

/// [`decide`] for a caller already holding the hub lock (the daemon).
pub fn decide_locked(hub: &Hub, gtd: &Gtd, by: &DecideAs) -> Result<Decided> {
    match by.check {
        Check::AsGiven => record(hub, gtd, by),
        Check::Agent => {
            recover_locked(hub)?;
            agent_may(hub, gtd)?;
            record(hub, gtd, by)
        }
        Check::BelowExecutive | Check::ModelBelowExecutive => {
            recover_locked(hub)?;
            let models_own = by.check == Check::ModelBelowExecutive;
            let (gtd, why) = crate::handup::below_executive(hub, gtd, models_own)?;
            record(hub, &gtd, &DecideAs { handed_up: why, ..by.clone() })
        }
    }
}

/// Hand the current item up for `why` (under the hub lock): deferred with the true reason
/// ([`crate::handup::hand_up_for`]), back at `until` or when what it waits for arrives; the
/// sender is told (a peer by the automatic notice). The decision is journaled as a hand-up
/// with its reason.
pub fn hand_up_current(hub: &Hub, why: &HandUp, until: Option<String>) -> Result<Decided> {
    let _lock = lock(hub)?;
    recover_locked(hub)?;
    let Some(item) = Item::read_opt(&hub.input())? else {
        return Err(AgentError::Empty("there is no current item to hand up".into()));
    };
    let gtd = crate::handup::hand_up_for(&item, why, until, jiff::Timestamp::now());
    let by = DecideAs { automatic: true, level: Some(1), handed_up: Some(why.clone()), ..Default::default() };
    decide_locked(hub, &gtd, &by)
}

/// [`Check::Agent`]: whether the current item's provenance may cause `gtd` (nothing to check
/// without a current item: the decision then fails as it would).
fn agent_may(hub: &Hub, gtd: &Gtd) -> Result<()> {
    let Some(item) = Item::read_opt(&hub.input())? else { return Ok(()) };
    // A decision that cannot be made at all says so first (and holds nothing).
    validate(hub, gtd)?;
    let peers = hub.peers()?;
    let from = item.origin(|name| peers.contains_key(name)).author;
    let params = gtd.fields().into_iter().map(|(k, v)| (k.to_string(), Value::String(v))).collect();
    let name = gtd.kind().map_or_else(|| gtd.name(), |k| k.name);
    let call = cn_compute::ToolCall::new(name, params);
    let mut ctx = cn_tools::ToolContext::new(hub.root());
    ctx.hub = Some(hub.root().to_path_buf());
    ctx.policy = hub.config().policy.clone();
    cn_tools::check_from(&ctx, AGENT_LEVEL, &call, &from, Some(item.id.clone())).map_err(|e| match e {
        cn_compute::ToolError::Held { message: m, .. } | cn_compute::ToolError::Denied(m) => AgentError::Held(m),
        other => AgentError::Held(other.to_string()),
    })
}

/// Record and perform `gtd` on the current item (steps 1–7 above), under the hub lock.
fn record(hub: &Hub, gtd: &Gtd, by: &DecideAs) -> Result<Decided> {
    let (automatic, handed_up) = (by.automatic, by.handed_up.as_ref());
    recover_locked(hub)?;
    let Some(item) = Item::read_opt(&hub.input())? else {
        return Err(AgentError::Empty(
            "there is no current item to decide; `cn input` takes the next one from the queue".into(),
        ));
    };
    // A task's item deferred without a time gets one (a day on): a commitment always comes back.
    let gtd = match validate(hub, gtd)? {
        Gtd::Defer(d) if item.marks().task.is_some() => Gtd::Defer(d.with_next_time(jiff::Timestamp::now())),
        other => other,
    };
    let decided = cn_storage::now_rfc3339();
    // Unique per decision (timestamps are per second; an item can come back within one).
    let key = cn_hub::id::new();
    let mut item = item;
    if let Some(why) = handed_up {
        // Recorded before the decision, so a crash finished later keeps it.
        Answer::of(&gtd, Some(why)).write(&mut item);
        if let Some(waits) = why.waits_for() {
            item.set(crate::answer::WAITS_FOR, waits);
        }
    }
    if let Some(level) = by.level {
        item.set(Marks::LEVEL, u64::from(level));
    }
    if let Some(who) = &by.by {
        item.set(DECIDED_BY, who.as_str());
    }
    // A clone of a leased hub decides only while it holds the lease (cn_lease): a
    // standby, or a daemon whose lease lapsed, records nothing the active one would not know.
    cn_lease::check(hub.layout(), &hub.config().origin)?;
    if handed_up.is_some() || by.level.is_some() || by.by.is_some() {
        item.write(&hub.input())?;
    }
    write_output(hub, &item, &gtd, &decided, &key, automatic)?;
    complete(hub, item, gtd, decided, key, true, automatic)
}

/// Finish a decision a crash interrupted: when `state/output.md` records a decision on the
/// current item, perform it (again — every step is idempotent) and file the item.
pub fn recover_locked(hub: &Hub) -> Result<()> {
    let Some(item) = Item::read_opt(&hub.input())? else { return Ok(()) };
    let Some(rec) = read_output(hub)? else { return Ok(()) };
    if rec.id != item.id || rec.turn != item.marks().turn {
        return Ok(());
    }
    let Recorded { id, gtd, decided, key, automatic, .. } = rec;
    tracing::info!(item = %id, "finishing a decision interrupted by a crash");
    match complete(hub, item, gtd, decided, key, false, automatic) {
        Ok(_) => Ok(()),
        // The hub changed since (a peer removed, …): the recorded decision can no longer be
        // performed. Set it aside, so the item is decided afresh instead of blocking the hub.
        Err(AgentError::Invalid(why)) => {
            tracing::warn!(item = %id, %why, "an interrupted decision cannot be finished; it is set aside");
            let aside = hub.layout().output_abandoned();
            cn_storage::beneath::rename(&hub.output(), &aside).map_err(io_at(&hub.output()))
        }
        Err(e) => Err(e),
    }
}

fn complete(
    hub: &Hub,
    mut item: Item,
    gtd: Gtd,
    decided: String,
    key: String,
    fresh: bool,
    automatic: bool,
) -> Result<Decided> {
    let ctx = Ctx { hub, item: &item, ts: &decided, key: &key, automatic };
    let effect = perform(&ctx, &gtd)?;
    // A hand-up's answer was recorded with its reason before the decision; any other is the
    // decision's, a reply that went nowhere withheld.
    let handed_up = match item.answer() {
        Some(Answer::HandedUp { why, .. }) => Some(why),
        _ => None,
    };
    let level = item.marks().level;
    let mut answer = Answer::of(&gtd, handed_up.as_ref());
    if let Some(why) = effect.facts.get("withheld").and_then(Value::as_str) {
        answer = answer.withheld(why);
    }

    // Mark and annotate the item once (a repeat finds the mark and leaves it alone).
    if item.marks().decision_key.as_deref() != Some(key.as_str()) {
        answer.write(&mut item);
        item.set("decided", decided.as_str());
        item.set(Marks::DECISION_KEY, key.as_str());
        item.set("decision", gtd.summary());
        if let Target::Deferred { until: Some(u) } = &effect.target {
            item.set(Marks::UNTIL, u.as_str());
        }
        let heading = gtd.label();
        let mut content = item.content.clone();
        if !content.is_empty() && !content.ends_with("\n\n") {
            content.push_str(if content.ends_with('\n') { "\n" } else { "\n\n" });
        }
        content.push_str(&format!("## {heading} — {} ({decided})\n\n{}\n", hub.name(), effect.note.trim_end()));
        item.content = content;
        item.write(&hub.input())?;
    }

    let place_path = place_of(hub, &item, matches!(effect.target, Target::Deferred { .. }));
    let place = place_path.strip_prefix(hub.root()).unwrap_or(&place_path).to_string_lossy().into_owned();

    let state = hub.layout().state();
    if fresh || !journaled(&state, &key)? {
        // What the item was and who wrote it (its typed origin), so a reader of the journal
        // tells a person's message from the agent's own work ("what did you do today?").
        let origin = item.origin_in(hub);
        let mut decision = gtd.to_json();
        // The body is the mail's full text; the journal keeps the summary (the other fields
        // keep their order: a `remove` would move the last one into its place).
        decision.shift_remove("body");
        let entry = crate::journal::Decision {
            id: &item.id,
            summary: format!("{} (item from {})", gtd.summary(), item.from),
            item: &item.id,
            from: &item.from,
            cadence: item.cadence.as_str(),
            decided: &decided,
            key: &key,
            item_kind: origin.kind.as_str(),
            author: origin.author.label(),
            gtd: decision,
            place: &place,
            mail: &effect.mail,
            facts: &effect.facts,
            handed_up: handed_up.as_ref().map(|why| why.reason()),
            level,
            // Document 003's fields of a decision, beside cn's own: what it was about, why,
            // and what was done ("what did you do and why").
            context: format!("{}: “{}”", origin.describe(), first_line(&item.content)),
            reasoning: reasoning(level, item.marks().decided_by.as_deref(), &gtd, handed_up.as_ref()),
            action: gtd.summary(),
        };
        hub.journal()?.write(&entry)?;
        // The journal rotates here, after a decision (cn.yaml `journal:`); a failure to rotate
        // loses nothing and is tried again at the next decision.
        if let Err(err) = HubJournal::rotate_if_due(&state, &hub.config().journal) {
            tracing::warn!(err = %cn_compute::Chain(&err), "cannot rotate the journal");
        }
    }

    // Checked: no folder on the way is a link out of the hub (cn_storage::beneath).
    cn_storage::beneath::rename(&hub.input(), &place_path).map_err(io_at(&hub.input()))?;

    let message = format!("{COMMIT_PREFIX}{} {}\n\nitem {} from {}", item.id, gtd.summary(), item.id, item.from);
    let git = hub.git();
    let committed = git.commit_paths_quick(&message, &cn_hub::layout::OWN)?;
    // The per-item commit skips git's housekeeping (its latency would be paid by every
    // decision); `gc --auto` only counts loose objects until packing is due, then packs in
    // the background — so an afternoon of decisions does not leave hundreds of loose objects.
    if committed {
        git.gc_auto();
    }
    Ok(Decided { item, gtd, answer, level, decided, place, mail: effect.mail, committed })
}

/// The first line of an item's text that says something, cut to 200 characters.
fn first_line(content: &str) -> String {
    let line = content.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let cut: String = line.chars().take(200).collect();
    if cut.len() < line.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// Why the item was decided so, from what the decision knows: the hand-up's true reason, or
/// who decided at which level (a reflex by name when its caller said) and the reason the op
/// itself gives (`ack`, `defer`, `delete` carry one).
fn reasoning(level: Option<u8>, by: Option<&str>, gtd: &Gtd, handed_up: Option<&HandUp>) -> String {
    if let Some(why) = handed_up {
        return why.reason();
    }
    let who = match (level, by) {
        (Some(l), Some(by)) => format!("{by} decided at level {l}"),
        (Some(l @ (0 | 1)), None) => format!("a reflex or cn's own rules decided at level {l}, below the executive"),
        (Some(2), None) => "the local model decided at level 2".to_string(),
        (Some(l), None) => format!("the executive decided at level {l}"),
        (None, _) => "decided through `cn out` (the owner, or an agent acting as the executive)".to_string(),
    };
    match gtd.fields().into_iter().find(|(k, _)| *k == "reason") {
        Some((_, reason)) => format!("{who}: {reason}"),
        None => who,
    }
}

/// How a decision's commit message starts: `cn out: <item id> <summary>`.
const COMMIT_PREFIX: &str = "cn out: ";

/// After the daemon has finished with decided item `id`, fold what it wrote about the item
/// since the decision's commit — the kernel's `action` entry for the op it called, a reflex's
/// statistics, a settled task, a shadow reflex's comparison — into that commit (amended), so
/// the decision's commit holds everything it changed and the hub is left clean. Only while
/// HEAD is still that commit and no remote-tracking ref holds it; otherwise, if anything is
/// left, it gets a commit of its own. True when something was committed.
pub fn seal(hub: &Hub, id: &str) -> Result<bool> {
    let _lock = lock(hub)?;
    let git = hub.git();
    // HEAD's subject, then the refs that point at it (`origin/main` when it was pushed).
    let (subject, refs) = git.head_subject_and_refs();
    let ours = subject.strip_prefix(COMMIT_PREFIX).and_then(|s| s.split_whitespace().next()) == Some(id);
    let published = refs.contains("refs/remotes/");
    if ours && !published {
        return Ok(git.amend_paths(&cn_hub::layout::OWN)?);
    }
    Ok(git.commit_paths_quick(&format!("cn: after item {id}"), &cn_hub::layout::OWN)?)
}

/// Perform `gtd` on the item: the op's effect, then the automatic notification.
fn perform(ctx: &Ctx, gtd: &Gtd) -> Result<Effect> {
    let mut effect = gtd.perform(ctx)?;
    // Automatic notification: a peer's item tells the peer what became of it. A reply is
    // its own notice; another agent's automatic message (its automatic answer, a notice) is
    // never answered with one (no endless ping-pong: it is news, recorded on its thread).
    let replied = matches!(gtd, Gtd::Do(Op::Reply(_)));
    if !replied && !ctx.item.is_automatic() {
        if let Some(peer) = ctx.notify_target()?.filter(|p| ctx.withheld(p).is_none()) {
            let mut m = ctx.mail(&peer, "notice", notice_text(ctx, gtd));
            m.kind = Some(NOTICE.to_string());
            m.subject = Some(format!("{}: {}", ctx.item.id, gtd.summary()));
            effect.mail.push(ctx.post(&m)?);
        }
    }
    Ok(effect)
}

fn notice_text(ctx: &Ctx, gtd: &Gtd) -> String {
    let mut s = format!("{} decided on your item `{}`: {}\n", ctx.hub.name(), ctx.item.id, gtd.label());
    // A hand-up tells the sender the true reason and what happens next, in words.
    if let Some(Answer::HandedUp { why, until }) = ctx.item.answer() {
        s.push_str(&format!("\n{}\n", why.tell(false, until.as_deref())));
        return s;
    }
    for (k, v) in gtd.fields() {
        s.push_str(&format!("\n{k}: {v}\n"));
    }
    s
}

fn write_output(hub: &Hub, item: &Item, gtd: &Gtd, decided: &str, key: &str, automatic: bool) -> Result<()> {
    let mut doc = Doc::default();
    doc.set("id", item.id.as_str());
    if let Some(turn) = &item.marks().turn {
        doc.set(Marks::TURN, turn.as_str());
    }
    doc.set("decided", decided);
    doc.set("key", key);
    if automatic {
        doc.set("automatic", "true");
    }
    for (k, v) in gtd.to_json() {
        if let Value::String(s) = v {
            doc.set(&k, s);
        }
    }
    doc.body = format!("cn out {}\n", gtd.to_command());
    let path = hub.output();
    cn_storage::write_atomic(&path, doc.render().as_bytes()).map_err(io_at(&path))
}

/// A decision as `state/output.md` records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub id: String,
    /// The turn of the item it was made on (see `queue::take_next`).
    pub turn: Option<String>,
    pub gtd: Gtd,
    pub decided: String,
    /// Unique to this decision; every effect's name derives from it.
    pub key: String,
    /// Decided below the executive (its answers are automatic messages).
    pub automatic: bool,
}

/// The decision `state/output.md` records, if any.
pub fn read_output(hub: &Hub) -> Result<Option<Recorded>> {
    let path = hub.output();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_at(&path)(e)),
    };
    let doc = Doc::parse(&text).map_err(|e| parse_at(&path)(e.into()))?;
    let json: serde_json::Map<String, Value> = doc
        .front
        .iter()
        .filter_map(|(k, v)| Some((k.as_str()?.to_string(), Value::String(v.as_str()?.to_string()))))
        .collect();
    let (Some(id), Some(decided), Some(key), Some(gtd)) =
        (doc.get_str("id"), doc.get_str("decided"), doc.get_str("key"), Gtd::from_json(&json))
    else {
        return Err(format_at(&path, "not a recorded decision (needs `id`, `decided`, `key`, `gtd` and its fields)"));
    };
    let turn = doc.get_str(Marks::TURN).map(str::to_string);
    let automatic = doc.get_str("automatic") == Some("true");
    Ok(Some(Recorded { id: id.to_string(), turn, gtd, decided: decided.to_string(), key: key.to_string(), automatic }))
}

/// Whether the journal holds the decision `key`: streamed (the journal grows without bound;
/// reading it whole after every restart grew the daemon's memory with it — the soak).
fn journaled(state: &Path, key: &str) -> Result<bool> {
    let mut found = false;
    HubJournal::scan(state, |e| {
        found = found || (e.kind() == "decision" && e.0.get("key").and_then(Value::as_str) == Some(key));
    })?;
    Ok(found)
}

/// Where a decided item goes: `threads/deferred/`, `threads/reflections/<cadence>/` for a
/// reflection, else `threads/archived/`.
pub fn place_of(hub: &Hub, item: &Item, deferred: bool) -> PathBuf {
    let dir = if deferred {
        hub.deferred()
    } else if item.cadence.is_reflection() {
        hub.reflections(item.cadence.as_str())
    } else {
        hub.archived()
    };
    dir.join(format!("{}.md", item.id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Cadence;
    use crate::ops::{Ack, Commit, Delete, Noop};

    fn hub() -> (tempfile::TempDir, Hub) {
        let dir = tempfile::tempdir().unwrap();
        let r = crate::init(&dir.path().join("sigma"), None).unwrap();
        let hub = Hub::open(&r.root).unwrap();
        (dir, hub)
    }

    /// An owner's item taken, with `gtd` recorded under `key` as if the decider were killed
    /// right after recording it.
    fn recorded(hub: &Hub, gtd: &Gtd, key: &str) -> Item {
        crate::queue::enqueue_new(hub, "owner", Cadence::Inbox, "work").unwrap();
        let item = crate::take_next(hub).unwrap().unwrap();
        write_output(hub, &item, gtd, &cn_storage::now_rfc3339(), key, false).unwrap();
        item
    }

    #[test]
    fn a_recorded_decision_is_finished_once_and_not_replaced() {
        let (_d, hub) = hub();
        let item = recorded(&hub, &Gtd::Do(Op::Ack(Ack { reason: "first".into() })), "k1");
        let e = decide(&hub, &Gtd::Do(Op::Noop(Noop { reason: "second".into() })), &DecideAs::default()).unwrap_err();
        assert!(matches!(e, AgentError::Empty(_)), "{e}");
        let done = std::fs::read_to_string(hub.archived().join(format!("{}.md", item.id))).unwrap();
        assert!(done.contains("acknowledged: first") && !done.contains("second"), "{done}");
        // Finishing again finds nothing to do and journals nothing more.
        recover_locked(&hub).unwrap();
        let read = HubJournal::read(&hub.path("state")).unwrap();
        assert_eq!(read.entries.iter().filter(|e| e.kind() == "decision").count(), 1);
    }

    #[test]
    fn a_decision_whose_journal_line_a_kill_tore_is_journaled_whole_when_finished() {
        let (_d, hub) = hub();
        let item = recorded(&hub, &Gtd::Do(Op::Ack(Ack { reason: "seen".into() })), "k-torn");
        // As if SIGKILL cut the decision's append short (the kernel may stop a write between
        // pages): the key is in the file, but not as an entry.
        let path = HubJournal::path_in(&hub.path("state"));
        let mut text = std::fs::read_to_string(&path).unwrap_or_default();
        text.push_str(r#"{"ts":"2026-11-28T11:31:21Z","type":"decision","key":"k-torn","item_kind":"mes"#);
        std::fs::write(&path, text).unwrap();
        recover_locked(&hub).unwrap();
        let read = HubJournal::read(&hub.path("state")).unwrap();
        let whole: Vec<_> = read.entries.iter().filter(|e| e.kind() == "decision").collect();
        assert_eq!(whole.len(), 1, "{whole:?}");
        assert_eq!(whole[0].0["key"], "k-torn");
        assert_eq!(whole[0].0["item"], item.id.as_str());
        assert_eq!(read.skipped.len(), 1, "the fragment is skipped, sealed, not glued to the entry");
    }

    #[test]
    fn a_decision_that_can_no_longer_be_finished_is_set_aside() {
        let (_d, hub) = hub();
        // Not (or no longer) an object.
        let item = recorded(&hub, &Gtd::Do(Op::Commit(Commit { artifact: "deadbeef".into() })), "k1");
        recover_locked(&hub).unwrap();
        assert!(hub.path("state/output.abandoned.md").is_file());
        assert_eq!(crate::current(&hub).unwrap().map(|i| i.id), Some(item.id.clone()));
        decide(&hub, &Gtd::Delete(Delete { reason: "obsolete".into() }), &DecideAs::default()).unwrap();
        assert!(hub.archived().join(format!("{}.md", item.id)).is_file());
    }
}
