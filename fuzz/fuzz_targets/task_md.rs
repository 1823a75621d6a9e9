//! A loop's `task.md`, and a controller model's answer about it.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = cn_loops::Task::parse(text, &cn_loops::Defaults::default());
    let _ = cn_loops::parse_answer(text);
});
