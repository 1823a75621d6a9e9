//! The daemon against items that would park or break: an item deferred by the move limit
//! always gets an `until` and comes back to be decided.

mod daemon_common;

use std::time::Duration;

use daemon_common::*;

const MINUTE: Duration = Duration::from_secs(60);

/// Never decides on its first four answers (the move limit is four), then acknowledges.
const STUBBORN: &str = r#"cat > /dev/null
dir=$(dirname "$0")
n=$(cat "$dir/count" 2>/dev/null || echo 0)
echo $((n + 1)) > "$dir/count"
if [ "$n" -lt 4 ]; then
  printf 'Thinking.\n```yaml\ntool: read_file\npath: cn.yaml\n```\n'
else
  printf '```yaml\ntool: ack\nreason: done now\n```\n'
fi
"#;

#[test]
fn an_item_deferred_by_the_move_limit_comes_back_and_is_decided() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", STUBBORN, "pacing:\n  active: 1s\n  idle: 1s\n  retry_deferred: 2s\n");
    let text = "---\nid: stubborn-1\nfrom: pi\ncadence: inbox\nqueued: 2026-11-21T10:00:00Z\n---\n\nHard question\n";
    std::fs::write(hub.join("threads/inbox/stubborn-1.md"), text).unwrap();
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    let entries = wait_until(MINUTE, "the item deferred, then acknowledged", || {
        let e = journal(&hub);
        let acked = e.iter().any(|x| x["type"] == "decision" && x["id"] == "stubborn-1" && x["op"] == "ack");
        acked.then_some(e)
    });
    let deferred = entries
        .iter()
        .find(|x| x["type"] == "decision" && x["id"] == "stubborn-1" && x["gtd"] == "defer")
        .unwrap_or_else(|| panic!("deferred by the move limit first: {entries:#?}"));
    assert!(deferred["until"].as_str().is_some_and(|u| u.starts_with("20")), "{deferred}");
    assert!(daemon.stop().success());
}
