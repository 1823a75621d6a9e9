//! A reflex's regex, checked when the reflex loads and compiled the first time it is needed.
//!
//! An idle daemon holds every reflex but matches none of them: level 0 runs every pattern at
//! once through the catalog's one `RegexSet`, so a reflex's own compiled regex is needed only
//! to read its captures after the set chose it (or when the set could not be built). Loading
//! checks the syntax and reads the capture groups from the parsed pattern (no automaton is
//! built); the regex is compiled on first use and kept. The starter reflexes' own regexes
//! were 1.2 MB of heap and a 3 MB peak while compiling (BENCHMARKS.md, "The idle daemon").

use std::sync::OnceLock;

use regex::Regex;
use regex_syntax::hir::{Hir, HirKind};

/// A checked regex, compiled lazily.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    groups: usize,
    names: Vec<String>,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    /// Check `source` (the `regex` crate's syntax) and read its capture groups.
    pub fn parse(source: &str) -> Result<Pattern, Box<regex_syntax::Error>> {
        let hir = regex_syntax::Parser::new().parse(source).map_err(Box::new)?;
        let mut names = Vec::new();
        capture_names(&hir, &mut names);
        Ok(Pattern {
            source: source.to_string(),
            groups: hir.properties().explicit_captures_len(),
            names,
            compiled: OnceLock::new(),
        })
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Capture groups, not counting the whole match.
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// The named capture groups, in the pattern's order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether a match needs the compiled regex for its captures.
    pub fn captures_anything(&self) -> bool {
        self.groups > 0
    }

    /// The compiled regex, built on the first call. `None` when the syntax was valid but
    /// compiling failed (a size limit): the failure is logged once and the pattern never
    /// matches.
    pub fn regex(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| {
                Regex::new(&self.source)
                    .map_err(
                        |e| tracing::warn!(pattern = %short(&self.source), e = %cn_compute::Chain(&e), "a reflex pattern does not compile"),
                    )
                    .ok()
            })
            .as_ref()
    }

    /// Whether `text` matches (compiles the regex if needed).
    pub fn is_match(&self, text: &str) -> bool {
        self.regex().is_some_and(|re| re.is_match(text))
    }
}

fn capture_names(hir: &Hir, out: &mut Vec<String>) {
    match hir.kind() {
        HirKind::Capture(c) => {
            if let Some(name) = &c.name {
                out.push(name.to_string());
            }
            capture_names(&c.sub, out);
        }
        HirKind::Repetition(r) => capture_names(&r.sub, out),
        HirKind::Concat(hs) | HirKind::Alternation(hs) => hs.iter().for_each(|h| capture_names(h, out)),
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => {}
    }
}

fn short(s: &str) -> String {
    s.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_and_names_are_read_without_compiling() {
        let p = Pattern::parse(r"(?i)^remind me (?P<when>at \d+) to (.+)|(?:x)(?P<what>y)?$").unwrap();
        assert_eq!(p.groups(), 3);
        assert_eq!(p.names(), ["when", "what"]);
        assert!(p.compiled.get().is_none(), "parsing compiled the regex");
        // The same counts as the compiled regex reports.
        let re = p.regex().unwrap();
        assert_eq!(re.captures_len() - 1, p.groups());
        let names: Vec<&str> = re.capture_names().flatten().collect();
        assert_eq!(names, ["when", "what"]);
        assert!(p.is_match("REMIND ME at 5 to call"));
    }

    #[test]
    fn bad_syntax_is_an_error_with_the_parser_message() {
        let e = Pattern::parse("(unclosed").unwrap_err().to_string();
        assert!(e.contains("unclosed group"), "{e}");
    }
}
