//! The date words a person misspells, put right before the phrase is read ("tomorow",
//! "wendesday", "Febuary 2"), and the ones that only look like date words, which are asked
//! about rather than guessed ("next Smarch").
//!
//! A correction keeps the first letter and is one edit away (two for a word of eight letters
//! or more): typos rarely touch the first letter, and a different first letter is how a
//! near-miss is told from a typo — "Smarch" is one edit from "March", but not a typo of it.
//! A month name is put right only beside a day number ("Decmber 5"), since "Marsh" or "Jule"
//! may well be names.

use cn_hub::words::edit_distance;

pub(crate) const WEEKDAYS: [&str; 7] = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
pub(super) const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];
const DAY_WORDS: [&str; 4] = ["tomorrow", "today", "tonight", "yesterday"];

/// Real words a correction must leave alone.
const KEEP: &[&str] = &[
    "sundae",
    "sundaes",
    "toady",
    "mondays",
    "tuesdays",
    "wednesdays",
    "thursdays",
    "fridays",
    "saturdays",
    "sundays",
];

/// How many edits a word of `len` letters may be from the word it means.
fn allowed(len: usize) -> usize {
    if len >= 8 {
        2
    } else {
        1
    }
}

/// The date word `word` (lowercase) is a typo of, if any. Months only when `months`.
fn typo_of(word: &str, months: bool) -> Option<&'static str> {
    // "everyday" written as one word means "every day" in a request ("take medicine at 8pm
    // everyday").
    if word == "everyday" {
        return Some("every day");
    }
    let len = word.chars().count();
    if len < 5 || KEEP.contains(&word) {
        return None;
    }
    let known = WEEKDAYS.iter().chain(DAY_WORDS.iter()).chain(MONTHS.iter().filter(|_| months));
    if known.clone().any(|k| *k == word) {
        return None;
    }
    known
        .filter(|k| k.chars().next() == word.chars().next())
        .map(|k| (edit_distance(word, k), *k))
        .filter(|(d, k)| *d <= allowed(len.max(k.len())))
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Whether `word` (lowercase) looks like a month or weekday without being one, and is no
/// typo of one either: "smarch", "wuesday". False for real date words and their typos.
pub(super) fn near_miss(word: &str) -> bool {
    let len = word.chars().count();
    if len < 4 || KEEP.contains(&word) || is_date_word(word) || typo_of(word, true).is_some() {
        return false;
    }
    WEEKDAYS.iter().chain(MONTHS.iter()).filter(|k| k.len() >= 5).any(|k| edit_distance(word, k) <= allowed(k.len()))
}

/// A weekday, a month, or one of their usual abbreviations.
pub(super) fn is_date_word(word: &str) -> bool {
    WEEKDAYS.contains(&word)
        || MONTHS.contains(&word)
        || DAY_WORDS.contains(&word)
        || WEEKDAYS.iter().chain(MONTHS.iter()).any(|k| word.len() >= 3 && k.starts_with(word))
}

/// `text` with its misspelt date words put right (lowercase); everything else as written.
#[cfg(test)]
pub(super) fn correct(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (range, right) in corrections(text) {
        out.push_str(&text[last..range.start]);
        out.push_str(right);
        last = range.end;
    }
    out.push_str(&text[last..]);
    out
}

/// The misspelt date words of `text`: where each is, and the word it means (lowercase).
pub(super) fn corrections(text: &str) -> Vec<(std::ops::Range<usize>, &'static str)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_alphabetic() {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
            i += 1;
        }
        let word = text[start..i].to_ascii_lowercase();
        let beside_a_number = text[i..].trim_start().starts_with(|c: char| c.is_ascii_digit())
            || ends_with_day_number(text[..start].trim_end().trim_end_matches("of").trim_end());
        if let Some(right) = typo_of(&word, beside_a_number) {
            found.push((start..i, right));
        }
    }
    found
}

/// `…the 5th` / `…5`: the text before a month name ends with a day of the month.
pub(super) fn ends_with_day_number(before: &str) -> bool {
    let t = before.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let suffix = &before[t.len()..];
    (suffix.is_empty() || ["st", "nd", "rd", "th"].contains(&suffix.to_ascii_lowercase().as_str()))
        && t.ends_with(|c: char| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_put_right_and_look_alikes_are_not() {
        assert_eq!(correct("call mom tomorow"), "call mom tomorrow");
        assert_eq!(correct("pay on wendesday, then Thrusday"), "pay on wednesday, then thursday");
        assert_eq!(correct("send it on Febuary 2"), "send it on february 2");
        assert_eq!(correct("the 5th of Decmber"), "the 5th of december");
        assert_eq!(correct("call the Marsh family"), "call the Marsh family", "a month only beside a day");
        assert_eq!(correct("buy a sundae"), "buy a sundae");
        assert_eq!(correct("next Smarch"), "next Smarch", "another first letter: not a typo");
        assert!(near_miss("smarch") && near_miss("wuesday") && near_miss("grebruary"));
        assert!(!near_miss("march") && !near_miss("meeting") && !near_miss("time") && !near_miss("tomorow"));
    }
}
