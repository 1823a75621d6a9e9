//! parse — interpretation. Extracts every fenced YAML code block of a markdown answer, in
//! document order, and turns each into tool calls.
//!
//! A block is YAML when the first word of its info string is `yaml` or `yml` (any case).
//! CommonMark decides what a fence is (pulldown-cmark): backtick and tilde fences, longer
//! fences, fences in list items and block quotes, an unclosed fence running to the end.
//! Indented code blocks and other languages are prose, not calls.
//!
//! A block holding a mapping with a `tool` key is one call (its other keys are the params);
//! a sequence of such mappings is several calls, in order. Anything else becomes a
//! [`ParseError`] naming the block, the line of its opening fence and the YAML error, so the
//! model can be told next turn. Other blocks are unaffected, and nothing here panics.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use serde_json::{Map, Value};

use crate::{ParseError, Parsed, ToolCall};

pub fn parse(markdown: &str) -> Vec<Parsed> {
    let mut out = Vec::new();
    let mut lines = LineCounter::default();
    let mut current: Option<(usize, String)> = None; // (fence line, content)
    let mut block = 0usize;
    for (event, range) in Parser::new_ext(markdown, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) if is_yaml(&info) => {
                current = Some((lines.line_of(markdown, range.start), String::new()));
            }
            Event::Text(text) => {
                if let Some((_, content)) = current.as_mut() {
                    content.push_str(&text);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((line, content)) = current.take() {
                    block_calls(&content, block, line, &mut out);
                    block += 1;
                }
            }
            _ => {}
        }
    }
    out
}

fn is_yaml(info: &str) -> bool {
    info.split_whitespace()
        .next()
        .is_some_and(|w| w.eq_ignore_ascii_case("yaml") || w.eq_ignore_ascii_case("yml"))
}

/// Turn one block's text into calls, or into one error entry for the whole block.
fn block_calls(content: &str, block: usize, line: usize, out: &mut Vec<Parsed>) {
    let error = |message: String| Parsed::Error(ParseError { block, line, message });
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
        Value::Object(map) => match call(map, block, line) {
            Ok(c) => out.push(Parsed::Call(c)),
            Err(why) => out.push(error(format!("YAML block {block} at line {line}: {why}"))),
        },
        Value::Array(items) => {
            let mut calls = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                let result = match item {
                    Value::Object(map) => call(map, block, line),
                    other => Err(format!("is a {}, expected a mapping with a `tool` key", kind(&other))),
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

fn call(mut params: Map<String, Value>, block: usize, line: usize) -> Result<ToolCall, String> {
    match params.remove("tool") {
        Some(Value::String(tool)) if !tool.trim().is_empty() => Ok(ToolCall { tool, params, block, line }),
        Some(Value::String(_)) => Err("`tool` is empty".into()),
        Some(other) => Err(format!("`tool` is {}, expected the tool's name", kind(&other))),
        None => Err("has no `tool` key".into()),
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
        self.line += bytes[self.offset..offset].iter().filter(|&&b| b == b'\n').count();
        self.offset = offset;
        self.line + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn calls(md: &str) -> Vec<(String, Value)> {
        parse(md)
            .into_iter()
            .map(|p| match p {
                Parsed::Call(c) => (c.tool, Value::Object(c.params)),
                Parsed::Error(e) => ("!error".into(), json!({"block": e.block, "line": e.line})),
            })
            .collect()
    }

    #[test]
    fn mapping_is_one_call_and_sequence_is_several_in_order() {
        let md = "Hello\n\n```yaml\ntool: read\npath: a.txt\n```\n\ntext\n\n```yml\n- tool: one\n- tool: two\n  x: 1\n```\n";
        assert_eq!(
            calls(md),
            vec![
                ("read".into(), json!({"path": "a.txt"})),
                ("one".into(), json!({})),
                ("two".into(), json!({"x": 1})),
            ]
        );
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

    proptest::proptest! {
        #[test]
        fn never_panics(s in "\\PC{0,400}") {
            let _ = parse(&s);
        }

        #[test]
        fn never_panics_on_fenced_noise(body in "[ -~\\n]{0,200}") {
            let _ = parse(&format!("```yaml\n{body}\n```\n"));
        }
    }
}
