//! When a message says something is due: the time phrase in free text ("tomorrow", "at 9am",
//! "next week", "on the 1st", "in 3 days", "friday evening") found and turned into a time in
//! the hub's time zone.
//!
//! The phrase is found with two patterns (a day part and a time-of-day part, in either
//! order); the date arithmetic is `interim`'s (the English date grammar of the Linux `date`
//! command, on jiff), except for the forms it lacks ("next week", "on the 1st", "end of the
//! week"), which are rewritten into its grammar or computed with jiff.
//!
//! Rules: a day without a time is due at 09:00 (evening 18:00, tonight 20:00); a time
//! without a day is today if still ahead, else tomorrow; "next week" is Monday of next week.

use std::sync::OnceLock;

use jiff::civil::{Date, Time};
use jiff::tz::TimeZone;
use jiff::{ToSpan, Zoned};
use regex::Regex;

/// A due time found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Due {
    pub at: Zoned,
    /// The words that said it, as written.
    pub phrase: String,
    /// The text without them (and without a dangling "by", "on", "at").
    pub rest: String,
}

impl Due {
    /// RFC 3339 in UTC, as `state/tasks.json` keeps it.
    pub fn rfc3339(&self) -> String {
        self.at.timestamp().to_string()
    }

    /// For a person: `Tue 24 Nov, 09:00`.
    pub fn human(&self) -> String {
        self.at.strftime("%a %-d %b, %H:%M").to_string()
    }
}

fn day_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?ix)\b(?:(?:by|on|before|until|for|due)\s+)?(?:
                (?P<tomorrow>tomorrow|tmrw|tmr)
              | (?P<today>today|tonight|this\s+(?:morning|afternoon|evening))
              | (?P<nextweek>next\s+week|this\s+weekend|next\s+weekend)
              | (?P<nextmonth>next\s+month)
              | (?:(?P<next>next|this)\s+)?(?P<weekday>mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday|rsday)?\b
              | in\s+(?P<n>\d+|a|an|one|two|three|four|five|ten)\s+(?P<unit>min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?)
              | the\s+(?P<dom>[0-3]?\d)(?:st|nd|rd|th)(?:\s+of\s+(?:the\s+)?(?:next\s+)?month)?
              | end\s+of\s+(?:the\s+)?(?P<endof>day|week|month)
            )\b(?:\s+(?P<part>morning|afternoon|evening|night))?",
        )
        .expect("the day pattern compiles")
    })
}

fn time_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?ix)\b(?:(?:at|@|by|around)\s*)(?:(?P<h>[01]?\d|2[0-3])(?::(?P<m>[0-5]\d))?\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)?|(?P<word>noon|midday|midnight))\b
              | \b(?P<h2>1[0-2]|0?\d)(?::(?P<m2>[0-5]\d))?\s*(?P<ampm2>am|pm)\b",
        )
        .expect("the time pattern compiles")
    })
}

fn number(word: &str) -> Option<i64> {
    Some(match word.to_ascii_lowercase().as_str() {
        "a" | "an" | "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "ten" => 10,
        n => n.parse().ok()?,
    })
}

fn at_time(date: Date, time: Time, tz: &TimeZone) -> Option<Zoned> {
    date.to_datetime(time).to_zoned(tz.clone()).ok()
}

/// The time of day a match says, if any.
fn time_of(c: &regex::Captures) -> Option<Time> {
    if let Some(w) = c.name("word") {
        return Some(if w.as_str().eq_ignore_ascii_case("midnight") {
            Time::midnight()
        } else {
            Time::constant(12, 0, 0, 0)
        });
    }
    let (h, m, ampm) = match c.name("h") {
        Some(h) => (h, c.name("m"), c.name("ampm")),
        None => (c.name("h2")?, c.name("m2"), c.name("ampm2")),
    };
    let mut hour: i8 = h.as_str().parse().ok()?;
    let minute: i8 = m.map_or(Some(0), |m| m.as_str().parse().ok())?;
    match ampm.map(|a| a.as_str().to_ascii_lowercase().starts_with('p')) {
        Some(true) if hour < 12 => hour += 12,
        Some(false) if hour == 12 => hour = 0,
        // "at 7" for a task: daytime, so 1–7 means the afternoon.
        None if (1..=7).contains(&hour) => hour += 12,
        _ => {}
    }
    Time::new(hour, minute, 0, 0).ok()
}

fn part_time(part: Option<&str>) -> Option<Time> {
    let h = match part?.to_ascii_lowercase().as_str() {
        "morning" => 9,
        "afternoon" => 14,
        "evening" => 18,
        _ => 20,
    };
    Time::new(h, 0, 0, 0).ok()
}

/// The due time in `text` relative to `now` (whose zone is the hub's), or `None`.
pub fn find(text: &str, now: &Zoned) -> Option<Due> {
    let day = day_re().captures(text);
    let time = time_re().captures(text);
    if day.is_none() && time.is_none() {
        return None;
    }
    let tz = now.time_zone().clone();
    let clock = time.as_ref().and_then(time_of);
    let default = |fallback: i8| clock.unwrap_or_else(|| Time::new(fallback, 0, 0, 0).unwrap_or(Time::midnight()));
    let today = now.date();
    let at = match &day {
        None => {
            let t = clock?;
            let candidate = at_time(today, t, &tz)?;
            if &candidate > now {
                candidate
            } else {
                at_time(today.tomorrow().ok()?, t, &tz)?
            }
        }
        Some(c) => {
            let part = part_time(c.name("part").map(|p| p.as_str()));
            let t = clock.or(part);
            let nine = || t.unwrap_or_else(|| default(9));
            if c.name("tomorrow").is_some() {
                at_time(today.tomorrow().ok()?, nine(), &tz)?
            } else if let Some(m) = c.name("today") {
                let w = m.as_str().to_ascii_lowercase();
                let h = if w == "tonight" {
                    20
                } else if w.ends_with("morning") {
                    9
                } else if w.ends_with("afternoon") {
                    14
                } else if w.ends_with("evening") {
                    18
                } else {
                    17
                };
                at_time(today, t.unwrap_or_else(|| default(h)), &tz)?
            } else if let Some(m) = c.name("nextweek") {
                let weekend = m.as_str().to_ascii_lowercase().contains("weekend");
                let day = if weekend { jiff::civil::Weekday::Saturday } else { jiff::civil::Weekday::Monday };
                at_time(today.nth_weekday(1, day).ok()?, nine(), &tz)?
            } else if c.name("nextmonth").is_some() {
                let first = today.first_of_month().checked_add(1.month()).ok()?;
                at_time(first, nine(), &tz)?
            } else if let Some(wd) = c.name("weekday") {
                let next = c.name("next").is_some_and(|n| n.as_str().eq_ignore_ascii_case("next"));
                let expr = format!("{}{}", if next { "next " } else { "" }, wd.as_str());
                let base = interim::parse_date_string(&expr, now.clone(), interim::Dialect::Uk).ok()?;
                at_time(base.date(), nine(), &tz)?
            } else if let (Some(n), Some(unit)) = (c.name("n"), c.name("unit")) {
                let n = number(n.as_str())?;
                let unit = unit.as_str().to_ascii_lowercase();
                let expr = format!("{n} {}", if unit.starts_with("min") { "minutes" } else { unit.as_str() });
                let base = interim::parse_date_string(&expr, now.clone(), interim::Dialect::Uk).ok()?;
                let whole_days = !(unit.starts_with("min") || unit.starts_with('h'));
                match (whole_days, t) {
                    (true, Some(t)) => at_time(base.date(), t, &tz)?,
                    _ => base,
                }
            } else if let Some(dom) = c.name("dom") {
                let dom: i8 = dom.as_str().parse().ok()?;
                let this = today.first_of_month();
                let mut date = Date::new(this.year(), this.month(), dom).ok()?;
                if date < today || (date == today && at_time(date, nine(), &tz)? <= *now) {
                    let next = this.checked_add(1.month()).ok()?;
                    date = Date::new(next.year(), next.month(), dom).ok()?;
                }
                at_time(date, nine(), &tz)?
            } else if let Some(e) = c.name("endof") {
                let date = match e.as_str().to_ascii_lowercase().as_str() {
                    "day" => today,
                    "week" => interim::parse_date_string("friday", now.clone(), interim::Dialect::Uk).ok()?.date(),
                    _ => today.last_of_month(),
                };
                at_time(date, t.unwrap_or_else(|| default(17)), &tz)?
            } else {
                return None;
            }
        }
    };
    let mut spans: Vec<std::ops::Range<usize>> = Vec::new();
    for c in [&day, &time].into_iter().flatten() {
        if let Some(m) = c.get(0) {
            spans.push(m.range());
        }
    }
    spans.sort_by_key(|r| r.start);
    let phrase = spans.iter().map(|r| text[r.clone()].trim()).collect::<Vec<_>>().join(" ");
    let mut rest = String::with_capacity(text.len());
    let mut from = 0;
    for r in &spans {
        if r.start >= from {
            rest.push_str(&text[from..r.start]);
            from = r.end;
        }
    }
    rest.push_str(&text[from..]);
    let rest = tidy(&rest);
    Some(Due { at, phrase, rest })
}

/// Collapse spaces and drop punctuation left dangling at the end.
fn tidy(s: &str) -> String {
    let joined = s.split_whitespace().collect::<Vec<_>>().join(" ");
    joined.trim_end_matches(|c: char| matches!(c, ',' | ';' | ':' | '-' | '.') || c.is_whitespace()).to_string()
}

/// The hub's time zone: `name` (IANA) if given and known, else the system's.
pub fn time_zone(name: Option<&str>) -> TimeZone {
    match name {
        Some(n) => TimeZone::get(n).unwrap_or_else(|e| {
            tracing::warn!(zone = n, e = %cn_compute::Chain(&e), "unknown time zone; using the system's");
            TimeZone::system()
        }),
        None => TimeZone::system(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Monday 23 November 2026, 14:30 in Paris.
    fn now() -> Zoned {
        "2026-11-23T14:30:00[Europe/Paris]".parse().unwrap()
    }

    fn due(text: &str) -> String {
        match find(text, &now()) {
            Some(d) => format!("{} | {} | {}", d.at.strftime("%Y-%m-%d %H:%M"), d.phrase, d.rest),
            None => "none".into(),
        }
    }

    #[test]
    fn reads_the_common_phrasings_in_the_hubs_zone() {
        assert_eq!(due("call mom tomorrow"), "2026-11-24 09:00 | tomorrow | call mom");
        assert_eq!(due("call mom tomorrow at 6pm"), "2026-11-24 18:00 | tomorrow at 6pm | call mom");
        assert_eq!(due("at 9am buy bread"), "2026-11-24 09:00 | at 9am | buy bread", "9am has passed today");
        assert_eq!(due("submit the report at 16:00"), "2026-11-23 16:00 | at 16:00 | submit the report");
        assert_eq!(due("renew the passport next week"), "2026-11-30 09:00 | next week | renew the passport");
        assert_eq!(due("pay rent on the 1st"), "2026-12-01 09:00 | on the 1st | pay rent");
        assert_eq!(due("water plants in 3 days"), "2026-11-26 14:30 | in 3 days | water plants");
        assert_eq!(due("stretch in 20 minutes"), "2026-11-23 14:50 | in 20 minutes | stretch");
        assert_eq!(due("dentist on friday at 10"), "2026-11-27 10:00 | on friday at 10 | dentist");
        assert_eq!(due("gym next friday evening"), "2026-12-04 18:00 | next friday evening | gym");
        assert_eq!(due("send invoices by end of the month"), "2026-11-30 17:00 | by end of the month | send invoices");
        assert_eq!(due("buy milk"), "none");
        let utc = find("call at 9am tomorrow", &now()).unwrap();
        assert_eq!(utc.rfc3339(), "2026-11-24T08:00:00Z", "stored in UTC");
        assert_eq!(utc.human(), "Tue 24 Nov, 09:00");
    }
}
