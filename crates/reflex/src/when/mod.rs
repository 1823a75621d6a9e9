//! When a message says something is due: the time phrase in free text ("tomorrow", "at 9am",
//! "next week", "on the 1st", "in 3 days", "friday evening", "on March 3", "3 March 2027",
//! "end of the month") found and turned into a time in the hub's time zone — or an error
//! that names the phrase when it cannot be read ("the 45th", "February 30", "next Smarch",
//! "at 25:00") or is in the past ("March 3, 2025", "yesterday", "today at 9am" at 14:30).
//! Nothing is guessed and nothing is silently moved: a request with such a phrase is asked
//! about. [`every`] reads "every Monday at 9" as a cron expression; [`shift`] reads "by an
//! hour" as a span to push something back by.
//!
//! The text is first rewritten for reading ([`numbers::normalize`]): misspelt date words put
//! right ([`words`]: "tomorow", "wendesday"), shorthand spelt out ("tmrw", "tonite", "thurs",
//! "eod", "this arvo", "at 9.30", "9 30 pm", "at 3p", "8:45a", "12 mn"), number words that say
//! a time, a date or a span turned into digits ("half past six" 6:30, "quarter to nine" 8:45,
//! "two thirty pm", "in twenty minutes", "in a couple of hours", "the twenty first", "feb
//! four", "on fourteenth july"), meals said as times of day ("at lunch" 12:00, "after dinner"
//! 20:00, "before bed" 21:00) and a span before or after a clock time made that time ("15
//! minutes before 4:30 pm" 16:15, "half an hour before 7pm" 18:30: the span and its clock
//! must both be in the text read, "before the bus at 7pm" is not). The phrase is found in that
//! text with two patterns (a day part and a time-of-day part, in either order) and the date
//! computed with jiff; [`Due::rest`] is cut from the words as the person wrote them ("call one
//! client tmrw" leaves "call one client").
//!
//! Rules: a day without a time is due at 09:00 (morning 09:00, afternoon 14:00, evening 18:00,
//! night and tonight 20:00; "today" or "later today" alone 17:00, "end of day" 17:00). A part of the day still
//! under way when said ("this afternoon" at 16:20) is due at the next full hour, at the latest
//! its end (morning 12:00, afternoon 18:00, evening, night and "today" 23:00); once it is over
//! it is past. An hour without am/pm said alone ("at 5", "at 7:30", "today at 7") is the next
//! such hour after now: at 16:20 "at 5" is 17:00, at 03:00 it is 05:00; 12 is noon. Said with a
//! part of the day it is in that part (after noon in the afternoon, evening and at night);
//! said with another day but no part ("tomorrow at 7", "on Friday at 5") 7–11 is the morning,
//! 12 noon and 1–6 the afternoon. An hour with am/pm, 0 or 13–23, or a leading zero ("07:30")
//! is that hour; "tonight at 12" and "tonight at 1"–"4" are after midnight. A time without a day is today if still ahead, else tomorrow; a bare weekday
//! is the next one after today, "this Friday" this week's (today included), "next Friday" the
//! Friday of next week (weeks start on Monday); "Monday the 20th" must be a Monday (else it
//! is asked about); "next week" is Monday of next week; "this week" and "end of the week"
//! Friday 17:00; "the day after tomorrow" and "a week from today/tomorrow" are days (09:00);
//! "in N days", "in a week" and "a week from now" keep the time of now; a date without a year
//! is its next occurrence, unless it passed within the last month — then it is a past date
//! ("Sept 1" said in late November is next year's). "by Thursday" is a due date, never a repeat.
//! A holiday ("on Christmas", "new year's eve", "thanksgiving", "easter", see [`holidays`]) is
//! a day like a weekday: its next date, today's included; said without "on", "by" … it must
//! end the phrase ("christmas eve at 8", not "a christmas tree"); "every christmas" is asked.
//!
//! [`typed`] is the one reader of a time typed where one is asked for (`--due`, `--since`):
//! the exact machine forms first, then [`parse`].

mod every;
mod holidays;
pub mod numbers;
mod typed;
mod words;
pub(crate) use words::WEEKDAYS;

use std::ops::Range;
use std::sync::OnceLock;

use jiff::civil::{Date, Time, Weekday};
use jiff::tz::TimeZone;
use jiff::{Span, ToSpan, Zoned};
use regex::{Captures, Regex};

pub use every::{every, repeated_on_days, Every};
pub use typed::{typed, Direction, TypedError, FORMS};

/// A due time found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Due {
    pub at: Zoned,
    /// The words that said it, as read (typos put right).
    pub phrase: String,
    /// The text without them (and without a dangling "by", "on", "at").
    pub rest: String,
    /// The phrase named a day ("Friday", "tomorrow", "the 3rd"), not only a time of day.
    pub day_given: bool,
    /// The phrase named a time of day ("at 5pm", "tonight", "in 2 hours", "morning"): a task
    /// moved to a day without one keeps its own time.
    pub time_given: bool,
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

/// For a person, relative to `now`: `Tue 24 Nov, 09:00`, with the year when it is not now's.
pub fn human(at: &Zoned, now: &Zoned) -> String {
    if at.year() == now.year() {
        at.strftime("%a %-d %b, %H:%M").to_string()
    } else {
        at.strftime("%a %-d %b %Y, %H:%M").to_string()
    }
}

/// A time phrase that cannot be turned into a time to act on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WhenError {
    /// It does not name a day or time ("the 45th", "February 30", "next Smarch", "at 25:00"),
    /// or names it two ways ("3/4").
    #[error("I can't read “{phrase}” as a date: {why}")]
    Unreadable { phrase: String, why: String },
    /// It names a time that has passed.
    #[error("“{phrase}” is in the past ({shown})")]
    Past { phrase: String, at: Box<Zoned>, shown: String },
}

impl WhenError {
    fn unreadable(phrase: &str, why: impl Into<String>) -> WhenError {
        WhenError::Unreadable { phrase: phrase.trim().to_string(), why: why.into() }
    }
    pub(crate) fn past(phrase: &str, at: Zoned, now: &Zoned) -> WhenError {
        WhenError::Past { phrase: phrase.trim().to_string(), shown: human(&at, now), at: Box::new(at) }
    }
    /// The phrase it is about.
    pub fn phrase(&self) -> &str {
        match self {
            WhenError::Unreadable { phrase, .. } | WhenError::Past { phrase, .. } => phrase,
        }
    }
}

const MONTHS: &str = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec";
const NUMBERS: &str =
    "a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|forty-five|forty|ninety";
const UNITS: &str = r"min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?|sec(?:ond)?s?|secs?";

/// The days of the week as people write them, for a pattern.
pub(crate) const WEEKDAY: &str =
    "monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thur|thu|fri|sat|sun";

/// A pattern with its word lists filled in (`MONTHS`, `NUMBERS`, `UNITS`, `WEEKDAY`,
/// `HOLIDAYS`), compiled.
fn compile(what: &str, pattern: &str) -> Regex {
    let pattern = pattern
        .replace("MONTHS", MONTHS)
        .replace("NUMBERS", NUMBERS)
        .replace("UNITS", UNITS)
        .replace("WEEKDAY", WEEKDAY)
        .replace("HOLIDAYS", holidays::PATTERN)
        // Between the days of a list: "Mondays, Wednesdays, and Fridays", "Mon & Thu", said
        // without a comma ("mondays wednesdays and fridays").
        .replace("DAYSEP", r"(?:\s*,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*[&/]\s*|\s+)");
    Regex::new(&pattern).unwrap_or_else(|e| unreachable!("the {what} pattern compiles: {e}"))
}

/// `text` without the byte ranges `spans` (overlapping ones counted once), tidied.
fn without(text: &str, mut spans: Vec<Range<usize>>) -> String {
    spans.sort_by_key(|r| r.start);
    let mut rest = String::with_capacity(text.len());
    let mut from = 0;
    for r in &spans {
        if r.start >= from {
            rest.push_str(&text[from..r.start]);
            from = r.end;
        }
    }
    rest.push_str(&text[from..]);
    tidy(&rest)
}

fn day_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let pattern = r"(?ix)\b(?:(?P<prep>by|on|before|until|till|til|for|due|from|to)\s+)?(?:
                (?P<md_m>MONTHS)\.?\s+(?P<md_d>\d{1,3})(?:st|nd|rd|th)?\b(?:,?\s+(?P<md_y>\d{4})\b)?
              | (?:the\s+)?(?P<dm_d>\d{1,3})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dm_m>MONTHS)\b\.?(?:,?\s+(?P<dm_y>\d{4})\b)?
              | (?P<iso_y>\d{4})-(?P<iso_m>\d{1,2})-(?P<iso_d>\d{1,2})\b
              | (?P<num_a>\d{1,2})/(?P<num_b>\d{1,2})(?:/(?P<num_y>\d{4}|\d{2}))?\b
              | (?P<overmorrow>(?:the\s+)?day\s+after\s+tomorrow)\b
              | (?:a|one|1)\s+week\s+(?:from\s+(?P<wfrom>today|tomorrow|now)|(?P<wafter>today|tomorrow))\b
              | (?P<tomorrow>tomorrow|tmrw|tmr)\b
              | (?P<yesterday>yesterday)\b
              | (?P<today>(?:later\s+)?today|tonight|this\s+(?:morning|afternoon|evening))\b
              | (?P<endof>(?:at\s+)?(?:the\s+)?end\s+of\s+(?:the\s+)?(?:(?P<endnext>next\s+)?(?P<endunit>day|week|month)|(?P<endmonth>MONTHS))|eod)\b
              | (?P<weekend>(?:this|next|the)\s+weekend)\b
              | (?P<thisweek>this\s+week)\b
              | (?P<nextweek>next\s+week)\b
              | (?P<nextmonth>next\s+month)\b
              | (?:(?P<hat>at)\s+)?(?:(?P<hrel>this(?:\s+(?:coming|upcoming))?|next|coming|upcoming|the\s+(?:coming|upcoming))\s+)?(?P<holiday>HOLIDAYS)(?:\s+(?P<hweekend>weekend))?\b
              | (?P<wdp>(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday|rsday)?),?\s+(?:the\s+)?(?P<wdd>\d{1,3})(?:st|nd|rd|th)\b(?:\s+of\s+(?P<wdm>MONTHS)\b)?
              | (?:(?P<rel>next|this(?:\s+(?:coming|upcoming))?|coming|upcoming|the\s+(?:coming|upcoming))\s+)?(?P<weekday>(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday|rsday)?)\b
              | in\s+(?P<n>\d+|NUMBERS)\s+(?P<unit>UNITS)\b
              | in\s+(?P<half>half\s+an\s+hour)\b
              | in\s+the\s+(?P<ipart>morning|afternoon|evening)\b
              | (?:(?P<thismonth>this\s+month),?\s+(?:on\s+)?)?the\s+(?P<dom>\d{1,3})(?:st|nd|rd|th)\b(?:\s+of\s+(?:the\s+)?(?P<domnext>next\s+month)|\s+of\s+(?P<domthis>(?:the\s+current|current|this)\s+month)|\s+of\s+the\s+month)?
              | (?P<dom3>\d{1,2})(?:st|nd|rd|th)\s+of\s+(?P<domthis3>(?:the\s+current|current|this|the)\s+month)\b
            )(?:\s+(?:in\s+the\s+)?(?P<part>morning|afternoon|evening|night))?";
        compile("day", pattern)
    })
}

fn time_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?ix)(?:\b(?:at|by|around)|@)\s*(?:(?P<h>\d{1,2})(?::(?P<m>\d{1,2}))?(?:\s*(?P<ampm>[ap])\.?m\b\.?|\b)|(?P<word>noon|midday|midnight)\b)
              | \b(?P<h2>\d{1,2})(?::(?P<m2>\d{2}))?\s*(?P<ampm2>[ap])\.?m\b\.?
              | \b(?P<h3>\d{1,2}):(?P<m3>\d{2})\b
              | \b(?P<word2>noon|midday|midnight)\b",
        )
        .unwrap_or_else(|e| unreachable!("the time pattern compiles: {e}"))
    })
}

/// A word after which the next word is read as a date ("next Smarch", "on Febtober 3").
fn date_position_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:next|this|last|on|by|until|till|before|every|in)\s+(?P<w>[a-z]{4,})\b(?:\s+\d{1,2}(?:st|nd|rd|th)?\b)?")
            .unwrap_or_else(|e| unreachable!("the date-position pattern compiles: {e}"))
    })
}

fn number(word: &str) -> Option<i64> {
    Some(match word.to_ascii_lowercase().as_str() {
        "a" | "an" | "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "eleven" => 11,
        "twelve" => 12,
        "fifteen" => 15,
        "twenty" => 20,
        "thirty" => 30,
        "forty" => 40,
        "forty-five" => 45,
        "ninety" => 90,
        n => n.parse().ok()?,
    })
}

/// `n` of `unit` ("min", "hours", "day" …) as a span; `None` when it is too large to mean.
fn unit_span(n: i64, unit: &str) -> Option<Span> {
    let unit = unit.to_ascii_lowercase();
    if !(0..=10_000).contains(&n) {
        return None;
    }
    Some(if unit.starts_with("min") {
        n.minutes()
    } else if unit.starts_with('s') {
        n.seconds()
    } else if unit.starts_with('h') {
        n.hours()
    } else if unit.starts_with('d') {
        n.days()
    } else if unit.starts_with('w') {
        n.weeks()
    } else {
        n.months()
    })
}

fn month_number(name: &str) -> Option<i8> {
    let name = name.to_ascii_lowercase();
    words::MONTHS.iter().position(|m| m.starts_with(&name[..name.len().min(3)])).and_then(|i| i8::try_from(i + 1).ok())
}

pub(crate) fn weekday_of(name: &str) -> Option<Weekday> {
    let name = name.to_ascii_lowercase();
    let i = WEEKDAYS.iter().position(|d| d.starts_with(&name[..name.len().min(3)]))?;
    Weekday::from_monday_zero_offset(i8::try_from(i).ok()?).ok()
}

fn at_time(date: Date, time: Time, tz: &TimeZone) -> Option<Zoned> {
    date.to_datetime(time).to_zoned(tz.clone()).ok()
}

fn hm(h: i8, m: i8) -> Time {
    Time::new(h, m, 0, 0).unwrap_or(Time::midnight())
}

/// A time of day as said: without am/pm, "at 5" may be the morning or the afternoon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Clock {
    hour: i8,
    minute: i8,
    /// Said so that it can only be one time: with am/pm, "noon", a 24-hour hour (0, 13–23)
    /// or a leading zero ("07:30").
    fixed: bool,
}

impl Clock {
    /// The time with a day or a part of the day said beside it, or in a repeat: in the
    /// morning as said, in the afternoon, evening or at night after noon; with neither, 7–11
    /// is the morning, 12 noon and 1–6 the afternoon.
    fn on_a_day(self, part: Option<&str>) -> Time {
        let h = self.hour;
        let hour = match part {
            _ if self.fixed => h,
            Some("morning") => h,
            Some(_) if h < 12 => h + 12,
            None if (1..=6).contains(&h) => h + 12,
            _ => h,
        };
        hm(hour, self.minute)
    }

    /// Said of a meal, the half of the day the meal is in: "lunch at 1" is 13:00, "dinner at
    /// 7" 19:00, "breakfast at 7" 07:00 — whatever the hour now.
    fn at_a_meal(self, text: &str) -> Clock {
        if self.fixed {
            return self;
        }
        let lower = text.to_ascii_lowercase();
        let said = |w: &str| lower.split(|c: char| !c.is_ascii_alphabetic()).any(|x| x == w);
        let h = self.hour;
        let hour = if said("breakfast") && (1..12).contains(&h) {
            h
        } else if said("lunch") && (1..=5).contains(&h) || (said("dinner") || said("supper")) && (1..12).contains(&h) {
            h + 12
        } else if said("lunch") && (11..=12).contains(&h) {
            h
        } else {
            return self;
        };
        Clock { hour, fixed: true, ..self }
    }

    /// The times of day it may be, said alone: "at 5" is 05:00 or 17:00, "at 12" noon.
    fn readings(self) -> Vec<Time> {
        if self.fixed || self.hour >= 12 {
            vec![hm(self.hour, self.minute)]
        } else {
            vec![hm(self.hour, self.minute), hm(self.hour + 12, self.minute)]
        }
    }

    /// The first of its readings after `now`: today, else tomorrow.
    fn next_after(self, now: &Zoned) -> Option<Zoned> {
        self.readings().into_iter().filter_map(|t| next_at(now.date(), t, now)).min()
    }
}

/// The time of day a time match says; an error names a time that cannot be one ("at
/// 25:00", "13pm").
fn clock_of(c: &Captures) -> Result<Clock, WhenError> {
    let phrase = c.get(0).map_or("", |m| m.as_str());
    if let Some(w) = c.name("word").or_else(|| c.name("word2")) {
        let hour = if w.as_str().eq_ignore_ascii_case("midnight") { 0 } else { 12 };
        return Ok(Clock { hour, minute: 0, fixed: true });
    }
    let (h, m, ampm) = match (c.name("h"), c.name("h2"), c.name("h3")) {
        (Some(h), _, _) => (h, c.name("m"), c.name("ampm")),
        (_, Some(h), _) => (h, c.name("m2"), c.name("ampm2")),
        (_, _, Some(h)) => (h, c.name("m3"), None),
        _ => return Err(WhenError::unreadable(phrase, "no hour in it")),
    };
    let bad = |why: &str| WhenError::unreadable(phrase, why);
    let mut hour: i8 = h.as_str().parse().map_err(|_| bad("the hour is not a number"))?;
    let minute: i8 = match m {
        Some(m) => m.as_str().parse().map_err(|_| bad("the minutes are not a number"))?,
        None => 0,
    };
    if minute > 59 {
        return Err(bad("an hour has 60 minutes"));
    }
    let pm = ampm.map(|a| a.as_str().eq_ignore_ascii_case("p"));
    match pm {
        Some(_) if hour == 0 || hour > 12 => return Err(bad("with am or pm the hour is 1 to 12")),
        Some(true) if hour < 12 => hour += 12,
        Some(false) if hour == 12 => hour = 0,
        Some(_) => {}
        None if hour > 23 => return Err(bad("a day has 24 hours")),
        None => {}
    }
    let fixed = pm.is_some() || hour == 0 || hour > 12 || h.as_str().starts_with('0');
    Ok(Clock { hour, minute, fixed })
}

fn part_time(part: &str) -> Time {
    match part {
        "morning" => hm(9, 0),
        "afternoon" => hm(14, 0),
        "evening" => hm(18, 0),
        _ => hm(20, 0),
    }
}

/// Whether what follows a short date word lets it be one: the end, punctuation, a time, or
/// a word that starts the rest of the request.
fn ends_a_phrase(after: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^\s*(?:$|[,.;:!?)]|\d|(?:at|to|about|and|for|morning|afternoon|evening|night|please|(?:next|this)\s+week)\b)")
            .unwrap_or_else(|e| unreachable!("the phrase-end pattern compiles: {e}"))
    });
    re.is_match(after)
}

/// Whether `after` starts with a clock time ("at 11am", ", 5:30 pm").
fn clock_follows(after: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)^,?\s+(?:at\s+(?:\d{1,2}(?:\b|[ap:.])|noon|midnight)|\d{1,2}(?::\d{2})?\s*[ap]\.?m\b)")
            .unwrap_or_else(|e| unreachable!("the clock-after pattern compiles: {e}"))
    })
    .is_match(after)
}

/// The first day phrase worth reading: abbreviations of weekdays count only after "on", "by",
/// "next" … ("put on sun cream" says nothing about Sunday).
fn day_match(text: &str) -> Option<Captures<'_>> {
    day_matches(text).next()
}

/// Every day phrase worth reading, in order.
fn day_matches(text: &str) -> impl Iterator<Item = Captures<'_>> {
    day_re().captures_iter(text).filter(move |c| {
        let introduced = c.name("prep").is_some() || c.name("rel").is_some();
        let ends = || c.get(0).is_some_and(|m| ends_a_phrase(&text[m.end()..]));
        if c.name("holiday").is_some() {
            return holidays::said_as_a_day(c, text);
        }
        match (c.name("weekday"), c.name("num_a")) {
            (Some(wd), _) if wd.as_str().len() > 5 => true,
            // "on wed at 5" is a day, "put on sun cream" is not.
            (Some(_), _) => introduced && ends(),
            // "24/7 support" is no date; "on 3/4" is one (or a question), and so is one a
            // clock time follows ("the party is 8/27 at 11am").
            (_, Some(_)) => introduced || c.get(0).is_some_and(|m| clock_follows(&text[m.end()..])),
            _ => true,
        }
    })
}

fn unit_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| compile("unit", r"(?i)^\s*(?:UNITS)\b"))
}

/// The first time phrase outside `skip` (the day phrase), and not "by 2 days".
fn time_match<'t>(text: &'t str, skip: Option<&Range<usize>>) -> Option<Captures<'t>> {
    time_re().captures_iter(text).find(|c| {
        let Some(m) = c.get(0) else { return false };
        let overlaps = skip.is_some_and(|s| m.start() < s.end && s.start < m.end());
        let unit_after = unit_re().is_match(&text[m.end()..]);
        !overlaps && !unit_after
    })
}

/// A date phrase that looks like one but cannot be read: a near-miss of a month or weekday in
/// a date position ("next Smarch"), a month without its day ("in March").
fn check_words(text: &str) -> Result<(), WhenError> {
    // "two weeks before August 17th", "a week before then", "monday thru friday": a time
    // relative to another, or a range of days, is asked about — never read as one of them.
    static RELATIVE: OnceLock<Regex> = OnceLock::new();
    let relative = RELATIVE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:\d+|an?|one|two|three|four|five|six|seven|ten|a\s+few|a\s+couple\s+of)\s+(?:days?|nights?|weeks?|months?|years?)\s+(?:before|prior\s+to|ahead\s+of|in\s+advance\s+of|earlier\s+than)\b|\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday|rsday)?s?\s+(?:thru|through|to|until|till|-)\s+(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)")
            .unwrap_or_else(|e| unreachable!("the relative pattern compiles: {e}"))
    });
    if let Some(m) = relative.find(text) {
        return Err(WhenError::unreadable(m.as_str(), "it is said from another day, or over several — which day?"));
    }
    // "an alarm at 6am for the month of May", "for the rest of the year": a time kept over a
    // stretch that ends is asked about, never set once with the stretch dropped.
    static STRETCH: OnceLock<Regex> = OnceLock::new();
    let stretch = STRETCH.get_or_init(|| {
        compile(
            "stretch",
            r"(?i)\bfor\s+(?:the\s+)?(?:(?:whole|entire)\s+)?(?:month\s+of\s+(?:MONTHS)|(?:next|coming)\s+(?:\d+|NUMBERS|few|couple\s+of)\s+(?:days|weeks|months)|(?:whole|entire)\s+(?:week|month|year)|rest\s+of\s+the\s+(?:week|month|year))\b",
        )
    });
    if let Some(m) = stretch.find(text) {
        return Err(WhenError::unreadable(
            m.as_str(),
            "I can't keep a time over a stretch that ends — which day, or how often from now on?",
        ));
    }
    holidays::check(text)?;
    for c in date_position_re().captures_iter(text) {
        let (Some(all), Some(w)) = (c.get(0), c.name("w")) else { continue };
        let word = w.as_str().to_ascii_lowercase();
        if word.strip_suffix('s').is_some_and(|d| WEEKDAYS.contains(&d)) {
            return Err(WhenError::unreadable(
                all.as_str(),
                format!("once, or every {}?", capitalized(&word[..word.len() - 1])),
            ));
        }
        if words::near_miss(&word) {
            return Err(WhenError::unreadable(
                all.as_str(),
                format!("“{}” is not a month or a day of the week", w.as_str()),
            ));
        }
        let month = words::MONTHS.iter().any(|m| *m == word && word != "may");
        let day_after = words::ends_with_day_number(all.as_str().trim_end());
        let day_before = words::ends_with_day_number(text[..all.start()].trim_end());
        if month && !day_after && !day_before {
            return Err(WhenError::unreadable(all.as_str(), format!("which day of {}?", w.as_str())));
        }
    }
    Ok(())
}

/// The due time in `text` relative to `now` (whose zone is the hub's): `None` when the text
/// says no time; an error when it says one that cannot be read or has passed.
pub fn parse(text: &str, now: &Zoned) -> Result<Option<Due>, WhenError> {
    let read = numbers::ranges(numbers::normalize(text));
    let normal = read.text.as_str();
    check_words(normal)?;
    let day = day_match(normal);
    let day_span = day.as_ref().and_then(|c| c.get(0)).map(|m| m.range());
    let time = time_match(normal, day_span.as_ref());
    if day.is_none() && time.is_none() {
        return Ok(None);
    }
    // "we can meet on any day next week", "any time this week": a stretch to choose in, no
    // day or time of its own — kept in the words.
    if let Some(r) = &day_span {
        let before = normal[..r.start].trim_end().to_ascii_lowercase();
        let before = before.strip_suffix(" on").unwrap_or(&before);
        if ["any day", "anyday", "any time", "anytime"].iter().any(|w| before.ends_with(w)) {
            return Ok(None);
        }
    }
    let part = day.as_ref().and_then(part_of);
    let clock = time.as_ref().map(clock_of).transpose()?.map(|k| k.at_a_meal(normal));
    let time_span = time.as_ref().and_then(|c| c.get(0)).map(|m| m.range());
    // "at 11 am Eastern Time", "8 am PST": a clock of another zone, read there and kept in the
    // hub's (the zone's words are no part of the name).
    let zone = time_span.as_ref().and_then(|t| zone_after(normal, t.end));
    let hub_zone = now.time_zone().clone();
    let zoned_now;
    let now = match &zone {
        Some((tz, _)) => {
            zoned_now = now.with_time_zone(tz.clone());
            &zoned_now
        }
        None => now,
    };
    let phrase = phrase_of(normal, [day_span.clone(), time_span.clone()]);
    let (at, day_given, time_given) = match &day {
        None => {
            let Some(k) = clock else { return Ok(None) };
            (k.next_after(now).ok_or_else(|| WhenError::unreadable(&phrase, "no such time"))?, false, true)
        }
        Some(c) => {
            let given = clock.is_some() || part.is_some();
            let (at, relative) = day_at(c, clock, part.as_deref(), now, &phrase)?;
            (at, true, given || relative)
        }
    };
    // A second day said right beside the first: "on Wednesday this week" says the same day
    // again (its words go with it), "tomorrow tonight" the part of it; "tonight this Sunday"
    // says two days, which is asked, never chosen.
    let mut also = None;
    let mut at = at;
    if let Some(first) = day.as_ref().and_then(|c| c.get(0)) {
        for other in day_matches(normal).skip(1) {
            let Some(m) = other.get(0) else { continue };
            let between = normal.get(first.end()..m.start()).unwrap_or("x");
            // "tomorrow … friday's party": a day's own thing, not a second day.
            let owned = normal.get(m.end()..).is_some_and(|r| r.starts_with("'s") || r.starts_with("’s"));
            if owned || !matches!(between.trim().trim_matches(',').trim().to_ascii_lowercase().as_str(), "" | "on") {
                continue;
            }
            let week = |next: bool| {
                let monday =
                    now.date().checked_sub(Span::new().days(i64::from(now.weekday().to_monday_zero_offset()))).ok()?;
                let start = if next { monday.checked_add(Span::new().days(7)).ok()? } else { monday };
                Some(start <= at.date() && at.date() < start.checked_add(Span::new().days(7)).ok()?)
            };
            let same_week = if other.name("thisweek").is_some() {
                week(false)
            } else if other.name("nextweek").is_some() {
                week(true)
            } else {
                None
            };
            let evening = other.name("today").filter(|t| !t.as_str().to_ascii_lowercase().ends_with("today")).is_some();
            // "next week, on Tuesday", "on wed next week": the day of that week.
            let week_of = |c: &Captures| {
                if c.name("nextweek").is_some() {
                    Some(true)
                } else {
                    c.name("thisweek").map(|_| false)
                }
            };
            let plain_day = |c: &Captures| c.name("weekday").is_some() && c.name("rel").is_none();
            let (in_week, weekday) = match day.as_ref() {
                Some(c) if plain_day(c) && week_of(&other).is_some() => (week_of(&other), Some(c)),
                Some(c) => (week_of(c), Some(&other).filter(|o| plain_day(o))),
                None => (None, None),
            };
            if let (Some(next), Some(weekday)) = (in_week, weekday) {
                let (on, _) = day_at(weekday, clock, part.as_deref(), now, &phrase)?;
                let monday =
                    now.date().checked_sub(Span::new().days(i64::from(now.weekday().to_monday_zero_offset()))).ok();
                let start = monday.and_then(|m| m.checked_add(Span::new().days(if next { 7 } else { 0 })).ok());
                let Some(start) = start else { break };
                let mut on = on;
                while on.date() < start {
                    on = on
                        .checked_add(Span::new().days(7))
                        .map_err(|_| WhenError::unreadable(&phrase, "no such day"))?;
                }
                if start.checked_add(Span::new().days(7)).is_ok_and(|end| on.date() >= end) {
                    let shown = format!("{} {}", first.as_str().trim(), m.as_str().trim());
                    return Err(WhenError::unreadable(&shown, "that day of this week is past — which day?"));
                }
                at = on;
                also = Some(m.range());
                break;
            }
            if same_week == Some(true) {
                also = Some(m.range());
            } else if evening && day.as_ref().is_some_and(|c| c.name("today").is_none() && c.name("part").is_none()) {
                let part = part_of(&other);
                let (moved, _) = day_at(day.as_ref().unwrap_or(&other), clock, part.as_deref(), now, &phrase)?;
                at = moved;
                also = Some(m.range());
            } else {
                let shown = format!("{} {}", first.as_str().trim(), m.as_str().trim());
                return Err(WhenError::unreadable(&shown, "it names two different days — which one?"));
            }
            break;
        }
    }
    let at = at.with_time_zone(hub_zone.clone());
    let now = &now.with_time_zone(hub_zone);
    if at <= *now {
        return Err(WhenError::past(&phrase, at, now));
    }
    // Another date phrase further on that cannot be read ("tomorrow … and … on the 45th")
    // makes the whole text a question too.
    for other in day_matches(normal).skip(1) {
        let shown = other.get(0).map_or("", |m| m.as_str());
        if let Err(e @ WhenError::Unreadable { .. }) = day_at(&other, None, None, now, shown) {
            return Err(e);
        }
    }
    // "on sunday at 2 pm for 2 hours": how long it lasts goes with its time, no part of its name.
    // (A timer's span is what it is: "a timer to begin at 9:30 am for 30 minutes" is asked.)
    let timer = normal.to_ascii_lowercase().contains("timer");
    let lasts = time_span.as_ref().filter(|_| !timer).and_then(|t| {
        static RE: OnceLock<Regex> = OnceLock::new();
        let re = RE.get_or_init(|| compile("duration", r"(?i)^\s*,?\s*for\s+(?:(?:an?|one|half\s+an?|\d+(?:\.\d+)?|\d+\s+and\s+a\s+half)\s+)(?:hours?|hrs?|minutes?|mins?)\b"));
        let after = normal.get(t.end..)?;
        re.find(after).map(|m| t.end + m.start()..t.end + m.end())
    });
    let zone_span = zone.map(|(_, r)| r);
    let spans = [day_span, time_span, also, lasts, zone_span].into_iter().flatten().map(|r| read.original(r)).collect();
    Ok(Some(Due { at, phrase, rest: without(text, spans), day_given, time_given }))
}

/// The time zone said right after a clock time at `end` of `text` ("11 am Eastern Time", "8 am
/// PST", "5pm (CET)"), and the span of its words; `None` when none is. The short American
/// names ("ET", "PT") only in capitals, a region's name alone ("eastern") only where the phrase
/// ends or a day follows ("5 pm central park" is a place).
fn zone_after(text: &str, end: usize) -> Option<(TimeZone, Range<usize>)> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        compile(
            "time zone",
            r"^\s*\(?\s*(?:(?P<abbr>(?i:est|edt|cst|cdt|mst|mdt|pst|pdt|akst|akdt|hst|gmt|utc|bst|cet|cest|eet|eest|wet|ist|jst|aest|aedt)|ET|CT|MT|PT)\b|(?P<region>(?i:eastern|central|mountain|pacific|alaska|hawaii|uk|london|india|japan|sydney|paris|berlin|greenwich))(?P<time>(?i:\s+(?:standard\s+|daylight\s+)?time))?\b)\s*\)?",
        )
    });
    static AFTER: OnceLock<Regex> = OnceLock::new();
    let after = AFTER.get_or_init(|| {
        compile(
            "after a zone",
            r"(?i)^\s*(?:$|[.,;!?]|(?:today|tomorrow|tonight|on|this|next|every|each|and|please)\b)",
        )
    });
    let c = re.captures(text.get(end..)?)?;
    let all = c.get(0)?;
    let name = if let Some(a) = c.name("abbr") {
        a.as_str().to_ascii_lowercase()
    } else {
        let region = c.name("region")?.as_str().to_ascii_lowercase();
        if c.name("time").is_none() && !after.is_match(text.get(end + all.end()..)?) {
            return None;
        }
        region
    };
    let iana = match name.as_str() {
        "est" | "edt" | "et" | "eastern" => "America/New_York",
        "cst" | "cdt" | "ct" | "central" => "America/Chicago",
        "mst" | "mdt" | "mt" | "mountain" => "America/Denver",
        "pst" | "pdt" | "pt" | "pacific" => "America/Los_Angeles",
        "akst" | "akdt" | "alaska" => "America/Anchorage",
        "hst" | "hawaii" => "Pacific/Honolulu",
        "gmt" | "utc" | "greenwich" => "UTC",
        "bst" | "uk" | "london" => "Europe/London",
        "cet" | "cest" | "paris" | "berlin" => "Europe/Paris",
        "eet" | "eest" => "Europe/Athens",
        "wet" => "Europe/Lisbon",
        "ist" | "india" => "Asia/Kolkata",
        "jst" | "japan" => "Asia/Tokyo",
        "aest" | "aedt" | "sydney" => "Australia/Sydney",
        _ => return None,
    };
    let tz = TimeZone::get(iana).ok()?;
    Some((tz, end + all.start()..end + all.end()))
}

/// The part of the day a day match says: after it ("Friday evening") or in it ("tonight",
/// "this afternoon").
fn part_of(c: &Captures) -> Option<String> {
    if let Some(p) = c.name("part") {
        return Some(p.as_str().to_ascii_lowercase());
    }
    let today = c.name("today")?.as_str().to_ascii_lowercase();
    if today == "tonight" {
        return Some(today);
    }
    let part = today.split_whitespace().last()?;
    // "today", "later today": no part of it.
    (part != "today").then(|| part.to_string())
}

/// The due time in `text`, or `None` when it says none — or one that cannot be used (see
/// [`parse`] for the error).
pub fn find(text: &str, now: &Zoned) -> Option<Due> {
    parse(text, now).ok().flatten()
}

/// The words of the matched ranges, in order, joined.
fn phrase_of(text: &str, ranges: [Option<Range<usize>>; 2]) -> String {
    let mut ranges: Vec<Range<usize>> = ranges.into_iter().flatten().collect();
    ranges.sort_by_key(|r| r.start);
    ranges.iter().map(|r| text[r.clone()].trim()).collect::<Vec<_>>().join(" ")
}

/// `t` on `date` if still ahead of `now`, else on the day after.
fn next_at(date: Date, t: Time, now: &Zoned) -> Option<Zoned> {
    let tz = now.time_zone();
    let candidate = at_time(date, t, tz)?;
    if &candidate > now {
        Some(candidate)
    } else {
        at_time(date.tomorrow().ok()?, t, tz)
    }
}

/// The time a day match names, at `t` (else its default), and whether it is relative to now
/// ("in 2 hours": a time of day is given by it).
fn day_at(
    c: &Captures,
    clock: Option<Clock>,
    part: Option<&str>,
    now: &Zoned,
    phrase: &str,
) -> Result<(Zoned, bool), WhenError> {
    let t = clock.map(|k| k.on_a_day(part)).or(part.map(part_time));
    let tz = now.time_zone().clone();
    let today = now.date();
    let nine = t.unwrap_or(hm(9, 0));
    let none = || WhenError::unreadable(phrase, "no such day");
    let on = |date: Date, time: Time| at_time(date, time, &tz).ok_or_else(none);
    let text = |name: &str| c.name(name).map(|m| m.as_str().to_ascii_lowercase());

    if let (Some(m), Some(d)) = (text("md_m").or(text("dm_m")), text("md_d").or(text("dm_d"))) {
        let year = text("md_y").or(text("dm_y"));
        let month = month_number(&m).ok_or_else(none)?;
        return Ok((on(calendar_date(year.as_deref(), month, &d, phrase, now)?, nine)?, false));
    }
    if let (Some(y), Some(m), Some(d)) = (text("iso_y"), text("iso_m"), text("iso_d")) {
        let month: i8 = m.parse().map_err(|_| none())?;
        if !(1..=12).contains(&month) {
            return Err(WhenError::unreadable(phrase, format!("there is no month {m}")));
        }
        return Ok((on(calendar_date(Some(&y), month, &d, phrase, now)?, nine)?, false));
    }
    if let (Some(a), Some(b)) = (text("num_a"), text("num_b")) {
        let (a, b): (i8, i8) = (a.parse().map_err(|_| none())?, b.parse().map_err(|_| none())?);
        let (day, month) = match (a, b) {
            (a, b) if a > 12 && b <= 12 => (a, b),
            (a, b) if b > 12 && a <= 12 => (b, a),
            (a, b) if a == b && a <= 12 => (a, b),
            _ => {
                return Err(WhenError::unreadable(
                    phrase,
                    "the day and the month could be either way round: write the month as a word",
                ))
            }
        };
        let year = text("num_y").map(|y| if y.len() == 2 { format!("20{y}") } else { y });
        return Ok((on(calendar_date(year.as_deref(), month, &day.to_string(), phrase, now)?, nine)?, false));
    }
    if c.name("overmorrow").is_some() {
        return Ok((on(today.checked_add(2.days()).map_err(|_| none())?, nine)?, false));
    }
    if let Some(from) = text("wfrom").or(text("wafter")) {
        if from == "now" {
            let later = now.checked_add(1.week()).map_err(|_| none())?;
            return Ok(match t {
                Some(t) => (on(later.date(), t)?, false),
                None => (later, false),
            });
        }
        let days = if from == "tomorrow" { 8 } else { 7 };
        return Ok((on(today.checked_add(days.days()).map_err(|_| none())?, nine)?, false));
    }
    if let (Some(wd), Some(dom)) = (text("wdp"), text("wdd")) {
        let weekday = weekday_of(&wd).ok_or_else(none)?;
        let date = match text("wdm") {
            Some(m) => calendar_date(None, month_number(&m).ok_or_else(none)?, &dom, phrase, now)?,
            None => {
                let d: i8 =
                    dom.parse().ok().filter(|d| (1..=31).contains(d)).ok_or_else(|| {
                        WhenError::unreadable(phrase, format!("no month has a {}", ordinal_text(&dom)))
                    })?;
                day_of_month(today, d, false, |d| on(d, nine).is_ok_and(|z| z > *now)).ok_or_else(none)?
            }
        };
        if date.weekday() != weekday {
            let name = capitalized(WEEKDAYS[date.weekday().to_monday_zero_offset() as usize % 7]);
            return Err(WhenError::unreadable(
                phrase,
                format!("the {} is a {name} ({})", ordinal(date.day()), date.strftime("%-d %B %Y")),
            ));
        }
        return Ok((on(date, nine)?, false));
    }
    if let Some(h) = text("holiday") {
        let date = holidays::next(&h, c.name("hweekend").is_some(), today)
            .map_err(|why| WhenError::unreadable(phrase, why))?;
        return Ok((on(date, nine)?, false));
    }
    if c.name("tomorrow").is_some() {
        return Ok((on(today.tomorrow().map_err(|_| none())?, nine)?, false));
    }
    // "in the morning" with no day: the next one ("remind me in the morning" at 14:30 is
    // tomorrow's).
    if let Some(p) = text("ipart") {
        let time = clock.map_or_else(|| part_time(&p), |k| k.on_a_day(Some(&p)));
        return Ok((next_at(today, time, now).ok_or_else(none)?, true));
    }
    if c.name("yesterday").is_some() {
        return Err(WhenError::past(phrase, on(today.yesterday().map_err(|_| none())?, nine)?, now));
    }
    if let Some(w) = text("today") {
        match (clock, part) {
            // "tonight at midnight", "by midnight today", "tonight at 1am": the night that
            // ends today, after midnight.
            (Some(k), p)
                if k.fixed && (k.hour, k.minute) == (0, 0) || (k.fixed && k.hour < 4 && p == Some("tonight")) =>
            {
                return Ok((on(today.tomorrow().map_err(|_| none())?, hm(k.hour, k.minute))?, true));
            }
            // "today at 7": the next such hour today.
            (Some(k), None) => {
                let times: Vec<Zoned> = k.readings().into_iter().filter_map(|t| at_time(today, t, &tz)).collect();
                let ahead = times.iter().find(|z| **z > *now).or(times.last()).cloned().ok_or_else(none)?;
                return Ok((ahead, true));
            }
            // "tonight at 12", "tonight at 1": after midnight.
            (Some(k), Some("tonight" | "night")) if !k.fixed && (k.hour == 12 || k.hour <= 4) => {
                return Ok((on(today.tomorrow().map_err(|_| none())?, hm(k.hour % 12, k.minute))?, true));
            }
            (Some(k), Some(p)) => return Ok((on(today, k.on_a_day(Some(p)))?, true)),
            (None, _) => {}
        }
        let (default, end) = match part {
            Some("morning") => (9, 12),
            Some("afternoon") => (14, 18),
            Some("evening") => (18, 23),
            Some(_) => (20, 23),
            None => (17, 23),
        };
        let at = on(today, hm(default, 0))?;
        // A part of the day still under way ("this afternoon" at 16:20): the next full hour,
        // at the latest its end.
        if at <= *now {
            return Ok((later_within(now, end).ok_or_else(|| WhenError::past(phrase, at, now))?, true));
        }
        // "tonight", "this evening" say a time of day; "today" does not.
        return Ok((at, !w.ends_with("today")));
    }
    if let Some(unit) = text("endunit") {
        let next = text("endnext").is_some();
        let date = match unit.as_str() {
            "week" if next => next_weeks(today, Weekday::Friday)?,
            "week" => this_weeks(today, Weekday::Friday)?,
            "month" if next => today.first_of_month().checked_add(1.month()).map_err(|_| none())?.last_of_month(),
            "month" => today.last_of_month(),
            "day" if next => today.tomorrow().map_err(|_| none())?,
            _ => today,
        };
        let at = on(date, t.unwrap_or(hm(17, 0)))?;
        if unit == "day" && t.is_none() && at <= *now {
            return Ok((later_today(now).ok_or_else(|| WhenError::past(phrase, at, now))?, true));
        }
        // The end of a day, week or month is its close of business: a time of day.
        return Ok((at, true));
    }
    // "at the end of March": the month's last day, this year's unless it has passed.
    if let Some(month) = text("endmonth").as_deref().and_then(month_number) {
        let last = |y: i16| Date::new(y, month, 1).map(|d| d.last_of_month()).map_err(|_| none());
        let date = match last(today.year())? {
            d if d >= today => d,
            _ => last(today.year() + 1)?,
        };
        return Ok((on(date, t.unwrap_or(hm(17, 0)))?, true));
    }
    if text("endof").is_some() {
        // "eod"
        let at = on(today, t.unwrap_or(hm(17, 0)))?;
        return Ok((if at <= *now { later_today(now).unwrap_or(at) } else { at }, true));
    }
    if let Some(w) = text("weekend") {
        let saturday = if w.starts_with("next") {
            next_weeks(today, Weekday::Saturday)?
        } else if matches!(today.weekday(), Weekday::Saturday | Weekday::Sunday) {
            today
        } else {
            this_weeks(today, Weekday::Saturday)?
        };
        return Ok((on(saturday, nine)?, false));
    }
    if c.name("thisweek").is_some() {
        return Ok((on(this_weeks(today, Weekday::Friday)?, t.unwrap_or(hm(17, 0)))?, true));
    }
    if c.name("nextweek").is_some() {
        return Ok((on(next_weeks(today, Weekday::Monday)?, nine)?, false));
    }
    if c.name("nextmonth").is_some() {
        let first = today.first_of_month().checked_add(1.month()).map_err(|_| none())?;
        return Ok((on(first, nine)?, false));
    }
    if let Some(wd) = text("weekday") {
        let day = weekday_of(&wd).ok_or_else(none)?;
        let rel = text("rel").unwrap_or_default();
        let date = if rel == "next" {
            next_weeks(today, day)?
        } else if rel == "this" && today.weekday() == day && on(today, nine)? > *now {
            today
        } else {
            today.nth_weekday(1, day).map_err(|_| none())?
        };
        return Ok((on(date, nine)?, false));
    }
    if let (Some(n), Some(unit)) = (text("n"), text("unit")) {
        let n = number(&n).ok_or_else(none)?;
        let span = unit_span(n, &unit).ok_or_else(|| WhenError::unreadable(phrase, "too far ahead"))?;
        let later = now.checked_add(span).map_err(|_| WhenError::unreadable(phrase, "too far ahead"))?;
        let whole_days = !(unit.starts_with("min") || unit.starts_with('h') || unit.starts_with('s'));
        // "an alarm for 6pm in 30 minutes": two times that are not one are asked about.
        if let (false, Some(k)) = (whole_days, clock) {
            let (h, m) = (later.hour(), later.minute());
            if !k.readings().iter().any(|r| r.hour() == h && r.minute() == m) {
                return Err(WhenError::unreadable(phrase, "that says two times: which one?"));
            }
        }
        return Ok(match (whole_days, t) {
            (true, Some(t)) => (on(later.date(), t)?, false),
            (true, None) => (later, false),
            (false, _) => (later, true),
        });
    }
    if c.name("half").is_some() {
        return Ok((now.checked_add(30.minutes()).map_err(|_| none())?, true));
    }
    if let Some(dom) = text("dom").or_else(|| text("dom3")) {
        let dom: i8 = dom
            .parse()
            .ok()
            .filter(|d| (1..=31).contains(d))
            .ok_or_else(|| WhenError::unreadable(phrase, format!("no month has a {}", ordinal_text(&dom))))?;
        // "at 11 am on the 26th", said on the 26th after 11: today's, so past and asked —
        // never a month on.
        if dom == today.day() && c.name("domnext").is_none() {
            return Ok((on(today, nine)?, false));
        }
        // "this month on the 5th", "the 6th of this month": this month's, even when past
        // (then asked) — never rolled to the next.
        if ["thismonth", "domthis", "domthis3"].iter().any(|g| c.name(g).is_some()) {
            let date = Date::new(today.year(), today.month(), dom)
                .map_err(|_| WhenError::unreadable(phrase, format!("this month has no {}", ordinal(dom))))?;
            return Ok((on(date, nine)?, false));
        }
        let date = day_of_month(today, dom, c.name("domnext").is_some(), |d| on(d, nine).is_ok_and(|z| z > *now))
            .ok_or_else(none)?;
        return Ok((on(date, nine)?, false));
    }
    Err(none())
}

/// The next full hour today, at the latest 23:00; `None` from 23:00 on.
fn later_today(now: &Zoned) -> Option<Zoned> {
    later_within(now, 23)
}

/// The next full hour today, at the latest `end` o'clock; `None` once `end` is reached.
fn later_within(now: &Zoned, end: i8) -> Option<Zoned> {
    if now.hour() >= end {
        return None;
    }
    at_time(now.date(), hm((now.hour() + 1).min(end), 0), now.time_zone())
}

/// `day` of the week `today` is in (weeks start on Monday), even if it has passed.
fn this_weeks(today: Date, day: Weekday) -> Result<Date, WhenError> {
    let offset = i64::from(day.to_monday_zero_offset()) - i64::from(today.weekday().to_monday_zero_offset());
    today.checked_add(offset.days()).map_err(|_| WhenError::unreadable("", "no such day"))
}

/// `day` of next week.
fn next_weeks(today: Date, day: Weekday) -> Result<Date, WhenError> {
    this_weeks(today, day)?.checked_add(1.week()).map_err(|_| WhenError::unreadable("", "no such day"))
}

/// The next date (from `today`, this month first unless `next_month`) whose day of the month
/// is `dom` and that `ahead` accepts; months without that day are skipped ("the 31st").
fn day_of_month(today: Date, dom: i8, next_month: bool, ahead: impl Fn(Date) -> bool) -> Option<Date> {
    let first = today.first_of_month();
    (i64::from(next_month)..13).find_map(|n| {
        let month = first.checked_add(n.months()).ok()?;
        let date = Date::new(month.year(), month.month(), dom).ok()?;
        ahead(date).then_some(date)
    })
}

/// A calendar date a person wrote, checked to exist, the year filled in when missing: this
/// year's if still ahead; a date that passed within the last month is kept (and so reported
/// as past); one longer ago is next year's.
fn calendar_date(year: Option<&str>, month: i8, day: &str, phrase: &str, now: &Zoned) -> Result<Date, WhenError> {
    let today = now.date();
    let day: i8 = day.parse().map_err(|_| WhenError::unreadable(phrase, "the day is not a number"))?;
    let month_name = words::MONTHS.get(usize::try_from(month - 1).unwrap_or(0)).copied().unwrap_or("that month");
    let month_name = capitalized(month_name);
    let missing = |why_year: &str| {
        WhenError::unreadable(
            phrase,
            if (1..=31).contains(&day) {
                format!("{month_name} has no {}{why_year}", ordinal(day))
            } else {
                format!("no month has a {}", ordinal(day))
            },
        )
    };
    if let Some(y) = year {
        let y: i16 = y.parse().map_err(|_| WhenError::unreadable(phrase, "the year is not a number"))?;
        return Date::new(y, month, day).map_err(|_| missing(&format!(" in {y}")));
    }
    let this_year = Date::new(today.year(), month, day).ok();
    let next_year = Date::new(today.year() + 1, month, day).ok();
    let recent = |d: Date| today.checked_sub(1.month()).is_ok_and(|limit| d >= limit);
    match (this_year, next_year) {
        (Some(d), _) if d >= today || recent(d) => Ok(d),
        (_, Some(d)) => Ok(d),
        _ => Err(missing("")),
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

/// "45" → "45th" for a number of any size a person wrote.
fn ordinal_text(n: &str) -> String {
    match n.parse::<i8>() {
        Ok(n) => ordinal(n),
        Err(_) => format!("{n}th"),
    }
}

fn ordinal(n: i8) -> String {
    numbers::suffixed(u32::from(n.unsigned_abs()))
}

fn shift_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        compile(
            "shift",
            r"(?i)(?:\b(?:back\s+(?:by\s+)?|by\s+|for\s+|another\s+)|(?P<bare>\b))(?:(?P<n>\d+|NUMBERS)\s+(?P<unit>UNITS)|(?P<half>half\s+an\s+hour))\b(?:\s+later)?",
        )
    })
}

/// A span to push something back by ("by an hour", "for 2 hours", "back a week").
#[derive(Debug, Clone)]
pub struct Shift {
    pub span: Span,
    pub phrase: String,
    /// The text without it.
    pub rest: String,
}

/// The span in `text` that something is pushed back by, if it says one: after "by", "for",
/// "back", "another" anywhere ("snooze the plumber for 2 hours"), or alone at the end
/// ("snooze it 30 minutes", "ten minutes") unless after "in" ("in 2 days" is a due time).
pub fn shift(text: &str) -> Option<Shift> {
    let read = numbers::normalize(text);
    let normal = read.text.as_str();
    let c = shift_re().captures_iter(normal).find(|c| {
        let Some(all) = c.get(0) else { return false };
        if c.name("bare").is_none() {
            return true;
        }
        let at_end = normal[all.end()..].trim_matches(|c: char| c.is_whitespace() || ".!,;".contains(c)).is_empty();
        let before = normal[..all.start()].trim_end();
        let after_in = before.len() >= 2
            && before.get(before.len() - 2..).is_some_and(|w| w.eq_ignore_ascii_case("in"))
            && !before[..before.len() - 2].ends_with(|c: char| c.is_ascii_alphanumeric());
        at_end && !after_in
    })?;
    let all = c.get(0)?;
    let span = match (c.name("n"), c.name("unit"), c.name("half")) {
        (Some(n), Some(unit), _) => unit_span(number(n.as_str())?, unit.as_str())?,
        (_, _, Some(_)) => 30.minutes(),
        _ => return None,
    };
    let rest = without(text, vec![read.original(all.range())]);
    Some(Shift { span, phrase: all.as_str().trim().to_string(), rest })
}

/// Collapse spaces and drop punctuation left dangling at the end.
fn tidy(s: &str) -> String {
    // ("a meeting at 4pm, later this week with infrastructure": the comma that stood beside
    // the time goes with it.)
    let joined =
        s.split_whitespace().filter(|w| !w.chars().all(|c| matches!(c, ',' | ';'))).collect::<Vec<_>>().join(" ");
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
mod tests;
