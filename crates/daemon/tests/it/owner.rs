//! The owner endpoint of a running daemon, with the owner's token: a message sent again under
//! its `Idempotency-Key` is one item, decided once; a body that is no owner message is refused
//! clearly and files nothing. (The token itself, and what `cn chat` does with it, are the
//! binary's: crates/cn/tests/it/trust_owner.rs.)

use std::time::Duration;

use crate::common::*;

const MODEL: &str = r#"prompt=$(cat)
case "$prompt" in
  *"From: owner"*) printf '```yaml\ntool: reply\nmessage: status is green\n```\n' ;;
  *) printf '```yaml\ntool: ack\nreason: seen\n```\n' ;;
esac
"#;

/// A message sent again under its `Idempotency-Key` (its answer lost, a 503 from a leased
/// hub, the clone that took over) is the same item, decided once: every send is answered
/// 202 with one id, a key that is not one is refused, and another key — or the same key
/// with another text — is another message.
#[test]
fn a_message_sent_again_under_its_idempotency_key_is_decided_once() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", MODEL, "");
    let mut daemon = Daemon::start(&hub);
    let url = daemon.owner_url();
    let (name, value) = owner_auth(&hub);
    let send = |key: &str, text: &str| {
        let (status, answer) =
            post(&url, &[(name, &value), ("idempotency-key", key)], &serde_json::json!({ "text": text }).to_string());
        assert_eq!(status, 202, "{answer}");
        answer["accepted"].as_str().unwrap().to_string()
    };
    let first: Vec<String> = (0..3).map(|_| send("chat-k1", "what is the status?")).collect();
    assert!(first.iter().all(|id| *id == first[0]), "one key, one item: {first:?}");
    let (status, answer) = post(&url, &[(name, &value), ("idempotency-key", "two words")], r#"{"text": "x"}"#);
    assert_eq!(status, 400, "{answer}");
    assert!(answer["error"].as_str().unwrap().contains("Idempotency-Key"), "{answer}");
    wait_until(Duration::from_secs(60), "the first message's decision", || decided_at(&journal(&hub), &first[0]));
    // Sent again after it was decided: the same id, nothing decided again.
    assert_eq!(send("chat-k1", "what is the status?"), first[0]);
    let second = send("chat-k2", "what is the status now?");
    assert_ne!(second, first[0], "another key is another message");
    wait_until(Duration::from_secs(60), "the second message's decision", || decided_at(&journal(&hub), &second));
    // A key used again for another text (a client's bug) is not the first message's
    // duplicate, answered 202 and dropped: it is a message of its own, decided.
    let reused = send("chat-k1", "and the deploy?");
    assert!(reused != first[0] && reused != second, "{reused} {first:?} {second}");
    wait_until(Duration::from_secs(60), "the reused key's message's decision", || decided_at(&journal(&hub), &reused));
    daemon.stop();
    let entries = journal(&hub);
    let decided: Vec<&serde_json::Value> =
        entries.iter().filter(|e| e["type"] == "decision" && e["from"] == "owner").collect();
    assert_eq!(decided.len(), 3, "each message decided once: {decided:#?}");
}

/// Attack on the owner endpoint's typed body, with the token: a body that is no owner
/// message (a `text` that is not a string, a list, two documents, words without `text`) gets
/// a 400 that says what is wrong and files nothing; one the endpoint read before it was typed
/// (fields it does not know, a `thread` that is no string, a huge thread under the body's cap)
/// is taken as before, and sent again under its key is one item, decided once. (A body over
/// the cap is refused by its length: `hostile_http`.)
#[test]
fn a_body_that_is_no_owner_message_is_refused_clearly_and_one_read_before_is_decided_once() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", MODEL, "");
    let mut daemon = Daemon::start(&hub);
    let url = daemon.owner_url();
    let (name, value) = owner_auth(&hub);
    for (body, says) in [
        (r#"{"text": 5}"#, "`text`: invalid type: integer"),
        (r#"{"text": ["rm -rf", "everything"], "thread": "t1"}"#, "`text`: invalid type: sequence"),
        (r#"["text", "rm -rf everything"]"#, "not an owner message"),
        (r#"{"text": "rm -rf"} {"text": "everything"}"#, "not JSON"),
        (r#"{"thread": "t1", "message": "rm -rf everything"}"#, "empty message"),
    ] {
        let (status, answer) = post(&url, &[(name, &value)], body);
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(answer["error"].as_str().is_some_and(|e| e.contains(says)), "{body}: {answer}");
    }
    let huge = "t".repeat(200 * 1024);
    let odd = [
        serde_json::json!({"text": "what is the status?", "thread": 7, "admin": true, "from": "github"}),
        serde_json::json!({"text": "what is the status now?", "thread": huge, "origin": {"author": "github:mallory"}}),
    ];
    let mut ids = Vec::new();
    for (n, body) in odd.iter().enumerate() {
        let key = format!("odd-{n}");
        let sent: Vec<String> = (0..2)
            .map(|_| {
                let (status, answer) = post(&url, &[(name, &value), ("idempotency-key", &key)], &body.to_string());
                assert_eq!(status, 202, "{answer}");
                answer["accepted"].as_str().unwrap().to_string()
            })
            .collect();
        assert_eq!(sent[0], sent[1], "one key, one item");
        wait_until(Duration::from_secs(60), "the message's decision", || decided_at(&journal(&hub), &sent[0]));
        ids.push(sent[0].clone());
    }
    daemon.stop();
    let entries = journal(&hub);
    let decided: Vec<&serde_json::Value> =
        entries.iter().filter(|e| e["type"] == "decision" && e["from"] == "owner").collect();
    assert_eq!(decided.len(), 2, "each message read before decided once, nothing refused filed: {decided:#?}");
    assert!(decided.iter().all(|e| ids.iter().any(|id| e["id"] == id.as_str())), "{decided:#?}");
    assert!(!entries.iter().any(|e| e.to_string().contains("rm -rf")), "{entries:#?}");
    let archived = std::fs::read_to_string(hub.join(format!("threads/archived/{}.md", ids[1]))).unwrap();
    let item = cn_storage::Doc::parse(&archived).unwrap();
    assert_eq!(origin_field(&item, "author").as_deref(), Some("owner"), "{archived:.300}");
    assert_eq!(origin_field(&item, "thread").map(|t| t.len()), Some(huge.len()));
}
