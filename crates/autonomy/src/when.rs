//! Times typed by a person on the command line: an RFC 3339 timestamp, a date (midnight
//! local time), or a span from now (`2h`, `1 day`, `in 30m`; `--since 2h` means 2 hours ago).

use jiff::tz::TimeZone;
use jiff::{Span, Timestamp};

/// Which way a span counts from now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Future,
    Past,
}

/// A time a person typed that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum WhenError {
    #[error("`{text}` is not a time: use RFC 3339 (2026-01-07T10:00:00Z), a date (2026-01-07) or a span (2h, 1 day)")]
    NotATime { text: String },
    #[error("`{text}` is out of range")]
    OutOfRange { text: String, source: jiff::Error },
}

pub fn parse(text: &str, now: Timestamp, direction: Direction) -> Result<Timestamp, WhenError> {
    let out_of_range = |source| WhenError::OutOfRange { text: text.to_string(), source };
    let t = text.trim();
    if let Ok(ts) = t.parse::<Timestamp>() {
        return Ok(ts);
    }
    let local = now.to_zoned(TimeZone::system());
    if let Ok(date) = t.parse::<jiff::civil::Date>() {
        return date.to_zoned(TimeZone::system()).map(|z| z.timestamp()).map_err(out_of_range);
    }
    let span_text = t.strip_prefix("in ").or_else(|| t.strip_suffix(" ago")).unwrap_or(t);
    let span: Span = span_text.parse().map_err(|_| WhenError::NotATime { text: text.to_string() })?;
    let span = if direction == Direction::Past { span.negate() } else { span };
    local.checked_add(span).map(|z| z.timestamp()).map_err(out_of_range)
}

/// Midnight today, local time.
pub fn start_of_today(now: Timestamp) -> Result<Timestamp, jiff::Error> {
    let local = now.to_zoned(TimeZone::system());
    local.start_of_day().map(|z| z.timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_timestamps_and_spans_both_ways() {
        let now: Timestamp = "2026-01-07T10:00:00Z".parse().unwrap();
        assert_eq!(parse("2026-01-08T00:00:00Z", now, Direction::Future).unwrap().to_string(), "2026-01-08T00:00:00Z");
        assert_eq!(parse("2h", now, Direction::Future).unwrap().to_string(), "2026-01-07T12:00:00Z");
        assert_eq!(parse("in 30m", now, Direction::Future).unwrap().to_string(), "2026-01-07T10:30:00Z");
        assert_eq!(parse("1 day ago", now, Direction::Past).unwrap().to_string(), "2026-01-06T10:00:00Z");
        assert!(parse("soonish", now, Direction::Future).unwrap_err().to_string().contains("RFC 3339"));
    }
}
