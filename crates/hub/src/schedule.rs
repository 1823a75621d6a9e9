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
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

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
    /// The parsed cron expression and time zone, or why the entry is unusable.
    pub fn timing(&self) -> Result<(Cron, jiff::tz::TimeZone), EntryError> {
        let cron: Cron = self.cron.parse().map_err(|e| EntryError::Cron { name: self.name.clone(), source: e })?;
        let tz = cron::time_zone(self.tz.as_deref().unwrap_or("UTC"))
            .map_err(|source| EntryError::TimeZone { name: self.name.clone(), source })?;
        Ok((cron, tz))
    }
}

/// A schedule entry that cannot be evaluated.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EntryError {
    #[error("schedule entry `{name}`")]
    Cron { name: String, source: CronError },
    #[error("schedule entry `{name}`")]
    TimeZone { name: String, source: cron::TimeZoneError },
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
}
