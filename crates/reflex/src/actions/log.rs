//! `log` — write a line to the journal (type `log`), linked to the reflex and the item.

use std::sync::Arc;

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
        shared.journal(&crate::journal::Logged {
            reflex: &turn.reflex,
            message: &p.message,
            item: turn.target.item.as_deref(),
            test: turn.mode == Mode::Test,
        });
        Ok(Value::String(p.message))
    })
}
