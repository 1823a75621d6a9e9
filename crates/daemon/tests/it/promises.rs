//! The agent keeps its word (issue 18) across `cn_daemon::run`: a task is done only when a
//! decision does it; a promise in a reply (to a message sent as `cn chat` sends it with no
//! daemon) becomes a task followed up; a silent reflex says what it did;
//! the executive leaves autonomous work alone while an executive session runs; an explored idea
//! is journaled and kept explored. (The embedded model's answers, a week on an injected clock,
//! the executive's prompt and `cn journal why`, and sessions held by real `cn chat` and `cn loop run` processes are the
//! binary's: crates/cn/tests/it/agent_promises.rs.)

use std::path::{Path, PathBuf};

use cn_autonomy::impulses::{ideas_of, tasks_of, Idea, Task};
use cn_daemon::{RunMode, RunOptions, StopToken};
use cn_testkit::hub::journal;

use crate::common::chat_alone;

/// A hub whose local level and executive are shell scripts (`local`, `exec`), with no
/// minimum interval between autonomous executive calls.
pub fn scripted_hub(root: &Path, local: &str, exec: &str) -> PathBuf {
    let hub = root.join("ada");
    cn_agent::init(&hub, None).unwrap();
    std::fs::write(hub.join("cn.yaml"), cn_testkit::hub::scripted_models(root, local, exec)).unwrap();
    hub
}

/// `cn run --until-idle` or `--once`.
pub fn run(hub: &Path, mode: RunMode) {
    let h = cn_agent::Hub::open(hub).unwrap();
    cn_daemon::run(h, RunOptions { mode, ..RunOptions::default() }, StopToken::new()).unwrap();
}

/// [`run`] until idle in a process of its own (this test binary's [`run_driver`]), as
/// `cn run --until-idle` beside the process that holds an executive session: a session is
/// another process's.
fn run_in_child(hub: &Path) {
    let mut c = cn_testkit::child::test_command("promises::run_driver");
    let out = c.env("CN_DAEMON_TEST_RUN", hub).output().expect("the test binary runs");
    let said = cn_testkit::child::said(&out.stdout);
    assert_eq!(said.first().map(|v| v["ran"].as_bool()), Some(Some(true)), "{}", cn_testkit::text(&out));
}

/// Not a test: the run's own process for [`run_in_child`]; runs `CN_DAEMON_TEST_RUN` until idle.
#[test]
#[ignore = "the run's process for the tests that hold a session (promises::run_in_child); runs only as their child"]
fn run_driver() {
    let Some(hub) = std::env::var_os("CN_DAEMON_TEST_RUN").map(PathBuf::from) else { return };
    run(&hub, RunMode::UntilIdle);
    cn_testkit::child::say(&serde_json::json!({ "ran": true }));
}

/// `cn task add TEXT [--due DUE]` (DUE in RFC 3339).
fn add_task(hub: &Path, text: &str, due: Option<&str>) {
    let mut task = Task::new(text);
    task.due = due.map(|d| d.parse().unwrap());
    tasks_of(hub).add(task).unwrap();
}

/// Every task, done or not, as `cn task list --all --json` lists them.
fn tasks(hub: &Path) -> Vec<serde_json::Value> {
    let all = tasks_of(hub).load().unwrap();
    all.iter().map(|t| serde_json::to_value(t).unwrap()).collect()
}

fn task<'a>(all: &'a [serde_json::Value], text: &str) -> &'a serde_json::Value {
    all.iter().find(|t| t["task"].as_str().is_some_and(|s| s.contains(text))).unwrap_or_else(|| panic!("{all:#?}"))
}

/// The issue's finding: "Task due: Write release notes → do noop → task done". Only a
/// decision that does the task completes it; a noop or a defer leaves it open with its next
/// time; a task without a due date is a commitment followed up.
#[test]
fn tasks_are_done_when_done() {
    let dir = tempfile::tempdir().unwrap();
    let exec = r#"prompt=$(cat)
case "$prompt" in
  *"Write release notes"*) printf '```yaml\ntool: noop\nreason: The task is not available\n```\n' ;;
  *"Ship it"*) printf '```yaml\ntool: ack\nreason: shipped v1.2\n```\n' ;;
  *"Call the bank"*) printf '```yaml\ntool: defer\nreason: the bank is closed\n```\n' ;;
  *) printf '```yaml\ntool: ack\nreason: seen\n```\n' ;;
esac
"#;
    let hub = scripted_hub(dir.path(), "printf '```yaml\\ntool: noop\\nreason: small\\n```\\n'\n", exec);
    add_task(&hub, "Write release notes", Some("2020-01-01T00:00:00Z"));
    add_task(&hub, "Ship it", Some("2020-01-01T00:00:00Z"));
    add_task(&hub, "Call the bank", None);
    run(&hub, RunMode::UntilIdle);
    let all = tasks(&hub);
    let notes = task(&all, "Write release notes");
    assert_eq!(notes["done"], serde_json::Value::Null, "a noop completed the task: {notes}");
    assert!(notes["follow_up"].is_string(), "left open without a next time: {notes}");
    assert_eq!(task(&all, "Ship it")["done"], true, "{all:#?}");
    let bank = task(&all, "Call the bank");
    assert_eq!(bank["done"], serde_json::Value::Null, "{bank}");
    // The commitment without a due date was followed up, and its defer has a time to come back.
    let deferred = std::fs::read_dir(hub.join("threads/deferred"))
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .find(|t| t.contains("Call the bank"))
        .expect("the bank's item is deferred");
    assert!(deferred.contains("Commitment follow-up") && deferred.contains("\nuntil: "), "{deferred}");
}

/// The budget's active-session check: while an executive session runs (here this test,
/// announced as `cn chat` announces itself), a run in another process keeps autonomous work
/// below the executive; once it has ended, the executive takes autonomous work again.
#[test]
fn no_autonomous_executive_work_while_an_executive_session_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("exec-asked");
    let exec =
        format!("cat > /dev/null; touch {}\nprintf '```yaml\\ntool: ack\\nreason: done\\n```\\n'\n", marker.display());
    let local = "cat > /dev/null; printf '```yaml\\ntool: noop\\nreason: later\\n```\\n'\n";
    let hub = scripted_hub(dir.path(), local, &exec);
    let session = cn_models::Sessions::in_state(&hub.join("state")).begin("chat").unwrap();
    add_task(&hub, "Tidy the notes", Some("2020-01-01T00:00:00Z"));
    run_in_child(&hub);
    assert!(!marker.exists(), "the executive was asked while a session ran");
    assert!(journal(&hub).iter().any(|e| e["type"] == "action" && e["level"] == 2), "the local level decided");
    drop(session);
    add_task(&hub, "Water the plants", Some("2020-01-01T00:00:00Z"));
    run_in_child(&hub);
    assert!(marker.exists(), "the session ended: the executive works again");
}

/// Exploring an idea is journaled (idea, duration, outcome, what was learned) and the idea is
/// marked explored in ideas.json, so a restart does not explore it again; the most
/// interesting idea goes first.
#[test]
fn an_explored_idea_is_journaled_and_kept_explored() {
    let dir = tempfile::tempdir().unwrap();
    let exec = "cat > /dev/null; printf '```yaml\\ntool: ack\\nreason: learned that sleep replays the day\\n```\\n'\n";
    let hub = scripted_hub(dir.path(), exec, exec);
    let ideas = ideas_of(&hub);
    ideas.add(Idea::new("Something mildly curious", None, jiff::Timestamp::now())).unwrap();
    let mut keen = Idea::new("How memory consolidation works", None, jiff::Timestamp::now());
    keen.interest = Some(5);
    let keen_id = keen.id.clone();
    ideas.add(keen).unwrap();
    run(&hub, RunMode::Once);
    let explored: Vec<_> = journal(&hub).into_iter().filter(|e| e["type"] == "exploration").collect();
    assert_eq!(explored.len(), 1, "{explored:#?}");
    let e = &explored[0];
    assert_eq!(e["idea_id"], keen_id.as_str(), "the most interesting first: {e}");
    assert!(e["duration_sec"].is_u64() && e["outcome"].as_str().unwrap().starts_with("do ack"), "{e}");
    assert_eq!(e["learned"], "acknowledged: learned that sleep replays the day", "{e}");
    let all = ideas_of(&hub).load().unwrap();
    let idea = all.iter().find(|i| i.id == keen_id).expect("the idea is kept");
    assert!(idea.explored.is_some(), "{idea:?}");
}

/// A promise made in a reply becomes a task with a follow-up time.
#[test]
fn a_promise_in_a_reply_becomes_a_task_followed_up() {
    let dir = tempfile::tempdir().unwrap();
    let exec = "cat >/dev/null; printf '```yaml\\ntool: reply\\nmessage: Good question. I will get back to you tomorrow with the numbers.\\n```\\n'\n";
    let hub = scripted_hub(dir.path(), exec, exec);
    let out = chat_alone(&hub, "How did sales do last quarter?");
    assert!(out.contains("I will get back to you"), "{out}");
    let all = tasks(&hub);
    let promise = task(&all, "I will get back to you tomorrow with the numbers.");
    assert!(promise["task"].as_str().unwrap().contains("owner"), "{promise}");
    assert!(promise["follow_up"].is_string() && promise["done"].is_null(), "{promise}");
    assert_eq!(all.len(), 1, "{all:#?}");
}

/// A reflex that ran without replying (one the owner wrote: it files a task and says nothing)
/// does not close the owner's request with an ack below the executive: the owner is told what
/// it did, from its steps' results. Another's item it handled is closed, saying which reflex.
#[test]
fn a_silent_reflex_tells_the_owner_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let never = "cat > /dev/null; printf '```yaml\\ntool: noop\\nreason: not a reflex\\n```\\n'\n";
    let hub = scripted_hub(dir.path(), never, never);
    std::fs::write(
        hub.join("state/reflexes/file-it.yaml"),
        "name: file-it\ndescription: File a task and say nothing\nlevel: 0\ntrigger:\n  pattern: \"(?i)^file (?P<what>.+?)\\\\s*$\"\n\
         pipeline:\n  - action: add_task\n    task: \"{{what}}\"\n    output: id\n",
    )
    .unwrap();
    let out = chat_alone(&hub, "file the tax return");
    let all = tasks(&hub);
    let id = task(&all, "the tax return")["id"].as_str().unwrap().to_string();
    assert_eq!(out.trim(), format!("My reflex `file-it` took this and did: add_task → {id}."));
    let entries = journal(&hub);
    let decision = entries.iter().rev().find(|e| e["type"] == "decision" && e["from"] == "owner").unwrap();
    assert_eq!((&decision["gtd"], &decision["op"]), (&"do".into(), &"reply".into()), "{decision}");

    // A peer's item the same reflex handles is closed with an ack naming it.
    std::fs::write(
        hub.join("threads/inbox/p1.md"),
        "---\nid: p1\nfrom: pi\ncadence: inbox\nqueued: 2026-01-06T15:00:00Z\n---\nfile the rent\n",
    )
    .unwrap();
    run(&hub, RunMode::UntilIdle);
    let entries = journal(&hub);
    let decision = entries.iter().rev().find(|e| e["type"] == "decision" && e["id"] == "p1").unwrap();
    assert_eq!(
        (&decision["op"], &decision["reason"]),
        (&"ack".into(), &"handled by reflex file-it".into()),
        "{decision}"
    );
}
