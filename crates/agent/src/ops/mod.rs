//! The ops: what each decision does, one file each. Every op is a function of the item, the
//! decision and its timestamp (recorded first in `state/output.md`), and names the files it
//! writes after them — so performing it again after a crash writes the same files and mails
//! nothing twice.
//!
//! An op returns an [`Effect`]: the note appended to the item's thread, where the item goes,
//! the mail it posted, and facts for the journal.

use serde_json::{Map, Value};

use crate::error::Result;
use crate::gtd::{Gtd, Op};
use crate::hub::Hub;
use crate::item::Item;
use cn_hub::id::stable as stable_id;
use crate::mail::{post, Mail};

mod ack;
mod commit;
mod defer;
mod delegate;
mod delete;
mod noop;
mod reply;
mod send;
mod surface;

pub(crate) use commit::resolve as resolve_artifact;

/// What a decision is performed with.
pub(crate) struct Ctx<'a> {
    pub hub: &'a Hub,
    pub item: &'a Item,
    /// When the decision was made (RFC 3339).
    pub ts: &'a str,
    /// The decision's unique key: the seed of every name the op makes.
    pub key: &'a str,
}

/// Where a decided item goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// `threads/archived/`, or `threads/reflections/<cadence>/` for a reflection.
    Done,
    /// `threads/deferred/`, back to the queue at `until`.
    Deferred { until: Option<String> },
}

/// What an op did.
pub(crate) struct Effect {
    /// Appended to the item's thread under a heading naming the decision.
    pub note: String,
    pub target: Target,
    /// Ids of mail posted.
    pub mail: Vec<String>,
    /// Extra facts for the journal entry.
    pub facts: Map<String, Value>,
}

impl Effect {
    pub fn done(note: impl Into<String>) -> Effect {
        Effect { note: note.into(), target: Target::Done, mail: Vec::new(), facts: Map::new() }
    }
}

impl Ctx<'_> {
    /// Mail from this hub with an id derived from the decision and `purpose`.
    pub fn mail(&self, to: &str, purpose: &str, body: String) -> Mail {
        Mail {
            id: stable_id(&format!("{}:{}:{}:{}", self.hub.name(), self.item.id, self.key, purpose)),
            to: to.to_string(),
            from: self.hub.name().to_string(),
            thread: self.item.thread.clone(),
            created: self.ts.to_string(),
            kind: None,
            reply_to: None,
            subject: None,
            body,
        }
    }

    pub fn post(&self, mail: &Mail) -> Result<String> {
        post(self.hub, mail)?;
        Ok(mail.id.clone())
    }

    /// Who hears what became of the item: its `reply-to` when that is a peer (a delegated
    /// item answers its origin), else its sender when that is a peer; never the owner or the
    /// agent itself.
    pub fn notify_target(&self) -> Result<Option<String>> {
        let peers = self.hub.peers()?;
        let candidates = self.item.reply_to.iter().chain(std::iter::once(&self.item.from));
        Ok(candidates.into_iter().find(|p| peers.contains_key(p.as_str()) && p.as_str() != self.hub.name()).cloned())
    }
}

/// Perform `gtd` on the item.
pub(crate) fn perform(ctx: &Ctx, gtd: &Gtd) -> Result<Effect> {
    let mut effect = match gtd {
        Gtd::Do(Op::Reply { message }) => reply::perform(ctx, message)?,
        Gtd::Do(Op::Send { to, message, body }) => send::perform(ctx, to, message, body.as_deref())?,
        Gtd::Do(Op::Noop { reason }) => noop::perform(ctx, reason),
        Gtd::Do(Op::Ack { reason }) => ack::perform(ctx, reason),
        Gtd::Do(Op::Surface { desc }) => surface::perform(ctx, desc)?,
        Gtd::Do(Op::Commit { artifact }) => commit::perform(ctx, artifact)?,
        Gtd::Defer { reason, until } => defer::perform(ctx, reason, until.as_deref()),
        Gtd::Delegate { to } => delegate::perform(ctx, to)?,
        Gtd::Delete { reason } => delete::perform(ctx, reason),
    };
    // Automatic notification: a peer's item tells the peer what became of it. A reply is
    // its own notice; a notice is never answered with one (no endless ping-pong).
    let replied = matches!(gtd, Gtd::Do(Op::Reply { .. }));
    if !replied && !ctx.item.is_notice() {
        if let Some(peer) = ctx.notify_target()? {
            let mut m = ctx.mail(&peer, "notice", notice_text(ctx, gtd));
            m.kind = Some(crate::item::NOTICE.to_string());
            m.subject = Some(format!("{}: {}", ctx.item.id, gtd.summary()));
            effect.mail.push(ctx.post(&m)?);
        }
    }
    Ok(effect)
}

fn notice_text(ctx: &Ctx, gtd: &Gtd) -> String {
    let mut s = format!("{} decided on your item `{}`: {}\n", ctx.hub.name(), ctx.item.id, gtd.label());
    for (k, v) in gtd.fields() {
        s.push_str(&format!("\n{k}: {v}\n"));
    }
    s
}
