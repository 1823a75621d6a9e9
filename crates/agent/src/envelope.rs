//! A mail's envelope: who sent it to whom, its id, when, and the SHA-256 of its bytes. It is
//! the message of the mail's commit in the sender's repository, so the receiver reads it with
//! the content in one `git cat-file --batch`, and checks it before filing anything.
//!
//! ```text
//! mail <id> from <sender> to <recipient>
//!
//! cn-envelope: 1
//! from: <sender>
//! to: <recipient>
//! id: <id>
//! created: <RFC 3339>
//! sha256: <64 hex digits of the file's bytes>
//! ```
//!
//! Invariant: the envelope is parsed from bytes and never trusted alone: [`Envelope::check`]
//! holds it against where the mail was fetched (the sender is the peer whose repository holds
//! it), the branch it came on, this hub's name and the content's own digest.

/// Why a mail's envelope is missing or does not fit the mail (the reason in the notice the
/// sender gets).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("its commit carries no envelope (`cn-envelope: 1`)")]
    Missing,
    #[error("its envelope has no `{0}`")]
    NoField(&'static str),
    #[error("its envelope says it is from `{said}`, but it came from `{peer}`")]
    From { said: String, peer: String },
    #[error("its envelope addresses it to `{said}`, not `{me}`")]
    To { said: String, me: String },
    #[error("its envelope's id `{said}` does not match the branch's `{id}`")]
    Id { said: String, id: String },
    #[error("its envelope's `created` {0:?} is not an RFC 3339 time")]
    Created(String),
    #[error("its content's sha256 is {actual}, but its envelope says {said} (altered or truncated)")]
    Digest { actual: String, said: String },
}

/// The envelope of one mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Envelope {
    pub from: String,
    pub to: String,
    pub id: String,
    pub created: String,
    pub sha256: String,
}

/// The envelope format's version line.
const VERSION: &str = "cn-envelope: 1";

impl Envelope {
    /// The envelope of `content` sent as mail `id` from `from` to `to`.
    pub fn new(from: &str, to: &str, id: &str, created: &str, content: &[u8]) -> Envelope {
        Envelope {
            from: from.into(),
            to: to.into(),
            id: id.into(),
            created: created.into(),
            sha256: cn_hub::id::sha256_hex(content),
        }
    }

    /// The commit message that carries it.
    pub fn render(&self) -> String {
        let Envelope { from, to, id, created, sha256 } = self;
        format!(
            "mail {id} from {from} to {to}\n\n{VERSION}\nfrom: {from}\nto: {to}\nid: {id}\ncreated: {created}\nsha256: {sha256}\n"
        )
    }

    /// The envelope in a raw commit object (`git cat-file` output: headers, a blank line,
    /// the message), or why there is none.
    pub fn from_commit(commit: &[u8]) -> Result<Envelope, EnvelopeError> {
        let start = commit.windows(2).position(|w| w == b"\n\n").map_or(commit.len(), |i| i + 2);
        let message = String::from_utf8_lossy(&commit[start..]);
        let mut lines = message.lines().skip_while(|l| l.trim() != VERSION);
        if lines.next().is_none() {
            return Err(EnvelopeError::Missing);
        }
        let mut fields = std::collections::BTreeMap::new();
        for line in lines {
            if let Some((k, v)) = line.split_once(": ") {
                fields.entry(k.trim()).or_insert_with(|| v.trim().to_string());
            }
        }
        let mut take = |k: &'static str| fields.remove(k).ok_or(EnvelopeError::NoField(k));
        Ok(Envelope {
            from: take("from")?,
            to: take("to")?,
            id: take("id")?,
            created: take("created")?,
            sha256: take("sha256")?,
        })
    }

    /// Why this envelope does not fit mail `id` fetched from peer `peer` for `me` with bytes
    /// `content`, or `Ok`.
    pub fn check(&self, peer: &str, me: &str, id: &str, content: &[u8]) -> Result<(), EnvelopeError> {
        if self.from != peer {
            return Err(EnvelopeError::From { said: self.from.clone(), peer: peer.to_string() });
        }
        if self.to != me {
            return Err(EnvelopeError::To { said: self.to.clone(), me: me.to_string() });
        }
        if self.id != id {
            return Err(EnvelopeError::Id { said: self.id.clone(), id: id.to_string() });
        }
        if cn_storage::parse_rfc3339(&self.created).is_none() {
            return Err(EnvelopeError::Created(self.created.clone()));
        }
        let actual = cn_hub::id::sha256_hex(content);
        if !self.sha256.eq_ignore_ascii_case(&actual) {
            return Err(EnvelopeError::Digest { actual, said: self.sha256.clone() });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit_of(message: &str) -> Vec<u8> {
        format!("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a@x> 0 +0000\ncommitter a <a@x> 0 +0000\n\n{message}")
            .into_bytes()
    }

    #[test]
    fn an_envelope_reads_back_from_its_commit_and_checks_its_content() {
        let body = b"---\nid: m1\n---\nhello \xff\n";
        let e = Envelope::new("a", "b", "m1", "2026-11-23T10:00:00Z", body);
        let back = Envelope::from_commit(&commit_of(&e.render())).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.check("a", "b", "m1", body), Ok(()));
        assert!(back.check("a", "b", "m1", b"other").unwrap_err().to_string().contains("sha256"));
        assert!(back.check("mallory", "b", "m1", body).unwrap_err().to_string().contains("from `a`"));
        assert!(back.check("a", "c", "m1", body).unwrap_err().to_string().contains("not `c`"));
        assert!(back.check("a", "b", "m2", body).unwrap_err().to_string().contains("`m2`"));
        let mut late = e.clone();
        late.created = "yesterday".into();
        assert!(late.check("a", "b", "m1", body).unwrap_err().to_string().contains("RFC 3339"));
    }

    #[test]
    fn a_commit_without_an_envelope_or_a_field_is_named() {
        assert!(Envelope::from_commit(&commit_of("junk\n")).unwrap_err().to_string().contains("no envelope"));
        let e =
            Envelope::from_commit(&commit_of("x\n\ncn-envelope: 1\nfrom: a\nto: b\nid: m\ncreated: t\n")).unwrap_err();
        assert!(e.to_string().contains("`sha256`"), "{e}");
        // Bytes that are not UTF-8 anywhere in the object are no crash.
        assert!(Envelope::from_commit(b"\xff\xfe\n\n\xff").is_err());
        assert!(Envelope::from_commit(b"").is_err());
    }
}
