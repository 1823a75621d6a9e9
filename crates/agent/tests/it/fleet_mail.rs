//! A fleet on one git server (issue 35): two hundred hubs whose repositories one real
//! `git daemon` on loopback serves (pushes allowed — each hub pushes to its own origin there,
//! and reads its peers' there). Each hub mails the next one and the one seven ahead in a
//! ring, and the hubs sync many at once (a thread each), in rounds, against the one server, until nothing
//! moves: every mail is filed once, at the hub it was for, and nowhere else; every sender
//! released its mail after the receipt; every receipt was retired; the server holds no mail
//! branch at the end.
//!
//! The same fleet behind git's own `git http-backend` (smart HTTP, each hub pushing to its
//! origin with its own credentials), and a server that drops connections: a sync tries again
//! and takes every mail, and gives up after a bounded number of tries on one that never answers.
//!
//! `CN_TEST_FLEET` sets the number of hubs (default 200; 40 over HTTP).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use cn_testkit::servers::{self, bare, heads, Flaky, GitDaemon, GitHttp, Origins};

use crate::support::*;

/// How many syncs run at once (two hubs' syncs at a time per core, and some).
const AT_ONCE: usize = 8;

/// Run `f` on every index in `0..n`, `AT_ONCE` at a time.
fn each(n: usize, f: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..AT_ONCE {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                f(i);
            });
        }
    });
}

fn name(i: usize) -> String {
    format!("h{i:03}")
}

/// The ids of the mail files in `dir` (an outbox, sent/).
fn ids(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().filter_map(|e| e.file_name().to_str()?.strip_suffix(".md").map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Who mailed the items of `hub`'s inbox, by item id (each id once, or the test fails).
fn inbox(hub: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for e in std::fs::read_dir(hub.join("threads/inbox")).unwrap().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        let field = |k: &str| {
            text.lines().find_map(|l| l.strip_prefix(k)).map(|v| v.trim().trim_matches(['\'', '"']).to_string())
        };
        let (Some(id), Some(from)) = (field("id: "), field("from: ")) else { continue };
        assert!(found.insert(id.clone(), from).is_none(), "{id} twice in {}", hub.display());
    }
    found
}

fn fleet_size(default: usize) -> usize {
    std::env::var("CN_TEST_FLEET").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn two_hundred_hubs_on_one_git_server_mail_each_other_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let srv = dir.path().join("srv");
    std::fs::create_dir(&srv).unwrap();
    let server = GitDaemon::writable(&srv);
    fleet_mails_exactly_once(dir.path(), &srv, &server, fleet_size(200));
}

#[test]
fn forty_hubs_on_git_http_backend_mail_each_other_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let srv = dir.path().join("srv");
    std::fs::create_dir(&srv).unwrap();
    let n = fleet_size(200).min(40);
    let names: Vec<String> = (0..n).map(name).collect();
    let server = GitHttp::for_hubs(&srv, names.iter().map(String::as_str));
    fleet_mails_exactly_once(dir.path(), &srv, &server, n);
    // The push credentials in each origin's URL stayed in git's config: no journal line, no
    // state file, no mail, no commit of the hub holds them.
    for i in 0..n {
        servers::assert_no_password(&dir.path().join(name(i)));
    }
}

/// `n` hubs whose origins `server` keeps (bare repositories under `srv`), each mailing two
/// others, synced in rounds many at a time until nothing moves: every mail filed once, at the
/// hub it was for; every sender's mail released, every receipt retired.
fn fleet_mails_exactly_once(root: &Path, srv: &Path, server: &dyn Origins, n: usize) {
    let hubs: Vec<PathBuf> = (0..n).map(|i| root.join(name(i))).collect();
    // Each mails i+1 and i+7; so each reads i-1 and i-7.
    let to = |i: usize| [(i + 1) % n, (i + 7) % n];
    let from = |i: usize| [(i + n - 1) % n, (i + n - 7) % n];
    each(n, |i| {
        bare(srv, &name(i));
        let hub = init_hub(root, &name(i));
        git(&hub, &["remote", "add", "origin", &server.origin(&name(i))]);
        let peers: BTreeSet<usize> = to(i).into_iter().chain(from(i)).collect();
        let listed: String = peers.iter().map(|p| format!("  {}: {}\n", name(*p), server.read(&name(*p)))).collect();
        let yaml =
            std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace("peers: {}\n", &format!("peers:\n{listed}"));
        std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
        for t in to(i) {
            send(&hub, &name(t), &format!("from {} to {}", name(i), name(t)), None);
        }
    });
    // Who each mail is for, by id.
    let mut expected: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (i, hub) in hubs.iter().enumerate() {
        for id in ids(&hub.join("threads/mail/outbox")) {
            let text = std::fs::read_to_string(hub.join(format!("threads/mail/outbox/{id}.md"))).unwrap();
            let t = to(i).into_iter().find(|t| text.contains(&format!("to {}", name(*t)))).unwrap();
            assert!(expected.insert(id, (i, t)).is_none());
        }
    }
    assert_eq!(expected.len(), 2 * n);

    // Rounds of every hub syncing, AT_ONCE at a time against the one server, until a round
    // moves nothing: publish, take and receipt, release, retire.
    // A push the server drops under load ("read error: Connection reset by peer" from one real
    // `git daemon` serving eight syncs at once on a loaded machine) is reported and retried at the
    // next sync — the round counts as moving, and only such retried transport errors are allowed.
    let mut rounds = 0;
    loop {
        rounds += 1;
        assert!(rounds <= 8, "still moving after {} rounds", rounds - 1);
        let moved = AtomicUsize::new(0);
        each(n, |i| {
            let r = sync(&hubs[i]);
            assert!(r.errors.iter().all(|e| e.contains("retried at the next sync")), "{}: {r:?}", name(i));
            let count = r.sent.len() + r.received.len() + r.receipts.len() + r.released.len() + r.errors.len();
            moved.fetch_add(count + usize::from(r.committed), Ordering::Relaxed);
        });
        if moved.load(Ordering::Relaxed) == 0 {
            break;
        }
    }

    // Every mail filed once, at the hub it was for, from its sender; nothing else filed.
    let mut filed = 0;
    for (i, hub) in hubs.iter().enumerate() {
        let got = inbox(hub);
        for (id, who) in &got {
            let (s, t) = expected.get(id).unwrap_or_else(|| panic!("{}: {id} was never sent", name(i)));
            assert_eq!((*t, who.as_str()), (i, name(*s).as_str()), "{id} filed at {} from {who}", name(i));
        }
        filed += got.len();
        // Every mail of this hub left its outbox for sent/, released.
        assert!(ids(&hub.join("threads/mail/outbox")).is_empty(), "{}: mail left unsent", name(i));
        assert_eq!(ids(&hub.join("threads/mail/sent")).len(), 2, "{}", name(i));
    }
    assert_eq!(filed, 2 * n);
    // The server holds no mail and no receipt: all released and retired.
    for i in 0..n {
        let left = heads(&srv.join(format!("{}.git", name(i))));
        assert!(left.iter().all(|h| !h.starts_with("cn-mail/") && !h.starts_with("cn-receipt/")), "{left:?}");
    }
}

/// A git server that drops connections costs a sync a retry, not a mail; one that drops every
/// connection is given up on after a bounded number of tries, its error named, and the other
/// peers' mail is still taken.
#[test]
fn a_server_that_drops_connections_costs_a_retry_not_a_mail() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let srv = root.join("srv");
    std::fs::create_dir(&srv).unwrap();
    let server = GitDaemon::writable(&srv);
    // Two of every three connections closed unanswered: each git command needs a third try.
    let flaky = Flaky::start(server.port, |n| n % 3 != 2);
    let dead = Flaky::start(server.port, |_| true);
    let hub = |name: &str| {
        bare(&srv, name);
        let hub = init_hub(root, name);
        git(&hub, &["remote", "add", "origin", &server.url(name)]);
        hub
    };
    let (a, b) = (hub("a"), hub("b"));
    let peers = |hub: &Path, listed: &str| {
        let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace("peers: {}\n", listed);
        std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    };
    peers(&a, &format!("peers:\n  b: {}\n", server.url("b")));
    peers(&b, &format!("peers:\n  a: {}\n  c: {}\n", flaky.url("a"), dead.url("c")));
    for text in ["first", "second"] {
        send(&a, "b", text, None);
    }
    let published = sync(&a);
    assert!(published.errors.is_empty(), "{published:?}");
    assert_eq!(published.sent.len(), 2, "{published:?}");

    let r = sync(&b);
    // Both mails taken through the flaky server, in this one sync.
    assert_eq!(r.received.len(), 2, "{r:?}");
    // The listing and the fetch go in one connection (git's protocol v2 spoken by cn): it
    // took its three tries.
    assert!(flaky.seen.load(Ordering::SeqCst) >= 3, "three tries of the peer's connection");
    let taken: Vec<String> = inbox(&b).into_values().collect();
    assert_eq!(taken, ["a", "a"]);
    // The dead one: four tries of its listing, then its error, named.
    assert_eq!(dead.seen.load(Ordering::SeqCst), 4);
    assert_eq!(r.errors.len(), 1, "{r:?}");
    assert!(r.errors[0].starts_with("peer c: "), "{r:?}");
    // Nothing is lost: the next sync, with a working server, takes nothing twice.
    let again = sync(&b);
    assert!(again.received.is_empty(), "{again:?}");
    assert_eq!(inbox(&b).len(), 2);
}
