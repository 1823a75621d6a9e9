//! The agent layer ("Agent thinks. cn acts."): the hub, `cn input` / `cn out`, threads, the
//! GTD ops, and peers over git.
//!
//! The agent's whole interface is two commands: `cn input` shows the current item (cn picks
//! it: [`take_next`]), `cn out <gtd> [op]` decides it ([`parse_out`] → [`Gtd`] →
//! [`decide`]). Each form of a decision is one file under [`ops`], listed once in [`gtd`]. The executive's YAML tool calls ([`register_ops`]) build the same [`Gtd`]
//! and take the same path. cn performs every effect: it files the item, posts mail,
//! notifies the item's sender, journals the decision and commits the hub. `cn sync` moves
//! mail between hubs as git branches ([`sync`]).
//!
//! Architecture Invariant: an item moves only by rename, so it is in exactly one place —
//! inbox, current, deferred or decided — at every instant; a decision is recorded in
//! `state/output.md` before any effect, and a crash is finished with that decision.
//!
//! Architecture Invariant: every command that changes a hub holds the hub lock.

pub mod answer;
pub mod args;
pub mod clone;
pub mod decide;
pub mod envelope;
pub mod error;
pub mod gtd;
pub mod handup;
pub mod hub;
pub mod init;
pub mod item;
pub mod journal;
pub mod lock;
pub mod mail;
pub mod ops;
pub mod queue;
pub mod sync;
pub mod tools;

pub use answer::{Answer, HandUp};
pub use args::{parse_out, OutArgs, OutArgsError};
pub use decide::{
    decide, decide_locked, hand_up_current, recover_locked, validate, Check, DecideAs, Decided, AGENT_LEVEL,
};
pub use error::{AgentError, ParseError, Result};
pub use gtd::{Gtd, Kind, Op};
pub use handup::HAND_UP;
pub use hub::{find_hub, Hub, Peer, OWNER};
pub use init::{ensure_gitignore, init, InitReport};
pub use item::{Cadence, Item};
pub use lock::lock;
pub use mail::Mail;
pub use ops::OpKind;
pub use queue::{
    answer_to, current, enqueue, enqueue_new, enqueue_reflection, locate, pending, release_due, resume, return_current,
    take, take_next, take_next_locked, Place,
};
pub use sync::{mail_home, peer_mail, peer_status, sync, MailHome, PeerStatus, SyncReport};
pub use tools::{op_tool_names, ops_prompt, read_call, register_ops, Decisions};

/// `cn send`: the owner writes to a peer. The mail waits in the outbox for `cn sync`.
pub fn send(hub: &Hub, to: &str, message: &str, body: Option<&str>) -> Result<Mail> {
    let _lock = lock(hub)?;
    hub.require_peer(to)?;
    let id = cn_hub::id::new();
    let mail = Mail {
        to: to.to_string(),
        from: hub.name().to_string(),
        thread: id.clone(),
        created: cn_storage::now_rfc3339(),
        kind: None,
        reply_to: None,
        subject: body.map(|_| message.to_string()),
        depth: 0,
        body: body.unwrap_or(message).to_string(),
        id,
    };
    mail::post(hub, &mail)?;
    hub.journal()?.write(&journal::Sent { to, thread: &mail.id, message })?;
    hub.git().commit_paths(&format!("cn send: mail {} to {to}", mail.id), &cn_hub::layout::OWN)?;
    Ok(mail)
}

/// How long `cn peer add` waits for a peer's remote to answer.
pub const PEER_CHECK: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether peer `name`'s remote answers `git ls-remote` now: `None` when it does, else why
/// not (git's message). A peer that does not answer is still a peer — a laptop that is
/// offline today — so `cn peer add` warns with this and records it anyway.
pub fn peer_unreachable(hub: &Hub, name: &str) -> Option<String> {
    let peer = match hub.require_peer(name) {
        Ok(p) => p,
        Err(e) => return Some(cn_compute::chain(&e)),
    };
    hub.git().ls_remote_answers(&peer.remote, PEER_CHECK).err().map(|e| cn_compute::chain(&e))
}

/// `cn peer add`: record a peer (a local path is made absolute, so git finds it from
/// anywhere).
pub fn add_peer(hub: &Hub, name: &str, remote: &str) -> Result<()> {
    // Checked before the lock too, so a refused name says so at once; `Hub::add_peer` checks
    // the name and the remote again (credentials included) for every other caller.
    if let Some(why) = cn_hub::hub::peer_name_problem(name, hub.name()) {
        return Err(AgentError::Invalid(format!("peer name: {why}")));
    }
    let _lock = lock(hub)?;
    let path = std::path::Path::new(remote);
    let remote = match path.exists().then(|| path.canonicalize()) {
        Some(Ok(abs)) => abs.to_string_lossy().into_owned(),
        _ => remote.to_string(),
    };
    hub.add_peer(name, &remote)?;
    hub.git().commit_paths(&format!("cn peer add {name}"), &cn_hub::layout::OWN)?;
    Ok(())
}
