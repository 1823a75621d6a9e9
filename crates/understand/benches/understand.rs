//! How long understanding one message takes (issue 41: well under a millisecond).
//! `cargo bench -p cn-understand`.

use criterion::{criterion_group, criterion_main, Criterion};

fn understand(c: &mut Criterion) {
    let model = cn_understand::model().expect("the built-in model reads");
    for text in [
        "remind me to call the bank tomorrow at ten am",
        "what's on my calendar this week",
        "please add to my tasks renew the parking permit by thurs at 3pm and remind me to call mom at 6",
    ] {
        c.bench_function(&format!("understand {} words", text.split_whitespace().count()), |b| {
            b.iter(|| cn_understand::understand_with(model, std::hint::black_box(text)))
        });
    }
}

criterion_group!(benches, understand);
criterion_main!(benches);
