//! A careless or hostile peer's mail: bytes that are not UTF-8 must not kill `cn sync`
//! (release builds abort on panic), the good mail of the same batch still arrives intact,
//! and the bad mail is recorded as taken (rejected with a notice) so no later sync — nor the
//! daemon's peer sense on every tick — reads it again.

use crate::agent_common;

use std::path::Path;

use agent_common::*;

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

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
    let (a, a_bare) = hub_with_origin(root, "a");
    let (b, _b_bare) = hub_with_origin(root, "b");
    cn_ok(&b, &["peer", "add", "a", a_bare.to_str().unwrap()]);
    cn_ok(&a, &["peer", "add", "b", _b_bare.to_str().unwrap()]);
    // Branches are read in name order: the bad one first, so its byte count decides where
    // the good one is cut. Each invalid byte grows by two when decoded lossily.
    push_raw_mail(root, &a_bare, "b", "m1-bad", &mail("m1-bad", b"caf\xc3 \xff\xfe\xff\xfe\xff\xfe\xff\xfe\n"));
    push_raw_mail(root, &a_bare, "b", "m2-good", &mail("m2-good", "héllo wörld ✓\n".as_bytes()));

    let out = cn(&b, &["sync", "--json"]);
    assert!(out.status.code() == Some(0), "sync survives ({:?}): {}", out.status, String::from_utf8_lossy(&out.stderr));
    let r = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(r["received"], serde_json::json!(["m2-good"]), "{r}");
    assert_eq!(r["rejected"], serde_json::json!(["a/m1-bad"]), "{r}");
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
    let again = json(&cn_ok(&b, &["sync", "--json"]));
    assert!(again["received"].as_array().unwrap().is_empty() && again["rejected"].as_array().unwrap().is_empty());
}
