//! Helpers for the agent layer's end-to-end tests: run the real `cn` binary on real hubs
//! (git repositories in temp dirs), with bare repositories as remotes.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::hub_common;
pub use cn_testkit::hub::{changed, journal, put_item, snapshot};
pub use cn_testkit::md_names;
#[allow(unused_imports)]
pub use hub_common::{cn_cmd, cn_ok, init_hub};

pub fn cn(hub: &Path, args: &[&str]) -> Output {
    cn_cmd(hub).args(args).output().expect("cn runs")
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?} in {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `cn init` a hub named `name` under `root`, with a bare repository as its `origin`.
pub fn hub_with_origin(root: &Path, name: &str) -> (PathBuf, PathBuf) {
    let hub = init_hub(root, name);
    let bare = cn_testkit::bare_origin(root, &hub, name);
    (hub, bare)
}

/// Frontmatter field `key` of a markdown file.
pub fn front(path: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let doc = cn_storage::Doc::parse(&text).ok()?;
    doc.get_str(key).map(str::to_string)
}

/// Hubs a and b, each with a bare repository as its origin, each the other's peer.
pub fn two_peers(root: &Path) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let (a, a_bare) = hub_with_origin(root, "a");
    let (b, b_bare) = hub_with_origin(root, "b");
    cn_ok(&a, &["peer", "add", "b", b_bare.to_str().unwrap()]);
    cn_ok(&b, &["peer", "add", "a", a_bare.to_str().unwrap()]);
    (a, a_bare, b, b_bare)
}
