//! `do commit --artifact`: reference an artifact — an object of the hub's git repository.
//! Anything else is refused before the decision is recorded.

use super::{Ctx, Effect};
use crate::error::{AgentError, Result};
use crate::hub::Hub;

/// The full hash of `artifact`, or an error saying it is not an object of the hub.
pub(crate) fn resolve(hub: &Hub, artifact: &str) -> Result<String> {
    let bad = || {
        AgentError::Invalid(format!(
            "--artifact `{artifact}` is not an object in the hub's repository {}; commit the artifact first and give its hash",
            hub.root().display()
        ))
    };
    let plain = !artifact.is_empty() && artifact.chars().all(|c| c.is_ascii_hexdigit()) && artifact.len() >= 4;
    let git = cn_hub::git::Git::new(hub.root());
    if !plain || !git.has_object(artifact) {
        return Err(bad());
    }
    let full = git.run(&["rev-parse", "--verify", "--quiet", &format!("{artifact}^{{object}}")])
        .map_err(|_| bad())?;
    Ok(full.trim().to_string())
}

pub(crate) fn perform(ctx: &Ctx, artifact: &str) -> Result<Effect> {
    let full = resolve(ctx.hub, artifact)?;
    let mut e = Effect::done(format!("artifact {full}"));
    e.facts.insert("artifact".into(), full.into());
    Ok(e)
}
