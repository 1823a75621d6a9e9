//! No loops between agents (issue 18): two default hubs, both daemons running and syncing
//! through real git remotes, greet each other. Before, the `hello` reflex and the level-2
//! replies bounced between them round after round; now an automatic answer is never sent in
//! reply to another agent's automatic message, so the exchange ends by itself: a's greeting,
//! b's automatic answer (introducing itself by its own name), and nothing more — over a
//! minute of both daemons running together, the bound checked all along.

use crate::daemon_common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use daemon_common::*;

const MINUTE: Duration = Duration::from_secs(60);

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A hub as `cn init` writes it (its owner endpoint on the port `cn init` picked), with its
/// daemon syncing peers every second.
fn default_hub(root: &Path, name: &str) -> PathBuf {
    let hub = root.join(name);
    cn_ok(root, &["init", hub.to_str().unwrap()]);
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let every_second = yaml.replace("  peers: {every: 1m}\n", "  peers: {every: 1s}\n");
    assert_ne!(every_second, yaml, "cn init's template changed: {yaml}");
    std::fs::write(hub.join("cn.yaml"), every_second).unwrap();
    hub
}

fn mails(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn two_default_hubs_greeting_each_other_stop_by_themselves() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (alpha, beta) = (default_hub(root, "alpha"), default_hub(root, "beta"));
    for (hub, name, peer) in [(&alpha, "alpha", "beta"), (&beta, "beta", "alpha")] {
        let bare = root.join(format!("{name}.git"));
        git(root, &["init", "-q", "--bare", bare.to_str().unwrap()]);
        git(hub, &["remote", "add", "origin", bare.to_str().unwrap()]);
        cn_ok(hub, &["peer", "add", peer, root.join(format!("{peer}.git")).to_str().unwrap()]);
    }
    let mut a = Daemon::start(&alpha, &[]);
    let mut b = Daemon::start(&beta, &[]);
    a.owner_url();
    b.owner_url();
    cn_ok(&alpha, &["send", "--to", "beta", "--message", "hello beta"]);

    // beta's hello reflex answers, by its own name; alpha's reflex or local model would
    // answer that, but an automatic answer to an automatic message (a reply or a notice) is
    // kept in the thread and not sent.
    wait_until(MINUTE * 3, "alpha to decide beta's automatic answer", || {
        journal(&alpha).into_iter().find(|e| e["type"] == "decision" && e["from"] == "beta")
    });
    let answer =
        mails(&beta.join("threads/mail/sent")).into_iter().find(|m| m.contains("hello") || m.contains("Hello"));
    let answer = answer.expect("beta answered");
    assert!(answer.contains("Hello! I'm beta.") && answer.contains("kind: auto"), "{answer}");

    // Left running together for the minute after that (both syncing every second, so
    // a loop would go round dozens of times), the two exchange no more than the greeting and
    // its answer: the count is checked all along the window and fails the moment it is exceeded.
    let sent = || mails(&alpha.join("threads/mail/sent")).len() + mails(&beta.join("threads/mail/sent")).len();
    let peer_decisions = |hub: &Path| {
        journal(hub)
            .iter()
            .filter(|e| e["type"] == "decision" && e["place"].is_string())
            .filter(|e| e["from"] == "alpha" || e["from"] == "beta")
            .count()
    };
    let window = Instant::now() + MINUTE;
    wait_until(MINUTE * 2, "the minute's window to pass", || {
        let (n, decided) = (sent(), peer_decisions(&alpha) + peer_decisions(&beta));
        if n > 2 || decided > 2 {
            // What each hub decided and did, for whoever reads the failure.
            let log = |hub: &Path| {
                journal(hub)
                    .iter()
                    .filter(|e| matches!(e["type"].as_str(), Some("decision" | "action" | "observation")))
                    .map(|e| e.to_string().chars().take(300).collect::<String>())
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            panic!(
                "the hubs went on: {n} mails sent, {decided} peer items decided\nalpha:\n{}\nbeta:\n{}",
                log(&alpha),
                log(&beta)
            );
        }
        (Instant::now() >= window).then_some(())
    });
    // Nothing is waiting to go out on either side: the exchange is over at two messages.
    assert!(mails(&alpha.join("threads/mail/outbox")).is_empty());
    assert!(mails(&beta.join("threads/mail/outbox")).is_empty());
    assert_eq!(sent(), 2);
    assert!(a.stop().success());
    assert!(b.stop().success());
}
