//! The senses' HTTP server under hostile input (issue 34, points 7 and 8), against the real
//! `cn run`: a request's body is read only after its token (the owner endpoint) or its
//! signature header's form (the GitHub route) is checked, under a cap and a time limit, so
//! 300 half-sent bodies without a token are answered 401 at once and cost the daemon
//! nothing; a connection that never finishes its header is dropped after the header
//! timeout, and the owner's `cn chat` still gets through. Memory is read from
//! `/proc/PID/status` (the daemon's peak, `VmHWM`). A signed GitHub body replayed under a
//! fresh delivery id is cn-daemon's (crates/daemon/tests/it/hostile.rs).

use crate::daemon_common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use daemon_common::*;

const MODEL: &str = r#"prompt=$(cat)
case "$prompt" in
  *"From: owner"*) printf '```yaml\ntool: reply\nmessage: here\n```\n' ;;
  *) printf '```yaml\ntool: ack\nreason: seen\n```\n' ;;
esac
"#;

/// The daemon's resident memory now and at its peak, in KiB.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap()
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn addr_of(url: &str) -> String {
    url.strip_prefix("http://").unwrap().split('/').next().unwrap().to_string()
}

/// Open a connection and send `head` (a request's header, and whatever part of a body).
fn send(addr: &str, head: &str) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    s
}

/// The status of the answer on `s` (0 when the server closed without one).
fn status(s: &mut TcpStream) -> u16 {
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut buf = [0u8; 256];
    let n = s.read(&mut buf).unwrap_or(0);
    String::from_utf8_lossy(&buf[..n]).split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0)
}

#[test]
fn half_sent_bodies_without_the_token_cost_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", MODEL, "");
    let mut daemon = Daemon::start(&hub, &[]);
    let url = daemon.owner_url();
    let addr = addr_of(&url);
    let pid = daemon.child.id();
    let (rss_before, _) = memory(pid);

    // 300 requests that promise 2 MB and send 64 KiB of it, no token: each answered 401
    // before its body is read, and the connection let go.
    let chunk = "x".repeat(64 << 10);
    let head = format!(
        "POST /owner/message HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{chunk}",
        2 << 20
    );
    let mut open = Vec::new();
    for _ in 0..300 {
        let mut s = send(&addr, &head);
        assert_eq!(status(&mut s), 401);
        open.push(s);
    }
    let (_, peak) = memory(pid);
    assert!(peak < rss_before + 64 * 1024, "the daemon's peak grew from {rss_before} KiB to {peak} KiB");

    // The owner's own request with a body over the cap is refused by its declared length.
    let (name, value) = owner_auth(&hub);
    let mut s = send(
        &addr,
        &format!(
            "POST /owner/message HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n{name}: {value}\r\nContent-Length: {}\r\n\r\n",
            64 << 20
        ),
    );
    assert_eq!(status(&mut s), 413);
    // And the owner's chat goes through.
    assert_eq!(cn_ok(&hub, &["chat", "--timeout", "60", "are you there?"]).trim(), "here");
    drop(open);
    assert!(daemon.stop().success());
}

#[test]
fn connections_that_never_finish_their_header_are_dropped_and_the_owner_gets_through() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", MODEL, "");
    let mut daemon = Daemon::start(&hub, &[]);
    let url = daemon.owner_url();
    let addr = addr_of(&url);
    let (rss_before, _) = memory(daemon.child.id());
    // More connections than the server holds, each stopping halfway through its header.
    let stalled: Vec<TcpStream> =
        (0..100).map(|_| send(&addr, &format!("POST /owner/message HTTP/1.1\r\nHost: {addr}\r\nX-Slow: "))).collect();
    // The owner's chat waits at most for the header timeout to free a place.
    assert_eq!(cn_ok(&hub, &["chat", "--timeout", "60", "are you there?"]).trim(), "here");
    let (_, peak) = memory(daemon.child.id());
    assert!(peak < rss_before + 64 * 1024, "the daemon's peak grew from {rss_before} KiB to {peak} KiB");
    // The stalled ones were let go (closed without an answer, or with 408).
    for mut s in stalled.into_iter().take(5) {
        assert!(matches!(status(&mut s), 0 | 408), "a stalled connection was kept");
    }
    assert!(daemon.stop().success());
}

fn webhook_hub(dir: &std::path::Path) -> std::path::PathBuf {
    let hub = hub(dir, "ada", MODEL, "");
    add_webhook(&hub);
    hub
}

#[test]
fn the_github_route_reads_no_body_before_its_signature_header_and_caps_it() {
    let dir = tempfile::tempdir().unwrap();
    let hub = webhook_hub(dir.path());
    let mut daemon = Daemon::start(&hub, &[("CN_TEST_HOOK_SECRET", "hook-secret")]);
    let addr = addr_of(&daemon.owner_url());
    let pid = daemon.child.id();
    let (rss_before, _) = memory(pid);
    let chunk = "x".repeat(64 << 10);
    // No signature (or one of the wrong form): 401 before the body.
    for sig in ["", "X-Hub-Signature-256: sha256=nothex\r\n"] {
        let mut open = Vec::new();
        for _ in 0..100 {
            let mut s = send(
                &addr,
                &format!(
                    "POST /github/webhook HTTP/1.1\r\nHost: {addr}\r\nX-GitHub-Event: issues\r\n{sig}Content-Length: {}\r\n\r\n{chunk}",
                    4 << 20
                ),
            );
            assert_eq!(status(&mut s), 401);
            open.push(s);
        }
    }
    // A well-formed signature on a body over the cap: 413 by its declared length.
    let sig = format!("sha256={}", "0".repeat(64));
    let mut s = send(
        &addr,
        &format!(
            "POST /github/webhook HTTP/1.1\r\nHost: {addr}\r\nX-GitHub-Event: issues\r\nX-Hub-Signature-256: {sig}\r\nContent-Length: {}\r\n\r\n",
            64 << 20
        ),
    );
    assert_eq!(status(&mut s), 413);
    let (_, peak) = memory(pid);
    assert!(peak < rss_before + 64 * 1024, "the daemon's peak grew from {rss_before} KiB to {peak} KiB");
    assert!(daemon.stop().success());
}
