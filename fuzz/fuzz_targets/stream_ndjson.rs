//! A model's streamed answer as newline-delimited JSON (Ollama).
#![no_main]
use std::io::Cursor;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cn_models::provider::ollama::read_stream(Cursor::new(data));
});
