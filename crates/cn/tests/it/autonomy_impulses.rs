//! `cn task`, `cn idea` against the real binary and real files: the document's formats,
//! hub discovery, and malformed files reported (file, line, field) and left alone.

use std::path::Path;
use std::process::{Command, Output};

fn cn(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cn")).current_dir(dir).args(args).env_remove("CN_HUB").output().unwrap()
}

fn ok(out: Output) -> String {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn hub() -> tempfile::TempDir {
    let hub = tempfile::tempdir().unwrap();
    std::fs::write(hub.path().join("cn.yaml"), "name: test\n").unwrap();
    hub
}

#[test]
fn tasks_are_added_listed_and_done_in_the_documents_format() {
    let hub = hub();
    // Found from a subdirectory, upwards to cn.yaml.
    let sub = hub.path().join("threads/inbox");
    std::fs::create_dir_all(&sub).unwrap();
    let id = ok(cn(
        &sub,
        &[
            "task",
            "add",
            "Review PR #42",
            "--due",
            "2026-01-07T10:00:00Z",
            "--priority",
            "1",
            "--context",
            "Promised in conversation",
        ],
    ));
    let id = id.trim();
    assert!(id.starts_with("task-"), "{id}");
    let later = ok(cn(hub.path(), &["task", "add", "Write the changelog"]));
    let text = std::fs::read_to_string(hub.path().join("state/tasks.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v[0],
        serde_json::json!({"id": id, "task": "Review PR #42", "due": "2026-01-07T10:00:00Z", "priority": 1, "context": "Promised in conversation"})
    );
    let list = ok(cn(hub.path(), &["task", "list"]));
    let rows: Vec<&str> = list.lines().collect();
    assert_eq!(rows.len(), 2);
    assert!(rows[0].starts_with(id) && rows[0].contains("2026-01-07T10:00:00Z") && rows[0].contains("p1"), "{list}");
    assert!(rows[1].starts_with(later.trim()));
    ok(cn(hub.path(), &["task", "done", id]));
    assert_eq!(ok(cn(hub.path(), &["task", "list"])).lines().count(), 1);
    let all: serde_json::Value =
        serde_json::from_str(&ok(cn(hub.path(), &["task", "list", "--all", "--json"]))).unwrap();
    // One order: the open tasks first, then the done ones.
    let done: Vec<&serde_json::Value> = all.as_array().unwrap().iter().filter(|t| t["id"] == id).collect();
    assert_eq!(done[0]["done"], true);
    assert_eq!(all[1]["id"], id, "the done task comes after the open one: {all}");
    // Usage errors exit 2.
    assert_eq!(cn(hub.path(), &["task", "add", "x", "--due", "whenever"]).status.code(), Some(2));
    assert_eq!(cn(hub.path(), &["task", "add", "x", "--priority", "9"]).status.code(), Some(2));
    assert_eq!(cn(hub.path(), &["task", "done", "task-nope"]).status.code(), Some(2));
}

/// The due `cn task add --due TEXT` stored, in a hub whose zone is Pacific/Auckland.
fn due_of(hub: &Path, text: &str) -> jiff::Timestamp {
    let id = ok(cn(hub, &["task", "add", "call the plumber", "--due", text]));
    let tasks: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/tasks.json")).unwrap()).unwrap();
    let task = tasks.as_array().unwrap().iter().find(|t| t["id"] == id.trim()).unwrap().clone();
    task["due"].as_str().unwrap().parse().unwrap()
}

#[test]
fn due_words_are_read_in_the_hubs_zone() {
    use jiff::civil::{time, Weekday};
    use jiff::{tz::TimeZone, Timestamp};
    let hub = tempfile::tempdir().unwrap();
    std::fs::write(hub.path().join("cn.yaml"), "name: test\nreflexes:\n  time_zone: Pacific/Auckland\n").unwrap();
    let zone = TimeZone::get("Pacific/Auckland").unwrap();
    // What the words mean on the day the test runs, before and after (a run across midnight).
    let expected = |f: &dyn Fn(jiff::civil::Date) -> jiff::civil::Date| {
        let day = Timestamp::now().to_zoned(zone.clone()).date();
        f(day).to_datetime(time(9, 0, 0, 0)).to_zoned(zone.clone()).unwrap().timestamp()
    };
    let friday = |d: jiff::civil::Date| d.nth_weekday(1, Weekday::Friday).unwrap();
    let tomorrow = |d: jiff::civil::Date| d.tomorrow().unwrap();
    for (text, day) in [("friday", &friday as &dyn Fn(_) -> _), ("tomorrow 9am", &tomorrow), ("tmrw at 9", &tomorrow)] {
        let before = expected(day);
        let got = due_of(hub.path(), text);
        let after = expected(day);
        assert!(got == before || got == after, "--due {text}: {got}, not {before}");
    }
    // The machine forms stay exact.
    assert_eq!(due_of(hub.path(), "2026-01-07T10:00:00Z").to_string(), "2026-01-07T10:00:00Z");
    assert_eq!(due_of(hub.path(), "2026-01-07").to_string(), "2026-01-06T11:00:00Z");
    // A phrase that cannot be read is refused, named, with the forms that can.
    let out = cn(hub.path(), &["task", "add", "x", "--due", "garbage"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`garbage`") && err.contains("RFC 3339") && err.contains("tomorrow 9am"), "{err}");
}

#[test]
fn ideas_are_added_listed_and_removed() {
    let hub = hub();
    let id = ok(cn(
        hub.path(),
        &[
            "idea",
            "add",
            "Research how biological memory consolidation works",
            "--sparked-by",
            "conversation about memory architecture",
        ],
    ));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(hub.path().join("state/ideas.json")).unwrap()).unwrap();
    assert_eq!(v[0]["id"], id.trim());
    assert_eq!(v[0]["idea"], "Research how biological memory consolidation works");
    assert_eq!(v[0]["sparked_by"], "conversation about memory architecture");
    assert!(v[0]["added"].as_str().unwrap().ends_with('Z'));
    let list = ok(cn(hub.path(), &["idea", "list"]));
    assert!(list.contains("memory consolidation") && list.contains("(sparked by conversation"), "{list}");
    // How interesting it is, from --interest; `cn idea rm` removes one.
    let keen = ok(cn(hub.path(), &["idea", "add", "How tides work", "--interest", "5"])).trim().to_string();
    let ideas: serde_json::Value = serde_json::from_str(&ok(cn(hub.path(), &["idea", "list", "--json"]))).unwrap();
    assert_eq!(ideas.as_array().unwrap().iter().find(|i| i["id"] == keen.as_str()).unwrap()["interest"], 5, "{ideas}");
    ok(cn(hub.path(), &["idea", "rm", &keen]));
    let list = ok(cn(hub.path(), &["idea", "list"]));
    assert!(!list.contains("tides") && list.contains("memory consolidation"), "{list}");
}

#[test]
fn a_malformed_file_is_reported_with_line_and_field_and_not_overwritten() {
    let hub = hub();
    let path = hub.path().join("state/tasks.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = "[\n  {\"id\": \"task-1\", \"task\": \"ok\"},\n  {\"id\": \"task-2\", \"task\": \"bad\", \"priority\": \"high\"}\n]\n";
    std::fs::write(&path, text).unwrap();
    for args in [&["task", "list"][..], &["task", "add", "more"][..]] {
        let out = cn(hub.path(), args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("tasks.json: line 3") && err.contains("[1].priority"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
}

#[test]
fn no_hub_is_an_error_that_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = cn(dir.path(), &["task", "list"]);
    assert_eq!(out.status.code(), Some(2), "README: no hub here is bad usage");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds cn.yaml") && err.contains("cn init"), "{err}");
    // CN_HUB names it.
    let hub = hub();
    let out = Command::new(env!("CARGO_BIN_EXE_cn"))
        .current_dir(dir.path())
        .env("CN_HUB", hub.path())
        .args(["idea", "list"])
        .output()
        .unwrap();
    assert!(out.status.success());
}
