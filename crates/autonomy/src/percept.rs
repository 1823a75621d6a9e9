//! `Percept` — something sensed outside the agent (the owner, GitHub, the calendar, a file,
//! a peer). Senses make them; attention scores them together with impulses.

use cn_hub::origin::{AnswerTo, EventKind, Kind, Origin, Sense};
use cn_hub::Provenance;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The name the spool, the journal (an item's `source`) and `cn lease` give a percept's
/// sense: the hub's name ([`Sense::as_str`]), except the owner's chat, which attention's files
/// have always called `owner` — kept so a spool or carry either cn writes the other reads
/// ([`Sense::of_name`] reads `owner`, `cli` and `chat` alike).
pub fn written_name(sense: Sense) -> &'static str {
    match sense {
        Sense::Chat => "owner",
        sense => sense.as_str(),
    }
}

fn write_sense<S: serde::Serializer>(sense: &Sense, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(written_name(*sense))
}

/// One thing sensed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "Written")]
pub struct Percept {
    /// Links every journal entry about this percept (`p-…`).
    pub id: String,
    /// The sense that took it; the owner's own chat, endpoint or control room is
    /// [`Sense::Chat`] (always the owner's), and anyone's item offered again from the inbox is
    /// its origin's sense, or [`Sense::Peer`].
    #[serde(serialize_with = "write_sense")]
    pub sense: Sense,
    /// From the owner: always first, never shed.
    pub owner: bool,
    /// One line a person can read in the journal.
    pub summary: String,
    /// Percepts with the same key are the same thing sensed again (one file, one issue) and
    /// are coalesced in the pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// When it was sensed.
    pub at: Timestamp,
    /// When it matters, if it has a time (a calendar event's start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<Timestamp>,
    /// The words a person wrote (the owner's message, a chat's, a mail's, an issue's or a
    /// comment's): what its item says. `None` for an event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The hub's inbox item it offers again (the inbox is read into attention), if it is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inbox: Option<InboxItem>,
    /// The sense's own payload (the webhook's event, the chat and message ids, the path):
    /// shown whole to the model when it has no words, never read by key past the loader.
    #[serde(default)]
    pub data: Value,
    /// Who wrote it, what it is and where its answer goes, as the sense that took it says
    /// ([`Percept::with_origin`]). `None` only in a spool line an older cn wrote (or a percept made
    /// in a test): [`Percept::origin`] derives it then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Box<Origin>>,
}

/// An item waiting in the hub's inbox, offered to attention as a percept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InboxItem {
    /// The item's id (`threads/inbox/<id>.md`).
    pub id: String,
    /// Who it is from (the item's `from:`).
    pub from: String,
}

/// A [`Percept`] as written. An older cn's spool line kept the words in `data` (`text`, else
/// `content`), the inbox item there (`inbox`, `from`) and no origin: they are read into
/// [`Percept::text`], [`Percept::inbox`] and [`Percept::origin`] here, where it loads, and
/// nowhere else.
#[derive(Deserialize)]
struct Written {
    id: String,
    /// Read by any of its names (an older cn's `owner`); one that is no sense reads as a
    /// peer's, and never as the owner's (that is `owner`'s alone).
    sense: Sense,
    owner: bool,
    summary: String,
    #[serde(default)]
    key: Option<String>,
    at: Timestamp,
    #[serde(default)]
    due: Option<Timestamp>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    inbox: Option<InboxItem>,
    #[serde(default)]
    data: Value,
    #[serde(default)]
    origin: Option<Box<Origin>>,
}

impl From<Written> for Percept {
    fn from(w: Written) -> Percept {
        let Written { id, sense, owner, summary, key, at, due, text, inbox, mut data, origin } = w;
        let older = || ["text", "content"].iter().find_map(|k| data.get(*k)?.as_str().map(str::to_string));
        let text = text.or_else(older);
        let origin = origin.unwrap_or_else(|| Box::new(derived_origin(sense, owner, &data)));
        let inbox = inbox.or_else(|| older_inbox(&mut data));
        Percept { id, sense, owner, summary, key, at, due, text, inbox, data, origin: Some(origin) }
    }
}

/// The inbox item an older cn's percept named in `data` (`{"inbox": id, "from": who}`),
/// taken out of it.
fn older_inbox(data: &mut Value) -> Option<InboxItem> {
    let map = data.as_object_mut()?;
    let id = map.get("inbox")?.as_str()?.to_string();
    map.remove("inbox");
    let from = map.remove("from").and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    if map.is_empty() {
        *data = Value::Null;
    }
    Some(InboxItem { id, from })
}

/// Who wrote what a sense took: the owner when the sense authenticated them, else the sense's
/// user — named only when the platform (or the receiving mail server) authenticated them.
/// The sense is named as the hub names it, so a stranger's item on the owner's chat (an
/// older line only) is `chat`, never the label `owner`.
pub fn author(sense: Sense, owner: bool, user: Option<String>) -> Provenance {
    if owner {
        Provenance::Owner
    } else {
        Provenance::Public { sense: sense.as_str().into(), user: user.filter(|u| !u.is_empty()) }
    }
}

impl Percept {
    /// One the sense took: the owner's when it is [`Sense::Chat`].
    pub fn new(sense: Sense, summary: impl Into<String>) -> Self {
        Percept {
            id: cn_hub::id::prefixed("p"),
            sense,
            owner: sense == Sense::Chat,
            summary: summary.into(),
            key: None,
            at: Timestamp::now(),
            due: None,
            text: None,
            inbox: None,
            data: Value::Null,
            origin: None,
        }
    }

    /// Its origin, set by the sense that took it; whether it is the owner's follows its author.
    pub fn with_origin(mut self, origin: Origin) -> Self {
        self.owner = origin.author.is_owner();
        self.origin = Some(Box::new(origin));
        self
    }
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
    /// The words a person wrote.
    pub fn text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }
    /// The inbox item it offers again.
    pub fn inbox(mut self, id: impl Into<String>, from: impl Into<String>) -> Self {
        self.inbox = Some(InboxItem { id: id.into(), from: from.into() });
        self
    }
    pub fn data(mut self, data: Value) -> Self {
        self.data = data;
        self
    }
    /// The sense's own payload as its typed struct (a sense's, written under the keys it had
    /// before it was typed). Strings, numbers and JSON only: it always serializes (one that
    /// did not would leave no data, never a panic).
    pub fn data_of(self, data: &impl Serialize) -> Self {
        self.data(serde_json::to_value(data).unwrap_or_default())
    }
    /// Its data read as the sense's typed struct `T`; `None` when it is not one.
    pub fn data_as<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        T::deserialize(&self.data).ok()
    }
    pub fn due(mut self, due: Timestamp) -> Self {
        self.due = Some(due);
        self
    }
    pub fn owner(mut self, owner: bool) -> Self {
        self.owner = owner;
        self
    }

    /// Its typed origin (`cn_hub::Origin`): the one its sense set (or, for a spool line an
    /// older cn wrote, the one its loader derived); one made without a sense, what its sense
    /// alone implies.
    pub fn origin(&self) -> Origin {
        match &self.origin {
            Some(origin) => Origin::clone(origin),
            None => derived_origin(self.sense, self.owner, &Value::Null),
        }
    }
}

/// A GitHub delivery whose text a person wrote (an older cn's `data`): an issue or pull
/// request opened or edited, a comment, a review, a discussion.
fn written_by_a_person(data: &Value) -> bool {
    const WRITTEN: [&str; 7] = [
        "issues",
        "issue_comment",
        "pull_request",
        "pull_request_review",
        "pull_request_review_comment",
        "discussion",
        "discussion_comment",
    ];
    let event = data.get("event").and_then(Value::as_str).unwrap_or_default();
    let action = data.get("action").and_then(Value::as_str).unwrap_or_default();
    WRITTEN.contains(&event) && matches!(action, "opened" | "created" | "edited" | "submitted" | "reopened")
}

/// The origin an older cn's percept implies (read only where it loads): who wrote it (the
/// owner when the sense authenticated them, else the sense's user), what it is (a person's
/// message on a chat sense or in a mail; an event from GitHub, the calendar, a file) and where
/// its answer goes (the chat, the message, the mail's thread), from the sense's `data`.
pub(crate) fn derived_origin(sense: Sense, owner: bool, data: &Value) -> Origin {
    let text = |k: &str| {
        data.get(k).and_then(|v| v.as_str().map(str::to_string).or_else(|| v.as_u64().map(|n| n.to_string())))
    };
    let author = author(sense, owner, text("author_id"));
    let kind = match sense {
        Sense::Chat | Sense::Discord | Sense::Telegram | Sense::Email | Sense::Peer | Sense::Hub => Kind::Message,
        // What a person wrote on GitHub (an issue, a comment, a review) is their message;
        // anything else GitHub tells (a push, a check, a label) is an event.
        Sense::Github if written_by_a_person(data) => Kind::Message,
        Sense::Github => Kind::Event(EventKind::Webhook),
        Sense::Calendar => Kind::Event(EventKind::Calendar),
        Sense::File => Kind::Event(EventKind::File),
    };
    let answer = match sense {
        // A chat, a channel or a sender missing: nobody to answer there.
        Sense::Chat => Some(AnswerTo::Chat),
        Sense::Telegram => Some(
            text("channel_id").map_or(AnswerTo::None, |chat| AnswerTo::Telegram { chat, message: text("message_id") }),
        ),
        Sense::Discord => Some(
            text("channel_id")
                .map_or(AnswerTo::None, |channel| AnswerTo::Discord { channel, message: text("message_id") }),
        ),
        Sense::Email => {
            Some(text("channel_id").or_else(|| text("author_id")).map_or(AnswerTo::None, |to| AnswerTo::Email {
                to,
                message: text("message_id"),
                subject: text("reply_subject"),
                references: text("references"),
                no_reply: text("no_reply").as_deref() == Some("true"),
            }))
        }
        // Nobody waits for an answer to an event.
        Sense::Github | Sense::Calendar | Sense::File | Sense::Peer | Sense::Hub => None,
    };
    Origin { sense, author, kind, thread: text("thread"), answer }
}

#[cfg(test)]
mod sense_tests {
    use serde_json::json;

    use super::{Percept, Sense};

    /// A spool line as every cn before the one `Sense` wrote it (the owner's chat `owner`)
    /// opens as the hub's sense and is written back as it was; `chat` (and `cli`) read as the
    /// same sense, and a name that is no sense as a peer's — never as the owner's, whatever
    /// its `owner` flag leaves out.
    #[test]
    fn an_older_spool_lines_sense_opens_and_is_written_as_it_was() {
        let older = r#"{"id":"p-1","sense":"owner","owner":true,"summary":"Owner: hi","at":"2026-11-01T10:00:00Z","text":"hi","data":null,"origin":{"sense":"chat","author":"owner","kind":"message","answer":{"via":"chat"}}}"#;
        let p: Percept = serde_json::from_str(older).unwrap();
        assert_eq!((p.sense, p.owner), (Sense::Chat, true));
        assert_eq!(serde_json::to_string(&p).unwrap(), older);
        let line = |sense: &str, owner: bool| json!({"id": "p-2", "sense": sense, "owner": owner, "summary": "s", "at": "2026-11-01T10:00:00Z"});
        for (name, sense) in [
            ("chat", Sense::Chat),
            ("cli", Sense::Chat),
            ("discord", Sense::Discord),
            ("telegram", Sense::Telegram),
            ("email", Sense::Email),
            ("github", Sense::Github),
            ("calendar", Sense::Calendar),
            ("file", Sense::File),
            ("peer", Sense::Peer),
            ("hub", Sense::Hub),
            ("bob", Sense::Peer),
        ] {
            let p: Percept = serde_json::from_value(line(name, false)).unwrap();
            assert_eq!((p.sense, p.owner), (sense, false), "{name}");
            let origin = p.origin();
            assert!(!origin.author.is_owner(), "{name}: {origin:?}");
            // Its author's label reads back as nobody's own: `chat`, never `owner`.
            assert!(!cn_hub::Provenance::parse(&origin.author.label()).is_owner(), "{name}: {origin:?}");
        }
        for bad in [json!(5), json!(null), json!({"sense": "owner"})] {
            let mut l = line("owner", false);
            l["sense"] = bad;
            assert!(serde_json::from_value::<Percept>(l).is_err());
        }
    }
}

#[cfg(test)]
pub(crate) mod origin_tests {
    use std::path::Path;

    use serde_json::json;

    use super::{derived_origin, Percept, Sense};
    use crate::senses::{files, github, owner, telegram};

    /// The origin a sense sets is the one its percept's data implied before the senses set it.
    fn same(p: &Percept) {
        assert_eq!(p.origin.as_deref(), Some(&older(p)), "{}: {}", p.summary, p.data);
    }

    /// The origin an older cn's spool line of `p` (no origin) loads with.
    pub(crate) fn older(p: &Percept) -> cn_hub::Origin {
        derived_origin(p.sense, p.owner, &p.data)
    }

    #[test]
    fn the_origin_a_sense_sets_is_what_its_data_implied() {
        // The owner's words and thread are in the percept's text and origin now; an older cn
        // kept them in `data`.
        for thread in [Some("t1"), None] {
            let p = owner::percept("hi", thread);
            let older = p.clone().data(json!({"text": "hi", "thread": thread}));
            assert_eq!(p.origin.as_deref(), Some(&super::origin_tests::older(&older)), "{thread:?}");
        }
        let filter = telegram::Filter { chats: Vec::new(), owners: vec![42] };
        for (id, forwarded) in [(42, false), (43, false), (42, true)] {
            let mut u = json!({"update_id": 7, "message": {"message_id": 3, "from": {"id": id, "is_bot": false, "first_name": "G"},
                               "chat": {"id": -100, "type": "group"}, "date": 1, "text": "hi"}});
            if forwarded {
                u["message"]["forward_sender_name"] = json!("Eve");
            }
            same(&telegram::percept(&u, &filter).unwrap());
        }
        let owners = ["octocat".to_string()];
        for (event, action, author, sender) in [
            ("issues", "opened", "octocat", "octocat"),
            ("issues", "labeled", "mallory", "octocat"),
            ("issues", "edited", "octocat", "mallory"),
            ("issue_comment", "created", "octocat", "octocat"),
            ("star", "created", "octocat", "octocat"),
        ] {
            let payload = json!({"action": action, "issue": {"number": 1, "title": "t", "body": "b", "user": {"login": author}},
                                 "comment": {"body": "c", "user": {"login": author}},
                                 "repository": {"full_name": "a/b"}, "sender": {"login": sender}});
            same(&github::percept_for(event, &payload, &owners, None).unwrap());
        }
        same(&files::percept(Path::new("/hub"), Path::new("/hub/notes.md")));
    }

    /// A spool line an older cn wrote, with the words in `data` and no origin, loads as it
    /// did: its text read from `data` (`text`, else `content`), its origin derived; a line
    /// written now keeps its text typed, and one with fields it does not know still loads.
    #[test]
    fn an_older_spool_line_loads_with_its_text_and_origin() {
        let line = |sense: &str, data: serde_json::Value| {
            json!({"id": "p-1", "sense": sense, "owner": sense == "owner", "summary": "Owner: hi",
                   "at": "2026-11-01T10:00:00Z", "data": data, "later": {"field": 1}})
            .to_string()
        };
        let owner: Percept =
            serde_json::from_str(&line("owner", json!({"text": "hi\nthere", "thread": "t1"}))).unwrap();
        assert_eq!(owner.text.as_deref(), Some("hi\nthere"));
        assert_eq!(owner.origin(), cn_hub::Origin::owner(Sense::Chat).with_thread("t1"));
        let chat: Percept =
            serde_json::from_str(&line("telegram", json!({"content": "yo", "channel_id": "5", "author_id": "9"})))
                .unwrap();
        assert_eq!((chat.text.as_deref(), chat.origin().author.label().as_str()), (Some("yo"), "telegram:9"));
        let event: Percept = serde_json::from_str(&line("file", json!({"path": "a", "text": 5}))).unwrap();
        assert_eq!(event.text, None);
        let now = owner::percept("hi\nthere", Some("t1"));
        let written = serde_json::to_string(&now).unwrap();
        assert!(written.contains(r#""text":"hi\nthere","data":null"#), "{written}");
        assert_eq!(serde_json::from_str::<Percept>(&written).unwrap(), now);
    }

    /// The inbox item a percept offers is typed; an older cn's line named it in `data`
    /// (`inbox`, `from`), read there only as it loads, and the keys are not kept in `data`.
    #[test]
    fn an_inbox_percept_names_its_item_typed_and_an_older_one_loads() {
        let now = Percept::new(Sense::Peer, "bob: hi").inbox("i-1", "bob");
        let written = serde_json::to_string(&now).unwrap();
        assert!(written.contains(r#""inbox":{"id":"i-1","from":"bob"},"data":null"#), "{written}");
        assert_eq!(serde_json::from_str::<Percept>(&written).unwrap().inbox, now.inbox);
        let old = json!({"id": "p-2", "sense": "peer", "owner": false, "summary": "bob: hi",
                         "at": "2026-11-01T10:00:00Z", "data": {"inbox": "i-1", "from": "bob"}});
        let old: Percept = serde_json::from_value(old).unwrap();
        assert_eq!((old.inbox, old.data), (now.inbox.clone(), serde_json::Value::Null));
        let other = json!({"id": "p-3", "sense": "file", "owner": false, "summary": "f",
                           "at": "2026-11-01T10:00:00Z", "data": {"inbox": 7, "path": "a"}});
        let other: Percept = serde_json::from_value(other).unwrap();
        assert_eq!((other.inbox, other.data), (None, json!({"inbox": 7, "path": "a"})));
        assert_eq!(crate::attention::Input::Percept(now).inbox_item(), Some("i-1"));
    }
}
