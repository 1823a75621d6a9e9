//! What the daemon's model works on right now: `state/working.json` (`{"item", "level",
//! "since", "pid"}`), written as an ask starts and removed when it ends, so `cn chat` can say
//! what the agent is finishing before it reaches the owner's message ("finishing task “Write
//! the report” on the executive, 6 s…") instead of waiting in silence. An owner's message
//! pre-empts autonomous work at the next decide, so the ask in flight is all it waits for.
//!
//! A runtime file, never committed (`.gitignore`); one a killed daemon left behind names a
//! process that no longer holds the run lock, and [`now`] ignores it.

use std::path::PathBuf;
use std::time::Duration;

use cn_compute::{AskFn, Decorator, Plan, State};
use serde::{Deserialize, Serialize};

/// One ask in flight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Working {
    /// The item's id (none for an ask about no item).
    pub item: Option<String>,
    pub level: u8,
    /// When the ask started (RFC 3339).
    pub since: String,
    /// The daemon's process.
    pub pid: u32,
}

/// The `ask` decorator that keeps `path` (`state/working.json`) while an ask runs. A write
/// that fails is logged; the ask goes on.
pub fn decorator(path: PathBuf) -> Decorator {
    Decorator::Ask(Box::new(move |mut inner: AskFn| -> AskFn {
        Box::new(move |state: &mut State, plan: Plan| {
            let w = Working {
                item: plan.item.clone(),
                level: plan.level,
                since: cn_storage::now_rfc3339(),
                pid: std::process::id(),
            };
            if let Err(e) = cn_storage::write_json_atomic(&path, &w) {
                tracing::debug!(e = %cn_compute::Chain(&e), "cannot write state/working.json");
            }
            let answer = inner(state, plan);
            let _ = std::fs::remove_file(&path);
            answer
        })
    }))
}

/// The ask the daemon running on `hub` has in flight, if one runs and has one.
pub fn now(hub: &cn_hub::Hub) -> Option<Working> {
    let layout = hub.layout();
    if !cn_storage::ProcessLock::is_held(&layout.run_lock()) {
        return None;
    }
    let w: Working = serde_json::from_str(&std::fs::read_to_string(layout.working()).ok()?).ok()?;
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(layout.run_info()).ok()?).ok()?;
    (run["pid"].as_u64() == Some(u64::from(w.pid))).then_some(w)
}

/// "task “Write the report” on the executive, 6 s": what `w` works on, in words, with how
/// long it has so far.
pub fn describe(hub: &cn_hub::Hub, w: &Working) -> String {
    let what = match &w.item {
        Some(id) => current(hub, id).unwrap_or_else(|| format!("item {id}")),
        None => "a question".to_string(),
    };
    let level = match w.level {
        3 => "the executive".to_string(),
        2 => "the local model".to_string(),
        l => format!("level {l}"),
    };
    let took = w
        .since
        .parse::<jiff::Timestamp>()
        .ok()
        .and_then(|t| Duration::try_from(jiff::Timestamp::now().duration_since(t)).ok())
        .map_or(0, |d| d.as_secs());
    format!("{what} on {level}, {took} s")
}

/// The current item `id` in words: its kind (task, idea, schedule entry, reflection, someone's
/// message) and its first line.
fn current(hub: &cn_hub::Hub, id: &str) -> Option<String> {
    let doc = cn_storage::Doc::parse(&std::fs::read_to_string(hub.layout().input()).ok()?).ok()?;
    if doc.get_str("id") != Some(id) {
        return None;
    }
    use cn_hub::origin::ImpulseKind;
    let impulse = match cn_hub::Origin::of_doc(&doc, |_| false).kind {
        cn_hub::Kind::Impulse(ImpulseKind::Schedule) => Some("schedule entry"),
        cn_hub::Kind::Impulse(ImpulseKind::Task | ImpulseKind::FollowUp) => Some("task"),
        cn_hub::Kind::Impulse(ImpulseKind::Idea) => Some("idea"),
        _ => None,
    };
    let kind = match (impulse, doc.get_str("cadence")) {
        (Some(impulse), _) => impulse.to_string(),
        (None, Some(cadence)) if cadence != "inbox" && cadence != "adhoc" => format!("the {cadence} reflection"),
        _ => format!("a message from {}", doc.get_str("from").unwrap_or("someone")),
    };
    // A task's or an idea's own words, not the impulse's line about it ("Task due: …").
    let state = hub.layout().state();
    let own = match (doc.get_str("task"), doc.get_str("idea")) {
        (Some(task), _) => {
            cn_hub::tasks::tasks_in(&state).load().ok()?.into_iter().find(|t| t.id == task).map(|t| t.task)
        }
        (None, Some(idea)) => {
            cn_hub::tasks::ideas_in(&state).load().ok()?.into_iter().find(|i| i.id == idea).map(|i| i.idea)
        }
        _ => None,
    };
    let first = own.unwrap_or_else(|| doc.body.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string());
    let first: String = first.chars().take(60).collect();
    Some(if first.is_empty() { format!("{kind} {id}") } else { format!("{kind} “{first}”") })
}
