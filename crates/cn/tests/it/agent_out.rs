//! `cn init`, `cn input` and `cn out` as the binary says them: what they print, their exit
//! codes, a hub found from a subdirectory. What a decision does to the hub is cn-agent's
//! (`crates/agent/tests/it/out.rs`).

use crate::agent_common;

use agent_common::*;

fn hub() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (hub, _) = hub_with_origin(dir.path(), "sigma");
    (dir, hub)
}

#[test]
fn input_and_out_print_the_item_and_the_decision_and_exit_3_when_empty() {
    let (_d, hub) = hub();
    put_item(&hub, "abc123", "pi", "inbox", "2026-01-06T15:00:00Z", "Please review");
    put_item(&hub, "boss", "owner", "inbox", "2026-01-06T17:00:00Z", "owner first");
    assert_eq!(
        cn_ok(&hub, &["input", "--json"]),
        "{\"id\":\"boss\",\"from\":\"owner\",\"content\":\"owner first\\n\",\"cadence\":\"inbox\"}\n"
    );
    let out = cn_ok(&hub, &["out", "do", "reply", "--message", "LGTM", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["gtd"].as_str(), v["op"].as_str(), v["message"].as_str()), (Some("do"), Some("reply"), Some("LGTM")));
    let text = cn_ok(&hub, &["input"]);
    assert!(text.starts_with("---\nid: abc123\n"), "{text}");
    assert_eq!(std::fs::read_to_string(hub.join("state/input.md")).unwrap(), text);
    cn_ok(&hub, &["out", "do", "noop", "--reason", "done"]);
    // Nothing is current any more: exit 3.
    let again = cn(&hub, &["out", "do", "noop", "--reason", "twice"]);
    assert_eq!(again.status.code(), Some(3));
    // Empty queue: said so, exit 3 — from a subdirectory of the hub too.
    let empty = std::process::Command::new(env!("CARGO_BIN_EXE_cn"))
        .current_dir(hub.join("threads/inbox"))
        .env_remove("CN_HUB")
        .args(["input"])
        .output()
        .unwrap();
    assert_eq!(empty.status.code(), Some(3), "{}", String::from_utf8_lossy(&empty.stderr));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("empty"));
}

#[test]
fn bad_input_is_one_line_exit_2_and_writes_nothing() {
    let (_d, hub) = hub();
    put_item(&hub, "a1", "owner", "inbox", "2026-01-06T15:00:00Z", "x");
    cn_ok(&hub, &["input"]);
    let before = snapshot(&hub);
    let cases: &[&[&str]] = &[
        &[],
        &["done"],
        &["do"],
        &["do", "shout"],
        &["do", "reply"],
        &["do", "reply", "--message"],
        &["do", "send", "--to", "pi", "--message", "x"], // pi is not a peer
        &["do", "reply", "--message", "x", "--loud"],
        &["do", "reply", "stray", "--message", "x"],
        &["delegate"],
        &["do", "commit", "--artifact", "deadbeef"],
        &["defer", "--reason", "x", "--until", "tomorrow-ish"],
    ];
    for args in cases {
        let mut full = vec!["out"];
        full.extend_from_slice(args);
        let out = cn(&hub, &full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(changed(&snapshot(&hub), &before), Vec::<String>::new(), "{args:?} wrote something");
    }
    let err = String::from_utf8_lossy(&cn(&hub, &["out", "do", "reply"]).stderr).into_owned();
    assert!(err.contains("missing --message") && err.contains("usage: cn out do reply --message TEXT"), "{err}");
}

#[test]
fn dry_run_prints_and_writes_nothing() {
    let (_d, hub) = hub();
    put_item(&hub, "a1", "owner", "inbox", "2026-01-06T15:00:00Z", "x");
    cn_ok(&hub, &["input"]);
    let before = snapshot(&hub);
    let out = cn_ok(&hub, &["out", "do", "reply", "--message", "LGTM", "--dry-run", "--json"]);
    assert_eq!(out, "{\"gtd\":\"do\",\"op\":\"reply\",\"message\":\"LGTM\"}\n");
    let out = cn_ok(&hub, &["out", "--dry-run", "defer", "--reason", "waiting on review"]);
    assert!(out.contains("defer --reason \"waiting on review\""), "{out}");
    assert_eq!(changed(&snapshot(&hub), &before), Vec::<String>::new());
}
