//! `delete --reason`: archive the item with the reason. Data is never destroyed: the item
//! stays in `threads/archived/` (and in git).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Effect, Field, OpKind};
use crate::error::Result;

/// `Delete of {reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Delete {
    /// Why.
    pub reason: String,
}

impl OpKind for Delete {
    const NAME: &'static str = "delete";
    const FIELDS: &'static [Field] = &[Field::required("reason", "TEXT")];
    const DOC: &'static str = "delete: archive the current item with the reason (nothing is destroyed).";
    const EXAMPLE: &'static str = "reason: duplicate\n";

    fn perform(&self, _ctx: &Ctx) -> Result<Effect> {
        let mut e = Effect::done(format!("deleted: {}", self.reason));
        e.facts.insert("status".into(), "deleted".into());
        Ok(e)
    }
}
