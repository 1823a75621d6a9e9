//! `extract_json` — pick values out of JSON with a JSONPath (RFC 9535) query.

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use serde_json_path::JsonPath;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The JSON document (a value, or text holding JSON).
    json: Value,
    /// A JSONPath query, e.g. `$.items[0].title`.
    path: String,
    /// Return every match as a list instead of the first one.
    all: Option<bool>,
}

pub(crate) fn tool() -> Arc<dyn Tool> {
    typed("extract_json", "Extract values from JSON with a JSONPath query.", |_ctx, p: Params| {
        let path = JsonPath::parse(&p.path).map_err(|e| ToolError::BadParams(format!("path `{}`: {e}", p.path)))?;
        let doc = match p.json {
            Value::String(s) => {
                serde_json::from_str(&s).map_err(|e| ToolError::Failed(format!("the input is not JSON: {e}")))?
            }
            v => v,
        };
        let nodes = path.query(&doc).all();
        if p.all.unwrap_or(false) {
            return Ok(Value::Array(nodes.into_iter().cloned().collect()));
        }
        nodes.first().map(|v| (*v).clone()).ok_or_else(|| ToolError::Failed(format!("`{}` matched nothing", p.path)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_tools::ToolContext;
    use serde_json::json;

    #[test]
    fn first_match_all_matches_and_text_input() {
        let t = tool();
        let ctx = ToolContext::new(".");
        let call = |v: Value| {
            t.call(&ctx, &cn_compute::Params::Open(v.as_object().cloned().unwrap()))
                .map(cn_compute::Returned::into_json)
        };
        let doc = json!({"items": [{"t": "a"}, {"t": "b"}]});
        assert_eq!(call(json!({"json": doc, "path": "$.items[*].t"})), Ok(json!("a")));
        assert_eq!(call(json!({"json": doc.to_string(), "path": "$.items[*].t", "all": true})), Ok(json!(["a", "b"])));
        assert!(matches!(call(json!({"json": doc, "path": "$.nope"})), Err(ToolError::Failed(_))));
        assert!(matches!(call(json!({"json": doc, "path": "items["})), Err(ToolError::BadParams(_))));
    }
}
