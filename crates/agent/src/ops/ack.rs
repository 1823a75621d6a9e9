//! `do ack --reason`: close the item with an explicit acknowledgment.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Effect, Field, OpKind};
use crate::error::Result;

/// `Ack of {reason}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Ack {
    /// Why.
    pub reason: String,
}

impl OpKind for Ack {
    const NAME: &'static str = "ack";
    const FIELDS: &'static [Field] = &[Field::required("reason", "TEXT")];
    const DOC: &'static str = "do ack: close the current item with an explicit acknowledgment.";
    const EXAMPLE: &'static str = "reason: seen, thanks\n";

    fn perform(&self, _ctx: &Ctx) -> Result<Effect> {
        Ok(Effect::done(format!("acknowledged: {}", self.reason)))
    }
}
