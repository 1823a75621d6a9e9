//! A GitHub webhook delivery sent as `application/x-www-form-urlencoded`: the first line is the
//! `X-GitHub-Event` header, the rest the body.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let nl = data.iter().position(|&b| b == b'\n').unwrap_or(0);
    let (event, body) = data.split_at(nl);
    let event = String::from_utf8_lossy(event);
    let body = body.get(1..).unwrap_or_default();
    if let Ok(payload) = cn_autonomy::senses::github::webhook_payload(Some("application/x-www-form-urlencoded"), body) {
        let _ = cn_autonomy::senses::github::percept_for(&event, &payload, &["owner".to_string()], None);
    }
});
