//! Approvals: an action that needs the owner's word is held in `state/approvals.json`
//! (journaled, nothing lost) until the owner approves or denies it (`cn approvals`,
//! `cn approve ID`, `cn deny ID`); one left pending past `policy.approval_timeout_secs` is
//! denied. Each record says exactly what will run and what "always allow" would remember.
//!
//! Invariants: the file is protected (no tool writes it; `Layout::write_protected`); ids are
//! random (`ap-` and 12 hex digits); a decided approval is never decided again.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Layout;

/// Pending approvals time out after this long unless `policy.approval_timeout_secs` says.
pub const DEFAULT_TIMEOUT_SECS: u64 = 3 * 86_400;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pending,
    Approved,
    Denied,
}

/// One held action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Approval {
    pub id: String,
    /// The tool whose call is held (`reflex_write`).
    pub tool: String,
    /// The call's parameters, exactly as they will be used.
    pub params: Value,
    /// What approving runs, in words a person checks.
    pub runs: String,
    /// What "always allow" would remember.
    pub remembers: String,
    /// Who asked: the item the call was made for, and its sender.
    pub item: Option<String>,
    pub from: Option<String>,
    /// The level that made the call (it runs at that level, under the policy of the day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// Unix seconds.
    pub created: i64,
    pub expires: i64,
    pub status: Status,
    /// Why it was decided so (`approved by the owner`, `timed out`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided: Option<String>,
    /// How the work that asked goes on once the owner decides: a reflex's run held at this
    /// step (`cn_reflex::HeldRun`), resumed with the call's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Value>,
    /// What the call returned when the owner approved it (for the work that asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The work that asked has taken the owner's word (resumed, or told of the denial).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub settled: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error("{}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("no approval `{id}` (see `cn approvals`)")]
    Unknown { id: String },
    #[error("approval `{id}` was already {status:?}: {why}")]
    Decided { id: String, status: Status, why: String },
}

fn now() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

fn load(layout: &Layout) -> Result<BTreeMap<String, Approval>, ApprovalError> {
    let path = layout.approvals();
    cn_storage::read_json_or_default(&path).map_err(|source| ApprovalError::Io { path, source })
}

fn save(layout: &Layout, all: &BTreeMap<String, Approval>) -> Result<(), ApprovalError> {
    let path = layout.approvals();
    cn_storage::write_json_atomic(&path, all).map_err(|source| ApprovalError::Io { path, source })
}

/// How long a change to the approvals waits for another process's change to finish.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Read, change and write the approvals as one step, under the lock the other state files
/// take (`state/.cn.lock`): three processes holding calls while `cn approvals` times some
/// out lose none. `f` says whether to write.
fn change<R>(
    layout: &Layout,
    f: impl FnOnce(&mut BTreeMap<String, Approval>) -> Result<(R, bool), ApprovalError>,
) -> Result<R, ApprovalError> {
    let path = layout.approvals();
    let dir = path.parent().map_or_else(|| layout.state(), std::path::Path::to_path_buf);
    let io = |source| ApprovalError::Io { path: dir.join(".cn.lock"), source };
    std::fs::create_dir_all(&dir).map_err(io)?;
    let _lock = cn_storage::HubLock::acquire(&dir, LOCK_WAIT).map_err(io)?;
    let mut all = load(layout)?;
    let (out, write) = f(&mut all)?;
    if write {
        save(layout, &all)?;
    }
    Ok(out)
}

/// Deny what timed out; true when something changed.
fn expire(all: &mut BTreeMap<String, Approval>, at: i64) -> bool {
    let mut changed = false;
    for a in all.values_mut().filter(|a| a.status == Status::Pending && a.expires <= at) {
        a.status = Status::Denied;
        a.decided = Some("timed out (policy.approval_timeout_secs)".into());
        changed = true;
    }
    changed
}

/// A call to hold: what [`request`] records.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub tool: String,
    pub params: Value,
    pub runs: String,
    pub remembers: String,
    pub item: Option<String>,
    pub from: Option<String>,
    pub level: Option<u8>,
}

/// Hold a call, once: the pending approval already holding the same call for the same item
/// (a model retrying, a reflex and the executive asking alike), else a fresh one.
pub fn request(layout: &Layout, req: Request, timeout_secs: u64) -> Result<Approval, ApprovalError> {
    let (approval, fresh) = change(layout, |all| {
        let expired = expire(all, now());
        if let Some(same) = all
            .values()
            .find(|a| a.status == Status::Pending && a.tool == req.tool && a.params == req.params && a.item == req.item)
        {
            return Ok(((same.clone(), false), expired));
        }
        let approval = held(req, timeout_secs);
        all.insert(approval.id.clone(), approval.clone());
        Ok(((approval, true), true))
    })?;
    if !fresh {
        return Ok(approval);
    }
    let runs = journal_text(&approval.runs);
    let entry = crate::journal::Approval {
        id: &approval.id,
        tool: &approval.tool,
        outcome: "held",
        runs: Some(&runs),
        item: approval.item.as_deref(),
        from: approval.from.as_deref(),
    };
    // The hold is saved; a journal that cannot be written loses its line, not the approval.
    if let Err(e) = layout.open_journal().and_then(|mut j| j.write(&entry)) {
        tracing::warn!(e = %cn_compute::Chain(&e), "cannot journal approval {}", approval.id);
    }
    Ok(approval)
}

/// A fresh pending approval for `req`.
fn held(req: Request, timeout_secs: u64) -> Approval {
    let created = now();
    let Request { tool, params, runs, remembers, item, from, level } = req;
    Approval {
        id: crate::id::prefixed("ap"),
        tool,
        params,
        runs,
        remembers,
        item,
        from,
        level,
        created,
        expires: created.saturating_add(i64::try_from(timeout_secs).unwrap_or(i64::MAX)),
        status: Status::Pending,
        decided: None,
        resume: None,
        result: None,
        settled: false,
    }
}

/// What the journal keeps of what a held call runs: redacted, and at most
/// [`JOURNAL_RUNS_MAX`] characters (the params a model wrote may be a whole file; the approval
/// keeps them all).
fn journal_text(runs: &str) -> String {
    let text = cn_process::redact::redact(runs);
    match text.char_indices().nth(JOURNAL_RUNS_MAX) {
        Some((cut, _)) => format!("{}… (`cn approvals` shows it whole)", &text[..cut]),
        None => text,
    }
}

/// See [`journal_text`].
pub const JOURNAL_RUNS_MAX: usize = 300;

/// Every approval (timed-out ones denied first), oldest first.
pub fn list(layout: &Layout) -> Result<Vec<Approval>, ApprovalError> {
    let all = change(layout, |all| {
        let expired = expire(all, now());
        Ok((all.clone(), expired))
    })?;
    let mut v: Vec<Approval> = all.into_values().collect();
    v.sort_by_key(|a| a.created);
    Ok(v)
}

/// One approval, if it exists (timed-out ones denied first).
pub fn get(layout: &Layout, id: &str) -> Result<Option<Approval>, ApprovalError> {
    Ok(list(layout)?.into_iter().find(|a| a.id == id))
}

/// Change one approval (under the caller's hub lock): record how its work resumes, the call's
/// result, or that the work took the owner's word.
pub fn update(layout: &Layout, id: &str, f: impl FnOnce(&mut Approval)) -> Result<Approval, ApprovalError> {
    change(layout, |all| {
        let a = all.get_mut(id).ok_or_else(|| ApprovalError::Unknown { id: id.into() })?;
        f(a);
        Ok((a.clone(), true))
    })
}

/// The decided approval whose work waits to go on for item `item` (approved with its result,
/// or denied), not yet settled.
pub fn decided_for(layout: &Layout, item: &str) -> Result<Option<Approval>, ApprovalError> {
    Ok(list(layout)?.into_iter().find(|a| a.item.as_deref() == Some(item) && a.status != Status::Pending && !a.settled))
}

impl Approval {
    /// The held call in words a person reads: `fetch_url` https://… (its main value).
    pub fn what(&self) -> String {
        let main = ["url", "message", "path", "to", "task", "idea", "name"]
            .iter()
            .find_map(|k| self.params.get(*k).and_then(Value::as_str))
            .map(|v| {
                let v = cn_process::redact::redact(v);
                match v.char_indices().nth(120) {
                    Some((cut, _)) => format!("{}…", &v[..cut]),
                    None => v,
                }
            });
        match main {
            Some(v) => format!("`{}` {v}", self.tool),
            None => format!("`{}`", self.tool),
        }
    }
}

/// Decide a pending approval; the decided record (the caller runs an approved one).
pub fn decide(layout: &Layout, id: &str, approve: bool) -> Result<Approval, ApprovalError> {
    change(layout, |all| {
        let expired = expire(all, now());
        let Some(a) = all.get_mut(id) else { return Ok((Err(ApprovalError::Unknown { id: id.into() }), expired)) };
        if a.status != Status::Pending {
            let why = a.decided.clone().unwrap_or_default();
            return Ok((Err(ApprovalError::Decided { id: id.into(), status: a.status, why }), expired));
        }
        a.status = if approve { Status::Approved } else { Status::Denied };
        a.decided = Some(if approve { "approved by the owner" } else { "denied by the owner" }.into());
        Ok((Ok(a.clone()), true))
    })?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_approved_denied_and_timed_out() {
        let dir = tempfile::tempdir().unwrap();
        let l = Layout::new(dir.path());
        let hold = |n: u32, t| {
            let req = Request {
                tool: "reflex_write".into(),
                params: Value::from(n),
                runs: "write x".into(),
                remembers: "nothing".into(),
                item: None,
                from: None,
                level: None,
            };
            request(&l, req, t)
        };
        let a = hold(1, 60).unwrap();
        let b = hold(2, 60).unwrap();
        assert_eq!(hold(2, 60).unwrap().id, b.id, "the same call for the same item is held once");
        let c = hold(3, 0).unwrap();
        assert!(a.id.starts_with("ap-") && a.id != b.id);
        assert_eq!(decide(&l, &a.id, true).unwrap().status, Status::Approved);
        assert!(matches!(decide(&l, &a.id, false), Err(ApprovalError::Decided { .. })));
        assert_eq!(decide(&l, &b.id, false).unwrap().status, Status::Denied);
        let listed = list(&l).unwrap();
        let timed_out = listed.iter().find(|x| x.id == c.id).unwrap();
        assert_eq!(timed_out.status, Status::Denied);
        assert!(timed_out.decided.as_deref().unwrap().contains("timed out"));
        assert!(matches!(decide(&l, "ap-nope", true), Err(ApprovalError::Unknown { .. })));
        // A model's params may be a whole file: the approval keeps them, the journal a line.
        let big = "x".repeat(1 << 20);
        let req = Request {
            tool: "write_file".into(),
            params: serde_json::json!({"content": big}),
            runs: format!("`write_file` {{\"content\":\"{big}\"}}"),
            remembers: "nothing".into(),
            item: None,
            from: Some("github:mallory".into()),
            level: Some(1),
        };
        let held = request(&l, req, 60).unwrap();
        assert_eq!(held.params["content"].as_str().map(str::len), Some(1 << 20));
        let journal = std::fs::read_to_string(l.journal()).unwrap();
        let line = journal.lines().find(|x| x.contains(&held.id)).unwrap();
        assert!(line.len() < 2 * JOURNAL_RUNS_MAX, "{} bytes", line.len());
    }
}
