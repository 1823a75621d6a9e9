//! Peers over git through cn-agent's API: three hubs with bare repositories on disk as their
//! remotes. a sends to b, b delegates to c (a is notified), c replies to b — a peer's
//! `reply-to` naming someone else is not trusted; mail is never delivered twice; a hub writes
//! only its own repository (mail and receipts there, released and retired by their owners);
//! an orphan branch is rejected with a notice to its sender; a thread has a depth limit.
//! (`crates/cn/tests/it/peers_readonly.rs` runs the same over read-only git servers, and
//! `agent_peers.rs` keeps what the commands print.)

use std::path::Path;

use cn_agent::AgentError;

use crate::queue::*;
use crate::support::*;

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

/// Let items from `key` (`peer:a` …) cause `tools` unasked: the owner's line under
/// `policy: from:` in a hub made by `cn init`.
fn allow_from(hub: &Path, key: &str, tools: &[&str]) {
    let path = hub.join("cn.yaml");
    let yaml = std::fs::read_to_string(&path).unwrap();
    let line = format!("\n  from:\n    \"{key}\": [{}]\n  shell: false", tools.join(", "));
    assert!(yaml.contains("\n  shell: false"), "a cn.yaml from `cn init`: {yaml}");
    std::fs::write(&path, yaml.replacen("\n  shell: false", &line, 1)).unwrap();
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
            add_peer(hub, name, bare.to_str().unwrap());
        }
    }

    // a → b
    send(&a, "b", "Please review", Some("Please review PR #42"));
    let r = synced(&a);
    assert_eq!(r.sent.len(), 1);
    let thread = r.sent[0].clone();
    assert_eq!(branches(&a_bare), [format!("cn-mail/b/{thread}")]);
    assert_eq!(md_names(&a.join("threads/mail/sent")), [format!("{thread}.md")]);

    let r = synced(&b);
    assert_eq!(r.received, std::slice::from_ref(&thread));
    assert_eq!(branches(&a_bare), [format!("cn-mail/b/{thread}")], "b never writes a's repository");
    assert_eq!(branches(&b_bare), [format!("cn-receipt/a/{thread}")], "b receipts in its own");
    let item = input(&b).expect("a's mail").to_json();
    assert_eq!((item["from"].as_str(), item["content"].as_str()), (Some("a"), Some("Please review PR #42\n")));
    // The mail's subject (its summary line) is in the item's JSON.
    assert_eq!(item["subject"], "Please review", "{item}");

    // b delegates to c; a hears of it. A peer's item may not make b mail another peer
    // unasked (issue 34: `cn out` is held like the executive's call) until b's owner says so.
    let before = snapshot(&b);
    match try_out(&b, &["delegate", "--to", "c"]) {
        Err(AgentError::Held(m)) => assert!(m.contains("held as approval ap-"), "{m}"),
        other => panic!("not held: {other:?}"),
    }
    assert!(md_names(&b.join("threads/mail/outbox")).is_empty(), "nothing mailed");
    let decided = changed(&snapshot(&b), &before).into_iter().filter(|p| p.starts_with("threads/") || p == "HEAD");
    assert_eq!(decided.collect::<Vec<_>>(), Vec::<String>::new(), "nothing decided");
    allow_from(&b, "peer:a", &["delegate"]);
    out(&b, &["delegate", "--to", "c"]);
    let r = synced(&b);
    assert_eq!(r.sent.len(), 2, "{r:?}");
    assert_eq!(branches(&b_bare).iter().filter(|b| b.starts_with("cn-mail/")).count(), 2);

    let r = synced(&c);
    assert_eq!(r.received.len(), 1, "{r:?}");
    let item = input(&c).expect("b's forward").to_json();
    assert_eq!((item["from"].as_str(), item["content"].as_str()), (Some("b"), Some("Please review PR #42\n")));
    out(&c, &["do", "reply", "--message", "LGTM"]);
    assert_eq!(synced(&c).sent.len(), 1);

    // a hears of the delegation from b. c's reply goes to b, its sender: the `reply-to: a`
    // b's forward carried is a peer's claim, and a peer cannot redirect replies elsewhere.
    let r = synced(&a);
    assert_eq!(r.received.len(), 1, "{r:?}");
    let items = inbox_items(&a);
    let from_b = items.iter().find(|(f, _, _)| f == "b").expect("a notice from b");
    assert_eq!(from_b.1, "notice");
    assert!(from_b.2.contains("delegate") && from_b.2.contains("to: c"), "{}", from_b.2);
    let r = synced(&b);
    assert_eq!(r.received.len(), 1, "{r:?}");
    let items = inbox_items(&b);
    let from_c = items.iter().find(|(f, _, _)| f == "c").expect("c's reply");
    // The thread as the frontmatter reads (an id of digits only is written quoted).
    let doc = cn_storage::Doc::parse(&from_c.2).unwrap();
    assert!(from_c.2.contains("LGTM") && doc.get_str("thread") == Some(thread.as_str()), "{}", from_c.2);
    assert!(!from_c.2.contains("reply-to"), "{}", from_c.2);
    // Senders release what was receipted; receivers retire their receipts after that.
    for _ in 0..2 {
        for hub in [&a, &b, &c] {
            synced(hub);
        }
    }
    for bare in [&a_bare, &b_bare, &c_bare] {
        assert!(branches(bare).is_empty(), "{}: {:?}", bare.display(), branches(bare));
    }

    // Never twice: a mail pushed again (as if its file went back to the outbox) is the same
    // commit, and b, which holds the item, does not file it again.
    let sent = md_names(&c.join("threads/mail/sent"));
    std::fs::rename(c.join("threads/mail/sent").join(&sent[0]), c.join("threads/mail/outbox").join(&sent[0])).unwrap();
    synced(&c);
    assert_eq!(branches(&c_bare).len(), 1);
    let r = synced(&b);
    assert_eq!((r.received.len(), r.duplicates), (0, 1), "{r:?}");
    synced(&c);
    assert!(branches(&c_bare).is_empty());
    assert_eq!(inbox_items(&b).len(), 1);

    // Deciding a notice sends nothing back (no endless notices); deciding c's reply tells c.
    input(&a).expect("b's notice");
    out(&a, &["do", "ack", "--reason", "thanks"]);
    assert!(md_names(&a.join("threads/mail/outbox")).is_empty());
    input(&b).expect("c's reply");
    out(&b, &["do", "noop", "--reason", "fine"]);
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

    let r = synced(&b);
    assert_eq!(r.rejected, ["a/bogus"], "{r:?}");
    assert!(r.received.is_empty());
    assert_eq!(branches(&a_bare), ["cn-mail/b/bogus"], "a's branch is a's to delete");
    assert_eq!(r.receipts, ["a/bogus"], "{r:?}");
    assert_eq!(r.sent.len(), 1, "the notice leaves in the same sync");
    let r = synced(&a);
    assert_eq!(r.received.len(), 1);
    assert_eq!(r.released, ["b/bogus"], "{r:?}");
    let items = inbox_items(&a);
    assert_eq!(items[0].1, "notice");
    assert!(items[0].2.contains("b/bogus") && items[0].2.contains("no file bogus.md"), "{}", items[0].2);
}

/// An unreachable peer is an error of the sync's report; the other peers' mail still comes
/// in. (`cn sync`'s exit 1 and `cn send`'s refusal of an unknown peer are the binary's.)
#[test]
fn an_unreachable_peer_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, _, b, _) = two_peers(root);
    add_peer(&b, "ghost", root.join("nowhere.git").to_str().unwrap());
    send(&a, "b", "hello", None);
    synced(&a);
    let r = sync(&b);
    let errors = r.errors.join("\n");
    assert!(errors.contains("peer ghost") && errors.contains("nowhere.git"), "{errors}");
    assert_eq!(r.received.len(), 1, "{r:?}");
    assert_eq!(md_names(&b.join("threads/inbox")).len(), 1);
}

/// A thread between two hubs has a depth limit: two owners answering every message by hand
/// (each answer a real mail over the hubs' git remotes) get `MAX_THREAD_DEPTH` answers
/// through; the answer past the limit is neither mailed nor turned into a notice.
#[test]
fn a_thread_past_its_depth_limit_mails_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, _, b, _) = two_peers(root);
    send(&a, "b", "ping", None);
    synced(&a);
    let limit = cn_agent::item::MAX_THREAD_DEPTH as usize;
    let mut delivered = 0;
    for turn in 1..=2 * limit {
        let (me, other) = if turn % 2 == 1 { (&b, &a) } else { (&a, &b) };
        let r = synced(me);
        assert_eq!(r.received.len(), 1, "turn {turn}: {r:?}");
        delivered += 1;
        input(me).expect("the answer");
        let depth: usize = front(&me.join("state/input.md"), "depth").map_or(0, |d| d.parse().unwrap());
        assert_eq!(depth, delivered - 1, "turn {turn}");
        out(me, &["do", "reply", "--message", &format!("answer {turn}")]);
        let outbox = md_names(&me.join("threads/mail/outbox"));
        if depth < limit {
            assert_eq!(outbox.len(), 1, "turn {turn}: an answer within the limit is mailed");
            synced(me);
            continue;
        }
        // Past the limit: nothing to mail — no answer, no notice — and the journal says why.
        assert!(outbox.is_empty(), "turn {turn}: {outbox:?}");
        let said = std::fs::read_to_string(me.join("state/journal.jsonl")).unwrap();
        assert!(said.contains(&format!("the thread reached its limit of {limit} messages")), "{said}");
        synced(me);
        let r = synced(other);
        assert!(r.received.is_empty(), "{r:?}");
        assert!(md_names(&other.join("threads/inbox")).is_empty());
        assert_eq!(delivered, limit + 1, "the first mail and {limit} answers");
        return;
    }
    panic!("the thread went past {limit} answers");
}
