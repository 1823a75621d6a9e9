//! The hub lock: every command that changes a hub holds it, so commands (and the daemon)
//! never interleave their moves. Below the queue and the decision code, which both take it.

use std::time::Duration;

use cn_storage::HubLock;

use crate::error::{io_at, AgentError, Result};
use crate::hub::Hub;

/// How long a command waits for another to release the hub (`CN_LOCK_TIMEOUT_MS` overrides).
pub fn lock_timeout() -> Duration {
    std::env::var("CN_LOCK_TIMEOUT_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(30))
}

/// Hold the hub: commands that change it are serialized by this lock.
pub fn lock(hub: &Hub) -> Result<HubLock> {
    HubLock::acquire(hub.root(), lock_timeout()).map_err(|e| match e.kind() {
        std::io::ErrorKind::WouldBlock => AgentError::Busy(e),
        _ => io_at(&hub.layout().lock_file())(e),
    })
}
