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
}
