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
    pub(crate) fn with_next_time(self, now: jiff::Timestamp) -> Defer {
        match self.until {
            Some(_) => self,
            None => Defer { until: Some(cn_storage::rfc3339(now + jiff::SignedDuration::from_hours(24))), ..self },
        }
    }
}

pub(crate) fn parse_until(s: &str) -> Result<String> {
    // Written in the offset it was given in.
    if let Some((t, offset)) = cn_storage::parse_rfc3339(s) {
        return Ok(cn_storage::rfc3339_in(t, offset));
    }
    if let Some(d) = parse_date(s) {
        let midnight = d.duration_since(jiff::civil::date(1970, 1, 1)).as_secs();
        return Ok(cn_storage::rfc3339_unix(midnight, jiff::tz::Offset::UTC));
    }
    Err(AgentError::Invalid(format!(
        "--until `{s}` is not a time; give RFC 3339 (2026-01-07T10:00:00Z) or a date (2026-01-07)"
    )))
}

/// `2026-01-07` (`[year]-[month]-[day]`: four digits of year, or a sign and four to six; two of
/// month and of day), a day the calendar has.
fn parse_date(s: &str) -> Option<jiff::civil::Date> {
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (Some(1), &s[1..]),
        b'-' => (Some(-1), &s[1..]),
        _ => (None, s),
    };
    let (year, rest) = rest.split_once('-')?;
    let (month, day) = rest.split_once('-')?;
    let digits = |p: &str, n: std::ops::RangeInclusive<usize>| {
        (n.contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse::<i32>().ok()).flatten()
    };
    let year = digits(year, if sign.is_some() { 4..=6 } else { 4..=4 })? * sign.unwrap_or(1);
    let (month, day) = (digits(month, 2..=2)?, digits(day, 2..=2)?);
    jiff::civil::Date::new(i16::try_from(year).ok()?, i8::try_from(month).ok()?, i8::try_from(day).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::parse_until;

    #[test]
    fn until_is_written_as_it_always_was() {
        let ok = |s: &str| parse_until(s).unwrap();
        assert_eq!(ok("2026-01-07T10:00:00Z"), "2026-01-07T10:00:00Z");
        assert_eq!(ok("2026-01-07t10:00:00.9+02:00"), "2026-01-07T10:00:00+02:00");
        assert_eq!(ok("2026-01-07 10:00:00-00:00"), "2026-01-07T10:00:00Z");
        assert_eq!(ok("2026-01-07"), "2026-01-07T00:00:00Z");
        assert_eq!(ok("+2026-01-07"), "2026-01-07T00:00:00Z");
        assert_eq!(ok("+002026-01-07"), "2026-01-07T00:00:00Z");
        // A year RFC 3339 cannot write is the Unix seconds.
        assert_eq!(ok("-0001-12-31"), "-62167305600");
        for bad in ["soon", "2026-1-07", "2026-02-30", "20260107", "2026-01-07T10:00", "12026-01-07", "+0002026-01-07"]
        {
            assert!(parse_until(bad).is_err(), "{bad:?}");
        }
    }
}
