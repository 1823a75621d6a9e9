//! What a peer's mail may not do to a run: pre-file the item of a schedule firing (a
//! predictable id) so the run never happens. (A peer's `reply-to` is cn-agent's test:
//! crates/agent/tests/it/trust_peers.rs.)

use cn_daemon::RunMode;
use cn_testkit::hub::journal;

use crate::promises::{run, scripted_hub};

/// Anything that reaches a model is acknowledged.
const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

#[test]
fn a_peer_cannot_pre_file_a_schedule_firing() {
    let dir = tempfile::tempdir().unwrap();
    let ada = scripted_hub(dir.path(), ACK, ACK);
    // A nightly entry that was missed: it catches up at start, for the last midnight (UTC).
    std::fs::write(
        ada.join("state/schedule.json"),
        r#"[{"name": "nightly", "cron": "0 0 * * *", "action": "Check the backups"}]"#,
    )
    .unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let midnight = now - now % 86_400;
    let before = cn_storage::rfc3339(jiff::Timestamp::from_second((midnight - 2 * 86_400) as i64).unwrap());
    std::fs::write(
        ada.join("state/schedule-state.json"),
        serde_json::json!({"nightly": {"last_fired": before}}).to_string(),
    )
    .unwrap();
    // The id the firing's item would have if ids were a public function of the schedule: a
    // peer's mail filed under it (`cn sync` files mail under the mail's own id).
    let guessed = cn_hub::id::stable(&format!("schedule-nightly-{midnight}"));
    std::fs::write(
        ada.join(format!("threads/inbox/{guessed}.md")),
        format!(
            "---\nid: {guessed}\nfrom: mallory\ncadence: inbox\nqueued: 2026-11-23T00:00:00Z\n---\n\nnothing to see\n"
        ),
    )
    .unwrap();
    run(&ada, RunMode::UntilIdle);
    let entries = journal(&ada);
    let fired = entries
        .iter()
        .find(|e| e["type"] == "impulse" && e["summary"].as_str().is_some_and(|t| t.starts_with("Scheduled: nightly")))
        .expect("the schedule fired");
    assert_ne!(fired["id"], guessed.as_str(), "the firing's item id was guessable");
    let ran = entries.iter().any(|e| e["type"] == "decision" && e["id"] == fired["id"]);
    assert!(ran, "the schedule ran under an id of its own: {entries:#?}");
}
