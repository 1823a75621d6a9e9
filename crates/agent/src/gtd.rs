//! The decision on an item: [`Gtd`] and, for `do`, its [`Op`] — the document's OCaml types
//! made Rust:
//!
//! ```text
//! type op  = Reply of {message} | Send of {to_; message; body: string option}
//!          | Noop of {reason} | Ack of {reason} | Surface of {desc} | Commit of {artifact}
//! type gtd = Do of op | Defer of {reason} | Delegate of {to_} | Delete of {reason}
//! ```
//!
//! `Defer` also takes an optional `until` (RFC 3339) that brings the item back to the queue.
//! Both the `cn out` command line ([`crate::args`]) and the executive's YAML tool calls
//! ([`crate::tools`]) produce this one value; [`crate::decide`] performs it.
//!
//! Invariant: a plain string field of the document's type is required; an `option` is
//! optional. The JSON form is one flat object with absent options left out.

use serde_json::{Map, Value};

/// The four GTD options, in the document's order.
pub const GTD_NAMES: [&str; 4] = ["do", "defer", "delegate", "delete"];
/// The six operations of `do`, in the document's order.
pub const OP_NAMES: [&str; 6] = ["reply", "send", "noop", "ack", "surface", "commit"];

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Append to the item's thread (and, for a peer's item, send it the text).
    Reply { message: String },
    /// Mail a peer; `body` is the full text, `message` its summary.
    Send { to: String, message: String, body: Option<String> },
    /// Close the item; nothing to do.
    Noop { reason: String },
    /// Close the item with an explicit acknowledgment.
    Ack { reason: String },
    /// Surface a concern (an MCA) for the community: `state/mca/`.
    Surface { desc: String },
    /// Reference an artifact: a git object of the hub.
    Commit { artifact: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gtd {
    Do(Op),
    /// Postpone; `until` (RFC 3339) brings the item back to the queue then.
    Defer { reason: String, until: Option<String> },
    /// Forward the item to a peer.
    Delegate { to: String },
    /// Archive with the reason; data is never destroyed.
    Delete { reason: String },
}

impl Op {
    pub fn name(&self) -> &'static str {
        match self {
            Op::Reply { .. } => "reply",
            Op::Send { .. } => "send",
            Op::Noop { .. } => "noop",
            Op::Ack { .. } => "ack",
            Op::Surface { .. } => "surface",
            Op::Commit { .. } => "commit",
        }
    }
}

impl Gtd {
    pub fn name(&self) -> &'static str {
        match self {
            Gtd::Do(_) => "do",
            Gtd::Defer { .. } => "defer",
            Gtd::Delegate { .. } => "delegate",
            Gtd::Delete { .. } => "delete",
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

    /// The fields after `gtd` (and `op`), in the document's order; `None` options left out.
    pub fn fields(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::with_capacity(3);
        match self {
            Gtd::Do(Op::Reply { message }) => out.push(("message", message.as_str())),
            Gtd::Do(Op::Send { to, message, body }) => {
                out.push(("to", to.as_str()));
                out.push(("message", message.as_str()));
                if let Some(b) = body {
                    out.push(("body", b.as_str()));
                }
            }
            Gtd::Do(Op::Noop { reason }) | Gtd::Do(Op::Ack { reason }) | Gtd::Delete { reason } => {
                out.push(("reason", reason.as_str()))
            }
            Gtd::Do(Op::Surface { desc }) => out.push(("desc", desc.as_str())),
            Gtd::Do(Op::Commit { artifact }) => out.push(("artifact", artifact.as_str())),
            Gtd::Defer { reason, until } => {
                out.push(("reason", reason.as_str()));
                if let Some(u) = until {
                    out.push(("until", u.as_str()));
                }
            }
            Gtd::Delegate { to } => out.push(("to", to.as_str())),
        }
        out
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

    /// Read the flat JSON object back (the form `state/output.md` keeps).
    pub fn from_json(m: &Map<String, Value>) -> Option<Gtd> {
        let s = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
        Some(match s("gtd")?.as_str() {
            "do" => Gtd::Do(match s("op")?.as_str() {
                "reply" => Op::Reply { message: s("message")? },
                "send" => Op::Send { to: s("to")?, message: s("message")?, body: s("body") },
                "noop" => Op::Noop { reason: s("reason")? },
                "ack" => Op::Ack { reason: s("reason")? },
                "surface" => Op::Surface { desc: s("desc")? },
                "commit" => Op::Commit { artifact: s("artifact")? },
                _ => return None,
            }),
            "defer" => Gtd::Defer { reason: s("reason")?, until: s("until") },
            "delegate" => Gtd::Delegate { to: s("to")? },
            "delete" => Gtd::Delete { reason: s("reason")? },
            _ => return None,
        })
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_flat_and_leaves_out_absent_options() {
        let send = Gtd::Do(Op::Send { to: "pi".into(), message: "hello".into(), body: Some("…".into()) });
        assert_eq!(
            serde_json::to_string(&send.to_json()).unwrap(),
            r#"{"gtd":"do","op":"send","to":"pi","message":"hello","body":"…"}"#
        );
        let reply = Gtd::Do(Op::Reply { message: "LGTM".into() });
        assert_eq!(serde_json::to_string(&reply.to_json()).unwrap(), r#"{"gtd":"do","op":"reply","message":"LGTM"}"#);
        let defer = Gtd::Defer { reason: "later".into(), until: None };
        assert_eq!(serde_json::to_string(&defer.to_json()).unwrap(), r#"{"gtd":"defer","reason":"later"}"#);
        let delegate = Gtd::Delegate { to: "pi".into() };
        assert_eq!(serde_json::to_string(&delegate.to_json()).unwrap(), r#"{"gtd":"delegate","to":"pi"}"#);
        let delete = Gtd::Delete { reason: "dup".into() };
        assert_eq!(serde_json::to_string(&delete.to_json()).unwrap(), r#"{"gtd":"delete","reason":"dup"}"#);
        for g in [send, reply, defer, delegate, delete] {
            assert_eq!(Gtd::from_json(&g.to_json()), Some(g));
        }
    }

    #[test]
    fn summary_cuts_long_values() {
        let g = Gtd::Do(Op::Reply { message: format!("{}\nsecond line", "x".repeat(100)) });
        let s = g.summary();
        assert!(s.starts_with("do reply: xxx") && s.ends_with('…') && !s.contains('\n'), "{s}");
    }
}
