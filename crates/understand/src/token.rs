//! Words as the models see them: a message cut into lower-case tokens, each with the byte
//! range it came from, so a slot the tagger marks is cut from the person's own text.
//!
//! A token is a run of letters and digits, with an apostrophe between letters ("don't"), a
//! colon or a dot between digits ("9:30", "9.30") and a hyphen between letters or digits
//! ("to-do") kept inside it. Everything else (punctuation, emoji, symbols) separates tokens
//! and is dropped. Invariant: ranges are char boundaries of the input, in order, never
//! overlapping; at most [`MAX_TOKENS`] tokens are read (a longer message is judged by its
//! start, and the caller decides what a long message may do).

use std::ops::Range;

/// The most tokens read of one message.
pub const MAX_TOKENS: usize = 64;

/// One word of a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// Lower case, with a typographic apostrophe made plain.
    pub text: String,
    /// Where it is in the message (bytes).
    pub range: Range<usize>,
}

fn inner_joiner(prev: char, c: char, next: Option<char>) -> bool {
    let next = match next {
        Some(n) => n,
        None => return false,
    };
    match c {
        '\'' | '’' => prev.is_alphabetic() && next.is_alphabetic(),
        ':' | '.' => prev.is_ascii_digit() && next.is_ascii_digit(),
        '-' => prev.is_alphanumeric() && next.is_alphanumeric(),
        _ => false,
    }
}

/// The tokens of `text`.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut start: Option<usize> = None;
    let mut word = String::new();
    for (i, &(at, c)) in chars.iter().enumerate() {
        let next = chars.get(i + 1).map(|&(_, n)| n);
        let keep = c.is_alphanumeric() || (start.is_some() && inner_joiner(chars[i.saturating_sub(1)].1, c, next));
        if keep {
            if start.is_none() {
                start = Some(at);
            }
            match c {
                '’' => word.push('\''),
                _ => word.extend(c.to_lowercase()),
            }
        } else if let Some(s) = start.take() {
            out.push(Token { text: std::mem::take(&mut word), range: s..at });
            if out.len() == MAX_TOKENS {
                return out;
            }
        }
    }
    if let Some(s) = start {
        out.push(Token { text: word, range: s..text.len() });
    }
    out.truncate(MAX_TOKENS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(t: &str) -> Vec<String> {
        tokens(t).into_iter().map(|t| t.text).collect()
    }

    #[test]
    fn keeps_contractions_times_and_hyphens_inside_a_word() {
        assert_eq!(
            words("Don't forget: call Mom at 9:30, ok?"),
            ["don't", "forget", "call", "mom", "at", "9:30", "ok"]
        );
        assert_eq!(words("add to-do at 9.30pm"), ["add", "to-do", "at", "9.30pm"]);
        assert_eq!(words("it’s 5."), ["it's", "5"]);
        assert_eq!(words("🙂🙂 -- ..."), Vec::<String>::new());
    }

    #[test]
    fn ranges_point_into_the_message() {
        let text = "Remind ME to buy café au lait ✅ tmrw";
        for t in tokens(text) {
            assert_eq!(text[t.range.clone()].to_lowercase(), t.text);
        }
        let long = "word ".repeat(500);
        assert_eq!(tokens(&long).len(), MAX_TOKENS);
    }
}
