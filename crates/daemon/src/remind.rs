//! Reminders reach the person (issue 31): a task a person's message filed carries where they
//! asked (`answer_to`, the item's typed origin); when it falls due, the daemon tells them there
//! at its minute, where [`Channels::route`] says — on Telegram, Discord or email through that
//! sense's channel, on a peer's thread by mail, and on the owner's chat as a `reminder` journal
//! entry that `cn chat` and the control room show. Then the task records that it was told for that due time.
//!
//! Invariants: a reminder is told, never filed as the agent's work (no item, no decision); it is
//! told once per due time (the file says so across restarts; a snooze tells it again at its
//! new time); one that cannot be delivered is journaled with why and left untold in the file,
//! so the next start tells it (late, saying when it was due).

use cn_agent::Hub;
use cn_autonomy::channel::{Channels, Route};
use cn_autonomy::jiff::Timestamp;
use cn_hub::origin::AnswerTo;
use cn_hub::tasks::Task;

use crate::journal::Reminded;

/// Tell `task`'s reminder where it was asked; the journal entry that records what happened.
pub fn tell<'a>(hub: &Hub, channels: &mut Channels, task: &'a Task, now: Timestamp) -> Reminded<'a> {
    let zone = cn_reflex::when::time_zone(hub.config().reflexes.time_zone.as_deref());
    let text = cn_reflex::routine::answer::reminder(task, &now.to_zoned(zone));
    let Some(to) = task.reminds() else {
        return entry(task, "not a reminder", None, "skipped");
    };
    let delivered = match channels.route(to) {
        // The owner's chat: the journal entry is the message; `cn chat` and the control room
        // show it.
        Route::Chat => Ok(()),
        Route::Peer(peer) => by_mail(hub, task, peer, &text, now),
        Route::Sense(on) => on.tell(&text).map_err(|e| cn_compute::chain(&e)),
        Route::NoSense | Route::Nobody => Err(format!("no {} sense is running to tell it on", to.via())),
    };
    match delivered {
        Ok(()) => {
            let due = task.next_time().unwrap_or(now);
            if let Err(e) = cn_hub::tasks::tasks_in(&hub.layout().state()).mark_reminded(&task.id, due, now) {
                tracing::error!(task = %task.id, e = %cn_compute::Chain(&e), "told the reminder, but cannot record it");
            }
            entry(task, &text, Some(to), "told")
        }
        Err(why) => {
            tracing::error!(task = %task.id, via = %to.via(), %why, "cannot tell the reminder");
            Reminded { error: Some(why), ..entry(task, &text, Some(to), "not delivered") }
        }
    }
}

fn entry<'a>(task: &'a Task, text: &str, to: Option<&'a AnswerTo>, outcome: &'static str) -> Reminded<'a> {
    Reminded {
        id: &task.id,
        summary: text.to_string(),
        task: &task.task,
        outcome,
        via: to.map(|to| to.via().as_str()),
        to: to.and_then(AnswerTo::whom),
        source: task.source.as_deref(),
        error: None,
    }
}

/// A peer's reminder: mail on their thread, as an automatic message (their agent records it,
/// never answers it automatically). Its id derives from the task and the due time, so it is
/// posted once.
fn by_mail(hub: &Hub, task: &Task, peer: &str, text: &str, now: Timestamp) -> Result<(), String> {
    let due = task.next_time().map(|d| d.to_string()).unwrap_or_default();
    let id = cn_hub::id::stable(&format!("{}:reminder:{}@{due}", hub.name(), task.id));
    let mail = cn_agent::Mail {
        id: id.clone(),
        to: peer.to_string(),
        from: hub.name().to_string(),
        thread: id,
        created: now.to_string(),
        kind: Some("auto".into()),
        reply_to: None,
        subject: Some(format!("Reminder: {}", task.task)),
        depth: 0,
        body: text.to_string(),
    };
    cn_agent::mail::post(hub, &mail).map(|_| ()).map_err(|e| cn_compute::chain(&e))
}
