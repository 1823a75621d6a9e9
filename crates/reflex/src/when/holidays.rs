//! Holidays said as days: "on Christmas", "christmas eve", "new year's day", "halloween",
//! "valentine's day", "thanksgiving", "labor day", "easter" … A holiday is read like a
//! weekday: its next date at or after today (today's when it is today, so "thanksgiving" said
//! on Thanksgiving afternoon is past and asked, never a year on), at the hour a bare day gets.
//!
//! The dates are the US ones where countries differ (Thanksgiving the 4th Thursday of November,
//! Labor Day the 1st Monday of September, Memorial Day the last Monday of May, Mother's Day the
//! 2nd Sunday of May, Father's Day the 3rd Sunday of June); Easter is computed (the anonymous
//! Gregorian algorithm), Good Friday and Easter Monday from it. "Labor day weekend" is the
//! Saturday before a holiday on a Monday or a Sunday, as "this weekend" is Saturday; a weekend
//! of any other holiday is asked about. "The fourth of July" stays a date (see
//! [`super::calendar_date`]); "independence day" is the holiday.

use std::sync::OnceLock;

use jiff::civil::{Date, Weekday};
use jiff::ToSpan;
use regex::{Captures, Regex};

use super::{compile, ends_a_phrase, WhenError};

/// The holidays' names as said, for the day pattern: the longer names first ("christmas eve"
/// before "christmas", "easter monday" before "easter"); apostrophes optional ("new years
/// eve", "valentines day").
pub(super) const PATTERN: &str = r"(?:christmas|xmas|x-mas)(?:\s+eve|\s+day)?
    | new\s+year(?:['’]?s|s['’])(?:\s+eve|\s+day)? | new\s+year\s+(?:eve|day)
    | hallowe['’]?en
    | (?:st\.?\s+|saint\s+)?valentine(?:['’]?s|s['’])(?:\s+day)? | (?:st\.?\s+|saint\s+)?valentine\s+day
    | independence\s+day
    | thanksgiving(?:\s+day)?
    | labou?r\s+day
    | memorial\s+day
    | (?:mother|father)(?:['’]?s|s['’])?\s+day
    | easter(?:\s+sunday|\s+monday|\s+day)? | good\s+friday
    | boxing\s+day
    | (?:st\.?\s+|saint\s+)?(?:patrick|paddy)(?:['’]?s|s['’])\s+day";

/// Whether a day match that names a holiday says the day: after "on", "by", "before", "until"
/// … ("on christmas eve dinner" too), or where a day phrase ends ("christmas eve at 8", "set a
/// reminder for christmas") — not as the name of a thing ("a christmas tree", "for christmas
/// shopping", "merry christmas", "mom's christmas"), nor as a stretch ("christmas week").
pub(super) fn said_as_a_day(c: &Captures, text: &str) -> bool {
    let Some(all) = c.get(0) else { return false };
    let after = text[all.end()..].trim_start().to_ascii_lowercase();
    let stretch = ["week", "season", "break", "holiday", "vacation"].iter().any(|w| {
        after.strip_prefix(w).is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_alphanumeric() && c != 's'))
    });
    if stretch {
        return false;
    }
    let prep = c.name("prep").map(|p| p.as_str().to_ascii_lowercase());
    if c.name("hrel").is_some() || prep.as_deref().is_some_and(|p| !matches!(p, "for" | "to")) {
        return true;
    }
    let before = text[..all.start()].trim_end().to_ascii_lowercase();
    let word_before =
        before.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '\'' || c == '’')).next().unwrap_or("");
    const NAMING: &[&str] =
        &["merry", "happy", "a", "an", "the", "my", "our", "your", "his", "her", "their", "called", "named"];
    let named = prep.is_none()
        && c.name("hat").is_none()
        && (NAMING.contains(&word_before) || word_before.ends_with("'s") || word_before.ends_with("’s"));
    !named && (c.name("part").is_some() || ends_a_phrase(&text[all.end()..]))
}

/// A holiday said so that it is no one day: "every christmas" (a repeat the schedule cannot
/// keep), "the week of christmas", "the day before valentine's day" (said from it).
pub(super) fn check(text: &str) -> Result<(), WhenError> {
    static RE: OnceLock<(Regex, Regex)> = OnceLock::new();
    let (yearly, around) = RE.get_or_init(|| {
        (
            compile("yearly", r"(?ix)\b(?:every|each)\s+(?:HOLIDAYS)\b"),
            compile(
                "around a holiday",
                r"(?ix)\bthe\s+(?:day|night|week|weekend)\s+(?:before|after|of)\s+(?:HOLIDAYS)\b",
            ),
        )
    });
    if let Some(m) = yearly.find(text) {
        return Err(WhenError::unreadable(m.as_str(), "I can't repeat a holiday every year — which one?"));
    }
    if let Some(m) = around.find(text) {
        return Err(WhenError::unreadable(m.as_str(), "it is said from another day, or over several — which day?"));
    }
    Ok(())
}

/// A holiday this module knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holiday {
    Christmas,
    ChristmasEve,
    BoxingDay,
    NewYearsDay,
    NewYearsEve,
    Halloween,
    Valentines,
    StPatricks,
    Independence,
    Thanksgiving,
    Labor,
    Memorial,
    Mothers,
    Fathers,
    Easter,
    EasterMonday,
    GoodFriday,
}

/// The holiday a name matched by [`PATTERN`] says.
fn which(said: &str) -> Option<Holiday> {
    let words: String = said.to_ascii_lowercase().chars().filter(|c| !matches!(c, '\'' | '’' | '.' | '-')).collect();
    let words: Vec<&str> = words.split_whitespace().collect();
    let words = match words.as_slice() {
        ["st" | "saint", rest @ ..] => rest,
        all => all,
    };
    let key = match words {
        [rest @ .., "day"] if !rest.is_empty() => rest,
        all => all,
    };
    use Holiday::*;
    Some(match key {
        ["christmas" | "xmas"] => Christmas,
        ["christmas" | "xmas", "eve"] => ChristmasEve,
        ["boxing"] => BoxingDay,
        ["new", "years" | "year"] => NewYearsDay,
        ["new", "years" | "year", "eve"] => NewYearsEve,
        ["halloween"] => Halloween,
        ["valentines" | "valentine"] => Valentines,
        ["patricks" | "paddys"] => StPatricks,
        ["independence"] => Independence,
        ["thanksgiving"] => Thanksgiving,
        ["labor" | "labour"] => Labor,
        ["memorial"] => Memorial,
        ["mothers" | "mother"] => Mothers,
        ["fathers" | "father"] => Fathers,
        ["easter"] | ["easter", "sunday"] => Easter,
        ["easter", "monday"] => EasterMonday,
        ["good", "friday"] => GoodFriday,
        _ => return None,
    })
}

/// `holiday`'s date in `year`.
fn date_in(holiday: Holiday, year: i16) -> Option<Date> {
    use Holiday::*;
    let fixed = |month: i8, day: i8| Date::new(year, month, day).ok();
    let nth = |month: i8, n: i8, day: Weekday| Date::new(year, month, 1).ok()?.nth_weekday_of_month(n, day).ok();
    let from_easter = |days: i64| easter(year)?.checked_add(days.days()).ok();
    match holiday {
        Christmas => fixed(12, 25),
        ChristmasEve => fixed(12, 24),
        BoxingDay => fixed(12, 26),
        NewYearsDay => fixed(1, 1),
        NewYearsEve => fixed(12, 31),
        Halloween => fixed(10, 31),
        Valentines => fixed(2, 14),
        StPatricks => fixed(3, 17),
        Independence => fixed(7, 4),
        Thanksgiving => nth(11, 4, Weekday::Thursday),
        Labor => nth(9, 1, Weekday::Monday),
        Memorial => nth(5, -1, Weekday::Monday),
        Mothers => nth(5, 2, Weekday::Sunday),
        Fathers => nth(6, 3, Weekday::Sunday),
        Easter => easter(year),
        EasterMonday => from_easter(1),
        GoodFriday => from_easter(-2),
    }
}

/// Easter Sunday of `year` (Gregorian), by the anonymous Gregorian algorithm (Meeus/Jones/
/// Butcher); `None` outside the years a [`Date`] holds.
pub(super) fn easter(year: i16) -> Option<Date> {
    let y = i32::from(year);
    let a = y.rem_euclid(19);
    let (b, c) = (y.div_euclid(100), y.rem_euclid(100));
    let (d, e) = (b.div_euclid(4), b.rem_euclid(4));
    let f = (b + 8).div_euclid(25);
    let g = (b - f + 1).div_euclid(3);
    let h = (19 * a + b - d - g + 15).rem_euclid(30);
    let (i, k) = (c.div_euclid(4), c.rem_euclid(4));
    let l = (32 + 2 * e + 2 * i - h - k).rem_euclid(7);
    let m = (a + 11 * h + 22 * l).div_euclid(451);
    let n = h + l - 7 * m + 114;
    Date::new(year, i8::try_from(n / 31).ok()?, i8::try_from(n % 31 + 1).ok()?).ok()
}

/// What a holiday phrase says: the next date of the holiday `said` at or after `today`, or
/// with `weekend` the Saturday before it. `Err` names why it cannot be read.
pub(super) fn next(said: &str, weekend: bool, today: Date) -> Result<Date, &'static str> {
    let holiday = which(said).ok_or("no such holiday")?;
    let this_year = date_in(holiday, today.year()).filter(|d| *d >= today);
    let date = this_year.or_else(|| date_in(holiday, today.year().checked_add(1)?)).ok_or("no such day")?;
    if !weekend {
        return Ok(date);
    }
    let back = match date.weekday() {
        Weekday::Sunday => 1,
        Weekday::Monday => 2,
        _ => return Err("that holiday makes no long weekend — which day?"),
    };
    date.checked_sub(back.days()).map_err(|_| "no such day")
}
