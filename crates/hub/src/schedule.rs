//! `state/schedule.json` — recurring work: "Check Y every morning". The document's format
//! (`name`, `cron`, `action`) plus optional `tz` (IANA name, default UTC) and `catch_up`
//! (default true); and `state/schedule-state.json`, when each entry last fired, so a restart
//! knows what it missed. When an entry fires is autonomy's (`cn_autonomy::impulses::schedule`);
//! the files and their changes are here, so the routine's tools, `cn schedule` and the daemon
//! share one writer.
//!
//! Invariants: a change is read–change–write under the list's lock (`JsonList::change`), so
//! two processes adding at once lose nothing; names are unique (they key the fire state).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cron::{self, Cron, CronError};
use crate::tasks::{JsonList, StateError};

/// One recurring entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduleEntry {
    pub name: String,
    pub cron: String,
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tz: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catch_up: Option<bool>,
    /// A person's recurring reminder: where to tell them at each firing (the channel they
    /// asked on, or the owner's reminder channel). Such an entry is never the agent's work —
    /// each firing files a one-off reminder task ([`crate::tasks::Tasks::file_firing`]) that is
    /// told there and answered "done" or "snooze" like any other. Absent: the firing is the
    /// agent's impulse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remind: Option<crate::origin::AnswerTo>,
    /// The last moment it may fire ("every 15 minutes for an hour"); absent, it repeats for
    /// good. A time after it never fires.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Timestamp>,
    /// "every other Wednesday", "every 3 days": only every `n`th day or week its cron fires in
    /// is kept; absent, every one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stride: Option<Stride>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An entry kept every `n`th day or week, counted from the one `from` falls in (its first
/// firing's day, in the entry's time zone): `n` 2 by weeks with `0 20 * * 3` is every other
/// Wednesday at 20:00.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stride {
    pub n: u16,
    pub unit: StrideUnit,
    pub from: jiff::civil::Date,
}

/// What a [`Stride`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StrideUnit {
    Day,
    Week,
}

impl Stride {
    /// Whether a firing on `day` is kept: `day` is `from`'s, or a whole number of strides after
    /// it (never before it).
    pub fn keeps(&self, day: jiff::civil::Date) -> bool {
        let monday = |d: jiff::civil::Date| {
            d.checked_sub(jiff::Span::new().days(i64::from(d.weekday().to_monday_zero_offset()))).unwrap_or(d)
        };
        let (from, day, per) = match self.unit {
            StrideUnit::Day => (self.from, day, 1),
            StrideUnit::Week => (monday(self.from), monday(day), 7),
        };
        let Ok(apart) = from.until(day) else { return false };
        let days = apart.get_days();
        days >= 0 && (days / per) % i32::from(self.n.max(1)) == 0
    }
}

/// "every other week from 2026-12-02", "every 3 days from 2026-11-26".
impl std::fmt::Display for Stride {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let unit = match self.unit {
            StrideUnit::Day => "day",
            StrideUnit::Week => "week",
        };
        match self.n {
            2 => write!(f, "every other {unit} from {}", self.from),
            n => write!(f, "every {n} {unit}s from {}", self.from),
        }
    }
}

/// How many of a cron's times a stride may pass over looking for one it keeps: a stride of up
/// to 366 days, or of up to 52 weeks on up to 7 days of each (364), with margin.
const STRIDE_STEPS: usize = 800;

impl ScheduleEntry {
    /// Where to tell a person at each firing, when the entry is their reminder (a channel
    /// that can be answered on, as [`crate::tasks::Task::reminds`]).
    pub fn reminds(&self) -> Option<&crate::origin::AnswerTo> {
        self.remind.as_ref().filter(|a| a.can_tell())
    }
    /// Whether `at` is past the entry's end.
    pub fn ended(&self, at: Timestamp) -> bool {
        self.until.is_some_and(|u| at > u)
    }
    pub fn catch_up(&self) -> bool {
        self.catch_up.unwrap_or(true)
    }
    /// The parsed cron expression and time zone, or why the entry is unusable (a stride goes
    /// only with a cron that fires at one time of day: "every other day at 9", not "every
    /// other hour").
    pub fn timing(&self) -> Result<(Cron, jiff::tz::TimeZone), EntryError> {
        let cron: Cron = self.cron.parse().map_err(|e| EntryError::Cron { name: self.name.clone(), source: e })?;
        let tz = cron::time_zone(self.tz.as_deref().unwrap_or("UTC"))
            .map_err(|source| EntryError::TimeZone { name: self.name.clone(), source })?;
        if let Some(s) = &self.stride {
            let once_a_day = self.cron.split_whitespace().take(2).all(|f| f.parse::<u8>().is_ok());
            let most = match s.unit {
                StrideUnit::Day => 366,
                StrideUnit::Week => 52,
            };
            if !once_a_day || s.n == 0 || s.n > most {
                return Err(EntryError::Stride { name: self.name.clone(), cron: self.cron.clone(), n: s.n });
            }
        }
        Ok((cron, tz))
    }

    /// Whether a firing at `at` (in the entry's zone `tz`) is one it keeps: not past its end,
    /// and on its stride.
    pub fn keeps(&self, at: &jiff::Zoned) -> bool {
        !self.ended(at.timestamp()) && self.stride.is_none_or(|s| s.keeps(at.date()))
    }

    /// Its next firing strictly after `after`, or `None` when it fires no more.
    pub fn next_firing(&self, after: Timestamp) -> Result<Option<jiff::Zoned>, EntryError> {
        let (cron, tz) = self.timing()?;
        let mut t = after;
        for _ in 0..STRIDE_STEPS {
            let z = cron.next_after(t, &tz).map_err(|source| EntryError::Cron { name: self.name.clone(), source })?;
            if self.ended(z.timestamp()) {
                return Ok(None);
            }
            if self.keeps(&z) {
                return Ok(Some(z));
            }
            t = z.timestamp();
        }
        Ok(None)
    }

    /// Its latest firing in `(after, upto]` that it keeps (what a check missed), if any.
    pub fn last_firing_between(&self, after: Timestamp, upto: Timestamp) -> Result<Option<jiff::Zoned>, EntryError> {
        let (cron, tz) = self.timing()?;
        let upto = self.until.map_or(upto, |u| u.min(upto));
        let mut end = upto;
        for _ in 0..STRIDE_STEPS {
            if end <= after {
                return Ok(None);
            }
            let Some(z) = cron
                .last_between(after, end, &tz)
                .map_err(|source| EntryError::Cron { name: self.name.clone(), source })?
            else {
                return Ok(None);
            };
            if self.keeps(&z) {
                return Ok(Some(z));
            }
            // Before that one: a nanosecond earlier.
            end = match z.timestamp().checked_sub(jiff::SignedDuration::from_nanos(1)) {
                Ok(t) => t,
                Err(_) => return Ok(None),
            };
        }
        Ok(None)
    }
}

/// A schedule entry that cannot be evaluated.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EntryError {
    #[error("schedule entry `{name}`")]
    Cron { name: String, source: CronError },
    #[error("schedule entry `{name}`")]
    TimeZone { name: String, source: cron::TimeZoneError },
    #[error("schedule entry `{name}`: a stride of {n} goes only with a cron that fires once a day at a set time, not `{cron}`")]
    Stride { name: String, cron: String, n: u16 },
}

/// What each entry last did, by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScheduleState(pub BTreeMap<String, EntryState>);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryState {
    /// The scheduled time most recently handled (fired or skipped).
    pub last_fired: Timestamp,
}

/// A schedule entry's name already in use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a schedule entry named `{name}` already exists in {}", path.display())]
pub struct NameTaken {
    pub name: String,
    pub path: PathBuf,
}

/// The schedule files of a hub.
#[derive(Debug, Clone)]
pub struct Schedule {
    entries: JsonList<ScheduleEntry>,
    state_path: PathBuf,
}

impl Schedule {
    pub fn of_hub(hub: &Path) -> Self {
        Schedule::in_layout(&crate::Layout::new(hub))
    }
    pub fn in_layout(layout: &crate::Layout) -> Self {
        Schedule { entries: JsonList::at(layout.schedule()), state_path: layout.schedule_state() }
    }
    pub fn path(&self) -> &Path {
        self.entries.path()
    }
    /// `schedule-state.json`: when each entry last fired.
    pub fn state_path(&self) -> &Path {
        &self.state_path
    }
    pub fn load(&self) -> Result<Vec<ScheduleEntry>, StateError> {
        self.entries.load()
    }
    pub fn load_state(&self) -> Result<ScheduleState, StateError> {
        crate::tasks::read(&self.state_path)
    }
    pub fn save_state(&self, s: &ScheduleState) -> Result<(), StateError> {
        crate::tasks::write(&self.state_path, s)
    }
    /// Remove the entry `name`; false when there is none.
    pub fn remove(&self, name: &str) -> Result<bool, StateError> {
        Ok(self.remove_entry(name)?.is_some())
    }

    /// Remove the entry `name` and return it; `None` (nothing written) when there is none.
    pub fn remove_entry(&self, name: &str) -> Result<Option<ScheduleEntry>, StateError> {
        self.entries.change(|all| match all.iter().position(|e| e.name == name) {
            Some(i) => (Some(all.remove(i)), true),
            None => (None, false),
        })
    }

    /// Add an entry; the name must be new (names key the fire state). The outer error is
    /// the file's, the inner one the caller's (a name taken).
    pub fn add(&self, entry: ScheduleEntry) -> Result<Result<ScheduleEntry, NameTaken>, StateError> {
        let path = self.path().to_path_buf();
        self.entries.change(|all| {
            if all.iter().any(|e| e.name == entry.name) {
                return (Err(NameTaken { name: entry.name, path }), false);
            }
            all.push(entry.clone());
            (Ok(entry), true)
        })
    }

    /// Add an entry under its name, or the first of `NAME-2`, `NAME-3` … still free (a
    /// person saying "every Monday water the plants" twice means two entries, not an error).
    pub fn add_unique(&self, mut entry: ScheduleEntry) -> Result<ScheduleEntry, StateError> {
        self.entries.change(|all| {
            let base = entry.name.clone();
            let mut n = 1;
            while all.iter().any(|e| e.name == entry.name) {
                n += 1;
                entry.name = format!("{base}-{n}");
            }
            all.push(entry.clone());
            (entry, true)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> ScheduleEntry {
        ScheduleEntry {
            name: name.into(),
            cron: "0 9 * * 1".into(),
            action: "water the plants".into(),
            tz: Some("Europe/Paris".into()),
            catch_up: None,
            remind: None,
            until: None,
            stride: None,
            extra: Map::new(),
        }
    }

    #[test]
    fn names_stay_unique_and_removal_returns_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let s = Schedule::of_hub(dir.path());
        assert!(s.add(entry("plants")).unwrap().is_ok());
        assert!(s.add(entry("plants")).unwrap().is_err(), "a taken name is the caller's error");
        assert_eq!(s.add_unique(entry("plants")).unwrap().name, "plants-2");
        assert_eq!(s.add_unique(entry("plants")).unwrap().name, "plants-3");
        assert_eq!(s.remove_entry("plants-2").unwrap().map(|e| e.name).as_deref(), Some("plants-2"));
        assert!(!s.remove("plants-2").unwrap());
        let names: Vec<String> = s.load().unwrap().into_iter().map(|e| e.name).collect();
        assert_eq!(names, ["plants", "plants-3"]);
        let (cron, tz) = s.load().unwrap()[0].timing().unwrap();
        assert_eq!((cron.as_str(), tz.iana_name()), ("0 9 * * 1", Some("Europe/Paris")));
    }

    fn ts(s: &str) -> Timestamp {
        s.parse().unwrap()
    }

    /// "every other Wednesday at 20:00" from 2 Dec 2026: 2, 16, 30 Dec fire; 9 and 23 Dec do not,
    /// nor any Wednesday before the first.
    #[test]
    fn a_stride_keeps_every_other_week_from_its_first() {
        let mut e = entry("recycling");
        e.cron = "0 20 * * 3".into();
        e.tz = Some("UTC".into());
        e.stride = Some(Stride { n: 2, unit: StrideUnit::Week, from: "2026-12-02".parse().unwrap() });
        let next =
            |e: &ScheduleEntry, after: &str| e.next_firing(ts(after)).unwrap().map(|z| z.timestamp().to_string());
        assert_eq!(next(&e, "2026-11-20T00:00:00Z").as_deref(), Some("2026-12-02T20:00:00Z"));
        assert_eq!(next(&e, "2026-12-02T20:00:00Z").as_deref(), Some("2026-12-16T20:00:00Z"));
        assert_eq!(next(&e, "2026-12-17T00:00:00Z").as_deref(), Some("2026-12-30T20:00:00Z"));
        // A check after 9 Dec finds the 2nd, never the 9th it passes over.
        let last = e.last_firing_between(ts("2026-12-01T00:00:00Z"), ts("2026-12-10T00:00:00Z")).unwrap();
        assert_eq!(last.map(|z| z.timestamp().to_string()).as_deref(), Some("2026-12-02T20:00:00Z"));
        assert_eq!(e.last_firing_between(ts("2026-12-03T00:00:00Z"), ts("2026-12-15T00:00:00Z")).unwrap(), None);
        // With an end: none after it.
        e.until = Some(ts("2026-12-20T00:00:00Z"));
        assert_eq!(next(&e, "2026-12-17T00:00:00Z"), None);
        // Kept in the file as written, read back the same.
        let json = serde_json::to_string(&e).unwrap();
        assert!(json.contains(r#""stride":{"n":2,"unit":"week","from":"2026-12-02"}"#), "{json}");
        assert_eq!(serde_json::from_str::<ScheduleEntry>(&json).unwrap(), e);
    }

    #[test]
    fn a_stride_of_days_and_what_it_cannot_go_with() {
        let mut e = entry("litter");
        e.cron = "0 19 * * *".into();
        e.tz = Some("UTC".into());
        e.stride = Some(Stride { n: 3, unit: StrideUnit::Day, from: "2026-11-26".parse().unwrap() });
        let days: Vec<String> = std::iter::successors(Some(ts("2026-11-26T00:00:00Z")), |t| {
            e.next_firing(*t).unwrap().map(|z| z.timestamp())
        })
        .skip(1)
        .take(3)
        .map(|t| t.to_string())
        .collect();
        assert_eq!(days, ["2026-11-26T19:00:00Z", "2026-11-29T19:00:00Z", "2026-12-02T19:00:00Z"]);
        // Every few minutes has no day to count: a clear error naming the entry.
        e.cron = "*/5 * * * *".into();
        let err = e.timing().unwrap_err().to_string();
        assert!(err.contains("litter") && err.contains("*/5 * * * *"), "{err}");
        // A stride of none is refused too, never a division by zero; and one longer than a
        // year.
        e.cron = "0 19 * * *".into();
        e.stride = Some(Stride { n: 0, unit: StrideUnit::Day, from: "2026-11-26".parse().unwrap() });
        assert!(e.timing().is_err());
        e.stride = Some(Stride { n: 53, unit: StrideUnit::Week, from: "2026-11-26".parse().unwrap() });
        assert!(e.timing().is_err());
    }
}
