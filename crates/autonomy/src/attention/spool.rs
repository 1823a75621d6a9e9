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
}

impl Spool {
    /// Open (creating) the spool; returns it and the items still pending, in admission
    /// order, each with the id it was coalesced into, if any.
    pub fn open(path: &Path) -> io::Result<(Spool, Vec<Pending>)> {
        let read = Journal::read(path)?;
        for s in &read.skipped {
            tracing::warn!(path = %path.display(), line = s.line, error = %s.error, "spool: skipped a torn line");
        }
        // Replay in order: an item re-added after it was closed (deferred) is pending again.
        let mut slots: Vec<Option<(&Entry, Pending)>> = Vec::new();
        let mut by_id: HashMap<String, Vec<usize>> = HashMap::new();
        for e in &read.entries {
            if let Some(id) = e.0.get("done").and_then(Value::as_str) {
                for i in by_id.remove(id).unwrap_or_default() {
                    slots[i] = None;
                }
                continue;
            }
            let Some(add) = e.0.get("add") else { continue };
            let into = e.0.get("into").and_then(Value::as_str);
            let Ok(item) = serde_json::from_value::<Input>(add.clone()) else {
                tracing::warn!(path = %path.display(), "spool: an item that no longer reads was dropped");
                continue;
            };
            let i = slots.len();
            // Closing an item closes what was coalesced into it.
            for id in [Some(item.id()), into].into_iter().flatten() {
                by_id.entry(id.to_string()).or_default().push(i);
            }
            slots.push(Some((e, (item.clone(), into.map(str::to_string)))));
        }
        let mut pending = Vec::new();
        let mut text = Vec::new();
        for (e, p) in slots.into_iter().flatten() {
            serde_json::to_writer(&mut text, &e.0).map_err(io::Error::other)?;
            text.push(b'\n');
            pending.push(p);
        }
        cn_storage::write_atomic(path, &text)?;
        Ok((Spool { journal: Journal::open(PathBuf::from(path))? }, pending))
    }

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
    }
}
