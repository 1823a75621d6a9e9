//! `state/schedule.json` — recurring work: "Check Y every morning". The format and its files
//! are the hub's (`cn_hub::schedule`, shared with the routine's tools and `cn schedule`);
//! this module decides when each entry fires.
//!
//! Invariant: an entry fires at most once per check, however many of its times were missed;
//! a time missed while the daemon was down fires once at start (`catch_up: true`) or is
//! skipped (`catch_up: false`) — either way it is recorded, so it never fires twice.

use jiff::Timestamp;

pub use cn_hub::schedule::{EntryError, EntryState, NameTaken, Schedule, ScheduleEntry, ScheduleState};

/// What a check found for one entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Firing {
    /// The entry is due: `at` is the scheduled time (the latest one, if several were missed);
    /// `late` when it was missed while the daemon was down.
    Fire { entry: ScheduleEntry, at: Timestamp, late: bool },
    /// Missed while down with `catch_up: false`: recorded, not fired.
    Skip { entry: ScheduleEntry, at: Timestamp },
}

/// Which entries fire at `now`. `started` is when this daemon started: a scheduled time
/// before it was missed while down. Entries never seen before start counting from `now`.
/// Updates `fired` for every entry it fires, skips or first sees; returns the firings, plus
/// the entries whose cron or time zone is unusable.
pub fn check(
    entries: &[ScheduleEntry],
    fired: &mut ScheduleState,
    now: Timestamp,
    started: Timestamp,
) -> (Vec<Firing>, Vec<EntryError>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for entry in entries {
        if let Err(e) = entry.timing() {
            errors.push(e);
            continue;
        }
        let Some(last) = fired.0.get(&entry.name).map(|s| s.last_fired) else {
            fired.0.insert(entry.name.clone(), EntryState { last_fired: now });
            continue;
        };
        // An entry that ends fires for none of its times after the end; one kept every
        // other day or week, for none it passes over.
        let at = match entry.last_firing_between(last, now) {
            Ok(Some(z)) => z.timestamp(),
            Ok(None) => continue,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        fired.0.insert(entry.name.clone(), EntryState { last_fired: at });
        let late = at < started;
        out.push(if late && !entry.catch_up() {
            Firing::Skip { entry: entry.clone(), at }
        } else {
            Firing::Fire { entry: entry.clone(), at, late }
        });
    }
    (out, errors)
}

/// The earliest next fire time over all usable entries (to wake the daemon for it).
pub fn next_fire(entries: &[ScheduleEntry], after: Timestamp) -> Option<Timestamp> {
    entries.iter().filter_map(|e| e.next_firing(after).ok().flatten().map(|z| z.timestamp())).min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn entry(name: &str, cron: &str, catch_up: Option<bool>) -> ScheduleEntry {
        ScheduleEntry {
            name: name.into(),
            cron: cron.into(),
            action: "do it".into(),
            tz: None,
            catch_up,
            remind: None,
            until: None,
            stride: None,
            extra: Map::new(),
        }
    }
    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    /// "every other Wednesday": a check on the week it passes over fires nothing, and the
    /// daemon's wake-up skips to the week it keeps.
    #[test]
    fn an_every_other_week_entry_fires_on_its_weeks_only() {
        let mut e = entry("recycling", "0 20 * * 3", None);
        e.stride = Some(cn_hub::schedule::Stride {
            n: 2,
            unit: cn_hub::schedule::StrideUnit::Week,
            from: "2026-12-02".parse().unwrap(),
        });
        let entries = [e];
        let mut fired = ScheduleState::default();
        let start = ts("2026-12-01T00:00:00Z");
        assert!(check(&entries, &mut fired, start, start).0.is_empty());
        let (f, _) = check(&entries, &mut fired, ts("2026-12-02T20:00:10Z"), start);
        assert!(matches!(&f[..], [Firing::Fire { at, late: false, .. }] if *at == ts("2026-12-02T20:00:00Z")), "{f:?}");
        assert_eq!(next_fire(&entries, ts("2026-12-02T20:00:10Z")), Some(ts("2026-12-16T20:00:00Z")));
        let (f, _) = check(&entries, &mut fired, ts("2026-12-09T20:00:10Z"), start);
        assert!(f.is_empty(), "the 9th is passed over: {f:?}");
        let (f, _) = check(&entries, &mut fired, ts("2026-12-16T20:00:10Z"), start);
        assert!(matches!(&f[..], [Firing::Fire { at, .. }] if *at == ts("2026-12-16T20:00:00Z")), "{f:?}");
    }

    #[test]
    fn missed_while_down_fires_once_or_is_skipped_per_entry() {
        let entries = [entry("catch", "0 9 * * *", None), entry("skip", "0 9 * * *", Some(false))];
        let mut fired = ScheduleState::default();
        // First sight: baseline only.
        let (f, e) = check(&entries, &mut fired, ts("2026-01-01T10:00:00Z"), ts("2026-01-01T10:00:00Z"));
        assert!(f.is_empty() && e.is_empty());
        // Down for three days; restart at 2026-01-04T12:00.
        let start = ts("2026-01-04T12:00:00Z");
        let (f, _) = check(&entries, &mut fired, start, start);
        assert_eq!(f.len(), 2);
        assert!(matches!(&f[0], Firing::Fire { at, late: true, .. } if *at == ts("2026-01-04T09:00:00Z")));
        assert!(matches!(&f[1], Firing::Skip { at, .. } if *at == ts("2026-01-04T09:00:00Z")));
        // Nothing again until the next 09:00, then both fire on time.
        let (f, _) = check(&entries, &mut fired, ts("2026-01-05T08:59:00Z"), start);
        assert!(f.is_empty());
        let (f, _) = check(&entries, &mut fired, ts("2026-01-05T09:00:30Z"), start);
        assert!(f.iter().all(|x| matches!(x, Firing::Fire { late: false, .. })) && f.len() == 2, "{f:?}");
    }

    #[test]
    fn bad_entries_are_reported_and_others_still_fire() {
        let mut bad = entry("bad", "0 25 * * *", None);
        bad.tz = Some("Mars/Olympus".into());
        let entries = [bad, entry("ok", "* * * * *", None)];
        let mut fired = ScheduleState::default();
        check(&entries, &mut fired, ts("2026-01-01T10:00:00Z"), ts("2026-01-01T10:00:00Z"));
        let (f, e) = check(&entries, &mut fired, ts("2026-01-01T10:01:00Z"), ts("2026-01-01T10:00:00Z"));
        assert_eq!(f.len(), 1);
        // What the entry is and what is wrong with it, each said once (the chain, as reported).
        let shown = cn_compute::chain(&e[0]);
        assert!(shown.starts_with("schedule entry `bad`: ") && shown.matches("hour").count() == 1, "{shown}");
    }

    /// "every 15 minutes for an hour": the entry fires up to its end and never after it, and
    /// the daemon is not woken for it once it has ended.
    #[test]
    fn an_entry_that_ends_fires_until_then_and_never_after() {
        let mut e = entry("water", "*/15 * * * *", None);
        e.until = Some(ts("2026-01-01T11:00:00Z"));
        let entries = [e];
        let mut fired = ScheduleState::default();
        check(&entries, &mut fired, ts("2026-01-01T10:00:00Z"), ts("2026-01-01T10:00:00Z"));
        let (f, _) = check(&entries, &mut fired, ts("2026-01-01T11:00:10Z"), ts("2026-01-01T10:00:00Z"));
        assert!(matches!(&f[..], [Firing::Fire { at, .. }] if *at == ts("2026-01-01T11:00:00Z")), "{f:?}");
        let (f, _) = check(&entries, &mut fired, ts("2026-01-01T11:15:10Z"), ts("2026-01-01T10:00:00Z"));
        assert!(f.is_empty(), "fired after its end: {f:?}");
        let (f, _) = check(&entries, &mut fired, ts("2026-01-02T09:00:00Z"), ts("2026-01-01T10:00:00Z"));
        assert!(f.is_empty(), "fired after its end: {f:?}");
        assert_eq!(next_fire(&entries, ts("2026-01-01T10:50:00Z")), Some(ts("2026-01-01T11:00:00Z")));
        assert_eq!(next_fire(&entries, ts("2026-01-01T11:00:00Z")), None);
    }
}
