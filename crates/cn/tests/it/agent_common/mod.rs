//! Helpers for the agent layer's end-to-end tests: run the real `cn` binary on real hubs
//! (git repositories in temp dirs), with bare repositories as remotes.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::hub_common;
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

/// Put an item straight into the inbox, as a sense or a person would.
pub fn put_item(hub: &Path, id: &str, from: &str, cadence: &str, queued: &str, content: &str) {
    let text = format!("---\nid: {id}\nfrom: {from}\ncadence: {cadence}\nqueued: {queued}\n---\n\n{content}\n");
    std::fs::write(hub.join("threads/inbox").join(format!("{id}.md")), text).unwrap();
}

/// Every file of the hub (outside `.git`) with its bytes, plus HEAD: to prove nothing changed.
pub fn snapshot(hub: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.insert(
                    p.strip_prefix(root).unwrap().display().to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                );
            }
        }
    }
    walk(hub, hub, &mut out);
    out.insert("HEAD".into(), git(hub, &["rev-parse", "HEAD"]));
    out
}

/// The paths whose content differs between two snapshots (short, for assertion messages).
pub fn changed(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> Vec<String> {
    a.keys().chain(b.keys()).filter(|k| a.get(*k) != b.get(*k)).cloned().collect()
}

/// Frontmatter field `key` of a markdown file.
pub fn front(path: &Path, key: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let doc = cn_storage::Doc::parse(&text).ok()?;
    doc.get_str(key).map(str::to_string)
}

/// Every entry of the hub's journal. A line that is not JSON fails the test unless it is
/// what a kill mid-append leaves by design (`cn_storage::journal`): the last line without its
/// newline, or such a fragment sealed by the next append with `~`. Readers skip both.
pub fn journal(hub: &Path) -> Vec<serde_json::Value> {
    let path = hub.join("state/journal.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut entries = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(entry) => entries.push(entry),
            Err(e) => {
                let torn = line.ends_with("~\n") || (i + 1 == lines.len() && !line.ends_with('\n'));
                assert!(torn, "{} line {}: {e}: {line:?}", path.display(), i + 1);
            }
        }
    }
    entries
}

/// Hubs a and b, each with a bare repository as its origin, each the other's peer.
pub fn two_peers(root: &Path) -> (PathBuf, PathBuf, PathBuf, PathBuf) {
    let (a, a_bare) = hub_with_origin(root, "a");
    let (b, b_bare) = hub_with_origin(root, "b");
    cn_ok(&a, &["peer", "add", "b", b_bare.to_str().unwrap()]);
    cn_ok(&b, &["peer", "add", "a", a_bare.to_str().unwrap()]);
    (a, a_bare, b, b_bare)
}
