//! Provider overhead per call, network excluded: build the request body (and encode it),
//! then read a canned streamed answer of ~60 events into an `Answer`.
//! Run: `cargo bench -p cn-models --no-default-features --bench providers`.

use std::io::Cursor;
use std::time::Instant;

use cn_compute::Plan;
use cn_models::provider::{anthropic, ollama, openai, Anthropic, Endpoint, Ollama, OpenAi};
use cn_models::Secret;
use criterion::{criterion_group, criterion_main, Criterion};

fn plan() -> Plan {
    Plan {
        level: 3,
        system: "You are Bud. ".repeat(200),
        prompt: "## Item\n\nPlease summarize the thread and reply. ".repeat(50),
        max_tokens: 1024,
        ..Default::default()
    }
}

const WORDS: usize = 60;

fn anthropic_stream() -> String {
    let mut s = String::from("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude\",\"usage\":{\"input_tokens\":900,\"output_tokens\":1}}}\n\n");
    for i in 0..WORDS {
        s.push_str(&format!("event: content_block_delta\ndata: {{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{{\"type\":\"text_delta\",\"text\":\"word{i} \"}}}}\n\n"));
    }
    s.push_str("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":60}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    s
}

fn openai_stream() -> String {
    let mut s = String::new();
    for i in 0..WORDS {
        s.push_str(&format!(
            "data: {{\"model\":\"gpt\",\"choices\":[{{\"index\":0,\"delta\":{{\"content\":\"word{i} \"}}}}]}}\n\n"
        ));
    }
    s.push_str("data: {\"model\":\"gpt\",\"choices\":[],\"usage\":{\"prompt_tokens\":900,\"completion_tokens\":60}}\n\ndata: [DONE]\n\n");
    s
}

fn ollama_stream() -> String {
    let mut s = String::new();
    for i in 0..WORDS {
        s.push_str(&format!(
            "{{\"model\":\"q\",\"message\":{{\"role\":\"assistant\",\"content\":\"word{i} \"}},\"done\":false}}\n"
        ));
    }
    s.push_str("{\"model\":\"q\",\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,\"prompt_eval_count\":900,\"eval_count\":60}\n");
    s
}

fn overhead(c: &mut Criterion) {
    let plan = plan();
    let e = || Endpoint::new("http://127.0.0.1:1", "m");
    let a = Anthropic::new(e(), Secret::new("k"));
    let o = OpenAi::new(e(), None);
    let l = Ollama::new(e());
    let (sa, so, sl) = (anthropic_stream(), openai_stream(), ollama_stream());
    let mut g = c.benchmark_group("provider_overhead");
    g.bench_function("anthropic", |b| {
        b.iter(|| {
            let body = serde_json::to_vec(&a.request(&plan)).unwrap();
            let s = anthropic::read_stream(Cursor::new(sa.as_bytes())).unwrap();
            (body.len(), s.into_answer(&plan, "m", Instant::now()))
        })
    });
    g.bench_function("openai", |b| {
        b.iter(|| {
            let body = serde_json::to_vec(&o.request(&plan)).unwrap();
            let s = openai::read_stream(Cursor::new(so.as_bytes())).unwrap();
            (body.len(), s.into_answer(&plan, "m", Instant::now()))
        })
    });
    g.bench_function("ollama", |b| {
        b.iter(|| {
            let body = serde_json::to_vec(&l.request(&plan)).unwrap();
            let s = ollama::read_stream(Cursor::new(sl.as_bytes())).unwrap();
            (body.len(), s.into_answer(&plan, "m", Instant::now()))
        })
    });
    g.finish();
}

criterion_group!(benches, overhead);
criterion_main!(benches);
