//! A model's streamed answer as server-sent events: Anthropic's and OpenAI-compatible.
#![no_main]
use std::io::Cursor;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cn_models::provider::anthropic::read_stream(Cursor::new(data));
    let _ = cn_models::provider::openai::read_stream(Cursor::new(data));
});
