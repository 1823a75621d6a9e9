//! What the agent's queue tests share: items put straight into a hub's inbox, taken and
//! decided through cn-agent's API as `cn input` and `cn out` call it, and the hub's files read
//! back (snapshots, front matter, the journal).
#![allow(dead_code)]

use std::path::Path;

use cn_agent::{AgentError, DecideAs, Decided, Item};

pub use cn_testkit::hub::{changed, journal, put_item, snapshot};

use crate::support::open;

/// `cn input`: the current item, or the next taken; `None` when the queue is empty (the
/// command's exit 3).
pub fn input(hub: &Path) -> Option<Item> {
    cn_agent::take_next(&open(hub)).unwrap_or_else(|e| panic!("input: {}", cn_compute::chain(&e)))
}

/// `cn out WORDS`, as the command parses and decides them: the error it stopped on.
pub fn try_out(hub: &Path, words: &[&str]) -> Result<Decided, AgentError> {
    let parsed = cn_agent::parse_out(words).unwrap_or_else(|e| panic!("cn out {words:?}: {e:?}"));
    assert!(!parsed.dry_run, "a dry run is the binary's");
    cn_agent::decide(&open(hub), &parsed.gtd, &DecideAs::agent())
}

/// `cn out WORDS`, which must succeed: what became of the item.
pub fn out(hub: &Path, words: &[&str]) -> Decided {
    try_out(hub, words).unwrap_or_else(|e| panic!("cn out {words:?}: {}", cn_compute::chain(&e)))
}

/// Frontmatter field `key` of a markdown file.
pub fn front(path: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let doc = cn_storage::Doc::parse(&text).ok()?;
    doc.get_str(key).map(str::to_string)
}

/// `cn sync`, which must succeed (exit 0): its report, which then says no error.
pub fn synced(hub: &Path) -> cn_agent::SyncReport {
    let r = crate::support::sync(hub);
    assert!(r.errors.is_empty(), "cn sync would exit 1: {r:?}");
    r
}
