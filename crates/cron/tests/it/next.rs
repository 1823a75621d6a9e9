//! The schedule's cron expressions, as `cn schedule next CRON --after T -n N [--tz TZ]`
//! prints them (`Cron::next_n`, each time `cron::rfc3339`): fire times strictly after `T`,
//! names, ranges, steps and lists, time zones; an invalid expression names its field.

use cn_cron::{self as cron, Cron};

/// The next `n` fire times of `expr` after `after` in `tz`, as RFC 3339 lines.
fn next(expr: &str, after: &str, n: usize, tz: &str) -> Vec<String> {
    let c: Cron = expr.parse().unwrap_or_else(|e: cron::CronError| panic!("{expr}: {}", cn_compute::chain(&e)));
    let tz = cron::time_zone(tz).unwrap();
    let after: jiff::Timestamp = after.parse().unwrap();
    c.next_n(after, &tz, n).unwrap().iter().map(cron::rfc3339).collect()
}

#[test]
fn next_gives_fire_times_strictly_after() {
    // DOM and DOW both restricted: the 13th OR a Friday. 2026-02-13 is both; 2026-01-13 a Tuesday.
    assert_eq!(
        next("0 0 13 * 5", "2026-01-10T00:00:00Z", 5, "UTC"),
        [
            "2026-01-13T00:00:00Z",
            "2026-01-16T00:00:00Z",
            "2026-01-23T00:00:00Z",
            "2026-01-30T00:00:00Z",
            "2026-02-06T00:00:00Z"
        ]
    );
    // Strictly after: a fire time equal to `after` is not given.
    assert_eq!(next("30 9 * * *", "2026-01-10T09:30:00Z", 2, "UTC"), ["2026-01-11T09:30:00Z", "2026-01-12T09:30:00Z"]);
    // `N/step` starts at N: 5,20,35,50.
    assert_eq!(
        next("5/15 10 * * *", "2026-01-10T10:00:00Z", 4, "UTC"),
        ["2026-01-10T10:05:00Z", "2026-01-10T10:20:00Z", "2026-01-10T10:35:00Z", "2026-01-10T10:50:00Z"]
    );
}

#[test]
fn names_ranges_steps_lists_and_time_zones() {
    // 2026-02-02 is a Monday.
    assert_eq!(
        next("*/30 8-9 * jan,Feb MON-wed", "2026-01-31T23:00:00Z", 5, "UTC"),
        [
            "2026-02-02T08:00:00Z",
            "2026-02-02T08:30:00Z",
            "2026-02-02T09:00:00Z",
            "2026-02-02T09:30:00Z",
            "2026-02-03T08:00:00Z"
        ]
    );
    assert_eq!(
        next("0 9 * * *", "2026-03-28T12:00:00Z", 2, "Europe/Berlin"),
        ["2026-03-29T09:00:00+02:00", "2026-03-30T09:00:00+02:00"]
    );
}

#[test]
fn invalid_expressions_name_the_field() {
    for (expr, field) in [
        ("61 * * * *", "minute"),
        ("* 24 * * *", "hour"),
        ("* * 32 * *", "day-of-month"),
        ("* * * 13 *", "month"),
        ("* * * * 8", "day-of-week"),
        ("* * * * FRY", "day-of-week"),
    ] {
        let err = expr.parse::<Cron>().expect_err(expr);
        let said = cn_compute::chain(&err);
        assert!(said.contains(field), "{expr}: {said}");
    }
    let err = "0 0 * * * *".parse::<Cron>().expect_err("six fields");
    assert!(cn_compute::chain(&err).contains("expected 5"), "{}", cn_compute::chain(&err));
}
