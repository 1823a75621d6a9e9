//! `template` — text built from variables. The engine has already replaced `{{var}}` in every
//! parameter, so the action returns its text: a named result later steps can use.

use std::sync::Arc;

use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// Text with `{{var}}` placeholders.
    template: String,
}

pub(crate) fn tool() -> Arc<dyn Tool> {
    typed("template", "Build text from variables ({{var}}).", |_ctx, p: Params| Ok(Value::String(p.template)))
}
