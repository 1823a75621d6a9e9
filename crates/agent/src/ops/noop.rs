//! `do noop --reason`: close the item; nothing to do.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Effect, Field, OpKind};
use crate::error::Result;

/// `Noop of {reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Noop {
    /// Why.
    pub reason: String,
}

impl OpKind for Noop {
    const NAME: &'static str = "noop";
    const FIELDS: &'static [Field] = &[Field::required("reason", "TEXT")];
    const DOC: &'static str = "do noop: close the current item, nothing to do.";
    const EXAMPLE: &'static str = "reason: acknowledged\n";

    fn perform(&self, _ctx: &Ctx) -> Result<Effect> {
        Ok(Effect::done(&self.reason))
    }
}
