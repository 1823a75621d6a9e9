//! The hub itself as a sense: a watcher (`notify`) on the inbox and the impulse files, so an
//! item queued by another process (`cn input`, `cn chat`, mail filed by `cn sync`) or a task
//! added by `cn task add` wakes a resting daemon at once instead of at its next interval.
//!
//! It only wakes attention ([`Attention::poke`]); the daemon's `decide` reads the inbox and
//! the impulse files itself, so a missed or doubled event changes nothing but timing.
//!
//! Invariant: only `threads/inbox/*.md` and `state/{tasks,schedule,ideas}.json` wake it —
//! never the journal, attention's spool or the current item, which the daemon writes itself.

use std::path::{Path, PathBuf};

use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use super::{Running, Sense, SenseContext, SenseError};
use crate::attention::Attention;

/// The impulse files whose change wakes the daemon.
pub const IMPULSE_FILES: [&str; 3] = [cn_hub::layout::TASKS, cn_hub::layout::SCHEDULE, cn_hub::layout::IDEAS];

/// A running watcher; dropping it stops watching.
pub struct HubWatch {
    _watcher: RecommendedWatcher,
}

/// Whether a change to `path` concerns the daemon.
fn wakes(inbox: &Path, state: &Path, path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match path.parent() {
        Some(dir) if dir == inbox => name.ends_with(".md") && !name.starts_with('.'),
        Some(dir) if dir == state => IMPULSE_FILES.contains(&name),
        _ => false,
    }
}

/// Whether `event` is a change to a file that concerns the daemon. Reading a file is an
/// event too (inotify's open and close): the daemon reads these files at every decide, so
/// only changes may wake it — else it would wake itself forever.
fn wakes_on(event: &Event, inbox: &Path, state: &Path) -> bool {
    let change = matches!(event.kind, EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_));
    change && event.paths.iter().any(|p| wakes(inbox, state, p))
}

/// The hub watcher as a [`Sense`] (the daemon adds it to the configured senses: it is not
/// a cn.yaml section, a daemon always watches its hub).
pub struct HubWatcher;

impl Sense for HubWatcher {
    fn name(&self) -> &str {
        "hub"
    }

    fn start(self: Box<Self>, ctx: &mut SenseContext<'_>) -> Result<Running, SenseError> {
        Ok(Running::keep(watch(ctx.hub.root(), ctx.attention.clone())?))
    }
}

/// Watch `hub`'s inbox and impulse files; every relevant change pokes `attention`.
pub fn watch(hub: &Path, attention: Attention) -> Result<HubWatch, SenseError> {
    let root = hub.canonicalize().unwrap_or_else(|_| hub.to_path_buf());
    let layout = cn_hub::Layout::new(&root);
    let inbox: PathBuf = layout.inbox();
    let state: PathBuf = layout.state();
    for dir in [&inbox, &state] {
        std::fs::create_dir_all(dir).map_err(|source| SenseError::Create {
            sense: "hub",
            path: dir.clone(),
            source,
        })?;
    }
    let (i, s) = (inbox.clone(), state.clone());
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<Event>| match res {
        Ok(event) => {
            if wakes_on(&event, &i, &s) {
                attention.poke();
            }
        }
        Err(e) => tracing::warn!(e = %cn_compute::Chain(&e), "hub watcher error"),
    })
    .map_err(|source| SenseError::Watch { sense: "hub", path: None, source })?;
    for dir in [&inbox, &state] {
        if let Err(source) = watcher.watch(dir, RecursiveMode::NonRecursive) {
            return Err(SenseError::Watch { sense: "hub", path: Some(dir.clone()), source });
        }
    }
    Ok(HubWatch { _watcher: watcher })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attention::{PoolConfig, Wake};
    use std::time::Duration;

    #[test]
    fn only_the_inbox_and_the_impulse_files_wake_the_daemon() {
        let (inbox, state) = (Path::new("/h/threads/inbox"), Path::new("/h/state"));
        assert!(wakes(inbox, state, Path::new("/h/threads/inbox/abc.md")));
        assert!(wakes(inbox, state, Path::new("/h/state/tasks.json")));
        assert!(!wakes(inbox, state, Path::new("/h/threads/inbox/.abc.md.tmp")));
        assert!(!wakes(inbox, state, Path::new("/h/state/journal.jsonl")));
        assert!(!wakes(inbox, state, Path::new("/h/state/input.md")));
    }

    #[test]
    fn reading_the_watched_files_is_not_a_change() {
        use notify::event::{AccessKind, AccessMode, CreateKind, ModifyKind};
        let (inbox, state) = (Path::new("/h/threads/inbox"), Path::new("/h/state"));
        let ev = |kind| Event::new(kind).add_path(PathBuf::from("/h/state/tasks.json"));
        assert!(!wakes_on(&ev(EventKind::Access(AccessKind::Open(AccessMode::Any))), inbox, state));
        assert!(!wakes_on(&ev(EventKind::Access(AccessKind::Close(AccessMode::Read))), inbox, state));
        assert!(wakes_on(&ev(EventKind::Modify(ModifyKind::Any)), inbox, state));
        assert!(wakes_on(&ev(EventKind::Create(CreateKind::File)), inbox, state));
    }

    #[test]
    fn an_item_written_to_the_inbox_ends_a_long_rest() {
        let hub = tempfile::tempdir().unwrap();
        let attention = Attention::new(PoolConfig::default());
        let _w = watch(hub.path(), attention.clone()).unwrap();
        let seen = attention.generation();
        std::fs::write(hub.path().join("state/journal.jsonl"), "{}\n").unwrap();
        std::fs::write(hub.path().join("threads/inbox/x.md"), "---\nid: x\n---\n").unwrap();
        // A five-minute wait that the write ends: the test's time is the watcher's latency.
        assert_eq!(attention.wait(seen, Duration::from_secs(300)), Wake::Admitted);
    }
}
