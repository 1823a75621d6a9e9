//! A calendar feed (iCalendar text) read into events.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = cn_autonomy::senses::calendar::events(text);
});
