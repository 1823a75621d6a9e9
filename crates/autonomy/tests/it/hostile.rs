//! What the senses read from outside — GitHub's webhook bodies (JSON or form-encoded, any
//! shape) and iCalendar feeds — fed arbitrary bytes and text biased toward their syntax:
//! each may refuse, none may panic (release builds abort on panic, so a panic is a dead
//! daemon). The quick companion of the libFuzzer targets under `fuzz/`.

use cn_testkit::hostile::{arb_json, bytes, config, texty};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn webhook_payloads(b in bytes(), event in texty(), form in any::<bool>()) {
        let ct = if form { "application/x-www-form-urlencoded" } else { "application/json" };
        if let Ok(v) = cn_autonomy::senses::github::webhook_payload(Some(ct), &b) {
            let _ = cn_autonomy::senses::github::percept_for(&event, &v, &[], None);
        }
    }

    #[test]
    fn webhook_payload_shapes(v in arb_json(), event in prop::sample::select(vec!["issues", "issue_comment", "pull_request", "push", "ping", "x"])) {
        let _ = cn_autonomy::senses::github::percept_for(event, &v, &["o".to_string()], None);
    }

    #[test]
    fn icalendar(s in texty()) {
        let _ = cn_autonomy::senses::calendar::events(&s);
    }
}
