//! What the agent's tests share: hubs made as `cn init` makes them, with bare repositories
//! as their `origin`, peers added, mail sent and synced through cn-agent's API, as the
//! commands `cn init|peer add|send|sync` call it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use cn_agent::{Hub, SyncReport};
pub use cn_testkit::{git, md_names};

/// `cn init` a hub named `name` at `root/name`; its path.
pub fn init_hub(root: &Path, name: &str) -> PathBuf {
    let hub = root.join(name);
    cn_agent::init(&hub, Some(name)).unwrap_or_else(|e| panic!("init {name}: {}", cn_compute::chain(&e)));
    hub
}

/// `cn init` a hub named `name` under `root`, with a bare repository as its `origin`.
pub fn hub_with_origin(root: &Path, name: &str) -> (PathBuf, PathBuf) {
    let hub = init_hub(root, name);
    let bare = cn_testkit::bare_origin(root, &hub, name);
    (hub, bare)
}

/// The hub at `path`, opened as every command opens it (cn.yaml read now).
pub fn open(path: &Path) -> Hub {
    Hub::find(Some(path)).unwrap_or_else(|e| panic!("{}: {}", path.display(), cn_compute::chain(&e)))
}

/// `cn peer add NAME REMOTE`: recorded, then asked (an unreachable peer stays added, as the
/// command warns).
pub fn add_peer(hub: &Path, name: &str, remote: &str) {
    let hub = open(hub);
    cn_agent::add_peer(&hub, name, remote).unwrap_or_else(|e| panic!("peer add {name}: {}", cn_compute::chain(&e)));
    let _ = cn_agent::peer_unreachable(&hub, name);
}

/// `cn send --to TO --message MESSAGE [--body BODY]`.
pub fn send(hub: &Path, to: &str, message: &str, body: Option<&str>) {
    cn_agent::send(&open(hub), to, message, body).unwrap_or_else(|e| panic!("send: {}", cn_compute::chain(&e)));
}

/// `cn sync`: its report (`cn sync --json`); the command exits 1 when `errors` is not empty.
pub fn sync(hub: &Path) -> SyncReport {
    cn_agent::sync(&open(hub)).unwrap_or_else(|e| panic!("sync: {}", cn_compute::chain(&e)))
}

/// Hubs a and b, each with a bare repository as its origin, each the other's peer.
pub fn two_peers(root: &Path) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let (a, a_bare) = hub_with_origin(root, "a");
    let (b, b_bare) = hub_with_origin(root, "b");
    add_peer(&a, "b", b_bare.to_str().unwrap());
    add_peer(&b, "a", a_bare.to_str().unwrap());
    (a, a_bare, b, b_bare)
}

/// What a sync said: its report's errors, or the error it stopped on (`cn sync`'s stderr).
pub fn sync_said(hub: &Path) -> String {
    match Hub::find(Some(hub)) {
        Ok(h) => match cn_agent::sync(&h) {
            Ok(r) => r.errors.join("\n"),
            Err(e) => cn_compute::chain(&e),
        },
        Err(e) => cn_compute::chain(&e),
    }
}

/// [`sync_said`] in a process of its own (this test binary's [`sync_driver`]) with `env`
/// added to its environment, as `cn sync` run from a shell that holds them.
pub fn sync_in_child(hub: &Path, env: &[(&str, &str)]) -> String {
    let mut c = cn_testkit::child::test_command("support::sync_driver");
    c.env("CN_AGENT_TEST_SYNC", hub).envs(env.iter().copied());
    let out = c.output().expect("the test binary runs");
    let said = cn_testkit::child::said(&out.stdout);
    match said.first().and_then(|v| v["said"].as_str()) {
        Some(s) => s.to_string(),
        None => panic!("the sync's process said nothing: {}", cn_testkit::text(&out)),
    }
}

/// Not a test: the sync's own process for [`sync_in_child`]; syncs `CN_AGENT_TEST_SYNC`.
#[test]
#[ignore = "the sync's process for the tests that set its environment (support::sync_in_child); runs only as their child"]
fn sync_driver() {
    let Some(hub) = std::env::var_os("CN_AGENT_TEST_SYNC").map(PathBuf::from) else { return };
    cn_testkit::child::say(&serde_json::json!({ "said": sync_said(&hub) }));
}
