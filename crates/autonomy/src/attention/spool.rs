//! The spool: every item admitted to attention, appended to `state/attention.jsonl` before
//! the sense that brought it is answered, so a daemon killed at any point (SIGKILL included)
//! loses no queued item. Lines: `{"add": item}`, `{"add": item, "into": id}` for an item
//! coalesced into another, `{"done": id}` when a decision closed an item or it was shed.
//! Opening the spool re-reads it, keeps what is still pending, and rewrites it compacted.
//!
//! Invariants: one `write` per line (cn_storage::Journal), so a kill leaves at most a torn
//! last line, which is skipped; the compacted file replaces the old one atomically.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use cn_storage::{Entry, Journal};
use serde_json::Value;

use super::Item;

/// An item still pending in the spool, with the id it was coalesced into, if any.
pub type Pending = (Item, Option<String>);

/// The append-only queue file.
#[derive(Debug)]
pub struct Spool {
    journal: Journal,
}

impl Spool {
    /// Open (creating) the spool; returns it and the items still pending, in admission
    /// order, each with the id it was coalesced into, if any.
    pub fn open(path: &Path) -> io::Result<(Spool, Vec<Pending>)> {
        let read = Journal::read(path)?;
        for s in &read.skipped {
            tracing::warn!(path = %path.display(), line = s.line, error = %s.error, "spool: skipped a torn line");
        }
        let done: HashSet<&str> = read.entries.iter().filter_map(|e| e.0.get("done").and_then(Value::as_str)).collect();
        let mut pending = Vec::new();
        let mut text = Vec::new();
        for e in &read.entries {
            let Some(add) = e.0.get("add") else { continue };
            let into = e.0.get("into").and_then(Value::as_str);
            let Ok(item) = serde_json::from_value::<Item>(add.clone()) else {
                tracing::warn!(path = %path.display(), "spool: an item that no longer reads was dropped");
                continue;
            };
            if done.contains(item.id()) || into.is_some_and(|i| done.contains(i)) {
                continue;
            }
            serde_json::to_writer(&mut text, &e.0).map_err(io::Error::other)?;
            text.push(b'\n');
            pending.push((item, into.map(str::to_string)));
        }
        cn_storage::write_atomic(path, &text)?;
        Ok((Spool { journal: Journal::open(PathBuf::from(path))? }, pending))
    }

    pub fn add(&mut self, item: &Item, into: Option<&str>) {
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
    }
}
