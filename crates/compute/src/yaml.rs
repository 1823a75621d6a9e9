//! Bounded YAML: the work a YAML text may cost before it is parsed.
//!
//! serde_yaml_ng parses with libyaml, whose scanner revisits every open flow collection
//! (`[`, `{`) on every token: a text of `n` nested `[` costs `n²/2` steps before any error
//! (200,000 brackets took 45 s while `cn sync` held the hub lock, issue 34). Its other costs
//! are linear, and serde_yaml_ng already bounds recursion and alias expansion. So a text is
//! refused before parsing when the number of characters that could open a flow collection
//! (every `[` and `{`, wherever it stands: counting them all never undercounts the real
//! depth) times the text's length passes [`WORK_MAX`]. A peer's mail, a model's YAML block,
//! any item's frontmatter: each is checked where it is parsed.

/// The most `openers × bytes` a YAML text may have: about a quarter of a second of libyaml's
/// worst case on the 2-core machine in BENCHMARKS.md (300 nested `[` followed by 64 KB of
/// tokens), and far beyond what cn's own files (a few `[` in a few kilobytes) ever need.
pub const WORK_MAX: u64 = 20_000_000;

/// [`WORK_MAX`] for a model's answer (its YAML blocks): a long reply full of code has many
/// brackets, and the answer is already bounded by the model's token limit.
pub const MODEL_WORK_MAX: u64 = 100_000_000;

/// A YAML text that could cost more than [`WORK_MAX`] to parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the YAML has {openers} `[`/`{{` in {bytes} bytes, more nesting than cn parses (each open `[` or `{{` \
     costs a step on every later token); refused unparsed"
)]
pub struct TooComplex {
    pub openers: u64,
    pub bytes: u64,
}

/// `Ok` when `text` is cheap enough to hand to the YAML parser (see the module's doc).
pub fn check(text: &str) -> Result<(), TooComplex> {
    check_within(text, WORK_MAX)
}

/// [`check`] against another budget (`openers × bytes`).
pub fn check_within(text: &str, work_max: u64) -> Result<(), TooComplex> {
    let openers = text.bytes().filter(|b| matches!(b, b'[' | b'{')).count() as u64;
    let bytes = text.len() as u64;
    if openers.saturating_mul(bytes) > work_max {
        return Err(TooComplex { openers, bytes });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_brackets_are_refused_and_everyday_yaml_passes() {
        assert!(check("id: a\nfrom: pi\nsubject: '[WIP] fix'\ntags: [a, b, {c: d}]\n").is_ok());
        // A subject of 2,000 brackets in a few kilobytes of frontmatter still reads.
        assert!(check(&format!("subject: 'Re: {}'\n{}", "[".repeat(2000), "x: y\n".repeat(1000))).is_ok());
        assert!(check_within(&"{".repeat(8000), MODEL_WORK_MAX).is_ok() && check(&"{".repeat(8000)).is_err());
        let attack = "[".repeat(200_000);
        let e = check(&attack).unwrap_err();
        assert_eq!((e.openers, e.bytes), (200_000, 200_000));
        assert!(e.to_string().contains("200000 `[`/`{` in 200000 bytes"), "{e}");
    }
}
