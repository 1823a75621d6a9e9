//! One attention decision over a pool of 100,000 items: take the most salient and admit it
//! again, so the pool stays at 100,000 while being measured. The figure is ≤ 10 µs.

use criterion::{criterion_group, criterion_main, Criterion};

use cn_autonomy::attention::{Attention, Pool, PoolConfig};
use cn_autonomy::jiff::Timestamp;
use cn_autonomy::Percept;
use cn_hub::Sense;

const N: usize = 100_000;

fn item(i: usize) -> Percept {
    let sense = match i % 4 {
        0 => Sense::Github,
        1 => Sense::File,
        2 => Sense::Calendar,
        _ => Sense::Peer,
    };
    // Every fifth item shares a key with another, so coalescing is exercised too.
    Percept::new(sense, format!("item {i}")).key(format!("k{}", i - i % 5 + (i % 5).min(1)))
}

fn full_pool() -> Pool {
    let mut pool = Pool::new(PoolConfig { capacity: N, ..PoolConfig::default() });
    let mut i = 0;
    while pool.len() < N {
        pool.admit(item(i).into());
        i += 1;
    }
    pool
}

fn bench(c: &mut Criterion) {
    let now = Timestamp::now();
    let mut pool = full_pool();
    // Take the most salient and put it back: the pool stays at 100k and nothing is
    // allocated, so what is measured is the decision itself (plus one re-admission).
    c.bench_function("decide over 100k pooled items", |b| {
        b.iter(|| {
            let c = pool.decide(now).map(|c| c.item);
            if let Some(item) = c {
                pool.admit(item);
            }
        })
    });
    let attention = Attention::new(PoolConfig { capacity: N, ..PoolConfig::default() });
    for i in 0..N {
        attention.admit(item(i));
    }
    c.bench_function("Attention::decide (shared, locked) over 100k pooled items", |b| {
        b.iter(|| {
            if let Some(c) = attention.decide(now) {
                attention.admit(c.item);
            }
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
