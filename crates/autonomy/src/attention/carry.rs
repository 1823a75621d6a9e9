//! The carry: in a leased hub (cn.yaml `origin.lease`), what attention took in from outside
//! that origin's branch does not hold yet — the percepts still pending, and those already
//! made inbox items whose commit has not been made — as the spool's own `{"add": …}` lines.
//!
//! The pusher sends it to origin as `refs/cn/attention` in the same atomic push as the branch
//! and the lease (`cn_lease::CARRY_REF`), and a sense acknowledges a message upstream
//! (the owner endpoint's 202, Telegram's offset, a webhook's answer, an IMAP position) only
//! once a push has carried it ([`super::Attention::replicated`]). A standby that takes over
//! appends origin's carry to its own spool before it starts ([`super::spool::take_in`]), so a
//! message a channel delivered to the machine that died is decided by the one that took
//! over; one that was decided already is found in the hub by its id and not taken again.
//!
//! Invariants: an entry leaves the carry only once it was closed (made an inbox item, shed,
//! or closed with what it was coalesced into) *and* a commit made after that holds the hub's
//! files ([`Carry::committed`] with a [`Carry::mark`] taken before the commit): so any
//! snapshot, taken before the branch's head is read for the same push, covers every percept
//! that head lacks. Impulses and the inbox's own percepts are never carried (the hub's files
//! are their record). It holds no more than the pool does: of the items coalesced into one,
//! [`KEEP_MERGED`] in full, as the spool.

use std::collections::HashMap;

use serde_json::Value;

use super::pool::KEEP_MERGED;
use super::Input;

#[derive(Debug, Default)]
pub struct Carry {
    entries: Vec<Carried>,
    /// Closings counted so far: an entry closed at `n` is dropped by `committed(m)`, `m ≥ n`.
    closings: u64,
    /// Of the items coalesced into one (by id), how many are carried.
    merged: HashMap<String, usize>,
}

#[derive(Debug)]
struct Carried {
    id: String,
    into: Option<String>,
    /// The spool line that added it.
    line: String,
    closed: Option<u64>,
}

impl Carry {
    /// An item attention admitted (coalesced into `into`, if any); not carried when the hub's
    /// files already hold it (an impulse, an inbox item offered again).
    pub fn add(&mut self, item: &Input, into: Option<&str>) {
        if !matches!(item, Input::Percept(_)) || item.inbox_item().is_some() {
            return;
        }
        if let Some(target) = into {
            let n = self.merged.entry(target.to_string()).or_default();
            if *n >= KEEP_MERGED {
                return;
            }
            *n += 1;
        }
        let mut line = serde_json::Map::new();
        line.insert("add".into(), serde_json::to_value(item).unwrap_or(Value::Null));
        if let Some(target) = into {
            line.insert("into".into(), target.into());
        }
        self.entries.push(Carried {
            id: item.id().to_string(),
            into: into.map(str::to_string),
            line: Value::Object(line).to_string(),
            closed: None,
        });
    }

    /// A decision took the item `id` (and what was coalesced into it) into the hub, or the pool
    /// shed it: it leaves the carry once a commit holds the hub's files.
    pub fn close(&mut self, id: &str) {
        self.closings += 1;
        let at = self.closings;
        for e in &mut self.entries {
            if e.closed.is_none() && (e.id == id || e.into.as_deref() == Some(id)) {
                e.closed = Some(at);
            }
        }
        self.merged.remove(id);
    }

    /// Where the closings stand now: pass it to [`Carry::committed`] once a commit made after
    /// this call holds the hub's files.
    pub fn mark(&self) -> u64 {
        self.closings
    }

    /// A commit holds everything closed up to `mark`: those entries leave the carry.
    pub fn committed(&mut self, mark: u64) {
        self.entries.retain(|e| e.closed.is_none_or(|at| at > mark));
    }

    /// The carry as spool lines, in admission order (empty when nothing is carried).
    pub fn snapshot(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for e in &self.entries {
            out.extend_from_slice(e.line.as_bytes());
            out.push(b'\n');
        }
        out
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impulses::{Impulse, ImpulseSource};
    use crate::percept::Percept;
    use cn_hub::Sense;

    fn ids(c: &Carry) -> Vec<String> {
        String::from_utf8(c.snapshot())
            .unwrap()
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                serde_json::from_value::<Input>(v["add"].clone()).unwrap().id().to_string()
            })
            .collect()
    }

    #[test]
    fn an_item_leaves_the_carry_only_after_a_commit_made_after_it_closed() {
        let mut c = Carry::default();
        let a = Input::Percept(Percept::new(Sense::Chat, "a"));
        let b = Input::Percept(Percept::new(Sense::Telegram, "b"));
        c.add(&a, None);
        c.add(&b, None);
        // A commit whose mark was taken before `a` closed does not hold a's inbox item.
        let before = c.mark();
        c.close(a.id());
        c.committed(before);
        assert_eq!(ids(&c), [a.id(), b.id()]);
        let after = c.mark();
        c.committed(after);
        assert_eq!(ids(&c), [b.id()]);
    }

    #[test]
    fn impulses_and_the_inbox_s_own_percepts_are_not_carried_and_a_flood_is_kept_as_the_pool_keeps_it() {
        let mut c = Carry::default();
        let imp = Impulse {
            id: "t1".into(),
            source: ImpulseSource::Task,
            summary: "Task due: x".into(),
            due: None,
            priority: None,
            context: None,
            at: jiff::Timestamp::now(),
            data: None,
        };
        c.add(&Input::Impulse(imp), None);
        let offered = Percept::new(Sense::Peer, "bob: hi").inbox("i-1", "bob");
        c.add(&Input::Percept(offered), None);
        assert!(c.is_empty());
        let target = Input::Percept(Percept::new(Sense::Github, "issue").key("gh#1"));
        c.add(&target, None);
        for i in 0..100 {
            let p = Input::Percept(Percept::new(Sense::Github, format!("comment {i}")).key("gh#1"));
            c.add(&p, Some(target.id()));
        }
        assert_eq!(c.len(), 1 + KEEP_MERGED);
        // Closing the target closes what was coalesced into it.
        c.close(target.id());
        let m = c.mark();
        c.committed(m);
        assert!(c.is_empty());
    }
}
