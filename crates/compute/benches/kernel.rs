//! The kernel's figures: parse throughput on a 1 MiB answer with 1,000 YAML blocks, and the
//! overhead of one move (decide → plan → ask scripted → parse one block → act no-op) with
//! the journal on.

use std::time::{Duration, Instant};

use cn_compute::{Decision, Inputs, Mind, Outcomes, Parts, Plan, Scripted, StopToken};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn answer_with_blocks(blocks: usize, size: usize) -> String {
    let prose_len = size / blocks;
    let mut s = String::with_capacity(size + 1024);
    let mut i = 0;
    while s.len() < size {
        s.push_str("Some reasoning about the item, with *emphasis*, a [link](http://x.y) and `code`.\n");
        if s.len() >= (i + 1) * prose_len && i < blocks {
            s.push_str(&format!(
                "\n```yaml\ntool: write_file\npath: notes/n{i}.md\ncontent: |\n  line one\n  line two\nappend: false\n```\n\n"
            ));
            i += 1;
        }
    }
    s
}

fn parse_throughput(c: &mut Criterion) {
    let text = answer_with_blocks(1000, 1 << 20);
    let calls = cn_compute::parse(&text).len();
    assert_eq!(calls, 1000, "the input must hold 1,000 calls");
    let mut g = c.benchmark_group("parse");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("1MiB_1000_blocks", |b| b.iter(|| cn_compute::parse(std::hint::black_box(&text))));
    g.finish();
}

/// Moves `n` times, then stops the loop.
struct Mover {
    left: u64,
    stop: StopToken,
}

impl Mind for Mover {
    fn decide(&mut self, _: &Outcomes) -> Decision {
        if self.left == 0 {
            self.stop.stop();
            return Decision::Rest;
        }
        self.left -= 1;
        Decision::Move
    }
    fn plan(&mut self, _: &Outcomes) -> Plan {
        Plan { level: 3, prompt: "item".into(), max_tokens: 256, ..Plan::default() }
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Empty {}

fn kernel_move(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let answer = "I'll note it.\n\n```yaml\ntool: noop\n```\n";
    c.bench_function("kernel/move_journal_on", |b| {
        b.iter_custom(|iters| {
            let stop = StopToken::new();
            let mut ctx = cn_tools::ToolContext::new(dir.path());
            ctx.policy = cn_tools::Policy::default().grant(3, &["noop"]);
            let mut tools = cn_tools::Registry::new(ctx);
            tools.register(cn_tools::typed("noop", "Do nothing.", |_, _: Empty| Ok(serde_json::Value::Null)));
            let parts = Parts {
                mind: Box::new(Mover { left: iters, stop: stop.clone() }),
                model: Box::new(Scripted::new(std::iter::repeat_n(answer, iters as usize))),
                tools: Box::new(tools),
                store: Box::new(cn_storage::JournalStore::open(dir.path()).expect("journal")),
            };
            let mut inputs = Inputs::new(dir.path(), parts);
            inputs.stop = stop;
            let prepared = cn_compute::prepare(inputs).expect("prepare");
            let start = Instant::now();
            let state = cn_compute::r#loop(prepared);
            let took = start.elapsed();
            assert_eq!(state.moves, iters);
            took
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(5));
    targets = parse_throughput, kernel_move
}
criterion_main!(benches);
