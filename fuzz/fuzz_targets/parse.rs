//! A model's answer: markdown whose fenced YAML blocks become tool calls (`cn_compute::parse`),
//! and the daemon's reading of them, the op tools' params typed (`cn_agent::read_call`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = cn_compute::parse(text);
    let _ = cn_compute::parse_with(text, cn_agent::read_call);
});
