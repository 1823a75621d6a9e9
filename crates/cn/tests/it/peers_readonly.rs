//! Peer mail where peers only read each other (issue 19), end to end with the real `cn`
//! binary and real git servers on loopback: four hubs whose repositories are served
//! read-only to each other — a's and c's by `git daemon` (`git://`), b's and d's by
//! `git http-backend` behind an HTTP server that lets only the owner push. Each owner writes
//! its own origin (a and c as a path, b and d over HTTP with their credentials).
//!
//! a sends to b, b delegates to c (a is notified), c replies to b, d writes to a and c;
//! every mail arrives once, every sender releases its mail after the receipt, every receipt
//! is retired after the release, and no hub could write another's repository. Syncs killed
//! at random points deliver every mail once. (Two hubs' mail through cn-agent's API, a bad
//! envelope and the old layout included: crates/agent/tests/it/mail_readonly.rs.)

use crate::agent_common;
use crate::hub_common;
use crate::peer_servers;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agent_common::*;
use peer_servers::*;

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

/// The branches of the mail layout left in a repository.
fn mail_refs(bare: &Path) -> Vec<String> {
    heads(bare).into_iter().filter(|h| h.starts_with("cn-mail/") || h.starts_with("cn-receipt/")).collect()
}

/// Where an item is, among the places an item can be.
fn places(hub: &Path, id: &str) -> Vec<&'static str> {
    let mut found: Vec<&'static str> =
        [("inbox", "threads/inbox"), ("archived", "threads/archived"), ("deferred", "threads/deferred")]
            .into_iter()
            .filter(|(_, d)| hub.join(d).join(format!("{id}.md")).is_file())
            .map(|(n, _)| n)
            .collect();
    if front(&hub.join("state/input.md"), "id").as_deref() == Some(id) {
        found.push("current");
    }
    found
}

/// Sync every hub in turn, `rounds` times; the reports.
fn sync_rounds(hubs: &[&Path], rounds: usize) -> Vec<serde_json::Value> {
    let mut reports = Vec::new();
    for _ in 0..rounds {
        for h in hubs {
            reports.push(json(&cn_ok(h, &["sync", "--json"])));
        }
    }
    reports
}

#[test]
fn four_hubs_on_read_only_servers_mail_each_other_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let srv = root.join("srv");
    std::fs::create_dir(&srv).unwrap();
    let creds: BTreeMap<String, String> =
        [("b", "b:secret-b-7f3"), ("d", "d:secret-d-9c1")].into_iter().map(|(k, v)| (k.into(), v.into())).collect();
    let daemon = GitDaemon::start(&srv);
    let http = GitHttp::start(&srv, creds.clone());

    let names = ["a", "b", "c", "d"];
    let mut hubs = BTreeMap::new();
    let mut read_url = BTreeMap::new();
    for name in names {
        let hub = init_hub(root, name);
        let bare = bare(&srv, name);
        let (own, read) = match name {
            "a" | "c" => (bare.to_str().unwrap().to_string(), daemon.url(name)),
            _ => (http.owner_url(name, &creds[name]), http.url(name)),
        };
        git(&hub, &["remote", "add", "origin", &own]);
        hubs.insert(name, (hub, bare));
        read_url.insert(name, read);
    }
    for me in names {
        for other in names.iter().filter(|o| **o != me) {
            cn_ok(&hubs[me].0, &["peer", "add", other, &read_url[other]]);
        }
    }
    let (a, b, c, d) = (&hubs["a"].0, &hubs["b"].0, &hubs["c"].0, &hubs["d"].0);
    let bare_of = |n: &str| hubs[n].1.clone();

    // a → b. a's mail waits in a's own repository; b takes it read-only and publishes a
    // receipt in b's; a releases its mail; b retires the receipt.
    cn_ok(a, &["send", "--to", "b", "--message", "Please review", "--body", "Please review PR #42"]);
    let r = json(&cn_ok(a, &["sync", "--json"]));
    let thread = r["sent"][0].as_str().unwrap().to_string();
    assert_eq!(mail_refs(&bare_of("a")), [format!("cn-mail/b/{thread}")]);
    let list = json(&cn_ok(a, &["peer", "list", "--json"]));
    let to_b = list.as_array().unwrap().iter().find(|p| p["name"] == "b").unwrap();
    assert_eq!(
        (to_b["waiting_out"].as_u64(), to_b["remote"].as_str()),
        (Some(1), Some(read_url["b"].as_str())),
        "{list}"
    );

    let r = json(&cn_ok(b, &["sync", "--json"]));
    assert_eq!(r["received"], serde_json::json!([thread]), "{r}");
    assert_eq!(r["receipts"], serde_json::json!([format!("a/{thread}")]), "{r}");
    assert_eq!(mail_refs(&bare_of("a")), [format!("cn-mail/b/{thread}")], "b never touches a's repository");
    assert_eq!(mail_refs(&bare_of("b")), [format!("cn-receipt/a/{thread}")]);
    let status = json(&cn_ok(b, &["peer", "list", "--json"]));
    let from_a = status.as_array().unwrap().iter().find(|p| p["name"] == "a").unwrap();
    assert_eq!(from_a["receipts_pending"], 1, "{status}");
    assert!(from_a["last_fetch"].is_string(), "{status}");
    let text = cn_ok(b, &["peer", "list"]);
    assert!(text.contains("a\tgit://127.0.0.1") && text.contains("1 receipts pending"), "{text}");

    let r = json(&cn_ok(a, &["sync", "--json"]));
    assert_eq!(r["released"], serde_json::json!([format!("b/{thread}")]), "{r}");
    assert!(mail_refs(&bare_of("a")).is_empty());
    cn_ok(b, &["sync"]);
    assert!(mail_refs(&bare_of("b")).is_empty(), "the receipt is retired once a released its mail");
    assert_eq!(json(&cn_ok(b, &["peer", "list", "--json"]))[0]["receipts_pending"], 0);

    let item = json(&cn_ok(b, &["input", "--json"]));
    assert_eq!((item["from"].as_str(), item["content"].as_str()), (Some("a"), Some("Please review PR #42\n")));

    // b delegates to c; a hears of it. c replies to b. d writes to a and to c.
    hub_common::allow_from(b, "peer:a", &["delegate"]);
    cn_ok(b, &["out", "delegate", "--to", "c"]);
    cn_ok(d, &["send", "--to", "a", "--message", "hello a, from d"]);
    cn_ok(d, &["send", "--to", "c", "--message", "hello c, from d"]);
    sync_rounds(&[b, d, c], 1);
    // c has b's forward and d's hello: the forward is from b (oldest first among peers).
    let mut c_items = BTreeMap::new();
    for _ in 0..2 {
        let item = json(&cn_ok(c, &["input", "--json"]));
        let from = item["from"].as_str().unwrap().to_string();
        if from == "b" {
            assert_eq!(item["content"].as_str(), Some("Please review PR #42\n"));
            cn_ok(c, &["out", "do", "reply", "--message", "LGTM"]);
        } else {
            cn_ok(c, &["out", "do", "ack", "--reason", "hi"]);
        }
        c_items.insert(from, item["id"].as_str().unwrap().to_string());
    }
    assert_eq!(c_items.keys().collect::<Vec<_>>(), ["b", "d"]);

    // Until nothing moves: everything delivered, released and retired.
    let reports = sync_rounds(&[a, b, c, d], 3);
    let mut received: BTreeMap<String, usize> = BTreeMap::new();
    for r in &reports {
        assert!(r["errors"].as_array().unwrap().is_empty(), "{r}");
        for id in r["received"].as_array().unwrap() {
            *received.entry(id.as_str().unwrap().to_string()).or_default() += 1;
        }
    }
    assert!(received.values().all(|n| *n == 1), "delivered twice: {received:?}");
    for name in names {
        assert!(mail_refs(&bare_of(name)).is_empty(), "{name}: {:?}", mail_refs(&bare_of(name)));
        for p in json(&cn_ok(&hubs[name].0, &["peer", "list", "--json"])).as_array().unwrap() {
            assert_eq!(
                (p["waiting_out"].as_u64(), p["waiting_in"].as_u64(), p["receipts_pending"].as_u64()),
                (Some(0), Some(0), Some(0)),
                "{name}: {p}"
            );
        }
    }

    // a: the notice of the delegation (from b) and d's hello. b: c's reply, in the thread.
    let inbox = |hub: &Path| -> Vec<String> {
        md_names(&hub.join("threads/inbox"))
            .iter()
            .map(|n| std::fs::read_to_string(hub.join("threads/inbox").join(n)).unwrap())
            .collect()
    };
    let a_in = inbox(a);
    assert_eq!(a_in.len(), 2, "{a_in:?}");
    assert!(
        a_in.iter().any(|t| t.contains("from: b") && t.contains("kind: notice") && t.contains("to: c")),
        "{a_in:?}"
    );
    assert!(a_in.iter().any(|t| t.contains("from: d") && t.contains("hello a, from d")), "{a_in:?}");
    let b_in = inbox(b);
    assert_eq!(b_in.len(), 1, "{b_in:?}");
    assert!(
        b_in[0].contains("from: c")
            && b_in[0].contains("LGTM")
            // The thread as the frontmatter reads (an id of digits only is written quoted).
            && cn_storage::Doc::parse(&b_in[0]).unwrap().get_str("thread") == Some(thread.as_str()),
        "{}",
        b_in[0]
    );
    for id in &c_items {
        assert_eq!(places(c, id.1), ["archived"]);
    }

    // Nobody but the owner writes a repository: not over git://, not over HTTP without or
    // with another owner's credentials.
    let scratch = root.join("scratch");
    git(root, &["init", "-q", scratch.to_str().unwrap()]);
    git(&scratch, &["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "evil"]);
    for name in names {
        let before = heads(&bare_of(name));
        let mut urls = vec![read_url[name].clone()];
        if let Some(other) = creds.keys().find(|o| *o != name) {
            urls.push(http.owner_url(name, &creds[other]));
        }
        for url in urls {
            for spec in ["HEAD:refs/heads/cn-mail/x/evil", ":refs/heads/main"] {
                let out = std::process::Command::new("git")
                    .arg("-C")
                    .arg(&scratch)
                    .args(["push", "-q", &url, spec])
                    .env("GIT_TERMINAL_PROMPT", "0")
                    .output()
                    .unwrap();
                assert!(!out.status.success(), "{url} accepted a push of {spec}");
            }
        }
        assert_eq!(heads(&bare_of(name)), before, "{name}");
    }

    // The owners' credentials never reach a journal, a commit or a report.
    for name in ["b", "d"] {
        let hub = &hubs[name].0;
        let log = git(hub, &["log", "-p", "--all"]);
        let journal = std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap();
        let status = cn_ok(hub, &["peer", "list"]);
        for text in [log, journal, status] {
            assert!(!text.contains("secret-"), "{name} leaked a credential");
        }
    }
}

fn next(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed >> 33
}

/// Two hubs, a and b, whose repositories `git daemon` serves read-only to each other (each
/// owner writes its own as a path).
fn pair(root: &Path) -> (GitDaemon, (PathBuf, PathBuf), (PathBuf, PathBuf)) {
    let (a, b) = (init_hub(root, "a"), init_hub(root, "b"));
    let (daemon, a_bare, b_bare) = read_only_pair(root, &a, &b);
    cn_ok(&a, &["peer", "add", "b", &daemon.url("b")]);
    cn_ok(&b, &["peer", "add", "a", &daemon.url("a")]);
    (daemon, (a, a_bare), (b, b_bare))
}

/// The ids of every mail `hub` has sent or still sends to `to`.
fn mail_to(hub: &Path, to: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for d in ["threads/mail/outbox", "threads/mail/sent"] {
        for n in md_names(&hub.join(d)) {
            if front(&hub.join(d).join(&n), "to").as_deref() == Some(to) {
                ids.push(n.trim_end_matches(".md").to_string());
            }
        }
    }
    ids.sort();
    ids
}

#[test]
fn sync_killed_at_random_points_delivers_every_mail_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (_daemon, (a, a_bare), (b, b_bare)) = pair(root);
    for i in 0..8 {
        cn_ok(&a, &["send", "--to", "b", "--message", &format!("a to b #{i}")]);
        cn_ok(&b, &["send", "--to", "a", "--message", &format!("b to a #{i}")]);
    }
    let mut seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    eprintln!("seed {seed}");
    // How long an uninterrupted sync with work takes here: kills are drawn across that span.
    let started = std::time::Instant::now();
    cn_ok(&a, &["sync"]);
    let mut span = (started.elapsed().as_millis() as u64).max(30);
    eprintln!("one sync takes {span} ms here");
    let mut killed_mid_sync = 0;

    let hubs = [(&a, "a", "b"), (&b, "b", "a")];
    // 36 rounds, and more (up to 150) until six kills have landed inside a sync: a first sync
    // timed under a burst of load would otherwise draw most kills after the syncs end.
    let mut round = 0u64;
    while round < 36 || (killed_mid_sync < 6 && round < 150) {
        round += 1;
        let (hub, me, other) = hubs[(next(&mut seed) % 2) as usize];
        if round.is_multiple_of(4) {
            cn_ok(hub, &["send", "--to", other, "--message", &format!("{me} round {round}")]);
        }
        if round.is_multiple_of(3) && cn(hub, &["input"]).status.success() {
            // Deciding a peer's item moves it to archived (and mails a notice back): a mail
            // delivered again would show up in a second place.
            cn_ok(hub, &["out", "do", "ack", "--reason", "seen"]);
        }
        let mut sync = cn_cmd(hub);
        sync.arg("sync").stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        let mut child = sync.spawn().unwrap();
        // The delay is the point of the test: it picks where in the sync the kill lands.
        std::thread::sleep(std::time::Duration::from_millis(next(&mut seed) % (span * 3 / 2)));
        if child.try_wait().unwrap().is_none() {
            killed_mid_sync += 1;
        } else {
            // It was over before the kill: draw the next kills from a shorter span.
            span = (span * 7 / 8).max(30);
        }
        let _ = child.kill();
        let _ = child.wait();
        for (h, _, from) in hubs {
            for id in mail_to(if from == "a" { &a } else { &b }, if from == "a" { "b" } else { "a" }) {
                assert!(places(h, &id).len() <= 1, "round {round}: {id} is in {:?}", places(h, &id));
            }
        }
    }
    eprintln!("{killed_mid_sync} of {round} kills landed inside a sync");
    assert!(killed_mid_sync >= 6, "too few kills landed inside a sync; the test proved little");
    // Unkilled, the two drain everything.
    sync_rounds(&[&a, &b], 4);
    for (hub, me, from) in hubs {
        let sender = if from == "a" { &a } else { &b };
        let ids = mail_to(sender, me);
        assert!(ids.len() >= 8, "{ids:?}");
        for id in &ids {
            assert_eq!(places(hub, id).len(), 1, "{me}: mail {id} is in {:?}", places(hub, id));
        }
        assert!(md_names(&sender.join("threads/mail/outbox")).is_empty());
        let mut filed: Vec<String> = journal(hub)
            .into_iter()
            .filter(|e| e["type"] == "sync")
            .flat_map(|e| e["received"].as_array().cloned().unwrap_or_default())
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        let n = filed.len();
        filed.sort();
        filed.dedup();
        assert_eq!(filed.len(), n, "{me}: a mail was filed twice");
    }
    assert!(
        mail_refs(&a_bare).is_empty() && mail_refs(&b_bare).is_empty(),
        "{:?} {:?}",
        mail_refs(&a_bare),
        mail_refs(&b_bare)
    );
}
