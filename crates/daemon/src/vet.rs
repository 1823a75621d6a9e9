//! No embarrassing decisions from the local model: text it writes for a person — a reply's
//! message, or the reason it gives for closing one of the agent's own impulses (a task
//! falling due, a reflection) — is vetted ([`cn_reflex::vet`]) against the item before the
//! decision is made. Text that is empty, repeats the item, repeats itself or is not about it
//! ("The item is not available for delivery" on "Write a one-line status note") is not
//! sent: the item is handed up instead ([`cn_agent::handup::hand_up`]: deferred with "I'll
//! need my executive for that — queued" and a time to come back) — or, for a reflection, closed
//! with a true digest of what was decided since the last one ([`crate::reflection`]) — and
//! the journal says why. A person's own message (the owner's or a peer's, see
//! [`cn_agent::handup::from_a_person`]) is never decided by the small model at all: what
//! reaches it is what the reflexes and the triage judged is not small talk, so its reply
//! would be made-up news and its reason for a noop a claim it cannot know — every decision of
//! it becomes the hand-up, and the sender hears "I'll need my executive for that — queued".
//!
//! Only the local model's own calls (level 2, through the kernel's act) are vetted here, and
//! only when level 2 is the embedded model (the tiny one the checks were made for; a model
//! the owner configured instead — Ollama, an API, a command — is trusted with its words).
//! Reflexes' template answers are the owner's words, and a reflex's model text has its own
//! `vet` step.

use std::sync::Arc;

use cn_agent::{Gtd, Hub, Op};
use cn_compute::{Level, Returned, ToolCall, ToolError, Tools};
use serde_json::Value;

/// The daemon's tools, with the local model's person-facing text vetted first.
pub struct Vetted<T> {
    inner: T,
    hub: Hub,
    /// Vet level 2's text (level 2 is the embedded model).
    enabled: bool,
    /// Where a hand-up made here is kept for the mind.
    decisions: cn_agent::Decisions,
}

impl<T: Tools> Vetted<T> {
    pub fn new(inner: T, hub: Hub, enabled: bool) -> Self {
        Vetted { inner, hub, enabled, decisions: cn_agent::Decisions::default() }
    }

    /// Keep the decisions made here in `decisions` (the mind's).
    pub fn with_decisions(mut self, decisions: cn_agent::Decisions) -> Self {
        self.decisions = decisions;
        self
    }

    /// The hand-up's result when `call` carries unfit text for the current item.
    fn refuse_unfit(&self, call: &ToolCall) -> Option<Result<Returned, ToolError>> {
        let item = cn_agent::current(&self.hub).ok().flatten()?;
        let impulse = item.origin_kind().is_impulse();
        // Typed at parse; a call built with open params (none on the model's trip) is read
        // as its op would read it.
        let read = call.params.open().and_then(|m| cn_agent::Kind::named(&call.tool)?.read(m.clone()).ok());
        let gtd = call.params.typed::<Gtd>().or(read.as_ref());
        let (message, reason) = gtd.map_or((None, None), said);
        let text = |t: Option<&str>| t.unwrap_or_default().to_string();
        let (why, text) = match call.tool.as_str() {
            // A person's own message that reached this level is one the reflexes and the
            // triage left to the executive: not a greeting, thanks or small talk. The small
            // model does not pretend to do it — its reply would be made-up news ("The nightly
            // backup finished and I'm glad to say it was a success."), its reason for a noop a
            // claim it cannot know ("The release notes today are not available."), and either
            // reaches the sender — so every decision of it becomes the hand-up. Unknown peers
            // (the list unreadable) count as persons.
            op if cn_agent::op_tool_names().contains(&op)
                && cn_agent::handup::from_a_person(&self.hub, &item).unwrap_or(!impulse) =>
            {
                let why = format!("it does not decide {}'s request (`{op}`): the executive does", item.from);
                (why, text(if op == "reply" { message } else { reason }))
            }
            "reply" => {
                let text = text(message);
                (cn_reflex::vet::check(&text, &item.content, &item.content).err()?.to_string(), text)
            }
            "noop" | "ack" if impulse => {
                let text = text(reason);
                (cn_reflex::vet::check(&text, &item.content, &item.content).err()?.to_string(), text)
            }
            _ => return None,
        };
        // A reflection gets a true account of what was decided; anything else goes up.
        let reflection = impulse.then(|| crate::reflection::work_since_last(&self.hub, item.cadence)).flatten();
        let (handed, what) = match reflection {
            Some(work) => {
                let reason = crate::reflection::digest(item.cadence, &work);
                (Gtd::Do(Op::Ack(cn_agent::ops::Ack { reason })), "answered with a digest of the journal")
            }
            None => (cn_agent::handup::hand_up(&item, jiff::Timestamp::now()), "handed up"),
        };
        let summary = format!("the local model's {} for {} was not sent: {why}; {what}", call.tool, item.id);
        let record = cn_hub::journal::Record::new(cn_hub::journal::Kind::Observation, item.id.as_str(), summary)
            .context(text.chars().take(200).collect::<String>());
        if let Err(e) = self.hub.journal().and_then(|mut j| j.record(record)) {
            tracing::warn!(%e, "cannot journal the hand-up of {}", item.id);
        }
        tracing::info!(item = %item.id, %why, what, "local model text unfit");
        let decided = cn_agent::decide(&self.hub, &handed, &cn_agent::DecideAs::below_executive(2));
        if let Ok(d) = &decided {
            self.decisions.push(d);
        }
        // The call did not happen as asked: its result says so (the journal's action entry
        // shows it withheld, not `ok`).
        Some(
            decided
                .map(|decided| Returned::Typed(Arc::new(Withheld { decided, why: format!("{}: {why}", call.tool) })))
                .map_err(|e| ToolError::Failed(cn_compute::chain(&e))),
        )
    }
}

/// What a decision says to a person: a reply's message, and the reason of a close or a
/// defer.
fn said(gtd: &Gtd) -> (Option<&str>, Option<&str>) {
    match gtd {
        Gtd::Do(Op::Reply(r)) => (Some(&r.message), None),
        Gtd::Do(Op::Noop(cn_agent::ops::Noop { reason }) | Op::Ack(cn_agent::ops::Ack { reason }))
        | Gtd::Defer(cn_agent::ops::Defer { reason, .. })
        | Gtd::Delete(cn_agent::ops::Delete { reason }) => (None, Some(reason)),
        _ => (None, None),
    }
}

/// The decision made in place of a call whose text was withheld, and why: the journal's
/// action entry shows it `withheld`, not `ok`.
#[derive(Debug)]
struct Withheld {
    decided: cn_agent::Decided,
    why: String,
}

impl cn_compute::Typed for Withheld {
    fn to_json(&self) -> Value {
        let mut v = self.decided.to_json();
        v.insert("withheld".into(), Value::String(self.why.clone()));
        Value::Object(v)
    }
}

impl<T: Tools> Tools for Vetted<T> {
    fn call(&mut self, level: Level, call: &ToolCall) -> Result<Returned, ToolError> {
        if level == 2 && self.enabled {
            if let Some(result) = self.refuse_unfit(call) {
                return result;
            }
        }
        self.inner.call(level, call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_agent::{Cadence, Item};
    use cn_hub::origin::ImpulseKind;

    /// Records the calls that got through.
    struct Inner(Vec<String>);

    impl Tools for Inner {
        fn call(&mut self, _level: Level, call: &ToolCall) -> Result<Returned, ToolError> {
            self.0.push(call.tool.clone());
            Ok(Returned::Json(Value::Null))
        }
    }

    fn call(tool: &str, field: &str, text: &str) -> ToolCall {
        let mut params = serde_json::Map::new();
        params.insert(field.into(), Value::String(text.into()));
        // As the daemon's parse reads it.
        ToolCall { tool: tool.into(), params: cn_agent::read_call(tool, params).unwrap(), block: 0, line: 1 }
    }

    /// A hub whose current item is a task falling due (an impulse of the agent's own).
    fn hub_with_due_task() -> (tempfile::TempDir, Hub) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ada");
        cn_agent::init(&root, Some("ada")).unwrap();
        let hub = Hub::open(&root).unwrap();
        let mut item = Item::new("t-1", "ada", Cadence::Inbox, "Task due: Write a one-line status note for the owner");
        item.set_origin(&cn_hub::Origin::impulse(ImpulseKind::Task, cn_hub::Provenance::Owner));
        item.set("task", "Write a one-line status note for the owner");
        cn_agent::enqueue(&hub, &item).unwrap();
        cn_agent::take(&hub, "t-1").unwrap().expect("taken");
        (dir, hub)
    }

    #[test]
    fn the_demo_line_is_not_sent_and_the_task_is_handed_up() {
        let (_dir, hub) = hub_with_due_task();
        let mut tools = Vetted::new(Inner(Vec::new()), hub.clone(), true);
        let result =
            tools.call(2, &call("reply", "message", "The item is not available for delivery")).unwrap().to_json();
        assert!(tools.inner.0.is_empty(), "the reply never reached the op");
        assert_eq!(result["gtd"], "defer", "{result}");
        assert_eq!(result["reason"], cn_agent::HandUp::Later.reason(), "{result}");
        assert!(result["until"].is_string(), "comes back by itself: {result}");
        assert!(cn_agent::current(&hub).unwrap().is_none(), "the item was decided");
        let journal = std::fs::read_to_string(hub.path("state/journal.jsonl")).unwrap();
        assert!(journal.contains("was not sent") && journal.contains("not about the content"), "{journal}");
        let archived: String = std::fs::read_dir(hub.path("threads/deferred"))
            .unwrap()
            .flatten()
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        assert!(!archived.contains("not available for delivery"), "the unfit text is in no thread: {archived}");
    }

    #[test]
    fn a_fit_reply_and_other_levels_go_through() {
        let (_dir, hub) = hub_with_due_task();
        let mut tools = Vetted::new(Inner(Vec::new()), hub.clone(), true);
        let fit = call("reply", "message", "Status note for the owner: the release is on track.");
        tools.call(2, &fit).unwrap();
        // The executive's words and the same text from a level that is not the tiny model.
        tools.call(3, &call("reply", "message", "The item is not available for delivery")).unwrap();
        let mut off = Vetted::new(Inner(Vec::new()), hub.clone(), false);
        off.call(2, &call("reply", "message", "The item is not available for delivery")).unwrap();
        assert_eq!(tools.inner.0, ["reply", "reply"]);
        assert_eq!(off.inner.0, ["reply"]);
        assert!(cn_agent::current(&hub).unwrap().is_some(), "nothing decided by the wrapper");
    }

    #[test]
    fn a_reflection_the_local_model_cannot_write_gets_a_true_digest() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ada");
        cn_agent::init(&root, Some("ada")).unwrap();
        let hub = Hub::open(&root).unwrap();
        // Three decisions journaled as every decision is: through `decide`.
        let reply = |message: &str| Gtd::from(cn_agent::ops::Reply { message: message.into() });
        let defer = Gtd::from(cn_agent::ops::Defer { reason: "Waiting on the owner.".into(), until: None });
        for (id, gtd) in [("o-1", reply("Done.")), ("o-2", reply("On it.")), ("o-3", defer)] {
            cn_agent::enqueue(&hub, &Item::new(id, "ada", Cadence::Inbox, "A message")).unwrap();
            cn_agent::take(&hub, id).unwrap().expect("taken");
            cn_agent::decide(&hub, &gtd, &cn_agent::DecideAs::default()).unwrap();
        }
        let mut item = Item::new("r-1", "ada", Cadence::Daily, "Reflect: what did I do yesterday?");
        item.set_origin(&cn_hub::Origin::impulse(ImpulseKind::Schedule, cn_hub::Provenance::Owner));
        cn_agent::enqueue(&hub, &item).unwrap();
        cn_agent::take(&hub, "r-1").unwrap().expect("taken");
        let mut tools = Vetted::new(Inner(Vec::new()), hub.clone(), true);
        let result = tools.call(2, &call("noop", "reason", "The item was caught up, and I'm back.")).unwrap().to_json();
        assert!(tools.inner.0.is_empty());
        assert_eq!(result["op"], "ack", "{result}");
        let reason = result["reason"].as_str().unwrap();
        assert_eq!(
            reason,
            "Since the last daily reflection: 3 item(s) decided (1 defer, 2 reply). Reflecting on them needs my executive."
        );
        assert!(root.join("threads/reflections/daily/r-1.md").is_file(), "closed where reflections go");
    }

    #[test]
    fn a_noop_on_an_impulse_must_say_something_about_it() {
        let (_dir, hub) = hub_with_due_task();
        let mut tools = Vetted::new(Inner(Vec::new()), hub.clone(), true);
        let result = tools
            .call(2, &call("noop", "reason", "The item was caught up, but it was caught up again."))
            .unwrap()
            .to_json();
        assert_eq!(result["reason"], cn_agent::HandUp::Later.reason(), "{result}");
        assert!(tools.inner.0.is_empty());
    }

    /// A hub with a peer `bob` whose message is the current item.
    fn hub_with_request_from(from: &str, text: &str) -> (tempfile::TempDir, Hub) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ada");
        cn_agent::init(&root, Some("ada")).unwrap();
        let hub = Hub::open(&root).unwrap();
        let remote = dir.path().join("bob.git");
        cn_agent::add_peer(&hub, "bob", remote.to_str().unwrap()).unwrap();
        let hub = Hub::open(&root).unwrap();
        cn_agent::enqueue(&hub, &Item::new("m-1", from, Cadence::Inbox, text)).unwrap();
        cn_agent::take(&hub, "m-1").unwrap().expect("taken");
        (dir, hub)
    }

    /// Every file of the hub but the journal (which records what was refused), as text.
    fn hub_text(dir: &std::path::Path) -> String {
        let mut out = String::new();
        for entry in walkdir(dir) {
            if !entry.ends_with("journal.jsonl") && !entry.components().any(|c| c.as_os_str() == ".git") {
                out.push_str(&std::fs::read_to_string(&entry).unwrap_or_default());
            }
        }
        out
    }

    fn walkdir(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                files.extend(walkdir(&p));
            } else {
                files.push(p);
            }
        }
        files
    }

    #[test]
    fn a_peers_request_is_never_closed_by_the_small_model() {
        // The demo's step 6: bob asks, the tiny model says `noop` with a claim it cannot know,
        // and the notice would have carried that claim back to bob.
        let (dir, hub) = hub_with_request_from("bob", "Can you look at the release notes today?");
        let mut tools = Vetted::new(Inner(Vec::new()), hub.clone(), true);
        let claim = "The release notes today are not available.";
        let result = tools.call(2, &call("noop", "reason", claim)).unwrap().to_json();
        assert!(tools.inner.0.is_empty(), "the noop never reached the op");
        assert_eq!(result["gtd"], "defer", "{result}");
        assert_eq!(result["reason"], cn_agent::HandUp::Later.reason(), "{result}");
        let text = hub_text(dir.path());
        assert!(!text.contains(claim), "the claim is in no thread and no mail");
        assert!(text.contains("decided on your item `m-1`: defer"), "bob is told it went up: {text}");
        let journal = std::fs::read_to_string(hub.path("state/journal.jsonl")).unwrap();
        assert!(journal.contains("does not decide bob's request (`noop`)"), "{journal}");
    }

    #[test]
    fn a_strangers_item_may_be_closed_by_the_small_model() {
        let (_dir, hub) = hub_with_request_from("someone@example.com", "Cheap watches, click here");
        let mut tools = Vetted::new(Inner(Vec::new()), hub.clone(), true);
        tools.call(2, &call("noop", "reason", "Spam: an advertisement for watches.")).unwrap().to_json();
        assert_eq!(tools.inner.0, ["noop"], "nobody is told, nothing goes up");
    }

    #[test]
    fn made_up_news_for_a_person_is_not_sent() {
        // Fit by every check of the text — about the item, not empty, not repeated — and made
        // up: the small model cannot know when the meeting is.
        for from in ["bob", cn_agent::OWNER] {
            let (dir, hub) = hub_with_request_from(from, "What time is the release meeting on Monday?");
            let mut tools = Vetted::new(Inner(Vec::new()), hub.clone(), true);
            let news = "The release meeting on Monday is at 10:00.";
            let result = tools.call(2, &call("reply", "message", news)).unwrap().to_json();
            assert!(tools.inner.0.is_empty(), "the reply never reached the op");
            assert_eq!(result["reason"], cn_agent::HandUp::Later.reason(), "{result}");
            assert!(!hub_text(dir.path()).contains(news), "the made-up answer is in no thread and no mail");
        }
    }
}
