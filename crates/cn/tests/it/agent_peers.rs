//! Peers as the binary says them: `cn peer list`, `cn input --help`, `cn sync`'s exit 1 and
//! its report on stdout, `cn send`'s refusal of an unknown peer. What mail between hubs does
//! is cn-agent's (`crates/agent/tests/it/peers.rs`); `peers_readonly.rs` runs it over
//! read-only git servers.

use crate::agent_common;

use agent_common::*;

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

#[test]
fn an_unreachable_peer_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, _, b, _) = two_peers(root);
    assert!(cn_ok(&a, &["peer", "list"]).contains("b\t"));
    assert!(cn_ok(&b, &["input", "--help"]).contains("subject"));
    cn_ok(&b, &["peer", "add", "ghost", root.join("nowhere.git").to_str().unwrap()]);
    cn_ok(&a, &["send", "--to", "b", "--message", "hello"]);
    cn_ok(&a, &["sync"]);
    let out = cn(&b, &["sync", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("peer ghost") && stderr.contains("nowhere.git"), "{stderr}");
    let r = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(r["received"].as_array().unwrap().len(), 1, "{r}");
    // Unknown peers are refused before anything is written.
    let out = cn(&a, &["send", "--to", "nobody", "--message", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cn peer add nobody"));
}
