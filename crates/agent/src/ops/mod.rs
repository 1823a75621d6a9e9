//! The ops: the nine forms a decision takes, one file each. A file owns everything about its
//! form — the fields (a struct, which is also the tool's params: its schema and the field
//! docs the model reads come from it), the `cn out` flags ([`OpKind::FIELDS`]), the tool's
//! description and an example for the ops doc, the check against the hub, and the effect.
//! [`crate::gtd`] lists the files once; the `cn out` grammar ([`crate::args`]), the tools
//! ([`crate::tools`]) and the docs are built from that list.
//!
//! Every effect is a function of the item, the decision and its timestamp (recorded first in
//! `state/output.md`), and names the files it writes after them — so performing it again
//! after a crash writes the same files and mails nothing twice. An op returns an [`Effect`]:
//! the note appended to the item's thread, where the item goes, the mail it posted, and
//! facts for the journal.
//!
//! Invariant: an op's [`OpKind::FIELDS`] are its struct's fields, in the same order, with
//! `Option` fields optional (a test checks every op); all values are strings.

use std::fmt::Debug;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::Result;
use crate::hub::Hub;
use crate::item::Item;
use crate::mail::{post, Mail};
use cn_hub::id::stable as stable_id;

mod ack;
mod commit;
mod defer;
mod delegate;
mod delete;
mod noop;
mod promise;
mod reply;
mod send;
mod surface;

pub use ack::Ack;
pub use commit::Commit;
pub(crate) use defer::parse_until;
pub use defer::Defer;
pub use delegate::Delegate;
pub use delete::Delete;
pub use noop::Noop;
pub use reply::Reply;
pub use send::Send;
pub use surface::Surface;

/// One form of a decision: `do reply`, …, `defer`, `delegate`, `delete`. Implemented by the
/// struct holding the form's fields.
pub trait OpKind: Clone + Debug + PartialEq + Eq + Serialize + DeserializeOwned + JsonSchema + 'static {
    /// The word on the command line (after `do` for an op) and the tool's name.
    const NAME: &'static str;
    /// The `cn out` flags, which are the fields, in the document's order.
    const FIELDS: &'static [Field];
    /// What the form does, as the model reads it (the tool's description).
    const DOC: &'static str;
    /// An example call's params as YAML lines, for the ops doc.
    const EXAMPLE: &'static str;

    /// Check the decision against the hub (a known peer, a real git object, a valid time) and
    /// normalize it, before anything is recorded.
    fn check(&mut self, _hub: &Hub) -> Result<()> {
        Ok(())
    }

    /// Perform it on the item.
    fn perform(&self, ctx: &Ctx) -> Result<Effect>;
}

/// A field of an op, and its `cn out` flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The field's name and the flag's (`--to`).
    pub name: &'static str,
    /// What the value is, in the usage line: `TEXT`, `PEER`, `HASH` ….
    pub value: &'static str,
    /// Required (a plain string of the document's type), or optional (an `option`).
    pub required: bool,
}

impl Field {
    pub const fn required(name: &'static str, value: &'static str) -> Field {
        Field { name, value, required: true }
    }

    pub const fn optional(name: &'static str, value: &'static str) -> Field {
        Field { name, value, required: false }
    }

    /// `--to PEER`, or `[--body TEXT]` when optional.
    pub fn usage(&self) -> String {
        if self.required {
            format!("--{} {}", self.name, self.value)
        } else {
            format!("[--{} {}]", self.name, self.value)
        }
    }
}

/// An op value whatever its kind: what the decision code calls through [`crate::Gtd`].
pub(crate) trait AnyOp {
    fn name(&self) -> &'static str;
    /// The fields with their values, in [`OpKind::FIELDS`] order; absent options left out.
    fn fields(&self) -> Vec<(&'static str, String)>;
    fn check(&mut self, hub: &Hub) -> Result<()>;
    fn perform(&self, ctx: &Ctx) -> Result<Effect>;
}

impl<K: OpKind> AnyOp for K {
    fn name(&self) -> &'static str {
        K::NAME
    }

    fn fields(&self) -> Vec<(&'static str, String)> {
        // Every field is a string or an optional one (the module's invariant), so the
        // serialized object holds exactly the values.
        let Ok(Value::Object(mut values)) = serde_json::to_value(self) else { return Vec::new() };
        K::FIELDS
            .iter()
            .filter_map(|f| match values.remove(f.name) {
                Some(Value::String(s)) => Some((f.name, s)),
                _ => None,
            })
            .collect()
    }

    fn check(&mut self, hub: &Hub) -> Result<()> {
        OpKind::check(self, hub)
    }

    fn perform(&self, ctx: &Ctx) -> Result<Effect> {
        OpKind::perform(self, ctx)
    }
}

/// Read an op from its fields: exactly [`OpKind::FIELDS`], required ones present.
pub(crate) fn from_fields<K: OpKind>(values: Map<String, Value>) -> serde_json::Result<K> {
    serde_json::from_value(Value::Object(values))
}

/// The JSON Schema of an op's params, as the model reads it: the fields and their docs.
pub(crate) fn schema<K: OpKind>() -> Value {
    let mut params = serde_json::to_value(schemars::schema_for!(K)).unwrap_or(Value::Null);
    if let Some(o) = params.as_object_mut() {
        // The schema's own name and dialect, and the struct's rustdoc, mean nothing to a
        // model: the tool's description is `DOC`.
        o.remove("$schema");
        o.remove("title");
        o.remove("description");
    }
    params
}

/// What a decision is performed with.
pub struct Ctx<'a> {
    pub hub: &'a Hub,
    pub item: &'a Item,
    /// When the decision was made (RFC 3339).
    pub ts: &'a str,
    /// The decision's unique key: the seed of every name the op makes.
    pub key: &'a str,
    /// Decided below the executive (a reflex, the small local model): an automatic answer.
    pub automatic: bool,
}

/// Where a decided item goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `threads/archived/`, or `threads/reflections/<cadence>/` for a reflection.
    Done,
    /// `threads/deferred/`, back to the queue at `until`.
    Deferred { until: Option<String> },
}

/// What an op did.
#[derive(Debug, Clone)]
pub struct Effect {
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
            depth: self.item.depth() + 1,
            body,
        }
    }

    /// Why an answer to the item may not be mailed to `peer`, if it may not: an automatic
    /// answer to an automatic message, or a thread at its depth limit.
    pub fn withheld(&self, peer: &str) -> Option<String> {
        if self.automatic && self.item.is_automatic() {
            return Some(format!("not sent to {peer}: an automatic answer to an automatic message"));
        }
        (self.item.depth() + 1 > crate::item::MAX_THREAD_DEPTH).then(|| {
            format!("not sent to {peer}: the thread reached its limit of {} messages", crate::item::MAX_THREAD_DEPTH)
        })
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
