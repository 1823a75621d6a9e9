//! A time a person types where one is asked for (`cn task add --due`, `cn journal --since`,
//! a tool's `since`): the one reader of such times. The exact machine forms come first —
//! an RFC 3339 timestamp, a date (midnight in the hub's zone), a compact span from now
//! ("2h", "30m", "1 day", "in 30m", "1 day ago") — so scripts get exactly what they wrote;
//! anything else is a phrase read by [`super::parse`] in the hub's zone ("friday", "tomorrow
//! 9am", "in 2 hours", "tmrw at noon"). Counting back ([`Direction::Past`]) a span is that long
//! ago, "today" and "yesterday" are the start of the day, a weekday ("monday", "last monday")
//! the start of the latest one, and a time of day the latest one ("9am" at 08:00 is yesterday's).

use jiff::civil::{Date, Weekday};
use jiff::{Span, Timestamp, ToSpan, Zoned};

/// Which way a time counts from now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// A due time: spans and phrases are ahead of now.
    Future,
    /// A `since`: spans count back, days and weekdays are the latest ones.
    Past,
}

/// What a typed time may be, for the error that names one that is not.
pub const FORMS: &str = "RFC 3339 (2026-01-07T10:00:00Z), a date (2026-01-07), a span (2h, 30m, 1 day) \
                         or words (friday, tomorrow 9am, in 2 hours, yesterday)";

/// A typed time that cannot be used: the text and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` {why}: give {forms}", forms = FORMS)]
pub struct TypedError {
    pub text: String,
    pub why: String,
}

impl TypedError {
    fn new(text: &str, why: impl Into<String>) -> TypedError {
        TypedError { text: text.trim().to_string(), why: why.into() }
    }
}

/// The time `text` names, in `now`'s zone (the hub's). See the module's documentation.
pub fn typed(text: &str, now: &Zoned, direction: Direction) -> Result<Zoned, TypedError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(TypedError::new(text, "is empty"));
    }
    let tz = now.time_zone().clone();
    let out_of_range = |_| TypedError::new(text, "is out of range");
    if let Ok(ts) = t.parse::<Timestamp>() {
        return Ok(ts.to_zoned(tz));
    }
    if let Ok(date) = t.parse::<Date>() {
        return date.to_zoned(tz).map_err(out_of_range);
    }
    let span_text = t.strip_prefix("in ").or_else(|| t.strip_suffix(" ago")).unwrap_or(t);
    if let Ok(span) = span_text.parse::<Span>() {
        let span = if direction == Direction::Past { span.abs().negate() } else { span };
        return now.checked_add(span).map_err(out_of_range);
    }
    if direction == Direction::Past {
        if let Some(day) = past_day(t, now) {
            return day.to_zoned(tz).map_err(out_of_range);
        }
    }
    match super::parse(t, now) {
        Ok(Some(due)) => {
            let rest = due.rest.trim_matches(|c: char| c.is_whitespace() || ".,;:!".contains(c));
            if !rest.is_empty() {
                return Err(TypedError::new(text, format!("is more than a time (only “{}” is one)", due.phrase)));
            }
            match direction {
                Direction::Future => Ok(due.at),
                // "9am" is the latest 9am; a day ahead ("friday 9am") does not count back.
                Direction::Past if !due.day_given => {
                    due.at.checked_sub(1.day()).ok().filter(|at| at <= now).ok_or_else(|| ahead(text))
                }
                Direction::Past => Err(ahead(text)),
            }
        }
        Ok(None) => Err(TypedError::new(text, "is not a time")),
        Err(super::WhenError::Past { at, .. }) if direction == Direction::Past => Ok(*at),
        Err(e @ super::WhenError::Past { .. }) => Err(TypedError::new(text, format!("is in the past ({e})"))),
        Err(super::WhenError::Unreadable { why, .. }) => Err(TypedError::new(text, format!("is not a time ({why})"))),
    }
}

fn ahead(text: &str) -> TypedError {
    TypedError::new(text, "is ahead of now, and this time counts back")
}

/// Counting back: "today", "yesterday", "monday" or "last monday" as the day it starts.
/// A weekday is the latest one, today included ("last" leaves today out).
fn past_day(text: &str, now: &Zoned) -> Option<Date> {
    let lower = super::numbers::normalize(text).text.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let today = now.date();
    match words.as_slice() {
        ["today"] => Some(today),
        ["yesterday"] => today.yesterday().ok(),
        ["last", day] => weekday(day).and_then(|w| today.nth_weekday(-1, w).ok()),
        [day] => {
            weekday(day).and_then(|w| if today.weekday() == w { Some(today) } else { today.nth_weekday(-1, w).ok() })
        }
        _ => None,
    }
}

fn weekday(word: &str) -> Option<Weekday> {
    let w = word.trim_end_matches(|c: char| ".,;:!".contains(c));
    let day = match w {
        "monday" | "mon" => Weekday::Monday,
        "tuesday" | "tue" | "tues" => Weekday::Tuesday,
        "wednesday" | "wed" => Weekday::Wednesday,
        "thursday" | "thu" | "thur" | "thurs" => Weekday::Thursday,
        "friday" | "fri" => Weekday::Friday,
        "saturday" | "sat" => Weekday::Saturday,
        "sunday" | "sun" => Weekday::Sunday,
        _ => return None,
    };
    Some(day)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wednesday 7 January 2026, 10:00 in Paris.
    fn now() -> Zoned {
        "2026-01-07T10:00:00+01:00[Europe/Paris]".parse().unwrap()
    }

    fn at(text: &str, direction: Direction) -> String {
        typed(text, &now(), direction).unwrap().timestamp().to_string()
    }

    #[test]
    fn machine_forms_are_exact() {
        use Direction::*;
        assert_eq!(at("2026-01-08T00:00:00Z", Future), "2026-01-08T00:00:00Z");
        assert_eq!(at("2020-01-01", Future), "2019-12-31T23:00:00Z");
        assert_eq!(at("2h", Future), "2026-01-07T11:00:00Z");
        assert_eq!(at("in 30m", Future), "2026-01-07T09:30:00Z");
        assert_eq!(at("1 day ago", Past), "2026-01-06T09:00:00Z");
        assert_eq!(at("2h", Past), "2026-01-07T07:00:00Z");
    }

    #[test]
    fn phrases_are_read_in_the_hubs_zone() {
        use Direction::*;
        assert_eq!(at("friday", Future), "2026-01-09T08:00:00Z");
        assert_eq!(at("tomorrow 9am", Future), "2026-01-08T08:00:00Z");
        assert_eq!(at("tmrw at noon", Future), "2026-01-08T11:00:00Z");
        assert_eq!(at("in 2 hours", Future), "2026-01-07T11:00:00Z");
    }

    #[test]
    fn counting_back() {
        use Direction::*;
        assert_eq!(at("yesterday", Past), "2026-01-05T23:00:00Z");
        assert_eq!(at("today", Past), "2026-01-06T23:00:00Z");
        assert_eq!(at("monday", Past), "2026-01-04T23:00:00Z");
        assert_eq!(at("wednesday", Past), "2026-01-06T23:00:00Z");
        assert_eq!(at("last wednesday", Past), "2025-12-30T23:00:00Z");
        assert_eq!(at("yesterday 9am", Past), "2026-01-06T08:00:00Z");
        assert_eq!(at("11am", Past), "2026-01-06T10:00:00Z");
        assert!(typed("friday 9am", &now(), Past).is_err());
    }

    #[test]
    fn refusals_name_the_text_and_the_forms() {
        for (text, direction) in [
            ("soonish", Direction::Future),
            ("garbage", Direction::Future),
            ("a while", Direction::Past),
            ("yesterday", Direction::Future),
            ("friday lunch with bob", Direction::Future),
            ("", Direction::Future),
        ] {
            let e = typed(text, &now(), direction).unwrap_err().to_string();
            assert!(e.contains(&format!("`{text}`")) && e.contains("RFC 3339") && e.contains("tomorrow 9am"), "{e}");
        }
    }
}
