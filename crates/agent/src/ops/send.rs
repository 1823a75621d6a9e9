//! `do send --to --message [--body]`: mail a peer. `message` is the summary; `body`, when
//! given, is the full text the peer reads.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Effect, Field, OpKind};
use crate::error::Result;
use crate::hub::Hub;

/// `Send of {to_; message; body: string option}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Send {
    /// The peer's name.
    pub to: String,
    /// A one-line summary.
    pub message: String,
    /// The full text, when longer than the summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
}

impl OpKind for Send {
    const NAME: &'static str = "send";
    const FIELDS: &'static [Field] =
        &[Field::required("to", "PEER"), Field::required("message", "TEXT"), Field::optional("body", "TEXT")];
    const DOC: &'static str = "do send: mail a peer; `body` is the full text when `message` is a summary.";
    const EXAMPLE: &'static str = "to: pi\nmessage: summary\nbody: full response\n";

    fn check(&mut self, hub: &Hub) -> Result<()> {
        Ok(hub.require_peer(&self.to).map(drop)?)
    }

    fn perform(&self, ctx: &Ctx) -> Result<Effect> {
        let mut mail = ctx.mail(&self.to, "send", self.body.as_deref().unwrap_or(&self.message).to_string());
        if self.body.is_some() {
            mail.subject = Some(self.message.clone());
        }
        let mut effect = Effect::done(format!("sent to {}: {}", self.to, self.message));
        effect.mail.push(ctx.post(&mail)?);
        Ok(effect)
    }
}
