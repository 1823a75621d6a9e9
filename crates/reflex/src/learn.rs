//! Reflexes learned from the executive: shadow mode, agreement, promotion, demotion and
//! proposals.
//!
//! - A reflex in **shadow mode** (`mode: shadow`) is tried on what the live reflexes leave to
//!   the models. Its pipeline runs with no effect at all ([`Mode::Shadow`]: no reply, no
//!   reaction, no file, task or idea written, no fetch, shell, MCP or GitHub call, no local
//!   model — a fetch is an effect on the world, and the page is a stranger's text); each
//!   effect's full text is kept as what it *would* have done ([`ShadowRun`]), journaled
//!   (`type: reflex, action: shadow`), and the item goes on to the level that decides it.
//! - When the item is decided, the would-be decision is compared with the real one
//!   ([`Engine::settle_shadow`]): the same op (`reply`; `ack` and `noop` count as one), every
//!   task or idea the reflex would have filed was filed by the decision too, and for a reply
//!   the gist (see [`gist_agrees`]). Agreement or disagreement is journaled and counted in
//!   `state/reflex-stats.json` (`compared`, `agreed`). Decisions by the executive or the
//!   owner count; a level-2 decision is journaled but not counted.
//! - A **learned** reflex (`learned: executive|proposal`, set by cn) is promoted — its file
//!   set to `mode: active`, journaled and committed — after `reflexes.learn.promote_after`
//!   agreements on **distinct** messages (0: only the owner promotes, `cn reflex approve`
//!   or the control room). A disagreement resets the count; a promoted learned reflex is
//!   checked again every `check_every`th item it takes (the item goes to the executive too,
//!   the reflex in shadow) and a disagreement then demotes it to shadow.
//! - **Trust boundary**: promotion by agreement never widens what the agent does. Agreement
//!   requires every effect the reflex would have had to be one the decision itself had, and
//!   a reflex is promoted by agreement only if every action of its pipeline is an answer or a
//!   filing ([`PROMOTABLE`]: what anyone's message may get under the default policy). A
//!   pipeline that fetches, reads or writes files, runs a command, calls MCP or GitHub, or
//!   calls another reflex waits for the owner's `cn reflex approve` however often it agrees
//!   — so a stranger who sends the same message many times farms nothing: identical texts
//!   count once, and an effectful reflex is never promoted by them.
//! - **Proposals** ([`Engine::observe_decision`]): when the executive has decided
//!   `propose_after` items of one *shape* the same way — the same source, the same op, the
//!   same filings, and texts sharing at least one content word — cn writes the reflex that
//!   would have done it, in shadow (`learned: proposal`): a level-0 pattern of the shared
//!   words (in the order of the latest text, checked to match every one of them) and a
//!   pipeline copying the latest decision (its reply as a template, or the task/idea filed
//!   with the message as its text). Only a reply with content or a filing is learned — an
//!   item the executive closed with a token or nothing teaches nothing — and the text learned
//!   from is what the person said, never cn's own notes on the item ([`rules`] is the one
//!   check of what a learned reflex may be). The recent executive
//!   decisions it looks at are kept in `state/reflex-learning.json` (the last 64).

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::path::Path;

use cn_compute::Level;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::engine::{Engine, Input, Stop};
use crate::mode::Mode;
use crate::reflex::{self, ReflexMode};
use crate::shadow::with_key;
pub use crate::shadow::ShadowRun;
use crate::write::{commit_as, WriteError};

/// Actions a learned reflex may have and still act by agreement: answers and filings (and
/// pure steps). Not `log` (a journal line is no answer: a reflex that only logs closes a
/// person's message with nothing), nothing that fetches, reads or writes files, runs a
/// command, calls MCP, GitHub or another reflex. Anything else needs the owner.
pub const PROMOTABLE: &[&str] =
    &["reply", "react", "add_task", "add_idea", "template", "when", "clock", "activity", "extract_json", "escalate"];

/// Effects whose doing is compared with the decision's tools (a reflex that would file a
/// task agrees only with a decision that filed one).
pub(crate) const FILINGS: &[&str] = &["add_task", "add_idea"];

/// How many recent executive decisions proposals look at.
const RECENT_DECISIONS: usize = 64;

/// How an item was really decided.
#[derive(Debug, Clone, Default)]
pub struct Decided {
    /// The op (`reply`, `ack`, `noop`, `defer`, …; `defer`/`delete` for those gtds).
    pub op: String,
    pub message: Option<String>,
    /// The tools the deciding level called on the item (`add_task`, …).
    pub tools: Vec<String>,
    /// The level that decided: 3 the executive, 0–2 lower, `None` the owner (`cn out`).
    pub level: Option<Level>,
    /// The item's text, source and id.
    pub text: String,
    pub source: Option<String>,
    pub item: Option<String>,
}

/// What a comparison concluded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    NotCompared(String),
    Agreed { distinct: usize },
    Disagreed(String),
}

/// `ack` and `noop` both close an item without an answer.
fn same_op(a: &str, b: &str) -> bool {
    fn norm(o: &str) -> &str {
        if o == "noop" {
            "ack"
        } else {
            o
        }
    }
    norm(a) == norm(b)
}

/// Words of three letters or more, lowercased, less the commonest English ones.
pub fn words(text: &str) -> Vec<String> {
    const STOP: &[&str] = &[
        "the", "and", "for", "you", "your", "are", "was", "this", "that", "with", "have", "has", "not", "but", "all",
        "can", "will", "from", "what", "our", "out", "its", "it's", "just", "please", "about", "there", "they",
    ];
    let mut out: Vec<String> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let w = w.to_lowercase();
        if w.chars().count() >= 3 && !STOP.contains(&w.as_str()) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// Two replies say the same thing: equal, or at least half of the words of the shorter one
/// are in the other.
pub fn gist_agrees(a: &str, b: &str) -> bool {
    if a.trim().eq_ignore_ascii_case(b.trim()) {
        return true;
    }
    let (wa, wb) = (words(a), words(b));
    let (short, long) = if wa.len() <= wb.len() { (&wa, &wb) } else { (&wb, &wa) };
    if short.is_empty() {
        return false;
    }
    let shared = short.iter().filter(|w| long.contains(w)).count();
    shared * 2 >= short.len()
}

/// How a shadow run disagrees with the decision (the journal's `reason`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Disagreement {
    #[error("it would have done `{would}`, the decision was `{real}`")]
    Op { would: String, real: String },
    #[error("it would have run `{0}`, which the decision did not")]
    Effect(String),
    #[error("its reply {would:?} differs from the real one {real:?}")]
    Reply { would: String, real: String },
}

/// Whether `run` agrees with `decided`; the disagreement otherwise.
pub fn agrees(run: &ShadowRun, decided: &Decided) -> Result<(), Disagreement> {
    if !same_op(&run.op, &decided.op) {
        return Err(Disagreement::Op { would: run.op.clone(), real: decided.op.clone() });
    }
    if let Some(extra) = run.effects.iter().find(|e| !decided.tools.contains(e)) {
        return Err(Disagreement::Effect(extra.clone()));
    }
    if let (Some(would), Some(real)) = (&run.message, &decided.message) {
        if !gist_agrees(would, real) {
            return Err(Disagreement::Reply { would: would.clone(), real: real.clone() });
        }
    }
    Ok(())
}

fn text_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase().hash(&mut h);
    h.finish()
}

/// Set a reflex's mode in its file (atomically), journal who did it and why, commit it.
/// `by` is `owner`, `agreement` or `disagreement`.
pub fn set_mode(hub: &Path, name: &str, mode: ReflexMode, by: &str, reason: &str) -> Result<bool, WriteError> {
    if !reflex::is_name(name) {
        return Err(WriteError::Name(name.to_string()));
    }
    let layout = cn_hub::Layout::new(hub);
    let path = layout.reflex(name);
    let text = crate::write::read_named(&path, name)?;
    let value = match mode {
        ReflexMode::Active => "active",
        ReflexMode::Shadow => "shadow",
    };
    let text = with_key(&text, "mode", value);
    cn_storage::write_atomic(&path, text.as_bytes()).map_err(|source| WriteError::Io { path: path.clone(), source })?;
    let action = if mode == ReflexMode::Active { "promote" } else { "demote" };
    let committed = commit_as(hub, name, &format!("reflex: {action} {name} ({by})"));
    let mut entry = crate::journal::Changed::new(name, action, value);
    (entry.by, entry.reason, entry.committed) = (Some(by), Some(reason), Some(committed));
    if let Err(err) = layout.open_journal().and_then(|mut j| j.write(&entry)) {
        tracing::error!(err = %cn_compute::Chain(&err), "cannot journal the reflex's mode");
    }
    Ok(committed)
}

/// Why the owner cannot approve `name`: not a reflex, or not in shadow.
#[derive(Debug, thiserror::Error)]
pub enum ApproveError {
    #[error("no reflex `{0}` (see `cn reflex list`)")]
    Unknown(String),
    #[error("reflex `{0}` is active already")]
    Active(String),
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The owner promotes a shadow reflex (`cn reflex approve`, the control room's Approve).
pub fn approve(engine: &mut Engine, name: &str) -> Result<bool, ApproveError> {
    let r = engine.reflex(name).ok_or_else(|| ApproveError::Unknown(name.to_string()))?;
    if r.mode != ReflexMode::Shadow {
        return Err(ApproveError::Active(name.to_string()));
    }
    let hub = engine.hub().to_path_buf();
    let committed = set_mode(&hub, name, ReflexMode::Active, "owner", "approved by the owner")?;
    engine.stats_mut().mode_changed(name);
    engine.flush();
    engine.reload();
    Ok(committed)
}

/// One executive decision remembered for proposals.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Seen {
    text: String,
    source: Option<String>,
    op: String,
    message: Option<String>,
    filings: Vec<String>,
    item: Option<String>,
}

/// The rules a learned reflex is held to before it acts by itself — the README's and
/// SECURITY.md's, checked here and nowhere else: every step an answer, a filing or a pure step
/// ([`PROMOTABLE`]: no `log`, no call to another reflex, whose doing can change without this
/// one changing); and it does what the executive did for the person — a reply with content,
/// or a task or idea filed — never closing their message with a token ("👍", "ok") or with
/// nothing. A learned reflex that breaks one is not proposed, not promoted by agreement, and
/// an active one is tried in shadow only ([`crate::load::Catalog::index`]); the owner may
/// still approve it (`cn reflex approve`). `Err` names the rule broken.
pub fn rules(r: &reflex::Reflex) -> Result<(), String> {
    for s in &r.steps {
        if crate::spec::spec(&s.action).is_none() {
            return Err(format!("a call to reflex `{}` is not an answer or a filing", s.action));
        }
        if !PROMOTABLE.contains(&s.action.as_str()) {
            return Err(format!("`{}` is not an answer or a filing", s.action));
        }
    }
    let answers = r.steps.iter().any(|s| {
        s.action == "reply"
            && s.params.get("message").and_then(Value::as_str).is_some_and(|m| !cn_hub::origin::is_token_answer(m))
    });
    let files = r.steps.iter().any(|s| FILINGS.contains(&s.action.as_str()));
    if !answers && !files {
        return Err(
            "it neither answers with content nor files a task or idea: it would close a person's message with a token"
                .into(),
        );
    }
    Ok(())
}

impl Engine {
    /// Run reflex `index` in shadow on `input`: no effect; what it would have done is
    /// journaled and returned.
    pub(crate) fn run_shadow(
        &mut self,
        index: usize,
        vars: Map<String, Value>,
        input: &Input,
        check: bool,
    ) -> ShadowRun {
        let reflex = self.catalog().reflexes[index].clone();
        self.set_turn(Mode::Shadow, &reflex, input);
        let mut env = self.env(&vars, input);
        let mut steps = Vec::new();
        let stop = self.run_steps(&reflex, &mut env, Mode::Shadow, 0, 0, &mut steps).err();
        let (op, error) = match &stop {
            Some(Stop::Escalate(reason)) | Some(Stop::Held { reason, .. }) => {
                ("escalate".to_string(), Some(reason.clone()))
            }
            Some(Stop::Failed(err)) => ("error".to_string(), Some(err.clone())),
            None if steps.iter().any(|s| s.action == "reply") => ("reply".to_string(), None),
            None => ("ack".to_string(), None),
        };
        let message = steps.iter().rev().find(|s| s.action == "reply").map(|s| crate::vars::as_text(&s.output));
        let effects: Vec<String> =
            steps.iter().filter(|s| FILINGS.contains(&s.action.as_str())).map(|s| s.action.clone()).collect();
        let run = ShadowRun {
            reflex: reflex.name.clone(),
            level: reflex.level,
            op,
            message,
            effects,
            check,
            text: input.text.to_string(),
            item: input.id.map(String::from),
        };
        let mut e = crate::journal::Shadowed::new(&reflex.name, reflex.level, &run.op, check);
        e.would_reply = run.message.as_deref();
        e.would_file = (!run.effects.is_empty()).then_some(run.effects.as_slice());
        (e.reason, e.item, e.source) = (error.as_deref(), input.id, input.source);
        self.journal(&e);
        run
    }

    /// Compare a shadow run with the decision its item got: journal agreement or
    /// disagreement, count it, and promote or demote the reflex as the counts say.
    pub fn settle_shadow(&mut self, run: &ShadowRun, decided: &Decided) -> Verdict {
        let Some(reflex) = self.reflex(&run.reflex).cloned() else {
            return Verdict::NotCompared(format!("reflex `{}` is gone", run.reflex));
        };
        let mut e = crate::journal::Compared {
            pattern: &run.reflex,
            name: &run.reflex,
            action: "compare",
            would: &run.op,
            decided: &decided.op,
            decided_by: decided.level.map_or(Value::from("owner"), Value::from),
            item: decided.item.as_deref(),
            outcome: "not compared",
            counted: None,
            agreed: None,
            compared: None,
            distinct_agreed: None,
            reason: None,
        };
        if matches!(run.op.as_str(), "escalate" | "error") {
            let why = format!("it would have handed the item up ({})", run.op);
            e.reason = Some(why.clone());
            self.journal(&e);
            return Verdict::NotCompared(why);
        }
        if decided.level.is_some_and(|l| l < 3) {
            let verdict = agrees(run, decided).map_err(|d| d.to_string());
            let why = "decided below the executive: not counted";
            e.outcome = if verdict.is_ok() { "agreed" } else { "disagreed" };
            (e.counted, e.reason) = (Some(false), Some(verdict.err().unwrap_or_else(|| why.to_string())));
            self.journal(&e);
            return Verdict::NotCompared(why.into());
        }
        let verdict = agrees(run, decided).map_err(|d| d.to_string());
        let agreed = verdict.is_ok();
        let distinct = self.stats_mut().compare(&run.reflex, agreed, text_hash(&run.text));
        let s = self.stats().get(&run.reflex).cloned().unwrap_or_default();
        e.outcome = if agreed { "agreed" } else { "disagreed" };
        (e.agreed, e.compared, e.distinct_agreed) = (Some(s.agreed), Some(s.compared), Some(distinct as u64));
        e.reason = verdict.as_ref().err().cloned();
        self.journal(&e);
        let hub = self.hub().to_path_buf();
        match verdict {
            Err(why) => {
                if reflex.mode == ReflexMode::Active && reflex.learned.is_some() {
                    let reason =
                        format!("disagreed with the decision on {}: {why}", run.item.as_deref().unwrap_or("an item"));
                    match set_mode(&hub, &run.reflex, ReflexMode::Shadow, "disagreement", &reason) {
                        Ok(_) => {
                            self.stats_mut().mode_changed(&run.reflex);
                            self.reload();
                        }
                        Err(err) => {
                            tracing::error!(err = %cn_compute::Chain(&err), "cannot demote reflex {}", run.reflex)
                        }
                    }
                }
                Verdict::Disagreed(why)
            }
            Ok(()) => {
                let n = self.config().learn.promote_after;
                if reflex.mode == ReflexMode::Shadow && reflex.learned.is_some() && n > 0 && distinct as u64 >= n {
                    if let Err(broken) = rules(&reflex) {
                        let why =
                            format!("{broken}: only the owner may let it act (`cn reflex approve {}`)", run.reflex);
                        if self.stats_mut().refuse_promotion(&run.reflex, &why) {
                            let mut refused = crate::journal::Changed::new(&run.reflex, "promote", "refused");
                            refused.reason = Some(&why);
                            self.journal(&refused);
                        }
                    } else {
                        let reason = format!("agreed with the executive on {distinct} distinct messages");
                        match set_mode(&hub, &run.reflex, ReflexMode::Active, "agreement", &reason) {
                            Ok(_) => {
                                self.stats_mut().mode_changed(&run.reflex);
                                self.reload();
                            }
                            Err(err) => {
                                tracing::error!(err = %cn_compute::Chain(&err), "cannot promote reflex {}", run.reflex)
                            }
                        }
                    }
                }
                Verdict::Agreed { distinct }
            }
        }
    }

    /// An item no reflex (live or shadow) took was decided by the executive: remember it,
    /// and when `propose_after` decisions of its shape agree, propose the reflex that would
    /// have made them (written in shadow). Returns the proposed reflex's name.
    pub fn observe_decision(&mut self, decided: &Decided) -> Option<String> {
        let k = self.config().learn.propose_after as usize;
        if k == 0 || decided.level != Some(3) {
            return None;
        }
        let op = if decided.op == "noop" { "ack".to_string() } else { decided.op.clone() };
        if !matches!(op.as_str(), "reply" | "ack") {
            return None;
        }
        // Only what the executive did for someone is learned: a reply with content, or a
        // task or idea filed. An item closed with a token or with nothing teaches nothing
        // (a reflex copying it would drop the next person's message).
        let answered = op == "reply" && decided.message.as_deref().is_some_and(|m| !cn_hub::origin::is_token_answer(m));
        if !answered && !decided.tools.iter().any(|t| FILINGS.contains(&t.as_str())) {
            return None;
        }
        let path = cn_hub::Layout::new(self.hub()).reflex_learning();
        let mut seen: Vec<Seen> = cn_storage::read_json_or_default(&path).unwrap_or_default();
        let mut filings: Vec<String> =
            decided.tools.iter().filter(|t| FILINGS.contains(&t.as_str())).cloned().collect();
        filings.sort();
        filings.dedup();
        let now = Seen {
            text: decided.text.clone(),
            source: decided.source.clone(),
            op: op.clone(),
            message: decided.message.clone(),
            filings: filings.clone(),
            item: decided.item.clone(),
        };
        // The shape: same source, op and filings, and texts sharing content words.
        let mut common: Vec<String> = words(&now.text);
        let mut group = vec![now.clone()];
        for s in seen.iter().rev() {
            if group.len() >= k {
                break;
            }
            if s.source != now.source || s.op != now.op || s.filings != now.filings || s.item == now.item {
                continue;
            }
            let theirs = words(&s.text);
            let kept: Vec<String> = common.iter().filter(|w| theirs.contains(w)).cloned().collect();
            if !kept.is_empty() {
                common = kept;
                group.push(s.clone());
            }
        }
        seen.push(now.clone());
        if seen.len() > RECENT_DECISIONS {
            seen.drain(..seen.len() - RECENT_DECISIONS);
        }
        let proposed = if group.len() >= k && !common.is_empty() { self.propose(&group, &common) } else { None };
        if proposed.is_some() {
            // Its items are spoken for: the next proposal needs new decisions.
            let used: BTreeSet<Option<String>> = group.iter().map(|g| g.item.clone()).collect();
            seen.retain(|s| !used.contains(&s.item));
        }
        if let Err(err) = cn_storage::write_json_atomic(&path, &seen) {
            tracing::error!(err = %cn_compute::Chain(&err), "cannot write {}", path.display());
        }
        proposed
    }

    fn propose(&mut self, group: &[Seen], common: &[String]) -> Option<String> {
        let latest = &group[0];
        let texts: Vec<&str> = group.iter().map(|g| g.text.as_str()).collect();
        let all = common.iter().map(|w| format!(r"\b{}\b", regex::escape(w))).collect::<Vec<_>>().join(".*");
        let pattern = [format!("(?i){all}")]
            .into_iter()
            .chain(common.iter().max_by_key(|w| w.len()).map(|w| format!(r"(?i)\b{}\b", regex::escape(w))))
            .find(|p| regex::Regex::new(p).is_ok_and(|re| texts.iter().all(|t| re.is_match(t))))?;
        let word: String = common
            .iter()
            .max_by_key(|w| w.len())?
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .take(24)
            .collect();
        let name = format!("learned-{}-{}", latest.op, if word.is_empty() { "items" } else { word.as_str() });
        if !reflex::is_name(&name) || self.reflex(&name).is_some() || self.hub_reflex_exists(&name) {
            return None;
        }
        let mut pipeline: Vec<Value> = Vec::new();
        for f in &latest.filings {
            let mut step = Map::new();
            step.insert("action".into(), Value::String(f.clone()));
            let key = if f == "add_task" { "task" } else { "idea" };
            step.insert(key.into(), Value::String("{{text}}".into()));
            pipeline.push(Value::Object(step));
        }
        if latest.op == "reply" {
            let message = latest.message.clone().filter(|m| !m.trim().is_empty())?;
            if message.contains("{{") || message.starts_with('$') {
                return None;
            }
            pipeline.push(json!({"action": "reply", "message": message}));
        }
        let mut trigger = Map::new();
        trigger.insert("pattern".into(), Value::String(pattern.clone()));
        if let Some(source) = &latest.source {
            trigger.insert("source".into(), Value::String(source.clone()));
        }
        let doc = json!({
            "name": name,
            "description": format!(
                "Proposed by cn: the executive decided {} items like this one with `{}`",
                group.len(),
                latest.op
            ),
            "mode": "shadow",
            "learned": "proposal",
            "trigger": trigger,
            "pipeline": pipeline,
        });
        let yaml = serde_yaml_ng::to_string(&doc).ok()?;
        let path = self.dir().join(format!("{name}.yaml"));
        match reflex::compile(&path, &yaml, self.registry(), &BTreeSet::new()) {
            Err(errs) => {
                tracing::info!(?errs, "the proposed reflex does not compile; not proposed");
                return None;
            }
            Ok(compiled) => {
                if let Err(broken) = rules(&compiled) {
                    tracing::info!(%broken, "the proposed reflex breaks a learned reflex's rules; not proposed");
                    return None;
                }
            }
        }
        if let Err(err) = cn_storage::write_atomic(&path, yaml.as_bytes()) {
            tracing::error!(err = %cn_compute::Chain(&err), "cannot write the proposed reflex {}", path.display());
            return None;
        }
        let hub = self.hub().to_path_buf();
        let committed = commit_as(&hub, &name, &format!("reflex: propose {name} (shadow)"));
        let items: Vec<&str> = group.iter().filter_map(|g| g.item.as_deref()).collect();
        let mut proposed = crate::journal::Changed::new(&name, "propose", "shadow");
        (proposed.learned, proposed.trigger, proposed.op) =
            (Some("proposal"), Some(pattern.as_str()), Some(latest.op.as_str()));
        (proposed.from_items, proposed.committed) = (Some(items), Some(committed));
        self.journal(&proposed);
        self.reload();
        Some(name)
    }

    fn hub_reflex_exists(&self, name: &str) -> bool {
        self.dir().join(format!("{name}.yaml")).exists()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(op: &str, message: Option<&str>, effects: &[&str]) -> ShadowRun {
        ShadowRun {
            reflex: "r".into(),
            level: 0,
            op: op.into(),
            message: message.map(String::from),
            effects: effects.iter().map(|s| s.to_string()).collect(),
            check: false,
            text: "x".into(),
            item: None,
        }
    }

    fn decided(op: &str, message: Option<&str>, tools: &[&str]) -> Decided {
        Decided {
            op: op.into(),
            message: message.map(String::from),
            tools: tools.iter().map(|s| s.to_string()).collect(),
            level: Some(3),
            ..Decided::default()
        }
    }

    #[test]
    fn agreement_needs_the_op_the_filings_and_the_gist() {
        assert!(agrees(
            &run("reply", Some("All systems green."), &[]),
            &decided("reply", Some("all systems green"), &[])
        )
        .is_ok());
        assert!(agrees(&run("ack", None, &[]), &decided("noop", None, &[])).is_ok(), "ack and noop are one");
        let e = agrees(&run("reply", Some("hi"), &[]), &decided("ack", None, &[])).unwrap_err().to_string();
        assert!(e.contains("`reply`") && e.contains("`ack`"), "{e}");
        let e = agrees(&run("ack", None, &["add_task"]), &decided("ack", None, &[])).unwrap_err().to_string();
        assert!(e.contains("add_task"), "{e}");
        assert!(agrees(&run("ack", None, &["add_task"]), &decided("ack", None, &["add_task", "read_file"])).is_ok());
        assert!(agrees(
            &run("reply", Some("The deploy is green."), &[]),
            &decided("reply", Some("Everything is red and broken today."), &[])
        )
        .is_err());
    }

    #[test]
    fn mode_is_set_in_place_or_added_after_the_name() {
        assert_eq!(
            with_key("name: x\nmode: shadow\nlevel: 0\n", "mode", "active"),
            "name: x\nmode: active\nlevel: 0\n"
        );
        assert_eq!(with_key("# c\nname: x\nlevel: 0\n", "mode", "shadow"), "# c\nname: x\nmode: shadow\nlevel: 0\n");
    }

    #[test]
    fn words_skip_short_and_common_ones() {
        assert_eq!(words("Thanks for the help, thanks!"), ["thanks", "help"]);
    }
}
