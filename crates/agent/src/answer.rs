//! What the agent answered an item, recorded once, typed ([`Answer`]), when it is decided: the
//! decided item's `answer:` field, and [`crate::Decided::answer`] for the process that decided
//! it. `cn chat`, the control room and the channels show it; none of them parses the item's
//! notes to learn it.
//!
//! A person sees the truth: a reply's text; for a hand-up the true reason and what happens
//! next ([`HandUp`]); a reply that was not sent says so ([`Answer::Withheld`]);
//! any other decision says what was done — an op's reason is not an answer.

use serde::{Deserialize, Serialize};

use crate::gtd::{Gtd, Op};
use crate::item::Item;
use cn_compute::HAND_UP;

/// The frontmatter key of a decided item's answer.
pub const KEY: &str = "answer";

/// What became of an item, as its sender is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "what", rename_all = "kebab-case")]
pub enum Answer {
    /// A reply: its text, as sent.
    Reply {
        text: String,
    },
    /// A reply that was not sent: why (an automatic answer to an automatic message, a thread
    /// at its depth limit, text the vetting found unfit).
    Withheld {
        text: String,
        why: String,
    },
    /// Handed up: no level that could do it could take it now. The true reason, and when (if
    /// ever) it comes back by itself.
    HandedUp {
        why: HandUp,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<String>,
    },
    /// Deferred by a decision (not a hand-up).
    Deferred {
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        until: Option<String>,
    },
    /// Mail to a peer.
    Sent {
        to: String,
        message: String,
    },
    Delegated {
        to: String,
    },
    /// Closed by an op that answers nothing (`noop`, `ack`, `delete`, `surface`, `commit`):
    /// which, and its note.
    Closed {
        op: String,
        note: String,
    },
}

impl Answer {
    /// The answer a decision gives, before its effect (a withheld reply is known only after:
    /// see [`Answer::withheld`]).
    pub fn of(gtd: &Gtd, handed_up: Option<&HandUp>) -> Answer {
        match gtd {
            Gtd::Do(Op::Reply(r)) => Answer::Reply { text: r.message.trim().to_string() },
            Gtd::Do(Op::Send(s)) => Answer::Sent { to: s.to.clone(), message: s.message.clone() },
            Gtd::Defer(d) => match handed_up {
                Some(why) => Answer::HandedUp { why: why.clone(), until: d.until.clone() },
                None => Answer::Deferred { reason: d.reason.clone(), until: d.until.clone() },
            },
            Gtd::Delegate(d) => Answer::Delegated { to: d.to.clone() },
            other => {
                let note = other.fields().into_iter().map(|(_, v)| v).next().unwrap_or_default();
                Answer::Closed { op: other.label(), note }
            }
        }
    }

    /// A reply that was not sent, and why.
    pub fn withheld(self, why: &str) -> Answer {
        match self {
            Answer::Reply { text } => Answer::Withheld { text, why: why.to_string() },
            other => other,
        }
    }

    /// The answer for the person who sent the item: what they read in `cn chat`, the control
    /// room, a channel. `owner`: the owner reads it (a hand-up then says how to change it).
    pub fn to_person(&self, owner: bool) -> String {
        match self {
            Answer::Reply { text } => text.clone(),
            Answer::Withheld { why, .. } => format!("(no answer was sent: {why})"),
            Answer::HandedUp { why, until } => why.tell(owner, until.as_deref()),
            Answer::Deferred { reason, until } => match until {
                Some(u) => format!("(deferred until {u}: {reason})"),
                None => format!("(deferred: {reason})"),
            },
            Answer::Sent { to, .. } => format!("(sent mail to {to})"),
            Answer::Delegated { to } => format!("(delegated to {to})"),
            Answer::Closed { op, note } => {
                let what = match op.as_str() {
                    "do noop" => "closed without doing anything",
                    "do ack" => "acknowledged",
                    "do surface" => "surfaced",
                    "do commit" => "committed",
                    "delete" => "deleted",
                    other => other,
                };
                let note = note.lines().next().unwrap_or("").trim();
                if note.is_empty() {
                    format!("({what})")
                } else {
                    format!("({what}: {note})")
                }
            }
        }
    }

    /// Whether the person was told something that does or answers what they asked — a
    /// reply — rather than a hand-up, a deferral or a closing.
    pub fn is_reply(&self) -> bool {
        matches!(self, Answer::Reply { .. })
    }

    /// Store it as the item's `answer:` field.
    pub fn write(&self, item: &mut Item) {
        if let Ok(v) = serde_yaml_ng::to_value(self) {
            item.set(KEY, v);
        }
    }

    /// The answer a decided item records: its `answer:` field, or, for an item an older cn
    /// decided, what its last note says.
    pub fn of_item(item: &Item) -> Answer {
        if let Some(answer) = item.doc.get(KEY).and_then(|v| serde_yaml_ng::from_value::<Answer>(v.clone()).ok()) {
            return answer;
        }
        legacy(item)
    }
}

impl Item {
    /// The answer recorded on it (its `answer:` field), as [`Answer::of_item`] reads it; `None`
    /// when it has none yet (a hand-up's is recorded before its decision, any other with it).
    /// Beside [`Answer`], so `item` need not import it.
    pub fn answer(&self) -> Option<Answer> {
        self.doc.get(KEY).map(|_| Answer::of_item(self))
    }
}

/// What an older cn's decided item says in its last note ("do reply — ada (time)\n\ntext").
fn legacy(item: &Item) -> Answer {
    let notes: Vec<&str> = item.content.split("\n## ").skip(1).collect();
    let last = notes.last().copied().unwrap_or("");
    let (heading, body) = last.split_once("\n\n").unwrap_or((last, ""));
    let decision = heading.split(" — ").next().unwrap_or("").trim();
    let body = body.trim();
    let until = item.marks().until.clone();
    match decision {
        "do reply" => Answer::Reply { text: body.to_string() },
        "defer" if body.contains(HAND_UP) => Answer::HandedUp { why: HandUp::Legacy, until },
        "defer" => {
            let reason = body.split_once(": ").map_or(body, |(_, r)| r).to_string();
            Answer::Deferred { reason, until }
        }
        other => Answer::Closed { op: other.to_string(), note: body.lines().next().unwrap_or("").to_string() },
    }
}

pub use crate::item::WAITS_FOR;

/// Why an item was handed up: the true reason its sender is told.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "kebab-case")]
pub enum HandUp {
    /// Nothing below the executive can do it and no executive is configured: it waits until
    /// one is, or until the owner decides it.
    NoExecutive,
    /// The thinking budget refused the executive (the refusal says which cap, or the pacing).
    Budget { refusal: String },
    /// An effect it needs is held for the owner's approval.
    Held { approval: String, what: String },
    /// The executive was asked and failed.
    ExecutiveFailed { error: String },
    /// Only the executive can do it, and it cannot take it now (an executive session runs, or
    /// a level below it decided before the budget was known).
    Later,
    /// What it needs failed below the executive, and no executive is configured — which
    /// would not change it: a fetch the policy refused, a page that could not be fetched.
    /// `why` says what failed and why; it comes back later (fixed by then, perhaps).
    Stopped { why: String },
    /// An older cn's hand-up ("I'll need my executive for that — queued").
    Legacy,
}

impl HandUp {
    /// The short reason a journal entry and the defer's note carry.
    pub fn reason(&self) -> String {
        match self {
            HandUp::NoExecutive => "handed up: no executive is configured".into(),
            HandUp::Budget { refusal } => format!("handed up: the thinking budget refused the executive ({refusal})"),
            HandUp::Held { approval, what } => format!("handed up: {what} waits for the owner's approval ({approval})"),
            HandUp::ExecutiveFailed { error } => format!("handed up: the executive failed ({error})"),
            HandUp::Later => "handed up: only the executive can do it, and it cannot take it now".into(),
            HandUp::Stopped { why } => format!("handed up: {why}"),
            HandUp::Legacy => HAND_UP.into(),
        }
    }

    /// What the sender reads. `owner`: the owner reads it (told how to change it); `until`:
    /// when it comes back by itself.
    pub fn tell(&self, owner: bool, until: Option<&str>) -> String {
        let again = |what: &str| match until {
            Some(u) => format!("{what} at {u}"),
            None => format!("{what} later"),
        };
        match (self, owner) {
            (HandUp::NoExecutive, true) => "I can't do that myself: it needs an executive model, and no executive is configured. Add one under `models.executive` in cn.yaml (its comments show the Anthropic, OpenAI-compatible and command forms); until then this waits in threads/deferred/ — `cn input` lists what waits there and `cn input ID` shows it."
                .into(),
            (HandUp::Stopped { why }, true) => format!(
                "I couldn't do that: {why}. {} — `cn input` lists what waits in threads/deferred/ and `cn input ID` shows it.",
                again("I'll try again")
            ),
            (HandUp::Stopped { why }, false) => format!("I couldn't do that: {why}. {}.", again("I'll try again")),
            (HandUp::NoExecutive, false) => "I can't do that myself: it needs my executive, which my owner has not configured. It waits until they do, or until they decide it."
                .into(),
            (HandUp::Budget { refusal }, _) => {
                format!("My thinking budget won't allow my executive now ({refusal}); {}.", again("I'll take this up"))
            }
            (HandUp::Held { approval, what }, true) => format!(
                "That needs your approval: {what}. `cn approve {approval}` (or `cn deny {approval}`); I'll finish it as soon as you decide."
            ),
            (HandUp::Held { what, .. }, false) => {
                format!("That needs my owner's approval ({what}); I'll finish it once they decide.")
            }
            (HandUp::ExecutiveFailed { error }, _) => {
                format!("My executive failed ({error}); {}.", again("I'll try again"))
            }
            (HandUp::Later, _) => format!("Only my executive can do that, and it can't take it now; {}.", again("I'll come back to it")),
            (HandUp::Legacy, _) => match until {
                Some(u) => format!("{HAND_UP} (I'll look at it again at {u})"),
                None => HAND_UP.into(),
            },
        }
    }

    /// What the item waits for besides a time, if anything ([`WAITS_FOR`]).
    pub fn waits_for(&self) -> Option<String> {
        match self {
            HandUp::NoExecutive => Some("executive".into()),
            HandUp::Held { approval, .. } => Some(approval.clone()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Cadence;
    use crate::ops::{Ack, Defer, Reply};

    #[test]
    fn an_answer_is_recorded_once_and_read_back() {
        let mut item = Item::new("a1", "owner", Cadence::Inbox, "hello");
        assert_eq!(item.answer(), None, "none recorded yet");
        let answer = Answer::of(&Gtd::Do(Op::Reply(Reply { message: "Hi!\n".into() })), None);
        answer.write(&mut item);
        let back = Item::parse(&item.render()).unwrap();
        assert_eq!(Answer::of_item(&back), Answer::Reply { text: "Hi!".into() });
        assert_eq!(back.answer(), Some(Answer::Reply { text: "Hi!".into() }));
        assert_eq!(Answer::of_item(&back).to_person(true), "Hi!");
    }

    #[test]
    fn a_hand_up_tells_the_true_reason() {
        let gtd = Gtd::Defer(Defer { reason: "x".into(), until: None });
        let a = Answer::of(&gtd, Some(&HandUp::NoExecutive));
        let told = a.to_person(true);
        assert!(told.contains("no executive") && told.contains("models.executive"), "{told}");
        // A peer is not told how to configure the owner's hub.
        assert!(!a.to_person(false).contains("cn.yaml"), "{}", a.to_person(false));
        let closed = Answer::of(&Gtd::Do(Op::Ack(Ack { reason: "seen".into() })), None);
        assert_eq!(closed.to_person(true), "(acknowledged: seen)");
    }

    #[test]
    fn an_older_items_last_note_still_reads() {
        let mut item = Item::new("a1", "owner", Cadence::Inbox, "hi\n");
        item.content.push_str("\n## do reply — ada (2026-01-01T00:00:00Z)\n\nHello!\n");
        assert_eq!(Answer::of_item(&item), Answer::Reply { text: "Hello!".into() });
        assert_eq!(item.answer(), None, "read from its note, not recorded");
    }
}
