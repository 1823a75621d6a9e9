//! Peer mail where peers only read each other (issue 19), through cn-agent's API: two hubs
//! whose repositories `git daemon` serves read-only to each other, each owner writing its
//! own. Mail whose envelope does not match is rejected with a notice; mail left in flight in
//! the old layout is delivered once. (Four hubs over git:// and HTTP, and syncs killed at
//! random points, run the binary: crates/cn/tests/it/peers_readonly.rs.)

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cn_testkit::servers::{heads, read_only_pair, GitDaemon};

use crate::queue::*;
use crate::support::*;

/// The branches of the mail layout left in a repository.
fn mail_refs(bare: &Path) -> Vec<String> {
    heads(bare).into_iter().filter(|h| h.starts_with("cn-mail/") || h.starts_with("cn-receipt/")).collect()
}

/// Where an item is: the folders holding it, and `current` when it is `state/input.md`'s.
fn places(hub: &Path, id: &str) -> Vec<&'static str> {
    let file = format!("{id}.md");
    let current = (front(&hub.join("state/input.md"), "id").as_deref() == Some(id)).then_some("current");
    let folders = [("inbox", "threads/inbox"), ("archived", "threads/archived"), ("deferred", "threads/deferred")];
    let held = folders.into_iter().filter_map(|(name, d)| hub.join(d).join(&file).is_file().then_some(name));
    held.chain(current).collect()
}

/// Two hubs, a and b, whose repositories `git daemon` serves read-only to each other (each
/// owner writes its own as a path).
fn pair(root: &Path) -> (GitDaemon, (PathBuf, PathBuf), (PathBuf, PathBuf)) {
    let (a, b) = (init_hub(root, "a"), init_hub(root, "b"));
    let (daemon, a_bare, b_bare) = read_only_pair(root, &a, &b);
    add_peer(&a, "b", &daemon.url("b"));
    add_peer(&b, "a", &daemon.url("a"));
    (daemon, (a, a_bare), (b, b_bare))
}

#[test]
fn mail_whose_envelope_does_not_match_is_rejected_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (_daemon, (a, a_bare), (b, _)) = pair(root);
    // A mail whose content was altered after its envelope was written.
    let sent = b"---\nid: m-1\nto: b\nfrom: a\nthread: m-1\ncreated: 2026-11-23T10:00:00Z\n---\n\npay 10\n";
    let altered = b"---\nid: m-1\nto: b\nfrom: a\nthread: m-1\ncreated: 2026-11-23T10:00:00Z\n---\n\npay 1000\n";
    let scratch = root.join("scratch");
    git(root, &["init", "-q", scratch.to_str().unwrap()]);
    std::fs::write(scratch.join("m-1.md"), altered).unwrap();
    git(&scratch, &["add", "-A"]);
    let envelope = format!(
        "mail m-1 from a to b\n\ncn-envelope: 1\nfrom: a\nto: b\nid: m-1\ncreated: 2026-11-23T10:00:00Z\nsha256: {}\n",
        cn_hub::id::sha256_hex(sent)
    );
    git(&scratch, &["-c", "user.name=a", "-c", "user.email=a@x", "commit", "-q", "-m", &envelope]);
    git(&scratch, &["push", "-q", a_bare.to_str().unwrap(), "HEAD:refs/heads/cn-mail/b/m-1"]);

    let r = synced(&b);
    assert_eq!(r.rejected, ["a/m-1"], "{r:?}");
    assert!(md_names(&b.join("threads/inbox")).is_empty());
    // It is receipted like any mail taken, so a releases it; a hears why.
    assert_eq!(r.receipts, ["a/m-1"], "{r:?}");
    let r = synced(&a);
    assert_eq!(r.received.len(), 1, "{r:?}");
    assert_eq!(r.released, ["b/m-1"], "{r:?}");
    let notice = std::fs::read_to_string(a.join("threads/inbox").join(&md_names(&a.join("threads/inbox"))[0])).unwrap();
    assert!(notice.contains("kind: notice") && notice.contains("sha256") && notice.contains("m-1"), "{notice}");
    let again = synced(&b);
    assert!(again.rejected.is_empty(), "{again:?}");
}

#[test]
fn mail_in_flight_in_the_old_layout_is_delivered_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (_daemon, (a, a_bare), (b, b_bare)) = pair(root);
    // What the old cn left in a's repository: branches `b/<id>`, each a root commit holding
    // `<id>.md` with no envelope. b had taken old-1 (filed, decided, recorded in
    // state/received.json) and was killed before deleting its branch.
    let mut shas = BTreeMap::new();
    for id in ["old-1", "old-2"] {
        let scratch = root.join(format!("scratch-{id}"));
        git(root, &["init", "-q", scratch.to_str().unwrap()]);
        let text = format!(
            "---\nid: {id}\nto: b\nfrom: a\nthread: {id}\ncreated: 2026-11-20T10:00:00Z\n---\n\nold mail {id}\n"
        );
        std::fs::write(scratch.join(format!("{id}.md")), text).unwrap();
        git(&scratch, &["add", "-A"]);
        git(
            &scratch,
            &["-c", "user.name=a", "-c", "user.email=a@cn.invalid", "commit", "-qm", &format!("mail {id} from a to b")],
        );
        git(&scratch, &["push", "-q", a_bare.to_str().unwrap(), &format!("HEAD:refs/heads/b/{id}")]);
        shas.insert(id, git(&scratch, &["rev-parse", "HEAD"]).trim().to_string());
    }
    std::fs::write(b.join("state/received.json"), serde_json::json!({ shas["old-1"].clone(): "old-1" }).to_string())
        .unwrap();
    put_item(&b, "old-1", "a", "inbox", "2026-11-20T10:00:00Z", "old mail old-1");
    input(&b).expect("old-1");
    out(&b, &["do", "ack", "--reason", "read before the upgrade"]);
    assert_eq!(places(&b, "old-1"), ["archived"]);

    let r = synced(&b);
    assert_eq!(r.received, ["old-2"], "{r:?}");
    assert_eq!(r.receipts, ["a/old-1", "a/old-2"], "{r:?}");
    assert_eq!(heads(&a_bare), ["b/old-1", "b/old-2"], "b never deletes a's branches");
    let r = synced(&b);
    assert!(r.received.is_empty(), "{r:?}");

    let r = synced(&a);
    assert!(r.errors.iter().all(|e| !e.contains("old")), "{r:?}");
    assert_eq!(r.released, ["b/old-1", "b/old-2"], "{r:?}");
    assert!(heads(&a_bare).iter().all(|h| h.starts_with("cn-")), "old branches released: {:?}", heads(&a_bare));
    synced(&b);
    assert!(mail_refs(&b_bare).is_empty(), "{:?}", mail_refs(&b_bare));
    assert_eq!(places(&b, "old-1"), ["archived"]);
    assert_eq!(places(&b, "old-2"), ["inbox"]);
}
