//! An item's origin: the one typed account of where it came from and where its answer goes,
//! carried from the sense that made it to the answer (DESIGN's "an item's trip").
//!
//! - the **sense** it came through (`chat`, `telegram`, `discord`, `email`, `github`,
//!   `calendar`, `file`, `peer`, or `hub` for the agent's own impulses);
//! - its **author** with their provenance ([`Provenance`]: the owner, a named peer, a stranger
//!   of which sense) — who wrote the text, never who triggered its delivery;
//! - its **kind** ([`Kind`]): a person's message, an automatic answer or a notice about a
//!   thread, the agent's own impulse, or an event. The kind decides what the item can become:
//!   only a person's message is a request; an automatic answer or a notice is recorded on its
//!   thread; an impulse is worked or closed truly, never filed again as a task or idea;
//! - its **thread**, and **where to answer** ([`AnswerTo`]).
//!
//! It is one field of the item's frontmatter, `origin:`, which cn writes and no sender sets
//! (a peer's mail is made into an item by cn, which sets the origin itself). Items written by an
//! older cn have none: [`Origin::of_doc`] derives it from the keys they carry (`from`,
//! `sense`, `author-id`, `impulse`, `kind`, `channel-id` …).

use std::fmt;

use cn_storage::Doc;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Provenance, OWNER};

/// What an item is, which decides what may come of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A person's message (the owner's, a peer's, a stranger's): a request or small talk.
    /// Its effect, or an honest hand-up; never a token answer.
    Message,
    /// Another agent's automatic answer (a reply made below its executive).
    Answer,
    /// A notice: cn's report that a peer decided on an item of ours.
    Notice,
    /// The agent's own motive.
    Impulse(ImpulseKind),
    /// Something happened.
    Event(EventKind),
}

/// Which impulse (document 003's impulse sources).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ImpulseKind {
    /// A task fell due.
    Task,
    /// An idea to explore (when idle).
    Idea,
    /// A commitment made in a reply, come back to be followed up.
    FollowUp,
    /// A schedule entry fired (reflections included).
    Schedule,
}

/// Which event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    File,
    Calendar,
    /// A webhook's delivery (GitHub's events and notifications).
    Webhook,
}

impl Kind {
    /// Every kind, as written.
    pub const ALL: [Kind; 10] = [
        Kind::Message,
        Kind::Answer,
        Kind::Notice,
        Kind::Impulse(ImpulseKind::Task),
        Kind::Impulse(ImpulseKind::Idea),
        Kind::Impulse(ImpulseKind::FollowUp),
        Kind::Impulse(ImpulseKind::Schedule),
        Kind::Event(EventKind::File),
        Kind::Event(EventKind::Calendar),
        Kind::Event(EventKind::Webhook),
    ];

    /// As written in frontmatter and in a reflex's `kind:`: `message`, `answer`, `notice`,
    /// `impulse:task` … `event:webhook`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Message => "message",
            Kind::Answer => "answer",
            Kind::Notice => "notice",
            Kind::Impulse(ImpulseKind::Task) => "impulse:task",
            Kind::Impulse(ImpulseKind::Idea) => "impulse:idea",
            Kind::Impulse(ImpulseKind::FollowUp) => "impulse:follow-up",
            Kind::Impulse(ImpulseKind::Schedule) => "impulse:schedule",
            Kind::Event(EventKind::File) => "event:file",
            Kind::Event(EventKind::Calendar) => "event:calendar",
            Kind::Event(EventKind::Webhook) => "event:webhook",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Whether a kind pattern of a reflex's trigger (`message`, `impulse` for every impulse,
    /// `event:file`, `any`) takes this kind.
    pub fn matches(self, pattern: &str) -> bool {
        pattern == "any" || pattern == self.as_str() || self.as_str().split(':').next() == Some(pattern)
    }

    /// Whether a kind pattern names something (for checking a reflex file).
    pub fn known_pattern(pattern: &str) -> bool {
        pattern == "any" || Kind::ALL.iter().any(|k| k.matches(pattern))
    }

    /// A person's message: the only kind that is a request.
    pub fn is_message(self) -> bool {
        self == Kind::Message
    }

    /// Another agent's automatic message (an automatic answer or a notice): news about a
    /// thread, never new work, and never answered automatically (two agents would answer each
    /// other forever).
    pub fn is_automatic(self) -> bool {
        matches!(self, Kind::Answer | Kind::Notice)
    }

    pub fn is_impulse(self) -> bool {
        matches!(self, Kind::Impulse(_))
    }

    pub fn is_event(self) -> bool {
        matches!(self, Kind::Event(_))
    }

    /// The impulse kind of an impulse source's name (`task`, `idea`, `schedule`, `follow-up`).
    pub fn of_impulse(source: &str) -> Kind {
        Kind::Impulse(match source {
            "idea" => ImpulseKind::Idea,
            "schedule" => ImpulseKind::Schedule,
            "follow-up" => ImpulseKind::FollowUp,
            _ => ImpulseKind::Task,
        })
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Kind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Kind, D::Error> {
        let s = String::deserialize(d)?;
        Kind::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown kind `{s}`")))
    }
}

/// `Display`, `Serialize` and `Deserialize` by the name a type writes (`as_str`) and reads
/// (`of_name`, which takes any name).
macro_rules! by_name {
    ($t:ident) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                Ok($t::of_name(&String::deserialize(d)?))
            }
        }
    };
}

/// The sense an item came through: one name per sense, as `origin.sense` writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sense {
    /// The owner's terminal (`cn chat`, `cn input`), endpoint or control room. Older files
    /// also call it `owner` or `cli`.
    Chat,
    Telegram,
    Discord,
    Email,
    Github,
    Calendar,
    File,
    /// Mail over git from a peer hub; also any name an older file gives that is no sense
    /// (`cn input --from NAME`).
    Peer,
    /// The agent's own impulses (tasks, ideas, schedule entries).
    Hub,
}

impl Sense {
    pub const ALL: [Sense; 9] = [
        Sense::Chat,
        Sense::Telegram,
        Sense::Discord,
        Sense::Email,
        Sense::Github,
        Sense::Calendar,
        Sense::File,
        Sense::Peer,
        Sense::Hub,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Sense::Chat => "chat",
            Sense::Telegram => "telegram",
            Sense::Discord => "discord",
            Sense::Email => "email",
            Sense::Github => "github",
            Sense::Calendar => "calendar",
            Sense::File => "file",
            Sense::Peer => "peer",
            Sense::Hub => "hub",
        }
    }

    /// The sense a written name stands for: the owner's three names are one sense, and any
    /// name that is no sense is a peer's (as an older cn wrote `cn input --from NAME`).
    pub fn of_name(name: &str) -> Sense {
        match name {
            "owner" | "cli" => Sense::Chat,
            _ => Sense::ALL.into_iter().find(|s| s.as_str() == name).unwrap_or(Sense::Peer),
        }
    }
}

by_name!(Sense);

/// The channel an answer goes back on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Via {
    /// The owner's terminal, endpoint or control room.
    Chat,
    Telegram,
    Discord,
    Email,
    /// Mail over git to a peer.
    Peer,
    /// Nobody waits for an answer (also what an older file's unknown channel reads as).
    #[default]
    None,
}

impl Via {
    pub const ALL: [Via; 6] = [Via::Chat, Via::Telegram, Via::Discord, Via::Email, Via::Peer, Via::None];

    pub fn as_str(self) -> &'static str {
        match self {
            Via::Chat => "chat",
            Via::Telegram => "telegram",
            Via::Discord => "discord",
            Via::Email => "email",
            Via::Peer => "peer",
            Via::None => "none",
        }
    }

    /// The channel a written name stands for; an unknown one (an older file's `github`, an
    /// empty name) is nobody's.
    pub fn of_name(name: &str) -> Via {
        Via::ALL.into_iter().find(|v| v.as_str() == name).unwrap_or(Via::None)
    }
}

by_name!(Via);

/// Where the answer to an item goes: the channel it came on, with what that channel needs to
/// answer there (a chat, a message to reply to, a mail's subject and references).
///
/// Written as before this was an enum, so older files read: a map whose `via:` names the
/// channel, beside `to`, `channel`, `message`, `subject`, `references`, `no-reply`. What
/// reads as nobody's ([`AnswerTo::None`]): an unknown channel (an older file's `github`, an
/// empty name), and a channel without what it needs (a chat, a channel, an address, a name),
/// which could not be answered on anyway.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "via", rename_all = "kebab-case", from = "Written")]
pub enum AnswerTo {
    /// The owner's terminal, endpoint or control room.
    Chat,
    /// A Telegram chat (its id, as written), and the message a reply quotes.
    Telegram {
        #[serde(rename = "channel")]
        chat: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// A Discord channel (its id, as written), and the message answered.
    Discord {
        channel: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// A mail's sender, answered on its thread: the answered mail's id (`In-Reply-To`), its
    /// answer's subject and `References`.
    Email {
        to: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        subject: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        references: Option<String>,
        /// The sender must not be answered (an automatic mail, a list).
        #[serde(rename = "no-reply", skip_serializing_if = "std::ops::Not::not")]
        no_reply: bool,
    },
    /// Mail over git to a peer, by name.
    Peer { to: String },
    /// Nobody waits for an answer.
    #[default]
    None,
}

impl AnswerTo {
    /// The channel's name (`telegram` …), as `via:` writes it.
    pub fn via(&self) -> Via {
        match self {
            AnswerTo::Chat => Via::Chat,
            AnswerTo::Telegram { .. } => Via::Telegram,
            AnswerTo::Discord { .. } => Via::Discord,
            AnswerTo::Email { .. } => Via::Email,
            AnswerTo::Peer { .. } => Via::Peer,
            AnswerTo::None => Via::None,
        }
    }

    /// Whom on the channel: the chat, the Discord channel, the address, the peer (none on the
    /// owner's chat).
    pub fn whom(&self) -> Option<&str> {
        match self {
            AnswerTo::Telegram { chat: at, .. } | AnswerTo::Discord { channel: at, .. } => Some(at),
            AnswerTo::Email { to, .. } | AnswerTo::Peer { to } => Some(to),
            AnswerTo::Chat | AnswerTo::None => None,
        }
    }

    /// Whether someone can be told here: a channel, and a sender who may be answered.
    pub fn can_tell(&self) -> bool {
        match self {
            AnswerTo::Email { no_reply, .. } => !no_reply,
            AnswerTo::None => false,
            AnswerTo::Chat | AnswerTo::Telegram { .. } | AnswerTo::Discord { .. } | AnswerTo::Peer { .. } => true,
        }
    }
}

/// An [`AnswerTo`] as written: every channel's keys in one map, any of them missing.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Written {
    via: Via,
    #[serde(default)]
    to: Option<String>,
    #[serde(default)]
    channel: Option<String>,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    subject: Option<String>,
    #[serde(default)]
    references: Option<String>,
    #[serde(default)]
    no_reply: bool,
}

impl From<Written> for AnswerTo {
    fn from(w: Written) -> AnswerTo {
        let Written { via, to, channel, message, subject, references, no_reply } = w;
        let answer = match via {
            Via::Chat => Some(AnswerTo::Chat),
            Via::Telegram => channel.map(|chat| AnswerTo::Telegram { chat, message }),
            Via::Discord => channel.map(|channel| AnswerTo::Discord { channel, message }),
            // An older cn wrote a mail's sender as its `channel` too.
            Via::Email => to.or(channel).map(|to| AnswerTo::Email { to, message, subject, references, no_reply }),
            Via::Peer => to.map(|to| AnswerTo::Peer { to }),
            Via::None => None,
        };
        answer.unwrap_or(AnswerTo::None)
    }
}

/// Where an item came from and where its answer goes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Origin {
    pub sense: Sense,
    #[serde(serialize_with = "label", deserialize_with = "unlabel")]
    pub author: Provenance,
    pub kind: Kind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<AnswerTo>,
}

fn label<S: Serializer>(p: &Provenance, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&p.label())
}

fn unlabel<'de, D: Deserializer<'de>>(d: D) -> Result<Provenance, D::Error> {
    Ok(Provenance::parse(&String::deserialize(d)?))
}

/// The frontmatter key.
pub const KEY: &str = "origin";

impl Origin {
    /// The owner's message on `sense`: answered on the chat when it came on the chat; on
    /// another sense the answer needs its place there ([`Origin::with_answer`]).
    pub fn owner(sense: Sense) -> Origin {
        Origin {
            sense,
            author: Provenance::Owner,
            kind: Kind::Message,
            thread: None,
            answer: Some(if sense == Sense::Chat { AnswerTo::Chat } else { AnswerTo::None }),
        }
    }

    /// A peer's mail: a message, or its automatic answer or notice; answered by mail.
    pub fn peer(name: &str, kind: Kind) -> Origin {
        Origin {
            sense: Sense::Peer,
            author: Provenance::Peer(name.into()),
            kind,
            thread: None,
            answer: Some(AnswerTo::Peer { to: name.into() }),
        }
    }

    /// The agent's own impulse, as trusted as `author` (who filed what it came from).
    pub fn impulse(kind: ImpulseKind, author: Provenance) -> Origin {
        Origin { sense: Sense::Hub, author, kind: Kind::Impulse(kind), thread: None, answer: None }
    }

    pub fn with_thread(mut self, thread: impl Into<String>) -> Origin {
        self.thread = Some(thread.into());
        self
    }

    pub fn with_answer(mut self, answer: AnswerTo) -> Origin {
        self.answer = Some(answer);
        self
    }

    /// The item's origin: its `origin:` field, or — for an item an older cn wrote — derived
    /// from the keys it carries. `is_peer` says whether a name is a known peer.
    pub fn of_doc(doc: &Doc, is_peer: impl Fn(&str) -> bool) -> Origin {
        Origin::read(doc).unwrap_or_else(|| Origin::legacy(doc, is_peer))
    }

    /// The item's `origin:` field, when it has one that reads (an older cn's item has none).
    pub fn read(doc: &Doc) -> Option<Origin> {
        doc.get(KEY).and_then(|v| serde_yaml_ng::from_value::<Origin>(v.clone()).ok())
    }

    /// Store it as the item's `origin:` field.
    pub fn write(&self, doc: &mut Doc) {
        if let Ok(v) = serde_yaml_ng::to_value(self) {
            doc.set(KEY, v);
        }
    }

    /// The origin an older cn's keys imply.
    fn legacy(doc: &Doc, is_peer: impl Fn(&str) -> bool) -> Origin {
        let author = Provenance::of_legacy(doc, &is_peer);
        let from = doc.get_str("from").unwrap_or_default();
        let thread = doc.get_str("thread").map(str::to_string);
        let kind = if let Some(source) = doc.get_str("impulse") {
            Kind::of_impulse(source)
        } else {
            match doc.get_str("kind") {
                Some("notice") => Kind::Notice,
                Some("auto") => Kind::Answer,
                _ => match doc.get_str("sense") {
                    Some("file") => Kind::Event(EventKind::File),
                    Some("calendar") => Kind::Event(EventKind::Calendar),
                    Some("github") => Kind::Event(EventKind::Webhook),
                    _ => Kind::Message,
                },
            }
        };
        let sense = if doc.get_str("impulse").is_some() {
            Sense::Hub
        } else if let Some(sense) = doc.get_str("sense") {
            Sense::of_name(sense)
        } else if from == OWNER {
            Sense::Chat
        } else {
            // A known peer's, or a name that is no sense (`cn input --from NAME`).
            Sense::Peer
        };
        let answer = match (&author, sense) {
            (_, Sense::Hub) => None,
            (Provenance::Peer(name), _) => {
                let to = doc.get_str("reply-to").unwrap_or(name);
                Some(AnswerTo::Peer { to: to.into() })
            }
            _ => {
                let get = |k: &str| doc.get_str(k).map(str::to_string);
                Some(AnswerTo::from(Written {
                    via: match sense {
                        Sense::Chat => Via::Chat,
                        Sense::Telegram => Via::Telegram,
                        Sense::Discord => Via::Discord,
                        Sense::Email => Via::Email,
                        // A stranger's name (`cn input --from NAME`) has no channel, nor
                        // has an event.
                        Sense::Peer | Sense::Github | Sense::Calendar | Sense::File | Sense::Hub => Via::None,
                    },
                    to: get("channel-id").or_else(|| get("author-id")).filter(|_| sense == Sense::Email),
                    channel: get("channel-id"),
                    message: get("message-id"),
                    subject: get("reply-subject"),
                    references: get("references"),
                    no_reply: doc.get_str("no-reply") == Some("true"),
                }))
            }
        };
        Origin { sense, author, kind, thread, answer }
    }

    /// Whether this item is a person's message (a request or small talk).
    pub fn is_a_persons_message(&self) -> bool {
        self.kind.is_message()
    }

    /// One line for the journal: `a message from the owner on telegram`.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            Kind::Message => "a message",
            Kind::Answer => "an automatic answer",
            Kind::Notice => "a notice",
            Kind::Impulse(ImpulseKind::Task) => "a task falling due",
            Kind::Impulse(ImpulseKind::Idea) => "an idea to explore",
            Kind::Impulse(ImpulseKind::FollowUp) => "a follow-up",
            Kind::Impulse(ImpulseKind::Schedule) => "a schedule entry",
            Kind::Event(EventKind::File) => "a file change",
            Kind::Event(EventKind::Calendar) => "a calendar event",
            Kind::Event(EventKind::Webhook) => "a webhook",
        };
        match self.kind {
            Kind::Impulse(_) => format!("{what} (filed by {})", self.author),
            _ => format!("{what} from {} on {}", self.author, self.sense),
        }
    }
}

/// A reply to a person that says nothing, so neither does nor answers what they asked (a
/// dropped request): no letter or digit at all (an emoji, punctuation), or only words of assent
/// ("ok", "noted", "sure thing", "will do"). A reply that says nothing: no letter or digit at all (an emoji, punctuation), or only
/// words of assent ("ok", "noted", "sure thing", "will do").
pub fn is_token_answer(text: &str) -> bool {
    const ASSENT: &[&str] = &[
        "ok",
        "okay",
        "k",
        "kk",
        "noted",
        "got",
        "it",
        "done",
        "sure",
        "thing",
        "will",
        "do",
        "on",
        "roger",
        "ack",
        "acknowledged",
        "understood",
        "yes",
        "yep",
        "yup",
        "fine",
        "alright",
        "right",
        "cool",
        "gotcha",
        "seen",
        "received",
        "copy",
        "that",
        "👍",
        "👌",
        "✅",
        "🙏",
    ];
    let t = text.trim();
    if !t.chars().any(char::is_alphanumeric) {
        return true;
    }
    let words: Vec<String> = t
        .split(|c: char| c.is_whitespace() || c == ',' || c == '.' || c == '!')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    words.len() <= 3 && words.iter().all(|w| ASSENT.contains(&w.as_str()))
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
    fn an_origin_is_one_field_and_reads_back() {
        let o = Origin::peer("bob", Kind::Notice).with_thread("t1");
        let mut d = doc(&[("id", "x"), ("from", "bob")]);
        o.write(&mut d);
        let text = d.render();
        assert!(text.contains("origin:\n  sense: peer\n  author: peer:bob\n  kind: notice\n"), "{text}");
        let back = Doc::parse(&text).unwrap();
        assert_eq!(Origin::of_doc(&back, |_| false), o);
    }

    #[test]
    fn an_older_items_keys_imply_its_origin() {
        let peer = |n: &str| n == "bob";
        let o = Origin::of_doc(&doc(&[("from", "owner")]), peer);
        assert_eq!((o.sense, &o.author, o.kind), (Sense::Chat, &Provenance::Owner, Kind::Message));
        let o = Origin::of_doc(&doc(&[("from", "bob"), ("kind", "auto")]), peer);
        assert_eq!((o.kind, o.answer), (Kind::Answer, Some(AnswerTo::Peer { to: "bob".into() })));
        let o = Origin::of_doc(&doc(&[("from", "ada"), ("impulse", "idea"), ("source", "github:mallory")]), peer);
        assert_eq!(o.kind, Kind::Impulse(ImpulseKind::Idea));
        assert_eq!(o.author.label(), "github:mallory");
        let o = Origin::of_doc(
            &doc(&[("from", "telegram"), ("sense", "telegram"), ("author-id", "42"), ("channel-id", "42")]),
            peer,
        );
        let telegram = AnswerTo::Telegram { chat: "42".into(), message: None };
        assert_eq!((o.kind, o.answer), (Kind::Message, Some(telegram)));
        let o = Origin::of_doc(&doc(&[("from", "file"), ("sense", "file")]), peer);
        assert_eq!(o.kind, Kind::Event(EventKind::File));
    }

    #[test]
    fn files_an_older_cn_wrote_still_load() {
        // The owner's three names, in the legacy keys and in an older `origin:` alike.
        for sense in ["owner", "cli", "chat"] {
            let o = Origin::of_doc(&doc(&[("from", "owner"), ("sense", sense)]), |_| false);
            assert_eq!((o.sense, o.author.is_owner(), o.answer), (Sense::Chat, true, Some(AnswerTo::Chat)));
            let text = format!(
                "---\nid: o1\nfrom: owner\nsense: {sense}\norigin:\n  sense: {sense}\n  author: owner\n  kind: message\n  answer:\n    via: chat\n---\n\nhi\n"
            );
            let o = Origin::of_doc(&Doc::parse(&text).unwrap(), |_| false);
            assert_eq!((o.sense, o.answer), (Sense::Chat, Some(AnswerTo::Chat)), "{sense}");
        }
        // An impulse an older cn wrote with `impulse:` and `source:` is the filer's.
        let o = Origin::of_doc(&doc(&[("from", "ada"), ("impulse", "schedule")]), |_| false);
        assert_eq!((o.sense, o.kind, o.answer), (Sense::Hub, Kind::Impulse(ImpulseKind::Schedule), None));
        // A channel no cn answers on reads as nobody's; a name that is no sense as a peer's.
        let text = "---\nid: g1\nfrom: github\norigin:\n  sense: github\n  author: github:mallory\n  kind: message\n  answer:\n    via: github\n---\n\nx\n";
        let o = Origin::of_doc(&Doc::parse(text).unwrap(), |_| false);
        assert_eq!((o.sense, o.answer.as_ref()), (Sense::Github, Some(&AnswerTo::None)));
        assert!(!o.answer.unwrap().can_tell());
        let o = Origin::of_doc(&doc(&[("from", "mallory")]), |_| false);
        assert_eq!((o.sense, o.author.is_owner(), o.answer), (Sense::Peer, false, Some(AnswerTo::None)));
    }

    #[test]
    fn an_origin_is_written_as_before() {
        let mut d = doc(&[("id", "x"), ("from", "owner")]);
        Origin::owner(Sense::Chat).write(&mut d);
        assert!(
            d.render().contains("origin:\n  sense: chat\n  author: owner\n  kind: message\n  answer:\n    via: chat\n"),
            "{}",
            d.render()
        );
        let telegram = AnswerTo::Telegram { chat: "42".into(), message: None };
        let json = serde_json::to_value(&telegram).unwrap();
        assert_eq!(json, serde_json::json!({"via": "telegram", "channel": "42"}));
        assert_eq!(serde_json::from_value::<AnswerTo>(json).unwrap(), telegram);
        for v in Via::ALL {
            assert_eq!(Via::of_name(v.as_str()), v);
        }
        for s in Sense::ALL {
            assert_eq!(Sense::of_name(s.as_str()), s);
        }
    }

    #[test]
    fn where_to_answer_reads_as_an_older_cn_wrote_it_and_is_written_the_same() {
        let email = |to: &str, no_reply| AnswerTo::Email {
            to: to.into(),
            message: Some("m1@x.test".into()),
            subject: Some("Re: status?".into()),
            references: Some("<m0@x.test> <m1@x.test>".into()),
            no_reply,
        };
        // Each channel as written (JSON in state/, YAML in an item's frontmatter): read into
        // its variant, and written back byte for byte.
        let written = [
            (r#"{"via":"chat"}"#, AnswerTo::Chat),
            (
                r#"{"via":"telegram","channel":"-100","message":"7"}"#,
                AnswerTo::Telegram { chat: "-100".into(), message: Some("7".into()) },
            ),
            (r#"{"via":"telegram","channel":"42"}"#, AnswerTo::Telegram { chat: "42".into(), message: None }),
            (
                r#"{"via":"discord","channel":"9","message":"10"}"#,
                AnswerTo::Discord { channel: "9".into(), message: Some("10".into()) },
            ),
            (
                r#"{"via":"email","to":"ada@x.test","message":"m1@x.test","subject":"Re: status?","references":"<m0@x.test> <m1@x.test>"}"#,
                email("ada@x.test", false),
            ),
            (
                r#"{"via":"email","to":"list@x.test","message":"m1@x.test","subject":"Re: status?","references":"<m0@x.test> <m1@x.test>","no-reply":true}"#,
                email("list@x.test", true),
            ),
            (r#"{"via":"peer","to":"bob"}"#, AnswerTo::Peer { to: "bob".into() }),
            (r#"{"via":"none"}"#, AnswerTo::None),
        ];
        for (line, answer) in written {
            assert_eq!(serde_json::from_str::<AnswerTo>(line).unwrap(), answer, "{line}");
            assert_eq!(serde_json::to_string(&answer).unwrap(), line);
            let yaml = serde_yaml_ng::to_string(&answer).unwrap();
            assert_eq!(serde_yaml_ng::from_str::<AnswerTo>(&yaml).unwrap(), answer, "{yaml}");
            assert_eq!(answer.via().as_str(), serde_json::from_str::<serde_json::Value>(line).unwrap()["via"]);
        }
        let yaml = "via: telegram\nchannel: '-100'\nmessage: '7'\n";
        let answer = serde_yaml_ng::from_str::<AnswerTo>(yaml).unwrap();
        assert_eq!(answer, AnswerTo::Telegram { chat: "-100".into(), message: Some("7".into()) });
        assert_eq!(serde_yaml_ng::to_string(&answer).unwrap(), yaml);
        // Nobody's: a channel no cn answers on (an older file's `github`), an empty name, or a
        // channel without whom to answer there; never an error.
        for line in [
            r#"{"via":"github","to":"mallory"}"#,
            r#"{"via":""}"#,
            r#"{"via":"telegram","message":"7"}"#,
            r#"{"via":"discord"}"#,
            r#"{"via":"email","subject":"Re: x"}"#,
            r#"{"via":"peer"}"#,
        ] {
            let answer = serde_json::from_str::<AnswerTo>(line).unwrap();
            assert_eq!(answer, AnswerTo::None, "{line}");
            assert!(!answer.can_tell());
        }
        // An older cn wrote a mail's sender as its channel too; keys of other channels are
        // ignored.
        let line = r#"{"via":"email","channel":"ada@x.test","message":"m1@x.test","no-reply":false}"#;
        let answer = serde_json::from_str::<AnswerTo>(line).unwrap();
        assert_eq!(answer.whom(), Some("ada@x.test"));
        assert!(matches!(answer, AnswerTo::Email { message: Some(_), subject: None, no_reply: false, .. }));
        let line = r#"{"via":"chat","channel":"5","subject":"s"}"#;
        assert_eq!(serde_json::from_str::<AnswerTo>(line).unwrap(), AnswerTo::Chat);
        // Whom, and who can be told.
        assert_eq!(email("ada@x.test", false).whom(), Some("ada@x.test"));
        assert!(email("ada@x.test", false).can_tell() && !email("ada@x.test", true).can_tell());
        assert!(AnswerTo::Chat.can_tell() && AnswerTo::Chat.whom().is_none());
    }

    #[test]
    fn token_answers_say_nothing() {
        for t in ["👍", "ok", "Noted.", "got it!", "sure thing", "👍👍", "...", "Will do", "ok, noted"] {
            assert!(is_token_answer(t), "{t}");
        }
        for t in ["You're welcome.", "Hello! I'm ada.", "Added to your tasks: buy milk.", "ok, it's 9:15"] {
            assert!(!is_token_answer(t), "{t}");
        }
    }

    #[test]
    fn kind_patterns() {
        assert!(Kind::Impulse(ImpulseKind::Task).matches("impulse"));
        assert!(Kind::Impulse(ImpulseKind::Task).matches("impulse:task"));
        assert!(!Kind::Impulse(ImpulseKind::Task).matches("message"));
        assert!(Kind::Notice.matches("any"));
        assert!(Kind::known_pattern("event") && Kind::known_pattern("event:file") && !Kind::known_pattern("events"));
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
    }
}
