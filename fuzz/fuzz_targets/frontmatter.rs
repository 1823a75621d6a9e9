//! Markdown with YAML frontmatter: any document (`Doc`), an inbox item, a mail.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = cn_storage::Doc::parse(text);
    let _ = cn_agent::Item::parse(text);
    let _ = cn_agent::Mail::parse(text);
});
