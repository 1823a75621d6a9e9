//! The daemon end to end: the real `cn run` as a child process on a real hub, its senses on
//! loopback, a shell script as its level-2 model. A flood of 10,000 percepts (the process's
//! memory), a second `cn run`'s exit code. Owner pre-emption, event-driven waking and SIGKILL
//! at random points are cn-daemon's (crates/daemon/tests/it/run.rs, kill.rs).

use crate::daemon_common;

use std::time::Duration;

use daemon_common::*;
use serde_json::Value;

const MINUTE: Duration = Duration::from_secs(60);

/// A model that acknowledges everything at once.
const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

#[test]
fn a_flood_of_ten_thousand_percepts_stays_bounded_and_the_owner_comes_first() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "attention:\n  capacity: 200\n");
    // The webhook needs its secret from the environment.
    add_webhook(&hub);
    let secret = "flood-secret";
    let mut daemon = Daemon::start(&hub, &[("CN_TEST_HOOK_SECRET", secret)]);
    let owner_url = daemon.owner_url();
    let hook_url = owner_url.replace(cn_autonomy::senses::OWNER_PATH, cn_autonomy::senses::GITHUB_PATH);
    let pid = daemon.child.id();

    let mut owner_item = String::new();
    let mut owner_sent_at = 0;
    let mut peak_kb = 0u64;
    let started = std::time::Instant::now();
    for i in 0..10_000u32 {
        let body = serde_json::json!({
            "action": "opened",
            "issue": {"number": i, "title": format!("flood issue {i}"), "body": "spam", "html_url": format!("https://example.invalid/issues/{i}"), "user": {"login": "bot"}},
            "repository": {"full_name": "acme/widgets"},
            "sender": {"login": "bot"}
        })
        .to_string();
        let sig = cn_autonomy::senses::github::sign(secret.as_bytes(), body.as_bytes());
        let (status, answer) = post(&hook_url, &[("x-github-event", "issues"), ("x-hub-signature-256", &sig)], &body);
        assert!(status < 300, "delivery {i}: {status} {answer}");
        if i == 5_000 {
            let (k, auth) = owner_auth(&hub);
            let (status, body) = post(&owner_url, &[(k, &auth)], r#"{"text": "Stop and tell me the status"}"#);
            assert_eq!(status, 202);
            owner_item = body["accepted"].as_str().unwrap().to_string();
            owner_sent_at = journal(&hub).len();
        }
        if i % 500 == 0 {
            peak_kb = peak_kb.max(rss_kb(pid));
        }
    }
    let flood_time = started.elapsed();
    let entries = wait_until(MINUTE, "the owner's item decided", || {
        let e = journal(&hub);
        decided_at(&e, &owner_item).map(|_| e)
    });
    peak_kb = peak_kb.max(rss_kb(pid));
    let status = daemon.stop();
    assert!(status.success(), "{status}");

    // Once the owner's message was in, the flood waited: at most the item in flight when it
    // arrived was decided before it.
    let owner_done = decided_at(&entries, &owner_item).unwrap();
    let github_between: Vec<&Value> = entries[owner_sent_at.min(owner_done)..owner_done]
        .iter()
        .filter(|e| e["type"] == "decision" && e["from"] == "github" && e["place"].is_string())
        .collect();
    assert!(github_between.len() <= 1, "only the item in flight may finish first: {github_between:#?}");
    // The flood was shed with journal entries, never the owner's message.
    let shed: u64 = entries
        .iter()
        .filter(|e| e["summary"].as_str().is_some_and(|s| s.starts_with("attention under a flood")))
        .map(|e| e["data"]["shed"].as_u64().unwrap())
        .sum();
    assert!(shed > 9_000, "only ~200 items fit the pool; shed {shed}");
    // Bounded memory: the pool holds at most its capacity (debug build, allocator slack).
    assert!(peak_kb < 200_000, "peak RSS {peak_kb} KB during the flood");
    eprintln!("flood: 10,000 deliveries in {flood_time:?}, peak RSS {peak_kb} KB, {shed} shed");
}

/// Resident set of a process, KB.
fn rss_kb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// One daemon per hub: a second `cn run` on a hub whose daemon runs is refused at once, naming
/// the lock; the first keeps running. (A killed daemon's lock is taken again on restart:
/// `sigkill_of_the_daemon_at_random_points…` above.)
#[test]
fn a_second_cn_run_on_a_running_hub_is_refused_and_the_first_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    let mut daemon = Daemon::start(&hub, &[]);
    let url = daemon.owner_url();
    let out = cn_cmd(&hub).arg("run").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("another `cn run` is working") && err.contains("run.lock"), "{err}");
    let (k, auth) = owner_auth(&hub);
    let (status, _) = post(&url, &[(k, &auth)], r#"{"text": "still there?"}"#);
    assert_eq!(status, 202, "the first daemon still answers");
    assert!(daemon.stop().success());
}
