//! A tool call and what it returned, typed by the crate that owns the tool.
//!
//! The kernel carries a call from `parse` to `act` and its result to `decide` without
//! knowing any tool. A tool's crate that knows its params (the decision's ops: cn-agent's
//! `Gtd`) reads them once, as `parse` meets the call ([`Reader`]), and its tool returns its
//! own value (the `Decided`): both ride here as [`Typed`] values, read back by their type.
//! A tool whose params come from outside (an MCP server's JSON schema, a reflex's template,
//! a loop's file tools) keeps them [`Params::Open`], a JSON object its tool reads at its own
//! boundary.
//!
//! Invariant: JSON is made from a typed value only at the edge (the journal, an approval,
//! the model's next prompt), through [`Typed::to_json`]; nothing between parse and decide
//! reads a typed call by string key.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A value the kernel carries for the crate that typed it.
pub trait Typed: Any + fmt::Debug + Send + Sync {
    /// Its JSON form, for the edges: the journal, an approval, the model's next prompt.
    fn to_json(&self) -> Value;
}

/// One tool call, as `parse` extracted it from a YAML block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub tool: String,
    pub params: Params,
    /// Index of the YAML block it came from (0-based, counting YAML blocks only).
    #[serde(skip)]
    pub block: usize,
    /// 1-based line of that block's opening fence.
    #[serde(skip)]
    pub line: usize,
}

impl ToolCall {
    /// A call built in code rather than parsed (reflexes, tests), with open params.
    pub fn new(tool: impl Into<String>, params: Map<String, Value>) -> Self {
        ToolCall { tool: tool.into(), params: Params::Open(params), block: 0, line: 0 }
    }

    /// A call built in code with typed params.
    pub fn typed(tool: impl Into<String>, params: impl Typed) -> Self {
        ToolCall { tool: tool.into(), params: Params::Typed(Arc::new(params)), block: 0, line: 0 }
    }
}

/// A call's params.
#[derive(Debug, Clone)]
pub enum Params {
    /// Read once, at parse, by the crate that owns the tool (see [`Reader`]).
    Typed(Arc<dyn Typed>),
    /// An open tool's JSON object, read by the tool itself.
    Open(Map<String, Value>),
}

impl Params {
    /// The typed params, if they are a `T`.
    pub fn typed<T: Typed>(&self) -> Option<&T> {
        match self {
            Params::Typed(t) => (&**t as &dyn Any).downcast_ref(),
            Params::Open(_) => None,
        }
    }

    /// An open tool's object.
    pub fn open(&self) -> Option<&Map<String, Value>> {
        match self {
            Params::Open(m) => Some(m),
            Params::Typed(_) => None,
        }
    }

    /// The JSON object, for the edges (typed params are an object of their fields).
    pub fn to_json(&self) -> Map<String, Value> {
        match self {
            Params::Open(m) => m.clone(),
            Params::Typed(t) => match t.to_json() {
                Value::Object(m) => m,
                other => Map::from_iter([("value".to_string(), other)]),
            },
        }
    }
}

impl PartialEq for Params {
    fn eq(&self, other: &Params) -> bool {
        match (self, other) {
            (Params::Open(a), Params::Open(b)) => a == b,
            (Params::Typed(a), Params::Typed(b)) => same(&**a, &**b),
            _ => false,
        }
    }
}

/// Two typed values are equal when they are of one type with one JSON form.
fn same(a: &dyn Typed, b: &dyn Typed) -> bool {
    (a as &dyn Any).type_id() == (b as &dyn Any).type_id() && a.to_json() == b.to_json()
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Map::deserialize(d).map(Params::Open)
    }
}

impl Default for Params {
    fn default() -> Self {
        Params::Open(Map::new())
    }
}

/// What a tool returned.
#[derive(Debug, Clone)]
pub enum Returned {
    /// The tool's own value (an op's `Decided`), read back by its type.
    Typed(Arc<dyn Typed>),
    /// An open tool's JSON.
    Json(Value),
}

impl Returned {
    pub fn typed<T: Typed>(&self) -> Option<&T> {
        match self {
            Returned::Typed(t) => (&**t as &dyn Any).downcast_ref(),
            Returned::Json(_) => None,
        }
    }

    /// The JSON, for the edges.
    pub fn to_json(&self) -> Value {
        match self {
            Returned::Typed(t) => t.to_json(),
            Returned::Json(v) => v.clone(),
        }
    }

    pub fn into_json(self) -> Value {
        match self {
            Returned::Typed(t) => t.to_json(),
            Returned::Json(v) => v,
        }
    }
}

impl From<Value> for Returned {
    fn from(v: Value) -> Self {
        Returned::Json(v)
    }
}

impl PartialEq for Returned {
    fn eq(&self, other: &Returned) -> bool {
        match (self, other) {
            (Returned::Json(a), Returned::Json(b)) => a == b,
            (Returned::Typed(a), Returned::Typed(b)) => same(&**a, &**b),
            _ => false,
        }
    }
}

/// The JSON, as the model reads it next turn.
impl fmt::Display for Returned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_json())
    }
}

/// Reads a call's params as `parse` meets it: `Ok(Params::Typed(..))` for a tool whose
/// params its crate knows, an error naming the tool and the field for bad ones (`parse`
/// makes it a [`crate::ParseError`] the model is told about), else the object kept open.
pub type Reader = fn(&str, Map<String, Value>) -> Result<Params, String>;

/// The [`Reader`] that types nothing: every call's params stay open.
pub fn open(_tool: &str, params: Map<String, Value>) -> Result<Params, String> {
    Ok(Params::Open(params))
}
