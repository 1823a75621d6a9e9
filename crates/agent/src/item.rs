//! An item: one piece of work for the agent — a markdown file with YAML frontmatter
//! (`id`, `from`, `cadence`, `queued`, then what this layer needs: `thread`, `reply-to`,
//! `kind`, and once decided `decided` and the decision). The same file moves, by rename,
//! from `threads/inbox/` to `state/input.md` to where its decision puts it, so an item is in
//! exactly one place at every instant.

use std::path::Path;

use cn_hub::{AnswerTo, Kind, Origin, Sense};
use cn_storage::Doc;
use serde::{Deserialize, Serialize};
use serde_yaml_ng::Value;

use crate::error::{io_at, parse_at, ParseError, Result};

/// How often an item recurs; `inbox` for mail and one-off work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Cadence {
    #[default]
    Inbox,
    Daily,
    Weekly,
    Monthly,
    Quarterly,
    Yearly,
    Adhoc,
}

impl Cadence {
    pub const ALL: [Cadence; 7] = [
        Cadence::Inbox,
        Cadence::Daily,
        Cadence::Weekly,
        Cadence::Monthly,
        Cadence::Quarterly,
        Cadence::Yearly,
        Cadence::Adhoc,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Cadence::Inbox => "inbox",
            Cadence::Daily => "daily",
            Cadence::Weekly => "weekly",
            Cadence::Monthly => "monthly",
            Cadence::Quarterly => "quarterly",
            Cadence::Yearly => "yearly",
            Cadence::Adhoc => "adhoc",
        }
    }

    pub fn parse(s: &str) -> Option<Cadence> {
        Cadence::ALL.into_iter().find(|c| c.as_str() == s)
    }

    /// A reflection cadence: its outcomes go to `threads/reflections/<cadence>/`.
    pub fn is_reflection(self) -> bool {
        !matches!(self, Cadence::Inbox | Cadence::Adhoc)
    }
}

/// What `kind` an automatic answer has: a reply made below the executive (a reflex, the
/// small local model). An automatic answer is never sent in reply to another agent's
/// automatic message (an [`AUTO`] reply or a [`NOTICE`]), so two agents cannot answer each
/// other forever.
pub const AUTO: &str = "auto";

/// The most messages a thread between agents holds: past it, no reply or notice is mailed.
pub const MAX_THREAD_DEPTH: u32 = 8;

/// An item's or a mail's `depth` (0 when absent).
pub fn depth_of(doc: &Doc) -> u32 {
    match doc.get("depth") {
        Some(v) => v.as_u64().map(|n| n as u32).or_else(|| v.as_str().and_then(|s| s.parse().ok())).unwrap_or(0),
        None => 0,
    }
}

/// What `kind` a notice has: cn's own report on a decision. Deciding a notice never sends a
/// notice back, so two agents cannot notify each other forever.
pub const NOTICE: &str = "notice";

/// The frontmatter key of who decided an item, in words ([`Marks::decided_by`]).
pub const DECIDED_BY: &str = "decided-by";

/// The frontmatter key of what a deferred item waits for besides a time ([`Marks::waits_for`]):
/// `executive` (released when one is configured) or an approval's id (released when the owner
/// decides it).
pub const WAITS_FOR: &str = "waits-for";

/// cn's own marks on an item: frontmatter keys cn writes and reads back (a crash is finished
/// from the file). Read with the file, and again with every [`Item::set`] and [`Item::unset`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    /// This taking of the item (`turn`): a decision recorded for an earlier one is not its.
    pub turn: Option<String>,
    /// The key of the decision it is marked with (`decision-key`).
    pub decision_key: Option<String>,
    /// The level it was decided at (`decided-at-level`).
    pub level: Option<u8>,
    /// Who decided it, in words ([`DECIDED_BY`]).
    pub decided_by: Option<String>,
    /// When a deferred item comes back (`until`).
    pub until: Option<String>,
    /// What a deferred item waits for besides a time ([`WAITS_FOR`]).
    pub waits_for: Option<String>,
    /// The task an impulse's item rose from (`task`, its id).
    pub task: Option<String>,
    /// The idea an impulse's item rose from (`idea`, its id).
    pub idea: Option<String>,
}

impl Marks {
    pub const TURN: &'static str = "turn";
    pub const DECISION_KEY: &'static str = "decision-key";
    pub const LEVEL: &'static str = "decided-at-level";
    pub const UNTIL: &'static str = "until";
    pub const TASK: &'static str = "task";
    pub const IDEA: &'static str = "idea";

    fn of(doc: &Doc) -> Marks {
        let text = |key: &str| doc.get_str(key).map(str::to_string);
        Marks {
            turn: text(Marks::TURN),
            decision_key: text(Marks::DECISION_KEY),
            level: doc.get(Marks::LEVEL).and_then(Value::as_u64).and_then(|l| u8::try_from(l).ok()),
            decided_by: text(DECIDED_BY),
            until: text(Marks::UNTIL),
            waits_for: text(WAITS_FOR),
            task: text(Marks::TASK),
            idea: text(Marks::IDEA),
        }
    }
}

/// An item as this layer reads it; other frontmatter keys are kept in `doc`.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub id: String,
    pub from: String,
    pub cadence: Cadence,
    /// When it entered the queue (RFC 3339).
    pub queued: String,
    /// The conversation it belongs to (its own id when it starts one).
    pub thread: String,
    /// Who should hear what became of it, when not `from` (set when a peer delegates).
    pub reply_to: Option<String>,
    /// `notice` for cn's reports on decisions.
    pub kind: Option<String>,
    pub content: String,
    /// The whole document, other keys included.
    pub doc: Doc,
    /// Its `origin:` field, read once with the file (`None` for an item an older cn wrote,
    /// whose origin [`Item::origin`] derives from its keys).
    origin: Option<Origin>,
    /// cn's own marks, read with the file.
    marks: Marks,
}

impl Item {
    /// A new item; `thread` defaults to its id.
    pub fn new(id: &str, from: &str, cadence: Cadence, content: &str) -> Item {
        let mut doc = Doc::default();
        doc.set("id", id);
        doc.set("from", from);
        doc.set("cadence", cadence.as_str());
        doc.set("queued", cn_storage::now_rfc3339());
        doc.set("thread", id);
        doc.body = ensure_newline(content);
        // Infallible: every required key was just set.
        Item::from_doc(doc).unwrap_or_else(|_| unreachable!("a new item has every key"))
    }

    pub fn from_doc(doc: Doc) -> std::result::Result<Item, ParseError> {
        let req = |k: &'static str| doc.get_str(k).map(str::to_string).ok_or(ParseError::Missing(k));
        let id = req("id")?;
        if !crate::hub::valid_name(&id) {
            return Err(ParseError::BadId(id));
        }
        let cadence_s = doc.get_str("cadence").unwrap_or("inbox");
        let cadence = Cadence::parse(cadence_s).ok_or_else(|| ParseError::BadCadence(cadence_s.to_string()))?;
        Ok(Item {
            from: req("from")?,
            cadence,
            queued: doc.get_str("queued").unwrap_or("").to_string(),
            thread: doc.get_str("thread").unwrap_or(&id).to_string(),
            reply_to: doc.get_str("reply-to").map(str::to_string),
            kind: doc.get_str("kind").map(str::to_string),
            content: doc.body.clone(),
            origin: Origin::read(&doc),
            marks: Marks::of(&doc),
            id,
            doc,
        })
    }

    /// What its sender wrote: the content before the first note the hub `hub` appended to it
    /// (`## <decision> — <hub> (<time>)`, written when a decision — a hand-up included — was
    /// made on it). What learns from people reads this, never cn's own words.
    pub fn said(&self, hub: &str) -> &str {
        let mark = format!(" — {hub} (");
        let mut at = 0;
        for line in self.content.split_inclusive('\n') {
            let l = line.trim_end();
            if l.starts_with("## ") && l.ends_with(')') && l.contains(&mark) {
                return self.content[..at].trim_end();
            }
            at += line.len();
        }
        self.content.trim_end()
    }

    pub fn parse(text: &str) -> std::result::Result<Item, ParseError> {
        Item::from_doc(Doc::parse(text)?)
    }

    /// Read an item file; errors name the file.
    pub fn read(path: &Path) -> Result<Item> {
        let text = std::fs::read_to_string(path).map_err(io_at(path))?;
        Item::parse(&text).map_err(parse_at(path))
    }

    /// Read if it exists.
    pub fn read_opt(path: &Path) -> Result<Option<Item>> {
        match std::fs::read_to_string(path) {
            Ok(text) => Item::parse(&text).map(Some).map_err(parse_at(path)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_at(path)(e)),
        }
    }

    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.doc.set(key, value);
        if key == cn_hub::origin::KEY {
            self.origin = Origin::read(&self.doc);
        }
        self.marks = Marks::of(&self.doc);
    }

    /// Remove the frontmatter key `key`.
    pub fn unset(&mut self, key: &str) {
        self.doc.front.remove(key);
        if key == cn_hub::origin::KEY {
            self.origin = Origin::read(&self.doc);
        }
        self.marks = Marks::of(&self.doc);
    }

    /// cn's own marks on it ([`Marks`]).
    pub fn marks(&self) -> &Marks {
        &self.marks
    }

    pub fn render(&self) -> String {
        let mut doc = self.doc.clone();
        doc.body = self.content.clone();
        doc.render()
    }

    /// Write it atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        cn_storage::write_atomic(path, self.render().as_bytes()).map_err(io_at(path))
    }

    pub fn is_notice(&self) -> bool {
        self.origin_kind() == Kind::Notice
    }

    /// Another agent's automatic message: its automatic answer or a notice.
    pub fn is_automatic(&self) -> bool {
        self.origin_kind().is_automatic()
    }

    /// Where the item came from and where its answer goes (`cn_hub::Origin`): its `origin:`
    /// field as read with the file, or what an older cn's keys imply. `is_peer` says whether
    /// a name is a known peer (asked only of an older cn's item).
    pub fn origin(&self, is_peer: impl Fn(&str) -> bool) -> Origin {
        match &self.origin {
            Some(origin) => origin.clone(),
            None => Origin::of_doc(&self.doc, is_peer),
        }
    }

    /// [`Item::origin`] with the hub's peers (read only for an older cn's item).
    pub fn origin_in(&self, hub: &crate::Hub) -> Origin {
        if let Some(origin) = &self.origin {
            return origin.clone();
        }
        let peers = hub.peers().unwrap_or_default();
        self.origin(|name| peers.contains_key(name))
    }

    /// Its origin as read with the file, the peers not asked: an older cn's item is derived
    /// as if its sender were no peer — which changes only its author (a peer or a stranger,
    /// never the owner) and a peer's answer (to the peer, or none): never what it is, the
    /// sense it came by, whether it is the owner's, nor a sense's channel to answer on.
    fn known_origin(&self) -> std::borrow::Cow<'_, Origin> {
        match &self.origin {
            Some(origin) => std::borrow::Cow::Borrowed(origin),
            None => std::borrow::Cow::Owned(Origin::of_doc(&self.doc, |_| false)),
        }
    }

    /// What the item is (a person's message, an automatic answer, an impulse, an event): the
    /// kind of its origin, which does not depend on who the peers are.
    pub fn origin_kind(&self) -> Kind {
        self.known_origin().kind
    }

    /// The sense it came by (its origin's), which does not depend on who the peers are.
    pub fn sense(&self) -> Sense {
        self.known_origin().sense
    }

    /// Whether the owner wrote it (its origin's author), which does not depend on who the
    /// peers are.
    pub fn is_owners(&self) -> bool {
        self.known_origin().author.is_owner()
    }

    /// Where its answer goes on a sense's channel — the chat, a Telegram chat, a Discord
    /// channel, a mail's thread — if anywhere: its origin's `AnswerTo` (read with the
    /// file). A peer's answer ([`AnswerTo::Peer`]) of an older cn's item needs the peers:
    /// [`Item::origin_in`].
    pub fn answer_to(&self) -> Option<AnswerTo> {
        self.known_origin().answer.clone()
    }

    /// Record where it came from (the one `origin:` field); its thread too, when the origin
    /// names one.
    pub fn set_origin(&mut self, origin: &Origin) {
        origin.write(&mut self.doc);
        self.origin = Some(origin.clone());
        if let Some(thread) = &origin.thread {
            self.thread = thread.clone();
            self.doc.set("thread", thread.as_str());
        }
    }

    /// How deep in its thread (see [`MAX_THREAD_DEPTH`]).
    pub fn depth(&self) -> u32 {
        depth_of(&self.doc)
    }

    /// The `{"id","from","content","cadence"}` object of `cn input --json`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({"id": self.id, "from": self.from, "content": self.content, "cadence": self.cadence.as_str()});
        // A mail's subject, when it has one.
        if let Some(subject) = self.doc.get_str("subject") {
            v["subject"] = subject.into();
        }
        v
    }
}

pub(crate) fn ensure_newline(s: &str) -> String {
    if s.is_empty() || s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_hub::id::{new as new_id, stable as stable_id};

    /// cn's marks are read with the file, and follow every set and unset.
    #[test]
    fn its_marks_are_read_with_the_file_and_follow_set_and_unset() {
        let mut item = Item::new("m-1", "owner", Cadence::Inbox, "hi");
        assert_eq!(item.marks(), &Marks::default());
        item.set(Marks::TURN, "t-1");
        item.set(Marks::LEVEL, 2u64);
        item.set(WAITS_FOR, "executive");
        item.set(Marks::UNTIL, "2026-01-06T15:00:00Z");
        let read = Item::parse(&item.render()).unwrap();
        let marks = Marks {
            turn: Some("t-1".into()),
            level: Some(2),
            waits_for: Some("executive".into()),
            until: Some("2026-01-06T15:00:00Z".into()),
            ..Marks::default()
        };
        assert_eq!((item.marks(), read.marks()), (&marks, &marks));
        item.unset(WAITS_FOR);
        item.set(Marks::DECISION_KEY, "k-1");
        item.set(Marks::TASK, "t-7");
        item.set(DECIDED_BY, "reflex `hello`");
        let after = Marks {
            waits_for: None,
            decision_key: Some("k-1".into()),
            decided_by: Some("reflex `hello`".into()),
            task: Some("t-7".into()),
            ..marks
        };
        assert_eq!(item.marks(), &after);
        assert_eq!(Item::parse(&item.render()).unwrap().marks(), &after);
        // A level no cn writes (a hand-edited or foreign file) is none, never another level.
        item.set(Marks::LEVEL, 258u64);
        assert_eq!(Item::parse(&item.render()).unwrap().marks().level, None);
    }

    #[test]
    fn the_documents_input_item_reads_and_prints_as_json() {
        let text = "---\nid: abc123\nfrom: pi\ncadence: inbox\nqueued: 2026-01-06T15:00:00Z\n---\n\nPlease review\n";
        let item = Item::parse(text).unwrap();
        assert_eq!((item.id.as_str(), item.from.as_str(), item.cadence), ("abc123", "pi", Cadence::Inbox));
        assert_eq!(item.thread, "abc123");
        assert_eq!(item.render(), text);
        assert_eq!(
            item.to_json(),
            serde_json::json!({"id": "abc123", "from": "pi", "content": "Please review\n", "cadence": "inbox"})
        );
    }

    #[test]
    fn an_items_origin_is_read_once_with_it_and_peers_only_for_an_older_one() {
        let text = "---\nid: m1\nfrom: bob\norigin:\n  sense: peer\n  author: peer:bob\n  kind: message\n  answer:\n    via: peer\n    to: bob\n---\n\nhi\n";
        let item = Item::parse(text).unwrap();
        let origin = item.origin(|_| panic!("the peers were asked for an item that names its origin"));
        assert_eq!(origin.author, cn_hub::Provenance::Peer("bob".into()));
        assert_eq!(item.origin_kind(), Kind::Message);
        // An older cn's item: derived from its keys, the peers asked.
        let old = Item::parse("---\nid: m2\nfrom: bob\n---\n\nhi\n").unwrap();
        assert_eq!(old.origin(|name| name == "bob").author, cn_hub::Provenance::Peer("bob".into()));
        assert!(!old.origin(|_| false).author.is_owner());
        // What does not depend on the peers is read without them.
        let peers_asked = old.origin(|name| name == "bob");
        assert_eq!((old.sense(), old.is_owners(), old.origin_kind()), (peers_asked.sense, false, peers_asked.kind));
        assert_eq!(item.answer_to(), Some(AnswerTo::Peer { to: "bob".into() }));
        let chat =
            Item::parse("---\nid: m3\nfrom: telegram\nsense: telegram\nchannel-id: '42'\nmessage-id: '7'\n---\n\nhi\n")
                .unwrap();
        let telegram = AnswerTo::Telegram { chat: "42".into(), message: Some("7".into()) };
        assert_eq!((chat.answer_to(), chat.origin(|_| true).answer), (Some(telegram.clone()), Some(telegram)));
        // Set again, it is what is read.
        let mut item = item;
        item.set_origin(&Origin::owner(Sense::Chat));
        assert!(item.origin(|_| unreachable!()).author.is_owner());
        assert_eq!(Item::parse(&item.render()).unwrap(), item);
    }

    #[test]
    fn errors_name_the_field() {
        assert!(Item::parse("---\nfrom: pi\n---\nx").unwrap_err().to_string().contains("`id`"));
        assert!(Item::parse("---\nid: a\nfrom: pi\ncadence: hourly\n---\nx")
            .unwrap_err()
            .to_string()
            .contains("hourly"));
        assert!(Item::parse("---\nid: ../x\nfrom: pi\n---\nx").unwrap_err().to_string().contains("id"));
    }

    #[test]
    fn ids_are_fresh_and_stable_ids_are_stable() {
        assert_ne!(new_id(), new_id());
        assert_eq!(stable_id("a"), stable_id("a"));
        assert_eq!(stable_id("a").len(), 12);
    }

    #[test]
    fn said_is_the_senders_words_without_the_hubs_notes() {
        let mut item = Item::new("m1", "owner", Cadence::Inbox, "Is the wifi configured?\n\n## not a note\n");
        assert_eq!(item.said("ada"), "Is the wifi configured?\n\n## not a note");
        item.content.push_str(
            "\n## defer — ada (2026-01-01T00:00:00Z)\n\nI can't do that myself: no executive is configured.\n",
        );
        assert_eq!(item.said("ada"), "Is the wifi configured?\n\n## not a note");
        assert_eq!(item.said("bob"), item.content.trim_end(), "another hub's heading is not ours");
    }
}
