//! The hub lock: commands that change a hub (`cn out`, `cn sync`, the daemon's effects)
//! hold an exclusive OS file lock on `.cn.lock`, so two of them on one hub are serialized.
//! The OS releases it when the process dies, so a SIGKILL never leaves a stale lock.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Debug)]
pub struct HubLock {
    _file: File,
}

impl HubLock {
    /// Wait up to `timeout` for the lock; then fail with a message saying who to wait for.
    pub fn acquire(hub: &Path, timeout: Duration) -> io::Result<HubLock> {
        let path = hub.join(".cn.lock");
        let file = OpenOptions::new().create(true).truncate(false).read(true).write(true).open(&path)?;
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(HubLock { _file: file }),
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < timeout => {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(50));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WouldBlock,
                        format!(
                            "the hub {} is busy: another cn command holds {} (waited {:?})",
                            hub.display(),
                            path.display(),
                            timeout
                        ),
                    ))
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(e),
            }
        }
    }
}

/// A lock a long-running process holds for its whole life (the daemon's `state/run.lock`):
/// taken without waiting, released by the OS when the process ends however it ends.
#[derive(Debug)]
pub struct ProcessLock {
    _file: File,
}

impl ProcessLock {
    /// Take the lock at `path`, or `None` when another process holds it.
    pub fn try_acquire(path: &Path) -> io::Result<Option<ProcessLock>> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).truncate(false).read(true).write(true).open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Some(ProcessLock { _file: file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    /// Whether some process holds the lock at `path` now.
    pub fn is_held(path: &Path) -> bool {
        let Ok(file) = OpenOptions::new().read(true).write(true).open(path) else { return false };
        matches!(file.try_lock(), Err(std::fs::TryLockError::WouldBlock))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_waits_then_fails_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let first = HubLock::acquire(dir.path(), Duration::from_millis(10)).unwrap();
        let e = HubLock::acquire(dir.path(), Duration::from_millis(20)).unwrap_err();
        assert!(e.to_string().contains("busy"), "{e}");
        drop(first);
        HubLock::acquire(dir.path(), Duration::from_millis(10)).unwrap();
    }

    #[test]
    fn a_process_lock_is_held_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/run.lock");
        assert!(!ProcessLock::is_held(&path));
        let held = ProcessLock::try_acquire(&path).unwrap().unwrap();
        assert!(ProcessLock::is_held(&path));
        assert!(ProcessLock::try_acquire(&path).unwrap().is_none());
        drop(held);
        assert!(!ProcessLock::is_held(&path));
    }
}
