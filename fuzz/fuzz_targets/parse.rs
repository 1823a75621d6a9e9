//! A model's answer: markdown whose fenced YAML blocks become tool calls (`cn_compute::parse`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = cn_compute::parse(text);
});
