//! The journal rotates (issue 16): with a tiny `journal.rotate_bytes`, many decisions made by
//! the real `cn out` leave the journal in numbered segments under `state/journal/`, committed
//! with the hub, and `cn journal` and `cn journal why` still read every entry, an old
//! segment's included; the control room's live journal follows a rotation without losing
//! an entry. (A misspelt `journal:` key is cn-hub's test.)

use crate::agent_common;
use crate::daemon_common;
use crate::serve_common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use agent_common::*;
use cn_storage::{Entry, Journal, Rotation};
use serve_common::Serve;

#[test]
fn many_decisions_rotate_the_journal_and_every_reader_still_finds_them() {
    let root = tempfile::tempdir().unwrap();
    let (hub, _) = hub_with_origin(root.path(), "rot");
    let config = hub.join("cn.yaml");
    let mut yaml = std::fs::read_to_string(&config).unwrap();
    yaml.push_str("\njournal:\n  rotate_bytes: 1500\n");
    std::fs::write(&config, yaml).unwrap();
    git(&hub, &["commit", "-qam", "tiny journal segments"]);

    let n = 30;
    for i in 0..n {
        let id = format!("item-{i:02}");
        put_item(&hub, &id, "pi", "inbox", &format!("2026-01-06T15:{i:02}:00Z"), &format!("note {i}"));
        cn_ok(&hub, &["input"]);
        cn_ok(&hub, &["out", "do", "ack", "--reason", &format!("seen {i}")]);
    }

    let segments = hub.join("state/journal");
    let mut names: Vec<String> =
        std::fs::read_dir(&segments).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    assert!(names.len() >= 3, "the journal rotated several times: {names:?}");
    assert_eq!(names[0], "000001.jsonl");
    let first = std::fs::read_to_string(segments.join(&names[0])).unwrap();
    assert!(first.contains("\"item-00\""), "the oldest decisions are in the first segment: {first}");
    assert!(!std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap_or_default().contains("\"item-00\""));

    // Every decision, once, oldest first, across the segments and the live file.
    let listed = cn_ok(&hub, &["journal", "--type", "decision", "--json"]);
    let ids: Vec<String> = listed
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (0..n).map(|i| format!("item-{i:02}")).collect();
    assert_eq!(ids, expected);

    // "Why?" of an entry in the oldest segment: its decision, and the commit that recorded it.
    let why = cn_ok(&hub, &["journal", "why", "item-00"]);
    assert!(why.contains("seen 0"), "{why}");
    assert!(why.contains("commit"), "{why}");

    // The segments are history: committed with the hub, nothing left untracked.
    let tracked = git(&hub, &["ls-files", "state/journal"]);
    for name in &names {
        assert!(tracked.contains(&format!("state/journal/{name}")), "{name} is committed: {tracked}");
    }
    assert_eq!(git(&hub, &["status", "--porcelain"]), "");
}

/// The live journal's event stream, read as a browser would (`headers` added to the request).
struct Events {
    conn: TcpStream,
    seen: String,
}

impl Events {
    fn open(serve: &Serve, query: &str, headers: &str) -> Events {
        let mut conn = TcpStream::connect(serve.addr).unwrap();
        conn.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        let request = format!(
            "GET /api/events{query} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n{headers}\r\n",
            serve.addr, serve.token
        );
        conn.write_all(request.as_bytes()).unwrap();
        Events { conn, seen: String::new() }
    }

    /// Everything read until `want` arrived (30 s at most).
    fn wait_for(&mut self, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut buf = [0u8; 4096];
        while !self.seen.contains(want) {
            assert!(Instant::now() < deadline, "no {want} in the live journal: {}", self.seen);
            match self.conn.read(&mut buf) {
                Ok(0) => panic!("the live journal closed: {}", self.seen),
                Ok(n) => self.seen.push_str(&String::from_utf8_lossy(&buf[..n])),
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
                Err(e) => panic!("{e}"),
            }
        }
        self.seen.clone()
    }
}

/// A hub served by `cn serve`, its journal open for appending, and the live journal watched
/// from the journal's current end.
fn watched(dir: &std::path::Path) -> (Serve, std::path::PathBuf, Journal, Events) {
    let hub = daemon_common::hub(dir, "ada", "true\n", "");
    let serve = Serve::start(&hub, &[]);
    let path = hub.join("state/journal.jsonl");
    let journal = Journal::open(&path).unwrap();
    let from = std::fs::metadata(&path).unwrap().len();
    let events = Events::open(&serve, &format!("?from={from}"), "");
    (serve, path, journal, events)
}

fn entry(id: &str) -> Entry {
    Entry::new("decision").with("id", id).with("summary", format!("decided {id}"))
}

#[test]
fn the_live_journal_sends_what_was_appended_just_before_a_rotation() {
    let dir = tempfile::tempdir().unwrap();
    let (_serve, path, mut journal, mut events) = watched(dir.path());
    journal.append(&entry("e0")).unwrap();
    events.wait_for("decided e0");
    // Two entries the stream has not read yet, then the file becomes a segment, then one more
    // in the new file.
    journal.append(&entry("e1")).unwrap();
    journal.append(&entry("e2")).unwrap();
    assert!(Journal::rotate_if_due(&path, &Rotation { bytes: 1, daily: false }).unwrap().is_some());
    journal.append(&entry("e3")).unwrap();
    let seen = events.wait_for("decided e3");
    let at = |id: &str| seen.find(&format!("decided {id}")).unwrap_or_else(|| panic!("{id} lost: {seen}"));
    assert!(at("e0") < at("e1") && at("e1") < at("e2") && at("e2") < at("e3"), "{seen}");
}

/// A browser that reconnects after the journal rotated sends the last event id it saw: it gets
/// the rest of the old file (now a segment), then the new one — nothing lost, nothing twice.
#[test]
fn a_browser_reconnecting_across_a_rotation_misses_nothing_and_sees_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let (serve, path, mut journal, mut events) = watched(dir.path());
    journal.append(&entry("r0")).unwrap();
    let seen = events.wait_for("decided r0");
    let last_id = seen
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .next_back()
        .unwrap_or_else(|| panic!("no event id: {seen}"))
        .trim()
        .to_string();
    drop(events);
    // While the browser is away: one more entry, a rotation, one in the new file.
    journal.append(&entry("r1")).unwrap();
    assert!(Journal::rotate_if_due(&path, &Rotation { bytes: 1, daily: false }).unwrap().is_some());
    journal.append(&entry("r2")).unwrap();
    let mut events = Events::open(&serve, "", &format!("Last-Event-ID: {last_id}\r\n"));
    let seen = events.wait_for("decided r2");
    assert!(!seen.contains("decided r0"), "sent twice: {seen}");
    let at = |id: &str| seen.find(&format!("decided {id}")).unwrap_or_else(|| panic!("{id} lost: {seen}"));
    assert!(at("r1") < at("r2"), "{seen}");
}
