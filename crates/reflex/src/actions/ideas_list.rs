//! `ideas_list` — the ideas kept for someday (the asker's own only, when the item is not the
//! owner's).

use std::sync::Arc;

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::routine::{keep_named, named, state_failed, world};
use super::Shared;
use crate::routine::{act, Act, Outcome};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// Only the ideas these words name.
    words: Option<String>,
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed(
        "ideas_list",
        "List the ideas (state/ideas.json): {ideas: [{id, idea, added, source}], answer}.",
        move |ctx, p: Params| {
            let world = world(&shared, ctx, "");
            named(&world)?;
            let Outcome::IdeasListed { mut ideas } = act(Act::ListIdeas, &world).map_err(state_failed)? else {
                return Err(ToolError::Failed("listing the ideas gave no list".into()));
            };
            keep_named(&mut ideas, p.words.as_deref(), |i| i.idea.clone());
            let listed: Vec<Value> = ideas
                .iter()
                .map(|i| json!({"id": i.id, "idea": i.idea, "added": i.added, "source": i.source}))
                .collect();
            let answer = crate::routine::answer::answer(&[Outcome::IdeasListed { ideas }], &world.now);
            Ok(json!({ "ideas": listed, "answer": answer }))
        },
    )
}
