//! The journal's fsync policy, measured: one decision-sized append without and with
//! `fdatasync` (the hub's journal syncs every append), and a streaming read of 100k entries.

use std::hint::black_box;

use cn_storage::{Entry, Journal};
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
