//! `cn_daemon::run` in-process: a hub whose level 2 is a command-line model (a shell script
//! standing in for a model, exact and fast), run to idle, once, and as a daemon stopped
//! through its `StopToken` — no binary spawned. The binary's own end-to-end tests
//! (crates/cn/tests/it/autonomy_*.rs) keep covering flags, signals and exit codes.

use std::path::{Path, PathBuf};

use cn_daemon::{DaemonError, RunMode, StopToken};

use crate::common::*;

/// Replies to the owner; its first other answer waits for `gate` (after saying so with
/// `started`) and decides nothing; later ones acknowledge.
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

/// A hub `ada` under `root` whose level-2 model is the shell script `model`.
fn ada(root: &Path, model: &str) -> PathBuf {
    hub(root, "ada", model, "")
}

/// POST the owner's message `body` to the owner endpoint `url`, required to be accepted; the
/// JSON answer.
fn post_owner(root: &Path, url: &str, body: &str) -> serde_json::Value {
    let (k, auth) = owner_auth(root);
    let (status, answer) = post(url, &[(k, &auth)], body);
    assert_eq!(status, 202, "{answer}");
    answer
}

#[test]
fn until_idle_decides_every_queued_item_then_returns() {
    let dir = tempfile::tempdir().unwrap();
    let root = ada(dir.path(), ACK);
    let h = open(&root);
    let ids: Vec<String> = (0..3)
        .map(|i| cn_agent::enqueue_new(&h, "bob", cn_agent::Cadence::Inbox, &format!("note {i}")).unwrap().id)
        .collect();
    let report = cn_daemon::run(h, options(RunMode::UntilIdle), StopToken::new()).unwrap();
    assert_eq!(report.decided, 3, "{report:?}");
    assert!(!report.nothing_to_do());
    assert!(report.listening.is_none(), "no senses outside the daemon mode");
    let entries = journal(&root);
    for id in &ids {
        assert!(decided_at(&entries, id).is_some(), "{id} decided: {entries:#?}");
    }
    // The lock is released when run returns: a second run starts, and finds nothing.
    let again = cn_daemon::run(open(&root), options(RunMode::Once), StopToken::new()).unwrap();
    assert!(again.nothing_to_do(), "{again:?}");
}

#[test]
fn a_second_run_on_the_same_hub_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = ada(dir.path(), ACK);
    let _held = cn_storage::ProcessLock::try_acquire(&cn_daemon::run_lock(&root)).unwrap().unwrap();
    let e = cn_daemon::run(open(&root), options(RunMode::Once), StopToken::new()).unwrap_err();
    assert!(matches!(e, DaemonError::Busy { .. }), "{e}");
    assert!(e.is_usage() && e.to_string().contains("another `cn run`"), "{e}");
}

#[test]
fn a_bad_cn_yaml_is_a_usage_error_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let root = ada(dir.path(), ACK);
    let yaml = std::fs::read_to_string(root.join("cn.yaml")).unwrap();
    // A typo is refused when the hub is opened, before the daemon starts anything.
    std::fs::write(root.join("cn.yaml"), format!("{yaml}pacing:\n  idel: 5s\n")).unwrap();
    let e = cn_agent::Hub::open(&root).unwrap_err().to_string();
    assert!(e.contains("pacing.idel") && e.contains("cn.yaml"), "{e}");
    // A section that parses but cannot be used (an API key's variable unset) is the daemon's
    // usage error, and nothing starts.
    let executive = "  executive:\n    provider: anthropic\n    api_key_env: CN_TEST_KEY_NEVER_SET\n";
    std::fs::write(root.join("cn.yaml"), yaml.replacen("models:\n", &format!("models:\n{executive}"), 1)).unwrap();
    let e = cn_daemon::run(open(&root), options(RunMode::Once), StopToken::new()).unwrap_err();
    assert!(e.is_usage() && e.to_string().contains("CN_TEST_KEY_NEVER_SET"), "{e}");
    assert!(!root.join("state/run.json").exists());
}

/// The owner's message pre-empts the task the model is working on: the task yields, the
/// owner's item is selected for its salience, answered and archived first; the task, which
/// level 2 cannot do, stays open with a time to follow it up (issue 18).
#[test]
fn an_owner_item_preempts_autonomous_work_in_the_daemon() {
    let dir = tempfile::tempdir().unwrap();
    let root = ada(dir.path(), GATED);
    let mut task = cn_autonomy::impulses::Task::new("Write the weekly report");
    task.due = Some("2026-01-01T09:00:00Z".parse().unwrap());
    cn_autonomy::impulses::tasks_of(&root).add(task.clone()).unwrap();
    let mut daemon = Daemon::start(&root);
    let url = daemon.owner_url();

    // The task is being worked on (the model is mid-answer) when the owner writes.
    wait_until(MINUTE, "the model to start on the task", || dir.path().join("started").exists().then_some(()));
    // The owner's message is a percept in attention at once: it pre-empts the task at the
    // next decide.
    let answer = post_owner(&root, &url, r#"{"text": "What is the status?"}"#);
    let owner_item = answer["accepted"].as_str().unwrap().to_string();
    std::fs::write(dir.path().join("gate"), "").unwrap();

    let entries = wait_until(MINUTE, "both items decided", || {
        let e = journal(&root);
        let task_item = e.iter().find(|x| x["type"] == "impulse" && x["data"]["origin"] == task.id.as_str())?["id"]
            .as_str()?
            .to_string();
        (decided_at(&e, &task_item).is_some() && decided_at(&e, &owner_item).is_some()).then_some(e)
    });
    let task_item = entries.iter().find(|x| x["type"] == "impulse" && x["data"]["origin"] == task.id.as_str()).unwrap()
        ["id"]
        .as_str()
        .unwrap();
    let paused = entries
        .iter()
        .position(|e| e["type"] == "decision" && e["id"] == task_item && e["outcome"] == "returned to the queue");
    let owner_done = decided_at(&entries, &owner_item).unwrap();
    assert!(paused.is_some_and(|p| p < owner_done), "the task yields to the owner first: {entries:#?}");
    assert!(owner_done < decided_at(&entries, task_item).unwrap(), "the owner's item is decided before the task's");
    assert_eq!(entries[owner_done]["op"], "reply");
    let answered = std::fs::read_to_string(root.join(format!("threads/archived/{owner_item}.md"))).unwrap();
    assert!(answered.contains("status is green"), "{answered}");
    // The selection of the owner's item explains its salience.
    let chosen = entries.iter().find(|e| e["id"] == owner_item.as_str() && e["outcome"] == "selected").unwrap();
    assert!(chosen["reasoning"].as_str().unwrap().contains("owner 1000"), "{chosen}");
    // The task's item was decided at level 2, which cannot do a task: once the decision is
    // seen (at the next decide), the task stays open with a time to follow it up.
    wait_until(MINUTE, "the task followed up", || {
        let tasks = cn_autonomy::impulses::tasks_of(&root).load().ok()?;
        (!tasks[0].done && tasks[0].follow_up.is_some()).then_some(())
    });

    let report = daemon.stop();
    // The mind counts an item once it sees the decision, at the decide after the act.
    assert!(report.decided >= 1, "{report:?}");
    assert!(report.listening.is_some());
}

#[test]
fn an_item_written_to_the_inbox_wakes_a_resting_daemon() {
    let dir = tempfile::tempdir().unwrap();
    // Rests of an hour: only an event can explain an answer within the test's minute.
    let root = hub(dir.path(), "ada", ACK, "pacing:\n  active: 1h\n  idle: 1h\n");
    let mut daemon = Daemon::start(&root);
    daemon.owner_url();
    // Nothing queued: the daemon is resting once its spool exists.
    wait_until(MINUTE, "the daemon to rest", || root.join("state/attention.jsonl").exists().then_some(()));
    let text = "---\nid: late-1\nfrom: pi\ncadence: inbox\nqueued: 2026-11-21T10:00:00Z\n---\n\nAre you awake?\n";
    let tmp = root.join("threads/inbox/.late-1.md.tmp");
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, root.join("threads/inbox/late-1.md")).unwrap();
    wait_until(MINUTE, "the new item decided", || decided_at(&journal(&root), "late-1"));
    daemon.stop();
}

/// Inbox items that attention had to shed (its pool was full) stay in the inbox and are
/// offered again once there is room: every one is decided, none is stranded.
#[test]
fn inbox_items_shed_by_a_full_pool_are_offered_again_and_all_decided() {
    let dir = tempfile::tempdir().unwrap();
    let root = hub(dir.path(), "ada", ACK, "attention:\n  capacity: 2\n");
    // Queued before the daemon starts: the first decide offers all twelve at once.
    let ids: Vec<String> = (0..12).map(|i| format!("peer-{i}")).collect();
    for id in &ids {
        cn_testkit::hub::put_item(&root, id, "pi", "inbox", "2026-11-21T10:00:00Z", &format!("Note {id}"));
    }
    let mut daemon = Daemon::start(&root);
    daemon.owner_url();
    wait_until(MINUTE, "all twelve decided", || {
        let e = journal(&root);
        ids.iter().all(|id| decided_at(&e, id).is_some()).then_some(())
    });
    assert_eq!(md_count(&root.join("threads/inbox")), 0);
    daemon.stop();
}

/// On the owner's message, reads a file first (a tool a stranger's item may not cause)
/// once `gate` is there, then replies.
const READS_THEN_REPLIES: &str = r#"prompt=$(cat)
dir=$(dirname "$0")
case "$prompt" in
  *"From: owner"*)
    if [ ! -e "$dir/started" ]; then
      touch "$dir/started"
      while [ ! -e "$dir/gate" ]; do sleep 0.02; done
      printf '```yaml\ntool: read_file\npath: notes.txt\n```\n'
    else
      printf '```yaml\ntool: reply\nmessage: read it\n```\n'
    fi ;;
  *) printf '```yaml\ntool: ack\nreason: seen\n```\n' ;;
esac
"#;

/// The mind hands the registry the author of the item it works on (`cn_tools::Working`),
/// parsed once when it took the item: a call is checked against that, not against what
/// `state/input.md` says by the time the model answers. Here the file claims a stranger
/// wrote the owner's message while the model thinks; the owner's call still runs.
#[test]
fn an_owner_messages_calls_are_checked_as_the_owners_whatever_the_current_file_says() {
    let dir = tempfile::tempdir().unwrap();
    let root = ada(dir.path(), READS_THEN_REPLIES);
    let yaml = std::fs::read_to_string(root.join("cn.yaml")).unwrap();
    std::fs::write(
        root.join("cn.yaml"),
        yaml.replace("2: [reply, noop, ack, defer]", "2: [reply, noop, ack, defer, read_file]"),
    )
    .unwrap();
    std::fs::write(root.join("notes.txt"), "the owner's notes\n").unwrap();
    let mut daemon = Daemon::start(&root);
    let url = daemon.owner_url();
    let owner_item =
        post_owner(&root, &url, r#"{"text": "What do my notes say?"}"#)["accepted"].as_str().unwrap().to_string();
    wait_until(MINUTE, "the model to start on the owner's message", || {
        dir.path().join("started").exists().then_some(())
    });
    let layout = cn_hub::Layout::new(&root);
    let input = std::fs::read_to_string(layout.input()).unwrap();
    assert!(input.contains("  author: owner\n"), "{input}");
    std::fs::write(layout.input(), input.replace("  author: owner\n", "  author: telegram:eve\n")).unwrap();
    let (claimed, _) = cn_hub::Provenance::of_current(&layout).unwrap();
    assert_eq!(claimed.label(), "telegram:eve", "the file now says a stranger wrote it");
    std::fs::write(dir.path().join("gate"), "").unwrap();

    let read = wait_until(MINUTE, "the read_file call journaled", || {
        journal(&root).into_iter().find(|e| e["type"] == "action" && e["tool"] == "read_file")
    });
    assert_eq!(read["outcome"], "ok", "checked as the owner's, not held for a stranger: {read}");
    assert_eq!(read["item"], owner_item.as_str());
    wait_until(MINUTE, "the owner's message decided", || decided_at(&journal(&root), &owner_item));
    daemon.stop();
}
