//! `why` — "why did you do that?" answered from the journal ([`crate::routine::why`]): the
//! last decision taken for the person asking, or the one whose item id they name, with who took
//! it and why. Read-only; a person hears only about their own.

use std::sync::Arc;

use cn_hub::journal::HubJournal;
use cn_storage::Journal;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::Shared;
use crate::routine::why::{self, Asked};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The question ("why did you do that?", or one naming an item id).
    text: String,
}

pub(crate) fn tool(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed(
        why::ACTION,
        "Why I did what I did: the last decision taken for the person asking (or the item id they name), what was done, who took it (reflex, cn's rules, the local model or the executive, with level and model) and its reason, from the journal.",
        move |ctx, p: Params| {
            let layout = cn_hub::Layout::new(&shared.hub);
            let failed = |e: &dyn std::error::Error| cn_compute::ToolError::Failed(cn_compute::chain(e));
            let who = ctx.from.clone().unwrap_or(cn_hub::Provenance::Owner);
            // Decisions for an unnamed provenance were taken for anyone who is it.
            if who.is_unnamed() {
                return Err(cn_compute::ToolError::Denied(super::routine::unnamed(&who)));
            }
            let read = HubJournal::read(&layout.state()).map_err(|e| failed(&e))?;
            // Only each call's item, level and model are kept (not its prompt).
            let mut asked = Vec::new();
            Journal::scan(&layout.interactions(), |line| {
                if let Some(a) = line.ok().as_ref().and_then(Asked::of) {
                    asked.push(a);
                }
            })
            .map_err(|e| failed(&e))?;
            let now = shared.now();
            Ok(Value::String(why::answer(&p.text, &read.entries, &asked, &who, now.time_zone())))
        },
    )
}
