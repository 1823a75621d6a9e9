//! What the agent answered an item, once it is decided: a reply's text; for any other
//! decision, what was done (closed, deferred until when, handed up …) — an op's reason is
//! not an answer. `cn chat` and the control room's chat both show it.

use std::path::PathBuf;

use crate::error::Result;
use crate::hub::Hub;
use crate::item::Item;
use crate::queue::{locate, Place};

/// The answer to item `id` once it is decided (archived, a reflection, or deferred); `None`
/// while it waits or is being worked on.
pub fn answer_to(hub: &Hub, id: &str) -> Result<Option<String>> {
    let Some(path) = decided(hub, id)? else { return Ok(None) };
    Ok(Some(answer(&Item::read(&path)?)))
}

/// Where the item `id` was filed once decided.
fn decided(hub: &Hub, id: &str) -> Result<Option<PathBuf>> {
    Ok(match locate(hub, id)? {
        Some(Place::Decided(p)) | Some(Place::Deferred(p)) => Some(p),
        _ => None,
    })
}

/// The answer a decided item records (its last note).
pub fn answer(item: &Item) -> String {
    let notes: Vec<&str> = item.content.split("\n## ").skip(1).collect();
    let last = notes.last().copied().unwrap_or("");
    // "do reply — ada (time)\n\nthe text": the heading names the decision; the text follows.
    let (heading, body) = last.split_once("\n\n").unwrap_or((last, ""));
    let decision = heading.split(" — ").next().unwrap_or("").trim();
    let body = body.trim();
    let until = item.doc.get_str("until");
    match decision {
        "do reply" => body.to_string(),
        "defer" if body.contains(crate::HAND_UP) => match until {
            Some(u) => format!("{} (I'll look at it again at {u})", crate::HAND_UP),
            None => crate::HAND_UP.to_string(),
        },
        _ => {
            let what = match decision {
                "do noop" => "closed without doing anything".to_string(),
                "do ack" => "acknowledged".to_string(),
                "do send" => "sent mail".to_string(),
                "do surface" => "surfaced".to_string(),
                "do commit" => "committed".to_string(),
                "defer" => until.map_or_else(|| "deferred".to_string(), |u| format!("deferred until {u}")),
                "delegate" => "delegated".to_string(),
                "delete" => "deleted".to_string(),
                other => other.to_string(),
            };
            // The op's own note, labelled as the decision's, not as an answer.
            let note = body.lines().next().unwrap_or("").trim();
            if note.is_empty() {
                format!("({what})")
            } else {
                format!("({what}: {note})")
            }
        }
    }
}
