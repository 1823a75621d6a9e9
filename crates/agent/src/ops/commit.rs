//! `do commit --artifact`: reference an artifact — an object of the hub's git repository.
//! Anything else is refused before the decision is recorded.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Effect, Field, OpKind};
use crate::error::{AgentError, Result};
use crate::hub::Hub;

/// `Commit of {artifact}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Commit {
    /// A git hash in the hub's repository.
    pub artifact: String,
}

impl OpKind for Commit {
    const NAME: &'static str = "commit";
    const FIELDS: &'static [Field] = &[Field::required("artifact", "HASH")];
    const DOC: &'static str = "do commit: reference an artifact by its git hash in the hub.";
    const EXAMPLE: &'static str = "artifact: 3f2a9c1\n";

    fn check(&mut self, hub: &Hub) -> Result<()> {
        resolve(hub, &self.artifact).map(drop)
    }

    fn perform(&self, ctx: &Ctx) -> Result<Effect> {
        let full = resolve(ctx.hub, &self.artifact)?;
        let mut e = Effect::done(format!("artifact {full}"));
        e.facts.insert("artifact".into(), full.into());
        Ok(e)
    }
}

/// The full hash of `artifact`, or an error saying it is not an object of the hub.
fn resolve(hub: &Hub, artifact: &str) -> Result<String> {
    let bad = || {
        AgentError::Invalid(format!(
            "--artifact `{artifact}` is not an object in the hub's repository {}; commit the artifact first and give its hash",
            hub.root().display()
        ))
    };
    let plain = !artifact.is_empty() && artifact.chars().all(|c| c.is_ascii_hexdigit()) && artifact.len() >= 4;
    let git = hub.git();
    if !plain || !git.has_object(artifact) {
        return Err(bad());
    }
    git.resolve(artifact).map_err(|_| bad())
}
