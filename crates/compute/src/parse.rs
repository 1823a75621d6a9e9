//! parse — interpretation. Extracts every fenced YAML code block of a markdown answer, in
//! document order, and turns each into tool calls.
//!
//! A block is YAML when the first word of its info string is `yaml` or `yml` (any case).
//! CommonMark decides what a fence is (pulldown-cmark): backtick and tilde fences, longer
//! fences, fences in list items and block quotes, an unclosed fence running to the end.
//! Indented code blocks and other languages are prose, not calls.
//!
//! A block holding a mapping with a `tool` key is one call (its other keys are the params,
//! read once here by the [`Reader`] of the tool's crate: typed, or kept open); a sequence of
//! such mappings is several calls, in order. Params the reader refuses, and anything else,
//! become a
//! [`ParseError`] naming the block, the line of its opening fence and the YAML error, so the
//! model can be told next turn. Other blocks are unaffected, and nothing here panics.
//!
//! A long answer (64 KiB and up) with many blocks is read by two threads when there is a
//! second core: CommonMark scans on the caller's while a scoped one reads the YAML of the
//! blocks found so far. The output is the same either way.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde_json::{Map, Value};

use crate::{ParseError, Parsed, Reader, ToolCall};

/// Every call's params kept open ([`crate::open`]): what a caller without typed tools reads.
pub fn parse(markdown: &str) -> Vec<Parsed> {
    parse_with(markdown, crate::open)
}

/// Each call's params read by `read` (the verb `prepare` installs, with [`crate::Inputs`]'s
/// reader).
pub fn parse_with(markdown: &str, read: Reader) -> Vec<Parsed> {
    if markdown.len() >= SHARE_FROM && spare_core() {
        parse_shared(markdown, read)
    } else {
        parse_sequential(markdown, read)
    }
}

fn parse_sequential(markdown: &str, read: Reader) -> Vec<Parsed> {
    let mut calls = Calls::new(read);
    for_each_yaml_block(markdown, |b| calls.add(markdown, &b));
    calls.out
}

/// From this size on, the YAML may be read on a second thread while CommonMark scans on
/// (the two take comparable time on a long answer full of blocks).
const SHARE_FROM: usize = 64 * 1024;
/// Blocks handed to the YAML thread at a time, so it is woken once per batch, not per block.
/// The thread is started with the first full batch: an answer with fewer blocks needs none.
const BATCH: usize = 32;

fn spare_core() -> bool {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get())) > 1
}

/// CommonMark on this thread; YAML, once a batch of blocks is found, on a scoped one fed
/// over a channel. The output is the sequential path's: one consumer, blocks in order. If
/// no thread can be started, the blocks are read here.
fn parse_shared(markdown: &str, read: Reader) -> Vec<Parsed> {
    std::thread::scope(|scope| {
        let mut here = Calls::new(read);
        let mut batch = Vec::with_capacity(BATCH);
        let mut yaml = None;
        let mut alone = false;
        for_each_yaml_block(markdown, |b| {
            if alone {
                return here.add(markdown, &b);
            }
            batch.push(b);
            if batch.len() < BATCH {
                return;
            }
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            if yaml.is_none() {
                yaml = start_yaml_thread(scope, markdown, read);
            }
            match &yaml {
                // A send fails only if the YAML thread is gone, i.e. panicked: join says so.
                Some((tx, _)) => drop(tx.send(full)),
                None => {
                    alone = true;
                    full.iter().for_each(|b| here.add(markdown, b));
                }
            }
        });
        match yaml {
            Some((tx, thread)) => {
                drop(tx.send(batch));
                drop(tx);
                thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }
            None => {
                batch.iter().for_each(|b| here.add(markdown, b));
                here.out
            }
        }
    })
}

type YamlThread<'scope> = (std::sync::mpsc::Sender<Vec<Block>>, std::thread::ScopedJoinHandle<'scope, Vec<Parsed>>);

fn start_yaml_thread<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    markdown: &'scope str,
    read: Reader,
) -> Option<YamlThread<'scope>> {
    let (tx, rx) = std::sync::mpsc::channel::<Vec<Block>>();
    let thread = std::thread::Builder::new()
        .name("cn-parse-yaml".into())
        .spawn_scoped(scope, move || {
            let mut calls = Calls::new(read);
            for b in rx.iter().flatten() {
                calls.add(markdown, &b);
            }
            calls.out
        })
        .ok()?;
    Some((tx, thread))
}

/// The calls and errors of the blocks seen so far, numbered in order.
struct Calls {
    out: Vec<Parsed>,
    blocks: usize,
    read: Reader,
}

impl Calls {
    fn new(read: Reader) -> Self {
        Calls { out: Vec::new(), blocks: 0, read }
    }

    fn add(&mut self, markdown: &str, b: &Block) {
        block_calls(b.content.as_str(markdown), self.blocks, b.line, self.read, &mut self.out);
        self.blocks += 1;
    }
}

/// One fenced YAML block: the 1-based line of its opening fence and its text.
struct Block {
    line: usize,
    content: Content,
}

/// A block's text: a range of the answer when CommonMark hands it over verbatim and in one
/// piece (the usual case), else a copy (fences in list items or block quotes, whose
/// prefixes CommonMark strips; CRLF line ends, which it normalizes; partial tabs).
enum Content {
    Slice(std::ops::Range<usize>),
    Copy(String),
}

impl Content {
    fn as_str<'a>(&'a self, markdown: &'a str) -> &'a str {
        match self {
            Content::Slice(r) => &markdown[r.clone()],
            Content::Copy(s) => s,
        }
    }

    /// Append one Text event, `text`, which CommonMark reports at `range` of `markdown`.
    fn push(&mut self, markdown: &str, text: &str, range: std::ops::Range<usize>) {
        // Verbatim: the event's text is that very slice of the answer (borrowed, not rewritten).
        let verbatim =
            markdown.get(range.clone()).is_some_and(|s| s.as_ptr() == text.as_ptr() && s.len() == text.len());
        match self {
            Content::Slice(r) if verbatim && r.start == r.end => *r = range,
            Content::Slice(r) if verbatim && r.end == range.start => r.end = range.end,
            Content::Slice(r) => {
                let mut copy = String::with_capacity(r.len() + text.len());
                copy.push_str(&markdown[r.clone()]);
                copy.push_str(text);
                *self = Content::Copy(copy);
            }
            Content::Copy(copy) => copy.push_str(text),
        }
    }
}

/// Hands `f` the fenced YAML blocks of `markdown`, in document order, as CommonMark sees them.
fn for_each_yaml_block(markdown: &str, mut f: impl FnMut(Block)) {
    let mut lines = LineCounter::default();
    let mut current: Option<Block> = None;
    for (event, range) in Parser::new_ext(markdown, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if is_yaml(&info) => {
                let line = lines.line_of(markdown, range.start);
                current = Some(Block { line, content: Content::Slice(0..0) });
            }
            Event::Text(text) => {
                if let Some(b) = current.as_mut() {
                    b.content.push(markdown, &text, range);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(b) = current.take() {
                    f(b);
                }
            }
            _ => {}
        }
    }
}

fn is_yaml(info: &str) -> bool {
    info.split_whitespace().next().is_some_and(|w| w.eq_ignore_ascii_case("yaml") || w.eq_ignore_ascii_case("yml"))
}

/// Turn one block's text into calls, or into one error entry for the whole block.
fn block_calls(content: &str, block: usize, line: usize, read: Reader, out: &mut Vec<Parsed>) {
    let error = |message: String| Parsed::Error(ParseError { block, line, message });
    if let Err(e) = crate::yaml::check_within(content, crate::yaml::MODEL_WORK_MAX) {
        out.push(error(format!("YAML block {block} at line {line}: {e}")));
        return;
    }
    let value: Value = match serde_yaml_ng::from_str(content) {
        Ok(v) => v,
        Err(e) => {
            let at = e
                .location()
                // The block's first content line is the line after its fence.
                .map(|l| format!(" (line {}, column {})", line + l.line(), l.column()))
                .unwrap_or_default();
            out.push(error(format!("YAML block {block} at line {line} is not valid YAML{at}: {e}")));
            return;
        }
    };
    match value {
        Value::Object(map) => match call(map, block, line, read) {
            Ok(c) => out.push(Parsed::Call(c)),
            Err(why) => out.push(error(format!("YAML block {block} at line {line}: {why}"))),
        },
        Value::Array(items) => {
            let mut calls = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                let result = match item {
                    Value::Object(map) => call(map, block, line, read),
                    other => Err(NotACall::NotAMapping(kind(&other))),
                };
                match result {
                    Ok(c) => calls.push(Parsed::Call(c)),
                    Err(why) => {
                        out.push(error(format!("YAML block {block} at line {line}, item {i}: {why}")));
                        return;
                    }
                }
            }
            if calls.is_empty() {
                out.push(error(format!("YAML block {block} at line {line} is an empty list: expected tool calls")));
            }
            out.extend(calls);
        }
        other => out.push(error(format!(
            "YAML block {block} at line {line} is {}, expected a mapping with a `tool` key or a list of them",
            kind(&other)
        ))),
    }
}

/// Why a block (or a list item in it) is not a tool call.
#[derive(Debug, thiserror::Error)]
enum NotACall {
    #[error("`tool` is empty")]
    EmptyTool,
    #[error("`tool` is {0}, expected the tool's name")]
    ToolNotAName(&'static str),
    #[error("has no `tool` key")]
    NoTool,
    #[error("is {0}, expected a mapping with a `tool` key")]
    NotAMapping(&'static str),
    /// The tool's crate refused its params (naming the tool and the field).
    #[error("{0}")]
    Params(String),
}

fn call(mut params: Map<String, Value>, block: usize, line: usize, read: Reader) -> Result<ToolCall, NotACall> {
    match params.remove("tool") {
        Some(Value::String(tool)) if !tool.trim().is_empty() => {
            let params = read(&tool, params).map_err(NotACall::Params)?;
            Ok(ToolCall { tool, params, block, line })
        }
        Some(Value::String(_)) => Err(NotACall::EmptyTool),
        Some(other) => Err(NotACall::ToolNotAName(kind(&other))),
        None => Err(NotACall::NoTool),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Counts newlines incrementally, so locating every block is linear in the answer's size.
#[derive(Default)]
struct LineCounter {
    offset: usize,
    line: usize, // 0-based line at `offset`
}

impl LineCounter {
    fn line_of(&mut self, text: &str, offset: usize) -> usize {
        let bytes = text.as_bytes();
        let offset = offset.min(bytes.len());
        if offset < self.offset {
            // Offsets arrive in order; restart if not, rather than miscount.
            *self = LineCounter::default();
        }
        self.line += count_newlines(&bytes[self.offset..offset]);
        self.offset = offset;
        self.line + 1
    }
}

/// `bytes.iter().filter(|&&b| b == b'\n').count()`, in chunks whose byte-sized sums the
/// compiler vectorizes: ~15× faster on a 1 MiB answer.
fn count_newlines(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(128);
    let mut n = 0;
    for chunk in &mut chunks {
        n += chunk.iter().fold(0u8, |sum, &b| sum + u8::from(b == b'\n')) as usize;
    }
    n + chunks.remainder().iter().filter(|&&b| b == b'\n').count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn calls(md: &str) -> Vec<(String, Value)> {
        parse(md)
            .into_iter()
            .map(|p| match p {
                Parsed::Call(c) => (c.tool, Value::Object(c.params.to_json())),
                Parsed::Error(e) => ("!error".into(), json!({"block": e.block, "line": e.line})),
            })
            .collect()
    }

    #[test]
    fn mapping_is_one_call_and_sequence_is_several_in_order() {
        let md =
            "Hello\n\n```yaml\ntool: read\npath: a.txt\n```\n\ntext\n\n```yml\n- tool: one\n- tool: two\n  x: 1\n```\n";
        assert_eq!(
            calls(md),
            vec![("read".into(), json!({"path": "a.txt"})), ("one".into(), json!({})), ("two".into(), json!({"x": 1})),]
        );
    }

    /// A value a test's tool types: its text, shouted.
    #[derive(Debug, PartialEq)]
    struct Shout(String);

    impl crate::Typed for Shout {
        fn to_json(&self) -> Value {
            json!({"text": self.0})
        }
    }

    fn shouting(tool: &str, mut params: Map<String, Value>) -> Result<crate::Params, String> {
        match (tool, params.remove("text")) {
            ("shout", Some(Value::String(t))) => Ok(crate::Params::Typed(std::sync::Arc::new(Shout(t.to_uppercase())))),
            ("shout", _) => Err("`shout` needs `text`".into()),
            _ => Ok(crate::Params::Open(params)),
        }
    }

    #[test]
    fn a_reader_types_params_once_and_its_refusal_is_an_error_at_the_block() {
        let md = "```yaml\ntool: shout\ntext: hi\n```\n\n```yaml\n- tool: other\n  x: 1\n- tool: shout\n```\n\n```yaml\ntool: other\nx: 2\n```\n";
        let got = parse_with(md, shouting);
        assert_eq!(got.len(), 3, "{got:?}");
        let Parsed::Call(c) = &got[0] else { panic!("{got:?}") };
        assert_eq!(c.params.typed::<Shout>(), Some(&Shout("HI".into())));
        assert_eq!(c.params.to_json(), json!({"text": "HI"}).as_object().cloned().unwrap(), "JSON at the edge");
        let Parsed::Error(e) = &got[1] else { panic!("{got:?}") };
        assert_eq!((e.block, e.line), (1, 6));
        assert!(e.message.ends_with("item 1: `shout` needs `text`"), "{}", e.message);
        let Parsed::Call(c) = &got[2] else { panic!("{got:?}") };
        assert_eq!(c.params.open().map(|m| m["x"].clone()), Some(json!(2)));
        // Read the same on two threads as on one.
        let long = md.repeat(SHARE_FROM / md.len() + 1);
        assert_eq!(parse_shared(&long, shouting), parse_sequential(&long, shouting));
    }

    #[test]
    fn fence_kinds_case_lists_quotes_and_unclosed() {
        let md = concat!(
            "~~~YAML\ntool: tilde\n~~~\n",
            "````Yml extra words\ntool: long\ns: \"```\"\n````\n",
            "- item\n\n  ```yaml\n  tool: in_list\n  ```\n",
            "> ```yaml\n> tool: in_quote\n> ```\n\n",
            "```yaml\ntool: unclosed\n"
        );
        let got: Vec<String> = calls(md).into_iter().map(|(t, _)| t).collect();
        assert_eq!(got, ["tilde", "long", "in_list", "in_quote", "unclosed"]);
    }

    #[test]
    fn indented_blocks_and_other_languages_are_not_calls() {
        let md = "    tool: indented\n\n```json\n{\"tool\": \"x\"}\n```\n\n```\ntool: plain\n```\n\n```yamlish\ntool: no\n```\n";
        assert!(parse(md).is_empty());
    }

    #[test]
    fn bad_blocks_are_errors_with_block_and_line_and_others_survive() {
        let md = "```yaml\ntool: [unclosed\n```\n\n```yaml\nnot_a_tool: 1\n```\n\n```yaml\ntool: ok\n```\n";
        let got = parse(md);
        assert_eq!(got.len(), 3);
        match &got[0] {
            Parsed::Error(e) => {
                assert_eq!((e.block, e.line), (0, 1));
                assert!(e.message.contains("not valid YAML"), "{}", e.message);
            }
            other => panic!("{other:?}"),
        }
        match &got[1] {
            Parsed::Error(e) => {
                assert_eq!((e.block, e.line), (1, 5));
                assert!(e.message.contains("no `tool`"), "{}", e.message);
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&got[2], Parsed::Call(c) if c.tool == "ok" && c.block == 2 && c.line == 9));
    }

    #[test]
    fn a_bad_item_makes_the_whole_sequence_block_an_error() {
        let got = parse("```yaml\n- tool: a\n- 3\n```\n");
        assert_eq!(got.len(), 1);
        assert!(matches!(&got[0], Parsed::Error(e) if e.message.contains("item 1")));
    }

    #[test]
    fn empty_and_scalar_blocks_are_errors() {
        for md in ["```yaml\n```\n", "```yaml\njust text\n```\n", "```yaml\n[]\n```\n", "```yaml\ntool: 5\n```\n"] {
            let got = parse(md);
            assert!(matches!(got.as_slice(), [Parsed::Error(_)]), "{md:?} gave {got:?}");
        }
    }

    #[test]
    fn crlf_answers_and_blocks_in_containers_parse_like_plain_ones() {
        // CRLF line ends and container prefixes make CommonMark rewrite the block's text.
        let md = "Hi\r\n\r\n```yaml\r\ntool: crlf\r\npath: a\r\n```\r\n\r\n> - ```yaml\r\n>   tool: nested\r\n>   x: 2\r\n>   ```\r\n";
        assert_eq!(calls(md), vec![("crlf".into(), json!({"path": "a"})), ("nested".into(), json!({"x": 2}))]);
        let lines: Vec<usize> = parse(md).iter().map(|p| if let Parsed::Call(c) = p { c.line } else { 0 }).collect();
        assert_eq!(lines, [3, 8]);
    }

    #[test]
    fn a_tab_partly_eaten_by_an_indent_leaves_its_remaining_columns_as_spaces() {
        // The item's content starts at column 2; a leading tab spans columns 0-4, so 2 remain.
        let md = "- ```yaml\n  tool: t\n  p:\n\t- 1\n  ```\n";
        let mut got = Vec::new();
        for_each_yaml_block(md, |b| got.push(b.content.as_str(md).to_owned()));
        assert_eq!(got, ["tool: t\np:\n  - 1\n"]);
        assert_eq!(calls(md), vec![("t".into(), json!({"p": [1]}))]);
        // A fence indented by 2 strips 2 columns from each content line, here half a tab.
        let md = "  ```yaml\n\ttool: t\n  ```\n";
        let mut got = Vec::new();
        for_each_yaml_block(md, |b| got.push(b.content.as_str(md).to_owned()));
        assert_eq!(got, ["  tool: t\n"]);
    }

    #[test]
    fn lines_are_counted_past_long_prose() {
        let md = format!(
            "{}{}\n\n```yaml\ntool: far\n```\n{}```yaml\ntool: farther\n```\n",
            "x\n".repeat(300),
            "y".repeat(1000),
            "\n".repeat(129)
        );
        let lines: Vec<usize> = parse(&md).iter().map(|p| if let Parsed::Call(c) = p { c.line } else { 0 }).collect();
        assert_eq!(lines, [303, 435]);
    }

    #[test]
    fn count_newlines_matches_a_plain_count_at_every_length_and_offset() {
        let text: Vec<u8> = (0..700u32).map(|i| if i % 7 == 0 || i % 11 == 0 { b'\n' } else { b'a' }).collect();
        for start in [0, 1, 5, 127, 128, 129] {
            for end in start..text.len() {
                let slice = &text[start..end];
                assert_eq!(count_newlines(slice), slice.iter().filter(|&&b| b == b'\n').count(), "{start}..{end}");
            }
        }
    }

    #[test]
    fn a_long_answer_parses_the_same_on_two_threads_as_on_one() {
        let case = concat!(
            "Prose with *emphasis* and `code`.\n\n```yaml\ntool: reply\nmessage: hi\n```\n\n",
            "~~~YML\n- tool: a\n- tool: b\n  x: 1\n~~~\n\n    tool: indented\n\n",
            "1. item\n\n   ```yaml\n   tool: listed\n   ```\n\n> ```yaml\r\n> tool: quoted\r\n> ```\r\n\n",
            "```yaml\ntool: [broken\n```\n\n```yaml\nno_tool: here\n```\n\n```yaml\n- tool: c\n- 3\n```\n\n"
        );
        let mut md = case.repeat(SHARE_FROM / case.len() + 1);
        md.push_str("```yaml\ntool: unclosed\n");
        assert!(md.len() >= SHARE_FROM);
        let one = parse_sequential(&md, crate::open);
        let repeats = md.matches("tool: reply").count();
        assert_eq!(one.len(), repeats * 8 + 1, "per repeat: 5 calls and 3 errors from 7 blocks");
        let two = parse_shared(&md, crate::open);
        assert_eq!(two, one);
        assert_eq!(parse(&md), one);
        // Blocks are numbered across batches in document order.
        let blocks: Vec<usize> = one
            .iter()
            .map(|p| match p {
                Parsed::Call(c) => c.block,
                Parsed::Error(e) => e.block,
            })
            .collect();
        assert!(blocks.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1), "{blocks:?}");
        assert_eq!(blocks.last(), Some(&(repeats * 7)));
    }

    #[test]
    fn every_kind_of_block_snapshot() {
        // The issue's cases in one answer, error messages and all, so a change of wording or
        // of YAML reader shows in review.
        let md = concat!(
            "Plan:\n\n```yaml\ntool: reply\nmessage: \"LGTM\"\n```\n\n",
            "~~~Yml\n- tool: read_file\n  path: a.md\n- tool: noop\n~~~\n\n",
            "    tool: indented\n\n```python\ntool = 1\n```\n\n",
            "- in a list\n\n  ````YAML extra\n  tool: listed\n  ````\n\n",
            "> ```yaml\n> tool: quoted\n> ```\n\n",
            "```yaml\ntool: [broken\n```\n\n```yaml\nno_tool: here\n```\n\n",
            "```yaml\n- tool: a\n- 3\n```\n\n```yaml\n[]\n```\n\n```yaml\ntool: 5\n```\n\n",
            "```yaml\ntool: unclosed\nruns: to the end\n",
        );
        let entries: Vec<Value> = parse(md)
            .into_iter()
            .map(|p| match p {
                Parsed::Call(c) => json!({"tool": c.tool, "params": c.params, "block": c.block, "line": c.line}),
                Parsed::Error(e) => json!({"error": e.message, "block": e.block, "line": e.line}),
            })
            .collect();
        insta::assert_json_snapshot!(entries);
    }

    /// The text of each YAML block as the events give it, concatenated (the reference).
    fn event_texts(md: &str) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        let mut current: Option<(usize, String)> = None;
        for (event, range) in Parser::new_ext(md, Options::empty()).into_offset_iter() {
            match event {
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if is_yaml(&info) => {
                    current = Some((md[..range.start].matches('\n').count() + 1, String::new()))
                }
                Event::Text(t) => {
                    if let Some((_, s)) = current.as_mut() {
                        s.push_str(&t)
                    }
                }
                Event::End(TagEnd::CodeBlock) => out.extend(current.take()),
                _ => {}
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,400}") {
            let _ = parse(&s);
        }

        #[test]
        fn block_text_and_line_are_what_the_events_say(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "```yaml\n", "~~~YML x\n", "```\n", "~~~\n", "````yaml\n", "> ", "- ", "1. ", "  ", "    ",
                "\t", "\r\n", "\n", "\n\n", "tool: a\n", "k: [1, 2]\n", "text *em* `c`", "é",
            ]), 0..40)
        ) {
            let md: String = parts.concat();
            let mut got = Vec::new();
            for_each_yaml_block(&md, |b| got.push((b.line, b.content.as_str(&md).to_owned())));
            proptest::prop_assert_eq!(got, event_texts(&md));
        }

        #[test]
        fn two_threads_and_one_agree(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                "```yaml\n", "~~~yml\n", "```\n", "> ", "- ", "\n\n", "tool: a\n", "- tool: b\n", "x: [\n", "k: 1\n",
            ]), 0..30),
            repeat in 1..40usize,
        ) {
            // Repeated, so that some answers have more blocks than a batch and some fewer.
            let md: String = parts.concat().repeat(repeat);
            proptest::prop_assert_eq!(parse_shared(&md, crate::open), parse_sequential(&md, crate::open));
        }

        #[test]
        fn never_panics_on_fenced_noise(body in "[ -~\\n]{0,200}") {
            let _ = parse(&format!("```yaml\n{body}\n```\n"));
        }
    }
}
