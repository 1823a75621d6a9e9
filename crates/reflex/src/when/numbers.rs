//! Times as people say and type them, rewritten into the forms the readers of this module
//! know, before anything is read: number words as speech-to-text writes them ("ten am" →
//! "10am", "two thirty pm" → "2:30 pm", "half past six" → "6:30", "quarter to nine" →
//! "8:45", "five o'clock" → "5:00", "in twenty minutes" → "in 20 minutes", "in a couple of
//! hours" → "in 2 hours", "the twenty first" → "the 21st", "feb four" → "feb 4"), shorthand
//! ("tmrw", "2moro", "tonite", "thurs", "weds", "arvo", "at 9.30", "alarm 8.30", "9 30 pm",
//! "at 3p", "8:45a", "1a m", "12 mn"; "eight forty five a" only where "a" can be no article) and
//! misspelt date words ("tomorow", see [`super::words`]). Meals and bed said as times of day
//! become clock times ("at lunch" → "at 12pm", "tuesday after lunch" → "tuesday at 1pm",
//! "before bed" → "at 9pm"; the table is [`MEALS`]).
//!
//! Number words become digits only where they say a time, a date or a span: after "at",
//! "by", "around" …, before "am"/"pm"/"o'clock", before a unit ("two days"), beside a month
//! name, or as "the thirteenth" where nothing else follows; two number words alone only as a
//! quarter or half hour ("seven fifteen", not "pay him two fifty"). "call one client" is left
//! alone.
//!
//! [`Normalized`] keeps, for every byte of the rewritten text, where it came from in the
//! original, so a phrase found in the rewritten text can be cut from the original one
//! ([`Normalized::original`]): what is left of a request keeps the person's own words.

use std::ops::Range;
use std::sync::OnceLock;

use regex::{Captures, Regex};

/// A text rewritten for reading, with the way back to the original.
#[derive(Debug, Clone, PartialEq)]
pub struct Normalized {
    /// The rewritten text.
    pub text: String,
    /// For each byte of `text`, the byte range of the original it came from.
    from: Vec<(usize, usize)>,
    /// The length of the original.
    len: usize,
}

impl Normalized {
    /// The text as it was, unchanged, with an identity map.
    fn identity(text: &str) -> Normalized {
        Normalized { text: text.to_string(), from: (0..text.len()).map(|i| (i, i + 1)).collect(), len: text.len() }
    }

    /// The byte range of the original that `range` of [`Normalized::text`] was written from
    /// (a rewritten word counts whole). Out-of-bounds ranges are clamped; an empty range
    /// maps to an empty one.
    pub fn original(&self, range: Range<usize>) -> Range<usize> {
        let end = range.end.min(self.from.len());
        let start = range.start.min(end);
        if start == end {
            let at = self.from.get(start).map_or(self.len, |f| f.0);
            return at..at;
        }
        match (self.from.get(start), self.from.get(end - 1)) {
            (Some(a), Some(b)) => a.0..b.1.max(a.0),
            _ => self.len..self.len,
        }
    }

    /// Every match of `re` that `with` has a replacement for, replaced.
    fn rewrite(self, re: &Regex, with: impl Fn(&Captures, &str) -> Option<String>) -> Normalized {
        let mut text = String::with_capacity(self.text.len());
        let mut from = Vec::with_capacity(self.from.len());
        let mut last = 0;
        for c in re.captures_iter(&self.text) {
            let Some(m) = c.get(0) else { continue };
            if m.is_empty() || m.start() < last {
                continue;
            }
            let Some(new) = with(&c, &self.text) else { continue };
            let (Some(first), Some(end)) = (self.from.get(m.start()), self.from.get(m.end() - 1)) else { continue };
            let source = (first.0, end.1);
            text.push_str(&self.text[last..m.start()]);
            from.extend_from_slice(&self.from[last..m.start()]);
            text.push_str(&new);
            from.extend(std::iter::repeat_n(source, new.len()));
            last = m.end();
        }
        if last == 0 && text.is_empty() {
            return self;
        }
        text.push_str(&self.text[last..]);
        from.extend_from_slice(&self.from[last..]);
        Normalized { text, from, len: self.len }
    }

    /// Fixed replacements at byte ranges of the current text, in order, not overlapping.
    fn replace_at(self, edits: Vec<(Range<usize>, &str)>) -> Normalized {
        let mut text = String::with_capacity(self.text.len());
        let mut from = Vec::with_capacity(self.from.len());
        let mut last = 0;
        for (r, new) in edits {
            if r.start < last || r.is_empty() || r.end > self.text.len() {
                continue;
            }
            let (Some(first), Some(end)) = (self.from.get(r.start), self.from.get(r.end - 1)) else { continue };
            let source = (first.0, end.1);
            text.push_str(&self.text[last..r.start]);
            from.extend_from_slice(&self.from[last..r.start]);
            text.push_str(new);
            from.extend(std::iter::repeat_n(source, new.len()));
            last = r.end;
        }
        text.push_str(&self.text[last..]);
        from.extend_from_slice(&self.from[last..]);
        Normalized { text, from, len: self.len }
    }
}

const UNIT_WORDS: &str = "one|two|three|four|five|six|seven|eight|nine";
const TEEN_WORDS: &str = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen";
const TENS_WORDS: &str = "twenty|thirty|forty|fourty|fifty";
const ORDINAL_UNITS: &str = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth";
const ORDINAL_TEENS: &str =
    "tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth";
const SPAN_UNITS: &str = r"min(?:ute)?s?|hours?|hrs?|days?|weeks?|months?|sec(?:ond)?s?";
const MONTH_WORDS: &str = "january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec";
const INTRO: &str = "at|@|around|by|till|until|before|from|after|about";

/// A pattern with `CARD` (a number word, 1–59), `ORD` (an ordinal word, 1st–31st), `UNITS`,
/// `MONTHS` and `INTRO` filled in, compiled case-insensitively.
fn compile(pattern: &str) -> Regex {
    let card = format!(r"(?:(?:{TENS_WORDS})(?:[\s-]+(?:{UNIT_WORDS}))?|{TEEN_WORDS}|{UNIT_WORDS})");
    let ord =
        format!(r"(?:(?:twenty|thirty)[\s-]+(?:{ORDINAL_UNITS})|twentieth|thirtieth|{ORDINAL_TEENS}|{ORDINAL_UNITS})");
    let pattern = pattern
        .replace("CARD", &card)
        .replace("ORD", &ord)
        .replace("UNITS", SPAN_UNITS)
        .replace("MONTHS", MONTH_WORDS)
        .replace("INTRO", INTRO);
    Regex::new(&format!("(?i){pattern}")).unwrap_or_else(|e| unreachable!("a number pattern compiles: {e}"))
}

/// The value of a number word or words ("seven", "twenty one", "forty-five"), or digits.
pub fn cardinal(words: &str) -> Option<u32> {
    let mut total = 0;
    let mut any = false;
    for w in words.split(|c: char| c.is_whitespace() || c == '-').filter(|w| !w.is_empty()) {
        let w = w.to_ascii_lowercase();
        let n = if let Some(i) = UNIT_WORDS.split('|').position(|u| u == w) {
            i + 1
        } else if let Some(i) = TEEN_WORDS.split('|').position(|u| u == w) {
            i + 10
        } else {
            match w.as_str() {
                "twenty" => 20,
                "thirty" => 30,
                "forty" | "fourty" => 40,
                "fifty" => 50,
                "oh" | "o" | "zero" => 0,
                _ => w.parse::<usize>().ok().filter(|n| *n < 10_000)?,
            }
        };
        total += n;
        any = true;
    }
    any.then_some(u32::try_from(total).ok()?)
}

/// The value of an ordinal word or words ("third", "twenty first").
pub fn ordinal(words: &str) -> Option<u32> {
    let mut total = 0;
    for w in words.split(|c: char| c.is_whitespace() || c == '-').filter(|w| !w.is_empty()) {
        let w = w.to_ascii_lowercase();
        total += if let Some(i) = ORDINAL_UNITS.split('|').position(|u| u == w) {
            i + 1
        } else if let Some(i) = ORDINAL_TEENS.split('|').position(|u| u == w) {
            i + 10
        } else {
            match w.as_str() {
                "twenty" => 20,
                "thirty" => 30,
                "twentieth" => 20,
                "thirtieth" => 30,
                _ => return None,
            }
        };
    }
    u32::try_from(total).ok().filter(|n| (1..=31).contains(n))
}

/// "21" → "21st".
pub(super) fn suffixed(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The word just before byte `at` of `text`, lowercase ("" if none).
fn word_before(text: &str, at: usize) -> String {
    let before = text.get(..at).unwrap_or("").trim_end();
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '@')
        .last()
        .map_or(before.len(), |(i, _)| i);
    before[start..].to_ascii_lowercase()
}

/// The word just after byte `at` of `text`, lowercase; `None` at the end of the text or
/// before punctuation.
fn word_after(text: &str, at: usize) -> Option<String> {
    let after = text.get(at..).unwrap_or("").trim_start();
    let word: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '\'').collect();
    (!word.is_empty()).then(|| word.to_ascii_lowercase())
}

const DAY_WORDS: &[&str] = &[
    "tomorrow",
    "today",
    "tonight",
    "morning",
    "afternoon",
    "evening",
    "night",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Whether a word may follow a time said in number words: a day, a part of the day, or a
/// word that starts the rest of a request.
fn after_a_time(word: Option<&str>) -> bool {
    const GLUE: &[&str] = &[
        "am", "pm", "a", "p", "in", "on", "this", "next", "and", "to", "please", "then", "sharp", "every", "each",
        "daily", "remind", "call", "so", "for", "i", "we", "or",
    ];
    word.is_none_or(|w| DAY_WORDS.contains(&w) || GLUE.contains(&w) || w.starts_with(char::is_numeric))
}

/// Whether a word may follow a day of the month said as an ordinal ("the thirteenth").
fn after_a_day(word: Option<&str>) -> bool {
    const GLUE: &[&str] = &[
        "of", "at", "in", "and", "to", "please", "by", "before", "then", "so", "or", "next", "this", "every", "each",
        "with",
    ];
    word.is_none_or(|w| DAY_WORDS.contains(&w) || GLUE.contains(&w) || w.starts_with(char::is_numeric))
}

/// Words after "at five" that show it is no time: "at one point", "by two votes".
fn not_a_time(word: Option<&str>) -> bool {
    const COUNTED: &[&str] = &[
        "point", "points", "time", "times", "of", "least", "more", "or", "percent", "people", "person", "things",
        "thing", "items", "votes", "other", "others", "each", "once", "euros", "euro", "dollars", "pounds", "eur",
        "usd", "gbp", "km", "miles", "kg",
    ];
    word.is_some_and(|w| COUNTED.contains(&w) || unit_word(w))
}

fn unit_word(w: &str) -> bool {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| compile(r"^(?:UNITS)$")).is_match(w)
}

/// Words after which an hour alone is a clock time ("for 8a", not "room 4a").
const CLOCK_BEFORE: &[&str] = &["at", "@", "for", "by", "around", "until", "till", "from", "alarm", "alarms"];

/// Whether the "a" or "p" in a match of an hour and a lone letter ("8:45 a", "at 8 a") says am
/// or pm: right after a clock (an hour and its minutes, or an hour after "at", "for" …), and
/// where an article could not be — at the end of the text, before punctuation, or before a
/// word no noun is ("tomorrow", "on", "every" …): "set an alarm at 8 a day before" keeps its
/// article.
fn lone_half(c: &Captures, text: &str) -> bool {
    const AFTER: &[&str] = &[
        "tomorrow", "today", "tonight", "on", "in", "this", "next", "every", "each", "daily", "please", "and", "then",
        "sharp", "for", "to",
    ];
    let Some(all) = c.get(0) else { return false };
    let clock = c.name("m").is_some() || CLOCK_BEFORE.contains(&word_before(text, all.start()).as_str());
    clock && !dotted(text, all.end()) && word_after(text, all.end()).is_none_or(|w| AFTER.contains(&w.as_str()))
}

/// Whether the letter that ends at `end` is followed by a dot and another letter: "8 a.m." and
/// "6:00p.m" are read whole further on, "5 a.a" is no am.
fn dotted(text: &str, end: usize) -> bool {
    let mut rest = text.get(end..).unwrap_or("").chars();
    rest.next() == Some('.') && rest.next().is_some_and(char::is_alphabetic)
}

/// The time of a match of an hour, its minutes and "a" or "p", with am or pm spelt out.
fn with_half(c: &Captures) -> Option<String> {
    let h = cardinal(c.name("h")?.as_str()).filter(|h| (1..=12).contains(h))?;
    let m = c.name("m").map_or(String::new(), |m| format!(":{}", m.as_str()));
    Some(format!("{h}{m}{}m", c.name("a")?.as_str().to_ascii_lowercase()))
}

/// The hour of the day each meal, and bed, says — one table, the conventions of a reminder:
/// "at lunch" 12:00, "at dinner" 19:00, "at breakfast" 08:00, "at bedtime" 22:00. "Before" a
/// meal or bed is an hour earlier ("before bed" 21:00, "before lunch" 11:00), "after" a meal an
/// hour later ("after lunch" 13:00, "after dinner" 20:00).
const MEALS: &[(&str, u32)] =
    &[("breakfast", 8), ("brekkie", 8), ("lunch", 12), ("dinner", 19), ("supper", 19), ("bed", 22)];

/// Whether `text` names a meal or bed ("a bedtime alarm", "lunch"): the words [`MEALS`] may
/// read as a time of day.
pub fn names_a_meal(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    MEALS.iter().any(|(m, _)| t.contains(m))
}

/// The clock time a meal match says ("at 1pm" for "after lunch"), if it is said as one: after
/// "at", "by", "before", "after" … ("lunch with Sam" is the task); "lunchtime", "dinner time",
/// "bedtime" alone only beside a day, before "alarm" or at the end ("a bedtime story", "my
/// lunchtime playlist", "my bedtime alarm" and "an alarm called bedtime" are none); never
/// before the thing a meal names ("2 hours before my dinner date"). Bed only as "before bed",
/// "before going to bed" or "bedtime".
fn meal_time(c: &Captures, text: &str) -> Option<String> {
    let word = c.name("w")?.as_str().to_ascii_lowercase();
    let hour = MEALS.iter().find(|(m, _)| *m == word)?.1;
    // "before my dinner date", "at the lunch meeting": the meal names a thing.
    const THINGS: &[&str] = &[
        "date",
        "party",
        "meeting",
        "reservation",
        "reservations",
        "plans",
        "guests",
        "event",
        "appointment",
        "table",
    ];
    if word_after(text, c.get(0)?.end()).is_some_and(|w| THINGS.contains(&w.as_str())) {
        return None;
    }
    let timed = c.name("t").is_some();
    let prep = c.name("p").or(c.name("sp")).map(|p| p.as_str().to_ascii_lowercase());
    let before = prep.as_deref() == Some("before");
    if (word == "bed" && !timed && !before) || (c.name("going").is_some() && !(word == "bed" && before)) {
        return None;
    }
    if (prep.is_none() && !(timed && alone_a_time(c, text))) || (prep.as_deref() == Some("for") && !timed) {
        return None;
    }
    let span = match (c.name("n"), c.name("u")) {
        (Some(n), Some(u)) => {
            let n = n.as_str();
            let n = if n.eq_ignore_ascii_case("a") || n.eq_ignore_ascii_case("an") { 1 } else { n.parse().ok()? };
            if u.as_str().starts_with(['h', 'H']) {
                n * 60
            } else {
                n
            }
        }
        _ => 60,
    };
    let minutes = match prep.as_deref() {
        Some("before") => (hour * 60).checked_sub(span)?,
        Some("after") if word != "bed" => hour * 60 + span,
        Some("after") => return None,
        _ => hour * 60,
    };
    let said = prep.as_deref().filter(|p| matches!(*p, "by" | "around" | "until" | "till")).unwrap_or("at");
    twelve_hour(minutes).map(|t| format!("{said} {t}"))
}

/// Whether "lunchtime", "bedtime" … said with no word before it is a time: beside a day
/// ("friday lunchtime", "lunch time tomorrow"), before "alarm" ("a lunch time alarm"), or at the
/// end unless it names something ("an alarm called bed time", "my bedtime").
fn alone_a_time(c: &Captures, text: &str) -> bool {
    const OWNED: &[&str] = &["called", "named", "my", "the", "your", "his", "her", "our", "their"];
    let Some(all) = c.get(0) else { return false };
    let (before, after) = (word_before(text, all.start()), word_after(text, all.end()));
    let day = |w: &str| DAY_WORDS.contains(&w) || matches!(w, "on" | "this" | "next");
    // "add to my tasks: Bedtime" names a task.
    let listed = text[..all.start()].trim_end().ends_with(':');
    match after.as_deref() {
        _ if day(&before) => true,
        Some(w) if day(w) => true,
        Some(w) => w.starts_with("alarm") && !OWNED.contains(&before.as_str()),
        None => !listed && !OWNED.contains(&before.as_str()) && !matches!(before.as_str(), "a" | "an"),
    }
}

/// A minute of the day as a person writes it: "1pm", "6:30pm", "12pm"; `None` past the day.
fn twelve_hour(minutes: u32) -> Option<String> {
    if minutes >= 24 * 60 {
        return None;
    }
    let (h, m) = (minutes / 60, minutes % 60);
    let ap = if h >= 12 { 'p' } else { 'a' };
    let h = if h % 12 == 0 { 12 } else { h % 12 };
    Some(if m == 0 { format!("{h}{ap}m") } else { format!("{h}:{m:02}{ap}m") })
}

/// The hour and minutes a time in words says, checked.
fn clock(h: u32, m: u32) -> Option<String> {
    ((0..=23).contains(&h) && m <= 59).then(|| format!("{h}:{m:02}"))
}

macro_rules! re {
    ($pattern:expr) => {{
        static RE: OnceLock<Regex> = OnceLock::new();
        RE.get_or_init(|| compile($pattern))
    }};
}

/// Meals and bed said as times of day, made clock times ("tuesday after lunch" → "tuesday at
/// 1pm", "2 hours before bedtime" → "at 8pm", "during my lunch break" → "at 12pm") — only where the text says no clock time itself:
/// "during lunch at 1pm" is due at 1pm and "set my bedtime for 10pm" names the bedtime.
fn meals(n: Normalized) -> Normalized {
    if super::time_match(&n.text, None).is_some() {
        return n;
    }
    n.rewrite(
        re!(r"\b(?:(?P<n>\d{1,3}|an?)\s+(?P<u>hours?|hrs?|minutes?|mins?)\s+(?P<sp>before|after)\s+(?:my\s+)?|(?P<p>at|by|around|before|after|during|over|until|till|for)\s+(?:my\s+)?)?(?P<going>going\s+to\s+)?(?P<w>breakfast|brekkie|lunch|dinner|supper|bed)(?P<t>[\s-]*(?:time|hour|break))?\b"),
        meal_time,
    )
}

/// `text` rewritten for reading (see the module doc), with the way back to the original.
pub fn normalize(text: &str) -> Normalized {
    let n = Normalized::identity(text);
    let n = n.replace_at(super::words::corrections(text));

    // Shorthand.
    let n = n.rewrite(
        re!(r"\b(?:tmrw|tmrow|tmr|tmw|tomoz|2moro|2morow|2morrow|2mrw|tmorrow|tommorrow|tomorow|tommorw|tommorow)\b"),
        |_, _| Some("tomorrow".into()),
    );
    // "once a week", "once per day": how often.
    let n = n.rewrite(re!(r"\bonce\s+(?:a|per|each|every)\s+(?P<u>day|week|month|year)\b"), |c, _| {
        Some(format!("every {}", c.name("u")?.as_str()))
    });
    // "watch the Bachelor ever Monday at 8:00pm": "every", a letter short, before what repeats.
    let n = n.rewrite(
        re!(r"\bever\s+(?P<w>(?:mon|tues|wednes|thurs|fri|satur|sun)day|day|week|month|morning|night|evening|afternoon|weekday)\b"),
        |c, _| Some(format!("every {}", c.name("w")?.as_str())),
    );
    let n = n.rewrite(re!(r"\b(?:tonite|tonigh|2nite|2night|tonyt)\b"), |_, _| Some("tonight".into()));
    let n = n.rewrite(re!(r"\b(?P<w>thurs|thur|weds|tues)\b\.?"), |c, _| {
        let w = c.name("w")?.as_str().to_ascii_lowercase();
        Some(
            match w.as_str() {
                "thurs" | "thur" => "thursday",
                "weds" => "wednesday",
                _ => "tuesday",
            }
            .into(),
        )
    });
    // "later this week at 5pm": the week said beside the time is no more than it.
    let n = n.rewrite(re!(r"\blater\s+(?P<w>this\s+week)\b"), |c, _| Some(c.name("w")?.as_str().into()));
    // "on September1,2018": a month and its day typed without a space.
    let n = n.rewrite(re!(r"\b(?P<m>january|february|march|april|june|july|august|september|october|november|december)(?P<d>\d{1,2})(?:,(?P<y>\d{4}))?\b"), |c, _| {
        let year = c.name("y").map_or(String::new(), |y| format!(", {}", y.as_str()));
        Some(format!("{} {}{year}", c.name("m")?.as_str(), c.name("d")?.as_str()))
    });
    // "before Sept. 1st", "by Feb. 3": a month shortened with a full stop.
    let n = n.rewrite(re!(r"\b(?P<m>jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.\s+(?P<d>\d)"), |c, _| {
        Some(format!("{} {}", c.name("m")?.as_str(), c.name("d")?.as_str()))
    });
    // "an alarm for 4 45pm": hours and minutes said apart, before am or pm.
    let n = n.rewrite(re!(r"\b(?P<h>0?[1-9]|1[0-2])\s+(?P<m>[0-5]\d)\s*(?P<ap>[ap]\.?m\b\.?)"), |c, _| {
        Some(format!("{}:{} {}", c.name("h")?.as_str(), c.name("m")?.as_str(), c.name("ap")?.as_str()))
    });
    let n = n.rewrite(re!(r"\barvo\b"), |_, _| Some("afternoon".into()));
    let n = n.rewrite(re!(r"\b(?:eod|cob|close\s+of\s+(?:business|play)|end\s+of\s+business)\b"), |_, _| {
        Some("end of day".into())
    });
    let n = n.rewrite(re!(r"\b(?:twelve|12)\s+(?P<w>noon|midnight)\b"), |c, _| Some(c.name("w")?.as_str().into()));
    // "12 mn", "12 nn": midnight and noon as written where a clock says "12 m.n." and "12 n.n.".
    let n = n.rewrite(re!(r"\b(?:twelve|12)\s*(?P<w>mn|nn)\b"), |c, _| {
        Some(if c.name("w")?.as_str().eq_ignore_ascii_case("mn") { "midnight" } else { "noon" }.into())
    });
    // "six a m", "1a m" as speech-to-text spells it.
    let n = n.rewrite(re!(r"\b(?P<h>CARD|\d{1,2}(?::\d{2})?)\s*(?P<a>[ap])\s+m\b"), |c, _| {
        Some(format!("{} {}m", c.name("h")?.as_str(), c.name("a")?.as_str().to_ascii_lowercase()))
    });
    // "6;30", "5;20 am": a colon typed one key off.
    let n = n.rewrite(re!(r"\b(?P<h>\d{1,2});(?P<m>[0-5]\d)\b"), |c, _| {
        let h: u32 = c.name("h")?.as_str().parse().ok().filter(|h| *h <= 23)?;
        Some(format!("{h}:{}", c.name("m")?.as_str()))
    });
    // "an alarm for 1800": an hour no 12-hour clock has, said after "for" (not "for 1000").
    let n = n.rewrite(
        re!(r"\bfor\s+(?P<h>0\d|1[3-9]|2[0-3])(?P<m>[0-5]\d)(?P<after>\s*[.!?]*\s*$|\s+(?:today|tomorrow|tonight|on|this|next|every|each|daily|and|please)\b|\s*,)"),
        |c, _| Some(format!("at {}:{}{}", c.name("h")?.as_str(), c.name("m")?.as_str(), c.name("after")?.as_str())),
    );
    // "6 hundred hours", "zero six hundred hours", "fourteen hundred hours": a clock of 24
    // hours said on the hour.
    let n = n.rewrite(re!(r"\b(?:(?:oh|zero|0)\s+)?(?P<h>CARD|\d{1,2})\s+hundred\s+(?:hours|hrs)\b"), |c, _| {
        let h = cardinal(c.name("h")?.as_str()).filter(|h| *h <= 23)?;
        Some(format!("{h:02}:00"))
    });
    // "0800 hours", "1430 hrs", "at 0630", "at 1730 tomorrow": a clock of 24 hours, as the
    // forces write it.
    let n = n.rewrite(
        // (Said at the end or before a day: "at 1800 Main Street" is no clock.)
        re!(r"\b(?:(?P<at>at\s+)(?:(?P<h1>[01]\d|2[0-3])(?P<m1>[0-5]\d)\s*(?:hours|hrs|h)|(?P<h0>0\d|1\d|2[0-3])(?P<m0>[0-5]\d)(?P<after>\s*[.!?]*\s*$|\s+(?:today|tomorrow|tonight|on|this|next|every|each|daily|and|please)\b|\s*,))|(?P<h>[01]\d|2[0-3])(?P<m>[0-5]\d)\s*(?:hours|hrs|h))\b"),
        |c, _| {
            let (at, h, m) = match c.name("at") {
                Some(at) => (at.as_str(), c.name("h0").or(c.name("h1"))?, c.name("m0").or(c.name("m1"))?),
                None => ("", c.name("h")?, c.name("m")?),
            };
            let after = c.name("after").map_or("", |a| a.as_str());
            Some(format!("{at}{}:{}{after}", h.as_str(), m.as_str()))
        },
    );
    // "545 am", "730am", "1230pm": the hour and its minutes typed without a colon.
    let n = n.rewrite(re!(r"\b(?P<h>\d{1,2})(?P<m>[0-5]\d)\s*(?P<ap>[ap]\.?m\b\.?)"), |c, _| {
        let h: u32 = c.name("h")?.as_str().parse().ok().filter(|h| (1..=12).contains(h))?;
        Some(format!("{h}:{}{}", c.name("m")?.as_str(), c.name("ap")?.as_str()))
    });

    // Minutes to and past an hour.
    let n = n.rewrite(
        re!(r"\b(?P<q>(?:a\s+)?quarter|half|(?P<n>CARD|\d{1,2})(?:\s+min(?:ute)?s?)?)\s+(?P<dir>past|after|to|till|til|before)\s+(?P<h>CARD|\d{1,2})\b(?:\s*o['’]?\s*clock\b)?"),
        |c, text| {
            let q = c.name("q")?.as_str().to_ascii_lowercase();
            let h = cardinal(c.name("h")?.as_str()).filter(|h| (1..=12).contains(h))?;
            let minutes = if q.ends_with("quarter") {
                15
            } else if q == "half" {
                30
            } else {
                cardinal(c.name("n")?.as_str()).filter(|n| (1..=29).contains(n))?
            };
            let to = !matches!(c.name("dir")?.as_str().to_ascii_lowercase().as_str(), "past" | "after");
            // "15 minutes before 4:30 pm": a span before a clock time, read further on.
            let minutes_follow = re!(r"^(?:[:.]\d{2}|\s+(?:twenty|thirty|forty|fourty|fifty|fifteen|oh|\d{2})\b)");
            if minutes_follow.is_match(&text[c.get(0)?.end()..]) {
                return None;
            }
            if c.name("n").is_some() {
                // "two to three hours", "five past two people": no time.
                let end = c.get(0)?.end();
                if not_a_time(word_after(text, end).as_deref()) || (to && minutes % 5 != 0) {
                    return None;
                }
            }
            if to {
                clock(if h == 1 { 12 } else { h - 1 }, 60 - minutes)
            } else {
                clock(h, minutes)
            }
        },
    );

    // "five o'clock"
    let n = n.rewrite(re!(r"\b(?P<h>CARD|\d{1,2})\s*o['’]?\s*clock\b"), |c, _| {
        clock(cardinal(c.name("h")?.as_str()).filter(|h| (1..=12).contains(h))?, 0)
    });

    // "two thirty pm", "seven fifteen", "seven oh five", "at 9 30".
    let n = n.rewrite(
        re!(r"\b(?P<h>CARD|\d{1,2})[\s-]+(?P<m>oh[\s-]+(?:one|two|three|four|five|six|seven|eight|nine)|CARD|\d{2})\b(?P<ap>\s*[ap]\.?m\b\.?)?"),
        |c, text| {
            let (hw, mw) = (c.name("h")?.as_str(), c.name("m")?.as_str());
            // "sixteen forty five": an hour past noon said as a 24-hour clock, never with am/pm.
            let h = cardinal(hw).filter(|h| (1..=12).contains(h) || ((13..=23).contains(h) && c.name("ap").is_none()))?;
            let m = cardinal(mw).filter(|m| (1..=59).contains(m) || mw.len() == 2)?;
            let digits = hw.starts_with(|c: char| c.is_ascii_digit()) && mw.starts_with(|c: char| c.is_ascii_digit());
            let whole = c.get(0)?;
            let words_mw = !mw.starts_with(|c: char| c.is_ascii_digit());
            if words_mw && m < 10 && !mw.to_ascii_lowercase().starts_with("oh") {
                return None;
            }
            let before = word_before(text, whole.start());
            let after = word_after(text, whole.end());
            let introduced = INTRO.split('|').any(|i| i == before) || DAY_WORDS.contains(&before.as_str());
            let fits = match c.name("ap") {
                Some(_) => true,
                None if digits => introduced && !not_a_time(after.as_deref()),
                // Alone, only a quarter or half hour is taken for a time: "seven fifteen", not
                // "pay him two fifty".
                None => {
                    (introduced && !not_a_time(after.as_deref()))
                        || (after_a_time(after.as_deref())
                            && (matches!(m, 15 | 30 | 45) || mw.to_ascii_lowercase().starts_with("oh")))
                }
            };
            if !fits {
                return None;
            }
            let ap = c.name("ap").map(|a| a.as_str().trim().to_string()).unwrap_or_default();
            Some(format!("{}{}{}", clock(h, m)?, if ap.is_empty() { "" } else { " " }, ap))
        },
    );

    // "8:45a", "alarm for 8a": am or pm said with its first letter only, written on the time.
    let n = n.rewrite(re!(r"\b(?P<h>\d{1,2})(?::(?P<m>[0-5]\d))?(?P<a>[ap])\b"), |c, text| {
        let all = c.get(0)?;
        let before = word_before(text, all.start());
        let clock =
            c.name("m").is_some() || CLOCK_BEFORE.contains(&before.as_str()) || DAY_WORDS.contains(&before.as_str());
        (clock && !dotted(text, all.end())).then(|| with_half(c)).flatten()
    });
    // "eight forty five a", "at 8 a tomorrow": the same letter said apart from the time.
    let n = n.rewrite(re!(r"\b(?P<h>CARD|\d{1,2})(?::(?P<m>[0-5]\d))?\s+(?P<a>[ap])\b"), |c, text| {
        lone_half(c, text).then(|| with_half(c)).flatten()
    });

    // "ten am", "9.30pm", "10 p.m."
    let n = n.rewrite(re!(r"\b(?P<h>CARD)(?P<ap>\s*[ap]\.?m\b\.?)"), |c, _| {
        let h = cardinal(c.name("h")?.as_str()).filter(|h| (1..=12).contains(h))?;
        Some(format!("{h}{}", c.name("ap")?.as_str().trim()))
    });
    let n = n.rewrite(re!(r"\b(?P<h>\d{1,2})\.(?P<m>\d{2})(?P<ap>\s*[ap]\.?m\b\.?)"), |c, _| {
        Some(format!("{}:{} {}", c.name("h")?.as_str(), c.name("m")?.as_str(), c.name("ap")?.as_str()))
    });

    // "an alarm for 8 tomorrow morning", "at seven this evening": the hour before its day and
    // part of the day, said after them.
    let n = n.rewrite(
        re!(r"\b(?:(?P<at>for|at)\s+)?(?P<h>CARD|\d{1,2})(?:[:.](?P<m>\d{2}))?\s+(?:(?P<day>tomorrow|today|this)\s+(?P<part>morning|afternoon|evening|night)|(?P<tonight>tonight))\b"),
        |c, _| {
            let h_text = c.name("h")?.as_str();
            let h = cardinal(h_text).or_else(|| h_text.parse().ok()).filter(|h| (1..=12).contains(h))?;
            let m = c.name("m").map_or(String::new(), |m| format!(":{}", m.as_str()));
            // "for five tonight": tonight at 5pm (after midnight from 12 to 4, as "tonight at 1").
            if let Some(tonight) = c.name("tonight") {
                let at = c.name("at").map_or(String::new(), |a| format!("{} ", a.as_str()));
                let ap = if h == 12 || h < 5 { "am" } else { "pm" };
                return (ap == "pm").then(|| format!("{at}{h}{m}{ap} {}", tonight.as_str()));
            }
            let part = c.name("part")?.as_str();
            let ap = if part.eq_ignore_ascii_case("morning") || (part.eq_ignore_ascii_case("night") && (h == 12 || h < 5)) { "am" } else { "pm" };
            let at = c.name("at").map_or(String::new(), |a| format!("{} ", a.as_str()));
            Some(format!("{} {part} {at}{h}{m}{ap}", c.name("day")?.as_str()))
        },
    );

    // "six in the morning", "7.30 in the evening", "ten at night": the hour with its half of
    // the day.
    let n = n.rewrite(
        re!(r"\b(?P<h>CARD|\d{1,2})(?:[:.](?P<m>\d{2}))?\s+(?:(?:in\s+the\s+)?(?P<am>morning)|(?:in\s+the\s+)?(?P<pm>afternoon|evening)|at\s+(?P<night>night))\b"),
        |c, _| {
            let h_text = c.name("h")?.as_str();
            let h = cardinal(h_text).or_else(|| h_text.parse().ok()).filter(|h| (1..=12).contains(h))?;
            let m = c.name("m").map_or(String::new(), |m| format!(":{}", m.as_str()));
            let ap = if c.name("am").is_some() || (c.name("night").is_some() && (h == 12 || h < 5)) { "am" } else { "pm" };
            Some(format!("{h}{m}{ap}"))
        },
    );

    // "evening 5", "afternoon 3:45", "morning seven": the half of the day before the hour.
    let n = n.rewrite(
        re!(r"\b(?P<part>morning|afternoon|evening|night)\s+(?P<h>CARD|\d{1,2})(?:[:.](?P<m>\d{2}))?\b"),
        |c, text| {
            let whole = c.get(0)?;
            // "morning 7:30am" is read by the rules for a time with am/pm.
            let mut after = text[whole.end()..].chars();
            let next = after.next();
            // "evening 5." ends a sentence; "evening 5.30" is read whole.
            let decimal =
                next == Some('.') && c.name("m").is_none() && after.next().is_some_and(|d| d.is_ascii_digit());
            if next.is_some_and(|n| n == ':' || n.is_alphanumeric()) || decimal {
                return None;
            }
            // "every morning 7": the repeat keeps its part of the day.
            if not_a_time(word_after(text, whole.end()).as_deref())
                || matches!(word_before(text, whole.start()).as_str(), "every" | "each")
            {
                return None;
            }
            let h_text = c.name("h")?.as_str();
            let h = cardinal(h_text).filter(|h| (1..=12).contains(h))?;
            let m = c.name("m").map_or(String::new(), |m| format!(":{}", m.as_str()));
            let part = c.name("part")?.as_str().to_ascii_lowercase();
            let ap = if part == "morning" || (part == "night" && (h == 12 || h < 5)) { "am" } else { "pm" };
            Some(format!("{h}{m}{ap}"))
        },
    );

    // "alarm 8.30", "wake me up 6.45": a time with a dot where only a time can be.
    let n = n.rewrite(re!(r"\b(?P<h>\d{1,2})\.(?P<m>[0-5]\d)\b"), |c, text| {
        let whole = c.get(0)?;
        let waking = re!(r"\b(?:alarms?|wake\s+(?:me\s+)?up|wake\s+me|wake-?up\s+call|wakeup)\s+(?:for\s+)?$");
        if !waking.is_match(&text[..whole.start()]) || not_a_time(word_after(text, whole.end()).as_deref()) {
            return None;
        }
        clock(c.name("h")?.as_str().parse().ok()?, c.name("m")?.as_str().parse().ok()?)
    });

    // "at five", "at 9.30", "at 3p".
    let n = n.rewrite(
        re!(r"(?P<i>\b(?:at|around|by|till|until|before|from|after|about)\b|@)\s*(?P<h>CARD|\d{1,2})(?:(?P<sep>[.:])(?P<m>\d{2}))?(?P<ap>[ap])?\b"),
        |c, text| {
            let whole = c.get(0)?;
            let hw = c.name("h")?.as_str();
            let words = !hw.starts_with(|c: char| c.is_ascii_digit());
            let dot = c.name("sep").is_some_and(|s| s.as_str() == ".");
            let ap = c.name("ap").map(|a| a.as_str().to_ascii_lowercase());
            if !words && !dot && ap.is_none() {
                return None;
            }
            // ("at 11a.m.": am spelt with dots is read whole further on.)
            if ap.is_some() && dotted(text, whole.end()) {
                return None;
            }
            if not_a_time(word_after(text, whole.end()).as_deref()) {
                return None;
            }
            // "by 9.5 points", "at 3.50 euros": a dot with something counted after it is no time.
            let h = cardinal(hw).filter(|h| (0..=23).contains(h))?;
            if words && !(1..=12).contains(&h) {
                return None;
            }
            let m: u32 = c.name("m").map_or(Some(0), |m| m.as_str().parse().ok())?;
            let time = if c.name("m").is_some() { clock(h, m)? } else { h.to_string() };
            Some(format!("{} {time}{}", c.name("i")?.as_str(), ap.map(|a| format!("{a}m")).unwrap_or_default()))
        },
    );

    // Spans: "twenty minutes", "a couple of hours", "an hour and a half".
    let n = n.rewrite(re!(r"\b(?:an|one|1)\s+hour\s+and\s+a\s+half\b"), |_, _| Some("90 minutes".into()));
    let n = n.rewrite(re!(r"\b(?:a|one|1)\s+fortnight\b"), |_, _| Some("2 weeks".into()));
    // "in a half hour", "for half an hour", "a quarter of an hour": in minutes.
    let n = n.rewrite(re!(r"\b(?:an?\s+|one\s+)?(?:half[\s-]+(?:an?\s+)?hour|half-hour)\b"), |_, _| {
        Some("30 minutes".into())
    });
    let n = n.rewrite(re!(r"\b(?:an?\s+|one\s+)?quarter(?:\s+of)?(?:\s+an?)?[\s-]+hour\b"), |_, _| {
        Some("15 minutes".into())
    });
    // "17h00", "at 7h30", "4h00": the European way of writing a clock time, of 24 hours ("4h00"
    // is four in the morning); "835h": the hour and its minutes with the hours' "h" after.
    let n = n.rewrite(re!(r"\b(?:(?P<h>\d{1,2})h(?P<m>\d{2})|(?P<h2>\d)(?P<m2>[0-5]\d)\s*h)\b"), |c, _| {
        let h: u32 = c.name("h").or(c.name("h2"))?.as_str().parse().ok().filter(|h| *h <= 23)?;
        let m: u32 = c.name("m").or(c.name("m2"))?.as_str().parse().ok().filter(|m| *m <= 59)?;
        Some(format!("{h:02}:{m:02}"))
    });
    // "on nineteenth of every month": the day of a month, said without "the".
    let n = n.rewrite(re!(r"\b(?P<p>on|by)\s+(?P<d>ORD)\s+of\b"), |c, _| {
        Some(format!("{} {} of", c.name("p")?.as_str(), suffixed(ordinal(c.name("d")?.as_str())?)))
    });
    // "the fifteenth may": the day before its month.
    let n = n.rewrite(re!(r"\bthe\s+(?P<d>ORD)\s+(?P<mo>MONTHS)\b"), |c, _| {
        Some(format!("{} of {}", suffixed(ordinal(c.name("d")?.as_str())?), c.name("mo")?.as_str()))
    });
    // "on fourteenth july", "by third march": the day before its month without "the" or "of",
    // after a word that puts a date ("our fifth march" is none); "may" only where a date ends.
    let n = n.rewrite(
        re!(r"(?:\b(?P<p>on|by|until|till|before|from|for|after)\s+|^\s*)(?P<d>ORD)\s+(?P<mo>MONTHS)\b"),
        |c, text| {
            let mo = c.name("mo")?.as_str();
            if mo.eq_ignore_ascii_case("may") && !after_a_day(word_after(text, c.get(0)?.end()).as_deref()) {
                return None;
            }
            let p = c.name("p").map_or(String::new(), |p| format!("{} ", p.as_str()));
            Some(format!("{p}{} of {mo}", suffixed(ordinal(c.name("d")?.as_str())?)))
        },
    );
    // "in seventy min", "ninety minutes": tens past the clock's, for spans only.
    let n = n.rewrite(
        re!(r"\b(?P<t>sixty|seventy|eighty|ninety)(?:[\s-]+(?P<u>one|two|three|four|five|six|seven|eight|nine))?\s+(?P<unit>UNITS)\b"),
        |c, _| {
            let tens = 10 * (6 + ["sixty", "seventy", "eighty", "ninety"].iter().position(|t| c.name("t").is_some_and(|m| m.as_str().eq_ignore_ascii_case(t)))?);
            let units = c.name("u").map_or(Some(0), |u| cardinal(u.as_str()).and_then(|u| usize::try_from(u).ok()))?;
            Some(format!("{} {}", tens + units, c.name("unit")?.as_str()))
        },
    );
    // "in 5min", "for 2hrs": the number and its unit written together.
    let n = n.rewrite(re!(r"\b(?P<n>\d{1,4})(?P<u>mins?|minutes?|hrs?|hours?|secs?|seconds?)\b"), |c, _| {
        Some(format!("{} {}", c.name("n")?.as_str(), c.name("u")?.as_str()))
    });
    let n = n.rewrite(re!(r"\b(?P<n>CARD|(?:a\s+)?couple(?:\s+of)?)\s+(?P<u>UNITS)\b"), |c, _| {
        let w = c.name("n")?.as_str();
        let n = if w.to_ascii_lowercase().contains("couple") { 2 } else { cardinal(w)? };
        Some(format!("{n} {}", c.name("u")?.as_str()))
    });

    // One span said in two units: "one hour and ten minutes", "2 hrs 30 mins", "two and a half
    // hours", "3 hours and a half" — read as minutes.
    let n = n.rewrite(
        re!(r"\b(?P<h>\d{1,2})\s+(?:hours?|hrs?)\s*(?:,\s*|and\s+)?(?P<m>\d{1,2})\s+(?:minutes?|mins?)\b"),
        |c, _| {
            let (h, m) = (cardinal(c.name("h")?.as_str())?, cardinal(c.name("m")?.as_str())?);
            (m < 60).then(|| format!("{} minutes", h * 60 + m))
        },
    );
    let n = n.rewrite(
        re!(r"\b(?P<h>CARD|\d{1,2})\s+(?:and\s+a\s+half\s+(?:hours?|hrs?)|(?:hours?|hrs?)\s+and\s+a\s+half)\b"),
        |c, _| Some(format!("{} minutes", cardinal(c.name("h")?.as_str())? * 60 + 30)),
    );
    // "one and a half minute timer", "a timer for 1 minute and 30 seconds": in seconds.
    let n = n.rewrite(
        re!(r"\b(?P<m>CARD|\d{1,2})\s+(?:and\s+a\s+half\s+(?:minutes?|mins?)|(?:minutes?|mins?)\s+and\s+a\s+half)\b"),
        |c, _| Some(format!("{} seconds", cardinal(c.name("m")?.as_str())? * 60 + 30)),
    );
    let n = n.rewrite(
        re!(r"\b(?P<m>\d{1,3})\s+(?:minutes?|mins?)\s*(?:,\s*|and\s+)?(?P<s>\d{1,2})\s+(?:seconds?|secs?)\b"),
        |c, _| {
            let (m, s) = (cardinal(c.name("m")?.as_str())?, cardinal(c.name("s")?.as_str())?);
            (s < 60).then(|| format!("{} seconds", m * 60 + s))
        },
    );

    // "july the 1st": a month and its day with "the" between.
    let n = n.rewrite(re!(r"\b(?P<mo>MONTHS)\.?\s+the\s+(?P<d>\d{1,2})(?:st|nd|rd|th)\b"), |c, _| {
        let d: u8 = c.name("d")?.as_str().parse().ok()?;
        let mo = c.name("mo")?.as_str();
        (1..=31).contains(&d).then(|| format!("{mo} {d}"))
    });
    // "monday the sixth", "on thursday eighth": after its weekday an ordinal is the day of the
    // month, whatever follows ("remind me on monday the sixth to …" reaches the parser as "…
    // the sixth pick up"); read as "thursday the 8th", which is checked against the weekday.
    let n = n
        .rewrite(re!(r"\b(?P<wd>(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s+(?:the\s+)?(?P<d>ORD)\b"), |c, _| {
            Some(format!("{} the {}", c.name("wd")?.as_str(), suffixed(ordinal(c.name("d")?.as_str())?)))
        });
    // Days of the month: "february fourth", "feb four", "the thirteenth", "fourth of march".
    let n = n.rewrite(re!(r"\b(?P<mo>MONTHS)\.?\s+(?:the\s+)?(?P<d>ORD|CARD)\b"), |c, text| {
        let mo = c.name("mo")?.as_str();
        let dw = c.name("d")?.as_str();
        let d = match ordinal(dw) {
            Some(d) => suffixed(d),
            // "may four people come": "may" is a month only before an ordinal.
            None if mo.eq_ignore_ascii_case("may") => return None,
            None => cardinal(dw).filter(|d| (1..=31).contains(d))?.to_string(),
        };
        if !after_a_day(word_after(text, c.get(0)?.end()).as_deref()) && ordinal(dw).is_none() {
            return None;
        }
        Some(format!("{mo} {d}"))
    });
    let n = n.rewrite(re!(r"\b(?P<d>ORD)\s+of\s+(?P<mo>MONTHS)\b"), |c, _| {
        Some(format!("{} of {}", suffixed(ordinal(c.name("d")?.as_str())?), c.name("mo")?.as_str()))
    });
    let n = n.rewrite(re!(r"\bthe\s+(?P<d>ORD)\b"), |c, text| {
        after_a_day(word_after(text, c.get(0)?.end()).as_deref())
            .then(|| Some(format!("the {}", suffixed(ordinal(c.name("d")?.as_str())?))))
            .flatten()
    });
    // "dinner with alice on 7th", "pay rent on 21st": the day of the month said without "the".
    let n = n.rewrite(re!(r"\bon\s+(?P<d>\d{1,2})(?P<suf>st|nd|rd|th)\b"), |c, text| {
        // ("on 14th of july" is read whole as it is.)
        if word_after(text, c.get(0)?.end()).as_deref() == Some("of") {
            return None;
        }
        let d: u8 = c.name("d")?.as_str().parse().ok()?;
        let suf = c.name("suf")?.as_str().to_ascii_lowercase();
        (1..=31).contains(&d).then(|| format!("on the {d}{suf}"))
    });
    // "2 hours from now", "after 30 minutes": a span from now.
    let n = n.rewrite(
        re!(r"\b(?:(?:for|at|in)\s+)?(?P<n>CARD|\d{1,3}|an?)\s+(?P<u>hours?|hrs?|minutes?|mins?)\s+from\s+now\b"),
        |c, text| {
            // "every 12 hours from now" repeats from now: not one time.
            let before = text[..c.get(0)?.start()].trim_end().to_ascii_lowercase();
            if before.ends_with("every") || before.ends_with("each") {
                return None;
            }
            Some(format!("in {} {}", c.name("n")?.as_str(), c.name("u")?.as_str()))
        },
    );
    let n = n.rewrite(re!(r"\bafter\s+(?P<n>CARD|\d{1,3}|an?)\s+(?P<u>hours?|hrs?|minutes?|mins?)\b"), |c, _| {
        Some(format!("in {} {}", c.name("n")?.as_str(), c.name("u")?.as_str()))
    });
    // "one hour before 3pm", "15 minutes before 4:30 pm", "10 minutes after 6pm": the time
    // that much earlier or later.
    let n = n.rewrite(
        re!(r"\b(?:at\s+)?(?P<n>CARD|\d{1,3}|an?)\s+(?P<u>hours?|hrs?|minutes?|mins?)\s+(?P<dir>before|after|prior\s+to)\s+(?:(?P<h>\d{1,2})(?::(?P<m>\d{2}))?(?:\s*(?P<ap>[ap])\.?m\b\.?|\b)|(?P<word>noon|midday|midnight)\b)"),
        offset_clock,
    );
    // "45 days from today", "two weeks from now": as "in 45 days".
    let n = n.rewrite(
        re!(r"\b(?P<every>(?:every|each)\s+)?(?:for\s+)?(?P<n>CARD|\d{1,3})\s+(?P<u>days?|weeks?|months?|hours?|minutes?)\s+from\s+(?:today|now)\b"),
        // ("every twelve hours from now" is a repeat, left as said.)
        |c, _| match c.name("every") {
            Some(_) => None,
            None => Some(format!("in {} {}", c.name("n")?.as_str(), c.name("u")?.as_str())),
        },
    );
    meals(n)
}

/// A stretch of a day said by its two ends ("from 10 am until 2 pm", "from 2-5 pm", "9:00 am
/// till 5:00 pm") read as its start ("at 10 am", "at 2 pm"): a task is due when it starts. An
/// end said with am/pm lends it to a start said without ("from 2 to 5 pm"), unless the start
/// would then come after it ("from 11 to 1 pm": 11 am). For one time only — a repeat's window
/// ("every hour from 9am to 5pm") is [`super::every`]'s.
pub(super) fn ranges(n: Normalized) -> Normalized {
    n.rewrite(
        re!(r"\b(?:(?:from|between|at)\s+)?(?P<a>\d{1,2})(?:[:\s](?P<am>\d{2}))?\s*(?P<ap>[ap](?:\.?\s?m)?\b\.?)?\s*(?P<sep>until|till|til|to|through|thru|and|-|–)\s*(?P<b>\d{1,2})(?:[:\s]\d{2})?\s*(?P<bp>[ap](?:\.?\s?m)?\b\.?)?"),
        |c, text| {
            let said_from = c.get(0)?.as_str().trim_start().to_ascii_lowercase();
            // "at 5:30 to 6:30 pm" is a stretch as "from" says one; "at 8 and 6 pm" two times.
            let said_at = said_from.starts_with("at ");
            // ("at 5 to 6" may be five to six: a stretch only with its minutes or half of the day.)
            if said_at && c.name("am").is_none() && c.name("ap").is_none() && c.name("bp").is_none() {
                return None;
            }
            let said_from = if said_at && !said_from.contains(" and") { format!("from{}", &said_from[2..]) } else { said_from };
            // ("6 p to 9 p": a half of the day said by its letter, on both ends only.)
            let letter = |m: Option<regex::Match>| m.is_some_and(|m| !m.as_str().to_ascii_lowercase().contains('m'));
            if (letter(c.name("ap")) || letter(c.name("bp"))) && !(c.name("ap").is_some() && c.name("bp").is_some()) {
                return None;
            }
            // Two bare numbers with no "from" and no am/pm ("2 and 3") are no stretch of time.
            let (ap, bp) = (c.name("ap").map(|m| m.as_str()), c.name("bp").map(|m| m.as_str()));
            if !(said_from.starts_with("from") || said_from.starts_with("between")) && ap.is_none() && bp.is_none() {
                return None;
            }
            if !(said_from.starts_with("from") || said_from.starts_with("between")) && ap.is_none() {
                return None;
            }
            // "at 8 am and 6 pm" is two times; "between 8 and 10 am" one stretch.
            if c.name("sep").is_some_and(|m| m.as_str().eq_ignore_ascii_case("and")) && !said_from.starts_with("between") {
                return None;
            }
            let before = text[..c.get(0)?.start()].to_ascii_lowercase();
            if before.contains("every") || before.contains("hourly") || before.contains("each") {
                return None;
            }
            let (a, b): (u32, u32) = (c.name("a")?.as_str().parse().ok()?, c.name("b")?.as_str().parse().ok()?);
            if a > 23 || b > 23 {
                return None;
            }
            let minutes = c.name("am").map_or(String::new(), |m| format!(":{}", m.as_str()));
            let pm = |s: &str| if s.to_ascii_lowercase().starts_with('p') { "pm" } else { "am" };
            let half = match (ap, bp) {
                (Some(ap), _) => format!(" {}", pm(ap)),
                (None, Some(bp)) if a <= 12 && b <= 12 && (a <= b || b == 12) && a != 12 => format!(" {}", pm(bp)),
                (None, Some(_)) if a <= 12 => " am".to_string(),
                _ => String::new(),
            };
            Some(format!("at {a}{minutes}{half}"))
        },
    )
}

/// The clock time a match of a span before or after a clock time says ("at 4:15pm" for "15
/// minutes before 4:30 pm"). A time said with am/pm, as noon or midnight, or on the 24-hour
/// clock keeps its half of the day and must stay within the day; an hour said alone ("20
/// minutes before 7:30") stays as open as it was ("at 7:10", morning or evening).
fn offset_clock(c: &Captures, text: &str) -> Option<String> {
    let n = c.name("n")?.as_str();
    let n = if n.eq_ignore_ascii_case("a") || n.eq_ignore_ascii_case("an") { 1 } else { cardinal(n)? };
    let span = if c.name("u")?.as_str().to_ascii_lowercase().starts_with('h') { n.checked_mul(60)? } else { n };
    if !(1..24 * 60).contains(&span) {
        return None;
    }
    let later = c.name("dir")?.as_str().eq_ignore_ascii_case("after");
    let (anchor, fixed) = anchor_minutes(c, text, later)?;
    let span = i64::from(span);
    let at = if later { anchor + span } else { anchor - span };
    if !fixed {
        let at = at.rem_euclid(12 * 60);
        let h = if at < 60 { 12 } else { at / 60 };
        return Some(format!("at {h}:{:02}", at % 60));
    }
    if !(0..24 * 60).contains(&at) {
        return None;
    }
    let (h, ap) = (at / 60, if at < 12 * 60 { 'a' } else { 'p' });
    Some(format!("at {}:{:02}{ap}m", if h % 12 == 0 { 12 } else { h % 12 }, at % 60))
}

/// The minute of the day the clock time of an [`offset_clock`] match says, and whether it is
/// fixed (see there); midnight is the day's end when something is before it.
fn anchor_minutes(c: &Captures, text: &str, later: bool) -> Option<(i64, bool)> {
    if let Some(w) = c.name("word") {
        let midnight = w.as_str().eq_ignore_ascii_case("midnight");
        return Some((
            if !midnight {
                12 * 60
            } else if later {
                0
            } else {
                24 * 60
            },
            true,
        ));
    }
    let h_text = c.name("h")?.as_str();
    let h: i64 = h_text.parse().ok()?;
    let m: i64 = c.name("m").map_or(Some(0), |m| m.as_str().parse().ok().filter(|m| *m < 60))?;
    if let Some(ap) = c.name("ap") {
        let pm = ap.as_str().eq_ignore_ascii_case("p");
        return (1..=12).contains(&h).then_some(((h % 12 + if pm { 12 } else { 0 }) * 60 + m, true));
    }
    // "an hour before 5 people come": no time.
    if h > 23 || (c.name("m").is_none() && not_a_time(word_after(text, c.get(0)?.end()).as_deref())) {
        return None;
    }
    Some((h * 60 + m, h == 0 || h > 12 || h_text.starts_with('0')))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(text: &str) -> String {
        normalize(text).text
    }

    #[test]
    fn number_words_become_digits_where_they_say_a_time() {
        for (said, read) in [
            ("ten am", "10am"),
            ("two thirty pm", "2:30 pm"),
            ("call mom at seven fifteen", "call mom at 7:15"),
            ("half past six", "6:30"),
            ("quarter to nine", "8:45"),
            ("a quarter past five", "5:15"),
            ("twenty to six", "5:40"),
            ("five o'clock", "5:00"),
            ("at twelve thirty", "at 12:30"),
            ("in twenty minutes", "in 20 minutes"),
            ("in twenty five minutes", "in 25 minutes"),
            ("in a couple of hours", "in 2 hours"),
            ("in an hour and a half", "in 90 minutes"),
            ("in a fortnight", "in 2 weeks"),
            ("in two days", "in 2 days"),
            ("the thirteenth", "the 13th"),
            ("on the twenty first at noon", "on the 21st at noon"),
            ("feb four", "feb 4"),
            ("february fourth", "february 4th"),
            ("fourth of march", "4th of march"),
            ("monday the twentieth", "monday the 20th"),
            ("seven oh five am", "7:05 am"),
            ("at 9.30", "at 9:30"),
            ("9 30 pm", "9:30 pm"),
            ("at 3p", "at 3pm"),
            ("tmrw at ten", "tomorrow at 10"),
            ("2moro", "tomorrow"),
            ("tonite", "tonight"),
            ("by thurs", "by thursday"),
            ("this arvo", "this afternoon"),
            ("by cob", "by end of day"),
            ("set weekly alarm for six a m", "set weekly alarm for 6am"),
            ("set alarm for 545 am", "set alarm for 5:45am"),
            ("tomorrow morning 730am", "tomorrow morning 7:30am"),
            ("an alarm for sixteen forty five", "an alarm for 16:45"),
            ("for seventeen fifteen", "for 17:15"),
            ("for evening 5", "for 5pm"),
            ("an alarm for evening 5.", "an alarm for 5pm."),
            ("for afternoon three forty five", "for 3:45pm"),
            ("for evening four forty five", "for 4:45pm"),
            ("on fourteenth july", "on 14th of july"),
            ("third march at 5", "3rd of march at 5"),
            ("15 minutes before 4:30 pm", "at 4:15pm"),
            ("remind me an hour after noon", "remind me at 1:00pm"),
            ("20 minutes before 7:30", "at 7:10"),
            ("8:45a", "8:45am"),
            ("alarm for 8a", "alarm for 8am"),
            ("1a m", "1 am"),
            ("eight forty five a", "8:45am"),
            ("at eight a tomorrow", "at 8am tomorrow"),
            ("at 8 a.m.", "at 8 a.m."),
            ("at 11a.m.", "at 11a.m."),
            ("twelve mn", "midnight"),
            ("alarm 8.30", "alarm 8:30"),
        ] {
            assert_eq!(norm(said), read, "{said}");
        }
    }

    #[test]
    fn number_words_that_say_no_time_stay() {
        for said in [
            "call one client",
            "buy two twenty packs of paper",
            "at one point call the bank",
            "the first draft",
            "may four people come",
            "two to three people",
            "pay 9.30 euros",
            "pay it by 9.30 euros",
            "read chapter ten",
            "pay 1230 dollars",
            "the evening 5 people came",
            "our fifth march on the capital",
            "on fifth may I come",
            "an hour before 5 people come",
            "set an alarm at 8 a day before",
            "meet in room 4a",
            "buy a coffee for 2.50",
            "wake me up 6.45 euros",
        ] {
            assert_eq!(norm(said), said);
        }
    }

    #[test]
    fn the_way_back_is_kept() {
        let n = normalize("call Sam tmrw at half past six please");
        assert_eq!(n.text, "call Sam tomorrow at 6:30 please");
        let at = n.text.find("6:30").unwrap();
        assert_eq!(&"call Sam tmrw at half past six please"[n.original(at..at + 4)], "half past six");
        let t = n.text.find("tomorrow").unwrap();
        assert_eq!(n.original(t..t + 8), 9..13);
        assert_eq!(n.original(0..4), 0..4);
        assert_eq!(n.original(100..200), 37..37);
    }
}
