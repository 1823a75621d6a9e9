//! The daemon follows `cn.yaml` (and `state/peers.json`): an owner who edits the file — adds a
//! `policy.urls` entry, a sense, a model — sees the running daemon take it, without a
//! restart.
//!
//! A file watcher ([`Watch`]) notes that one of the two files changed and wakes the daemon.
//! At its next rest — between items, never in the middle of one — the [`decorator`] reads the
//! file again once it has been still for [`SETTLE`] (an editor writes in steps), and checks
//! it exactly as `cn run` checks it at start (the caller's `check`: parsing, every key, the
//! models' API keys, the senses' secrets, the control room's address). A config that is the
//! same as the running one (an edit of a comment) changes nothing. A new one that passes ends
//! the current run of the kernel; [`crate::run`] assembles everything again from it — senses
//! rebound, models and reflexes loaded again, the policy replaced — on the same attention, so
//! nothing waiting is lost. One that fails is refused where the owner looks: the log, the
//! journal, and the control room's banner (`config_error` in `state/run.json`); the daemon
//! keeps the config it runs.
//!
//! Invariant: no thread polls — the watcher sleeps on inotify, and the decorator runs only
//! when the daemon rests anyway.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cn_autonomy::Attention;
use cn_compute::{Decorator, RestFn, StopToken};
use std::collections::BTreeMap;

use cn_hub::{Hub, Peer};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

/// How long the file must be left alone before it is read: an editor's save (truncate,
/// write, rename) is one change, not three.
pub const SETTLE: Duration = Duration::from_millis(300);

/// The files the daemon follows, as the watcher sees them.
struct Followed {
    config: PathBuf,
    peers: PathBuf,
}

impl Followed {
    fn concerns(&self, event: &Event) -> bool {
        let change = matches!(event.kind, EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_));
        change && event.paths.iter().any(|p| *p == self.config || *p == self.peers)
    }
}

/// What the watcher saw: a change not yet taken, and when the last one came.
#[derive(Default)]
struct Pending {
    changed: AtomicBool,
    last: Mutex<Option<Instant>>,
}

/// The watcher on `cn.yaml` and `state/peers.json`; it stops when dropped.
pub struct Watch {
    pending: Arc<Pending>,
    _watcher: RecommendedWatcher,
}

impl Watch {
    /// Watch `hub`'s root and state directory (non-recursively: only those two files count);
    /// every change wakes `attention`.
    pub fn start(hub: &Hub, attention: Attention) -> notify::Result<Watch> {
        let root = hub.root().canonicalize().unwrap_or_else(|_| hub.root().to_path_buf());
        let layout = cn_hub::Layout::new(&root);
        let followed = Followed { config: layout.config(), peers: layout.peers() };
        let pending = Arc::new(Pending::default());
        let seen = pending.clone();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<Event>| match res {
            Ok(event) if followed.concerns(&event) => {
                *seen.last.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now());
                seen.changed.store(true, Ordering::SeqCst);
                attention.poke();
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(e = %cn_compute::Chain(&e), "the cn.yaml watcher"),
        })?;
        watcher.watch(&root, RecursiveMode::NonRecursive)?;
        let state = layout.state();
        if state.is_dir() {
            watcher.watch(&state, RecursiveMode::NonRecursive)?;
        }
        Ok(Watch { pending, _watcher: watcher })
    }

    /// A change not yet taken, and how long ago the last one came.
    fn changed(&self) -> Option<Duration> {
        if !self.pending.changed.load(Ordering::SeqCst) {
            return None;
        }
        let last = *self.pending.last.lock().unwrap_or_else(|p| p.into_inner());
        Some(last.map_or(SETTLE, |t| t.elapsed()))
    }

    fn taken(&self) {
        self.pending.changed.store(false, Ordering::SeqCst);
    }
}

/// What a rest found: the next config to run on, taken by [`crate::run`].
pub type Next = Arc<Mutex<Option<Hub>>>;

/// How the outcome of a check is told: `Some(why)` for a refused edit (the log, the journal,
/// the banner), `None` when cn.yaml says again what the daemon runs (a refusal is over).
pub type Told = Box<dyn Fn(&Hub, Option<&str>) + Send>;

/// The daemon's rest decorator (the outermost: it runs before the rest itself). When the
/// watcher saw a change that has settled, read the hub again and `check` it; a config that
/// differs from `running` and passes goes into `next` and stops `run` (this run of the
/// kernel, not the daemon); one that fails is `told` why; one that is the running config
/// again is `told` so (a refused edit undone).
pub fn decorator(
    watch: Arc<Watch>,
    running: Snapshot,
    attention: Attention,
    check: impl Fn(&Path) -> Result<Hub, String> + Send + 'static,
    told: Told,
    next: Next,
    run: StopToken,
) -> Decorator {
    Decorator::Rest(Box::new(move |mut inner: RestFn| -> RestFn {
        Box::new(move || {
            // What the daemon runs on, as it was when this config started (`Hub::peers` reads
            // state/peers.json afresh: the snapshot is what a change is compared with).
            if let Some(since) = watch.changed() {
                if since < SETTLE {
                    // Still being written: rest until it has settled (or something else comes).
                    attention.wake_at(Some(Instant::now() + (SETTLE - since)));
                    return inner();
                }
                watch.taken();
                match check(running.hub.root()) {
                    Ok(hub) if running.same(&hub) => {
                        tracing::debug!("cn.yaml changed, but not what it configures");
                        told(&running.hub, None);
                    }
                    Ok(hub) => {
                        *next.lock().unwrap_or_else(|p| p.into_inner()) = Some(hub);
                        run.stop();
                        return;
                    }
                    Err(why) => {
                        told(&running.hub, Some(&why));
                    }
                }
            }
            inner();
        })
    }))
}

/// A config the daemon runs: the opened hub, and its peers as they were when it started.
#[derive(Clone)]
pub struct Snapshot {
    pub hub: Hub,
    peers: Option<BTreeMap<String, Peer>>,
}

impl Snapshot {
    pub fn of(hub: &Hub) -> Snapshot {
        Snapshot { hub: hub.clone(), peers: hub.peers().ok() }
    }

    /// Whether `other` configures the same daemon: the parsed cn.yaml and the peers.
    pub fn same(&self, other: &Hub) -> bool {
        self.hub.config() == other.config() && self.peers == other.peers().ok()
    }

    /// The top-level sections of cn.yaml (and `peers` for `state/peers.json`) in which `new`
    /// differs, for the journal's line on a reload.
    pub fn changed_sections(&self, new: &Hub) -> Vec<String> {
        let value = |h: &Hub| serde_json::to_value(h.config()).unwrap_or_default();
        let (a, b) = (value(&self.hub), value(new));
        let mut keys: Vec<String> = match (a.as_object(), b.as_object()) {
            (Some(a), Some(b)) => a.keys().chain(b.keys()).filter(|k| a.get(*k) != b.get(*k)).cloned().collect(),
            _ => Vec::new(),
        };
        if self.peers != new.peers().ok() {
            keys.push("peers".into());
        }
        keys.sort();
        keys.dedup();
        keys
    }
}
