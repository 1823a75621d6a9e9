//! A person's message to the routine (issue 41): the learned understanding, the time reader
//! and the routine's parser, on any text — none may panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let now: cn_autonomy::jiff::Zoned = "2026-11-26T14:30:00[Europe/Paris]".parse().expect("a fixed now");
    let _ = cn_reflex::routine::learned::clause(text, &now);
    let _ = cn_reflex::routine::parse(text, &now);
    let _ = cn_reflex::when::numbers::normalize(text);
});
