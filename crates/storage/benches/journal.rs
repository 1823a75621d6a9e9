//! The journal's fsync policy, measured: one decision-sized append without and with
//! `fdatasync` (the hub's journal syncs every append), and a streaming read of 100k entries.
//! Rotation's cost: the append's shared lock and identity check against a bare `O_APPEND`
//! write of the same line (what an append was before rotation), the check after each
//! decision when nothing is due, one rotation (rename and fsyncs), and the read across 10
//! segments against one file.

use std::hint::black_box;

use std::io::Write;

use cn_storage::{Entry, Journal, Rotation};
use criterion::{criterion_group, criterion_main, Criterion};

fn entry() -> Entry {
    Entry::new("decision")
        .with("id", "p-2715757294d7")
        .with("summary", "reply: status is green (item from owner)")
        .with("gtd", "do")
        .with("place", "threads/archived/p-2715757294d7.md")
}

fn appends(c: &mut Criterion) {
    // On the target directory's disk, not a tmpfs, so fdatasync does real work.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("a temp dir");
    let e = entry();
    let mut plain = Journal::open(dir.path().join("plain.jsonl")).expect("open");
    c.bench_function("journal append, no fsync", |b| b.iter(|| plain.append(black_box(&e)).expect("append")));
    let mut synced = Journal::open_synced(dir.path().join("synced.jsonl")).expect("open");
    c.bench_function("journal append + fdatasync", |b| b.iter(|| synced.append(black_box(&e)).expect("append")));
    let mut line = serde_json::to_vec(&e.0).expect("json");
    line.push(b'\n');
    let mut bare =
        std::fs::OpenOptions::new().create(true).append(true).open(dir.path().join("bare.jsonl")).expect("open");
    c.bench_function("bare O_APPEND write of an entry (no lock, no check)", |b| {
        b.iter(|| bare.write_all(black_box(&line)).expect("write"))
    });
    let not_due = Rotation { bytes: 1 << 40, daily: true };
    let plain_path = dir.path().join("plain.jsonl");
    c.bench_function("journal rotate_if_due, not due", |b| {
        b.iter(|| assert!(Journal::rotate_if_due(black_box(&plain_path), &not_due).expect("check").is_none()))
    });
    let rotating = dir.path().join("rotating.jsonl");
    let mut r = Journal::open(&rotating).expect("open");
    let every = Rotation { bytes: 1, daily: false };
    c.bench_function("journal append + rotation (rename, fsync data and both directories)", |b| {
        b.iter(|| {
            r.append(&e).expect("append");
            assert!(Journal::rotate_if_due(&rotating, &every).expect("rotate").is_some());
        })
    });
    let seg_path = dir.path().join("segmented.jsonl");
    let mut s = Journal::open(&seg_path).expect("open");
    for i in 0..100_000 {
        s.append(&e).expect("append");
        if i % 10_000 == 9_999 {
            Journal::rotate_if_due(&seg_path, &every).expect("rotate");
        }
    }
    assert_eq!(Journal::segments(&seg_path).expect("segments").len(), 10);
    c.bench_function("journal streaming read, 100k entries in 10 segments", |b| {
        b.iter(|| {
            let mut n = 0usize;
            Journal::scan(&seg_path, |r| n += usize::from(r.is_ok())).expect("scan");
            assert_eq!(n, 100_000);
        })
    });
    let path = dir.path().join("read.jsonl");
    let mut j = Journal::open(&path).expect("open");
    for _ in 0..100_000 {
        j.append(&e).expect("append");
    }
    c.bench_function("journal streaming read, 100k entries", |b| {
        b.iter(|| {
            let mut n = 0usize;
            Journal::scan(&path, |r| n += usize::from(r.is_ok())).expect("scan");
            assert_eq!(n, 100_000);
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = appends
}
criterion_main!(benches);
