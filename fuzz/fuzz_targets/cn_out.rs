//! `cn out`'s arguments (also what the MCP `out` tool and a model's op call become): the
//! input is split on NUL bytes into words.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let words: Vec<&str> = if text.is_empty() { Vec::new() } else { text.split('\0').collect() };
    let _ = cn_agent::parse_out(&words);
});
