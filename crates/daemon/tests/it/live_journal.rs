//! The control room's live journal follows a rotation (issue 16) without losing an entry or
//! sending one twice, also to a browser that reconnects across it.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use cn_storage::{Entry, Journal, Rotation};

use crate::common::*;

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

/// A hub served by the control room alone (as `cn serve` runs it), its journal open for appending, and the live journal watched
/// from the journal's current end.
fn watched(dir: &std::path::Path) -> (Serve, std::path::PathBuf, Journal, Events) {
    let hub = hub(dir, "ada", "true\n", "");
    let serve = serve(&hub);
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
