//! The binary as git's connector: `CN_GIT_CONNECT=1` makes `cn HOST PORT` the connection
//! git asked for, and nothing else. What git may be handed (remotes, credentials, the
//! environment) is cn-agent's test (crates/agent/tests/it/trust_git.rs).

use crate::daemon_common;

use daemon_common::*;

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
