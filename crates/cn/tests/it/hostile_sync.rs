//! A hostile `git://` peer against the real `cn sync`, whose git reaches `git://` through the
//! binary's own connector (`cn HOST PORT`, set by `main`): a server that lists forever, one
//! that answers garbage, one that hangs up, each costs its own peer an error naming it. The
//! rest of a hostile peer's mail is cn-agent's (crates/agent/tests/it/hostile_sync.rs).

use crate::agent_common;

use std::path::Path;

use agent_common::*;

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

/// Hubs a and b under `root`, their repositories served by a `git daemon`; a has mailed b
/// `text` (published in a's repository). b, and the server.
fn a_mailed_b(root: &Path, text: &str) -> (std::path::PathBuf, crate::peer_servers::GitDaemon) {
    let (a, _) = hub_with_origin(root, "a");
    let (b, b_bare) = hub_with_origin(root, "b");
    let server = crate::peer_servers::GitDaemon::start(root);
    cn_ok(&a, &["peer", "add", "b", b_bare.to_str().unwrap()]);
    cn_ok(&a, &["send", "--to", "b", "--message", text, "--body", "hello"]);
    cn_ok(&a, &["sync"]);
    (b, server)
}

/// A `git://` server that never stops listing, one that answers garbage after `version 2`,
/// one that hangs up at once: each costs its own peer an error naming it, bounded, and the
/// other peers' mail is still taken; cn neither panics nor holds the listing in memory past
/// its bound.
#[test]
fn git_servers_that_list_forever_or_answer_garbage_cost_their_peer_an_error_not_the_sync() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let (b, server) = a_mailed_b(dir.path(), "the real mail");
    let pkt = |s: &str| format!("{:04x}{s}", s.len() + 4);
    let advertise = format!("{}{}{}0000", pkt("version 2\n"), pkt("ls-refs\n"), pkt("fetch\n"));
    let fake = |answer: fn(&str) -> Vec<u8>, advertise: String| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { continue };
                let advertise = advertise.clone();
                std::thread::spawn(move || {
                    let mut request = [0u8; 512];
                    let _ = conn.read(&mut request);
                    let _ = conn.write_all(&answer(&advertise));
                });
            }
        });
        format!("git://127.0.0.1:{port}/x.git")
    };
    // Endless: ref lines until the client goes (40 MB of them, past the 16 MiB bound).
    let endless = fake(
        |adv| {
            let mut out = adv.as_bytes().to_vec();
            let text = format!("{} refs/heads/cn-mail/b/m000000\n", "a".repeat(40));
            let line = format!("{:04x}{text}", text.len() + 4);
            while out.len() < 40 << 20 {
                out.extend_from_slice(line.as_bytes());
            }
            out
        },
        advertise.clone(),
    );
    let garbage = fake(|adv| [adv.as_bytes(), b"zzzz\xff\xfe not a pkt-line"].concat(), advertise.clone());
    let rude = fake(|_| Vec::new(), advertise);
    let yaml = std::fs::read_to_string(b.join("cn.yaml")).unwrap();
    let peers =
        format!("peers:\n  a: {}\n  endless: {endless}\n  garbage: {garbage}\n  rude: {rude}\n", server.url("a"));
    std::fs::write(b.join("cn.yaml"), yaml.replace("peers: {}\n", &peers)).unwrap();

    // A sync with a peer's error exits 1, its report on stdout all the same.
    let out = cn(&b, &["sync", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let r = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(r["received"].as_array().map(Vec::len), Some(1), "the real peer's mail is taken: {r}");
    let errors: Vec<&str> = r["errors"].as_array().unwrap().iter().filter_map(|e| e.as_str()).collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    let says = |peer: &str, what: &str| {
        let e =
            errors.iter().find(|e| e.starts_with(&format!("peer {peer}: "))).unwrap_or_else(|| panic!("{errors:?}"));
        assert!(e.contains(what), "{peer}: {e}");
    };
    says("endless", "more than 16777216 bytes");
    says("garbage", "protocol error");
    says("rude", "git://127.0.0.1");
    let inbox = md_names(&b.join("threads/inbox"));
    assert_eq!(inbox.len(), 1, "{inbox:?}");
}
