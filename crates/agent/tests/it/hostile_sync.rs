//! A careless or hostile peer's mail: bytes that are not UTF-8 must not kill a sync
//! (release builds abort on panic), the good mail of the same batch still arrives intact,
//! and the bad mail is recorded as taken (rejected with a notice) so no later sync — nor the
//! daemon's peer sense on every tick — reads it again. (A `git://` server answering garbage
//! is the binary's test, crates/cn/tests/it/hostile_sync.rs: its git connects through `cn`.)

use std::path::Path;

use cn_testkit::servers::GitDaemon;

use crate::support::*;

/// Push a mail branch `cn-mail/to/tid` holding `tid.md` with exactly `bytes` to `bare`, its
/// envelope true to those bytes.
fn push_raw_mail(root: &Path, bare: &Path, to: &str, tid: &str, bytes: &[u8]) {
    let scratch = root.join(format!("scratch-{tid}"));
    git(root, &["init", "-q", scratch.to_str().unwrap()]);
    std::fs::write(scratch.join(format!("{tid}.md")), bytes).unwrap();
    git(&scratch, &["add", "-A"]);
    let envelope = format!(
        "mail {tid} from a to {to}\n\ncn-envelope: 1\nfrom: a\nto: {to}\nid: {tid}\ncreated: 2026-01-01T00:00:00Z\nsha256: {}\n",
        cn_hub::id::sha256_hex(bytes)
    );
    git(&scratch, &["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", &envelope]);
    git(&scratch, &["push", "-q", bare.to_str().unwrap(), &format!("HEAD:refs/heads/cn-mail/{to}/{tid}")]);
}

fn mail(tid: &str, body: &[u8]) -> Vec<u8> {
    let mut m =
        format!("---\nid: {tid}\nto: b\nfrom: a\nthread: {tid}\ncreated: 2026-01-01T00:00:00Z\n---\n\n").into_bytes();
    m.extend_from_slice(body);
    m
}

#[test]
fn mail_with_bytes_that_are_not_utf8_is_rejected_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (_, a_bare, b, _) = two_peers(root);
    // Branches are read in name order: the bad one first, so its byte count decides where
    // the good one is cut. Each invalid byte grows by two when decoded lossily.
    push_raw_mail(root, &a_bare, "b", "m1-bad", &mail("m1-bad", b"caf\xc3 \xff\xfe\xff\xfe\xff\xfe\xff\xfe\n"));
    push_raw_mail(root, &a_bare, "b", "m2-good", &mail("m2-good", "héllo wörld ✓\n".as_bytes()));

    let r = sync(&b);
    assert!(r.errors.is_empty(), "sync survives: {r:?}");
    assert_eq!(r.received, ["m2-good"], "{r:?}");
    assert_eq!(r.rejected, ["a/m1-bad"], "{r:?}");
    let item = std::fs::read_to_string(b.join("threads/inbox/m2-good.md")).unwrap();
    assert!(item.contains("héllo wörld ✓\n"), "the good mail arrives byte for byte: {item}");
    // The bad mail is recorded as taken: the sender hears why, and no later sync reads it.
    let received = std::fs::read_to_string(b.join("state/peer-mail.json")).unwrap();
    assert!(received.contains("\"m1-bad\"") && received.contains("rejected: m1-bad.md is not UTF-8"), "{received}");
    let notice_dir = b.join("threads/mail/sent");
    let notices = md_names(&notice_dir);
    assert_eq!(notices.len(), 1, "{notices:?}");
    let notice = std::fs::read_to_string(notice_dir.join(&notices[0])).unwrap();
    assert!(notice.contains("not UTF-8"), "{notice}");
    let again = sync(&b);
    assert!(again.received.is_empty() && again.rejected.is_empty(), "{again:?}");
}

/// The size of everything under `dir`, in bytes.
fn du(dir: &Path) -> u64 {
    let mut total = 0;
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let m = e.metadata().unwrap();
        total += if m.is_dir() { du(&e.path()) } else { m.len() };
    }
    total
}

/// Bytes no compressor shrinks (a xorshift stream), so a pack holds them at full size.
fn noise(n: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b'a' + (x % 26) as u8
        })
        .collect()
}

#[test]
fn mail_over_the_cap_is_refused_with_a_notice_and_never_fetched_again() {
    over_the_cap(false);
}

/// The same from a `git://` peer, whose listing and fetch cn speaks itself (protocol v2 in
/// one connection): a pack over the limit is cut off as it arrives and git itself then takes
/// each mail alone.
#[test]
fn mail_over_the_cap_from_a_git_daemon_is_refused_the_same_way() {
    over_the_cap(true);
}

fn over_the_cap(git_protocol: bool) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, a_bare) = hub_with_origin(root, "a");
    let (b, b_bare) = hub_with_origin(root, "b");
    let server = git_protocol.then(|| GitDaemon::start(root));
    let a_url = server.as_ref().map_or(a_bare.to_str().unwrap().to_string(), |s| s.url("a"));
    add_peer(&b, "a", &a_url);
    add_peer(&a, "b", b_bare.to_str().unwrap());
    let yaml = std::fs::read_to_string(b.join("cn.yaml")).unwrap();
    std::fs::write(b.join("cn.yaml"), format!("{yaml}\nmail:\n  max_bytes: 65536\n")).unwrap();
    // A mail of 2 MB that compresses to nothing (read by size, never into memory), one of
    // 2 MB that does not compress (refused while it is fetched), and a small one.
    push_raw_mail(root, &a_bare, "b", "m1-zeros", &mail("m1-zeros", &vec![b'0'; 2 << 20]));
    push_raw_mail(root, &a_bare, "b", "m2-noise", &mail("m2-noise", &noise(2 << 20)));
    push_raw_mail(root, &a_bare, "b", "m3-small", &mail("m3-small", b"hello\n"));
    let objects = b.join(".git/objects");
    let before = du(&objects);

    let r = sync(&b);
    assert!(r.errors.is_empty(), "{r:?}");
    assert_eq!(r.received, ["m3-small"], "{r:?}");
    let mut rejected = r.rejected.clone();
    rejected.sort();
    assert_eq!(rejected, ["a/m1-zeros", "a/m2-noise"], "{r:?}");
    let record = std::fs::read_to_string(b.join("state/peer-mail.json")).unwrap();
    assert!(record.contains("more than this hub takes (65536; cn.yaml `mail.max_bytes`"), "{record}");
    // Each sender hears why; nothing of the refused mail stays in b's repository.
    let notices: Vec<String> = md_names(&b.join("threads/mail/sent"))
        .iter()
        .map(|n| std::fs::read_to_string(b.join("threads/mail/sent").join(n)).unwrap())
        .collect();
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices.iter().all(|n| n.contains("more than this hub takes")), "{notices:?}");
    let grown = du(&objects) - before;
    assert!(grown < 256 << 10, "b's .git grew by {grown} bytes");
    let quarantine = b.join(".git/cn-mail-in");
    assert_eq!(std::fs::read_dir(&quarantine).unwrap().count(), 0, "the quarantine is emptied");

    // Receipted: a releases them, and no later sync fetches them again.
    assert!(sync(&a).errors.is_empty());
    let again = sync(&b);
    assert!(again.received.is_empty() && again.rejected.is_empty(), "{again:?}");
    assert!(du(&objects) - before < 256 << 10);
}

#[test]
fn frontmatter_nested_past_the_bound_is_refused_unparsed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (_, a_bare, b, _) = two_peers(root);
    // 200,000 `[` in the frontmatter: libyaml would take the better part of a minute.
    let bomb = format!(
        "---\nid: m1-nest\nto: b\nfrom: a\nthread: m1-nest\ncreated: 2026-01-01T00:00:00Z\nx: {}\n---\n\nhi\n",
        "[".repeat(200_000)
    );
    push_raw_mail(root, &a_bare, "b", "m1-nest", bomb.as_bytes());
    push_raw_mail(root, &a_bare, "b", "m2-ok", &mail("m2-ok", b"hello\n"));
    let r = sync(&b);
    assert!(r.errors.is_empty(), "{r:?}");
    assert_eq!(r.received, ["m2-ok"], "{r:?}");
    assert_eq!(r.rejected, ["a/m1-nest"], "{r:?}");
    let record = std::fs::read_to_string(b.join("state/peer-mail.json")).unwrap();
    assert!(record.contains("more nesting than cn parses"), "refused before parsing: {record}");
}

#[test]
fn the_hub_is_not_held_while_a_peer_is_read() {
    use std::io::Read;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (b, _) = hub_with_origin(root, "b");
    // A peer whose git server accepts and then says nothing: the sync waits on it.
    let server = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = server.local_addr().unwrap().port();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for conn in server.incoming() {
            let Ok(mut conn) = conn else { continue };
            let _ = tx.send(());
            std::thread::spawn(move || {
                let mut buf = [0u8; 1024];
                while conn.read(&mut buf).is_ok_and(|n| n > 0) {}
            });
        }
    });
    // `cn peer add` asks the remote first (and, given no answer, records it with a warning).
    add_peer(&b, "slow", &format!("git://127.0.0.1:{port}/slow.git"));
    rx.recv_timeout(std::time::Duration::from_secs(60)).expect("peer add asked the peer");
    let syncing = b.clone();
    let waiting = std::thread::spawn(move || sync(&syncing));
    rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the sync reaches the peer");
    // While it waits, the owner's commands go on: the hub lock they take is free (a held one
    // would fail this after the commands' wait).
    let held = cn_agent::lock(&open(&b));
    assert!(held.is_ok(), "the sync holds the hub while it reads a peer: {:?}", held.err());
    assert!(!waiting.is_finished(), "the sync was still waiting on the peer");
}

/// Hubs a and b under `root`, their repositories served by a `git daemon`; a has mailed b
/// `text` (published in a's repository). b, and the server.
fn a_mailed_b(root: &Path, text: &str) -> (std::path::PathBuf, GitDaemon) {
    let (a, _) = hub_with_origin(root, "a");
    let (b, b_bare) = hub_with_origin(root, "b");
    let server = GitDaemon::start(root);
    add_peer(&a, "b", b_bare.to_str().unwrap());
    send(&a, "b", text, Some("hello"));
    assert!(sync(&a).errors.is_empty());
    (b, server)
}

/// The same for the hub's own `git://` origin, which cn also lists itself: with a
/// `core.gitProxy` of the owner's, no connection goes to the address origin names — git
/// lists and pushes through the owner's proxy, and the receipt of the mail taken lands where
/// the proxy leads.
#[test]
fn a_git_origin_behind_the_owners_git_proxy_is_reached_through_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, _, b, b_bare) = two_peers(root);
    let server = GitDaemon::writable(root);
    send(&a, "b", "receipted through the proxy", Some("hello"));
    assert!(sync(&a).errors.is_empty());
    // The address b's origin names: a listener that counts who connects to it.
    let decoy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let decoy_port = decoy.local_addr().unwrap().port();
    decoy.set_nonblocking(true).unwrap();
    git(&b, &["remote", "set-url", "origin", &format!("git://127.0.0.1:{decoy_port}/b.git")]);
    // The owner's proxy (git runs it as `PROXY HOST PORT`) leads to the real server.
    let proxy = root.join("proxy.sh");
    let script = format!("#!/bin/bash\nexec 3<>/dev/tcp/127.0.0.1/{}\ncat <&3 &\ncat >&3\nwait\n", server.port);
    std::fs::write(&proxy, script).unwrap();
    std::fs::set_permissions(&proxy, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    git(&b, &["config", "core.gitProxy", proxy.to_str().unwrap()]);
    let r = sync(&b);
    assert!(r.errors.is_empty(), "{r:?}");
    assert_eq!(r.received.len(), 1, "{r:?}");
    assert_eq!(r.receipts.len(), 1, "{r:?}");
    assert!(decoy.accept().is_err(), "cn connected to origin's address past the owner's git proxy");
    let receipts = git(&b_bare, &["for-each-ref", "--format=%(refname)", "refs/heads/cn-receipt/"]);
    assert!(receipts.contains("refs/heads/cn-receipt/a/"), "the receipt is where the proxy leads: {receipts:?}");
}

/// A `git://` server (found by a red-team review) that lists a mail and answers the fetch
/// with a pack that lacks it: the mail is the server's error, tried again at the next sync —
/// not rejected as unreadable and receipted, which would make its sender drop it.
#[test]
fn a_pack_without_the_listed_mail_is_the_servers_error_not_a_rejected_mail() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    // Beside it, an honest git:// peer whose mail is checked in the same batch.
    let (b, server) = a_mailed_b(dir.path(), "the honest mail");
    let port = serve_each(|mut conn| {
        let pkt = |s: &[u8]| [format!("{:04x}", s.len() + 4).as_bytes(), s].concat();
        let mut flushes = 0;
        loop {
            let mut len = [0u8; 4];
            if conn.read_exact(&mut len).is_err() {
                return;
            }
            let n = usize::from_str_radix(std::str::from_utf8(&len).unwrap(), 16).unwrap();
            if n >= 4 {
                let mut d = vec![0u8; n - 4];
                conn.read_exact(&mut d).unwrap();
                continue;
            }
            if n != 0 {
                continue;
            }
            flushes += 1;
            let mut out = Vec::new();
            if flushes == 1 {
                for l in ["version 2\n", "ls-refs\n", "fetch\n"] {
                    out.extend(pkt(l.as_bytes()));
                }
                out.extend_from_slice(b"0000");
                let line = format!("{} refs/heads/cn-mail/b/m1\n", "1".repeat(40));
                out.extend(pkt(line.as_bytes()));
                out.extend_from_slice(b"0000");
            } else {
                // An empty pack: "PACK", version 2, no object, its SHA-1.
                let empty = [
                    0x50, 0x41, 0x43, 0x4b, 0, 0, 0, 2, 0, 0, 0, 0, 0x02, 0x9d, 0x08, 0x82, 0x3b, 0xd8, 0xa8, 0xea,
                    0xb5, 0x10, 0xad, 0x6a, 0xc7, 0x5c, 0x82, 0x3c, 0xfd, 0x3e, 0xd3, 0x1e,
                ];
                out.extend(pkt(b"packfile\n"));
                out.extend(pkt(&[&[1u8][..], &empty].concat()));
                out.extend_from_slice(b"0000");
            }
            conn.write_all(&out).unwrap();
        }
    });
    let yaml = std::fs::read_to_string(b.join("cn.yaml")).unwrap();
    let peers = format!("peers:\n  a: {}\n  evil: git://127.0.0.1:{port}/x.git\n", server.url("a"));
    std::fs::write(b.join("cn.yaml"), yaml.replace("peers: {}\n", &peers)).unwrap();
    let r = sync(&b);
    assert!(r.rejected.is_empty(), "a mail whose objects never came is rejected and receipted, as if read: {r:?}");
    assert_eq!(r.errors.len(), 1, "{r:?}");
    assert!(r.errors[0].contains("peer evil: "), "named: {r:?}");
    assert!(r.errors[0].contains("lacks mail it listed"), "what: {r:?}");
    assert_eq!(r.received.len(), 1, "the honest peer's mail is taken: {r:?}");
    // Nothing recorded or receipted: the next sync asks again.
    let record = std::fs::read_to_string(b.join("state/peer-mail.json")).unwrap_or_default();
    assert!(!record.contains("m1"), "{record}");
}

/// git's own configuration still routes a `git://` peer (found by a red-team review): with a
/// `url.*.insteadOf` (or a `core.gitProxy`) of the owner's, cn does not open the connection
/// itself — it would go where the owner told git not to — and git reaches the peer as told.
#[test]
fn a_git_peer_rewritten_by_the_owners_git_config_is_reached_where_git_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let (b, server) = a_mailed_b(dir.path(), "through the rewrite");
    // b knows a by a name that does not resolve; its git config rewrites it to the server.
    let real = server.url("a").trim_end_matches("a.git").to_string();
    git(&b, &["config", &format!("url.{real}.insteadOf"), "git://a.invalid/"]);
    add_peer(&b, "a", "git://a.invalid/a.git");
    let r = sync(&b);
    assert!(r.errors.is_empty(), "{r:?}");
    assert_eq!(r.received.len(), 1, "{r:?}");
}

/// Issue 42: a hostile `git://` server that trickles its answer — a byte every 100 ms, each
/// well within the idle time, never done — beside an honest peer. The honest peer's mail is
/// filed as soon as its own fetch completes, while the trickler still holds the sync; the
/// trickler is cut off at its own deadline (`mail.peer_timeout`), not after 300 s of each
/// command, and reported as "took too long".
#[test]
fn a_trickling_git_server_delays_no_other_peers_mail_and_took_too_long() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let (b, server) = a_mailed_b(dir.path(), "the honest mail");
    let port = serve_each(|mut conn| {
        let mut request = [0u8; 512];
        let _ = conn.read(&mut request);
        // "version 2", then a capability line of the largest length whose bytes
        // come one at a time, until the client goes (or two minutes).
        let _ = conn.write_all(b"000eversion 2\nfff0");
        for _ in 0..1200 {
            if conn.write_all(b"a").is_err() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
    // Room for the honest peer on a loaded machine; the trickler would take minutes.
    let timeout = std::time::Duration::from_secs(15);
    let yaml = std::fs::read_to_string(b.join("cn.yaml")).unwrap();
    let peers = format!(
        "peers:\n  a: {}\n  slow: git://127.0.0.1:{port}/x.git\nmail: {{peer_timeout: {}s}}\n",
        server.url("a"),
        timeout.as_secs()
    );
    assert!(yaml.contains("peers: {}\n"), "{yaml}");
    std::fs::write(b.join("cn.yaml"), yaml.replace("peers: {}\n", &peers)).unwrap();

    let started = std::time::Instant::now();
    let syncing = b.clone();
    let running = std::thread::spawn(move || sync(&syncing));
    // The honest peer's mail is in the inbox while the sync still waits on the trickler.
    let filed_while_running = loop {
        if !md_names(&b.join("threads/inbox")).is_empty() {
            break !running.is_finished();
        }
        if running.is_finished() {
            break false;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(120), "the sync neither filed nor ended");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let filed_after = started.elapsed();
    let r = running.join().expect("the sync");
    let took = started.elapsed();
    assert!(filed_while_running, "the honest mail was filed only when the sync ended ({filed_after:?})");
    assert!(filed_after < timeout, "the honest mail was filed after {filed_after:?}");
    assert!(took >= timeout, "the trickler was given its whole time: {took:?}");
    assert!(took < timeout * 5, "the trickler was cut off at its deadline: {took:?}");
    assert_eq!(r.received.len(), 1, "the honest peer's mail is taken: {r:?}");
    let errors: Vec<&str> = r.errors.iter().map(String::as_str).collect();
    let slow = errors.iter().find(|e| e.starts_with("peer slow: ")).unwrap_or_else(|| panic!("{errors:?}"));
    assert!(slow.contains("took too long"), "{slow}");
    assert!(!slow.contains("temporarily unavailable"), "{slow}");
    assert_eq!(errors.len(), 1, "{errors:?}");
}

/// A server on 127.0.0.1 that answers each connection with `answer`, on a thread of its own;
/// its port.
fn serve_each(answer: fn(std::net::TcpStream)) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            std::thread::spawn(move || answer(conn));
        }
    });
    port
}
