//! What the models look at: features of a message (for the intent) and of each word in it
//! (for the slots), hashed into a fixed number of buckets.
//!
//! The intent sees word unigrams and bigrams, character 3–5-grams of each word (so "remnd"
//! shares most of its features with "remind"), its first words, whether it asks, and which
//! word classes of [`class`] occur. The tagger sees each word, its neighbours two either way,
//! their classes, the word's shape, prefix and suffix, and the intent.
//!
//! The word classes are the vocabulary of time and of counting, written here from the
//! calendar and the clock (weekdays, months, "am", "tomorrow", number words): no list is
//! built from any data set. Invariant: features depend only on the text (and, for the tagger,
//! the intent), so training and use see the same ones; hashing is FNV-1a, fixed, so a model
//! file means the same on every machine.

use crate::token::Token;

/// FNV-1a, 64 bits.
pub fn hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            h ^= 0x1f;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        for b in p.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// A word's class in the vocabulary of time and counting, if it has one.
pub fn class(w: &str) -> Option<&'static str> {
    const WEEKDAYS: &[&str] = &[
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "mon",
        "tue",
        "tues",
        "wed",
        "weds",
        "thu",
        "thur",
        "thurs",
        "fri",
        "sat",
        "sun",
        "mondays",
        "tuesdays",
        "wednesdays",
        "thursdays",
        "fridays",
        "saturdays",
        "sundays",
        "weekday",
        "weekdays",
        "weekend",
        "weekends",
    ];
    const MONTHS: &[&str] = &[
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
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ];
    const RELATIVE: &[&str] = &[
        "today",
        "tomorrow",
        "tonight",
        "tmrw",
        "tmr",
        "tomoz",
        "2moro",
        "tonite",
        "yesterday",
        "now",
        "later",
        "soon",
        "asap",
        "eod",
        "noon",
        "midnight",
        "midday",
    ];
    const PARTS: &[&str] = &["morning", "afternoon", "evening", "night", "arvo", "mornings", "evenings", "nights"];
    const UNITS: &[&str] = &[
        "minute",
        "minutes",
        "min",
        "mins",
        "hour",
        "hours",
        "hr",
        "hrs",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "fortnight",
        "second",
        "seconds",
    ];
    const NUMBERS: &[&str] = &[
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "half",
        "quarter",
        "couple",
        "a",
        "an",
    ];
    const ORDINALS: &[&str] = &[
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
        "twentieth",
        "thirtieth",
    ];
    const CLOCK: &[&str] = &["am", "pm", "a.m", "p.m", "o'clock", "oclock", "past", "to", "till"];
    const EVERY: &[&str] = &["every", "each", "daily", "weekly", "monthly", "yearly", "annually", "hourly", "biweekly"];
    const LEAD: &[&str] = &["at", "on", "in", "by", "until", "before", "after", "from", "next", "this", "coming"];
    let lists: [(&[&str], &str); 10] = [
        (WEEKDAYS, "weekday"),
        (MONTHS, "month"),
        (RELATIVE, "relative"),
        (PARTS, "part"),
        (UNITS, "unit"),
        (ORDINALS, "ordinal"),
        (EVERY, "every"),
        (CLOCK, "clock"),
        (LEAD, "lead"),
        (NUMBERS, "number"),
    ];
    if w.bytes().all(|b| b.is_ascii_digit()) {
        return Some("digits");
    }
    let first_digit = w.bytes().next().is_some_and(|b| b.is_ascii_digit());
    if first_digit {
        let tail = w.trim_start_matches(|c: char| c.is_ascii_digit() || c == ':' || c == '.');
        return Some(match tail {
            "" => "clocktime",
            "am" | "pm" | "a" | "p" | "h" => "clocktime",
            "st" | "nd" | "rd" | "th" => "ordinal",
            _ if tail.starts_with('m') || tail.starts_with('h') || tail.starts_with('d') || tail.starts_with('w') => {
                "span"
            }
            _ => "digits",
        });
    }
    lists.iter().find(|(l, _)| l.contains(&w)).map(|(_, n)| *n)
}

/// A word's shape: letters `a`, digits `d`, runs collapsed ("9:30" → `d:d`, "5pm" → `da`).
pub fn shape(w: &str) -> String {
    let mut out = String::new();
    for c in w.chars() {
        let s = if c.is_ascii_digit() {
            'd'
        } else if c.is_alphabetic() {
            'a'
        } else {
            c
        };
        if !out.ends_with(s) {
            out.push(s);
        }
    }
    out
}

/// The word as the features see it: any run of digits is `0` (the number does not matter,
/// its place does).
fn norm(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    for c in w.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('0') {
                out.push('0');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The intent features of a message, as bucket indices (sorted, without repeats).
pub fn intent(tokens: &[Token], asks: bool, bits: u32) -> Vec<u32> {
    let mask = (1u64 << bits) - 1;
    let mut out: Vec<u32> = Vec::with_capacity(tokens.len() * 12 + 8);
    let mut add = |parts: &[&str]| out.push((hash(parts) & mask) as u32);
    add(&["bias"]);
    if asks {
        add(&["asks"]);
    }
    let words: Vec<String> = tokens.iter().map(|t| norm(&t.text)).collect();
    add(&["len", &words.len().min(12).to_string()]);
    add(&["first", words.first().map_or("", String::as_str)]);
    if words.len() > 1 {
        add(&["first2", &words[0], &words[1]]);
    }
    add(&["last", words.last().map_or("", String::as_str)]);
    let mut prev = "<s>";
    for w in &words {
        add(&["u", w]);
        add(&["b", prev, w]);
        if let Some(c) = class(w) {
            add(&["class", c]);
        }
        let padded: Vec<char> = format!("<{w}>").chars().collect();
        for n in 3..=5 {
            if padded.len() < n {
                break;
            }
            for g in padded.windows(n) {
                let g: String = g.iter().collect();
                add(&["c", &g]);
            }
        }
        prev = w;
    }
    add(&["b", prev, "</s>"]);
    out.sort_unstable();
    out.dedup();
    out
}

/// The tagger's features for each token of a message said with `intent`, as bucket indices.
pub fn tags(tokens: &[Token], intent: &str, bits: u32) -> Vec<Vec<u32>> {
    let mask = (1u64 << bits) - 1;
    let words: Vec<String> = tokens.iter().map(|t| norm(&t.text)).collect();
    let classes: Vec<&str> = tokens.iter().map(|t| class(&t.text).unwrap_or("-")).collect();
    let at = |i: isize| -> (&str, &str) {
        if i < 0 {
            ("<s>", "<s>")
        } else if i as usize >= words.len() {
            ("</s>", "</s>")
        } else {
            (words[i as usize].as_str(), classes[i as usize])
        }
    };
    (0..words.len())
        .map(|i| {
            let mut f: Vec<u32> = Vec::with_capacity(24);
            let mut add = |parts: &[&str]| f.push((hash(parts) & mask) as u32);
            let i = i as isize;
            let (w, c) = at(i);
            let (wp, cp) = at(i - 1);
            let (wn, cn) = at(i + 1);
            let (wpp, cpp) = at(i - 2);
            let (wnn, cnn) = at(i + 2);
            add(&["t.bias"]);
            add(&["t.w", w]);
            add(&["t.c", c]);
            add(&["t.w-1", wp]);
            add(&["t.w+1", wn]);
            add(&["t.w-2", wpp]);
            add(&["t.w+2", wnn]);
            add(&["t.c-1", cp]);
            add(&["t.c+1", cn]);
            add(&["t.c-2", cpp]);
            add(&["t.c+2", cnn]);
            add(&["t.ww-1", wp, w]);
            add(&["t.ww+1", w, wn]);
            add(&["t.cc", cp, c, cn]);
            add(&["t.shape", &shape(w)]);
            let chars: Vec<char> = w.chars().collect();
            let suffix: String = chars[chars.len().saturating_sub(3)..].iter().collect();
            let prefix: String = chars[..chars.len().min(3)].iter().collect();
            add(&["t.suf", &suffix]);
            add(&["t.pre", &prefix]);
            add(&["t.i", intent]);
            add(&["t.iw", intent, w]);
            add(&["t.ic", intent, c]);
            add(&["t.iw-1", intent, wp]);
            if i == 0 {
                add(&["t.first"]);
            }
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::token::tokens;

    #[test]
    fn classes_name_the_vocabulary_of_time() {
        assert_eq!(class("tmrw"), Some("relative"));
        assert_eq!(class("9:30"), Some("clocktime"));
        assert_eq!(class("5pm"), Some("clocktime"));
        assert_eq!(class("3rd"), Some("ordinal"));
        assert_eq!(class("30min"), Some("span"));
        assert_eq!(class("ten"), Some("number"));
        assert_eq!(class("milk"), None);
        assert_eq!(shape("9:30"), "d:d");
    }

    #[test]
    fn features_are_stable_and_inside_the_buckets() {
        let t = tokens("remind me to call mom tomorrow at 5pm");
        let a = intent(&t, false, 12);
        assert_eq!(a, intent(&t, false, 12));
        assert!(a.iter().all(|&i| i < 4096));
        let g = tags(&t, "add", 12);
        assert_eq!(g.len(), t.len());
        assert!(g.iter().flatten().all(|&i| i < 4096));
    }
}
