//! The owner's word on an action held for approval (`cn approve|deny`, the control room's
//! Approvals view, a reply `approve ID` / `deny ID` in the owner's chat): under the hub lock,
//! the approval is decided in `state/approvals.json`, and an approved action runs now, on the
//! owner's word — a held `reflex_write` is written, journaled and committed
//! ([`cn_reflex::apply_approved`]); a held `send` or `delegate` mails the peer; any other
//! held tool call runs through the tools it was asked of, at the level that asked, under
//! today's policy. A denial is journaled and nothing runs.
//!
//! Invariant: only these two functions decide an approval, and both are reached only from
//! the owner (the CLI, a request bearing the owner token, an item whose provenance is the
//! owner's).

use std::path::PathBuf;

use cn_compute::ToolCall;
use cn_hub::approvals::{self, Approval, ApprovalError};
use cn_hub::Hub;
use serde_json::Value;

/// Why the owner's word could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum ApproveError {
    #[error(transparent)]
    Lock(#[from] cn_agent::AgentError),
    #[error(transparent)]
    Approval(#[from] ApprovalError),
    #[error("approval {id}")]
    Apply { id: String, source: cn_reflex::WriteError },
    #[error("approval {id} holds `{tool}`, which cn cannot run")]
    Tool { id: String, tool: String },
    #[error("approval {id}: `{tool}` failed: {message}")]
    Run { id: String, tool: String, message: String },
    /// The agent layer could not find the item or send the mail (the source says why).
    #[error("approval {id}: `{tool}` failed")]
    Agent {
        id: String,
        tool: String,
        #[source]
        error: Box<cn_agent::AgentError>,
    },
    /// The item to forward could not be read (its error is in the message).
    #[error("approval {id}: `{tool}` failed: {}: {error}", path.display())]
    Read { id: String, tool: String, path: PathBuf, error: std::io::Error },
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrote: Option<PathBuf>,
    pub committed: bool,
    /// What the call returned (a fetched page, a file's text, a mail's id …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// The item whose work waited for this approval, back in the queue to be finished (its
    /// answer goes to whoever asked, where they asked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resumes: Option<String>,
}

impl Approved {
    /// One line a person reads: what ran, and where its result goes.
    pub fn summary(&self) -> String {
        let a = &self.approval;
        if let Some(item) = &self.resumes {
            let to = a.from.as_deref().unwrap_or("whoever asked");
            return format!(
                "approved {}: {} ran; item {item} is back in the queue and its answer goes to {to}",
                a.id,
                a.what()
            );
        }
        match (&self.wrote, &self.output) {
            (Some(path), _) => format!("approved {}: {} written and enabled", a.id, path.display()),
            (None, Some(out)) => {
                let text = match out {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let text = cn_process::redact::redact(&text);
                let cut = text.char_indices().nth(600).map_or(text.len(), |(i, _)| i);
                let more = if cut < text.len() { "…" } else { "" };
                format!("approved {}: `{}` ran: {}{more}", a.id, a.tool, &text[..cut])
            }
            (None, None) => format!("approved {}: `{}` ran", a.id, a.tool),
        }
    }
}

/// Approve `id` and run what it holds.
pub fn approve(hub: &Hub, id: &str) -> Result<Approved, ApproveError> {
    let lock = cn_agent::lock(hub)?;
    let a = approvals::decide(hub.layout(), id, true)?;
    let done = match a.tool.as_str() {
        "reflex_write" => {
            let done = cn_reflex::apply_approved(hub.root(), &a)
                .map_err(|source| ApproveError::Apply { id: a.id.clone(), source })?;
            let wrote = Some(hub.layout().relative(&done.path).to_path_buf());
            Approved { approval: a, wrote, committed: done.committed, output: None, resumes: None }
        }
        "send" | "delegate" => {
            // Mailing takes the hub lock itself.
            drop(lock);
            let mail = mail_peer(hub, &a)?;
            let resumes = resume_waiting(hub, &a, &Value::String(mail.clone()))?;
            Approved { approval: a, wrote: None, committed: true, output: Some(Value::String(mail)), resumes }
        }
        _ => {
            let output = run_call(hub, &a)?;
            drop(lock);
            let resumes = resume_waiting(hub, &a, &output)?;
            Approved { approval: a, wrote: None, committed: false, output: Some(output), resumes }
        }
    };
    journal(hub, &done.approval, "approved")?;
    Ok(done)
}

/// Deny `id`: nothing runs; the denial is journaled, and the work that waited for it goes on
/// without it (its sender is told).
pub fn deny(hub: &Hub, id: &str) -> Result<Approval, ApproveError> {
    let lock = cn_agent::lock(hub)?;
    let a = approvals::decide(hub.layout(), id, false)?;
    drop(lock);
    resume_waiting(hub, &a, &Value::Null)?;
    journal(hub, &a, "denied")?;
    Ok(a)
}

/// The work that waited for the owner's word goes on: the call's result is kept in the
/// approval (a held reflex run resumes with it; the executive reads it in the item), and the
/// item waiting for it goes back to the queue. The item's id, when one waited.
fn resume_waiting(hub: &Hub, a: &Approval, result: &Value) -> Result<Option<String>, ApproveError> {
    let Some(item) = a.item.clone() else { return Ok(None) };
    let _lock = cn_agent::lock(hub)?;
    let shown = match result {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    approvals::update(hub.layout(), &a.id, |rec| {
        if !result.is_null() {
            rec.result = Some(result.clone());
        }
    })?;
    // The executive's item reads what the call returned; a reflex run takes it from the approval.
    let note = match a.status {
        approvals::Status::Approved if a.resume.is_none() => {
            let cut = shown.char_indices().nth(4000).map_or(shown.len(), |(i, _)| i);
            Some(format!("The owner approved {} ({}); it returned:\n\n{}", a.id, a.what(), &shown[..cut]))
        }
        approvals::Status::Denied if a.resume.is_none() => {
            Some(format!("The owner denied {} ({}): it did not run.", a.id, a.what()))
        }
        _ => None,
    };
    let released = cn_agent::queue::release_waiting(hub, &a.id, note.as_deref()).map_err(ApproveError::from)?;
    Ok(released.into_iter().find(|id| *id == item))
}

fn journal(hub: &Hub, a: &Approval, outcome: &str) -> Result<(), ApproveError> {
    let entry = cn_hub::journal::Approval { id: &a.id, tool: &a.tool, outcome, runs: None, item: None, from: None };
    hub.journal()?.write(&entry)?;
    Ok(())
}

/// A held `send` (its message) or `delegate` (the item it would have forwarded, found where
/// it went) mailed to the peer as the owner's `cn send`; the mail's id.
fn mail_peer(hub: &Hub, a: &Approval) -> Result<String, ApproveError> {
    let field = |k: &str| a.params.get(k).and_then(Value::as_str).map(str::to_string);
    let failed = |message: String| ApproveError::Run { id: a.id.clone(), tool: a.tool.clone(), message };
    let agent_failed = |error| ApproveError::Agent { id: a.id.clone(), tool: a.tool.clone(), error: Box::new(error) };
    let to = field("to").ok_or_else(|| failed("no `to` peer".into()))?;
    let (message, body) = if a.tool == "send" {
        (field("message").unwrap_or_default(), field("body"))
    } else {
        let item = a.item.as_deref().ok_or_else(|| failed("no item to forward".into()))?;
        let path = match cn_agent::locate(hub, item).map_err(agent_failed)? {
            Some(cn_agent::Place::Inbox(p) | cn_agent::Place::Deferred(p) | cn_agent::Place::Decided(p)) => p,
            Some(cn_agent::Place::Current) => hub.layout().input(),
            None => return Err(failed(format!("item {item} is gone"))),
        };
        let text = std::fs::read_to_string(&path).map_err(|error| ApproveError::Read {
            id: a.id.clone(),
            tool: a.tool.clone(),
            path: path.clone(),
            error,
        })?;
        let content = cn_storage::Doc::parse(&text).map(|d| d.body).unwrap_or(text);
        (format!("forwarded: item {item}"), Some(content))
    };
    let mail = cn_agent::send(hub, &to, &message, body.as_deref()).map_err(agent_failed)?;
    Ok(format!("mail {} to {to} (sent by the next `cn sync`)", mail.id))
}

/// Run a held tool call on the owner's word, through the tools the level that asked has: the
/// executive's (level 3: notes, tasks, ideas, reading files) or the reflexes' actions.
fn run_call(hub: &Hub, a: &Approval) -> Result<Value, ApproveError> {
    let level = a.level.unwrap_or(3);
    let engine = cn_reflex::Engine::of_hub(hub);
    let registry = if level >= 3 {
        let mut ctx = cn_tools::ToolContext::new(hub.root());
        ctx.hub = Some(hub.root().to_path_buf());
        ctx.policy = hub.config().policy.clone();
        let mut r = cn_tools::Registry::new(ctx);
        crate::state_tools(&mut r, &engine);
        r
    } else {
        engine.registry().clone()
    };
    let params = a.params.as_object().cloned().unwrap_or_default();
    registry.run_approved(level, &ToolCall::new(&a.tool, params)).map_err(|e| ApproveError::Run {
        id: a.id.clone(),
        tool: a.tool.clone(),
        message: cn_process::redact::redact(&cn_compute::chain(&e)),
    })
}
