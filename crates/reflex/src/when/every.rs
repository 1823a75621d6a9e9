//! "every …": a repeating time read as a five-field cron expression for the hub's schedule —
//! "every Monday at 9am" `0 9 * * 1`, "every weekday at 8:30" `30 8 * * 1-5`, "every 2 hours"
//! `0 */2 * * *`, "on the 1st of every month" `0 9 1 * *`, "every March 3" `0 9 3 3 *`.
//!
//! What cron cannot say exactly ("every other Tuesday", "every 3 days") or what leaves the day
//! open ("every week", "monthly") is an error naming the phrase, to be asked about — never an
//! approximation. A time of day follows the rules of a due time said with a day (see the parent
//! module): with a part of the day in that part ("every morning at 7:15" 07:15, "every night at
//! ten" 22:00), else 7–11 the morning, 12 noon and 1–6 the afternoon ("every weekday at 7"
//! 07:00, "every day at 5" 17:00). Number words and shorthand are read as for a due time
//! ([`super::numbers`]), and what is left is cut from the words as written.

use std::sync::OnceLock;

use jiff::Zoned;
use regex::{Captures, Regex};

use cn_hub::schedule::{Stride, StrideUnit};

use super::{capitalized, clock_of, compile, number, ordinal, time_match, without, WhenError};

/// A repeating time found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Every {
    /// Five-field cron, read in the hub's time zone.
    pub cron: String,
    /// For a person: "every Monday at 09:00".
    pub human: String,
    /// The words that said it.
    pub phrase: String,
    /// The text without them.
    pub rest: String,
    /// Whether a clock time was said ("every day at 7"), not taken by default ("daily" 09:00).
    pub clock: bool,
    /// When it stops ("every 15 minutes for an hour", "every hour until midnight"); `None`:
    /// for good.
    pub until: Option<Zoned>,
    /// "every other Wednesday", "every 3 days": only every few of the cron's days or weeks.
    pub stride: Option<Stride>,
}

impl Every {
    /// Whether it goes off at a time of day taken by default, no clock said ("daily" at 09:00,
    /// not "every 2 hours").
    pub fn time_unsaid(&self) -> bool {
        !self.clock && self.cron.split(' ').take(2).all(|f| !f.contains('*'))
    }
}

fn every_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let pattern = r"(?ix)\b(?:
                (?:(?:every|each|on|from)\s+)?(?P<r1>WEEKDAY)s?\s*(?:through|thru|to|till|until|-|–)\s*(?P<r2>WEEKDAY)s?
              | (?:(?:on|for|during|over)\s+)?(?:the\s+)?(?P<wkp>week\s?days|work\s?days|week\s?ends|week\s?end\s+days)
              | (?:every|each)\s+(?P<halfh>half\s+(?:an\s+)?hour|half-hour|quarter\s+(?:of\s+an\s+)?hour)
              | (?:(?:on|by)\s+)?(?:the\s+)?(?P<dom>\d{1,3})(?:st|nd|rd|th)\s+(?:of\s+|on\s+)?(?:every|each)\s+month
              | (?:every|each)\s+month\s+on\s+the\s+(?P<dom2>\d{1,3})(?:st|nd|rd|th)
              | (?:every|each)\s+(?P<other>other|second|alternate)\s+[a-z]+
              | (?:every|each)\s+(?:year\s+on\s+)?(?P<ym>MONTHS)\s+(?P<yd>\d{1,2})(?:st|nd|rd|th)?
              | (?:every|each)\s+(?P<n>\d+|NUMBERS)\s+(?P<unit>minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)
              | (?:every|each)\s+(?P<days>(?:WEEKDAY)(?:DAYSEP(?:WEEKDAY))*)
              | (?:every|each)\s*(?P<unit1>minute|hour|day|weekday|weekend|week|month|year|morning|afternoon|evening|night)s?
              | (?P<daily>daily|nightly|hourly|weekly|monthly|quarterly|yearly|annually|bi-?weekly|fortnightly)
              | (?:on\s+)?(?P<plural>(?:WEEKDAY)s(?:DAYSEP(?:WEEKDAY)s?)*)
              | (?:on\s+)?(?P<slashed>(?:WEEKDAY)(?:\s*/\s*(?:WEEKDAY))+)
              | (?:on\s+)?(?P<parted>(?:WEEKDAY)(?:DAYSEP(?:WEEKDAY))*)\s+(?P<parts>mornings|afternoons|evenings|nights)
            )\b(?:\s+(?:in\s+the\s+)?(?P<part>morning|afternoon|evening|night))?(?:\s+only\b)?";
        compile("every", pattern)
    })
}

/// "a repeating alarm for 5am on Friday and Saturday": every Friday and Saturday, said as
/// such ("every Friday and Saturday … alarm for 5am"); `None` when the text says no repeat
/// on named days.
pub fn repeated_on_days(text: &str) -> Option<String> {
    static RE: OnceLock<(Regex, Regex, Regex)> = OnceLock::new();
    let (repeating, on_days, day_said) = RE.get_or_init(|| {
        (
            compile("repeating", r"(?i)\b(?:repeating|recurring|reoccurring|repeated)\s+"),
            compile("on days", r"(?i)\b(?:on|for)\s+(?P<d>(?:WEEKDAY)(?:DAYSEP(?:WEEKDAY))*)\b"),
            // "a recurring Tuesday alarm"
            compile("repeating day", r"(?i)\b(?:repeating|recurring|reoccurring|repeated)\s+(?P<d>WEEKDAY)s?\b"),
        )
    });
    if !repeating.is_match(text) {
        return None;
    }
    // "a repeating reminder on the 24th": that day of every month.
    static ON_DOM: OnceLock<Regex> = OnceLock::new();
    let on_dom = ON_DOM.get_or_init(|| {
        compile(
            "on a day of the month",
            r"(?i)\bon\s+the\s+(?P<d>\d{1,2}(?:st|nd|rd|th))\b(?:\s+of\s+(?:the|each|every)\s+month)?",
        )
    });
    let normal = super::numbers::normalize(text).text;
    if let Some(c) = on_dom.captures(&normal) {
        let (range, day) = (c.get(0)?.range(), c.name("d")?.as_str());
        let said = format!("{}on the {day} of every month{}", &normal[..range.start], &normal[range.end..]);
        return Some(repeating.replace(&said, "").into_owned());
    }
    if let Some(c) = day_said.captures(text) {
        let (range, day) = (c.get(0)?.range(), c.name("d")?.as_str());
        return Some(format!("{}every {day}{}", &text[..range.start], &text[range.end..]));
    }
    let days = on_days.captures(text)?;
    let (range, list) = (days.get(0)?.range(), days.name("d")?.as_str());
    let said = format!("{}every {list}{}", &text[..range.start], &text[range.end..]);
    Some(repeating.replace(&said, "").into_owned())
}

fn weekday_word_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| compile("weekday", r"(?i)\b(?:on\s+)?(?P<d>(?:WEEKDAY)s?(?:DAYSEP(?:WEEKDAY)s?)*)\b"))
}

/// Whether the words after "daily", "weekly" … begin with the name of a thing it describes.
fn adjective(after: &str) -> bool {
    const NOT_A_NAME: &[&str] = &[
        "at",
        "on",
        "in",
        "from",
        "for",
        "by",
        "to",
        "until",
        "till",
        "starting",
        "and",
        "or",
        "please",
        "basis",
        "reminder",
        "reminders",
        "alarm",
        "alarms",
        "timer",
        "timers",
        "wake",
        "wake-up",
        "wakeup",
        "then",
        "except",
        "with",
        "around",
        "before",
        "after",
        "during",
        "each",
        "every",
        "this",
        "next",
        "beginning",
        "remind",
    ];
    let next = after.split_whitespace().next().unwrap_or("");
    next.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && !NOT_A_NAME.contains(&next.trim_end_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase().as_str())
}

/// Cron's day of the week (Sunday 0) and its name, for a weekday word.
fn cron_day(word: &str) -> Option<(u8, &'static str)> {
    let w = word.to_ascii_lowercase();
    const NAMES: [&str; 7] = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
    NAMES.iter().position(|n| n.starts_with(&w[..w.len().min(3)])).and_then(|i| Some((u8::try_from(i).ok()?, NAMES[i])))
}

/// The weekdays a list names ("Monday and Thursday", "Mondays, Wednesdays").
fn day_list(list: &str) -> Option<(String, String)> {
    let mut days: Vec<(u8, &str)> = Vec::new();
    for word in list.split(|c: char| matches!(c, ',' | '&' | '/') || c.is_whitespace()).filter(|w| !w.is_empty()) {
        if word.eq_ignore_ascii_case("and") {
            continue;
        }
        let word = word.strip_suffix(['s', 'S']).filter(|w| w.len() >= 3 && cron_day(w).is_some()).unwrap_or(word);
        let day = cron_day(word)?;
        if !days.contains(&day) {
            days.push(day);
        }
    }
    let cron = days.iter().map(|(n, _)| n.to_string()).collect::<Vec<_>>().join(",");
    let names: Vec<String> = days.iter().map(|(_, name)| capitalized(name)).collect();
    let human = match names.as_slice() {
        [] => return None,
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    };
    Some((cron, human))
}

/// The repeating time in `text`, if it says one; an error when it says one cron cannot keep
/// exactly, or one that leaves the day open.
/// How many clock times `text` says.
fn time_matches(text: &str) -> usize {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b\d{1,2}(?::\d{2})?\s*[ap]\.?m\b|\b\d{1,2}:\d{2}\b|\b(?:noon|midnight|midday)\b")
            .unwrap_or_else(|e| unreachable!("the clock pattern compiles: {e}"))
    })
    .find_iter(text)
    .count()
}

fn bounded_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i)\b(?:starting|staring|beginning|commencing|for\s+the\s+next|for\s+(?:\d+|an?|one|two|three|four|five|ten|twenty|thirty)(?:\s+\w+)?\s+(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b|(?:till|until|til|through|up\s+to)\s+(?:\d|noon|midnight|tomorrow|today|tonight|the\s+end|next|this)|(?:till|until|til)\s+(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|the\s+\d)|(?:minutes?|mins?)\s+past\s+\d)",
        )
        .unwrap_or_else(|e| unreachable!("the bounded repeat pattern compiles: {e}"))
    })
}

/// The repeat a text says, if any (see the module's docs).
pub fn every(text: &str, now: &Zoned) -> Result<Option<Every>, WhenError> {
    // "on the second Thursday evening of every month": a weekday's place in its month, which
    // one cron entry cannot say — asked, never read as the 2nd.
    static NTH: OnceLock<Regex> = OnceLock::new();
    let nth = NTH.get_or_init(|| {
        compile(
            "nth weekday",
            r"(?i)\b(?:first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+(?:WEEKDAY)s?\b[^.!?]{0,30}?\b(?:of\s+)?(?:every|each|the|a)\s+month\b",
        )
    });
    if let Some(m) = nth.find(text) {
        return Err(WhenError::Unreadable {
            phrase: m.as_str().to_string(),
            why: "I can repeat on a day of the month (the 8th), not on a weekday's place in it".into(),
        });
    }
    let Some(strided) = strided(text) else { return once_each(text, now) };
    let Some(mut e) = once_each(&strided.text, now)? else { return Ok(None) };
    let Some((n, unit)) = strided.stride else { return Ok(Some(e)) };
    let ask = |why: &str| WhenError::Unreadable { phrase: strided.said.clone(), why: why.to_string() };
    let fields: Vec<&str> = e.cron.split(' ').collect();
    let fits = match (unit, fields.as_slice()) {
        (_, [m, h, ..]) if m.parse::<u8>().is_err() || h.parse::<u8>().is_err() => false,
        (StrideUnit::Day, [_, _, "*", "*", "*"]) => true,
        (StrideUnit::Week, [_, _, "*", "*", dow]) => *dow != "*",
        _ => false,
    };
    if !fits {
        return Err(ask("I can keep every other day, or every few weeks on set weekdays, at one time of day"));
    }
    // Counted from its first firing's day.
    let first = e
        .cron
        .parse::<cn_hub::cron::Cron>()
        .ok()
        .and_then(|c| c.next_after(now.timestamp(), now.time_zone()).ok())
        .ok_or_else(|| ask("not a time I can repeat"))?;
    let said_each = e.human.strip_prefix("every ").unwrap_or(&e.human).to_string();
    e.human = match (n, unit) {
        (2, _) => format!("every other {said_each}"),
        (_, StrideUnit::Day) => format!("every {n} days{}", said_each.strip_prefix("day").unwrap_or(&said_each)),
        (_, StrideUnit::Week) => format!("every {n} weeks on {said_each}"),
    };
    e.phrase = if e.phrase.contains(&strided.instead) {
        e.phrase.replacen(&strided.instead, &strided.said, 1)
    } else {
        strided.said.clone()
    };
    e.stride = Some(Stride { n, unit, from: first.date() });
    Ok(Some(e))
}

/// A repeat said by how many of its days or weeks are skipped, put as each one: "every other
/// Wednesday" read as "every Wednesday", every 2nd week; "every 3 days" as "every day", every
/// 3rd; "biweekly" as "weekly", every 2nd week; "every other hour" as "every 2 hours" (which cron
/// keeps itself).
struct Strided {
    text: String,
    /// The words as said, and those read instead.
    said: String,
    instead: String,
    stride: Option<(u16, StrideUnit)>,
}

fn strided(text: &str) -> Option<Strided> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        compile(
            "stride",
            r"(?i)\b(?:(?:every|each)\s+(?:other|second|2nd|alternate)\s+(?P<w>day|week|weekend|hour|minute|month|WEEKDAY)s?|(?:on\s+)?alternate\s+(?P<alt>days|WEEKDAY)s?|(?:every|each)\s+(?P<n>\d+|NUMBERS)\s+(?P<u>days|weeks)|(?P<two>bi-?weekly|fortnightly|every\s+fortnight))\b",
        )
    });
    // "a bi-weekly reminder every other Friday": said twice, read once.
    let said: Vec<Captures> = re.captures_iter(text).collect();
    let c = said.iter().find(|c| c.name("two").is_none()).or(said.first())?;
    let all = c.get(0)?;
    let lower = |m: regex::Match| m.as_str().to_ascii_lowercase();
    let (instead, stride) = if let Some(w) = c.name("w").or(c.name("alt")).map(lower) {
        match w.trim_end_matches('s') {
            "hour" => ("every 2 hours".to_string(), None),
            "minute" => ("every 2 minutes".to_string(), None),
            "month" => ("every 2 months".to_string(), None),
            "day" => ("every day".to_string(), Some((2, StrideUnit::Day))),
            other => (format!("every {other}"), Some((2, StrideUnit::Week))),
        }
    } else if let (Some(n), Some(u)) = (c.name("n"), c.name("u")) {
        let n = u16::try_from(number(n.as_str())?).ok().filter(|n| *n >= 2)?;
        if lower(u) == "days" && n <= 366 {
            ("every day".to_string(), Some((n, StrideUnit::Day)))
        } else if lower(u) == "weeks" && n <= 52 {
            ("every week".to_string(), Some((n, StrideUnit::Week)))
        } else {
            return None;
        }
    } else {
        ("weekly".to_string(), Some((2, StrideUnit::Week)))
    };
    let mut out = text.to_string();
    for other in said.iter().rev().filter_map(|o| o.get(0)).filter(|o| o.range() != all.range()) {
        if other.start() > all.start() {
            out.replace_range(other.range(), "");
        }
    }
    out.replace_range(all.range(), &instead);
    for other in said.iter().rev().filter_map(|o| o.get(0)).filter(|o| o.start() < all.start()) {
        out.replace_range(other.range(), "");
    }
    Some(Strided { text: out, said: all.as_str().to_string(), instead, stride })
}

/// The window of a day an hourly repeat keeps to ("from 7am to 10pm", "between 9 and 5").
struct Window {
    /// Where it is said.
    said: std::ops::Range<usize>,
    /// Its first hour and the minute of each.
    first: (i8, i8),
    /// Its last hour.
    last: i8,
}

/// The [`Window`] said in `text`; `None` unless the last hour comes after the first on the
/// same day, at the same minute or on the hour.
fn hours_window(text: &str) -> Option<Window> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        compile(
            "hours window",
            r"(?i)\b(?:from|between)\s+(?P<h1>\d{1,2})(?::(?P<m1>[0-5]\d))?\s*(?P<a1>[ap])?\.?m?\.?\s+(?:to|until|till|til|and|through|-)\s+(?P<h2>\d{1,2})(?::(?P<m2>[0-5]\d))?\s*(?P<a2>[ap])?\.?m?\b\.?",
        )
    });
    let c = re.captures(text)?;
    let num = |n: &str| c.name(n).map_or(Some(0), |m| m.as_str().parse::<i8>().ok());
    let half = |n: &str| c.name(n).map(|m| m.as_str().eq_ignore_ascii_case("p"));
    let (h1, m1, h2, m2) = (num("h1")?, num("m1")?, num("h2")?, num("m2")?);
    let day = |h: i8, pm: Option<bool>| match pm {
        Some(_) if !(1..=12).contains(&h) => None,
        Some(true) => Some(h % 12 + 12),
        Some(false) => Some(h % 12),
        None => (h <= 23).then_some(h),
    };
    let last = day(h2, half("a2").or(half("a1")).or((h2 < h1 && h2 <= 12).then_some(true)))?;
    // "from 9 to 5pm": the first hour in the half of the day that comes before the last.
    let first = match half("a1") {
        Some(pm) => day(h1, Some(pm))?,
        None if h1 <= 12 && half("a2") == Some(true) && h1 % 12 + 12 < last => h1 % 12 + 12,
        None => day(h1, None)?,
    };
    (first < last && (m2 == m1 || m2 == 0)).then(|| Window {
        said: c.get(0).map(|m| m.range()).unwrap_or_default(),
        first: (first, m1),
        last,
    })
}

/// A repeat kept every time its cron fires.
fn once_each(text: &str, now: &Zoned) -> Result<Option<Every>, WhenError> {
    let said = as_a_repeat(text);
    let text = said.as_deref().unwrap_or(text);
    let repeated = repeated_on_days(text);
    let text = repeated.as_deref().unwrap_or(text);
    let read = super::numbers::normalize(text);
    let original = text;
    // "set weekday alarms for 5am": alarms for the weekdays.
    static WEEKDAY_DEVICE: OnceLock<Regex> = OnceLock::new();
    let weekday_device = WEEKDAY_DEVICE.get_or_init(|| {
        compile("weekday alarms", r"(?i)\b(?P<w>week\s?day|work\s?day)(?P<d>\s+(?:alarms?|reminders?|wake))")
    });
    let plural = weekday_device.replace_all(&read.text, "${w}s${d}");
    // Where an "s" went in, in the words read: a span read maps back by those before it.
    let added: Vec<usize> = weekday_device
        .captures_iter(&read.text)
        .filter_map(|c| c.name("w").map(|w| w.end()))
        .enumerate()
        .map(|(i, at)| at + i)
        .collect();
    let unplural = |r: std::ops::Range<usize>| {
        let back = |p: usize| p - added.iter().filter(|&&a| a < p).count();
        back(r.start)..back(r.end)
    };
    let text = plural.as_ref();
    let Some(c) = every_re().captures(text) else { return Ok(None) };
    let Some(all) = c.get(0) else { return Ok(None) };
    // "the quarterly numbers", "the daily standup": how often a thing comes, before its name —
    // no repeat asked for (but "a daily alarm", "remind me daily to …" are).
    if c.name("daily").is_some() && adjective(&text[all.end()..]) {
        return Ok(None);
    }
    // "get my quarterly's turned in": the word is a thing's name, owning what follows.
    if c.name("daily").is_some() && ["'s", "’s"].iter().any(|p| text[all.end()..].starts_with(p)) {
        return Ok(None);
    }
    // "this weekend's trip", "next weekends": one weekend, no repeat.
    if c.name("wkp").is_some() && !all.as_str().contains(char::is_whitespace) {
        let before = text[..all.start()].split_whitespace().last().unwrap_or("").to_ascii_lowercase();
        if ["this", "next", "last", "that", "coming", "these", "those"].contains(&before.as_str()) {
            return Ok(None);
        }
    }
    let phrase = all.as_str().trim().to_string();
    // "every day except Saturday and Sunday", "excluding Sunday": days left out are asked
    // about, never dropped from the reading.
    if text.split(|c: char| !c.is_alphanumeric()).any(|w| {
        let w = w.to_ascii_lowercase();
        w == "except" || w == "excluding" || w == "exclude"
    }) {
        return Err(WhenError::Unreadable { phrase, why: "which days, if some are left out?".into() });
    }
    let part = c
        .name("part")
        .or(c.name("parts"))
        .map(|p| p.as_str().to_ascii_lowercase().trim_end_matches('s').to_string())
        .or_else(|| {
            c.name("unit1")
                .map(|u| u.as_str().to_ascii_lowercase())
                .filter(|u| matches!(u.as_str(), "morning" | "afternoon" | "evening" | "night"))
        });
    // "every hour starting now", "every 12 hours from now": from now on, at now's minute.
    let anchor = from_now_re().find(text).map(|m| m.range());
    // "every 15 minutes for an hour", "every hour until midnight": said after the repeat, the
    // stretch it keeps to.
    // ("an alarm for 3 months every Thursday": a stretch of days, weeks or months said before
    // the repeat keeps it too; minutes or hours before it are a length — "a timer for 5
    // minutes every day".)
    let stop = stop(text, all.end()..text.len(), now).or_else(|| {
        stop(text, 0..all.start(), now).filter(|(r, _, end)| {
            let said = text[r.clone()].to_ascii_lowercase();
            *end == End::Span && !["min", "hour", "hr"].iter().any(|u| said.contains(u))
        })
    });
    let mut unanchored = text.to_string();
    for r in [anchor.clone(), stop.as_ref().map(|(r, ..)| r.clone())].into_iter().flatten() {
        unanchored.replace_range(r.clone(), &" ".repeat(r.len()));
    }
    // "hourly from 7am to 10pm", "every 2 hours between 9 and 5": hours within a day's window.
    let hourly =
        c.name("unit1").or(c.name("daily")).is_some_and(|u| u.as_str().to_ascii_lowercase().starts_with("hour"))
            || c.name("unit").is_some_and(|u| u.as_str().to_ascii_lowercase().starts_with('h'));
    let window = hours_window(&unanchored).filter(|_| hourly && anchor.is_none() && stop.is_none());
    if let Some(Window { said: r, .. }) = &window {
        unanchored.replace_range(r.clone(), &" ".repeat(r.len()));
    }
    let time = time_match(&unanchored, Some(&all.range()));
    // "an alarm at 6.30 monday to friday": an alarm's early bare hour is the morning's.
    let alarm = ["alarm", "wake"].iter().any(|w| text.to_ascii_lowercase().contains(w));
    let clock = time.as_ref().map(clock_of).transpose()?.map(|k| {
        let early = alarm && !k.fixed && (4..=6).contains(&k.hour);
        k.on_a_day(part.as_deref().or(early.then_some("morning")))
    });
    let (hour, minute) = match (clock, part.as_deref()) {
        (Some(t), _) => (t.hour(), t.minute()),
        (None, Some("morning")) => (9, 0),
        (None, Some("afternoon")) => (14, 0),
        (None, Some("evening")) => (18, 0),
        (None, Some(_)) => (20, 0),
        (None, None) => (9, 0),
    };
    let at = format!("{hour:02}:{minute:02}");
    let ask = |why: &str| WhenError::Unreadable { phrase: phrase.clone(), why: why.to_string() };

    // "every 2 hours starting in one hour", "every 30 minutes till 8 pm", "every 15 minutes
    // past 7 am": a repeat that starts or stops somewhere is asked about, never cut short.
    // "at 11:00 am and 2:00 pm on Wednesdays": two times for one entry are asked about.
    if time_matches(&unanchored) > 1 || bounded_re().is_match(&unanchored) {
        return Err(ask("I can repeat from now on, not from or until a set time"));
    }
    let text_of = |name: &str| c.name(name).map(|m| m.as_str().to_ascii_lowercase());
    let mut said_apart = None;
    let (cron, human, uses_time) = if let (Some(a), Some(b)) = (text_of("r1"), text_of("r2")) {
        // "Monday through Friday", "mon-fri", "Friday to Monday": the days between, both named.
        // ("a business trip for next Monday to Tuesday": those days once — asked, never weekly.)
        let before = text[..all.start()].trim_end().to_ascii_lowercase();
        // ("create appointment from tuesday to wednesday", "schedule camping for friday to
        // sunday": an event over days, said with no repeat and no alarm — asked the same.)
        let lower = text.to_ascii_lowercase();
        let repeat =
            ["every", "each", "weekly", "alarm", "wake", "remind", "timer", "alert"].iter().any(|w| lower.contains(w))
                || c.name("r1").is_some_and(|m| text[m.end()..].starts_with(['s', 'S']));
        if ["next", "this", "coming", "following"].iter().any(|w| before.ends_with(w)) || !repeat {
            return Err(ask("is that once, from one day to the other, or every week?"));
        }
        let (Some((a, first)), Some((b, last))) = (cron_day(&a), cron_day(&b)) else {
            return Err(ask("no such day of the week"));
        };
        let days: Vec<String> = if a <= b {
            vec![if a == b { a.to_string() } else { format!("{a}-{b}") }]
        } else {
            (a..7).chain(0..=b).map(|d| d.to_string()).collect()
        };
        let human = format!("every {} to {} at {at}", capitalized(first), capitalized(last));
        (format!("{minute} {hour} * * {}", days.join(",")), human, true)
    } else if let Some(w) = text_of("wkp") {
        if w.starts_with("week") && w.contains("end") {
            (format!("{minute} {hour} * * 0,6"), format!("every Saturday and Sunday at {at}"), true)
        } else {
            (format!("{minute} {hour} * * 1-5"), format!("every weekday at {at}"), true)
        }
    } else if let Some(h) = text_of("halfh") {
        let n = if h.starts_with("half") { 30 } else { 15 };
        (format!("*/{n} * * * *"), format!("every {n} minutes"), false)
    } else if let Some(dom) = text_of("dom").or(text_of("dom2")) {
        let dom: u8 = dom.parse().ok().filter(|d| (1..=31).contains(d)).ok_or_else(|| ask("no month has that day"))?;
        (format!("{minute} {hour} {dom} * *"), format!("on the {} of every month at {at}", ordinal(dom as i8)), true)
    } else if c.name("other").is_some() {
        return Err(ask(
            "I can repeat on set weekdays, on a day of the month, or every few minutes or hours — not every other one",
        ));
    } else if let (Some(m), Some(d)) = (text_of("ym"), text_of("yd")) {
        let month = super::month_number(&m).ok_or_else(|| ask("no such month"))?;
        let day: i8 = d.parse().map_err(|_| ask("the day is not a number"))?;
        // 2028 is a leap year, so February 29th is a day some years have.
        jiff::civil::Date::new(2028, month, day).map_err(|_| ask("no such day of that month"))?;
        let name =
            capitalized(super::words::MONTHS.get(usize::try_from(month - 1).unwrap_or(0)).copied().unwrap_or(""));
        (format!("{minute} {hour} {day} {month} *"), format!("every {} {name} at {at}", day), true)
    } else if let (Some(n), Some(unit)) = (text_of("n"), text_of("unit")) {
        let n = number(&n).ok_or_else(|| ask("not a number"))?;
        match unit.chars().next() {
            Some('m') if unit.starts_with("min") && (1..=59).contains(&n) => {
                let cron = if n == 1 { "* * * * *".to_string() } else { format!("*/{n} * * * *") };
                (cron, format!("every {n} minute{}", if n == 1 { "" } else { "s" }), false)
            }
            Some('h') if (1..=23).contains(&n) => {
                let cron = if n == 1 { "0 * * * *".to_string() } else { format!("0 */{n} * * *") };
                (cron, format!("every {n} hour{}", if n == 1 { "" } else { "s" }), false)
            }
            Some('d') if n == 1 => (format!("{minute} {hour} * * *"), format!("every day at {at}"), true),
            Some('m') if unit.starts_with("mon") && (1..=12).contains(&n) && 12 % n == 0 => months(n, now, (hour, minute), &ask)?,
            _ => return Err(ask("I can repeat every few minutes or hours, on set weekdays or on a day of the month — not at that interval")),
        }
    } else if let Some(days) = text_of("days").or(text_of("plural")).or(text_of("slashed")).or(text_of("parted")) {
        let (dow, names) = day_list(&days).ok_or_else(|| ask("no such day of the week"))?;
        (format!("{minute} {hour} * * {dow}"), format!("every {names} at {at}"), true)
    } else if let Some(unit) = text_of("unit1").or(text_of("daily")) {
        match unit.as_str() {
            "minute" => ("* * * * *".to_string(), "every minute".to_string(), false),
            "hour" | "hourly" => ("0 * * * *".to_string(), "every hour".to_string(), false),
            "day" | "daily" | "morning" | "afternoon" | "evening" | "night" => {
                (format!("{minute} {hour} * * *"), format!("every day at {at}"), true)
            }
            "nightly" => {
                let (h, m) = if clock.is_some() { (hour, minute) } else { (20, 0) };
                (format!("{m} {h} * * *"), format!("every night at {h:02}:{m:02}"), true)
            }
            "weekday" => (format!("{minute} {hour} * * 1-5"), format!("every weekday at {at}"), true),
            "weekend" => (format!("{minute} {hour} * * 0,6"), format!("every Saturday and Sunday at {at}"), true),
            "week" | "weekly" => {
                let said = weekday_word_re()
                    .captures_iter(text)
                    .find(|c| c.get(0).is_some_and(|m| m.end() <= all.start() || m.start() >= all.end()));
                // "a weekly alarm for Wednesday and Friday": each day of the list.
                let days = said.as_ref().and_then(|d| d.name("d").and_then(|d| day_list(d.as_str())));
                let Some((n, names)) = days else { return Err(ask("every week on which day?")) };
                said_apart = said.and_then(|c| c.get(0)).map(|m| m.range());
                (format!("{minute} {hour} * * {n}"), format!("every {names} at {at}"), true)
            }
            "month" | "monthly" => {
                // "a monthly reminder on the 19th": the day said elsewhere.
                static DOM: OnceLock<Regex> = OnceLock::new();
                let dom_re = DOM.get_or_init(|| {
                    Regex::new(r"(?i)\b(?:on|by)\s+(?:the\s+)?(?P<d>\d{1,2})(?:st|nd|rd|th)\b(?:\s+(?:of\s+)?(?:every|each|the)\s+month\b)?")
                        .unwrap_or_else(|e| unreachable!("the day-of-month pattern compiles: {e}"))
                });
                let Some(c) = dom_re.captures_iter(text).find(|c| c.get(0).is_some_and(|m| m.end() <= all.start() || m.start() >= all.end())) else {
                    return Err(ask("on which day of the month?"));
                };
                let Some(d) = c.name("d").and_then(|d| d.as_str().parse::<u8>().ok()) else {
                    return Err(ask("on which day of the month?"));
                };
                said_apart = c.get(0).map(|m| m.range());
                if !(1..=31).contains(&d) {
                    return Err(ask("no month has that day"));
                }
                (format!("{minute} {hour} {d} * *"), format!("on the {} of every month at {at}", ordinal(d as i8)), true)
            }
            "quarterly" => months(3, now, (hour, minute), &ask)?,
            "biweekly" | "bi-weekly" | "fortnightly" => {
                return Err(ask(
                    "I can repeat on set weekdays, on a day of the month, or every few minutes or hours — not every other week",
                ))
            }
            _ => return Err(ask("on which day of the year?")),
        }
    } else {
        return Ok(None);
    };
    let (cron, human) = match &window {
        Some(Window { first: (h1, m1), last: h2, .. }) => {
            let every = cron.split(' ').nth(1).and_then(|h| h.strip_prefix("*/")).map(|n| format!("/{n}"));
            let human = human.replace(" hours", &format!(" hours from {h1:02}:{m1:02} to {h2:02}:{m1:02}"));
            let human = if human.ends_with("hour") {
                format!("{human} from {h1:02}:{m1:02} to {h2:02}:{m1:02}")
            } else {
                human
            };
            (format!("{m1} {h1}-{h2}{} * * *", every.unwrap_or_default()), human)
        }
        None => (cron, human),
    };
    // "an alarm for 8 am and then every 8 minutes after that": a repeat of minutes or hours
    // from a time of day, which it cannot start at (from now, it can).
    if !uses_time && clock.is_some() && anchor.is_none() && cron.split(' ').nth(1).is_some_and(|h| h.contains('*')) {
        return Err(ask("I can repeat every few minutes or hours from now on, not from a time of day"));
    }
    let (cron, human) = match anchor.as_ref().filter(|_| !uses_time) {
        Some(_) => from_now(&cron, &human, now).ok_or_else(|| {
            ask("I can repeat from now only every few minutes that divide the hour, or hours that divide the day")
        })?,
        None => (cron, human),
    };
    if cron.parse::<cn_hub::cron::Cron>().is_err() {
        return Err(ask("not a time I can repeat"));
    }
    let mut spans = vec![all.range()];
    spans.extend(anchor);
    // "with no end date", "indefinitely": for good, which a repeat is.
    static FOREVER: OnceLock<Regex> = OnceLock::new();
    let forever = FOREVER.get_or_init(|| {
        Regex::new(
            r"(?i)\b(?:(?:with\s+)?no\s+end(?:\s+date)?|indefinitely|forever|for\s+good|until\s+further\s+notice)\b",
        )
        .unwrap_or_else(|e| unreachable!("the for-good pattern compiles: {e}"))
    });
    spans.extend(forever.find_iter(text).map(|m| m.range()));
    let until = match stop {
        Some((r, at, end)) => {
            // "every day till 5pm": a time of day ends only a repeat within the day; "every 20
            // minutes until Friday" would ring through the nights (asked); and it must go off
            // once before it ends.
            let within_day = cron.split(' ').nth(1).is_some_and(|h| h.contains('*'));
            if end == End::Clock && !within_day {
                return Err(ask("a time of day ends only a repeat within the day — when should it stop?"));
            }
            if end == End::Day && within_day {
                return Err(ask("every few minutes or hours through the nights too, or each day until a time?"));
            }
            let first = cron
                .parse::<cn_hub::cron::Cron>()
                .ok()
                .and_then(|c| c.next_after(now.timestamp(), now.time_zone()).ok());
            let Some(first) = first.filter(|f| f.timestamp() <= at.timestamp()) else {
                return Err(ask("it would not go off before it ends"));
            };
            spans.push(r);
            // A day's repeat kept "for the next 5 days": its first day and the four after it
            // (to the start of the day after), not five times 24 hours from this minute. A
            // stretch of minutes or hours ends at its minute.
            let at = match (end, within_day) {
                (End::Span, false) => {
                    let days = now.date().until(at.date()).map_or(0, |s| s.get_days());
                    first
                        .date()
                        .checked_add(jiff::Span::new().days(days))
                        .ok()
                        .and_then(|d| d.to_zoned(now.time_zone().clone()).ok())
                        .unwrap_or(at)
                }
                _ => at.round(jiff::Unit::Minute).unwrap_or(at),
            };
            Some(at)
        }
        None => None,
    };
    let human = match &until {
        // Ended at a day's start: through the day before ("until Friday": through Friday).
        Some(at) if at.time() == jiff::civil::Time::midnight() => match at.yesterday() {
            Ok(day) => {
                let shown = super::human(&day, now);
                format!("{human} through {}", shown.strip_suffix(", 00:00").unwrap_or(&shown))
            }
            Err(_) => format!("{human} until {}", super::human(at, now)),
        },
        Some(at) => format!("{human} until {}", super::human(at, now)),
        None => human,
    };
    spans.extend(said_apart);
    spans.extend(window.as_ref().map(|w| w.said.clone()));
    if uses_time {
        spans.extend(time.as_ref().and_then(|t| t.get(0)).map(|m| m.range()));
    }
    Ok(Some(Every {
        cron,
        human,
        phrase: phrase_with_time(&phrase, time.as_ref(), uses_time),
        rest: without(original, spans.into_iter().map(|r| read.original(unplural(r))).collect()),
        clock: clock.is_some() || window.is_some(),
        until,
        stride: None,
    }))
}

/// The stretch a repeat keeps to, said within the bytes `within` of `text`: "for an hour",
/// "for the next 2 days", "for six workweeks" from now; "until midnight", "till 8 pm" — the
/// next such time; "until Friday", "through May 15th" — the end of that day; "until May",
/// "until next week", "until the end of the month" — when it begins or ends. Its byte range,
/// when it ends, and how it was said.
fn stop(text: &str, within: std::ops::Range<usize>, now: &Zoned) -> Option<(std::ops::Range<usize>, Zoned, End)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        compile(
            "stop",
            r"(?i)\b(?:for\s+(?:the\s+)?(?:next\s+|coming\s+)?(?P<n>\d+|NUMBERS|an?)\s+(?P<unit>minutes?|mins?|hours?|hrs?|days?|work\s?weeks?|weeks?|months?)|(?:until|till|til|up\s+to)\s+(?P<t>midnight|noon|\d{1,2}(?::\d{2})?\s*[ap]\.?m\b\.?|\d{1,2}:\d{2})|for\s+(?:the\s+)?rest\s+of\s+the\s+(?P<rest>day|week|month|year)|(?:until|till|til|through|thru)\s+(?:(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?(?P<end>week|month|year)|next\s+(?P<next>week|month|year)|(?P<month>MONTHS)(?P<mday>\s+\d{1,2}(?:st|nd|rd|th)?)?|(?P<day>(?:this\s+|next\s+)?(?:WEEKDAY)|tomorrow|the\s+\d{1,2}(?:st|nd|rd|th)?(?:\s+of\s+(?:MONTHS))?)))\b",
        )
    });
    let c = re
        .captures_iter(text)
        .find(|c| c.get(0).is_some_and(|m| m.start() >= within.start && m.end() <= within.end))?;
    let zone = now.time_zone().clone();
    let today = now.date();
    // The first moment of the week, month or year after this one.
    let next_of = |unit: &str| -> Option<jiff::civil::Date> {
        match unit.to_ascii_lowercase().as_str() {
            "day" => today.tomorrow().ok(),
            "week" => {
                today.checked_add(jiff::Span::new().days(7 - i64::from(today.weekday().to_monday_zero_offset()))).ok()
            }
            "month" => today.first_of_month().checked_add(jiff::Span::new().months(1)).ok(),
            _ => today.first_of_year().checked_add(jiff::Span::new().years(1)).ok(),
        }
    };
    // The end of the day a date phrase names (that day included).
    // ("until October 31", said in November: next year's, as "until October" is.)
    let end_of = |phrase: &str| -> Option<Zoned> {
        let at = match super::parse(&format!("on {phrase}"), now) {
            Ok(Some(due)) => due.at,
            Err(WhenError::Past { at, .. }) => at.checked_add(jiff::Span::new().years(1)).ok()?,
            _ => return None,
        };
        at.date().tomorrow().ok()?.to_zoned(zone.clone()).ok()
    };
    let at = if let Some(unit) = c.name("rest").or(c.name("end")).or(c.name("next")) {
        // "for the rest of the month", "until the end of the week", "until next month": until
        // the next one begins.
        next_of(unit.as_str())?.to_zoned(zone.clone()).ok()?
    } else if let (Some(n), Some(unit)) = (c.name("n"), c.name("unit")) {
        let n = match n.as_str().to_ascii_lowercase().as_str() {
            "a" | "an" => 1,
            other => number(other)?,
        };
        // A workweek is a week.
        let unit = unit.as_str().to_ascii_lowercase().replace("work", "").trim().to_string();
        now.checked_add(super::unit_span(n, &unit)?).ok()?
    } else if let Some(month) = c.name("month") {
        match c.name("mday") {
            Some(d) => end_of(&format!("{} {}", month.as_str(), d.as_str().trim()))?,
            // "until May": until it begins.
            None => {
                let due = super::parse(&format!("on {} 1", month.as_str()), now).ok()??;
                due.at.date().to_zoned(zone.clone()).ok()?
            }
        }
    } else if let Some(day) = c.name("day") {
        end_of(day.as_str())?
    } else {
        super::parse(&format!("at {}", c.name("t")?.as_str()), now).ok()??.at
    };
    let end = if c.name("t").is_some() {
        End::Clock
    } else if c.name("n").is_some() || c.name("rest").is_some() {
        End::Span
    } else {
        End::Day
    };
    Some((c.get(0)?.range(), at, end))
}

/// How the end of a repeat was said: a time of day ("till 5pm"), a stretch from now ("for the
/// next 2 days", "for the rest of the week"), or a day ("until Friday", "until May").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Clock,
    Span,
    Day,
}

/// `text` with a repeat said the long way put as the reader reads it: "7 days a week" is every
/// day, "every week day" every weekday; "starting today", "beginning this week" start now,
/// which a repeat does; a day's repeat "starting at 5pm" comes at 5pm (an hour's or a
/// minute's "starting at 9" starts somewhere, which is asked). `None` when nothing is said so.
fn as_a_repeat(text: &str) -> Option<String> {
    static RE: OnceLock<[Regex; 5]> = OnceLock::new();
    let [week, week_day, from_today, starting_at, days_ahead] = RE.get_or_init(|| {
        [
            compile("seven days a week", r"(?i)\b(?:7|seven)\s+days\s+(?:a|per|each|every)\s+week\b"),
            compile("week day", r"(?i)\bweek\s+(day|days)\b"),
            compile(
                "starting today",
                r"(?i)[\s,]*\b(?:starting|beginning|commencing|from)\s+(?:today|tonight|this\s+week|immediately)\b",
            ),
            compile("starting at", r"(?i)\b(?:starting|beginning)\s+(at\s+\d)"),
            // "at 8am for the next 5 days", "at 7 for two weeks": a time kept over days to come.
            compile(
                "days ahead",
                r"(?i)(?:\bfor\s+the\s+(?:next|coming)|(?:\d|\b[ap]\.?m\.?|\bo'?clock|\bnoon|\bmorning|\bnight|\bevening)\s+for)\s+(?:\d+|NUMBERS)\s+(?:days?|weeks?|work\s?weeks?|months?)\b",
            ),
        ]
    });
    let by_minutes = text
        .to_ascii_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "minute" | "minutes" | "min" | "mins" | "hour" | "hours" | "hr" | "hrs" | "hourly"));
    let mut out = week.replace_all(text, "every day").into_owned();
    out = week_day.replace_all(&out, "week$1").into_owned();
    out = from_today.replace_all(&out, "").into_owned();
    if !by_minutes {
        out = starting_at.replace_all(&out, "$1").into_owned();
    }
    // No repeat said, only the days it is kept: every day of them ("at 8am for the next 5
    // days"), or every one of the weekdays named ("Tuesday, Wednesday at 7 PM for six
    // workweeks").
    if !every_re().is_match(&out) {
        if let Some(m) = days_ahead.find(&out) {
            match weekday_word_re().captures(&out).and_then(|c| c.name("d")).map(|d| d.start()) {
                Some(day) => out.insert_str(day, "every "),
                None => {
                    let at = m.as_str().to_ascii_lowercase().find("for").map_or(m.start(), |i| m.start() + i);
                    out.insert_str(at, "every day ");
                }
            }
        }
    }
    (out != text).then_some(out)
}

fn from_now_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:(?:starting|beginning|commencing)\s+(?:right\s+)?now|(?:starting\s+)?from\s+(?:right\s+)?now(?:\s+on)?|as\s+of\s+now)\b")
            .unwrap_or_else(|e| unreachable!("the from-now pattern compiles: {e}"))
    })
}

/// A repeat every few minutes or hours ("*/15 * * * *", "0 */12 * * *") moved to start at
/// `now`: "7,22,37,52 * * * *" at 14:37; `None` when the step does not divide the hour or the
/// day, so cron cannot keep it from now exactly.
fn from_now(cron: &str, human: &str, now: &Zoned) -> Option<(String, String)> {
    let fields: Vec<&str> = cron.split(' ').collect();
    let step = |f: &str| if f == "*" { Some(1) } else { f.strip_prefix("*/")?.parse::<i8>().ok() };
    let (minute, hour) = (now.minute(), now.hour());
    let cron = match fields.as_slice() {
        [m, "*", "*", "*", "*"] if m.starts_with('*') => {
            let n = step(m)?;
            if 60 % n != 0 {
                return None;
            }
            if n == 1 {
                return Some((cron.to_string(), human.to_string()));
            }
            let list: Vec<String> = (0..60 / n).map(|k| ((minute % n) + k * n).to_string()).collect();
            format!("{} * * * *", list.join(","))
        }
        ["0", h, "*", "*", "*"] => {
            let n = step(h)?;
            if 24 % n != 0 {
                return None;
            }
            let mut list: Vec<i8> = (0..24 / n).map(|k| (hour + k * n) % 24).collect();
            list.sort_unstable();
            let list: Vec<String> = list.iter().map(ToString::to_string).collect();
            if n == 1 {
                format!("{minute} * * * *")
            } else {
                format!("{minute} {} * * *", list.join(","))
            }
        }
        _ => return None,
    };
    Some((cron, format!("{human} from {hour:02}:{minute:02}")))
}

/// "every 3 months", "quarterly": on today's day of the month, in the months `n` apart from
/// this one (cron keeps it exactly only when `n` divides the year).
fn months(n: i64, now: &Zoned, (hour, minute): (i8, i8), ask: &dyn Fn(&str) -> WhenError) -> Every3 {
    let day = now.day();
    if day > 28 {
        return Err(ask("on which day of the month?"));
    }
    let step = usize::try_from(n).map_err(|_| ask("not a number"))?;
    let this = usize::try_from(now.month()).map_err(|_| ask("not a month"))?;
    let mut list: Vec<usize> = (0..12 / step).map(|k| (this - 1 + k * step) % 12 + 1).collect();
    list.sort_unstable();
    let list: Vec<String> = list.iter().map(ToString::to_string).collect();
    let human =
        format!("every {n} month{} on the {} at {hour:02}:{minute:02}", if n == 1 { "" } else { "s" }, ordinal(day));
    Ok((format!("{minute} {hour} {day} {} *", list.join(",")), human, true))
}

/// A cron expression, its words for a person, and whether it keeps the time said.
type Every3 = Result<(String, String, bool), WhenError>;

fn phrase_with_time(phrase: &str, time: Option<&Captures>, uses_time: bool) -> String {
    match time.and_then(|t| t.get(0)).filter(|_| uses_time) {
        Some(t) => format!("{phrase} {}", t.as_str().trim()),
        None => phrase.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> Zoned {
        "2026-11-26T14:30:00[Europe/Paris]".parse().unwrap()
    }

    fn cron(text: &str) -> String {
        match every(text, &now()) {
            Ok(Some(e)) => format!("{} | {} | {}", e.cron, e.human, e.rest),
            Ok(None) => "none".into(),
            Err(e) => format!("error: {}", e.phrase()),
        }
    }

    /// A repeat said the long way: "7 days a week", "every week day", "starting today", a
    /// day's repeat "starting at 5pm"; an hour's "starting at 9" still starts somewhere.
    #[test]
    fn repeats_said_the_long_way() {
        let first = |t: &str| cron(t).split(" | ").next().unwrap_or("").to_string();
        assert_eq!(first("Set an alarm 7 days a week indefinitely at noon."), "0 12 * * *");
        assert_eq!(first("set the alarm every week day for 6am"), "0 6 * * 1-5");
        assert_eq!(first("remind me to take recycling out every monday starting today"), "0 9 * * 1");
        assert_eq!(
            cron("remind me to take recycling out every monday starting today"),
            "0 9 * * 1 | every Monday at 09:00 | remind me to take recycling out"
        );
        assert_eq!(first("Remind me to water the lawn every evening starting at 5pm."), "0 17 * * *");
        assert!(cron("every hour starting at 9am stretch").starts_with("error"));
        // A range of days said of one week is those days once: asked, never a weekly entry.
        assert!(cron("Add business trip for next Monday to Tuesday.").starts_with("error"));
        assert_eq!(first("alarm at 7 monday to friday"), "0 7 * * 1-5");
    }

    #[test]
    fn repeating_times_become_cron() {
        assert_eq!(
            cron("every Monday at 9am remind me to water the plants"),
            "0 9 * * 1 | every Monday at 09:00 | remind me to water the plants"
        );
        assert_eq!(
            cron("remind me to take my vitamins every morning"),
            "0 9 * * * | every day at 09:00 | remind me to take my vitamins"
        );
        assert_eq!(cron("every weekday at 8:30 check the train times").split(" | ").next(), Some("30 8 * * 1-5"));
        assert_eq!(cron("on the 1st of every month remind me to pay the rent").split(" | ").next(), Some("0 9 1 * *"));
        assert_eq!(cron("every evening at 10 lock up").split(" | ").next(), Some("0 22 * * *"));
        assert_eq!(cron("every night at 11 set the alarm").split(" | ").next(), Some("0 23 * * *"));
        assert_eq!(cron("every 2 hours remind me to stretch"), "0 */2 * * * | every 2 hours | remind me to stretch");
        assert_eq!(cron("drink water every hour").split(" | ").next(), Some("0 * * * *"));
        assert_eq!(cron("every Sunday evening plan the week").split(" | ").next(), Some("0 18 * * 0"));
        assert_eq!(cron("every Monday and Thursday at 8am water the plants").split(" | ").next(), Some("0 8 * * 1,4"));
        assert_eq!(cron("on Tuesdays put the bins out").split(" | ").next(), Some("0 9 * * 2"));
        assert_eq!(cron("every March 3 send the card").split(" | ").next(), Some("0 9 3 3 *"));
        assert_eq!(cron("every week on Friday review the week").split(" | ").next(), Some("0 9 * * 5"));
        assert_eq!(cron("check every room"), "none");
    }

    #[test]
    fn repeats_as_people_say_them() {
        for (text, want) in [
            ("every sunday call grandma", "0 9 * * 0"),
            ("every weekday at 7 stand up", "0 7 * * 1-5"),
            ("every morning at 7:15 take the pills", "15 7 * * *"),
            ("every day at 3:38pm check the oven", "38 15 * * *"),
            ("every monday and thursday at 9 water the plants", "0 9 * * 1,4"),
            ("every two hours stretch", "0 */2 * * *"),
            ("daily at 8 read the news", "0 8 * * *"),
            ("each evening walk the dog", "0 18 * * *"),
            ("every night at ten lock up", "0 22 * * *"),
            ("every day at 5 feed the cat", "0 17 * * *"),
            ("alarm at 6.30 monday to friday", "30 6 * * 1-5"),
            ("weekly alarm for wednesday and friday at 7 a.m.", "0 7 * * 3,5"),
            ("alarm for 6 am monday through friday only", "0 6 * * 1-5"),
            ("mondays, wednesdays, and fridays at 7am gym", "0 7 * * 1,3,5"),
            ("every day at 12 eat", "0 12 * * *"),
            ("every day at 19:30 cook", "30 19 * * *"),
            ("every friday at half past four send the report", "30 16 * * 5"),
            ("every weds at 9.30 team call", "30 9 * * 3"),
            ("an alarm at 1pm everyday", "0 13 * * *"),
            ("workout at 8AM on Monday/Wednesday/Friday", "0 8 * * 1,3,5"),
            ("the alarm to 8 a.m. for saturday and sunday mornings", "0 8 * * 6,0"),
            ("make repeating alarm for 5am on friday and saturday", "0 5 * * 5,6"),
            ("every monday/thursday at 9 water the plants", "0 9 * * 1,4"),
        ] {
            assert_eq!(cron(text).split(" | ").next(), Some(want), "{text}");
        }
        assert_eq!(cron("every night at ten lock up"), "0 22 * * * | every day at 22:00 | lock up");
        assert_eq!(cron("call one client every tues"), "0 9 * * 2 | every Tuesday at 09:00 | call one client");
        assert_eq!(cron("take pills at 8 am weekdays only"), "0 8 * * 1-5 | every weekday at 08:00 | take pills");
        let rest_of_month = every("alarm 4:10 p.m. everyday for the rest of the month", &now()).unwrap().unwrap();
        assert_eq!((rest_of_month.cron.as_str(), rest_of_month.rest.as_str()), ("10 16 * * *", "alarm"));
        assert_eq!(
            rest_of_month.until.map(|u| u.to_string()),
            Some("2026-12-01T00:00:00+01:00[Europe/Paris]".to_string())
        );
    }

    /// "every other Tuesday", "every 3 days", "biweekly": the cron of each, kept every few days
    /// or weeks from its first firing; what a stride cannot keep is asked.
    #[test]
    fn every_other_day_or_week_is_a_stride() {
        let stride = |text: &str| {
            let e = every(text, &now()).unwrap().unwrap();
            (e.cron, e.human, e.rest, e.stride.map(|s| (s.n, s.unit, s.from.to_string())))
        };
        let week = |n, from: &str| Some((n, StrideUnit::Week, from.to_string()));
        let day = |n, from: &str| Some((n, StrideUnit::Day, from.to_string()));
        assert_eq!(
            stride("every other Tuesday call the mentor"),
            (
                "0 9 * * 2".into(),
                "every other Tuesday at 09:00".into(),
                "call the mentor".into(),
                week(2, "2026-12-01")
            )
        );
        assert_eq!(
            stride("every 3 days water the cactus"),
            ("0 9 * * *".into(), "every 3 days at 09:00".into(), "water the cactus".into(), day(3, "2026-11-27"))
        );
        // Today's 7pm is still ahead (it is Thursday 14:30): counted from today.
        assert_eq!(stride("clean the litter box every other day at 7pm").3, day(2, "2026-11-26"));
        assert_eq!(
            stride("Set a bi-weekly reminder every other Friday at 7 AM to check the bank").0,
            "0 7 * * 5".to_string()
        );
        assert_eq!(stride("pay rent biweekly on fridays").3, week(2, "2026-11-27"));
        assert_eq!(stride("remind me every 2 weeks on monday to pay rent").1, "every other Monday at 09:00");
        assert_eq!(stride("every 3 weeks on monday call the bank").1, "every 3 weeks on Monday at 09:00");
        // What cron keeps itself: no stride.
        assert_eq!(stride("alarm every other minute").0, "*/2 * * * *");
        assert_eq!(stride("change the air filters every other month").3, None);
        // A week's stride with no day said: asked.
        assert!(every("every other week call mom", &now()).is_err());
        // Strides no entry keeps, or said over and over: asked or read, never a panic.
        for text in [
            "every 99999 days water",
            "every 400 days water",
            "every 60 weeks on monday call",
            "every 0 weeks on monday call",
            "every other",
            "every other other other monday",
            "biweekly biweekly fortnightly every other day every 3 days",
            "every other 🦀 at 7",
        ] {
            if let Ok(Some(e)) = every(text, &now()) {
                assert!(e.stride.is_none_or(|s| (2..=366).contains(&s.n)), "{text}: {e:?}");
            }
        }
        assert!(every("every 400 days water", &now()).is_err());
    }

    #[test]
    fn what_cron_cannot_keep_is_asked_about() {
        assert_eq!(cron("every week call mom"), "error: every week");
        assert_eq!(cron("review the budget monthly"), "error: monthly");
        assert_eq!(cron("send the quarterly numbers"), "none");
        assert_eq!(cron("on the 45th of every month pay"), "error: on the 45th of every month");
        assert_eq!(cron("every day at 25:00 stretch"), "error: at 25:00");
    }
}
