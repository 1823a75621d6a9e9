//! RFC 3339 timestamps as the hub's files hold them: written at second precision
//! (`2026-11-24T08:00:00Z`, or `…+01:00` in an offset), read strictly (RFC 3339's grammar, any
//! one character between the date and the time, a leap second only where one can be).
//!
//! The times are jiff's; what is written takes anything that is a [`SystemTime`], so a caller
//! holding another library's time (`time::OffsetDateTime` in cn-reflex) passes it as it is.

use std::time::SystemTime;

use jiff::civil::DateTime;
use jiff::tz::Offset;
use jiff::{SignedDuration, Timestamp};

/// Now, as an RFC 3339 UTC timestamp with second precision (the journal's `ts`).
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// `d` from now, as [`now_rfc3339`] writes it (a far `d` saturates at the largest time,
/// `9999-12-31T23:59:59Z`).
pub fn rfc3339_after(d: std::time::Duration) -> String {
    let now = unix_seconds(SystemTime::now());
    let later = i64::try_from(d.as_secs()).ok().and_then(|d| now.checked_add(d)).filter(|&t| t <= LAST_SECOND);
    seconds_in(later.unwrap_or(LAST_SECOND), Offset::UTC)
}

/// `t` in UTC at second precision: `2026-11-24T08:00:00Z`.
pub fn rfc3339(t: impl Into<SystemTime>) -> String {
    seconds_in(unix_seconds(t.into()), Offset::UTC)
}

/// `t` at second precision in `offset`: `2026-11-24T09:00:00+01:00` (`Z` for UTC). A time
/// that cannot be written so (a year before 0, an offset with seconds) is its Unix seconds.
pub fn rfc3339_in(t: Timestamp, offset: Offset) -> String {
    seconds_in(t.as_second(), offset)
}

/// [`rfc3339_in`] for Unix seconds, which reach past jiff's `Timestamp` (year -9999 to 9999 in
/// any offset).
pub fn rfc3339_unix(secs: i64, offset: Offset) -> String {
    seconds_in(secs, offset)
}

/// The last second RFC 3339 can write: 9999-12-31T23:59:59Z.
const LAST_SECOND: i64 = 253_402_300_799;

/// Whole seconds since the Unix epoch (floored: a time before it rounds down).
fn unix_seconds(t: SystemTime) -> i64 {
    match t.duration_since(SystemTime::UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(before) => {
            let d = before.duration();
            let whole = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
            if d.subsec_nanos() > 0 {
                whole.saturating_add(1).saturating_neg()
            } else {
                whole.saturating_neg()
            }
        }
    }
}

fn seconds_in(secs: i64, offset: Offset) -> String {
    let local = secs
        .checked_add(i64::from(offset.seconds()))
        .and_then(|s| DateTime::constant(1970, 1, 1, 0, 0, 0, 0).checked_add(SignedDuration::from_secs(s)).ok());
    match local {
        Some(dt) if (0..=9999).contains(&dt.year()) && offset.seconds() % 60 == 0 => {
            let zone = if offset == Offset::UTC {
                "Z".to_string()
            } else {
                let abs = offset.seconds().unsigned_abs();
                let sign = if offset.seconds() < 0 { '-' } else { '+' };
                format!("{sign}{:02}:{:02}", abs / 3600, abs / 60 % 60)
            };
            format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{zone}",
                dt.year(),
                dt.month(),
                dt.day(),
                dt.hour(),
                dt.minute(),
                dt.second()
            )
        }
        _ => secs.to_string(),
    }
}

/// `s` read as RFC 3339 (`2026-11-24T08:00:00Z`, `2026-11-24t09:00:00.5+01:00`): the instant and
/// the offset it was written in; `None` for anything else (a missing part, a trailing
/// character, a day the month lacks, an offset past 23:59, a leap second not at a month's
/// last UTC second).
pub fn parse_rfc3339(s: &str) -> Option<(Timestamp, Offset)> {
    let b = s.as_bytes();
    let digits = |at: usize, n: usize| -> Option<i64> {
        let part = b.get(at..at + n)?;
        part.iter().all(u8::is_ascii_digit).then(|| part.iter().fold(0, |v, d| v * 10 + i64::from(d - b'0')))
    };
    let lit = |at: usize, c: u8| b.get(at) == Some(&c);
    let year = digits(0, 4)?;
    let month = digits(5, 2).filter(|&m| lit(4, b'-') && (1..=12).contains(&m))?;
    let day = digits(8, 2).filter(|_| lit(7, b'-'))?;
    // Any one byte between the date and the time (`T`, `t`, a space…).
    b.get(10)?;
    let hour = digits(11, 2)?;
    let minute = digits(14, 2).filter(|_| lit(13, b':'))?;
    let mut second = digits(17, 2).filter(|_| lit(16, b':'))?;
    let mut at = 19;
    let mut nano = 0i64;
    if lit(at, b'.') {
        at += 1;
        let start = at;
        let mut scale = 100_000_000;
        while let Some(d) = digits(at, 1) {
            nano += d * scale;
            scale /= 10;
            at += 1;
        }
        if at == start {
            return None;
        }
    }
    let offset = match b.get(at)? {
        b'Z' | b'z' => {
            at += 1;
            0
        }
        sign @ (b'+' | b'-') => {
            let h = digits(at + 1, 2).filter(|&h| h <= 23)?;
            let m = digits(at + 4, 2).filter(|&m| lit(at + 3, b':') && m <= 59)?;
            at += 6;
            if *sign == b'-' {
                -(h * 3600 + m * 60)
            } else {
                h * 3600 + m * 60
            }
        }
        _ => return None,
    };
    if at != b.len() {
        return None;
    }
    let leap = second == 60;
    if leap {
        second = 59;
        nano = 999_999_999;
    }
    let narrow = |v: i64| i8::try_from(v).ok();
    let date = jiff::civil::Date::new(i16::try_from(year).ok()?, narrow(month)?, narrow(day)?).ok()?;
    let time =
        jiff::civil::Time::new(narrow(hour)?, narrow(minute)?, narrow(second)?, i32::try_from(nano).ok()?).ok()?;
    let offset = Offset::from_seconds(i32::try_from(offset).ok()?).ok()?;
    let t = offset.to_timestamp(date.to_datetime(time)).ok()?;
    if leap {
        // Only as a month's last second in UTC.
        let utc = t.to_zoned(jiff::tz::TimeZone::UTC);
        let last = utc.date().last_of_month() == utc.date() && (utc.hour(), utc.minute(), utc.second()) == (23, 59, 59);
        if !last {
            return None;
        }
    }
    Some((t, offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_written_at_second_precision_in_their_offset() {
        let t: Timestamp = "2026-11-24T08:00:00.75Z".parse().unwrap();
        assert_eq!(rfc3339(t), "2026-11-24T08:00:00Z");
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_in(t, Offset::from_seconds(3600).unwrap()), "2026-11-24T09:00:00+01:00");
        assert_eq!(rfc3339_in(t, Offset::from_seconds(-(5 * 3600 + 30 * 60)).unwrap()), "2026-11-24T02:30:00-05:30");
        assert_eq!(rfc3339_in(t, Offset::UTC), "2026-11-24T08:00:00Z");
        // Before the epoch, a fraction rounds down.
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH - std::time::Duration::from_millis(1)), "1969-12-31T23:59:59Z");
        // What RFC 3339 cannot hold is the Unix seconds.
        assert_eq!(rfc3339_in(t, Offset::from_seconds(3601).unwrap()), t.as_second().to_string());
        let old = Timestamp::from_second(-62_167_219_201).unwrap(); // 0000-01-01T00:00:00Z less 1 s
        assert_eq!(rfc3339(old), "-62167219201");
        // A far future saturates.
        assert_eq!(rfc3339_after(std::time::Duration::MAX), "9999-12-31T23:59:59Z");
        assert_eq!(rfc3339_after(std::time::Duration::from_secs(LAST_SECOND as u64)), "9999-12-31T23:59:59Z");
        let soon = rfc3339_after(std::time::Duration::from_secs(3600));
        let (then, _) = parse_rfc3339(&soon).unwrap();
        assert!((then.as_second() - Timestamp::now().as_second() - 3600).abs() <= 2, "{soon}");
    }

    #[test]
    fn rfc3339_is_read_strictly() {
        let at = |s: &str| parse_rfc3339(s).map(|(t, o)| (t.to_string(), o.seconds()));
        assert_eq!(at("2026-11-24T08:00:00Z"), Some(("2026-11-24T08:00:00Z".into(), 0)));
        assert_eq!(at("2026-11-24t09:00:00.5+01:00"), Some(("2026-11-24T08:00:00.5Z".into(), 3600)));
        assert_eq!(at("2026-11-24 08:00:00z"), Some(("2026-11-24T08:00:00Z".into(), 0)));
        assert_eq!(at("2026-11-24_03:00:00-05:00"), Some(("2026-11-24T08:00:00Z".into(), -18000)));
        assert_eq!(at("2026-11-24T08:00:00.1234567891Z"), Some(("2026-11-24T08:00:00.123456789Z".into(), 0)));
        assert_eq!(at("2026-12-31T23:59:60Z"), Some(("2026-12-31T23:59:59.999999999Z".into(), 0)));
        assert_eq!(at("2027-01-01T00:59:60+01:00"), Some(("2026-12-31T23:59:59.999999999Z".into(), 3600)));
        for bad in [
            "",
            "2026-11-24",
            "2026-11-24T08:00Z",
            "2026-11-24T08:00:00",
            "2026-11-24T08:00:00ZZ",
            "2026-11-24T08:00:00+0100",
            "2026-11-24T08:00:00+24:00",
            "2026-11-24T08:00:00+01:60",
            "2026-11-24T08:00:00.Z",
            "2026-02-30T08:00:00Z",
            "2026-13-01T08:00:00Z",
            "2026-11-24T24:00:00Z",
            "2026-11-24T08:00:60Z",
            "26-11-24T08:00:00Z",
            "+2026-11-24T08:00:00Z",
            "2026-11-24T08:00:00 Z",
            "yesterday",
        ] {
            assert_eq!(at(bad), None, "{bad:?}");
        }
    }
}
