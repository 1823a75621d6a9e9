//! Reflex analytics: per reflex, how often it fired, succeeded, failed and escalated, and its
//! latency (median of the recent runs, and the last) — persisted in `state/reflex-stats.json`
//! and shown by `cn reflex list`.
//!
//! A reflex whose failure rate since it was last enabled exceeds `reflexes.disable_above`
//! (after `reflexes.min_samples` runs) is disabled: recorded here with the file's mtime,
//! journaled, and surfaced to the owner as `state/mca/<ts>-reflex-<name>-disabled.md`.
//! Editing the file (a new mtime) re-enables it with a fresh window.
//!
//! Writes are atomic and debounced (at most one a second, plus every disable and
//! [`Stats::flush`]) so a level-0 reply does not wait on fsync; the journal holds every run
//! anyway, so a crash loses at most a second of counts, never a decision.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

use crate::config::ReflexConfig;

/// How many recent latencies the median is taken over.
const RECENT: usize = 64;
const DEBOUNCE: Duration = Duration::from_secs(1);

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReflexStats {
    pub fired: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// Runs that handed the item to the executive (failures included).
    pub escalated: u64,
    pub latency_ms_p50: f64,
    pub latency_ms_last: f64,
    pub last_fired: Option<String>,
    pub recent_ms: Vec<f64>,
    /// Runs and failures since the reflex was last (re-)enabled: what the rate is judged on.
    pub window_fired: u64,
    pub window_failed: u64,
    pub disabled: Option<Disabled>,
    /// Shadow runs compared with the decision their item then got, and how many agreed.
    pub compared: u64,
    pub agreed: u64,
    /// Hashes of the distinct messages it agreed on since it last changed mode or last
    /// disagreed: what promotion counts (so one message sent ten times counts once).
    pub agreed_on: Vec<u64>,
    /// Live runs since a promoted learned reflex was last checked against the executive.
    pub since_check: u64,
    /// Why promotion by agreement was refused (an action only the owner may grant).
    pub promotion_refused: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Disabled {
    pub at: String,
    pub reason: String,
    /// The file's mtime (ms since the epoch) when disabled; a different one re-enables.
    pub file_mtime_ms: Option<u64>,
}

/// How one run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunOutcome {
    Ok,
    Escalated,
    Failed,
}

#[derive(Debug)]
pub struct Stats {
    path: PathBuf,
    pub map: BTreeMap<String, ReflexStats>,
    dirty: bool,
    last_write: Option<Instant>,
}

impl Stats {
    /// Read `state/reflex-stats.json`; a missing file is empty, a malformed one is reported
    /// and kept aside (never overwritten silently: it is renamed `.bad`).
    pub fn open(path: PathBuf) -> Stats {
        let map = match cn_storage::read_json_or_default(&path) {
            Ok(m) => m,
            Err(err) => {
                tracing::error!(err = %cn_compute::Chain(&err), "reflex stats unreadable; starting afresh and keeping the old file as .bad");
                let _ = std::fs::rename(&path, path.with_extension("json.bad"));
                BTreeMap::new()
            }
        };
        Stats { path, map, dirty: false, last_write: None }
    }

    pub fn get(&self, name: &str) -> Option<&ReflexStats> {
        self.map.get(name)
    }

    pub fn disabled(&self) -> BTreeSet<String> {
        self.map.iter().filter(|(_, s)| s.disabled.is_some()).map(|(n, _)| n.clone()).collect()
    }

    /// Count one run; returns the reason when this run disabled the reflex.
    pub fn record(
        &mut self,
        name: &str,
        outcome: RunOutcome,
        latency: Duration,
        config: &ReflexConfig,
        file: &Path,
    ) -> Option<String> {
        let s = self.map.entry(name.to_string()).or_default();
        let ms = latency.as_secs_f64() * 1000.0;
        s.fired += 1;
        s.window_fired += 1;
        match outcome {
            RunOutcome::Ok => s.succeeded += 1,
            RunOutcome::Escalated => s.escalated += 1,
            RunOutcome::Failed => {
                s.failed += 1;
                s.escalated += 1;
                s.window_failed += 1;
            }
        }
        s.latency_ms_last = ms;
        s.recent_ms.push(ms);
        if s.recent_ms.len() > RECENT {
            s.recent_ms.remove(0);
        }
        s.latency_ms_p50 = median(&s.recent_ms);
        s.last_fired = Some(cn_storage::now_rfc3339());
        self.dirty = true;
        let rate = s.window_failed as f64 / s.window_fired as f64;
        if s.disabled.is_none() && s.window_fired >= config.min_samples.max(1) && rate > config.disable_above {
            let reason = format!(
                "failed {} of its last {} runs ({:.0}%, above the limit of {:.0}%)",
                s.window_failed,
                s.window_fired,
                rate * 100.0,
                config.disable_above * 100.0
            );
            s.disabled =
                Some(Disabled { at: cn_storage::now_rfc3339(), reason: reason.clone(), file_mtime_ms: mtime_ms(file) });
            self.persist(true);
            return Some(reason);
        }
        self.persist(false);
        None
    }

    /// Whether this live run of a promoted learned reflex is the one checked against the
    /// executive (every `every`th; never when `every` is 0).
    pub fn check_due(&mut self, name: &str, every: u64) -> bool {
        if every == 0 {
            return false;
        }
        let s = self.map.entry(name.to_string()).or_default();
        s.since_check += 1;
        self.dirty = true;
        if s.since_check >= every {
            s.since_check = 0;
            self.persist(true);
            return true;
        }
        self.persist(false);
        false
    }

    /// Count one comparison; returns the number of distinct messages agreed on since the
    /// last reset (a disagreement resets it).
    pub fn compare(&mut self, name: &str, agreed: bool, text_hash: u64) -> usize {
        let s = self.map.entry(name.to_string()).or_default();
        s.compared += 1;
        if agreed {
            s.agreed += 1;
            if !s.agreed_on.contains(&text_hash) {
                s.agreed_on.push(text_hash);
            }
        } else {
            s.agreed_on.clear();
        }
        let distinct = s.agreed_on.len();
        self.dirty = true;
        self.persist(true);
        distinct
    }

    /// A change of mode starts a fresh count.
    pub fn mode_changed(&mut self, name: &str) {
        let s = self.map.entry(name.to_string()).or_default();
        s.agreed_on.clear();
        s.since_check = 0;
        s.promotion_refused = None;
        self.dirty = true;
        self.persist(true);
    }

    /// Remember why promotion was refused; true the first time (to journal it once).
    pub fn refuse_promotion(&mut self, name: &str, why: &str) -> bool {
        let s = self.map.entry(name.to_string()).or_default();
        if s.promotion_refused.as_deref() == Some(why) {
            return false;
        }
        s.promotion_refused = Some(why.to_string());
        self.dirty = true;
        self.persist(true);
        true
    }

    /// Re-enable every disabled reflex whose file changed since; returns their names.
    pub fn reenable_changed(&mut self, files: &BTreeMap<String, PathBuf>) -> Vec<String> {
        let mut out = Vec::new();
        for (name, s) in &mut self.map {
            let Some(d) = &s.disabled else { continue };
            let Some(file) = files.get(name) else { continue };
            if mtime_ms(file) != d.file_mtime_ms {
                s.disabled = None;
                s.window_fired = 0;
                s.window_failed = 0;
                out.push(name.clone());
            }
        }
        if !out.is_empty() {
            self.dirty = true;
            self.persist(true);
        }
        out
    }

    /// Write now if anything changed.
    pub fn flush(&mut self) {
        self.persist(true);
    }

    fn persist(&mut self, force: bool) {
        if !self.dirty || !(force || self.last_write.is_none_or(|t| t.elapsed() >= DEBOUNCE)) {
            return;
        }
        match cn_storage::write_json_atomic(&self.path, &self.map) {
            Ok(()) => {
                self.dirty = false;
                self.last_write = Some(Instant::now());
            }
            Err(err) => {
                tracing::error!(path = %self.path.display(), err = %cn_compute::Chain(&err), "cannot write reflex stats")
            }
        }
    }
}

fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

fn mtime_ms(file: &Path) -> Option<u64> {
    let t = std::fs::metadata(file).ok()?.modified().ok()?;
    Some(t.duration_since(SystemTime::UNIX_EPOCH).ok()?.as_millis() as u64)
}

/// Surface a concern to the owner: `state/mca/<ts>-<slug>.md`, in the agent layer's format
/// (frontmatter `id`, `surfaced-by`, `created`, `status: open`).
pub fn surface(hub: &Path, slug: &str, title: &str, body: &str) -> std::io::Result<PathBuf> {
    let now = jiff::Timestamp::now();
    let ts = now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let id = format!("{ts}-{slug}");
    let mut doc = cn_storage::Doc::default();
    doc.set("id", id.as_str());
    doc.set("surfaced-by", "reflex");
    doc.set("created", cn_storage::rfc3339(now));
    doc.set("status", "open");
    doc.body = format!("# {title}\n\n{body}\n");
    let path = cn_hub::Layout::new(hub).mca_file(&format!("{id}.md"));
    cn_storage::write_atomic(&path, doc.render().as_bytes())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_median_and_disable_above_the_rate() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("r.yaml");
        std::fs::write(&file, "x").unwrap();
        let config = ReflexConfig { min_samples: 4, disable_above: 0.5, ..ReflexConfig::default() };
        let mut stats = Stats::open(dir.path().join("reflex-stats.json"));
        let ms = Duration::from_millis;
        assert_eq!(stats.record("r", RunOutcome::Ok, ms(1), &config, &file), None);
        assert_eq!(stats.record("r", RunOutcome::Failed, ms(3), &config, &file), None);
        assert_eq!(stats.record("r", RunOutcome::Failed, ms(2), &config, &file), None);
        // 2 of 4 is not above 50%; 3 of 5 is.
        assert_eq!(stats.record("r", RunOutcome::Ok, ms(10), &config, &file), None);
        let reason = stats.record("r", RunOutcome::Failed, ms(4), &config, &file).unwrap();
        assert!(reason.contains("3 of its last 5"), "{reason}");
        let s = stats.get("r").unwrap();
        assert_eq!((s.fired, s.succeeded, s.failed, s.escalated), (5, 2, 3, 3));
        assert_eq!((s.latency_ms_p50, s.latency_ms_last), (3.0, 4.0));
        // Persisted on disable; reloading sees it.
        let back = Stats::open(dir.path().join("reflex-stats.json"));
        assert_eq!(back.disabled(), BTreeSet::from(["r".to_string()]));
        // Unchanged file: stays disabled. Changed: re-enabled with a fresh window.
        let files = BTreeMap::from([("r".to_string(), file.clone())]);
        let mut stats = back;
        assert!(stats.reenable_changed(&files).is_empty());
        let f = std::fs::File::options().write(true).open(&file).unwrap();
        f.set_modified(SystemTime::now() + Duration::from_secs(5)).unwrap();
        assert_eq!(stats.reenable_changed(&files), ["r"]);
        assert_eq!(stats.get("r").unwrap().window_fired, 0);
    }

    #[test]
    fn surfaces_in_the_agent_layers_format() {
        let dir = tempfile::tempdir().unwrap();
        let p = surface(dir.path(), "reflex-x-disabled", "Reflex x disabled", "why").unwrap();
        let doc = cn_storage::Doc::parse(&std::fs::read_to_string(&p).unwrap()).unwrap();
        assert_eq!(doc.get_str("status"), Some("open"));
        assert_eq!(doc.get_str("surfaced-by"), Some("reflex"));
        assert!(doc.get_str("id").unwrap().ends_with("-reflex-x-disabled"));
        assert!(p.file_name().unwrap().to_string_lossy().ends_with("-reflex-x-disabled.md"));
    }
}
