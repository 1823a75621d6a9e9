//! The item queue: `threads/inbox/` in, `state/input.md` the current item. cn, not the
//! agent, chooses the order:
//!
//! 1. the owner's items (`from: owner`) before anyone else's;
//! 2. then the oldest `queued` first;
//! 3. then by id, so the order is total and repeatable.
//!
//! Deferred items whose `until` has passed go back to the inbox before each choice.
//!
//! Invariant: every move is one `rename` within the hub, so an item is in exactly one place
//! (inbox, current, deferred, or decided) at every instant, whatever is killed when.

use std::path::{Path, PathBuf};

use tracing::warn;

use crate::decide::recover_locked;
use crate::error::{io_at, AgentError, Result};
use crate::hub::{Hub, OWNER};
use crate::item::{Cadence, Item, Marks};
use crate::lock::lock;
use cn_hub::id::new as new_id;
use cn_hub::Origin;

/// Where an item is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Inbox(PathBuf),
    Current,
    Deferred(PathBuf),
    /// Archived, or a reflection's outcome.
    Decided(PathBuf),
}

/// Put an item in the inbox. Refuses an id the hub already holds anywhere.
pub fn enqueue(hub: &Hub, item: &Item) -> Result<PathBuf> {
    if let Some(place) = locate(hub, &item.id)? {
        return Err(AgentError::Invalid(format!("item `{}` is already in the hub ({place:?})", item.id)));
    }
    let path = hub.inbox().join(format!("{}.md", item.id));
    item.write(&path)?;
    Ok(path)
}

/// Queue a new item from `from` with `content`; returns it. The owner's is a message on
/// `chat` (`cn chat`, the control room), answered there.
pub fn enqueue_new(hub: &Hub, from: &str, cadence: Cadence, content: &str) -> Result<Item> {
    let mut item = Item::new(&new_id(), from, cadence, content);
    if from == OWNER {
        item.set_origin(&Origin::owner(cn_hub::Sense::Chat));
    }
    enqueue(hub, &item)?;
    Ok(item)
}

/// Queue a reflection for `cadence` (the schedule calls this): an item from the agent itself
/// whose outcome, once decided, goes to `threads/reflections/<cadence>/`.
pub fn enqueue_reflection(hub: &Hub, cadence: Cadence, prompt: &str) -> Result<Item> {
    let mut item = Item::new(&new_id(), hub.name(), cadence, prompt);
    item.set_origin(&Origin::impulse(cn_hub::origin::ImpulseKind::Schedule, cn_hub::Provenance::Owner));
    enqueue(hub, &item)?;
    Ok(item)
}

/// The current item, if there is one (no lock: `state/input.md` is replaced atomically).
pub fn current(hub: &Hub) -> Result<Option<Item>> {
    Item::read_opt(&hub.input())
}

/// The current item, or else take the next from the queue; `None` when the queue is empty.
/// Finishes a decision a crash interrupted first.
pub fn take_next(hub: &Hub) -> Result<Option<Item>> {
    let _lock = lock(hub)?;
    take_next_locked(hub)
}

/// [`take_next`] for a caller that already holds the hub lock.
pub fn take_next_locked(hub: &Hub) -> Result<Option<Item>> {
    recover_locked(hub)?;
    if let Some(item) = current(hub)? {
        return Ok(Some(item));
    }
    release_due(hub)?;
    let Some((_, path)) = pending(hub)?.into_iter().next() else {
        return Ok(None);
    };
    make_current(hub, &path).map(Some)
}

/// The current item left by an earlier run, after finishing a decision a crash interrupted
/// (which files it, so then there is none). With no current item, deferred items that are
/// due go back to the inbox — all under one hold of the hub lock.
pub fn resume(hub: &Hub) -> Result<Option<Item>> {
    let _lock = lock(hub)?;
    recover_locked(hub)?;
    let item = current(hub)?;
    if item.is_none() {
        release_due(hub)?;
    }
    Ok(item)
}

/// Take the item `id` from the inbox as the current item (attention chose it). Returns the
/// current item: `id` — or the item already current, which stays current until decided —
/// or `None` when `id` is no longer in the inbox (decided or deferred meanwhile).
pub fn take(hub: &Hub, id: &str) -> Result<Option<Item>> {
    let _lock = lock(hub)?;
    recover_locked(hub)?;
    if let Some(item) = current(hub)? {
        return Ok(Some(item));
    }
    let path = hub.inbox().join(format!("{id}.md"));
    if !path.is_file() {
        return Ok(None);
    }
    make_current(hub, &path).map(Some)
}

/// Move the inbox file `path` to `state/input.md` with a fresh turn.
fn make_current(hub: &Hub, path: &Path) -> Result<Item> {
    // A fresh `turn` marks this taking: a decision recorded for an earlier turn of the same
    // item (one deferred and back) is never mistaken for a pending one.
    let mut item = Item::read(path)?;
    item.set(Marks::TURN, new_id());
    // What an earlier turn answered, and what it waited for, are that turn's.
    for stale in [crate::answer::KEY, crate::item::WAITS_FOR, Marks::LEVEL, crate::item::DECIDED_BY] {
        item.unset(stale);
    }
    item.write(path)?;
    let input = hub.input();
    cn_storage::beneath::rename(path, &input).map_err(io_at(path))?;
    current(hub)?.ok_or_else(|| AgentError::Invalid(format!("{} vanished while it was taken", input.display())))
}

/// Put the current item back in the inbox, undecided (an owner item pre-empts it). Returns
/// it, or `None` when there was no current item. A decision already recorded for it is
/// finished first, so a decided item is never returned to the queue.
pub fn return_current(hub: &Hub) -> Result<Option<Item>> {
    let _lock = lock(hub)?;
    recover_locked(hub)?;
    let Some(item) = current(hub)? else { return Ok(None) };
    let to = hub.inbox().join(format!("{}.md", item.id));
    cn_storage::beneath::rename(&hub.input(), &to).map_err(io_at(&hub.input()))?;
    Ok(Some(item))
}

/// The inbox in processing order.
pub fn pending(hub: &Hub) -> Result<Vec<(Item, PathBuf)>> {
    let mut items: Vec<(Item, PathBuf)> = md_files(&hub.inbox())?
        .into_iter()
        .filter_map(|p| match Item::read(&p) {
            Ok(item) => Some((item, p)),
            Err(e) => {
                // A malformed file is left where it is for a person to fix; it must not
                // block the queue.
                warn!("skipping {}: {e}", p.display(), e = cn_compute::Chain(&e));
                None
            }
        })
        .collect();
    items.sort_by(|(a, _), (b, _)| (a.from != OWNER, &a.queued, &a.id).cmp(&(b.from != OWNER, &b.queued, &b.id)));
    Ok(items)
}

/// Move deferred items whose `until` has passed back to the inbox, and those waiting for an
/// executive once one is configured.
pub fn release_due(hub: &Hub) -> Result<()> {
    let now = jiff::Timestamp::now();
    let executive = hub.config().models.executive.is_some();
    for path in md_files(&hub.deferred())? {
        let Ok(item) = Item::read(&path) else { continue };
        let marks = item.marks();
        let due = marks.until.as_deref().and_then(cn_storage::parse_rfc3339).is_some_and(|(u, _)| u <= now);
        let waited = executive && marks.waits_for.as_deref() == Some("executive");
        if due || waited {
            let to = hub.inbox().join(format!("{}.md", item.id));
            cn_storage::beneath::rename(&path, &to).map_err(io_at(&path))?;
        }
    }
    Ok(())
}

/// Move the deferred items waiting for `what` (an approval's id, [`crate::answer::WAITS_FOR`])
/// back to the inbox, with `note` added to each (what the owner decided); their ids. The
/// caller holds the hub lock.
pub fn release_waiting(hub: &Hub, what: &str, note: Option<&str>) -> Result<Vec<String>> {
    let mut released = Vec::new();
    for path in md_files(&hub.deferred())? {
        let Ok(mut item) = Item::read(&path) else { continue };
        if item.marks().waits_for.as_deref() != Some(what) {
            continue;
        }
        if let Some(note) = note {
            if !item.content.ends_with('\n') {
                item.content.push('\n');
            }
            item.content.push_str(&format!("\n## {what}\n\n{}\n", note.trim_end()));
            item.write(&path)?;
        }
        let to = hub.inbox().join(format!("{}.md", item.id));
        std::fs::create_dir_all(hub.inbox()).map_err(io_at(&hub.inbox()))?;
        std::fs::rename(&path, &to).map_err(io_at(&path))?;
        released.push(item.id);
    }
    Ok(released)
}

/// The answer to item `id` once it is decided (archived, a reflection, or deferred), for its
/// sender; `None` while it waits or is being worked on.
pub fn answer_to(hub: &Hub, id: &str) -> Result<Option<String>> {
    let Some(path) = decided(hub, id)? else { return Ok(None) };
    let item = Item::read(&path)?;
    let owner = item.origin_in(hub).author.is_owner();
    Ok(Some(crate::answer::Answer::of_item(&item).to_person(owner)))
}

/// Where the item `id` was filed once decided.
fn decided(hub: &Hub, id: &str) -> Result<Option<PathBuf>> {
    Ok(match locate(hub, id)? {
        Some(Place::Decided(p)) | Some(Place::Deferred(p)) => Some(p),
        _ => None,
    })
}

/// What another process decided on item `id` (the owner's `cn out` while the daemon worked
/// on it): the filed item and the decision `state/output.md` records. `None` while the item is
/// undecided, or when the record is already another item's.
pub fn read_decided(hub: &Hub, id: &str) -> Result<Option<crate::Decided>> {
    let Some(rec) = crate::decide::read_output(hub)?.filter(|r| r.id == id) else { return Ok(None) };
    let path = match locate(hub, id)? {
        Some(Place::Decided(p)) | Some(Place::Deferred(p)) => p,
        _ => return Ok(None),
    };
    let item = Item::read(&path)?;
    let answer = crate::answer::Answer::of_item(&item);
    let level = item.marks().level;
    let place = path.strip_prefix(hub.root()).unwrap_or(&path).to_string_lossy().into_owned();
    Ok(Some(crate::Decided {
        item,
        gtd: rec.gtd,
        answer,
        level,
        decided: rec.decided,
        place,
        mail: Vec::new(),
        committed: true,
    }))
}

/// Where the item `id` is, if the hub holds it.
pub fn locate(hub: &Hub, id: &str) -> Result<Option<Place>> {
    let name = format!("{id}.md");
    let inbox = hub.inbox().join(&name);
    if inbox.is_file() {
        return Ok(Some(Place::Inbox(inbox)));
    }
    if current(hub).ok().flatten().is_some_and(|i| i.id == id) {
        return Ok(Some(Place::Current));
    }
    let deferred = hub.deferred().join(&name);
    if deferred.is_file() {
        return Ok(Some(Place::Deferred(deferred)));
    }
    let archived = hub.archived().join(&name);
    if archived.is_file() {
        return Ok(Some(Place::Decided(archived)));
    }
    for c in Cadence::ALL.into_iter().filter(|c| c.is_reflection()) {
        let p = hub.reflections(c.as_str()).join(&name);
        if p.is_file() {
            return Ok(Some(Place::Decided(p)));
        }
    }
    Ok(None)
}

/// The `*.md` files of a directory (none when it does not exist), sorted.
pub(crate) fn md_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_at(dir)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.map_err(io_at(dir))?.path();
        // Temp files of an interrupted atomic write start with a dot.
        let visible = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| !n.starts_with('.'));
        if visible && path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn hub() -> (tempfile::TempDir, Hub) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("cn.yaml"), "name: sigma\n").unwrap();
        let hub = Hub::open(dir.path()).unwrap();
        (dir, hub)
    }

    fn item(id: &str, from: &str, queued: &str) -> Item {
        let mut i = Item::new(id, from, Cadence::Inbox, "x");
        i.set("queued", queued);
        Item::from_doc(i.doc).unwrap()
    }

    #[test]
    fn owner_first_then_oldest_then_id() {
        let (_d, hub) = hub();
        enqueue(&hub, &item("b", "pi", "2026-01-01T00:00:00Z")).unwrap();
        enqueue(&hub, &item("a", "pi", "2026-01-01T00:00:00Z")).unwrap();
        enqueue(&hub, &item("old", "pi", "2025-01-01T00:00:00Z")).unwrap();
        enqueue(&hub, &item("own", OWNER, "2026-02-01T00:00:00Z")).unwrap();
        let order: Vec<String> = pending(&hub).unwrap().into_iter().map(|(i, _)| i.id).collect();
        assert_eq!(order, ["own", "old", "a", "b"]);
        assert!(enqueue(&hub, &item("a", "pi", "2026-01-01T00:00:00Z")).is_err(), "an id is queued once");

        let first = take_next(&hub).unwrap().unwrap();
        assert_eq!(first.id, "own");
        assert_eq!(locate(&hub, "own").unwrap(), Some(Place::Current));
        // The current item stays current until it is decided.
        assert_eq!(take_next(&hub).unwrap().unwrap().id, "own");
        assert_eq!(pending(&hub).unwrap().len(), 3);
    }

    #[test]
    fn take_by_id_and_return_current_keep_the_item_in_one_place() {
        let (_d, hub) = hub();
        enqueue(&hub, &item("a", "pi", "2026-01-01T00:00:00Z")).unwrap();
        enqueue(&hub, &item("b", "pi", "2026-01-02T00:00:00Z")).unwrap();
        assert!(take(&hub, "missing").unwrap().is_none());
        let b = take(&hub, "b").unwrap().unwrap();
        assert_eq!(b.id, "b", "attention's choice, not the queue's order");
        assert_eq!(take(&hub, "a").unwrap().unwrap().id, "b", "the current item stays current");
        let back = return_current(&hub).unwrap().unwrap();
        assert_eq!(back.id, "b");
        assert_eq!(locate(&hub, "b").unwrap(), Some(Place::Inbox(hub.inbox().join("b.md"))));
        assert!(current(&hub).unwrap().is_none());
        assert!(resume(&hub).unwrap().is_none());
        assert!(return_current(&hub).unwrap().is_none());
        assert_eq!(pending(&hub).unwrap().len(), 2);
    }

    #[test]
    fn empty_queue_is_none_and_reflections_carry_their_cadence() {
        let (_d, hub) = hub();
        assert!(take_next(&hub).unwrap().is_none());
        let r = enqueue_reflection(&hub, Cadence::Weekly, "What did I learn this week?").unwrap();
        let cur = take_next(&hub).unwrap().unwrap();
        assert_eq!((cur.id, cur.cadence, cur.from), (r.id, Cadence::Weekly, "sigma".to_string()));
    }
}
