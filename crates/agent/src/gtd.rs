//! The decision on an item: [`Gtd`] and, for `do`, its [`Op`] — the document's OCaml types
//! made Rust:
//!
//! ```text
//! type op  = Reply of {message} | Send of {to_; message; body: string option}
//!          | Noop of {reason} | Ack of {reason} | Surface of {desc} | Commit of {artifact}
//! type gtd = Do of op | Defer of {reason} | Delegate of {to_} | Delete of {reason}
//! ```
//!
//! Each variant carries its record, a struct in its own file under [`crate::ops`]
//! (`Op::Reply(Reply { message })` is the document's `Reply {message}`). The `decisions!`
//! list below is the one place the forms are enumerated: it makes the two enums and
//! [`KINDS`], from which the `cn out` grammar ([`crate::args`]), the executive's tools
//! ([`crate::tools`]) and the ops doc are built. Adding a form is its file and one line here.
//!
//! `Defer` also takes an optional `until` (RFC 3339) that brings the item back to the queue.
//! Both the `cn out` command line and the executive's YAML tool calls produce this one value;
//! [`crate::decide`] performs it.
//!
//! Invariant: a plain string field of the document's type is required; an `option` is
//! optional. The JSON form is one flat object with absent options left out.

use serde_json::{Map, Value};

use crate::error::Result;
use crate::hub::Hub;
use crate::ops::{self, AnyOp, Ctx, Effect, Field, OpKind};

/// Make `Op`, `Gtd`, their conversions and dispatch, and the lists, from one list of forms.
macro_rules! decisions {
    (
        $(#[$op_doc:meta])* Op { $( $(#[$o_doc:meta])* $op:ident ),* $(,)? }
        $(#[$gtd_doc:meta])* Gtd { $(#[$do_doc:meta])* Do(Op), $( $(#[$g_doc:meta])* $g:ident ),* $(,)? }
    ) => {
        $(#[$op_doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum Op {
            $( $(#[$o_doc])* $op(ops::$op), )*
        }

        $(#[$gtd_doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum Gtd {
            $(#[$do_doc])* Do(Op),
            $( $(#[$g_doc])* $g(ops::$g), )*
        }

        $(
            impl From<ops::$op> for Op {
                fn from(op: ops::$op) -> Op {
                    Op::$op(op)
                }
            }
            impl From<ops::$op> for Gtd {
                fn from(op: ops::$op) -> Gtd {
                    Gtd::Do(Op::$op(op))
                }
            }
        )*
        $(
            impl From<ops::$g> for Gtd {
                fn from(g: ops::$g) -> Gtd {
                    Gtd::$g(g)
                }
            }
        )*

        impl Op {
            fn inner(&self) -> &dyn AnyOp {
                match self {
                    $( Op::$op(x) => x, )*
                }
            }
            fn inner_mut(&mut self) -> &mut dyn AnyOp {
                match self {
                    $( Op::$op(x) => x, )*
                }
            }
        }

        impl Gtd {
            fn inner(&self) -> &dyn AnyOp {
                match self {
                    Gtd::Do(op) => op.inner(),
                    $( Gtd::$g(x) => x, )*
                }
            }
            fn inner_mut(&mut self) -> &mut dyn AnyOp {
                match self {
                    Gtd::Do(op) => op.inner_mut(),
                    $( Gtd::$g(x) => x, )*
                }
            }
        }

        /// Every form, the ops of `do` first, in the document's order.
        pub const KINDS: &[Kind] = &[ $( Kind::op::<ops::$op>(), )* $( Kind::gtd::<ops::$g>(), )* ];
        /// Every form's name (its tool's), in [`KINDS`] order.
        pub const KIND_NAMES: &[&str] = &[ $( <ops::$op as OpKind>::NAME, )* $( <ops::$g as OpKind>::NAME, )* ];
        /// The four GTD options, in the document's order.
        pub const GTD_NAMES: &[&str] = &["do", $( <ops::$g as OpKind>::NAME, )*];
        /// The six operations of `do`, in the document's order.
        pub const OP_NAMES: &[&str] = &[$( <ops::$op as OpKind>::NAME, )*];
    };
}

decisions! {
    /// What `do` does.
    Op {
        /// Append to the item's thread (and, for a peer's item, send it the text).
        Reply,
        /// Mail a peer; `body` is the full text, `message` its summary.
        Send,
        /// Close the item; nothing to do.
        Noop,
        /// Close the item with an explicit acknowledgment.
        Ack,
        /// Surface a concern (an MCA) for the community: `state/mca/`.
        Surface,
        /// Reference an artifact: a git object of the hub.
        Commit,
    }
    /// The decision on an item: one of four.
    Gtd {
        Do(Op),
        /// Postpone; `until` (RFC 3339) brings the item back to the queue then.
        Defer,
        /// Forward the item to a peer.
        Delegate,
        /// Archive with the reason; data is never destroyed.
        Delete,
    }
}

/// One form of a decision with its type left behind: its words, its fields and its docs —
/// what the grammar, the tools and the ops doc are built from.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// `do` for an op of `do`, else the gtd itself.
    pub gtd: &'static str,
    /// The op after `do`.
    pub op: Option<&'static str>,
    /// The tool's name: the op, or the gtd.
    pub name: &'static str,
    pub fields: &'static [Field],
    /// The tool's description.
    pub doc: &'static str,
    /// An example call's params as YAML lines.
    pub example: &'static str,
    build: fn(Map<String, Value>) -> serde_json::Result<Gtd>,
    schema: fn() -> Value,
}

fn build<K: OpKind + Into<Gtd>>(values: Map<String, Value>) -> serde_json::Result<Gtd> {
    ops::from_fields::<K>(values).map(Into::into)
}

impl Kind {
    const fn op<K: OpKind + Into<Gtd>>() -> Kind {
        Kind { gtd: "do", op: Some(K::NAME), ..Kind::gtd::<K>() }
    }

    const fn gtd<K: OpKind + Into<Gtd>>() -> Kind {
        Kind {
            gtd: K::NAME,
            op: None,
            name: K::NAME,
            fields: K::FIELDS,
            doc: K::DOC,
            example: K::EXAMPLE,
            build: build::<K>,
            schema: ops::schema::<K>,
        }
    }

    /// The form of `gtd` (and `op`), if there is one.
    pub fn find(gtd: &str, op: Option<&str>) -> Option<&'static Kind> {
        KINDS.iter().find(|k| k.gtd == gtd && k.op == op)
    }

    /// The tool named `name`.
    pub fn named(name: &str) -> Option<&'static Kind> {
        KINDS.iter().find(|k| k.name == name)
    }

    /// `do reply`, `defer`, …
    pub fn words(&self) -> String {
        match self.op {
            Some(op) => format!("{} {op}", self.gtd),
            None => self.gtd.to_string(),
        }
    }

    /// The flags: `--to PEER --message TEXT [--body TEXT]`.
    pub fn flags(&self) -> String {
        self.fields.iter().map(Field::usage).collect::<Vec<_>>().join(" ")
    }

    /// The accepted command line: `cn out do send --to PEER --message TEXT [--body TEXT]`.
    pub fn form(&self) -> String {
        format!("cn out {} {}", self.words(), self.flags())
    }

    /// The value from its fields (the field names as keys, string values). Errors name a
    /// missing or unknown field.
    pub fn build(&self, values: Map<String, Value>) -> serde_json::Result<Gtd> {
        (self.build)(values)
    }

    /// The value from a tool call's params, a stranger's text (a model's answer): checked
    /// field by field first, so the error names the form and the field, says what is wrong
    /// and what the form takes. Every value is text; an option may be empty (`null`).
    pub fn read(&self, mut values: Map<String, Value>) -> std::result::Result<Gtd, String> {
        let name = self.name;
        let takes = || {
            let fields: Vec<String> = self.fields.iter().map(|f| format!("`{}`", f.name)).collect();
            format!("`{name}` takes {}", fields.join(", "))
        };
        if let Some(unknown) = values.keys().find(|k| !self.fields.iter().any(|f| f.name == k.as_str())) {
            return Err(format!("`{name}` has no field `{}`; {}", short(unknown), takes()));
        }
        for f in self.fields {
            match values.get(f.name) {
                Some(Value::String(_)) => {}
                None if f.required => return Err(format!("`{name}` needs `{}` ({}); {}", f.name, f.value, takes())),
                Some(Value::Null) if f.required => {
                    return Err(format!("`{name}`'s `{}` is empty; give it as text ({})", f.name, f.value))
                }
                None | Some(Value::Null) => {
                    values.remove(f.name);
                }
                Some(other) => {
                    return Err(format!("`{name}`'s `{}` is {}; give it as text ({})", f.name, kind_of(other), f.value))
                }
            }
        }
        self.build(values).map_err(|e| format!("`{name}`: {e}"))
    }

    /// The JSON Schema of the fields, with their docs: the tool's params.
    pub fn schema(&self) -> Value {
        (self.schema)()
    }
}

/// A field name as an error quotes it: a stranger's, so cut.
fn short(s: &str) -> String {
    let cut: String = s.chars().take(40).collect();
    if cut.len() < s.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// A decision as a tool call's params, carried typed from `parse` to its op tool: its JSON
/// (the journal's, an approval's) is the call's fields, the tool's name saying the form.
impl cn_compute::Typed for Gtd {
    fn to_json(&self) -> Value {
        Value::Object(self.fields().into_iter().map(|(k, v)| (k.to_string(), Value::String(v))).collect())
    }
}

impl Op {
    pub fn name(&self) -> &'static str {
        self.inner().name()
    }
}

impl Gtd {
    pub fn name(&self) -> &'static str {
        match self {
            Gtd::Do(_) => "do",
            other => other.inner().name(),
        }
    }

    /// `do reply`, `defer`, …: the gtd and, for `do`, its op.
    pub fn label(&self) -> String {
        match self.op() {
            Some(op) => format!("do {}", op.name()),
            None => self.name().to_string(),
        }
    }

    pub fn op(&self) -> Option<&Op> {
        match self {
            Gtd::Do(op) => Some(op),
            _ => None,
        }
    }

    /// Its form.
    pub fn kind(&self) -> Option<&'static Kind> {
        Kind::find(self.name(), self.op().map(Op::name))
    }

    /// The fields after `gtd` (and `op`), in the document's order; `None` options left out.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        self.inner().fields()
    }

    /// The flat JSON object: `{"gtd":"do","op":"send","to":"pi","message":"hello"}`.
    pub fn to_json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("gtd".into(), self.name().into());
        if let Some(op) = self.op() {
            m.insert("op".into(), op.name().into());
        }
        for (k, v) in self.fields() {
            m.insert(k.into(), v.into());
        }
        m
    }

    /// Read the flat JSON object back (the form `state/output.md` keeps); other keys are
    /// ignored.
    pub fn from_json(m: &Map<String, Value>) -> Option<Gtd> {
        let s = |k: &str| m.get(k).and_then(Value::as_str);
        let gtd = s("gtd")?;
        let op = if gtd == "do" { Some(s("op")?) } else { None };
        let kind = Kind::find(gtd, op)?;
        let values: Map<String, Value> =
            kind.fields.iter().filter_map(|f| Some((f.name.to_string(), Value::from(s(f.name)?)))).collect();
        kind.build(values).ok()
    }

    /// The command line that yields this value, values quoted so it reads back the same
    /// way in a shell: `do send --to "pi" --message "hello"`.
    pub fn to_command(&self) -> String {
        let mut s = self.label();
        for (k, v) in self.fields() {
            s.push_str(&format!(" --{k} {v:?}"));
        }
        s
    }

    /// One line for a commit message or a log: the decision with long values cut.
    pub fn summary(&self) -> String {
        let mut s = self.label();
        if let Some((_, v)) = self.fields().into_iter().find(|(k, _)| *k != "body") {
            let first = v.lines().next().unwrap_or("");
            let cut: String = first.chars().take(60).collect();
            let more = if cut.len() < v.len() { "…" } else { "" };
            s.push_str(&format!(": {cut}{more}"));
        }
        s
    }

    /// Check it against the hub and normalize it (see [`OpKind::check`]).
    pub(crate) fn check(&mut self, hub: &Hub) -> Result<()> {
        // A decision that says nothing (`--message ""`) is refused, naming the field.
        if let Some((name, _)) = self.fields().into_iter().find(|(_, v)| v.trim().is_empty()) {
            return Err(crate::AgentError::Invalid(format!("--{name} is empty; say what it should be")));
        }
        self.inner_mut().check(hub)
    }

    /// Perform it on the item (the op's own effect only; [`crate::decide`] adds the rest).
    pub(crate) fn perform(&self, ctx: &Ctx) -> Result<Effect> {
        self.inner().perform(ctx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::{Defer, Delegate, Delete, Reply, Send};

    #[test]
    fn json_is_flat_and_leaves_out_absent_options() {
        let send = Gtd::from(Send { to: "pi".into(), message: "hello".into(), body: Some("…".into()) });
        assert_eq!(
            serde_json::to_string(&send.to_json()).unwrap(),
            r#"{"gtd":"do","op":"send","to":"pi","message":"hello","body":"…"}"#
        );
        let reply = Gtd::from(Reply { message: "LGTM".into() });
        assert_eq!(serde_json::to_string(&reply.to_json()).unwrap(), r#"{"gtd":"do","op":"reply","message":"LGTM"}"#);
        let defer = Gtd::Defer(Defer { reason: "later".into(), until: None });
        assert_eq!(serde_json::to_string(&defer.to_json()).unwrap(), r#"{"gtd":"defer","reason":"later"}"#);
        let delegate = Gtd::Delegate(Delegate { to: "pi".into() });
        assert_eq!(serde_json::to_string(&delegate.to_json()).unwrap(), r#"{"gtd":"delegate","to":"pi"}"#);
        let delete = Gtd::Delete(Delete { reason: "dup".into() });
        assert_eq!(serde_json::to_string(&delete.to_json()).unwrap(), r#"{"gtd":"delete","reason":"dup"}"#);
        for g in [send, reply, defer, delegate, delete] {
            assert_eq!(Gtd::from_json(&g.to_json()), Some(g));
        }
    }

    #[test]
    fn summary_cuts_long_values() {
        let g = Gtd::from(Reply { message: format!("{}\nsecond line", "x".repeat(100)) });
        let s = g.summary();
        assert!(s.starts_with("do reply: xxx") && s.ends_with('…') && !s.contains('\n'), "{s}");
    }

    #[test]
    fn every_forms_fields_are_its_structs_fields() {
        for k in KINDS {
            let schema = k.schema();
            let props: Vec<&String> = schema["properties"].as_object().map(|p| p.keys().collect()).unwrap_or_default();
            let names: Vec<&str> = k.fields.iter().map(|f| f.name).collect();
            assert_eq!(props, names, "{}", k.name);
            let required: Vec<&str> =
                schema["required"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
            let want: Vec<&str> = k.fields.iter().filter(|f| f.required).map(|f| f.name).collect();
            assert_eq!(required, want, "{}", k.name);
            assert!(schema.get("description").is_none(), "{}", k.name);
        }
        assert_eq!(GTD_NAMES, ["do", "defer", "delegate", "delete"]);
        assert_eq!(OP_NAMES, ["reply", "send", "noop", "ack", "surface", "commit"]);
    }
}
