//! No embarrassing replies: text the local model wrote for a person is checked before it is
//! sent. Unfit text is empty or too short to say anything, repeats the prompt, repeats itself
//! ("The item was caught up, but it was caught up again."), or is not about the content it
//! should describe. The caller then sends a template answer or hands the item up a level.
//!
//! The checks are plain word statistics, cheap enough to run on every answer; they are
//! deliberately strict — a wrong refusal costs one executive call, a wrong pass embarrasses.

use std::collections::{BTreeMap, BTreeSet};

/// Why a text is not fit to send.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unfit {
    #[error("the local model's text is empty or too short to say anything")]
    Empty,
    #[error("the local model's text repeats the prompt")]
    RepeatsPrompt,
    #[error("the local model's text repeats itself")]
    RepeatsItself,
    #[error("the local model's text is not about the content ({shared} of {words} words found in it)")]
    OffTopic { shared: usize, words: usize },
}

const STOP: &[&str] = &[
    "the",
    "and",
    "for",
    "that",
    "this",
    "with",
    "from",
    "are",
    "was",
    "were",
    "has",
    "have",
    "had",
    "not",
    "but",
    "you",
    "your",
    "its",
    "it's",
    "they",
    "them",
    "their",
    "there",
    "what",
    "which",
    "who",
    "will",
    "would",
    "can",
    "could",
    "should",
    "about",
    "into",
    "than",
    "then",
    "also",
    "been",
    "being",
    "more",
    "most",
    "some",
    "such",
    "only",
    "other",
    "over",
    "very",
    "just",
    "like",
    "page",
    "article",
    "text",
    "content",
    "summary",
    "following",
    "here",
    "these",
    "those",
    "each",
    "when",
    "where",
    "while",
    "how",
    "all",
    "any",
    "our",
    "out",
    "one",
    "two",
];

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric() && c != '\'').filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

fn content_words(s: &str) -> Vec<String> {
    words(s).into_iter().filter(|w| w.chars().count() >= 4 && !STOP.contains(&w.as_str())).collect()
}

/// Check `text` written in answer to `prompt` about `source` (either may be empty).
pub fn check(text: &str, prompt: &str, source: &str) -> Result<(), Unfit> {
    let w = words(text);
    if w.len() < 3 {
        return Err(Unfit::Empty);
    }
    // Repeating the prompt: most of the answer's word triples are the prompt's.
    let triples = |v: &[String]| -> BTreeSet<String> { v.windows(3).map(|t| t.join(" ")).collect() };
    let mine = triples(&w);
    if !prompt.is_empty() && !mine.is_empty() {
        let theirs = triples(&words(prompt));
        let copied = mine.iter().filter(|t| theirs.contains(*t)).count();
        if copied * 2 > mine.len() {
            return Err(Unfit::RepeatsPrompt);
        }
    }
    // Repeating itself: a content word triple or a whole sentence said twice.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let cw = content_words(text);
    for t in w.windows(3).filter(|t| t.iter().filter(|x| cw.contains(x)).count() >= 1) {
        *seen.entry(t.join(" ")).or_default() += 1;
    }
    let sentences: Vec<String> = text.split(['.', '!', '?', '\n']).map(|s| s.trim().to_lowercase()).collect();
    let distinct: BTreeSet<&String> = sentences.iter().filter(|s| s.len() > 8).collect();
    let long = sentences.iter().filter(|s| s.len() > 8).count();
    if seen.values().any(|&n| n >= 2) || distinct.len() < long {
        return Err(Unfit::RepeatsItself);
    }
    // About the content: enough of its content words appear in the source.
    if !source.trim().is_empty() {
        let src: BTreeSet<String> = content_words(source).into_iter().collect();
        let mine: BTreeSet<String> = cw.into_iter().collect();
        if !mine.is_empty() {
            let shared = mine.iter().filter(|x| src.contains(*x)).count();
            if shared * 10 < mine.len() * 4 {
                return Err(Unfit::OffTopic { shared, words: mine.len() });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "Rust 1.80 stabilizes LazyCell and LazyLock, exclusive ranges in patterns, and checked \
        cfg names. The release also brings faster compilation for generic code and new lints.";

    #[test]
    fn passes_a_summary_and_refuses_what_would_embarrass() {
        let good = "Rust 1.80 stabilizes LazyCell and LazyLock and exclusive ranges in patterns; compilation of generic code is faster.";
        assert_eq!(check(good, "Summarize the following page", PAGE), Ok(()));
        assert_eq!(check("  ", "", PAGE), Err(Unfit::Empty));
        assert_eq!(check("Summary.", "", ""), Err(Unfit::Empty));
        assert_eq!(
            check(
                "Summarize the following page in 2-3 plain sentences.",
                "Summarize the following page in 2-3 plain sentences.\n\nRust…",
                PAGE
            ),
            Err(Unfit::RepeatsPrompt)
        );
        assert_eq!(
            check("The item was caught up, but it was caught up again.", "", ""),
            Err(Unfit::RepeatsItself),
            "the demo's line"
        );
        assert!(matches!(
            check("The weather in Paris is sunny with mild temperatures expected tomorrow.", "", PAGE),
            Err(Unfit::OffTopic { .. })
        ));
        assert_eq!(
            check("The item is not available for use.", "", "Task due: water the plants"),
            Err(Unfit::OffTopic { shared: 0, words: 2 })
        );
    }
}
