//! The schedule's cron expressions and time zones (cn.yaml and `cn schedule add` are typed by
//! people, peers' mail can carry them), fed arbitrary text: each may refuse, none may panic,
//! and a parsed expression gives its next firings without panicking. The quick companion of
//! the libFuzzer targets under `fuzz/`.

use cn_testkit::hostile::{config, texty};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn cron_expressions(s in texty()) {
        if let Ok(c) = s.parse::<cn_cron::Cron>() {
            let tz = jiff::tz::TimeZone::UTC;
            let _ = c.next_n(jiff::Timestamp::UNIX_EPOCH, &tz, 3);
        }
        let _ = cn_cron::time_zone(&s);
    }
}
