//! Git never takes a stranger's string where an option can go: a peer remote beginning with
//! `--upload-pack=` is refused by `cn peer add` and never reaches git on `cn sync`; a git
//! error with a credentialed remote URL is redacted before it reaches a message, the journal
//! or a commit.

mod daemon_common;

use daemon_common::*;

const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

#[test]
fn a_remote_that_is_an_option_never_runs_a_command() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    let pwned = dir.path().join("PWNED");
    let evil = format!("--upload-pack=touch {};:", pwned.display());

    let out = cn_cmd(&hub).args(["peer", "add", "mallory", "--", &evil]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error: {}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("starts with `-`"), "{err}");
    assert!(!hub.join("state/peers.json").exists(), "nothing recorded");
    for helper in ["ext::sh -c touch% PWNED", "http://cleartext.example/hub.git"] {
        let out = cn_cmd(&hub).args(["peer", "add", "mallory", helper]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{helper}");
    }

    // A remote that got in by another way (an older hub, a hand edit) is refused at use.
    std::fs::write(hub.join("state/peers.json"), serde_json::json!({"mallory": {"remote": evil}}).to_string()).unwrap();
    let out = cn_cmd(&hub).arg("sync").output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!pwned.exists(), "git ran the remote as an option: {text}");
    assert!(text.contains("starts with `-`"), "{text}");

    // The owner's path: a real peer still works.
    let peer = dir.path().join("pi.git");
    assert!(std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&peer).status().unwrap().success());
    std::fs::remove_file(hub.join("state/peers.json")).unwrap();
    cn_ok(&hub, &["peer", "add", "pi", peer.to_str().unwrap()]);
    assert!(cn_ok(&hub, &["peer", "list"]).contains("pi"));
}

#[test]
fn a_credentialed_remote_never_reaches_a_message_the_journal_or_a_commit() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    // Nothing listens on port 9: git fails and quotes the URL.
    cn_ok(&hub, &["peer", "add", "pi", "https://ada:hunter2@127.0.0.1:9/pi.git"]);
    let out = cn_cmd(&hub).arg("sync").output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("127.0.0.1:9"), "git's error is shown: {text}");
    assert!(!text.contains("hunter2"), "{text}");
    let journal = std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap_or_default();
    assert!(!journal.contains("hunter2"), "{journal}");
    let log = std::process::Command::new("git").arg("-C").arg(&hub).args(["log", "--format=%B"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&log.stdout).contains("hunter2"));
}
