//! The reflexes' part of the hub's mind: a new item offered to them first, a reply of
//! theirs deciding it, an action held for the owner's approval and resumed, the owner's word
//! on a held action, a quiet reflection closed without a model, and what the executive
//! teaches them.

use super::*;

/// Reflex replies decide the current item with the `reply` op (journaled, committed, and
/// sent back to a peer when the item came from one). A reaction never decides the item (a
/// `react` then `reply` pipeline replies once): on a channel that has reactions (Discord) it
/// is a real reaction on the item's message; elsewhere it is journaled.
pub(super) struct HubReplier {
    pub(super) hub: Hub,
    pub(super) reactor: Option<Reactor>,
    pub(super) decisions: cn_agent::Decisions,
}

/// A real reaction: (channel id, message id, emoji); the channel's error if it failed.
pub type Reactor = Arc<dyn Fn(u64, u64, &str) -> Result<(), cn_autonomy::senses::SenseError> + Send + Sync>;

impl cn_reflex::Replier for HubReplier {
    fn reply(&self, to: &cn_reflex::Target, message: &str) -> Result<(), cn_reflex::ReplyError> {
        let reply = Gtd::Do(cn_agent::Op::Reply(cn_agent::ops::Reply { message: message.trim().to_string() }));
        let by = format!("reflex `{}`", to.reflex);
        let decided = cn_agent::decide(&self.hub, &reply, &cn_agent::DecideAs::below_executive(to.level).by(by))
            .map_err(cn_reflex::ReplyError::channel)?;
        self.decisions.push(&decided);
        Ok(())
    }
    fn react(&self, to: &cn_reflex::Target, emoji: &str) -> Result<(), cn_reflex::ReplyError> {
        let current = cn_agent::queue::current(&self.hub).ok().flatten();
        // A reaction goes on the message it answers: only Discord's has one.
        let on_discord = current.as_ref().and_then(|i| match i.answer_to()? {
            cn_hub::AnswerTo::Discord { channel, message: Some(message) } => {
                Some((channel.parse::<u64>().ok()?, message.parse::<u64>().ok()?))
            }
            cn_hub::AnswerTo::Discord { message: None, .. }
            | cn_hub::AnswerTo::Chat
            | cn_hub::AnswerTo::Telegram { .. }
            | cn_hub::AnswerTo::Email { .. }
            | cn_hub::AnswerTo::Peer { .. }
            | cn_hub::AnswerTo::None => None,
        });
        if let (Some(react), Some((channel, message))) = (&self.reactor, on_discord) {
            return react(channel, message, emoji).map_err(cn_reflex::ReplyError::channel);
        }
        let id = to.item.clone().or(current.map(|i| i.id)).unwrap_or_default();
        let entry = crate::journal::Reacted { id: &id, summary: format!("reacted {emoji} to {id}"), emoji };
        self.hub.journal().and_then(|mut j| j.write(&entry)).map_err(cn_reflex::ReplyError::channel)
    }
}

impl HubMind {
    /// Let the reflexes try the current item. True when one handled it (no model needed).
    /// They see its origin: a trigger takes only the kinds and authors it names (the triage,
    /// only a person's message).
    pub(super) fn reflex(&mut self, item: &Item, origin: &Origin) -> bool {
        let Some(engine) = self.reflexes.clone() else { return false };
        let Ok(mut engine) = engine.lock() else { return false };
        let source = reflex_source(item);
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
    pub(super) fn close_after_reflex(&mut self, item: &Item, handled: &cn_reflex::Handled) -> bool {
        if let Ok(Some(now)) = cn_agent::current(&self.hub) {
            if now.id == item.id {
                let name = handled.reflex.as_deref().unwrap_or("?");
                let decided = if item.from == OWNER {
                    let message = what_the_reflex_did(name, &handled.steps);
                    cn_agent::decide(
                        &self.hub,
                        &Gtd::Do(cn_agent::Op::Reply(cn_agent::ops::Reply { message })),
                        &cn_agent::DecideAs::below_executive(handled.level).by(format!("reflex `{name}`")),
                    )
                } else {
                    let reason = format!("handled by reflex {name}");
                    let by = cn_agent::DecideAs {
                        automatic: true,
                        level: Some(handled.level),
                        by: Some(format!("reflex `{name}`")),
                        ..Default::default()
                    };
                    cn_agent::decide(&self.hub, &Gtd::Do(cn_agent::Op::Ack(cn_agent::ops::Ack { reason })), &by)
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
    pub(super) fn wait_for_approval(&mut self, item: &Item, id: &str, resume: Option<Value>) -> bool {
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
    pub(super) fn resume_after_approval(&mut self, item: &Item, origin: &Origin) -> bool {
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
            return match cn_agent::decide(&self.hub, &reply, &cn_agent::DecideAs::below_executive(1)) {
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
        let source = reflex_source(item);
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
    pub(super) fn owner_word(&mut self, item: &Item, from: &cn_hub::Provenance) -> bool {
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
        match cn_agent::decide(&self.hub, &reply, &cn_agent::DecideAs { level: Some(0), ..Default::default() }) {
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
    pub(super) fn quiet_reflection(&mut self, item: &Item) -> bool {
        if item.origin_kind() != ItemKind::Impulse(ImpulseKind::Schedule) {
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
    pub(super) fn learn(&mut self, item: &Item, decided: Option<&cn_agent::Decided>, outcomes: &Outcomes) {
        let Some(engine) = self.reflexes.clone() else { return };
        let shadow = self.shadow.take().filter(|s| s.item.as_deref() == Some(item.id.as_str()));
        let Some(decided) = decided else { return };
        let gtd = &decided.gtd;
        let op = gtd.op().map_or(gtd.name(), |o| o.name()).to_string();
        let message = match gtd {
            Gtd::Do(cn_agent::Op::Reply(cn_agent::ops::Reply { message }))
            | Gtd::Do(cn_agent::Op::Send(cn_agent::ops::Send { message, .. })) => Some(message.clone()),
            _ => None,
        };
        let tools = outcomes
            .since(self.mark)
            .iter()
            .filter_map(|o| match o {
                Outcome::Acted { call, result: Ok(_) } => Some(call.tool.clone()),
                _ => None,
            })
            .collect();
        let source = reflex_source(item);
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
}

/// The `source` a reflex's trigger names for an item: its sense (`owner` for the owner's
/// chat), or `hub` for the agent's own impulses and a peer's mail, as the owner's when the
/// owner filed it.
fn reflex_source(item: &Item) -> &'static str {
    match item.sense() {
        cn_hub::Sense::Chat => "owner",
        cn_hub::Sense::Hub | cn_hub::Sense::Peer if item.from == OWNER => "owner",
        cn_hub::Sense::Hub | cn_hub::Sense::Peer => "hub",
        sense => sense.as_str(),
    }
}

/// What a reflex that ran without replying did, in words for the owner: each step's action
/// and its result as the step gave it (shortened), nothing more.
pub(super) fn what_the_reflex_did(reflex: &str, steps: &[cn_reflex::StepRun]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reflexs_source_is_the_items_sense() {
        let source = |from: &str, origin: &Origin| {
            let mut item = Item::new("i1", from, Cadence::Inbox, "x");
            item.set_origin(origin);
            reflex_source(&item)
        };
        assert_eq!(source(OWNER, &Origin::owner(cn_hub::Sense::Chat)), "owner");
        assert_eq!(source(OWNER, &Origin::owner(cn_hub::Sense::Telegram)), "telegram");
        assert_eq!(source("bob", &Origin::peer("bob", ItemKind::Message)), "hub");
        assert_eq!(source("ada", &Origin::impulse(ImpulseKind::Task, cn_hub::Provenance::Owner)), "hub");
        // An older cn's item: its `sense:` key.
        let mut old = Item::new("i2", "github", Cadence::Inbox, "x");
        old.set("sense", "github");
        assert_eq!(reflex_source(&old), "github");
    }
}
