//! Cron: standard five-field expressions (minute hour day-of-month month day-of-week), with
//! names for months and days, ranges, steps and lists. When day-of-month and day-of-week are
//! both restricted, a day matching either fires (Vixie cron semantics).
//!
//! We check each field ourselves before handing the expression to `croner`, for two reasons:
//! an error must name the field that is wrong, and only the standard syntax is accepted
//! (croner also takes seconds, years and Quartz extensions, which would make a six-field
//! typo silently mean something else).

use std::fmt;
use std::str::FromStr;

use croner::parser::{CronParser, Seconds, Year};
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

/// The five fields, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Minute,
    Hour,
    DayOfMonth,
    Month,
    DayOfWeek,
}

impl Field {
    const ALL: [Field; 5] = [Field::Minute, Field::Hour, Field::DayOfMonth, Field::Month, Field::DayOfWeek];

    pub fn name(self) -> &'static str {
        match self {
            Field::Minute => "minute",
            Field::Hour => "hour",
            Field::DayOfMonth => "day-of-month",
            Field::Month => "month",
            Field::DayOfWeek => "day-of-week",
        }
    }

    fn bounds(self) -> (u32, u32) {
        match self {
            Field::Minute => (0, 59),
            Field::Hour => (0, 23),
            Field::DayOfMonth => (1, 31),
            Field::Month => (1, 12),
            // 7 is Sunday too, as in every cron.
            Field::DayOfWeek => (0, 7),
        }
    }

    fn names(self) -> &'static [&'static str] {
        const MONTHS: &[&str] = &["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
        const DAYS: &[&str] = &["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
        match self {
            Field::Month => MONTHS,
            Field::DayOfWeek => DAYS,
            _ => &[],
        }
    }

    /// The number a name stands for (JAN = 1, SUN = 0).
    fn name_value(self, word: &str) -> Option<u32> {
        let upper = word.to_ascii_uppercase();
        let offset = if self == Field::Month { 1 } else { 0 };
        self.names().iter().position(|n| *n == upper).map(|i| i as u32 + offset)
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why an expression is not a standard cron expression.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CronError {
    #[error("cron expression `{expr}` has {count} fields; expected 5: minute hour day-of-month month day-of-week")]
    FieldCount { expr: String, count: usize },
    #[error("cron {field} field `{text}`: {reason}")]
    Field { field: Field, text: String, reason: FieldProblem },
    /// An expression no date satisfies (`0 0 31 2 *`: February 31st); cron's search for its
    /// next time gives up.
    #[error("cron expression `{expr}` never fires: no date matches its day-of-month, month and day-of-week together")]
    Never { expr: String },
    /// What the cron library itself refused (its error is in the message, so it is not
    /// also the source; shared, so that the error stays `Clone`).
    #[error("cron expression `{expr}`: {reason}")]
    Other { expr: String, reason: std::sync::Arc<croner::errors::CronError> },
}

/// What is wrong with one field of a cron expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldProblem {
    #[error("empty list element")]
    EmptyElement,
    #[error("step `{0}` is not a number")]
    StepNotANumber(String),
    #[error("step {step} is out of range 1-{hi}")]
    StepOutOfRange { step: u32, hi: u32 },
    #[error("range {0}-{1} runs backwards")]
    Backwards(u32, u32),
    #[error("{value} is out of range {lo}-{hi}")]
    OutOfRange { value: u32, lo: u32, hi: u32 },
    #[error("`{0}` is not a number")]
    NotANumber(String),
    #[error("`{text}` is not a number or a name ({names})")]
    NotANumberOrName { text: String, names: String },
}

/// A parsed, validated five-field cron expression.
#[derive(Debug, Clone)]
pub struct Cron {
    expr: String,
    inner: croner::Cron,
}

impl Cron {
    pub fn as_str(&self) -> &str {
        &self.expr
    }

    /// The next fire time strictly after `after`, in the wall clock of `tz`.
    pub fn next_after(&self, after: Timestamp, tz: &TimeZone) -> Result<Zoned, CronError> {
        let start = after.to_zoned(tz.clone());
        self.inner.find_next_occurrence(&start, false).map_err(|e| self.other(e))
    }

    /// The next `n` fire times strictly after `after`.
    pub fn next_n(&self, after: Timestamp, tz: &TimeZone, n: usize) -> Result<Vec<Zoned>, CronError> {
        let mut out = Vec::with_capacity(n.min(1024));
        let mut t = after;
        for _ in 0..n {
            let z = self.next_after(t, tz)?;
            t = z.timestamp();
            out.push(z);
        }
        Ok(out)
    }

    /// The latest fire time in `(after, until]`, if any: what a schedule missed.
    pub fn last_between(&self, after: Timestamp, until: Timestamp, tz: &TimeZone) -> Result<Option<Zoned>, CronError> {
        let next = self.next_after(after, tz)?;
        if next.timestamp() > until {
            return Ok(None);
        }
        // Search backwards from just past `until` (inclusive of `until` itself).
        let end = until.to_zoned(tz.clone());
        let prev = self.inner.find_previous_occurrence(&end, true).map_err(|e| self.other(e))?;
        Ok(Some(if prev.timestamp() > after { prev } else { next }))
    }

    fn other(&self, e: croner::errors::CronError) -> CronError {
        if matches!(e, croner::errors::CronError::TimeSearchLimitExceeded) {
            return CronError::Never { expr: self.expr.clone() };
        }
        CronError::Other { expr: self.expr.clone(), reason: std::sync::Arc::new(e) }
    }
}

impl FromStr for Cron {
    type Err = CronError;

    fn from_str(expr: &str) -> Result<Self, CronError> {
        let parts: Vec<&str> = expr.split_whitespace().collect();
        if parts.len() != 5 {
            return Err(CronError::FieldCount { expr: expr.to_string(), count: parts.len() });
        }
        let normalized: Vec<String> =
            Field::ALL.iter().zip(&parts).map(|(f, text)| normalize(*f, text)).collect::<Result<_, _>>()?;
        let pattern = normalized.join(" ");
        let inner = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .year(Year::Disallowed)
            .dom_and_dow(false)
            .build()
            .parse(&pattern)
            .map_err(|e| CronError::Other { expr: expr.to_string(), reason: std::sync::Arc::new(e) })?;
        Ok(Cron { expr: expr.to_string(), inner })
    }
}

/// Check one field and rewrite names as numbers.
fn normalize(field: Field, text: &str) -> Result<String, CronError> {
    let err = |reason: FieldProblem| CronError::Field { field, text: text.to_string(), reason };
    let (lo, hi) = field.bounds();
    let mut items = Vec::new();
    for item in text.split(',') {
        if item.is_empty() {
            return Err(err(FieldProblem::EmptyElement));
        }
        let (range, step) = match item.split_once('/') {
            Some((r, s)) => {
                let step: u32 = s.parse().map_err(|_| err(FieldProblem::StepNotANumber(s.to_string())))?;
                if step == 0 || step > hi {
                    return Err(err(FieldProblem::StepOutOfRange { step, hi }));
                }
                (r, Some(step))
            }
            None => (item, None),
        };
        let range_text = if range == "*" {
            "*".to_string()
        } else if let Some((a, b)) = range.split_once('-') {
            let (a, b) = (value(field, a, lo, hi).map_err(err)?, value(field, b, lo, hi).map_err(err)?);
            if a > b {
                return Err(err(FieldProblem::Backwards(a, b)));
            }
            format!("{a}-{b}")
        } else {
            let v = value(field, range, lo, hi).map_err(err)?;
            // `5/15` means 5-max/15 in Vixie cron; croner wants it spelled out.
            if step.is_some() {
                format!("{v}-{hi}")
            } else {
                v.to_string()
            }
        };
        items.push(match step {
            Some(s) => format!("{range_text}/{s}"),
            None => range_text,
        });
    }
    Ok(items.join(","))
}

fn value(field: Field, text: &str, lo: u32, hi: u32) -> Result<u32, FieldProblem> {
    if let Some(v) = field.name_value(text) {
        return Ok(v);
    }
    match text.parse::<u32>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        Ok(value) => Err(FieldProblem::OutOfRange { value, lo, hi }),
        Err(_) if field.names().is_empty() => Err(FieldProblem::NotANumber(text.to_string())),
        Err(_) => Err(FieldProblem::NotANumberOrName { text: text.to_string(), names: field.names().join(", ") }),
    }
}

/// A time zone name that names none.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown time zone `{name}` (use an IANA name such as Europe/Berlin)")]
pub struct TimeZoneError {
    pub name: String,
    pub source: jiff::Error,
}

/// A time zone by IANA name (`Europe/Berlin`) or `UTC`.
pub fn time_zone(name: &str) -> Result<TimeZone, TimeZoneError> {
    if name.eq_ignore_ascii_case("utc") || name == "Z" {
        return Ok(TimeZone::UTC);
    }
    TimeZone::get(name).map_err(|source| TimeZoneError { name: name.to_string(), source })
}

/// RFC 3339 for a fire time: `Z` in UTC, the zone's offset otherwise.
pub fn rfc3339(z: &Zoned) -> String {
    if z.offset().seconds() == 0 && z.time_zone() == &TimeZone::UTC {
        z.timestamp().to_string()
    } else {
        z.timestamp().display_with_offset(z.offset()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next(expr: &str, after: &str, n: usize, tz: &str) -> Vec<String> {
        let cron: Cron = expr.parse().unwrap();
        let tz = time_zone(tz).unwrap();
        cron.next_n(after.parse().unwrap(), &tz, n).unwrap().iter().map(rfc3339).collect()
    }

    #[test]
    fn dom_and_dow_both_restricted_match_either() {
        // 2026-02-01 is a Sunday. Fridays: 6, 13 (also the 13th), 20, 27; March 13 is a Friday too.
        let got = next("0 0 13 * 5", "2026-02-01T00:00:00Z", 6, "UTC");
        assert_eq!(
            got,
            [
                "2026-02-06T00:00:00Z",
                "2026-02-13T00:00:00Z",
                "2026-02-20T00:00:00Z",
                "2026-02-27T00:00:00Z",
                "2026-03-06T00:00:00Z",
                "2026-03-13T00:00:00Z",
            ]
        );
        // The 13th on a non-Friday fires as well: 2026-01-13 is a Tuesday.
        assert_eq!(next("0 0 13 * 5", "2026-01-10T00:00:00Z", 1, "UTC"), ["2026-01-13T00:00:00Z"]);
    }

    #[test]
    fn names_ranges_steps_lists_and_strictly_after() {
        assert_eq!(
            next("*/20 9-10 * JAN mon-fri", "2026-01-05T09:20:00Z", 4, "UTC"),
            ["2026-01-05T09:40:00Z", "2026-01-05T10:00:00Z", "2026-01-05T10:20:00Z", "2026-01-05T10:40:00Z"]
        );
        assert_eq!(next("0 9 * * *", "2026-01-05T09:00:00Z", 1, "UTC"), ["2026-01-06T09:00:00Z"]);
        assert_eq!(next("0 0 * * 7", "2026-01-01T00:00:00Z", 1, "UTC"), ["2026-01-04T00:00:00Z"]);
        assert_eq!(
            next("5,35 0 1 1,7 *", "2026-01-01T00:10:00Z", 2, "UTC"),
            ["2026-01-01T00:35:00Z", "2026-07-01T00:05:00Z"]
        );
    }

    #[test]
    fn time_zones_use_wall_clock_and_offset() {
        // 09:00 in Berlin is 08:00Z in winter and 07:00Z in summer.
        assert_eq!(
            next("0 9 * * *", "2026-03-28T12:00:00Z", 2, "Europe/Berlin"),
            ["2026-03-29T09:00:00+02:00", "2026-03-30T09:00:00+02:00"]
        );
        assert_eq!(next("0 9 * * *", "2026-01-10T12:00:00Z", 1, "Europe/Berlin"), ["2026-01-11T09:00:00+01:00"]);
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            ("60 * * * *", Field::Minute),
            ("* 24 * * *", Field::Hour),
            ("* * 0 * *", Field::DayOfMonth),
            ("* * * FOO *", Field::Month),
            ("* * * * 8", Field::DayOfWeek),
            ("* * * * MON-", Field::DayOfWeek),
            ("*/0 * * * *", Field::Minute),
            ("* 5-2 * * *", Field::Hour),
            ("* * * 1,,2 *", Field::Month),
            ("* * L * *", Field::DayOfMonth),
        ];
        for (expr, field) in cases {
            match expr.parse::<Cron>() {
                Err(CronError::Field { field: f, .. }) => assert_eq!(f, field, "{expr}"),
                other => panic!("{expr}: {other:?}"),
            }
        }
        assert!(matches!("0 0 * * * *".parse::<Cron>(), Err(CronError::FieldCount { count: 6, .. })));
        let msg = "* * * * 9".parse::<Cron>().unwrap_err().to_string();
        assert!(msg.contains("day-of-week") && msg.contains("out of range 0-7"), "{msg}");
    }

    #[test]
    fn last_between_finds_the_latest_missed_fire() {
        let cron: Cron = "0 9 * * *".parse().unwrap();
        let tz = TimeZone::UTC;
        let got = cron
            .last_between("2026-01-01T10:00:00Z".parse().unwrap(), "2026-01-04T08:00:00Z".parse().unwrap(), &tz)
            .unwrap();
        assert_eq!(got.map(|z| rfc3339(&z)).as_deref(), Some("2026-01-03T09:00:00Z"));
        let none = cron
            .last_between("2026-01-01T10:00:00Z".parse().unwrap(), "2026-01-02T08:59:00Z".parse().unwrap(), &tz)
            .unwrap();
        assert!(none.is_none());
    }
}
