//! `cn init`, `cn input` and `cn out` end to end: the real binary on a real hub.

use crate::agent_common;

use agent_common::*;

fn hub() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (hub, _) = hub_with_origin(dir.path(), "sigma");
    (dir, hub)
}

#[test]
fn init_makes_a_committed_hub_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dir.path().join("h");
    cn_ok(&hub, &["init", hub.to_str().unwrap(), "--name", "sigma"]);
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
    cn_ok(&hub, &["init", hub.to_str().unwrap()]);
    assert_eq!(changed(&snapshot(&hub), &before), Vec::<String>::new(), "a second init changes nothing");
    // Every command finds the hub from a subdirectory too.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cn"))
        .current_dir(hub.join("threads/inbox"))
        .env_remove("CN_HUB")
        .args(["input"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn input_takes_in_cn_order_and_prints_the_item() {
    let (_d, hub) = hub();
    put_item(&hub, "late", "pi", "inbox", "2026-01-06T16:00:00Z", "later one");
    put_item(&hub, "abc123", "pi", "inbox", "2026-01-06T15:00:00Z", "Please review");
    put_item(&hub, "boss", "owner", "inbox", "2026-01-06T17:00:00Z", "owner first");
    assert_eq!(
        cn_ok(&hub, &["input", "--json"]),
        "{\"id\":\"boss\",\"from\":\"owner\",\"content\":\"owner first\\n\",\"cadence\":\"inbox\"}\n"
    );
    cn_ok(&hub, &["out", "do", "noop", "--reason", "done"]);
    let text = cn_ok(&hub, &["input"]);
    assert!(text.starts_with("---\nid: abc123\nfrom: pi\ncadence: inbox\nqueued: 2026-01-06T15:00:00Z\n"), "{text}");
    assert!(text.ends_with("Please review\n"), "{text}");
    // Asking again shows the same current item.
    assert_eq!(cn_ok(&hub, &["input"]), text);
    assert_eq!(std::fs::read_to_string(hub.join("state/input.md")).unwrap(), text);
}

#[test]
fn bad_input_is_one_line_exit_2_and_writes_nothing() {
    let (_d, hub) = hub();
    put_item(&hub, "a1", "owner", "inbox", "2026-01-06T15:00:00Z", "x");
    cn_ok(&hub, &["input"]);
    let before = snapshot(&hub);
    let cases: &[&[&str]] = &[
        &[],
        &["done"],
        &["do"],
        &["do", "shout"],
        &["do", "reply"],
        &["do", "reply", "--message"],
        &["do", "send", "--to", "pi", "--message", "x"], // pi is not a peer
        &["do", "reply", "--message", "x", "--loud"],
        &["do", "reply", "stray", "--message", "x"],
        &["delegate"],
        &["do", "commit", "--artifact", "deadbeef"],
        &["defer", "--reason", "x", "--until", "tomorrow-ish"],
    ];
    for args in cases {
        let mut full = vec!["out"];
        full.extend_from_slice(args);
        let out = cn(&hub, &full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(changed(&snapshot(&hub), &before), Vec::<String>::new(), "{args:?} wrote something");
    }
    let err = String::from_utf8_lossy(&cn(&hub, &["out", "do", "reply"]).stderr).into_owned();
    assert!(err.contains("missing --message") && err.contains("usage: cn out do reply --message TEXT"), "{err}");
}

#[test]
fn dry_run_prints_and_writes_nothing() {
    let (_d, hub) = hub();
    put_item(&hub, "a1", "owner", "inbox", "2026-01-06T15:00:00Z", "x");
    cn_ok(&hub, &["input"]);
    let before = snapshot(&hub);
    let out = cn_ok(&hub, &["out", "do", "reply", "--message", "LGTM", "--dry-run", "--json"]);
    assert_eq!(out, "{\"gtd\":\"do\",\"op\":\"reply\",\"message\":\"LGTM\"}\n");
    let out = cn_ok(&hub, &["out", "--dry-run", "defer", "--reason", "waiting on review"]);
    assert!(out.contains("defer --reason \"waiting on review\""), "{out}");
    assert_eq!(changed(&snapshot(&hub), &before), Vec::<String>::new());
}

#[test]
fn reply_appends_journals_and_commits() {
    let (_d, hub) = hub();
    put_item(&hub, "abc123", "owner", "inbox", "2026-01-06T15:00:00Z", "Please review");
    cn_ok(&hub, &["input"]);
    let commits = git(&hub, &["rev-list", "--count", "HEAD"]);
    let msg = "LGTM — \"ship it\"\n-- with a dash line";
    let out = cn_ok(&hub, &["out", "do", "reply", "--message", msg, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
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
    let again = cn(&hub, &["out", "do", "noop", "--reason", "twice"]);
    assert_eq!(again.status.code(), Some(3));
    // Empty queue: said so, exit 3.
    let empty = cn(&hub, &["input"]);
    assert_eq!(empty.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("empty"));
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
    for (i, (id, args, place)) in cases.iter().enumerate() {
        put_item(&hub, id, "owner", "inbox", &format!("2026-01-06T15:00:0{i}Z"), "work");
        assert_eq!(front(&hub.join("state/input.md"), "id"), None);
        cn_ok(&hub, &["input"]);
        let mut full = vec!["out"];
        full.extend(args.iter().copied());
        cn_ok(&hub, &full);
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
    cn_ok(&hub, &["input"]);
    cn_ok(&hub, &["out", "defer", "--reason", "after the release", "--until", "2000-01-01"]);
    assert_eq!(front(&hub.join("threads/deferred/d1.md"), "until").as_deref(), Some("2000-01-01T00:00:00Z"));
    // The time has passed: the next take brings it back.
    let v: serde_json::Value = serde_json::from_str(&cn_ok(&hub, &["input", "--json"])).unwrap();
    assert_eq!(v["id"], "d1");
    cn_ok(&hub, &["out", "defer", "--reason", "not yet", "--until", "2999-01-01T00:00:00Z"]);
    assert_eq!(cn(&hub, &["input"]).status.code(), Some(3), "a future until stays deferred");

    put_item(&hub, "r1", "sigma", "daily", "2026-01-06T09:00:00Z", "Reflect on the day.");
    let v: serde_json::Value = serde_json::from_str(&cn_ok(&hub, &["input", "--json"])).unwrap();
    assert_eq!(v["cadence"], "daily");
    cn_ok(&hub, &["out", "do", "reply", "--message", "Learned how deferral works."]);
    assert!(hub.join("threads/reflections/daily/r1.md").is_file());
}
