//! The daemon on a disk that fills up — a real 16 MiB tmpfs under the hub: the owner endpoint
//! answers 507 for what it cannot record and 202 only for what it did; the GitHub webhook
//! (GitHub does not redeliver by itself) takes the delivery into memory; nothing accepted is
//! lost or decided twice; the daemon keeps running, waits instead of retrying in a loop, and
//! decides everything by itself once space returns.
//!
//! Mounting needs mount(2) (root or CAP_SYS_ADMIN, as CI's machine and the dev containers
//! have); where it is refused the test says so and checks nothing.

use crate::daemon_common;

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use daemon_common::*;

const MINUTE: Duration = Duration::from_secs(60);

const REPLY: &str = "prompt=$(cat)\ncase \"$prompt\" in\n  *\"From: owner\"*) printf '```yaml\\ntool: reply\\nmessage: noted\\n```\\n' ;;\n  *) printf '```yaml\\ntool: ack\\nreason: seen\\n```\\n' ;;\nesac\n";

/// A tmpfs mounted at a directory, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(at).unwrap();
        let out = Command::new("mount").args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"]).arg(at).output();
        match out {
            Ok(o) if o.status.success() => Some(Tmpfs(at.to_path_buf())),
            Ok(o) => {
                eprintln!("skipped: cannot mount a tmpfs here: {}", String::from_utf8_lossy(&o.stderr).trim());
                None
            }
            Err(e) => {
                eprintln!("skipped: no mount(8): {e}");
                None
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Fill the file system holding `path` with a file at `path`, until it refuses a byte.
fn fill(path: &Path) {
    let mut f = std::fs::File::create(path).unwrap();
    let block = vec![0u8; 64 << 10];
    while f.write_all(&block).is_ok() {}
    while f.write_all(&[0]).is_ok() {}
}

fn issue(n: u32) -> String {
    serde_json::json!({
        "action": "opened",
        "issue": {"number": n, "title": format!("disk issue {n}"), "body": "b", "html_url": format!("https://example.invalid/issues/{n}"), "user": {"login": "alice"}},
        "repository": {"full_name": "acme/widgets"},
        "sender": {"login": "alice"}
    })
    .to_string()
}

#[test]
fn a_full_disk_refuses_with_507_loses_nothing_and_the_daemon_recovers_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let Some(_disk) = Tmpfs::mount(&dir.path().join("disk"), "16m") else { return };
    let root = dir.path().join("disk");
    let hub = hub(&root, "ada", REPLY, "");
    add_webhook(&hub);
    let secret = "disk-secret";
    let mut daemon = Daemon::start(&hub, &[("CN_TEST_HOOK_SECRET", secret)]);
    let url = daemon.owner_url();
    let mut stderr = daemon.child.stderr.take().unwrap();
    let log = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let hook_url = url.replace(cn_autonomy::senses::OWNER_PATH, cn_autonomy::senses::GITHUB_PATH);
    let (k, auth) = owner_auth(&hub);
    let mut accepted = Vec::new();
    let (status, body) = post(&url, &[(k, &auth)], r#"{"text": "before"}"#);
    assert_eq!(status, 202, "{body}");
    accepted.push(body["accepted"].as_str().unwrap().to_string());
    wait_until(MINUTE, "the first message decided", || decided_at(&journal(&hub), &accepted[0]));

    fill(&root.join("fill"));
    // The spool's last page may still take a few lines; then every message is refused.
    let mut refused = None;
    let mut n = 0;
    wait_until(MINUTE, "a message refused with 507", || {
        n += 1;
        let (status, body) = post(&url, &[(k, &auth)], &format!(r#"{{"text": "during {n}"}}"#));
        match status {
            202 => accepted.push(body["accepted"].as_str().unwrap().to_string()),
            429 => {} // paced: ask again
            507 => refused = Some(body),
            other => panic!("message {n}: {other} {body}"),
        }
        refused.clone()
    });
    let refused = refused.unwrap();
    assert!(refused["error"].as_str().unwrap().contains("disk is full"), "{refused}");
    assert!(!refused.to_string().contains(&root.display().to_string()), "no path to the sender: {refused}");
    // A webhook delivery on the full disk: held in memory (GitHub would not send it again).
    let sig = cn_autonomy::senses::github::sign(secret.as_bytes(), issue(1).as_bytes());
    let delivery = [("x-github-event", "issues"), ("x-hub-signature-256", sig.as_str()), ("x-github-delivery", "d-1")];
    let (status, body) = wait_until(MINUTE, "the webhook answered", || {
        let (status, body) = post(&hook_url, &delivery, &issue(1));
        (status != 429).then_some((status, body))
    });
    assert_eq!(status, 202, "{body}");
    let hook_item = body["accepted"].as_str().unwrap().to_string();
    assert!(daemon.child.try_wait().unwrap().is_none(), "the daemon keeps running on a full disk");

    std::fs::remove_file(root.join("fill")).unwrap();
    let (status, body) = wait_until(MINUTE, "a message after", || {
        let (status, body) = post(&url, &[(k, &auth)], r#"{"text": "after"}"#);
        (status != 429).then_some((status, body))
    });
    assert_eq!(status, 202, "{body}");
    accepted.push(body["accepted"].as_str().unwrap().to_string());

    // Everything accepted is decided, by the daemon alone, once each.
    let entries = wait_until(MINUTE, "every accepted item decided", || {
        let e = journal(&hub);
        let all = accepted.iter().chain([&hook_item]).all(|id| decided_at(&e, id).is_some());
        all.then_some(e)
    });
    let mut decisions: HashMap<&str, usize> = HashMap::new();
    for e in entries.iter().filter(|e| e["type"] == "decision" && e["place"].is_string()) {
        *decisions.entry(e["id"].as_str().unwrap()).or_default() += 1;
    }
    let twice: HashSet<_> = decisions.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "decided more than once: {twice:?}");
    assert_eq!(md_count(&hub.join("threads/inbox")), 0, "nothing stranded in the inbox");
    // The journal and the spool read whole around the failed writes: every line is an entry or
    // a sealed fragment (ending `~`), never a fragment glued to the next entry.
    for file in ["state/journal.jsonl", "state/attention.jsonl"] {
        let text = std::fs::read_to_string(hub.join(file)).unwrap();
        for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let entry = serde_json::from_str::<serde_json::Value>(line).is_ok_and(|v| v.is_object());
            assert!(entry || line.ends_with('~'), "{file}:{}: neither an entry nor sealed: {line}", n + 1);
        }
    }
    let out = cn_ok(&hub, &["journal", "--json"]);
    let after = out.lines().filter(|l| l.contains(&accepted[accepted.len() - 1])).count();
    assert!(after > 0, "the last decision reads in `cn journal`:\n{out}");
    assert!(daemon.stop().success());
    // Clear errors, and a few: the daemon waits (doubling) when the hub cannot record a
    // decision, instead of retrying in a loop.
    let log = log.join().unwrap();
    assert!(log.contains("No space left on device"), "the errors name the cause:\n{log}");
    let errors = log.lines().filter(|l| l.contains("ERROR")).count();
    assert!(errors < 100, "{errors} error lines: a retry loop?\n{}", &log[..log.len().min(4000)]);
}
