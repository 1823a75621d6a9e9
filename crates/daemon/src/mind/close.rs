//! How an item's turn ends: closed truly when nobody can take it, handed up, acknowledged
//! by cn, deferred or put back for the owner's item; a decided task or idea settled; the
//! current item finished and its decision learned from.

use super::*;

impl HubMind {
    /// Decide an item no level that could do it may take, truly, without a model: a person's
    /// message is handed up with the reason (and waits for what it needs); the agent's own
    /// impulses and events wait for the budget, or — with no executive at all — are closed
    /// saying what happened and that nothing below the executive can do more (a reflection
    /// gets its digest of the journal). Nothing is filed again as a task or an idea.
    pub(super) fn close_truly(&mut self, item: &Item, origin: &Origin, mut refused: Refused) -> bool {
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
    pub(super) fn record_on_thread(&mut self, item: &Item, origin: &Origin) -> bool {
        let thread = origin.thread.as_deref().unwrap_or(&item.thread);
        let reason = format!("recorded on thread {thread}: {}", first_line(&item.content));
        self.ack_by_cn(item, reason, "cannot record {} on its thread")
    }

    /// Hand the current item up for `why` (deferred with the true reason; its sender told);
    /// false when the hub could not record it.
    pub(super) fn hand_up(&mut self, item: &Item, why: &cn_agent::HandUp, until: Option<String>) -> bool {
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
    pub(super) fn ask_failed(&self, outcomes: &Outcomes) -> Option<cn_agent::HandUp> {
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
    pub(super) fn ack_by_cn(&mut self, item: &Item, reason: String, failed: &str) -> bool {
        let by = cn_agent::DecideAs {
            automatic: true,
            level: Some(1),
            by: Some("cn's own rules".into()),
            ..Default::default()
        };
        match cn_agent::decide(&self.hub, &Gtd::Do(cn_agent::Op::Ack(cn_agent::ops::Ack { reason })), &by) {
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

    /// An item born of a task completes the task only when a decision did the task: not a
    /// noop, and not a level below the executive (the small model cannot do a task, and a
    /// reflex only answers). Left open, the task is followed up a day later; a deferred item
    /// comes back by itself at its `until`.
    pub(super) fn settle_task(&mut self, item: &Item, decided: &cn_agent::Decided) {
        let Some(task) = item.marks().task.clone() else { return };
        if matches!(decided.gtd, Gtd::Defer(_)) {
            return;
        }
        let noop = matches!(decided.gtd, Gtd::Do(cn_agent::Op::Noop(_)));
        let below = decided.level.is_some_and(|l| l < 3);
        let tasks = cn_autonomy::impulses::tasks::tasks_of(self.hub.root());
        if !noop && !below {
            match tasks.complete(&task) {
                Ok(_) => self.note(
                    &Record::new(Kind::Observation, item.id.as_str(), format!("task {task} done")).outcome("done"),
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
                &Record::new(
                    Kind::Observation,
                    item.id.as_str(),
                    format!("task {task} left open: {why}; followed up at {}", second(at)),
                )
                .outcome("open"),
            ),
            Err(e) => tracing::error!(e = %cn_compute::Chain(&e), "cannot set the follow-up of task {task}"),
        }
    }

    /// An item born of an idea, once explored (decided by the executive, or by the owner), is
    /// an exploration: journaled (the idea, how long, the outcome, what was learned — the
    /// decision's note) and the idea marked explored in ideas.json. One no level could explore
    /// stays an idea.
    pub(super) fn settle_idea(&mut self, item: &Item, decided: &cn_agent::Decided) {
        let Some(idea) = item.marks().idea.clone() else { return };
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
        self.note(&crate::journal::Explored {
            id: &item.id,
            idea: idea_text.strip_prefix("Idea to explore: ").unwrap_or(&idea_text),
            idea_id: &idea,
            provenance: item.origin_in(&self.hub).author.label(),
            duration_sec: duration,
            outcome: &outcome,
            learned: &learned,
        });
        if let Err(e) = cn_autonomy::impulses::ideas::ideas_of(self.hub.root()).mark_explored(&idea, now) {
            tracing::error!(e = %cn_compute::Chain(&e), "cannot mark idea {idea} explored");
        }
    }

    /// What was decided on `item`: as this process's decider returned it, or — decided by
    /// another process (the owner's `cn out`) — as the hub recorded it.
    pub(super) fn decided(&self, item: &Item) -> Option<cn_agent::Decided> {
        self.decisions.take(&item.id).or_else(|| cn_agent::queue::read_decided(&self.hub, &item.id).ok().flatten())
    }

    /// The current item was decided (by a model's op, a reflex, `cn out`, cn's own rules, or
    /// the move limit).
    pub(super) fn finish(&mut self, item: &Item) {
        let decided = self.decided(item);
        self.finish_with(item, decided.as_ref());
    }

    pub(super) fn finish_with(&mut self, item: &Item, decided: Option<&cn_agent::Decided>) {
        if let Some(t) = &self.telemetry {
            t.end_item(self.level, None);
        }
        self.current = None;
        self.origin = None;
        self.working.clear();
        self.moves = 0;
        if let Some(d) = decided {
            self.settle_task(item, d);
            self.settle_idea(item, d);
        }
        self.level = None;
        // Leased, the decision is in origin before its answer leaves: a daemon that lost the
        // lease tells no one (the clone that took over decides the item and answers).
        let told = self.checkpoint(&format!("cn: decided {}", item.id));
        self.channels.finished(item, decided.filter(|_| told));
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
    pub(super) fn preempt(&mut self, item: &Item) -> bool {
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
                self.working.clear();
                self.moves = 0;
                self.level = None;
                self.channels.finished(item, None);
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
    pub(super) fn defer_current(&mut self, item: &Item, outcomes: &Outcomes) -> bool {
        let last = outcomes.since(self.mark).last().map(describe).unwrap_or_else(|| "no tool call".into());
        let reason = format!("no decision after {} moves (last: {last})", self.moves);
        // Always with an `until`: an item the daemon defers itself comes back (an owner's
        // request is handed up with that time, never left without one).
        let until = Some(cn_storage::rfc3339_after(self.auto.pacing.retry_deferred));
        let gtd = Gtd::Defer(cn_agent::ops::Defer { reason: reason.clone(), until });
        match cn_agent::decide(&self.hub, &gtd, &cn_agent::DecideAs::below_executive(1)) {
            Ok(d) => {
                self.decisions.push(&d);
                self.stalled = None;
                self.note(
                    &Record::new(Kind::Decision, item.id.as_str(), format!("deferred {}: move limit", item.id))
                        .reasoning(reason),
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
}
