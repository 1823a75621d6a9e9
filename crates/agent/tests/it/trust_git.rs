//! Git never takes a stranger's string where an option can go: a peer remote beginning with
//! `--upload-pack=` is refused by `cn peer add` (cn_agent::add_peer) and never reaches git on
//! a sync; a peer's remote with credentials is refused (it would be committed, issue 34), and
//! a git error with the owner's credentialed `origin` is redacted before it reaches a message,
//! the journal or a commit. What git runs sees a scrubbed environment.

use std::path::{Path, PathBuf};

use cn_agent::AgentError;

use crate::support::*;

/// A hub made by `cn init`, its cn.yaml without `peers:` (a test adds its own), with
/// `extra` appended.
fn hub(root: &Path, name: &str, extra: &str) -> PathBuf {
    let hub = init_hub(root, name);
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    assert!(yaml.contains("\npeers: {}\n"), "{yaml}");
    std::fs::write(hub.join("cn.yaml"), format!("{}{extra}", yaml.replace("\npeers: {}\n", "\n"))).unwrap();
    hub
}

/// `cn peer add NAME REMOTE`, refused as the command's usage error (exit 2): the message.
fn peer_add_refused(hub: &Path, name: &str, remote: &str) -> String {
    match cn_agent::add_peer(&open(hub), name, remote) {
        Err(e @ (AgentError::Invalid(_) | AgentError::Remote(_))) => cn_compute::chain(&e),
        Err(e) => panic!("peer add {remote}: not a usage error: {}", cn_compute::chain(&e)),
        Ok(()) => panic!("peer add {remote} was accepted"),
    }
}

#[test]
fn a_remote_that_is_an_option_never_runs_a_command() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", "");
    let pwned = dir.path().join("PWNED");
    let evil = format!("--upload-pack=touch {};:", pwned.display());

    let err = peer_add_refused(&hub, "mallory", &evil);
    assert!(err.contains("starts with `-`"), "{err}");
    assert!(!hub.join("state/peers.json").exists(), "nothing recorded");
    // A host or user that ssh would read as an option.
    let proxy = format!("ssh://-oProxyCommand=touch {}/repo.git", pwned.display());
    let err = peer_add_refused(&hub, "mallory", &proxy);
    assert!(err.contains("host or user starts with `-`"), "{err}");
    assert!(!hub.join("state/peers.json").exists(), "nothing recorded");
    for helper in ["ext::sh -c touch% PWNED", "http://cleartext.example/hub.git"] {
        peer_add_refused(&hub, "mallory", helper);
    }

    // A remote that got in by another way (an older hub, a hand edit) is refused at use.
    std::fs::write(hub.join("state/peers.json"), serde_json::json!({"mallory": {"remote": evil}}).to_string()).unwrap();
    let text = sync_said(&hub);
    assert!(!pwned.exists(), "git ran the remote as an option: {text}");
    assert!(text.contains("starts with `-`"), "{text}");

    // The owner's path: a real peer still works.
    let peer = dir.path().join("pi.git");
    assert!(std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&peer).status().unwrap().success());
    std::fs::remove_file(hub.join("state/peers.json")).unwrap();
    add_peer(&hub, "pi", peer.to_str().unwrap());
    let peers = cn_agent::peer_status(&open(&hub)).unwrap();
    assert!(peers.iter().any(|p| p.name == "pi"), "{peers:?}");
}

#[test]
fn a_credentialed_remote_never_reaches_a_message_the_journal_or_a_commit() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", "");
    // A peer's remote is committed (state/peers.json, cn.yaml) and pushed to where every peer
    // reads: one with credentials is refused, its password in no message.
    for remote in ["https://ada:hunter2@127.0.0.1:9/pi.git", "https://hunter2@example.com/pi.git"] {
        let err = peer_add_refused(&hub, "pi", remote);
        assert!(err.contains("carries credentials") && !err.contains("hunter2"), "{err}");
    }
    assert!(!hub.join("state/peers.json").exists(), "nothing recorded");
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(hub.join("cn.yaml"), format!("{yaml}peers:\n  pi: https://ada:hunter2@127.0.0.1:9/pi.git\n"))
        .unwrap();
    let err = sync_said(&hub);
    assert!(err.contains("peers.pi") && err.contains("carries credentials"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
    std::fs::write(hub.join("cn.yaml"), &yaml).unwrap();

    // The owner's own `origin` may carry them (git's config is never committed): git's
    // errors quoting it are redacted. Nothing listens on port 9: git fails and quotes the URL.
    let peer = dir.path().join("pi.git");
    assert!(std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&peer).status().unwrap().success());
    add_peer(&hub, "pi", peer.to_str().unwrap());
    git(&hub, &["remote", "add", "origin", "https://ada:hunter2@127.0.0.1:9/ada.git"]);
    send(&hub, "pi", "hello", None);
    let text = sync_said(&hub);
    assert!(text.contains("127.0.0.1:9"), "git's error is shown: {text}");
    assert!(!text.contains("hunter2"), "{text}");
    let journal = std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap_or_default();
    assert!(!journal.contains("hunter2"), "{journal}");
    let log =
        std::process::Command::new("git").arg("-C").arg(&hub).args(["log", "-p", "--format=%B"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&log.stdout).contains("hunter2"));
}

#[test]
fn git_and_what_it_runs_see_only_a_scrubbed_environment() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", "git:\n  env: [CN_NAMED_FOR_GIT]\n");
    // git runs `core.sshCommand` for an ssh remote, with git's environment: it dumps it.
    let dump = dir.path().join("git-env.txt");
    let script = dir.path().join("ssh.sh");
    std::fs::write(&script, format!("#!/bin/sh\nenv > '{}'\nexit 1\n", dump.display())).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    git(&hub, &["config", "core.sshCommand", script.to_str().unwrap()]);
    add_peer(&hub, "pi", "ssh://pi.invalid/pi.git");
    // The syncing process's environment holds an API key and a GIT_SSH_COMMAND that would
    // replace the configured command (and run anything).
    let pwned = dir.path().join("PWNED");
    let touch = format!("touch {}; false", pwned.display());
    let text = sync_in_child(
        &hub,
        &[("ANTHROPIC_API_KEY", "sk-test-secret"), ("GIT_SSH_COMMAND", &touch), ("CN_NAMED_FOR_GIT", "named")],
    );
    assert!(!pwned.exists(), "git took GIT_SSH_COMMAND from cn's environment: {text}");
    let env =
        std::fs::read_to_string(&dump).unwrap_or_else(|e| panic!("git did not run core.sshCommand ({e}): {text}"));
    assert!(!env.contains("sk-test-secret"), "{env}");
    assert!(!env.contains("ANTHROPIC_API_KEY"), "{env}");
    assert!(env.contains("CN_NAMED_FOR_GIT=named"), "a variable git.env names is passed: {env}");
    assert!(env.contains("GIT_TERMINAL_PROMPT=0"), "{env}");
    assert!(env.lines().any(|l| l.starts_with("PATH=")), "{env}");
}
