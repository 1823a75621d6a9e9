//! The spool: every item admitted to attention, appended to `state/attention.jsonl` before
//! the sense that brought it is answered, so a daemon killed at any point (SIGKILL included)
//! loses no queued item. Lines: `{"add": item}`, `{"add": item, "into": id}` for an item
//! coalesced into another, `{"done": id}` when a decision closed an item or it was shed.
//! Opening the spool re-reads it, keeps what is still pending, and rewrites it compacted.
//!
//! Invariants: one `write` per line (cn_storage::Journal), so a kill leaves at most a torn
//! last line, which is skipped; the compacted file replaces the old one atomically.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use cn_storage::{Entry, Journal};
use serde_json::Value;

use super::Input;

/// An item still pending in the spool, with the id it was coalesced into, if any.
pub type Pending = (Input, Option<String>);

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
    pub fn open(path: &Path) -> io::Result<(Spool, Vec<Pending>)> {
        let pending = compact(path)?;
        Ok((Spool { journal: Journal::open(PathBuf::from(path))?, appended: 0 }, pending))
    }
}

/// Appends between compactions of a running spool: past it, the file is rewritten with the
/// pending items only (as on open), so a daemon that never restarts keeps it small (the soak
/// saw it grow by 0.6 MB a minute under 10 webhooks a second).
pub const COMPACT_EVERY: usize = 20_000;

/// Replay the spool's lines: each pending item with the line that added it.
fn replay(path: &Path) -> io::Result<Vec<(Entry, Pending)>> {
    // Streamed: memory holds the items still pending, never the whole file (reading it whole
    // after a SIGKILL grew the daemon's RSS by the spool's size — the soak).
    // Replay in order: an item re-added after it was closed (deferred) is pending again.
    let mut slots: Vec<Option<(Entry, Pending)>> = Vec::new();
    let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
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
            return;
        }
        let Some(add) = e.0.get("add") else { return };
        let into = e.0.get("into").and_then(Value::as_str).map(str::to_string);
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
    Ok(slots.into_iter().flatten().collect())
}

/// The items still pending in the spool at `path`, in admission order, without changing the
/// file (what the control room shows while a daemon owns the spool).
pub fn pending(path: &Path) -> io::Result<Vec<Pending>> {
    Ok(replay(path)?.into_iter().map(|(_, p)| p).collect())
}

/// Rewrite the spool at `path` with its pending items only; them, in admission order.
fn compact(path: &Path) -> io::Result<Vec<Pending>> {
    let slots = replay(path)?;
    let mut pending = Vec::new();
    let mut text = Vec::new();
    for (e, p) in slots {
        serde_json::to_writer(&mut text, &e.0).map_err(io::Error::other)?;
        text.push(b'\n');
        pending.push(p);
    }
    cn_storage::write_atomic(path, &text)?;
    Ok(pending)
}

impl Spool {
    pub fn add(&mut self, item: &Input, into: Option<&str>) {
        let mut e = Entry(serde_json::Map::new());
        e.0.insert("add".into(), serde_json::to_value(item).unwrap_or(Value::Null));
        if let Some(i) = into {
            e.0.insert("into".into(), i.into());
        }
        self.write(&e);
    }

    pub fn done(&mut self, id: &str) {
        let mut e = Entry(serde_json::Map::new());
        e.0.insert("done".into(), id.into());
        self.write(&e);
    }

    fn write(&mut self, e: &Entry) {
        if let Err(err) = self.journal.append(e) {
            tracing::error!(path = %self.journal.path().display(), %err, "spool: cannot append; this item would not survive a crash");
        }
        self.appended += 1;
        if self.appended >= COMPACT_EVERY {
            self.appended = 0;
            let path = self.journal.path().to_path_buf();
            // The file is rewritten by rename: reopen it to append to the new one.
            match compact(&path).and_then(|_| Journal::open(path.clone())) {
                Ok(j) => self.journal = j,
                Err(err) => tracing::error!(path = %path.display(), %err, "spool: cannot compact; it keeps growing"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::percept::{Percept, SenseKind};

    #[test]
    fn a_running_spool_is_compacted_and_keeps_what_is_pending() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attention.jsonl");
        let (mut spool, pending) = Spool::open(&path).unwrap();
        assert!(pending.is_empty());
        let kept = Input::Percept(Percept::new(SenseKind::Owner, "kept"));
        spool.add(&kept, None);
        for i in 0..COMPACT_EVERY {
            let p = Input::Percept(Percept::new(SenseKind::Github, format!("p{i}")));
            spool.add(&p, None);
            spool.done(p.id());
        }
        let lines = std::fs::read_to_string(&path).unwrap().lines().count();
        assert!(lines < COMPACT_EVERY, "compacted while running: {lines} lines");
        drop(spool);
        let (_, pending) = Spool::open(&path).unwrap();
        let ids: Vec<&str> = pending.iter().map(|(i, _)| i.id()).collect();
        assert_eq!(ids, [kept.id()]);
    }
}
