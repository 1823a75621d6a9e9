//! `defer --reason [--until]`: move the item to `threads/deferred/`; with `until`, the queue
//! takes it back once that time has passed. `until` is RFC 3339 or a date (midnight UTC);
//! the check writes it as RFC 3339 before the decision is recorded.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Effect, Field, OpKind, Target};
use crate::error::{AgentError, Result};
use crate::hub::Hub;

/// `Defer of {reason}`, and an optional `until` that brings the item back to the queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Defer {
    /// Why it waits.
    pub reason: String,
    /// When it comes back to the queue (RFC 3339, or a date).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until: Option<String>,
}

impl OpKind for Defer {
    const NAME: &'static str = "defer";
    const FIELDS: &'static [Field] = &[Field::required("reason", "TEXT"), Field::optional("until", "RFC3339-TIME")];
    const DOC: &'static str = "defer: postpone the current item; `until` brings it back to the queue.";
    const EXAMPLE: &'static str = "reason: waiting on review\nuntil: 2026-01-07T10:00:00Z\n";

    fn check(&mut self, _hub: &Hub) -> Result<()> {
        if let Some(until) = &mut self.until {
            *until = parse_until(until)?;
        }
        Ok(())
    }

    fn perform(&self, _ctx: &Ctx) -> Result<Effect> {
        let note = match &self.until {
            Some(u) => format!("deferred until {u}: {}", self.reason),
            None => format!("deferred: {}", self.reason),
        };
        let mut e = Effect::done(note);
        e.target = Target::Deferred { until: self.until.clone() };
        Ok(e)
    }
}

impl Defer {
    /// With a time to come back a day after `now` when it has none (a task's item: a
    /// commitment always comes back).
    pub(crate) fn with_next_time(self, now: time::OffsetDateTime) -> Defer {
        match self.until {
            Some(_) => self,
            None => Defer { until: Some(cn_storage::rfc3339(now + time::Duration::days(1))), ..self },
        }
    }
}

pub(crate) fn parse_until(s: &str) -> Result<String> {
    use time::format_description::well_known::Rfc3339;
    if let Ok(t) = time::OffsetDateTime::parse(s, &Rfc3339) {
        return Ok(cn_storage::rfc3339(t));
    }
    let date = time::macros::format_description!("[year]-[month]-[day]");
    if let Ok(d) = time::Date::parse(s, &date) {
        return Ok(cn_storage::rfc3339(d.midnight().assume_utc()));
    }
    Err(AgentError::Invalid(format!(
        "--until `{s}` is not a time; give RFC 3339 (2026-01-07T10:00:00Z) or a date (2026-01-07)"
    )))
}
