//! Small things a user tripped on with `cn init` and the commands after it (issue 18), as the
//! binary says them. That init commits only its own files and a run none of its runtime
//! files is cn-daemon's test (crates/daemon/tests/it/init_run.rs).

use crate::daemon_common;

use std::process::Command;

use daemon_common::*;

/// Small things a user tripped on (issue 18, item 9).
#[test]
fn small_things_are_refused_or_said_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dir.path().join("ada");
    cn_ok(dir.path(), &["init", hub.to_str().unwrap()]);
    let cn = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_cn")).arg("--hub").arg(&hub).args(args).output().unwrap();
    // No hub here: exit 2, as README says.
    let nowhere = dir.path().join("empty");
    std::fs::create_dir(&nowhere).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cn"))
        .current_dir(&nowhere)
        .env_remove("CN_HUB")
        .arg("input")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    // A broken reflex is reported once, in plain text when stderr is not a terminal.
    std::fs::write(hub.join("state/reflexes/broken.yaml"), "name: broken\ntrigger:\n  pattern: \"(oops\"\n").unwrap();
    let out = cn(&["run", "--until-idle"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("broken.yaml").count(), 1, "{err}");
    assert!(!err.contains('\u{1b}'), "colour codes in a pipe: {err:?}");
    std::fs::remove_file(hub.join("state/reflexes/broken.yaml")).unwrap();
    // An empty --message is refused, naming the flag.
    cn_ok(&hub, &["chat", "--no-wait", "a question"]);
    cn_ok(&hub, &["input"]);
    let out = cn(&["out", "do", "reply", "--message", ""]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--message is empty"), "{out:?}");
    // An impossible cron is refused when added.
    let out = cn(&["schedule", "add", "never", "0 0 31 2 *", "Check February 31st"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("never fires"), "{out:?}");
    // A past --until is said.
    let out = cn(&["out", "defer", "--reason", "later", "--until", "2001-01-01"]);
    assert!(out.status.success() && String::from_utf8_lossy(&out.stderr).contains("in the past"), "{out:?}");
    // Entries can be removed: schedule, peer.
    cn_ok(&hub, &["schedule", "add", "tea", "0 16 * * *", "Tea"]);
    cn_ok(&hub, &["schedule", "rm", "tea"]);
    assert!(!cn_ok(&hub, &["schedule", "list"]).contains("tea"));
    assert_eq!(cn(&["schedule", "rm", "tea"]).status.code(), Some(2));
    cn_ok(&hub, &["peer", "add", "pi", "/srv/pi.git"]);
    cn_ok(&hub, &["peer", "rm", "pi"]);
    assert!(!cn_ok(&hub, &["peer", "list"]).contains("pi"));
    // A misspelt key in cn.yaml: named, with a suggestion.
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace("budget:", "bugdet:");
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    let out = cn(&["run", "--once"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("cn.yaml") && err.contains("bugdet") && err.contains("did you mean `budget`?"), "{err}");
}

/// An error names what failed and where, and its cause once (ARCHITECTURE.md, errors): the
/// library keeps the system's error as the source, and `cn` prints the chain. (The state
/// file's error used to be in its message and its source, so `cn` said it twice.)
#[test]
fn an_unreadable_state_file_is_named_and_its_cause_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let tasks = hub.join("state/tasks.json");
    std::fs::remove_file(&tasks).unwrap();
    std::fs::create_dir(&tasks).unwrap();
    for args in [&["task", "list"][..], &["task", "add", "Call the dentist"]] {
        let out = cn_cmd(&hub).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("state/tasks.json: Is a directory"), "{args:?}: {err}");
        assert_eq!(err.matches("Is a directory").count(), 1, "{args:?}: {err}");
    }
}
