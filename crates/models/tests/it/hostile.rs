//! The providers' streamed answers (Anthropic's and OpenAI's server-sent events, Ollama's
//! JSON lines), fed arbitrary bytes: each may refuse, none may panic (release builds abort on
//! panic, so a panic is a dead daemon). The quick companion of the libFuzzer targets under
//! `fuzz/`.

use std::io::Cursor;

use cn_testkit::hostile::{bytes, config};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn model_stream_lines(b in bytes()) {
        let _ = cn_models::provider::anthropic::read_stream(Cursor::new(b.clone()));
        let _ = cn_models::provider::openai::read_stream(Cursor::new(b.clone()));
        let _ = cn_models::provider::ollama::read_stream(Cursor::new(b));
    }
}
