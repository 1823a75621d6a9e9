//! The agent keeps its word (issue 18): an owner's request is answered or handed up, never
//! dropped by a level below the executive; a task is done only when a decision does it; a
//! promise becomes a task followed up.

mod daemon_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use daemon_common::*;

/// A default hub, as `cn init` writes it: level 2 is the embedded SmolLM2, no executive.
fn default_hub(root: &Path, name: &str) -> PathBuf {
    let hub = root.join(name);
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).arg("init").arg(&hub).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    hub
}

/// The finding, on the embedded model: "Can you review …" → `do noop: No action
/// taken`. Now the local level hands the request up, honestly, with a time to come back.
#[test]
fn an_owner_request_at_level_2_is_never_closed_by_a_noop() {
    let dir = tempfile::tempdir().unwrap();
    let hub = default_hub(dir.path(), "ada");
    for request in [
        "Can you review the draft of my blog post by Friday?",
        "Please add a task to call the dentist tomorrow",
        "Delete the old notes, they are useless",
    ] {
        let out = cn_ok(&hub, &["chat", request]);
        // What was done, in words: not an op's reason passed off as an answer.
        assert!(out.starts_with(cn_agent::HAND_UP) || !out.contains("No action taken"), "{request}: {out}");
    }
    let entries = journal(&hub);
    let decisions: Vec<_> = entries.iter().filter(|e| e["type"] == "decision" && e["from"] == "owner").collect();
    assert_eq!(decisions.len(), 3, "{decisions:#?}");
    for d in &decisions {
        let closed = d["gtd"] == "delete" || d["op"] == "noop" || d["op"] == "ack";
        assert!(!closed, "a level-2 decision closed an owner request: {d}");
        if d["gtd"] == "defer" {
            assert!(d["until"].is_string(), "a defer without a time to come back: {d}");
            assert_eq!(d["reason"], cn_agent::HAND_UP, "{d}");
        }
    }
}
