//! Words a person wrote, as cn compares them: how far apart two words are (a typo is one
//! edit), and the content words of a phrase, stemmed, so a task, an idea or a schedule entry
//! is found by what the person calls it — "the car insurance" names "renew the car
//! insurance", "I paid the electricity bill" names "pay the electricity bill".
//!
//! Both sides of a comparison go through the same [`stem`], so a stem need not be a word: it
//! only has to be the same for the forms a person uses ("invoice", "invoices" → `invoic`).

/// Levenshtein distance with adjacent transpositions counted as one edit (`bugdet` →
/// `budget` is one).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1).min(d[i][j - 1] + 1).min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// Words that say nothing about which thing is meant: articles, pronouns, prepositions, and
/// the routine's own nouns ("the plumber task", "the reminder to call mom").
const STOP: &[&str] = &[
    "a",
    "an",
    "the",
    "my",
    "our",
    "your",
    "his",
    "her",
    "their",
    "to",
    "for",
    "of",
    "on",
    "in",
    "at",
    "by",
    "with",
    "about",
    "and",
    "or",
    "me",
    "i",
    "it",
    "its",
    "this",
    "that",
    "these",
    "those",
    "is",
    "are",
    "was",
    "be",
    "up",
    "off",
    "out",
    "some",
    "any",
    "one",
    "thing",
    "stuff",
    "task",
    "tasks",
    "todo",
    "todos",
    "to-do",
    "reminder",
    "reminders",
    "item",
    "list",
    "please",
    "just",
    "again",
    "now",
    "then",
    "so",
    "all",
];

/// Past forms a suffix rule cannot undo.
const IRREGULAR: &[(&str, &str)] = &[
    ("paid", "pay"),
    ("bought", "buy"),
    ("sent", "send"),
    ("went", "go"),
    ("gone", "go"),
    ("made", "make"),
    ("took", "take"),
    ("taken", "take"),
    ("got", "get"),
    ("did", "do"),
    ("done", "do"),
    ("wrote", "write"),
    ("written", "write"),
    ("rang", "ring"),
    ("rung", "ring"),
    ("gave", "give"),
    ("given", "give"),
    ("found", "find"),
    ("brought", "bring"),
    ("sold", "sell"),
    ("told", "tell"),
    ("met", "meet"),
    ("spoke", "speak"),
    ("ran", "run"),
    ("fed", "feed"),
    ("kept", "keep"),
    ("built", "build"),
    ("spent", "spend"),
    ("caught", "catch"),
    ("thought", "think"),
    ("fixed", "fix"),
    ("emailed", "email"),
];

/// One word's stem: lowercase, apostrophes gone, the common English suffixes taken off
/// (plural, -ed, -ing, -al), a final `e` and a doubled last consonant dropped.
pub fn stem(word: &str) -> String {
    let w: String = word.chars().filter(|c| *c != '\'' && *c != '’').flat_map(char::to_lowercase).collect();
    if let Some((_, base)) = IRREGULAR.iter().find(|(past, _)| *past == w) {
        return (*base).to_string();
    }
    let chars = w.chars().count();
    let cut = |n: usize| w[..w.len() - n].to_string();
    let es = ["ches", "shes", "xes", "sses"].iter().any(|e| w.ends_with(e));
    let plural_s = w.ends_with('s') && !["ss", "us", "is"].iter().any(|e| w.ends_with(e));
    let mut s = if chars > 4 && w.ends_with("ies") {
        format!("{}y", &w[..w.len() - 3])
    } else if chars >= 6 && w.ends_with("ing") {
        cut(3)
    } else if (chars >= 5 && w.ends_with("ed")) || (chars >= 7 && w.ends_with("al")) || (chars > 4 && es) {
        cut(2)
    } else if chars > 3 && plural_s {
        cut(1)
    } else {
        w.clone()
    };
    if s.chars().count() > 3 && s.ends_with('e') {
        s.pop();
    }
    let b = s.as_bytes();
    if b.len() > 3 && b[b.len() - 1] == b[b.len() - 2] && b[b.len() - 1].is_ascii_alphabetic() {
        s.pop();
    }
    s
}

/// The stems of a phrase's content words, in order, each once.
pub fn content(phrase: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in phrase.split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '’' || c == '-')) {
        let word = word.trim_matches(|c: char| c == '\'' || c == '’' || c == '-');
        if word.is_empty() || STOP.contains(&word.to_lowercase().as_str()) {
            continue;
        }
        let s = stem(word);
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// How well a query names a candidate: how many of the query's stems the candidate has
/// (`matched` of `of`), and how many stems the candidate has in all (`size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    pub matched: usize,
    pub of: usize,
    pub size: usize,
}

impl Fit {
    /// Every word of the query is the candidate's.
    pub fn full(&self) -> bool {
        self.of > 0 && self.matched == self.of
    }
    /// Enough to act on a statement that did not say it was about a task ("I called the
    /// plumber"): all the query's words, or at least two and three in five.
    pub fn strong(&self) -> bool {
        self.full() || (self.matched >= 2 && self.matched * 5 >= self.of * 3)
    }
    /// Enough when the person said it was about a task ("mark the tax thing as done"): at
    /// least half the query's words.
    pub fn weak(&self) -> bool {
        self.matched >= 1 && self.matched * 2 >= self.of
    }
}

/// Whether two stems are the same word, a typo allowed in longer ones (`pasport`).
fn same(a: &str, b: &str) -> bool {
    a == b || (a.len() >= 5 && b.len() >= 5 && a.chars().next() == b.chars().next() && edit_distance(a, b) <= 1)
}

/// How well `query` (stems, from [`content`]) names `candidate` (stems).
pub fn fit(query: &[String], candidate: &[String]) -> Fit {
    let matched = query.iter().filter(|q| candidate.iter().any(|c| same(q, c))).count();
    Fit { matched, of: query.len(), size: candidate.len() }
}

/// Which of `candidates` the query names: the ones with the most query words (then the
/// fewest other words) that `enough` accepts. One is the answer; several are a question.
pub fn best<T>(
    query: &[String],
    candidates: impl IntoIterator<Item = (T, Vec<String>)>,
    enough: fn(&Fit) -> bool,
) -> Vec<T> {
    let mut scored: Vec<(Fit, T)> =
        candidates.into_iter().map(|(item, words)| (fit(query, &words), item)).filter(|(f, _)| enough(f)).collect();
    // The most query words first; among equals, the candidate with the fewest words it was
    // not asked about (so "call mom" beats "call mom about the trip").
    scored.sort_by_key(|(f, _)| (std::cmp::Reverse(f.matched), f.size.saturating_sub(f.matched)));
    let Some(top) = scored.first().map(|(f, _)| (f.matched, f.size.saturating_sub(f.matched))) else {
        return Vec::new();
    };
    scored
        .into_iter()
        .take_while(|(f, _)| (f.matched, f.size.saturating_sub(f.matched)) == top)
        .map(|(_, t)| t)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_and_its_forms_share_a_stem() {
        for (a, b) in [
            ("renewed", "renew"),
            ("calling", "call"),
            ("called", "call"),
            ("paid", "pay"),
            ("invoices", "invoice"),
            ("plants", "plant"),
            ("watering", "water"),
            ("cleaning", "clean"),
            ("bills", "bill"),
            ("stopped", "stop"),
            ("parties", "party"),
            ("boxes", "box"),
            ("renewal", "renew"),
            ("writing", "write"),
            ("Kids'", "kids"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        assert_ne!(stem("glass"), stem("gas"));
        assert_eq!(edit_distance("bugdet", "budget"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn a_task_is_named_by_its_words() {
        let q = |s: &str| content(s);
        let tasks = [
            ("car", content("renew the car insurance")),
            ("acme", content("send the invoice to Acme")),
            ("globex", content("send the invoice to Globex")),
            ("mom", content("call mom")),
            ("plumber", content("call the plumber")),
            ("passport", content("renew the passport")),
        ];
        let found =
            |query: &str, enough: fn(&Fit) -> bool| best(&q(query), tasks.iter().map(|(n, w)| (*n, w.clone())), enough);
        assert_eq!(found("the car insurance", Fit::weak), ["car"]);
        assert_eq!(found("I renewed the car insurance", Fit::strong), ["car"]);
        assert_eq!(found("the invoice", Fit::weak), ["acme", "globex"], "two match: both, to ask which");
        assert_eq!(found("the Acme invoice", Fit::weak), ["acme"]);
        assert_eq!(found("I called the plumber", Fit::strong), ["plumber"]);
        assert!(found("I paid for lunch", Fit::strong).is_empty());
        assert!(found("my 3pm meeting", Fit::weak).is_empty());
        assert_eq!(found("the pasport", Fit::weak), ["passport"], "a typo in a long word still counts");
        assert!(found("", Fit::weak).is_empty());
    }
}
