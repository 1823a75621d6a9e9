//! `cn chat`: the owner's terminal conversation, with and without a daemon running.

use crate::daemon_common;

use std::io::Write;
use std::process::Stdio;

use daemon_common::*;

/// Replies to the owner; acknowledges anything else.
const MODEL: &str = r#"prompt=$(cat)
case "$prompt" in
  *"From: owner"*) printf '```yaml\ntool: reply\nmessage: status is green\n```\n' ;;
  *) printf '```yaml\ntool: ack\nreason: seen\n```\n' ;;
esac
"#;

#[test]
fn without_a_daemon_chat_runs_the_agent_for_the_message() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", MODEL, "");
    // A greeting: the level-0 hello reflex answers, no model.
    let out = cn_ok(&hub, &["chat", "hello there"]);
    assert!(out.contains("Hello! I'm ada"), "{out}");
    // Anything else: the model (here the script) answers through the reply op.
    let out = cn_ok(&hub, &["chat", "what", "is", "the", "status?"]);
    assert_eq!(out.trim(), "status is green");
    let entries = journal(&hub);
    assert_eq!(
        entries.iter().filter(|e| e["type"] == "decision" && e["from"] == "owner" && e["place"].is_string()).count(),
        2
    );
}

#[test]
fn with_a_daemon_running_chat_talks_to_it_line_by_line() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", MODEL, "");
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    let mut chat =
        cn_cmd(&hub).arg("chat").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    chat.stdin.take().unwrap().write_all(b"hi\nwhat is the status?\n/quit\n").unwrap();
    let out = chat.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("ada> Hello! I'm ada"), "{stdout}");
    assert_eq!(lines[1], "ada> status is green");
    // The daemon handled them (its endpoint accepted them as percepts).
    let entries = journal(&hub);
    assert!(entries.iter().any(|e| e["outcome"] == "selected" && e["source"] == "owner"), "{entries:#?}");
    assert!(daemon.stop().success());
}
