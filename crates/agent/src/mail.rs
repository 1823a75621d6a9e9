//! Mail to a peer: a thread file in `threads/mail/outbox/<id>.md` until `cn sync` pushes it,
//! then in `threads/mail/sent/`. Frontmatter: `id` (the thread id, also the branch name
//! `<to>/<id>` and the item id at the peer), `to`, `from`, `thread` (the conversation),
//! `created`, and optionally `kind` (`notice`), `reply-to`, `subject`.
//!
//! Invariant: mail written as an effect of a decision has an id derived from the decision,
//! and is not written again once it is in the outbox or sent — so an effect repeated after a
//! crash never mails twice.

use std::path::PathBuf;

use cn_storage::Doc;

use crate::error::{io_at, ParseError, Result};
use crate::hub::Hub;
use crate::item::ensure_newline;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    pub id: String,
    pub to: String,
    pub from: String,
    pub thread: String,
    pub created: String,
    pub kind: Option<String>,
    pub reply_to: Option<String>,
    /// A one-line summary, when `body` is the full text.
    pub subject: Option<String>,
    /// How many messages deep in its thread (0: the thread's first; a reply is one deeper).
    pub depth: u32,
    pub body: String,
}

impl Mail {
    pub fn to_doc(&self) -> Doc {
        let mut doc = Doc::default();
        doc.set("id", self.id.as_str());
        doc.set("to", self.to.as_str());
        doc.set("from", self.from.as_str());
        doc.set("thread", self.thread.as_str());
        doc.set("created", self.created.as_str());
        if let Some(k) = &self.kind {
            doc.set("kind", k.as_str());
        }
        if let Some(r) = &self.reply_to {
            doc.set("reply-to", r.as_str());
        }
        if let Some(s) = &self.subject {
            doc.set("subject", s.as_str());
        }
        if self.depth > 0 {
            doc.set("depth", self.depth.to_string());
        }
        doc.body = ensure_newline(&self.body);
        doc
    }

    pub fn render(&self) -> String {
        self.to_doc().render()
    }

    pub fn parse(text: &str) -> std::result::Result<Mail, ParseError> {
        let doc = Doc::parse(text)?;
        let req = |k: &'static str| doc.get_str(k).map(str::to_string).ok_or(ParseError::Missing(k));
        let id = req("id")?;
        if !crate::hub::valid_name(&id) {
            return Err(ParseError::BadId(id));
        }
        let opt = |k: &str| doc.get_str(k).map(str::to_string);
        Ok(Mail {
            to: req("to")?,
            from: req("from")?,
            thread: opt("thread").unwrap_or_else(|| id.clone()),
            created: opt("created").unwrap_or_default(),
            kind: opt("kind"),
            reply_to: opt("reply-to"),
            subject: opt("subject"),
            depth: crate::item::depth_of(&doc),
            body: doc.body.clone(),
            id,
        })
    }

    pub fn outbox_path(&self, hub: &Hub) -> PathBuf {
        hub.outbox().join(format!("{}.md", self.id))
    }
}

/// Put `mail` in the outbox unless it is already there or sent.
pub fn post(hub: &Hub, mail: &Mail) -> Result<PathBuf> {
    let path = mail.outbox_path(hub);
    let sent = hub.sent().join(format!("{}.md", mail.id));
    if path.is_file() || sent.is_file() {
        return Ok(path);
    }
    cn_storage::write_atomic(&path, mail.render().as_bytes()).map_err(io_at(&path))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_parses_back() {
        let m = Mail {
            id: "abc".into(),
            to: "pi".into(),
            from: "sigma".into(),
            thread: "t1".into(),
            created: "2026-01-06T15:00:00Z".into(),
            kind: Some("notice".into()),
            reply_to: None,
            subject: Some("summary".into()),
            depth: 3,
            body: "full response\n".into(),
        };
        assert_eq!(Mail::parse(&m.render()).unwrap(), m);
        assert!(Mail::parse("---\nid: x\n---\n").unwrap_err().to_string().contains("`to`"));
    }
}
