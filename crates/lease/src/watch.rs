//! A standby's watch over origin's lease: whether it may take it, by its own clock.

use std::time::Duration;

use crate::*;

/// A standby's view of the lease over time: whether it may take it, by its own clock.
#[derive(Debug, Default)]
pub struct Watch {
    /// The lease commit last seen, and when (boot clock, ms) it was first seen.
    last: Option<(String, u64)>,
    /// The latest term of a lease a clone wrote that this watch has seen: a lease of an
    /// earlier term is one pushed back by someone (a replay), never "released".
    term: u64,
}

/// What a standby may do about the lease it sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Take it (why).
    Free(String),
    /// Held: look again; it expires at the earliest after `left`.
    Held { holder: String, left: Duration },
    /// Never take it from here (why): the holder uses another id key.
    Refuse(String),
}

impl Watch {
    /// The verdict on `seen` for this clone (`me`), with `ttl` the configured lease time (the
    /// record's, when longer, wins). `local` is this clone's own hold file, if any.
    pub fn verdict(&mut self, seen: &Seen, me: &Me, ttl: Duration, local: Option<&Held>) -> Verdict {
        self.verdict_at(seen, me, ttl, local, boot_ms())
    }

    /// [`Watch::verdict`] at `now` (boot clock, ms).
    pub(crate) fn verdict_at(
        &mut self,
        seen: &Seen,
        me: &Me,
        ttl: Duration,
        local: Option<&Held>,
        now: u64,
    ) -> Verdict {
        let Some(lease) = &seen.lease else {
            self.last = None;
            return Verdict::Free("origin holds no lease yet".into());
        };
        let record = lease.record.as_ref();
        // The key a lease names is a field anyone who may push to origin writes: only one a
        // clone of this hub wrote (its MAC) is believed. One no clone wrote that names another
        // key is timed like any other (issue 42's own red team: believed, it kept every
        // standby from ever taking the lease of a dead holder).
        if let Some(r) = record.filter(|_| lease.authentic) {
            if !r.key.is_empty() && r.key != me.key {
                return Verdict::Refuse(format!(
                    "the holder ({}) uses another id key (fingerprint {}; this clone's is {}): copy .git/cn-id-key from a machine that ran the hub, or — if none is left — delete origin's lease (`git push origin :{LEASE_REF}`) to start afresh",
                    cn_process::redact::printable_line(&r.label), r.key, me.key
                ));
            }
        }
        // Only a lease a clone of this hub wrote (its MAC), of no earlier term than one seen
        // before (an older lease pushed back is a replay), may say it was handed back, be this
        // clone's own, or last longer than cn.yaml's `origin.lease`.
        let seen_term = self.term.max(local.map_or(0, |h| h.term));
        let replayed = record.is_some_and(|r| lease.authentic && r.term < seen_term);
        if let Some(r) = record.filter(|_| lease.authentic && !replayed) {
            self.term = self.term.max(r.term);
        }
        let trusted = record.filter(|_| lease.authentic && !replayed);
        if let Some(r) = trusted {
            if r.released {
                self.last = None;
                return Verdict::Free(format!("{} released it (term {})", r.label, r.term));
            }
            // This clone's own earlier run on this machine since its boot (this process holds
            // the run lock: it is gone) — its hold file names the same run and boot. A copy of
            // the hub's directory on another machine carries the clone id too: that one is
            // timed like anyone else's.
            let own = local.is_some_and(|h| h.instance == r.instance && h.boot_id == boot_id());
            if r.holder == me.clone_id && own {
                // Wait out what a child of it might still have decided.
                let left = local.and_then(Held::remaining);
                return match left {
                    Some(left) => Verdict::Held { holder: r.label.clone(), left },
                    None => Verdict::Free(format!("it was this clone's own (term {}), whose daemon is gone", r.term)),
                };
            }
        }
        let ttl = trusted.map_or(ttl, |r| r.ttl.max(ttl));
        let holder = match (record, lease.authentic) {
            (Some(r), true) if replayed => format!(
                "a lease of term {} pushed back after term {seen_term} was seen (a replay: not trusted, timed by this clone's {ttl:?})",
                r.term
            ),
            (Some(r), true) => format!("{} (term {})", r.label, r.term),
            (Some(r), false) => format!(
                "a lease no clone of this hub wrote (its MAC does not verify with the hub's id key: forged, written by a cn before the MAC, or by a clone with another id key), naming {} (term {}{}, ttl {:?}{} — not trusted: timed by this clone's {ttl:?})",
                cn_process::redact::printable_line(&r.label),
                r.term,
                if r.released { ", \"released\"" } else { "" },
                r.ttl,
                if !r.key.is_empty() && r.key != me.key {
                    format!(", id key fingerprint {} where this clone's is {}", cn_process::redact::printable_line(&r.key), me.key)
                } else {
                    String::new()
                }
            ),
            (None, _) => "an unreadable lease".to_string(),
        };
        match &self.last {
            Some((sha, since)) if *sha == lease.sha => {
                let ends = since.saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX));
                if now >= ends {
                    Verdict::Free(format!("{holder} did not renew it for {ttl:?}"))
                } else {
                    Verdict::Held { holder, left: Duration::from_millis(ends - now) }
                }
            }
            _ => {
                self.last = Some((lease.sha.clone(), now));
                Verdict::Held { holder, left: ttl }
            }
        }
    }
}
