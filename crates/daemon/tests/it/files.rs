//! The files sense senses changes, not reads, and never cn's own writes (issue 18: the
//! README's `files:` example made 82 items and ~70 commits in 35 s — reads of the watched
//! folder and cn's own `git add -A` after every decision counted as changes).

use crate::common::*;

const REPLIES: &str = "cat > /dev/null\nprintf '```yaml\\ntool: reply\\nmessage: the plan is on track\\n```\\n'\n";

#[test]
fn reads_and_cns_own_writes_make_no_item_and_an_edit_makes_one() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", REPLIES, "");
    let yaml = std::fs::read_to_string(hub.join("cn.yaml"))
        .unwrap()
        .replace("  bind: 127.0.0.1:0\n", "  bind: 127.0.0.1:0\n  files: {paths: [notes, .], debounce: 100ms}\n");
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    std::fs::create_dir(hub.join("notes")).unwrap();
    std::fs::write(hub.join("notes/read-only.md"), "only ever read\n").unwrap();
    std::fs::write(hub.join("notes/plan.md"), "v1\n").unwrap();
    let mut daemon = Daemon::start(&hub);
    let url = daemon.owner_url();

    // The agent decides items (each decision writes threads/, state/, and commits with
    // `git add -A`, which reads every file in the tree); a person reads the notes.
    for i in 0..3 {
        let out = chat(&hub, &url, &format!("question {i}"));
        assert_eq!(out.trim(), "the plan is on track");
        assert_eq!(std::fs::read_to_string(hub.join("notes/read-only.md")).unwrap(), "only ever read\n");
    }
    // A real edit: one item for it, and none for the file only read.
    std::fs::write(hub.join("notes/plan.md"), "v2\n").unwrap();
    let edited = wait_until(MINUTE, "the edit to become an item", || {
        journal(&hub)
            .into_iter()
            .find(|e| e["outcome"] == "selected" && e["summary"].as_str().is_some_and(|s| s.contains("notes/plan.md")))
    });
    assert_eq!(edited["data"]["merged"], serde_json::json!([]), "reads were coalesced into it: {edited}");
    let files: Vec<_> = journal(&hub)
        .into_iter()
        .filter(|e| e["outcome"] == "selected" && e["source"] == "file")
        .map(|e| e["summary"].clone())
        .collect();
    assert_eq!(files.len(), 1, "only the edit is a change: {files:#?}");
    daemon.stop();
}
