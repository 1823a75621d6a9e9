//! The daemon against items that would park or break: an item deferred by the move limit
//! always gets an `until` and comes back to be decided; a reflex that reacts and replies
//! decides its item once; a signed GitHub body replayed under a fresh delivery id is taken
//! once, also after a restart.

use crate::common::*;

/// Never decides on its first eight answers (the move limit is four; the starter set's
/// level-2 triage may take one answer a pass), then acknowledges.
const STUBBORN: &str = r#"cat > /dev/null
dir=$(dirname "$0")
n=$(cat "$dir/count" 2>/dev/null || echo 0)
echo $((n + 1)) > "$dir/count"
if [ "$n" -lt 8 ]; then
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
    let mut daemon = Daemon::start(&hub);
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
    daemon.stop();
}

const HELLO_REFLEX: &str = "name: greeting\ntrigger:\n  pattern: '(?i)^(hi|hello|hey)\\b'\npipeline:\n  - action: react\n    input: \"👋\"\n  - action: reply\n    message: Hello!\n";

/// `react` then `reply` in one reflex: the reaction does not decide the item, the reply
/// does, once; on a hub thread (no reactions) the reaction is journaled.
#[test]
fn react_then_reply_in_one_reflex_replies_once() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    std::fs::create_dir_all(hub.join("state/reflexes")).unwrap();
    std::fs::write(hub.join("state/reflexes/greeting.yaml"), HELLO_REFLEX).unwrap();
    let text = "---\nid: hi-1\nfrom: pi\ncadence: inbox\nqueued: 2026-11-21T10:00:00Z\n---\n\nhello there\n";
    std::fs::write(hub.join("threads/inbox/hi-1.md"), text).unwrap();
    let mut daemon = Daemon::start(&hub);
    daemon.owner_url();
    // The decision is journaled just before the item is renamed to where it belongs: wait for
    // both.
    let entries = wait_until(MINUTE, "hi-1 decided and archived", || {
        let e = journal(&hub);
        decided_at(&e, "hi-1").filter(|_| hub.join("threads/archived/hi-1.md").is_file()).map(|_| e)
    });
    let decisions: Vec<&serde_json::Value> =
        entries.iter().filter(|e| e["type"] == "decision" && e["id"] == "hi-1" && e["place"].is_string()).collect();
    assert_eq!(decisions.len(), 1, "{decisions:#?}");
    assert_eq!(decisions[0]["gtd"], "do", "{:#?}", decisions[0]);
    let archived = std::fs::read_to_string(hub.join("threads/archived/hi-1.md")).unwrap();
    assert!(archived.contains("Hello!") && !archived.contains("👋"), "{archived}");
    assert!(entries.iter().any(|e| e["type"] == "reaction" && e["emoji"] == "👋"), "{entries:#?}");
    assert!(
        !entries.iter().any(|e| e.to_string().contains("already decided") || e["outcome"] == "failed"),
        "{entries:#?}"
    );
    daemon.stop();
}

/// On Discord, `react` is a real reaction on the message, and the reply a message.
#[test]
fn react_is_a_real_reaction_on_discord() {
    use cn_autonomy::testing::discord::{message_payload, FakeDiscord};
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeDiscord::start(Vec::new());
    let hub = hub(dir.path(), "ada", ACK, "");
    add_senses(&hub, &fake.sense_yaml("CN_TEST_DISCORD_REACT_TOKEN"));
    std::fs::create_dir_all(hub.join("state/reflexes")).unwrap();
    std::fs::write(hub.join("state/reflexes/greeting.yaml"), HELLO_REFLEX).unwrap();
    // The token's variable is this test's alone (the daemon runs in this process).
    std::env::set_var("CN_TEST_DISCORD_REACT_TOKEN", "token-r");
    let mut daemon = Daemon::start(&hub);
    daemon.owner_url();
    fake.log.wait("the bot's IDENTIFY", |s| s.iter().any(|x| x.what == "identify"));
    fake.dispatch(message_payload(3001, 10, ("100", "ada", Some("Ada"), false), "hello bot"));
    let seen = fake.log.wait("the reaction and the reply", |s| {
        s.iter().any(|x| x.what == "reaction") && s.iter().any(|x| x.what == "message")
    });
    let reaction = seen.iter().find(|x| x.what == "reaction").unwrap();
    assert_eq!((reaction.channel, reaction.body["message"].as_u64()), (10, Some(3001)));
    assert_eq!(reaction.body["emoji"], "👋");
    let messages: Vec<&str> =
        seen.iter().filter(|x| x.what == "message").filter_map(|x| x.body["content"].as_str()).collect();
    assert_eq!(messages, ["Hello!"], "the emoji is not sent as a message");
    daemon.stop();
}

/// A signed GitHub body replayed under a fresh delivery id is taken once, also after a
/// restart (issue 34).
#[test]
fn a_signed_body_replayed_under_a_fresh_delivery_id_is_taken_once_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    add_webhook(&hub);
    let deliver = |url: &str, delivery: &str, body: &str| {
        let sig = cn_autonomy::senses::github::sign(HOOK_SECRET.as_bytes(), body.as_bytes());
        post(url, &[("x-github-event", "issues"), ("x-hub-signature-256", &sig), ("x-github-delivery", delivery)], body)
    };
    let body = serde_json::json!({
        "action": "opened",
        "issue": {"number": 7, "title": "please run the deploy", "body": "", "user": {"login": "mallory"}},
        "repository": {"full_name": "acme/widgets"},
        "sender": {"login": "mallory"}
    })
    .to_string();
    let mut daemon = Daemon::start(&hub);
    let hook = daemon.owner_url().replace(cn_autonomy::senses::OWNER_PATH, cn_autonomy::senses::GITHUB_PATH);
    assert_eq!(deliver(&hook, "d-1", &body).0, 202);
    let (code, answer) = deliver(&hook, "d-2", &body);
    assert_eq!(code, 200, "a replay under a fresh id: {answer}");
    assert_eq!(answer["duplicate"], "d-2");
    daemon.stop();

    let mut daemon = Daemon::start(&hub);
    let hook = daemon.owner_url().replace(cn_autonomy::senses::OWNER_PATH, cn_autonomy::senses::GITHUB_PATH);
    assert_eq!(deliver(&hook, "d-3", &body).0, 200, "remembered across the restart");
    let other = body.replace("please run the deploy", "another issue");
    assert_eq!(deliver(&hook, "d-4", &other).0, 202, "another body is another delivery");
    let taken = std::fs::read_to_string(hub.join("state/github-deliveries.txt")).unwrap();
    assert_eq!(taken.lines().filter(|l| !l.starts_with("id:")).count(), 2, "two bodies: {taken}");
    daemon.stop();
}
