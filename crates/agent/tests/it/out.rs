//! `cn init`, `cn input` and `cn out` through cn-agent's API (`init`, `take_next`,
//! `parse_out` and `decide`, as the commands call them) on a real hub; what the commands print
//! and their exit codes are the binary's (`crates/cn/tests/it/agent_out.rs`).

use std::path::PathBuf;

use cn_agent::AgentError;

use crate::queue::*;
use crate::support::*;

fn hub() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (hub, _) = hub_with_origin(dir.path(), "sigma");
    (dir, hub)
}

#[test]
fn init_makes_a_committed_hub_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dir.path().join("h");
    cn_agent::init(&hub, Some("sigma")).unwrap();
    for f in [
        "cn.yaml",
        "state/notes/core_seed.md",
        "state/notes/systems.md",
        "state/reflexes/summarize-url.yaml",
        "state/schedule.json",
        "threads/inbox/.gitkeep",
    ] {
        assert!(hub.join(f).is_file(), "{f}");
    }
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    assert!(yaml.contains("name: sigma") && yaml.contains("# "), "{yaml}");
    assert_eq!(git(&hub, &["rev-list", "--count", "HEAD"]).trim(), "1");
    std::fs::write(hub.join("state/notes/core_seed.md"), "mine").unwrap();
    let before = snapshot(&hub);
    cn_agent::init(&hub, None).unwrap();
    assert_eq!(changed(&snapshot(&hub), &before), Vec::<String>::new(), "a second init changes nothing");
}

#[test]
fn input_takes_in_cn_order() {
    let (_d, hub) = hub();
    put_item(&hub, "late", "pi", "inbox", "2026-01-06T16:00:00Z", "later one");
    put_item(&hub, "abc123", "pi", "inbox", "2026-01-06T15:00:00Z", "Please review");
    put_item(&hub, "boss", "owner", "inbox", "2026-01-06T17:00:00Z", "owner first");
    let first = input(&hub).expect("an item");
    assert_eq!(
        serde_json::to_string(&first.to_json()).unwrap(),
        "{\"id\":\"boss\",\"from\":\"owner\",\"content\":\"owner first\\n\",\"cadence\":\"inbox\"}"
    );
    out(&hub, &["do", "noop", "--reason", "done"]);
    let next = input(&hub).expect("an item");
    let text = std::fs::read_to_string(hub.join("state/input.md")).unwrap();
    assert_eq!(next.render(), text);
    assert!(text.starts_with("---\nid: abc123\nfrom: pi\ncadence: inbox\nqueued: 2026-01-06T15:00:00Z\n"), "{text}");
    assert!(text.ends_with("Please review\n"), "{text}");
    // Asking again gives the same current item.
    assert_eq!(input(&hub).expect("an item").render(), text);
    assert_eq!(std::fs::read_to_string(hub.join("state/input.md")).unwrap(), text);
}

#[test]
fn reply_appends_journals_and_commits() {
    let (_d, hub) = hub();
    put_item(&hub, "abc123", "owner", "inbox", "2026-01-06T15:00:00Z", "Please review");
    input(&hub).expect("an item");
    let commits = git(&hub, &["rev-list", "--count", "HEAD"]);
    let msg = "LGTM — \"ship it\"\n-- with a dash line";
    let v = serde_json::Value::Object(out(&hub, &["do", "reply", "--message", msg]).to_json());
    assert_eq!((v["gtd"].as_str(), v["op"].as_str(), v["message"].as_str()), (Some("do"), Some("reply"), Some(msg)));
    assert!(!hub.join("state/input.md").exists());
    let done = std::fs::read_to_string(hub.join("threads/archived/abc123.md")).unwrap();
    assert!(done.contains("Please review") && done.contains(msg), "{done}");
    let output = std::fs::read_to_string(hub.join("state/output.md")).unwrap();
    assert!(output.contains("id: abc123") && output.contains("op: reply"), "{output}");
    let decisions: Vec<_> = journal(&hub).into_iter().filter(|e| e["type"] == "decision").collect();
    assert_eq!(decisions.len(), 1);
    assert_eq!(decisions[0]["item"], "abc123");
    assert_eq!(decisions[0]["message"], msg);
    let after: u32 = git(&hub, &["rev-list", "--count", "HEAD"]).trim().parse().unwrap();
    assert_eq!(after, commits.trim().parse::<u32>().unwrap() + 1);
    assert!(git(&hub, &["log", "-1", "--format=%s"]).contains("abc123 do reply"));
    assert_eq!(git(&hub, &["status", "--porcelain"]), "", "everything is committed");
    // One decision per item: nothing is current any more.
    let before = snapshot(&hub);
    let again = try_out(&hub, &["do", "noop", "--reason", "twice"]);
    assert!(matches!(again, Err(AgentError::Empty(_))), "{again:?}");
    assert_eq!(changed(&snapshot(&hub), &before), Vec::<String>::new(), "a refused decision writes nothing");
    // Empty queue.
    assert!(input(&hub).is_none());
}

#[test]
fn every_op_files_the_item_where_it_belongs() {
    let (_d, hub) = hub();
    let head = git(&hub, &["rev-parse", "HEAD"]).trim().to_string();
    let cases: Vec<(&str, Vec<&str>, &str)> = vec![
        ("i1", vec!["do", "ack", "--reason", "seen"], "threads/archived/i1.md"),
        ("i2", vec!["do", "surface", "--desc", "CI is flaky on main"], "threads/archived/i2.md"),
        ("i3", vec!["do", "commit", "--artifact", &head[..10]], "threads/archived/i3.md"),
        ("i4", vec!["delete", "--reason", "duplicate"], "threads/archived/i4.md"),
        ("i5", vec!["defer", "--reason", "waiting on review"], "threads/deferred/i5.md"),
    ];
    for (i, (id, words, place)) in cases.iter().enumerate() {
        put_item(&hub, id, "owner", "inbox", &format!("2026-01-06T15:00:0{i}Z"), "work");
        assert_eq!(front(&hub.join("state/input.md"), "id"), None);
        assert_eq!(input(&hub).expect("an item").id, *id);
        let d = out(&hub, words);
        assert_eq!(d.place, *place, "{id}");
        assert!(hub.join(place).is_file(), "{id} → {place}");
        assert!(md_names(&hub.join("threads/inbox")).is_empty());
    }
    let mca = md_names(&hub.join("state/mca"));
    assert_eq!(mca.len(), 1);
    assert!(mca[0].ends_with("-ci-is-flaky-on-main.md"), "{mca:?}");
    let mca_path = hub.join("state/mca").join(&mca[0]);
    assert_eq!(front(&mca_path, "status").as_deref(), Some("open"));
    assert_eq!(front(&mca_path, "surfaced-by").as_deref(), Some("sigma"));
    assert!(front(&mca_path, "created").is_some() && front(&mca_path, "id").is_some());
    let deleted = std::fs::read_to_string(hub.join("threads/archived/i4.md")).unwrap();
    assert!(deleted.contains("work") && deleted.contains("duplicate"), "data is kept: {deleted}");
}

#[test]
fn defer_until_brings_the_item_back_and_reflections_go_to_their_cadence() {
    let (_d, hub) = hub();
    put_item(&hub, "d1", "owner", "inbox", "2026-01-06T15:00:00Z", "wait");
    input(&hub).expect("an item");
    out(&hub, &["defer", "--reason", "after the release", "--until", "2000-01-01"]);
    assert_eq!(front(&hub.join("threads/deferred/d1.md"), "until").as_deref(), Some("2000-01-01T00:00:00Z"));
    // The time has passed: the next take brings it back.
    assert_eq!(input(&hub).expect("d1 is back").id, "d1");
    out(&hub, &["defer", "--reason", "not yet", "--until", "2999-01-01T00:00:00Z"]);
    assert!(input(&hub).is_none(), "a future until stays deferred");
    assert!(hub.join("threads/deferred/d1.md").is_file());

    put_item(&hub, "r1", "sigma", "daily", "2026-01-06T09:00:00Z", "Reflect on the day.");
    assert_eq!(input(&hub).expect("r1").cadence.as_str(), "daily");
    out(&hub, &["do", "reply", "--message", "Learned how deferral works."]);
    assert!(hub.join("threads/reflections/daily/r1.md").is_file());
}
