//! A peer mail's envelope (its commit, read as bytes), checked against a mail's bytes, and
//! the mail itself once decoded.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(envelope) = cn_agent::envelope::Envelope::from_commit(data) {
        let _ = envelope.check("peer", "me", "id", data);
        let _ = envelope.render();
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = cn_agent::Mail::parse(text);
    }
});
