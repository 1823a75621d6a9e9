//! The owner's word on an action held for approval (`cn approve|deny`, the control room's
//! Approvals view): under the hub lock, the approval is decided in `state/approvals.json`,
//! and an approved action runs now — a held `reflex_write` is written, journaled and
//! committed ([`cn_reflex::apply_approved`]); a denial is journaled and nothing runs.
//!
//! Invariant: only these two functions decide an approval, and both are reached only from
//! the owner (the CLI, or a request bearing the owner token).

use std::path::PathBuf;

use cn_hub::approvals::{self, Approval, ApprovalError};
use cn_hub::Hub;

/// Why the owner's word could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum ApproveError {
    #[error(transparent)]
    Lock(#[from] cn_agent::AgentError),
    #[error(transparent)]
    Approval(#[from] ApprovalError),
    #[error("approval {id}: {source}")]
    Apply { id: String, source: cn_reflex::WriteError },
    #[error("approval {id} holds `{tool}`, which cn cannot run")]
    Tool { id: String, tool: String },
    #[error(transparent)]
    Journal(#[from] cn_hub::journal::JournalError),
}

impl ApproveError {
    /// The owner asked for something that cannot be (an unknown or decided id): a usage
    /// error, not a failure of cn.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            ApproveError::Approval(ApprovalError::Unknown { .. } | ApprovalError::Decided { .. })
                | ApproveError::Tool { .. }
        )
    }
}

/// What approving ran.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Approved {
    pub approval: Approval,
    /// The file written (a reflex), relative to the hub.
    pub wrote: PathBuf,
    pub committed: bool,
}

/// Approve `id` and run what it holds.
pub fn approve(hub: &Hub, id: &str) -> Result<Approved, ApproveError> {
    let _lock = cn_agent::lock(hub)?;
    let a = approvals::decide(hub.layout(), id, true)?;
    match a.tool.as_str() {
        "reflex_write" => {
            let done = cn_reflex::apply_approved(hub.root(), &a)
                .map_err(|source| ApproveError::Apply { id: a.id.clone(), source })?;
            let wrote = hub.layout().relative(&done.path).to_path_buf();
            Ok(Approved { approval: a, wrote, committed: done.committed })
        }
        other => Err(ApproveError::Tool { id: a.id.clone(), tool: other.to_string() }),
    }
}

/// Deny `id`: nothing runs; the denial is journaled.
pub fn deny(hub: &Hub, id: &str) -> Result<Approval, ApproveError> {
    let _lock = cn_agent::lock(hub)?;
    let a = approvals::decide(hub.layout(), id, false)?;
    let entry = cn_storage::Entry::new("approval")
        .with("id", a.id.as_str())
        .with("tool", a.tool.as_str())
        .with("outcome", "denied");
    cn_hub::journal::HubJournal::append_to(&hub.layout().state(), &entry)?;
    Ok(a)
}
