//! Provenance: who an item is from — the owner (authenticated), a named peer, or a public
//! source (which sense, which user). Effects are decided by it, never by what a model says
//! (`Policy::allows_from`).
//!
//! It is derived from the item's frontmatter, which cn writes and no sender sets: `from`
//! (`owner`, a peer's name, a sense's name), `sense`, `author-id`, and for the agent's own
//! impulses `impulse` with `source` — the provenance of the item that filed the task or idea
//! the impulse came from, so a stranger's request cannot be laundered into the agent's own
//! work by being filed first.

use std::fmt;

use cn_storage::Doc;

use crate::{Layout, OWNER};

/// The senses whose items are a public source's (`Provenance::Public`): the names a
/// `policy.from:` key may give, alone or as `SENSE:USER`.
pub const PUBLIC_SENSES: &[&str] = &["github", "discord", "telegram", "email", "calendar", "file"];

/// Who an item (or a tool call made for it) is from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Provenance {
    /// The owner: `cn chat`, the owner endpoint with its token, an owner id on Discord or
    /// Telegram, the owner's own commands — and the agent's own impulses from the owner's
    /// configuration (the schedule, reflections).
    Owner,
    /// A peer hub named in `cn.yaml` or `cn peer add`.
    Peer(String),
    /// Anyone else: a sense (`github`, `discord`, `email` …, or the name given to
    /// `cn input --from`) and, when the sense knows it, the user.
    Public { sense: String, user: Option<String> },
}

impl Provenance {
    /// The provenance of an item an older cn wrote, from the keys it carries (an item's typed
    /// `origin:` names its author: [`crate::Origin::of_doc`]); `is_peer` says whether a name
    /// is a known peer.
    pub(crate) fn of_legacy(doc: &Doc, is_peer: impl Fn(&str) -> bool) -> Provenance {
        let from = doc.get_str("from").unwrap_or_default();
        if from == OWNER {
            return Provenance::Owner;
        }
        if doc.get_str("impulse").is_some() {
            // The agent's own work: as trusted as whoever filed what it came from.
            return doc.get_str("source").map_or(Provenance::Owner, Provenance::parse);
        }
        if let Some(sense) = doc.get_str("sense") {
            let user = doc.get_str("author-id").filter(|u| !u.is_empty()).map(str::to_string);
            return Provenance::Public { sense: sense.to_string(), user };
        }
        if is_peer(from) {
            return Provenance::Peer(from.to_string());
        }
        Provenance::Public { sense: if from.is_empty() { "unknown".into() } else { from.to_string() }, user: None }
    }

    /// The hub's current item (`state/input.md`), if there is one: its provenance and id.
    pub fn of_current(layout: &Layout) -> Option<(Provenance, Option<String>)> {
        let text = std::fs::read_to_string(layout.input()).ok()?;
        let doc = Doc::parse(&text).ok()?;
        let id = doc.get_str("id").map(str::to_string);
        // The peers are read only for an older cn's item from neither the owner nor a sense.
        let is_peer = |name: &str| crate::hub::peer_names(layout).iter().any(|p| p == name);
        Some((crate::Origin::of_doc(&doc, is_peer).author, id))
    }

    /// The label written to the journal, tasks' `source` and approvals: `owner`,
    /// `peer:NAME`, `SENSE` or `SENSE:USER`. [`Provenance::parse`] reads it back.
    pub fn label(&self) -> String {
        match self {
            Provenance::Owner => OWNER.into(),
            Provenance::Peer(name) => format!("peer:{name}"),
            Provenance::Public { sense, user: Some(user) } => format!("{sense}:{user}"),
            Provenance::Public { sense, user: None } => sense.clone(),
        }
    }

    /// Read a [`label`](Provenance::label) back.
    pub fn parse(label: &str) -> Provenance {
        if label == OWNER {
            return Provenance::Owner;
        }
        if let Some(name) = label.strip_prefix("peer:") {
            return Provenance::Peer(name.to_string());
        }
        match label.split_once(':') {
            Some((sense, user)) => Provenance::Public { sense: sense.into(), user: Some(user.into()) },
            None => Provenance::Public { sense: label.into(), user: None },
        }
    }

    pub fn is_owner(&self) -> bool {
        matches!(self, Provenance::Owner)
    }

    /// Whether it names no one: a public source whose sender the sense could not vouch for
    /// (every unauthenticated mail is `email`; a name given to `cn input --from`). Everyone
    /// such shares the one label, so it is no author (issue 42): what it filed is nobody's to
    /// list, change or read back — it may file, and owns nothing.
    pub fn is_unnamed(&self) -> bool {
        matches!(self, Provenance::Public { user: None, .. })
    }

    /// Whether a reflex's `from:` names this author: `anyone`, `owner`, `peer` (any peer) or
    /// `peer:NAME`, `public` (anyone not the owner or a peer), a sense (`telegram`: its
    /// strangers) or `SENSE:USER`.
    pub fn matches(&self, pattern: &str) -> bool {
        match (pattern, self) {
            ("anyone", _) => true,
            ("owner", Provenance::Owner) => true,
            ("peer" | "peers", Provenance::Peer(_)) => true,
            ("public", Provenance::Public { .. }) => true,
            (p, Provenance::Peer(name)) => p.strip_prefix("peer:") == Some(name.as_str()),
            (p, Provenance::Public { sense, user }) => match p.split_once(':') {
                Some((s, u)) => s == sense && user.as_deref() == Some(u),
                None => p == sense,
            },
            _ => false,
        }
    }

    /// The `policy.from:` keys that may widen what this provenance may cause, narrowest
    /// last: `anyone`, then `peers` and the peer's name, or the sense and `sense:user`.
    pub fn policy_keys(&self) -> Vec<String> {
        let mut keys = vec!["anyone".to_string()];
        match self {
            Provenance::Owner => {}
            Provenance::Peer(name) => {
                keys.push("peers".into());
                keys.push(format!("peer:{name}"));
            }
            Provenance::Public { sense, user } => {
                keys.push(sense.clone());
                if let Some(user) = user {
                    keys.push(format!("{sense}:{user}"));
                }
            }
        }
        keys
    }
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Provenance::Owner => f.write_str("the owner"),
            Provenance::Peer(name) => write!(f, "peer `{name}`"),
            Provenance::Public { sense, user: Some(user) } => write!(f, "`{user}` on {sense}"),
            Provenance::Public { sense, user: None } => write!(f, "{sense}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(keys: &[(&str, &str)]) -> Doc {
        let mut d = Doc::default();
        for (k, v) in keys {
            d.set(k, *v);
        }
        d
    }

    #[test]
    fn provenance_comes_from_what_cn_wrote_never_from_a_claim() {
        let peer = |n: &str| n == "ada";
        assert_eq!(Provenance::of_legacy(&doc(&[("from", "owner")]), peer), Provenance::Owner);
        assert_eq!(Provenance::of_legacy(&doc(&[("from", "ada")]), peer), Provenance::Peer("ada".into()));
        let gh =
            Provenance::of_legacy(&doc(&[("from", "github"), ("sense", "github"), ("author-id", "mallory")]), peer);
        assert_eq!(gh.label(), "github:mallory");
        assert_eq!(Provenance::parse(&gh.label()), gh);
        // A name the owner typed to `cn input --from`, not a peer.
        assert_eq!(Provenance::of_legacy(&doc(&[("from", "bob")]), peer).label(), "bob");
        // The agent's own impulse: as trusted as what filed it.
        assert_eq!(Provenance::of_legacy(&doc(&[("from", "sigma"), ("impulse", "schedule")]), peer), Provenance::Owner);
        let laundered = doc(&[("from", "sigma"), ("impulse", "task"), ("source", "github:mallory")]);
        assert_eq!(Provenance::of_legacy(&laundered, peer), gh);
        assert_eq!(Provenance::parse("peer:ada"), Provenance::Peer("ada".into()));
        assert!(Provenance::parse("email").is_unnamed() && !gh.is_unnamed() && !Provenance::Owner.is_unnamed());
        assert!(!Provenance::Peer("ada".into()).is_unnamed());
        assert_eq!(
            Provenance::Peer("ada".into()).policy_keys(),
            ["anyone", "peers", "peer:ada"].map(String::from).to_vec()
        );
    }
}
