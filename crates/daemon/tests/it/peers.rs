//! Peer mail through the daemon, no cron: hub `b` runs `cn_daemon::run` with
//! `senses.peers` on; hub `a` sends it a question over git (bare repositories on disk as the
//! remotes). b's daemon syncs by itself, files the mail, decides it (a shell-script model
//! replies), and its reply goes back out through b's next sync — `a` finds it with one
//! `cn sync`. A peer whose remote is gone is journaled once, not at every tick. (`cn peer
//! add`, `cn send` and `cn sync` as cn-agent's `add_peer`, `send` and `sync`.)

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::*;

/// Replies to whatever it is asked.
const REPLY: &str = "cat > /dev/null\nprintf '```yaml\\ntool: reply\\nmessage: all green on b\\n```\\n'\n";

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

fn bare(root: &Path, name: &str) -> PathBuf {
    let path = root.join(format!("{name}.git"));
    git(root, &["init", "-q", "--bare", path.to_str().unwrap()]);
    path
}

/// `cn sync` on `hub`, required to succeed with no error.
fn sync_ok(hub: &Path) {
    let report = cn_agent::sync(&open(hub)).unwrap();
    assert!(report.errors.is_empty(), "{report:?}");
}

#[test]
fn the_daemon_syncs_peer_mail_by_itself_and_its_reply_goes_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a_bare, b_bare, c_bare) = (bare(root, "a"), bare(root, "b"), bare(root, "c"));
    let a = root.join("a");
    cn_agent::init(&a, Some("a")).unwrap();
    let b = hub(root, "b", REPLY, "");
    let yaml = std::fs::read_to_string(b.join("cn.yaml"))
        .unwrap()
        .replace("  bind: 127.0.0.1:0\n", "  bind: 127.0.0.1:0\n  peers: {every: 1s}\n");
    std::fs::write(b.join("cn.yaml"), yaml).unwrap();
    for (hub, origin, peer, peer_bare) in [(&a, &a_bare, "b", &b_bare), (&b, &b_bare, "a", &a_bare)] {
        git(hub, &["remote", "add", "origin", origin.to_str().unwrap()]);
        cn_agent::add_peer(&open(hub), peer, peer_bare.to_str().unwrap()).unwrap();
    }

    // A second peer, quiet and working.
    cn_agent::add_peer(&open(&b), "c", c_bare.to_str().unwrap()).unwrap();
    let mut daemon = Daemon::start(&b);
    daemon.owner_url();
    cn_agent::send(&open(&a), "b", "Status?", Some("How is the build on b?")).unwrap();
    sync_ok(&a);

    // b's daemon takes the mail, decides it with a reply, and sends the reply on its own.
    let entries = wait_until(MINUTE, "b to decide a's mail", || {
        let e = journal(&b);
        let took = e
            .iter()
            .find(|x| x["summary"].as_str().is_some_and(|s| s.starts_with("took item") && s.ends_with("from a")))?;
        let id = took["id"].as_str()?.to_string();
        decided_at(&e, &id).map(|at| (e.clone(), at))
    });
    assert_eq!(entries.0[entries.1]["op"], "reply", "{:#?}", entries.0[entries.1]);
    let reply = wait_until(MINUTE, "b's reply to reach a", || {
        sync_ok(&a);
        let inbox = std::fs::read_dir(a.join("threads/inbox")).ok()?;
        inbox
            .flatten()
            .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
            .find(|t| t.contains("all green on b"))
    });
    assert!(reply.contains("from: b"), "{reply}");

    // A peer whose remote disappears: journaled once while the error stays the same.
    std::fs::rename(&a_bare, root.join("a-gone.git")).unwrap();
    let failed = |e: &serde_json::Value| e["summary"] == "peer mail could not be synced";
    wait_until(MINUTE, "the failing peer journaled", || journal(&b).iter().any(failed).then_some(()));
    // Give the daemon several more ticks (1 s each) against the missing remote.
    let seen = std::time::Instant::now();
    let ticks =
        wait_until(MINUTE, "more sync ticks", || (seen.elapsed() >= Duration::from_secs(4)).then(|| journal(&b)));
    assert_eq!(ticks.iter().filter(|e| failed(e)).count(), 1, "one report for the same error");
    // The failing peer slows no one else: b keeps syncing every second, c's last fetch
    // moving on at each (had one peer's error backed the whole sync off, doubling from 1 s,
    // six more syncs would take over 30 s).
    let last_fetch = || {
        let text = std::fs::read_to_string(b.join("state/peer-status.json")).ok()?;
        let v: serde_json::Value = serde_json::from_str(&text).ok()?;
        v["c"]["last-fetch"].as_str().map(str::to_string)
    };
    let mut seen = std::collections::BTreeSet::new();
    wait_until(Duration::from_secs(20), "six more syncs of c while a fails", || {
        seen.extend(last_fetch());
        (seen.len() >= 6).then_some(())
    });
    daemon.stop();
}
