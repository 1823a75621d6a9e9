//! The spool: every item admitted to attention, appended to `state/attention.jsonl` before
//! the sense that brought it is answered, so a daemon killed at any point (SIGKILL included)
//! loses no queued item. Lines: `{"add": item}`, `{"add": item, "into": id}` for an item
//! coalesced into another, `{"done": id}` when a decision closed an item or it was shed,
//! `{"merged": id, "count": n}` for n more items coalesced into `id` than are kept in full.
//! Opening the spool re-reads it, keeps what is still pending, and rewrites it compacted:
//! of the items coalesced into one, the first [`KEEP_MERGED`] in full (as the pool keeps
//! them) and the number of the rest — so a flood of one key costs neither the file nor a
//! restarted daemon's memory more than that (the soak saw a restart restore 28,000
//! coalesced webhooks in full: +50 MB the allocator kept).
//!
//! Invariants: one `write` per line (cn_storage::Journal), so a kill leaves at most a torn
//! last line, which is skipped; the compacted file replaces the old one atomically.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use cn_storage::{Entry, Journal};
use serde_json::Value;

use super::pool::KEEP_MERGED;
use super::Input;

/// An item still pending in the spool, with the id it was coalesced into, if any.
pub type Pending = (Input, Option<String>);

/// What a spool holds: the pending items, in admission order, and how many more were
/// coalesced into an item than are kept in full (item id → count).
#[derive(Debug, Default)]
pub struct Restored {
    pub pending: Vec<Pending>,
    pub extra: HashMap<String, u64>,
}

/// The append-only queue file.
#[derive(Debug)]
pub struct Spool {
    journal: Journal,
    /// Entries appended since the last compaction.
    appended: usize,
}

impl Spool {
    /// Open (creating) the spool; returns it and the items still pending, in admission
    /// order, each with the id it was coalesced into, if any.
    pub fn open(path: &Path) -> io::Result<(Spool, Restored)> {
        let restored = compact(path)?;
        Ok((Spool { journal: Journal::open(PathBuf::from(path))?, appended: 0 }, restored))
    }
}

/// Appends between compactions of a running spool: past it, the file is rewritten with the
/// pending items only (as on open), so a daemon that never restarts keeps it small (the soak
/// saw it grow by 0.6 MB a minute under 10 webhooks a second).
pub const COMPACT_EVERY: usize = 20_000;

/// The spool's lines replayed: each pending item with the line that added it, and the
/// counts of coalesced items not kept in full.
struct Replayed {
    slots: Vec<(Entry, Pending)>,
    extra: HashMap<String, u64>,
}

/// Replay the spool's lines.
fn replay(path: &Path) -> io::Result<Replayed> {
    // Streamed: memory holds the items still pending, never the whole file (reading it whole
    // after a SIGKILL grew the daemon's RSS by the spool's size — the soak), and of the items
    // coalesced into one, [`KEEP_MERGED`] and a count.
    // Replay in order: an item re-added after it was closed (deferred) is pending again.
    let mut slots: Vec<Option<(Entry, Pending)>> = Vec::new();
    let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
    // Per item coalesced into: how many are kept in full, how many more were counted.
    let mut kept: HashMap<String, usize> = HashMap::new();
    let mut extra: HashMap<String, u64> = HashMap::new();
    Journal::scan(path, |line| {
        let e = match line {
            Ok(e) => e,
            Err(s) => {
                return tracing::warn!(path = %path.display(), line = s.line, error = %s.error, "spool: skipped a torn line")
            }
        };
        if let Some(id) = e.0.get("done").and_then(Value::as_str) {
            for i in by_id.remove(id).unwrap_or_default() {
                slots[i] = None;
            }
            kept.remove(id);
            extra.remove(id);
            return;
        }
        if let (Some(id), Some(n)) =
            (e.0.get("merged").and_then(Value::as_str), e.0.get("count").and_then(Value::as_u64))
        {
            *extra.entry(id.to_string()).or_default() += n;
            return;
        }
        let Some(add) = e.0.get("add") else { return };
        let into = e.0.get("into").and_then(Value::as_str).map(str::to_string);
        if let Some(target) = &into {
            let n = kept.entry(target.clone()).or_default();
            if *n >= KEEP_MERGED {
                *extra.entry(target.clone()).or_default() += 1;
                return;
            }
            *n += 1;
        }
        let Ok(item) = serde_json::from_value::<Input>(add.clone()) else {
            return tracing::warn!(path = %path.display(), "spool: an item that no longer reads was dropped");
        };
        let i = slots.len();
        // Closing an item closes what was coalesced into it.
        for id in [Some(item.id()), into.as_deref()].into_iter().flatten() {
            by_id.entry(id.to_string()).or_default().push(i);
        }
        slots.push(Some((e, (item, into))));
    })?;
    Ok(Replayed { slots: slots.into_iter().flatten().collect(), extra })
}

/// The items still pending in the spool at `path`, in admission order, without changing the
/// file (what the control room shows while a daemon owns the spool).
pub fn pending(path: &Path) -> io::Result<Vec<Pending>> {
    Ok(replay(path)?.slots.into_iter().map(|(_, p)| p).collect())
}

/// What [`take_over`] did: the items origin carried, now pending here, and how many this
/// machine's spool held that origin did not (dropped).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TakenOver {
    pub carried: usize,
    pub dropped: usize,
}

/// A clone takes the lease over: the spool at `path` becomes what origin carried (`carry`:
/// spool lines, see [`super::carry`]) before attention opens it. What the machine before
/// admitted and acknowledged is decided here; what this machine's spool held besides was
/// either carried too, or never acknowledged to anyone (its channel delivers it again), or is
/// re-read from the hub's files (impulses, the inbox). With `keep_here` (the lease taken over
/// was this clone's own: a restart), what this spool holds is kept too, after the carry — it
/// may hold what a sense that cannot be asked again took in after the last push. Only
/// percepts from outside are taken from origin; a line that does not read as one is skipped
/// and logged. Written atomically.
pub fn take_over(path: &Path, carry: &[u8], keep_here: bool) -> io::Result<TakenOver> {
    let (mut text, mut ids) = read_carry(carry);
    let carried = ids.len();
    let mut dropped = 0;
    if path.exists() {
        match replay(path) {
            Ok(here) => {
                for (e, (item, _)) in here.slots {
                    if ids.contains(item.id()) {
                        continue;
                    }
                    if keep_here && ids.insert(item.id().to_string()) {
                        serde_json::to_writer(&mut text, &e.0).map_err(io::Error::other)?;
                        text.push(b'\n');
                    } else {
                        dropped += 1;
                    }
                }
            }
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "this clone's spool cannot be read; origin's carry replaces it")
            }
        }
    }
    cn_storage::write_atomic(path, &text)?;
    Ok(TakenOver { carried, dropped })
}

/// Origin's carry read line by line (outside bytes: no line may panic, none is trusted): the
/// spool lines of the outside percepts it holds, each id once, and their ids. A line that is
/// not one (not JSON, not an item, an impulse, an inbox item, an `into` that is no string) is
/// skipped and logged.
pub fn read_carry(carry: &[u8]) -> (Vec<u8>, std::collections::HashSet<String>) {
    let mut ids = std::collections::HashSet::new();
    let mut text = Vec::new();
    for (n, line) in carry.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let read = serde_json::from_slice::<serde_json::Map<String, Value>>(line).ok().and_then(|m| {
            let item = serde_json::from_value::<Input>(m.get("add")?.clone()).ok()?;
            let into_ok = m.get("into").is_none_or(Value::is_string);
            // Impulses and the inbox's own percepts come from the hub's files, never from here.
            let outside = matches!(item, Input::Percept(_)) && item.inbox_item().is_none();
            (into_ok && outside).then_some((m, item))
        });
        let Some((m, item)) = read else {
            tracing::warn!(line = n + 1, "origin's carry: a line that is not an item; skipped");
            continue;
        };
        if !ids.insert(item.id().to_string()) {
            continue;
        }
        // A map that was just parsed writes back.
        if serde_json::to_writer(&mut text, &m).is_ok() {
            text.push(b'\n');
        }
    }
    (text, ids)
}

/// Rewrite the spool at `path` with its pending items only (and the counts of coalesced
/// items beyond those kept); what it holds.
fn compact(path: &Path) -> io::Result<Restored> {
    let Replayed { slots, extra } = replay(path)?;
    let mut pending = Vec::new();
    let mut text = Vec::new();
    let mut line = |v: &serde_json::Map<String, Value>| -> io::Result<()> {
        serde_json::to_writer(&mut text, v).map_err(io::Error::other)?;
        text.push(b'\n');
        Ok(())
    };
    for (e, p) in slots {
        line(&e.0)?;
        pending.push(p);
    }
    for (id, n) in &extra {
        let mut m = serde_json::Map::new();
        m.insert("merged".into(), id.as_str().into());
        m.insert("count".into(), (*n).into());
        line(&m)?;
    }
    cn_storage::write_atomic(path, &text)?;
    Ok(Restored { pending, extra })
}

/// An item the spool could not record (a full disk, a read-only file system): it was not
/// admitted, so whoever sent it may send it again.
#[derive(Debug, thiserror::Error)]
#[error("cannot record the item in {}: {error}", path.display())]
pub struct NotSpooled {
    pub path: PathBuf,
    pub error: io::Error,
}

impl Spool {
    /// Record an admitted item (coalesced into `into`, if any); an error when the line was not
    /// written (the file is as it was: `Journal::append` writes a line in one `write`).
    pub fn add(&mut self, item: &Input, into: Option<&str>) -> Result<(), NotSpooled> {
        let mut e = Entry(serde_json::Map::new());
        e.0.insert("add".into(), serde_json::to_value(item).unwrap_or(Value::Null));
        if let Some(i) = into {
            e.0.insert("into".into(), i.into());
        }
        self.write(&e)
    }

    /// Record that an item was closed. A failure is logged: the item comes back after a
    /// restart and is decided again, which is safe (deciding is idempotent on the hub's files).
    pub fn done(&mut self, id: &str) {
        let mut e = Entry(serde_json::Map::new());
        e.0.insert("done".into(), id.into());
        if let Err(err) = self.write(&e) {
            tracing::error!(err = %cn_compute::Chain(&err), item = id, "spool: cannot record a closed item; it returns after a restart");
        }
    }

    fn write(&mut self, e: &Entry) -> Result<(), NotSpooled> {
        if let Err(error) = self.journal.append(e) {
            return Err(NotSpooled { path: self.journal.path().to_path_buf(), error });
        }
        self.appended += 1;
        if self.appended >= COMPACT_EVERY {
            self.appended = 0;
            let path = self.journal.path().to_path_buf();
            // The file is rewritten by rename: reopen it to append to the new one.
            match compact(&path).and_then(|_| Journal::open(path.clone())) {
                Ok(j) => self.journal = j,
                Err(err) => {
                    tracing::error!(path = %path.display(), err = %cn_compute::Chain(&err), "spool: cannot compact; it keeps growing")
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
impl Spool {
    /// A spool whose every append fails as on a full disk (`/dev/full`: ENOSPC).
    pub(crate) fn on_full_disk() -> Spool {
        Spool { journal: Journal::open("/dev/full").unwrap(), appended: 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::percept::Percept;
    use cn_hub::Sense;

    #[test]
    fn a_takeover_s_spool_is_what_origin_carried_and_nonsense_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attention.jsonl");
        let (mut spool, _) = Spool::open(&path).unwrap();
        let both = Input::Percept(Percept::new(Sense::Chat, "here and in origin"));
        let stale = Input::Percept(Percept::new(Sense::Telegram, "never acknowledged"));
        spool.add(&both, None).unwrap();
        spool.add(&stale, None).unwrap();
        drop(spool);
        let mut carry = super::super::carry::Carry::default();
        let new = Input::Percept(Percept::new(Sense::Telegram, "sent to the machine that died"));
        carry.add(&both, None);
        carry.add(&new, None);
        let mut lines = carry.snapshot();
        lines.extend_from_slice(b"{\"add\": {\"kind\": \"nonsense\"}}\nnot json at all\n\n");
        lines.extend_from_slice(&carry.snapshot());
        let kept = std::fs::read(&path).unwrap();
        assert_eq!(take_over(&path, &lines, false).unwrap(), TakenOver { carried: 2, dropped: 1 });
        let (_, restored) = Spool::open(&path).unwrap();
        let ids: Vec<&str> = restored.pending.iter().map(|(i, _)| i.id()).collect();
        assert_eq!(ids, [both.id(), new.id()], "each once, in origin's order");
        // Its own lease again (a restart): what only this spool held is kept, after the carry.
        std::fs::write(&path, &kept).unwrap();
        assert_eq!(take_over(&path, &lines, true).unwrap(), TakenOver { carried: 2, dropped: 0 });
        let (_, restored) = Spool::open(&path).unwrap();
        let ids: Vec<&str> = restored.pending.iter().map(|(i, _)| i.id()).collect();
        assert_eq!(ids, [both.id(), new.id(), stale.id()]);
        // An impulse or an inbox percept in origin's carry is not taken from there.
        let imp = serde_json::json!({"add": {"kind": "impulse", "id": "t1", "source": "task", "summary": "Task due: x", "at": "2026-11-25T00:00:00Z"}});
        let offered = Input::Percept(Percept::new(Sense::Peer, "bob: hi").inbox("i-1", "bob"));
        let inbox = serde_json::json!({ "add": serde_json::to_value(offered).unwrap() });
        let forged = format!("{imp}\n{inbox}\n");
        assert_eq!(take_over(&path, forged.as_bytes(), false).unwrap().carried, 0);
    }

    /// A spool an older cn wrote (a percept's words, ids and inbox item in `data`, no origin;
    /// an impulse's data as JSON) opens typed; a line that no longer reads as an item, or is
    /// no JSON, is dropped with a warning naming the file — never a panic — and the rest kept.
    #[test]
    fn an_older_spool_opens_typed_and_a_line_that_no_longer_reads_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attention.jsonl");
        let lines = [
            r#"{"add": {"kind": "percept", "id": "p-old", "sense": "telegram", "owner": false, "summary": "ada: hi", "at": "2026-11-01T10:00:00Z", "data": {"content": "hi", "channel_id": "5", "message_id": "3", "author_id": "9"}}}"#,
            r#"{"add": {"kind": "percept", "id": "p-bad", "sense": 5, "owner": false, "summary": "x", "at": "2026-11-01T10:00:00Z"}}"#,
            "not json at all",
            r#"{"add": {"kind": "impulse", "id": "schedule-weekly-1", "source": "schedule", "summary": "Scheduled: weekly (reflect)", "due": "2026-11-23T09:00:00Z", "at": "2026-11-23T09:00:01Z", "data": {"name": "weekly", "cron": "0 9 * * 1", "action": "reflect", "scheduled": "2026-11-23T09:00:00Z", "late": false, "cadence": "weekly"}}}"#,
            r#"{"add": {"kind": "percept", "id": "p-inbox", "sense": "peer", "owner": false, "summary": "bob: hi", "at": "2026-11-01T10:00:00Z", "data": {"inbox": "i-1", "from": "bob"}}}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let (_, restored) = Spool::open(&path).unwrap();
        let ids: Vec<&str> = restored.pending.iter().map(|(i, _)| i.id()).collect();
        assert_eq!(ids, ["p-old", "schedule-weekly-1", "p-inbox"]);
        let Input::Percept(chat) = &restored.pending[0].0 else { panic!("not a percept") };
        let origin = chat.origin.as_deref().expect("the loader derives an older line's origin");
        assert_eq!((chat.text.as_deref(), origin.author.label().as_str()), (Some("hi"), "telegram:9"));
        let telegram = cn_hub::AnswerTo::Telegram { chat: "5".into(), message: Some("3".into()) };
        assert_eq!(origin.answer, Some(telegram));
        let Input::Impulse(fired) = &restored.pending[1].0 else { panic!("not an impulse") };
        let fired = fired.fired().expect("a schedule firing");
        assert_eq!((fired.name.as_str(), fired.cadence.as_deref()), ("weekly", Some("weekly")));
        assert_eq!(restored.pending[2].0.inbox_item(), Some("i-1"));
        // Origin's carry of that older inbox percept is not taken over either.
        let carry = format!("{}\n", lines[4]);
        assert_eq!(take_over(&dir.path().join("other.jsonl"), carry.as_bytes(), false).unwrap().carried, 0);
    }

    #[test]
    fn a_running_spool_is_compacted_and_keeps_what_is_pending() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attention.jsonl");
        let (mut spool, restored) = Spool::open(&path).unwrap();
        assert!(restored.pending.is_empty());
        let kept = Input::Percept(Percept::new(Sense::Chat, "kept"));
        spool.add(&kept, None).unwrap();
        for i in 0..COMPACT_EVERY {
            let p = Input::Percept(Percept::new(Sense::Github, format!("p{i}")));
            spool.add(&p, None).unwrap();
            spool.done(p.id());
        }
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines < COMPACT_EVERY, "compacted while running: {lines} lines");
        drop(spool);
        let (_, restored) = Spool::open(&path).unwrap();
        let ids: Vec<&str> = restored.pending.iter().map(|(i, _)| i.id()).collect();
        assert_eq!(ids, [kept.id()]);
    }

    #[test]
    fn a_flood_of_one_key_is_kept_as_the_pool_keeps_it_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attention.jsonl");
        let (mut spool, _) = Spool::open(&path).unwrap();
        let target = Input::Percept(Percept::new(Sense::Github, "issue 7").key("github:acme#7"));
        spool.add(&target, None).unwrap();
        for i in 0..1000 {
            let p = Input::Percept(Percept::new(Sense::Github, format!("comment {i}")).key("github:acme#7"));
            spool.add(&p, Some(target.id())).unwrap();
        }
        drop(spool);
        let (spool, restored) = Spool::open(&path).unwrap();
        assert_eq!(restored.pending.len(), 1 + KEEP_MERGED);
        assert_eq!(restored.extra.get(target.id()), Some(&(1000 - KEEP_MERGED as u64)));
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert_eq!(lines, 1 + KEEP_MERGED + 1, "the file keeps 16 in full and a count");
        drop(spool);
        // Reopened again, the count survives as it is; closing the item closes it all.
        let (mut spool, restored) = Spool::open(&path).unwrap();
        assert_eq!(restored.extra.get(target.id()), Some(&(1000 - KEEP_MERGED as u64)));
        spool.done(target.id());
        drop(spool);
        let (_, restored) = Spool::open(&path).unwrap();
        assert!(restored.pending.is_empty() && restored.extra.is_empty(), "{restored:?}");
    }
}
