//! Peers over git, end to end: three hubs with bare repositories on disk as their remotes.
//! a sends to b, b delegates to c (a is notified), c replies to b — a peer's `reply-to`
//! naming someone else is not trusted; mail is never delivered twice; a hub writes only its
//! own repository (mail and receipts there, released and retired by their owners); and an
//! orphan branch is rejected with a notice to its sender. (`peers_readonly.rs` runs the same
//! over read-only git servers.)

use crate::agent_common;
use crate::hub_common;

use std::path::Path;

use agent_common::*;

fn json(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("{e}: {s}"))
}

fn branches(bare: &Path) -> Vec<String> {
    git(bare, &["for-each-ref", "--format=%(refname:short)", "refs/heads/"]).lines().map(str::to_string).collect()
}

fn inbox_items(hub: &Path) -> Vec<(String, String, String)> {
    md_names(&hub.join("threads/inbox"))
        .into_iter()
        .map(|n| {
            let p = hub.join("threads/inbox").join(&n);
            let text = std::fs::read_to_string(&p).unwrap();
            (front(&p, "from").unwrap(), front(&p, "kind").unwrap_or_default(), text)
        })
        .collect()
}

#[test]
fn a_sends_b_delegates_a_is_notified_c_replies_to_its_sender() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, a_bare) = hub_with_origin(root, "a");
    let (b, b_bare) = hub_with_origin(root, "b");
    let (c, c_bare) = hub_with_origin(root, "c");
    for (hub, peers) in [
        (&a, [("b", &b_bare), ("c", &c_bare)]),
        (&b, [("a", &a_bare), ("c", &c_bare)]),
        (&c, [("a", &a_bare), ("b", &b_bare)]),
    ] {
        for (name, bare) in peers {
            cn_ok(hub, &["peer", "add", name, bare.to_str().unwrap()]);
        }
    }
    assert!(cn_ok(&a, &["peer", "list"]).contains("b\t"));

    // a → b
    cn_ok(&a, &["send", "--to", "b", "--message", "Please review", "--body", "Please review PR #42"]);
    let r = json(&cn_ok(&a, &["sync", "--json"]));
    assert_eq!(r["sent"].as_array().unwrap().len(), 1);
    let thread = r["sent"][0].as_str().unwrap().to_string();
    assert_eq!(branches(&a_bare), [format!("cn-mail/b/{thread}")]);
    assert_eq!(md_names(&a.join("threads/mail/sent")), [format!("{thread}.md")]);

    let r = json(&cn_ok(&b, &["sync", "--json"]));
    assert_eq!(r["received"], serde_json::json!([thread]));
    assert_eq!(branches(&a_bare), [format!("cn-mail/b/{thread}")], "b never writes a's repository");
    assert_eq!(branches(&b_bare), [format!("cn-receipt/a/{thread}")], "b receipts in its own");
    let item = json(&cn_ok(&b, &["input", "--json"]));
    assert_eq!((item["from"].as_str(), item["content"].as_str()), (Some("a"), Some("Please review PR #42\n")));
    // The mail's subject (its summary line) is in the JSON, and `cn input --help` says so.
    assert_eq!(item["subject"], "Please review", "{item}");
    assert!(cn_ok(&b, &["input", "--help"]).contains("subject"));

    // b delegates to c; a hears of it. A peer's item may not make b mail another peer
    // unasked (issue 34: `cn out` is held like the executive's call) until b's owner says so.
    let held = cn_cmd(&b).args(["out", "delegate", "--to", "c"]).output().unwrap();
    let err = String::from_utf8_lossy(&held.stderr);
    assert!(!held.status.success() && err.contains("held as approval ap-"), "{err}");
    assert!(md_names(&b.join("threads/mail/outbox")).is_empty(), "nothing mailed");
    hub_common::allow_from(&b, "peer:a", &["delegate"]);
    cn_ok(&b, &["out", "delegate", "--to", "c"]);
    let r = json(&cn_ok(&b, &["sync", "--json"]));
    assert_eq!(r["sent"].as_array().unwrap().len(), 2, "{r}");
    assert_eq!(branches(&b_bare).iter().filter(|b| b.starts_with("cn-mail/")).count(), 2);

    let r = json(&cn_ok(&c, &["sync", "--json"]));
    assert_eq!(r["received"].as_array().unwrap().len(), 1, "{r}");
    let item = json(&cn_ok(&c, &["input", "--json"]));
    assert_eq!((item["from"].as_str(), item["content"].as_str()), (Some("b"), Some("Please review PR #42\n")));
    cn_ok(&c, &["out", "do", "reply", "--message", "LGTM"]);
    assert_eq!(json(&cn_ok(&c, &["sync", "--json"]))["sent"].as_array().unwrap().len(), 1);

    // a hears of the delegation from b. c's reply goes to b, its sender: the `reply-to: a`
    // b's forward carried is a peer's claim, and a peer cannot redirect replies elsewhere.
    let r = json(&cn_ok(&a, &["sync", "--json"]));
    assert_eq!(r["received"].as_array().unwrap().len(), 1, "{r}");
    let items = inbox_items(&a);
    let from_b = items.iter().find(|(f, _, _)| f == "b").expect("a notice from b");
    assert_eq!(from_b.1, "notice");
    assert!(from_b.2.contains("delegate") && from_b.2.contains("to: c"), "{}", from_b.2);
    let r = json(&cn_ok(&b, &["sync", "--json"]));
    assert_eq!(r["received"].as_array().unwrap().len(), 1, "{r}");
    let items = inbox_items(&b);
    let from_c = items.iter().find(|(f, _, _)| f == "c").expect("c's reply");
    // The thread as the frontmatter reads (an id of digits only is written quoted).
    let doc = cn_storage::Doc::parse(&from_c.2).unwrap();
    assert!(from_c.2.contains("LGTM") && doc.get_str("thread") == Some(thread.as_str()), "{}", from_c.2);
    assert!(!from_c.2.contains("reply-to"), "{}", from_c.2);
    // Senders release what was receipted; receivers retire their receipts after that.
    for _ in 0..2 {
        for hub in [&a, &b, &c] {
            cn_ok(hub, &["sync"]);
        }
    }
    for bare in [&a_bare, &b_bare, &c_bare] {
        assert!(branches(bare).is_empty(), "{}: {:?}", bare.display(), branches(bare));
    }

    // Never twice: a mail pushed again (as if its file went back to the outbox) is the same
    // commit, and b, which holds the item, does not file it again.
    let sent = md_names(&c.join("threads/mail/sent"));
    std::fs::rename(c.join("threads/mail/sent").join(&sent[0]), c.join("threads/mail/outbox").join(&sent[0])).unwrap();
    cn_ok(&c, &["sync"]);
    assert_eq!(branches(&c_bare).len(), 1);
    let r = json(&cn_ok(&b, &["sync", "--json"]));
    assert_eq!((r["received"].as_array().unwrap().len(), r["duplicates"].as_u64()), (0, Some(1)), "{r}");
    cn_ok(&c, &["sync"]);
    assert!(branches(&c_bare).is_empty());
    assert_eq!(inbox_items(&b).len(), 1);

    // Deciding a notice sends nothing back (no endless notices); deciding c's reply tells c.
    cn_ok(&a, &["input"]);
    cn_ok(&a, &["out", "do", "ack", "--reason", "thanks"]);
    assert!(md_names(&a.join("threads/mail/outbox")).is_empty());
    cn_ok(&b, &["input"]);
    cn_ok(&b, &["out", "do", "noop", "--reason", "fine"]);
    let outbox = md_names(&b.join("threads/mail/outbox"));
    assert_eq!(outbox.len(), 1, "{outbox:?}");
    let notice = b.join("threads/mail/outbox").join(&outbox[0]);
    assert_eq!((front(&notice, "to").as_deref(), front(&notice, "kind").as_deref()), (Some("c"), Some("notice")));
}

#[test]
fn an_orphan_branch_is_rejected_with_a_notice_to_its_sender() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, a_bare, b, _) = two_peers(root);
    // A branch for b whose thread cannot be read: no <thread-id>.md in it.
    let scratch = root.join("scratch");
    git(root, &["init", "-q", scratch.to_str().unwrap()]);
    std::fs::write(scratch.join("notes.txt"), "not a thread").unwrap();
    git(&scratch, &["add", "-A"]);
    git(&scratch, &["-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "junk"]);
    git(&scratch, &["push", "-q", a_bare.to_str().unwrap(), "HEAD:refs/heads/cn-mail/b/bogus"]);

    let r = json(&cn_ok(&b, &["sync", "--json"]));
    assert_eq!(r["rejected"], serde_json::json!(["a/bogus"]), "{r}");
    assert!(r["received"].as_array().unwrap().is_empty());
    assert_eq!(branches(&a_bare), ["cn-mail/b/bogus"], "a's branch is a's to delete");
    assert_eq!(r["receipts"], serde_json::json!(["a/bogus"]), "{r}");
    assert_eq!(r["sent"].as_array().unwrap().len(), 1, "the notice leaves in the same sync");
    let r = json(&cn_ok(&a, &["sync", "--json"]));
    assert_eq!(r["received"].as_array().unwrap().len(), 1);
    assert_eq!(r["released"], serde_json::json!(["b/bogus"]), "{r}");
    let items = inbox_items(&a);
    assert_eq!(items[0].1, "notice");
    assert!(items[0].2.contains("b/bogus") && items[0].2.contains("no file bogus.md"), "{}", items[0].2);
}

#[test]
fn an_unreachable_peer_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, _, b, _) = two_peers(root);
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

/// A thread between two hubs has a depth limit: two owners answering every message by hand
/// (each answer a real mail over the hubs' git remotes) get `MAX_THREAD_DEPTH` answers
/// through; the answer past the limit is neither mailed nor turned into a notice.
#[test]
fn a_thread_past_its_depth_limit_mails_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, _, b, _) = two_peers(root);
    cn_ok(&a, &["send", "--to", "b", "--message", "ping"]);
    cn_ok(&a, &["sync"]);
    let limit = cn_agent::item::MAX_THREAD_DEPTH as usize;
    let mut delivered = 0;
    for turn in 1..=2 * limit {
        let (me, other) = if turn % 2 == 1 { (&b, &a) } else { (&a, &b) };
        let r = json(&cn_ok(me, &["sync", "--json"]));
        assert_eq!(r["received"].as_array().map(Vec::len), Some(1), "turn {turn}: {r}");
        delivered += 1;
        cn_ok(me, &["input"]);
        let depth: usize = front(&me.join("state/input.md"), "depth").map_or(0, |d| d.parse().unwrap());
        assert_eq!(depth, delivered - 1, "turn {turn}");
        cn_ok(me, &["out", "do", "reply", "--message", &format!("answer {turn}")]);
        let outbox = md_names(&me.join("threads/mail/outbox"));
        if depth < limit {
            assert_eq!(outbox.len(), 1, "turn {turn}: an answer within the limit is mailed");
            cn_ok(me, &["sync"]);
            continue;
        }
        // Past the limit: nothing to mail — no answer, no notice — and the journal says why.
        assert!(outbox.is_empty(), "turn {turn}: {outbox:?}");
        let said = std::fs::read_to_string(me.join("state/journal.jsonl")).unwrap();
        assert!(said.contains(&format!("the thread reached its limit of {limit} messages")), "{said}");
        cn_ok(me, &["sync"]);
        let r = json(&cn_ok(other, &["sync", "--json"]));
        assert_eq!(r["received"], serde_json::json!([]), "{r}");
        assert!(md_names(&other.join("threads/inbox")).is_empty());
        assert_eq!(delivered, limit + 1, "the first mail and {limit} answers");
        return;
    }
    panic!("the thread went past {limit} answers");
}
