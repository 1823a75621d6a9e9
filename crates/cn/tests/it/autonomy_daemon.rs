//! The daemon end to end: the real `cn run` as a child process on a real hub, its senses on
//! loopback, a shell script as its level-2 model. Owner pre-emption, event-driven waking,
//! a flood of 10,000 percepts, SIGTERM, and SIGKILL at random points.

use crate::daemon_common;

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use daemon_common::*;
use serde_json::Value;

const MINUTE: Duration = Duration::from_secs(60);

/// A model that replies to the owner, and otherwise acknowledges — except that its first
/// non-owner answer waits for `gate` (after saying so with `started`) and decides nothing.
const GATED: &str = r#"prompt=$(cat)
dir=$(dirname "$0")
case "$prompt" in
  *"From: owner"*) printf '```yaml\ntool: reply\nmessage: status is green\n```\n' ;;
  *)
    if [ ! -e "$dir/started" ]; then
      touch "$dir/started"
      while [ ! -e "$dir/gate" ]; do sleep 0.02; done
      printf 'Let me look first.\n```yaml\ntool: read_file\npath: cn.yaml\n```\n'
    else
      printf '```yaml\ntool: ack\nreason: done\n```\n'
    fi ;;
esac
"#;

/// A model that acknowledges everything at once.
const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

#[test]
fn an_owner_message_preempts_autonomous_work_and_is_answered_first() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", GATED, "");
    let task =
        cn_ok(&hub, &["task", "add", "Write the weekly report", "--due", "2026-01-01T09:00:00Z"]).trim().to_string();
    let mut daemon = Daemon::start(&hub, &[]);
    let url = daemon.owner_url();
    // The task is being worked on (the model is mid-answer) when the owner writes.
    wait_until(MINUTE, "the model to start on the task", || dir.path().join("started").exists().then_some(()));
    let (k, auth) = owner_auth(&hub);
    let (status, body) = post(&url, &[(k, &auth)], r#"{"text": "What is the status?"}"#);
    assert_eq!(status, 202, "{body}");
    let owner_item = body["accepted"].as_str().unwrap().to_string();
    std::fs::write(dir.path().join("gate"), "").unwrap();

    let entries = wait_until(MINUTE, "both items decided", || {
        let e = journal(&hub);
        let task_item = e.iter().find(|x| x["type"] == "impulse" && x["data"]["origin"] == task.as_str())?["id"]
            .as_str()?
            .to_string();
        (decided_at(&e, &task_item).is_some() && decided_at(&e, &owner_item).is_some()).then_some(e)
    });
    let task_item = entries.iter().find(|x| x["type"] == "impulse" && x["data"]["origin"] == task.as_str()).unwrap()
        ["id"]
        .as_str()
        .unwrap();
    let paused = entries
        .iter()
        .position(|e| e["type"] == "decision" && e["id"] == task_item && e["outcome"] == "returned to the queue");
    let owner_done = decided_at(&entries, &owner_item).unwrap();
    let task_done = decided_at(&entries, task_item).unwrap();
    assert!(paused.is_some_and(|p| p < owner_done), "the task yields to the owner first: {entries:#?}");
    assert!(owner_done < task_done, "the owner's item is decided before the task's");
    assert_eq!(entries[owner_done]["op"], "reply");
    let answered = std::fs::read_to_string(hub.join(format!("threads/archived/{owner_item}.md"))).unwrap();
    assert!(answered.contains("status is green"), "{answered}");
    // The selection of the owner's item explains its salience.
    let chosen = entries.iter().find(|e| e["id"] == owner_item.as_str() && e["outcome"] == "selected").unwrap();
    assert!(chosen["reasoning"].as_str().unwrap().contains("owner 1000"), "{chosen}");
    // The task's item was decided at level 2, which cannot do a task (issue 18: tasks are done
    // when done): once the decision is seen (at the next decide), the task stays open with
    // a time to follow it up.
    wait_until(MINUTE, "the task followed up", || {
        let tasks: Value = serde_json::from_str(&std::fs::read_to_string(hub.join("state/tasks.json")).ok()?).ok()?;
        (tasks[0]["done"].is_null() && tasks[0]["follow_up"].is_string()).then_some(())
    });

    let status = daemon.stop();
    assert!(status.success(), "SIGTERM ends the daemon cleanly: {status}");
}

#[test]
fn an_item_written_to_the_inbox_wakes_a_resting_daemon() {
    let dir = tempfile::tempdir().unwrap();
    // Rests of an hour: only an event can explain an answer within the test's minute.
    let hub = hub(dir.path(), "ada", ACK, "pacing:\n  active: 1h\n  idle: 1h\n");
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    wait_until(MINUTE, "the daemon to rest", || {
        journal(&hub)
            .iter()
            .any(|e| e["summary"].as_str().is_some_and(|s| s.starts_with("took item")))
            .then_some(())
            .or_else(|| {
                // Nothing queued: the daemon is resting once its spool exists.
                hub.join("state/attention.jsonl").exists().then_some(())
            })
    });
    let text = "---\nid: late-1\nfrom: pi\ncadence: inbox\nqueued: 2026-11-21T10:00:00Z\n---\n\nAre you awake?\n";
    let tmp = hub.join("threads/inbox/.late-1.md.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, hub.join("threads/inbox/late-1.md")).unwrap();
    wait_until(MINUTE, "the new item decided", || decided_at(&journal(&hub), "late-1"));
    assert!(daemon.stop().success());
}

/// Inbox items that attention had to shed (its pool was full) stay in the inbox and are
/// offered again once there is room: every one is decided, none is stranded.
#[test]
fn inbox_items_shed_by_a_full_pool_are_offered_again_and_all_decided() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "attention:\n  capacity: 2\n");
    // Queued before the daemon starts: the first decide offers all twelve at once.
    let ids: Vec<String> = (0..12).map(|i| format!("peer-{i}")).collect();
    for id in &ids {
        let text = format!("---\nid: {id}\nfrom: pi\ncadence: inbox\nqueued: 2026-11-21T10:00:00Z\n---\n\nNote {id}\n");
        std::fs::write(hub.join(format!("threads/inbox/{id}.md")), text).unwrap();
    }
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    wait_until(MINUTE, "all twelve decided", || {
        let e = journal(&hub);
        ids.iter().all(|id| decided_at(&e, id).is_some()).then_some(())
    });
    assert_eq!(md_count(&hub.join("threads/inbox")), 0);
    assert!(daemon.stop().success());
}

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

fn next(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed >> 33
}

#[test]
fn sigkill_of_the_daemon_at_random_points_loses_no_item_and_leaves_files_whole() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    let mut queued: Vec<String> = Vec::new();
    for i in 0..24 {
        let id = format!("item-{i:02}");
        let text = format!(
            "---\nid: {id}\nfrom: pi\ncadence: inbox\nqueued: 2026-11-21T10:{i:02}:00Z\n---\n\nPlease handle {i}.\n"
        );
        std::fs::write(hub.join(format!("threads/inbox/{id}.md")), text).unwrap();
        queued.push(id);
    }
    let mut seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    for round in 0..10 {
        let mut daemon = Daemon::start(&hub, &[]);
        let url = daemon.owner_url();
        // Owner messages the daemon acknowledged must survive the kill too.
        let (k, auth) = owner_auth(&hub);
        let (status, body) = post(&url, &[(k, &auth)], &format!(r#"{{"text": "owner note {round}"}}"#));
        assert_eq!(status, 202);
        queued.push(body["accepted"].as_str().unwrap().to_string());
        // Kill at a random point: after a random number of new journal lines.
        let before = journal(&hub).len();
        let wanted = before + 1 + (next(&mut seed) % 6) as usize;
        wait_until(MINUTE, "the daemon to make progress", || (journal(&hub).len() >= wanted).then_some(()));
        daemon.kill();
        every_file_whole(&hub, round);
    }
    // Drain what is left with `cn run --until-idle`.
    let out = cn_cmd(&hub).args(["run", "--until-idle"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    every_file_whole(&hub, 99);
    // Decided: archived, or — an owner's note the local level cannot do — handed up to the
    // executive (deferred with a time to come back; issue 18).
    let archived: HashSet<String> = ["threads/archived", "threads/deferred"]
        .iter()
        .flat_map(|d| std::fs::read_dir(hub.join(d)).unwrap().flatten())
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".md").map(str::to_string))
        .collect();
    let lost: Vec<&String> = queued.iter().filter(|id| !archived.contains(*id)).collect();
    assert!(lost.is_empty(), "items lost: {lost:?}");
    assert_eq!(md_count(&hub.join("threads/inbox")), 0);
    assert!(!hub.join("state/input.md").exists());
    // Each was decided once: one decision entry per item.
    let entries = journal(&hub);
    for id in &queued {
        let n = entries
            .iter()
            .filter(|e| e["type"] == "decision" && e["id"] == id.as_str() && e["place"].is_string())
            .count();
        assert_eq!(n, 1, "{id} decided {n} times");
    }
}

/// Every state file parses; every item file has its frontmatter.
fn every_file_whole(hub: &Path, round: usize) {
    for entry in std::fs::read_dir(hub.join("state")).unwrap().flatten() {
        let p = entry.path();
        if p.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&p).unwrap();
            serde_json::from_str::<Value>(&text)
                .unwrap_or_else(|e| panic!("round {round}: {} is not whole: {e}", p.display()));
        }
    }
    for d in ["threads/inbox", "threads/archived", "threads/deferred"] {
        for entry in std::fs::read_dir(hub.join(d)).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.extension().is_some_and(|e| e == "md") && !p.file_name().unwrap().to_str().unwrap().starts_with('.') {
                let doc = cn_storage::Doc::parse(&std::fs::read_to_string(&p).unwrap());
                assert!(doc.is_ok_and(|d| d.get_str("id").is_some()), "round {round}: {} is not whole", p.display());
            }
        }
    }
    // The journal: at most one torn line per kill (each sealed by the next writer); the
    // spool is compacted whole at every start.
    let read = cn_storage::Journal::read(&hub.join("state/journal.jsonl")).unwrap();
    assert!(read.skipped.len() <= round.min(10) + 1, "round {round}: journal: {:?}", read.skipped);
    let spool = cn_storage::Journal::read(&hub.join("state/attention.jsonl")).unwrap();
    assert!(spool.skipped.len() <= 1, "round {round}: spool: {:?}", spool.skipped);
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
