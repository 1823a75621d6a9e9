//! SIGKILL at random points, many times: a process admitting items to a durable attention
//! queue (and closing some) is killed mid-stream; every item it acknowledged and did not
//! close comes back on the next start, no closed item does, and the spool always reads.
//!
//! The test re-runs its own binary as the child (selected by an environment variable), so
//! the process killed is a real one, writing real files.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use cn_autonomy::attention::{Attention, PoolConfig};
use cn_autonomy::Percept;
use cn_hub::Sense;

const CHILD: &str = "CN_SPOOL_KILL_CHILD";

fn config() -> PoolConfig {
    PoolConfig { capacity: 100_000, ..PoolConfig::default() }
}

/// The child: admit forever, acknowledging each admission and each close on stdout.
fn child(path: &str, round: &str) {
    use std::io::Write;
    let (attention, _) = Attention::durable(config(), std::path::Path::new(path)).unwrap();
    let mut out = std::io::stdout().lock();
    for i in 0.. {
        let p = Percept::new(Sense::Github, format!("item {round}-{i}")).key(format!("k-{round}-{i}"));
        let id = p.id.clone();
        attention.admit(p);
        writeln!(out, "A {id}").unwrap();
        out.flush().unwrap();
        if i % 3 == 2 {
            if let Some(c) = attention.decide(jiff::Timestamp::now()) {
                // Announced first: a kill between `done` and its acknowledgement leaves an
                // item closed that the parent has not heard closed.
                writeln!(out, "C {}", c.item.id()).unwrap();
                out.flush().unwrap();
                attention.done(&c);
                writeln!(out, "D {}", c.item.id()).unwrap();
                out.flush().unwrap();
            }
        }
    }
}

#[test]
fn sigkill_at_random_points_loses_no_acknowledged_item() {
    if let (Ok(path), Ok(round)) = (std::env::var(CHILD), std::env::var("CN_SPOOL_KILL_ROUND")) {
        child(&path, &round);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state/attention.jsonl");
    let exe = std::env::current_exe().unwrap();
    let mut pending: HashSet<String> = HashSet::new();
    let mut closed: HashSet<String> = HashSet::new();
    // Closing announced, not acknowledged: either outcome is right.
    let mut closing: HashSet<String> = HashSet::new();
    // A cheap xorshift seeded from the clock: different kill points every run.
    let mut seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    for round in 0..25 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let kill_after = 1 + (seed % 150) as usize;
        let mut proc = Command::new(&exe)
            .args([
                "--exact",
                "spool_kill::sigkill_at_random_points_loses_no_acknowledged_item",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, &path)
            .env("CN_SPOOL_KILL_ROUND", round.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = proc.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let mut seen = 0;
        while seen < kill_after {
            let Some(Ok(line)) = lines.next() else { break };
            if let Some(id) = line.strip_prefix("A ") {
                pending.insert(id.to_string());
                seen += 1;
            } else {
                hear(&line, &mut pending, &mut closing, &mut closed);
            }
        }
        proc.kill().unwrap(); // SIGKILL
        proc.wait().unwrap();
        // Lines written before the kill but not yet read are acknowledgements too.
        for line in lines.map_while(Result::ok) {
            if let Some(id) = line.strip_prefix("A ") {
                pending.insert(id.to_string());
            } else {
                hear(&line, &mut pending, &mut closing, &mut closed);
            }
        }
        let read = cn_storage::Journal::read(&path).unwrap();
        assert!(read.skipped.len() <= 1, "round {round}: only a torn last line may be skipped: {:?}", read.skipped);
        let (attention, restored) = Attention::durable(config(), &path).unwrap();
        let back: HashSet<String> = attention.with_pool(|p| p.iter().map(|x| x.item.id().to_string()).collect());
        assert_eq!(back.len(), restored);
        // A close the kill interrupted happened or did not; the spool says which.
        for id in closing.drain() {
            if back.contains(&id) {
                pending.insert(id);
            } else {
                closed.insert(id);
            }
        }
        let lost: Vec<&String> = pending.difference(&back).collect();
        assert!(lost.is_empty(), "round {round}: acknowledged items lost: {lost:?}");
        let resurrected: Vec<&String> = closed.intersection(&back).collect();
        assert!(resurrected.is_empty(), "round {round}: closed items came back: {resurrected:?}");
        // Restored items that were never acknowledged were admitted just before the kill.
        let extra: HashSet<String> = back.difference(&pending).cloned().collect();
        pending.extend(extra);
        assert_eq!(cn_storage::Journal::read(&path).unwrap().skipped.len(), 0, "compacted file reads whole");
    }
}

/// A close announced (`C`) or acknowledged (`D`) by the child.
fn hear(line: &str, pending: &mut HashSet<String>, closing: &mut HashSet<String>, closed: &mut HashSet<String>) {
    if let Some(id) = line.strip_prefix("C ") {
        pending.remove(id);
        closing.insert(id.to_string());
    } else if let Some(id) = line.strip_prefix("D ") {
        closing.remove(id);
        closed.insert(id.to_string());
    }
}
