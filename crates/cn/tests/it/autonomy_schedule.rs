//! `cn schedule next|add|list` against the real binary: its defaults, exit codes and lines.
//! The cron expressions themselves are cn-cron's tests (crates/cron/tests/it/next.rs).

use std::process::{Command, Output};

fn cn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cn")).args(args).env_remove("CN_HUB").output().unwrap()
}

fn lines(out: &Output) -> Vec<String> {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn default_after_is_now() {
    let before = std::time::SystemTime::now();
    let out = cn(&["schedule", "next", "* * * * *", "-n", "3"]);
    let got = lines(&out);
    assert_eq!(got.len(), 3);
    let first: std::time::SystemTime = humantime_free_parse(&got[0]);
    assert!(first > before, "{} is not after now", got[0]);
}

/// Parse `YYYY-MM-DDTHH:MM:SSZ` without a time library: the binary's output format.
fn humantime_free_parse(s: &str) -> std::time::SystemTime {
    let d: Vec<i64> = s.trim_end_matches('Z').split(['-', 'T', ':']).map(|x| x.parse().unwrap()).collect();
    let (y, m, day) = (d[0], d[1], d[2]);
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let secs = days * 86_400 + d[3] * 3600 + d[4] * 60 + d[5];
    std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs as u64)
}

/// What each field accepts is cn-cron's test (crates/cron/tests/it/next.rs); here, that a bad
/// expression or `--after` is a usage error, on stderr, nothing printed.
#[test]
fn invalid_input_exits_2_naming_the_field() {
    let out = cn(&["schedule", "next", "* * * * FRY"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("day-of-week"));
    assert!(out.stdout.is_empty());
    let out = cn(&["schedule", "next", "* * * * *", "--after", "yesterday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--after `yesterday`"));
    assert!(out.stdout.is_empty());
}

#[test]
fn add_and_list_entries_in_the_documents_format() {
    let hub = tempfile::tempdir().unwrap();
    std::fs::write(hub.path().join("cn.yaml"), "name: test\n").unwrap();
    let h = hub.path().to_str().unwrap();
    let out = cn(&[
        "--hub",
        h,
        "schedule",
        "add",
        "morning-review",
        "0 9 * * *",
        "Check inbox, review commitments, plan day",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = cn(&[
        "--hub",
        h,
        "schedule",
        "add",
        "weekly",
        "0 8 * * MON",
        "Weekly reflection",
        "--tz",
        "Europe/Berlin",
        "--no-catch-up",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A duplicate name and a bad cron are usage errors; the file is unchanged.
    let before = std::fs::read_to_string(hub.path().join("state/schedule.json")).unwrap();
    assert_eq!(cn(&["--hub", h, "schedule", "add", "weekly", "0 8 * * *", "x"]).status.code(), Some(2));
    let bad = cn(&["--hub", h, "schedule", "add", "bad", "0 8 * * 9", "x"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("day-of-week"));
    assert_eq!(std::fs::read_to_string(hub.path().join("state/schedule.json")).unwrap(), before);

    let v: serde_json::Value = serde_json::from_str(&before).unwrap();
    assert_eq!(
        v[0],
        serde_json::json!({"name": "morning-review", "cron": "0 9 * * *", "action": "Check inbox, review commitments, plan day"})
    );
    assert_eq!(v[1]["tz"], "Europe/Berlin");
    assert_eq!(v[1]["catch_up"], false);
    let listed = lines(&cn(&["--hub", h, "schedule", "list"]));
    assert_eq!(listed.len(), 2);
    assert!(listed[0].starts_with("morning-review  `0 9 * * *` UTC  next "), "{}", listed[0]);
    assert!(listed[1].contains("+01:00") || listed[1].contains("+02:00"), "{}", listed[1]);
}
