//! `log` — write a line to the journal (type `log`), linked to the reflex and the item.

use std::sync::Arc;

use cn_storage::Entry;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::Shared;
use crate::mode::Mode;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// What to record.
    message: String,
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("log", "Write a line to the journal.", move |_ctx, p: Params| {
        let turn = shared.turn();
        let mut e = Entry::new("log").with("reflex", turn.reflex.as_str()).with("message", p.message.as_str());
        if let Some(item) = &turn.target.item {
            e = e.with("item", item.as_str());
        }
        if turn.mode == Mode::Test {
            e = e.with("test", true);
        }
        shared.journal(&e);
        Ok(Value::String(p.message))
    })
}
