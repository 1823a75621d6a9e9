//! A schedule entry's cron expression and time zone name; a valid expression is also run.
#![no_main]
use cn_autonomy::jiff::{tz::TimeZone, Timestamp};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let (expr, zone) = text.split_once('\n').unwrap_or((text, "UTC"));
    let tz = cn_autonomy::cron::time_zone(zone).unwrap_or(TimeZone::UTC);
    if let Ok(cron) = expr.parse::<cn_autonomy::cron::Cron>() {
        let _ = cron.next_n(Timestamp::UNIX_EPOCH, &tz, 3);
        let _ = cron.last_between(
            Timestamp::UNIX_EPOCH,
            Timestamp::from_second(86_400 * 40).unwrap_or(Timestamp::MAX),
            &tz,
        );
    }
});
