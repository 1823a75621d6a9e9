//! The journal rotates (issue 16): with a tiny `journal.rotate_bytes`, many decisions made by
//! the real `cn out` leave the journal in numbered segments under `state/journal/`, committed
//! with the hub, and `cn journal` and `cn journal why` still read every entry, an old
//! segment's included. (The control room's live journal across a rotation is cn-daemon's,
//! crates/daemon/tests/it/live_journal.rs; a misspelt `journal:` key is cn-hub's.)

use crate::agent_common;

use agent_common::*;

#[test]
fn many_decisions_rotate_the_journal_and_every_reader_still_finds_them() {
    let root = tempfile::tempdir().unwrap();
    let (hub, _) = hub_with_origin(root.path(), "rot");
    let config = hub.join("cn.yaml");
    let mut yaml = std::fs::read_to_string(&config).unwrap();
    yaml.push_str("\njournal:\n  rotate_bytes: 1500\n");
    std::fs::write(&config, yaml).unwrap();
    git(&hub, &["commit", "-qam", "tiny journal segments"]);

    let n = 30;
    for i in 0..n {
        let id = format!("item-{i:02}");
        put_item(&hub, &id, "pi", "inbox", &format!("2026-01-06T15:{i:02}:00Z"), &format!("note {i}"));
        cn_ok(&hub, &["input"]);
        cn_ok(&hub, &["out", "do", "ack", "--reason", &format!("seen {i}")]);
    }

    let segments = hub.join("state/journal");
    let mut names: Vec<String> =
        std::fs::read_dir(&segments).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert!(names.len() >= 3, "the journal rotated several times: {names:?}");
    assert_eq!(names[0], "000001.jsonl");
    let first = std::fs::read_to_string(segments.join(&names[0])).unwrap();
    assert!(first.contains("\"item-00\""), "the oldest decisions are in the first segment: {first}");
    assert!(!std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap_or_default().contains("\"item-00\""));

    // Every decision, once, oldest first, across the segments and the live file.
    let listed = cn_ok(&hub, &["journal", "--type", "decision", "--json"]);
    let ids: Vec<String> = listed
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (0..n).map(|i| format!("item-{i:02}")).collect();
    assert_eq!(ids, expected);

    // "Why?" of an entry in the oldest segment: its decision, and the commit that recorded it.
    let why = cn_ok(&hub, &["journal", "why", "item-00"]);
    assert!(why.contains("seen 0"), "{why}");
    assert!(why.contains("commit"), "{why}");

    // The segments are history: committed with the hub, nothing left untracked.
    let tracked = git(&hub, &["ls-files", "state/journal"]);
    for name in &names {
        assert!(tracked.contains(&format!("state/journal/{name}")), "{name} is committed: {tracked}");
    }
    assert_eq!(git(&hub, &["status", "--porcelain"]), "");
}
