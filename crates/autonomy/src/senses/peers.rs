//! Peer mail: the daemon runs `cn sync` on a timer (`senses.peers.every`), so mail from peers
//! reaches the inbox — and the outbox reaches `origin` — with no cron job; a mail put in the
//! outbox (`cn send`, a decision's `do send`) is published at once. A filed mail is a
//! write to the inbox: the hub watcher wakes the daemon and attention offers the item as a
//! peer's percept. A failing peer is journaled when its error first appears or changes, not
//! at every tick.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use tokio::sync::Notify;

use cn_hub::journal::{Kind, Record};

use super::{Running, Sense, SenseContext, SenseError};

/// Peer mail (`senses.peers`) as a [`Sense`]: `cn sync` every `every`.
pub struct PeersSense {
    pub every: Duration,
}

impl Sense for PeersSense {
    fn name(&self) -> &str {
        "peers"
    }

    fn start(self: Box<Self>, ctx: &mut SenseContext<'_>) -> Result<Running, SenseError> {
        let outbox = ctx.hub.outbox();
        std::fs::create_dir_all(&outbox).map_err(|source| SenseError::Create {
            sense: "peers",
            path: outbox.clone(),
            source,
        })?;
        let posted = Arc::new(Notify::new());
        let wake = posted.clone();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<Event>| match res {
            Ok(event) if posts(&event) => wake.notify_one(),
            Ok(_) => {}
            Err(e) => tracing::warn!(e = %cn_compute::Chain(&e), "outbox watcher error"),
        })
        .map_err(|source| SenseError::Watch { sense: "peers", path: None, source })?;
        watcher.watch(&outbox, RecursiveMode::NonRecursive).map_err(|source| SenseError::Watch {
            sense: "peers",
            path: Some(outbox.clone()),
            source,
        })?;
        ctx.runtime.spawn(run(ctx.hub.root().to_path_buf(), self.every, posted));
        Ok(Running::keep(OutboxWatch(watcher)))
    }
}

/// The outbox's watcher, kept while the senses run.
struct OutboxWatch(#[allow(dead_code)] RecommendedWatcher);

/// Whether `event` is a mail arriving in the outbox (a `.md` file made or moved there; a
/// mail leaving it for `sent/` is not).
fn posts(event: &Event) -> bool {
    use notify::event::{ModifyKind, RenameMode};
    let arrives = matches!(
        event.kind,
        EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(RenameMode::To | RenameMode::Both | RenameMode::Any))
    );
    arrives && event.paths.iter().any(|p| p.extension().is_some_and(|e| e == "md") && p.exists())
}

/// Sync every `every` (at least a second), and as soon as `posted` says a mail arrived in
/// the outbox, until the runtime shuts down (the first sync right away).
pub async fn run(hub: PathBuf, every: Duration, posted: Arc<Notify>) {
    let every = every.max(Duration::from_secs(1));
    let mut reported = BTreeSet::new();
    let mut failures = 0u32;
    loop {
        let root = hub.clone();
        let synced = tokio::task::spawn_blocking(move || {
            cn_agent::Hub::open(&root).map_err(cn_agent::AgentError::from).and_then(|h| cn_agent::sync(&h))
        })
        .await;
        let errors: BTreeSet<String> = match &synced {
            Ok(Ok(report)) => {
                if !report.received.is_empty() || !report.sent.is_empty() {
                    tracing::info!(received = report.received.len(), sent = report.sent.len(), "peer mail synced");
                }
                report.errors.iter().cloned().collect()
            }
            Ok(Err(e)) => BTreeSet::from([cn_compute::chain(&e)]),
            Err(e) => BTreeSet::from([format!("the sync task failed: {e}", e = cn_compute::Chain(&e))]),
        };
        for e in errors.difference(&reported) {
            tracing::warn!(error = %e, "peer sync");
            journal(&hub, e);
        }
        // A sync that failed as a whole is retried with backoff; one that ran resets it. A
        // peer's own error (an offline peer, a removed repository) is that peer's: it is
        // reported, and does not slow the mail of every other peer.
        let whole = !matches!(synced, Ok(Ok(_)));
        failures = if whole { failures.saturating_add(1) } else { 0 };
        reported = errors;
        // A sync that failed as a whole waits out its backoff; else a posted mail ends the rest.
        let rest = tokio::time::sleep(super::backoff(every, failures.saturating_sub(1)));
        if whole {
            rest.await;
        } else {
            tokio::select! {
                () = rest => {}
                () = posted.notified() => {}
            }
        }
    }
}

fn journal(hub: &std::path::Path, error: &str) {
    let record = Record::new(Kind::Observation, cn_hub::id::prefixed("peers"), "peer mail could not be synced")
        .context(error)
        .outcome("tried again at the next sync (a sync that fails as a whole backs off, doubling, at most 30 min); reported again when the error changes");
    let appended = cn_hub::Layout::new(hub).open_journal().and_then(|mut j| j.record(record));
    if let Err(e) = appended {
        tracing::error!(e = %cn_compute::Chain(&e), "cannot write the journal");
    }
}
