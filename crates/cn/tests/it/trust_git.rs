//! Git never takes a stranger's string where an option can go: a peer remote beginning with
//! `--upload-pack=` is refused by `cn peer add` and never reaches git on `cn sync`; a peer's
//! remote with credentials is refused (it would be committed, issue 34), and a git error with
//! the owner's credentialed `origin` is redacted before it reaches a message, the journal or
//! a commit.

use crate::daemon_common;

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
    // A host or user that ssh would read as an option.
    let proxy = format!("ssh://-oProxyCommand=touch {}/repo.git", pwned.display());
    let out = cn_cmd(&hub).args(["peer", "add", "mallory", &proxy]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error: {}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("host or user starts with `-`"), "{err}");
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
    // A peer's remote is committed (state/peers.json, cn.yaml) and pushed to where every peer
    // reads: one with credentials is refused, its password in no message.
    for remote in ["https://ada:hunter2@127.0.0.1:9/pi.git", "https://hunter2@example.com/pi.git"] {
        let out = cn_cmd(&hub).args(["peer", "add", "pi", remote]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("carries credentials") && !err.contains("hunter2"), "{err}");
    }
    assert!(!hub.join("state/peers.json").exists(), "nothing recorded");
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(hub.join("cn.yaml"), format!("{yaml}peers:\n  pi: https://ada:hunter2@127.0.0.1:9/pi.git\n"))
        .unwrap();
    let out = cn_cmd(&hub).arg("sync").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("peers.pi") && err.contains("carries credentials"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
    std::fs::write(hub.join("cn.yaml"), &yaml).unwrap();

    // The owner's own `origin` may carry them (git's config is never committed): git's
    // errors quoting it are redacted. Nothing listens on port 9: git fails and quotes the URL.
    let peer = dir.path().join("pi.git");
    assert!(std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&peer).status().unwrap().success());
    cn_ok(&hub, &["peer", "add", "pi", peer.to_str().unwrap()]);
    let git = |args: &[&str]| std::process::Command::new("git").arg("-C").arg(&hub).args(args).status().unwrap();
    assert!(git(&["remote", "add", "origin", "https://ada:hunter2@127.0.0.1:9/ada.git"]).success());
    cn_ok(&hub, &["send", "--to", "pi", "--message", "hello"]);
    let out = cn_cmd(&hub).arg("sync").output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
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
    let hub = hub(dir.path(), "ada", ACK, "git:\n  env: [CN_NAMED_FOR_GIT]\n");
    // git runs `core.sshCommand` for an ssh remote, with git's environment: it dumps it.
    let dump = dir.path().join("git-env.txt");
    let script = dir.path().join("ssh.sh");
    std::fs::write(&script, format!("#!/bin/sh\nenv > '{}'\nexit 1\n", dump.display())).unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let git = |args: &[&str]| std::process::Command::new("git").arg("-C").arg(&hub).args(args).status().unwrap();
    assert!(git(&["config", "core.sshCommand", script.to_str().unwrap()]).success());
    cn_ok(&hub, &["peer", "add", "pi", "ssh://pi.invalid/pi.git"]);
    // cn's environment holds an API key and a GIT_SSH_COMMAND that would replace the
    // configured command (and run anything).
    let pwned = dir.path().join("PWNED");
    let out = cn_cmd(&hub)
        .arg("sync")
        .env("ANTHROPIC_API_KEY", "sk-test-secret")
        .env("GIT_SSH_COMMAND", format!("touch {}; false", pwned.display()))
        .env("CN_NAMED_FOR_GIT", "named")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!pwned.exists(), "git took GIT_SSH_COMMAND from cn's environment: {text}");
    let env =
        std::fs::read_to_string(&dump).unwrap_or_else(|e| panic!("git did not run core.sshCommand ({e}): {text}"));
    assert!(!env.contains("sk-test-secret"), "{env}");
    assert!(!env.contains("ANTHROPIC_API_KEY"), "{env}");
    assert!(env.contains("CN_NAMED_FOR_GIT=named"), "a variable git.env names is passed: {env}");
    assert!(env.contains("GIT_TERMINAL_PROMPT=0"), "{env}");
    assert!(env.lines().any(|l| l.starts_with("PATH=")), "{env}");
}

/// `CN_GIT_CONNECT=1` (set for the git cn runs, so a hook of the hub inherits it) makes `cn`
/// git's connector only for git's own `HOST PORT`: a hook running `cn sync --json` gets its
/// command, and an option where the port should be is never a connection.
#[test]
fn the_connector_variable_turns_only_host_and_port_into_a_connection() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    // As a hook would run it: in the hub, two words.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cn"))
        .args(["sync", "--json"])
        .current_dir(&hub)
        .env("CN_GIT_CONNECT", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("sync's report, not a relay's bytes");
    assert!(report["errors"].as_array().is_some(), "{report}");
    // A closed port: the connector's own error, naming where.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port().to_string();
    drop(closed);
    // As git starts it: the binary, the host and the port, nothing else.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cn"))
        .args(["127.0.0.1", &port])
        .env("CN_GIT_CONNECT", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains(&format!("cannot carry git's connection to 127.0.0.1:{port}")), "{said}");
}
