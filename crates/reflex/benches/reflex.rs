//! Reflex figures (issue 6): level-0 matching of one message against 100 reflexes, a level-0
//! reply end to end (input in → reply done), and the reference stream of 1,000 mixed
//! messages — the share answered at each level and the executive tokens saved.
//!
//! Run: `cargo bench -p cn-reflex --bench reflex -- --measurement-time 3 --warm-up-time 1`
//! (the stream report is printed before the timings).

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use cn_compute::{Answer, Model, ModelError, Plan};
use cn_reflex::{Engine, Input, Replier, ReplyError, Target};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

struct Sink;
impl Replier for Sink {
    fn reply(&self, _: &Target, m: &str) -> Result<(), ReplyError> {
        black_box(m);
        Ok(())
    }
    fn react(&self, _: &Target, e: &str) -> Result<(), ReplyError> {
        black_box(e);
        Ok(())
    }
}

const GREETING: &str = "name: greeting\ndescription: Greet back\ntrigger:\n  pattern: '(?i)^(hi|hello|hey|good (morning|evening))\\b'\npipeline:\n  - action: react\n    input: \"👋\"\n  - action: reply\n    message: Hello!\n";
const TASK: &str = "name: remember-task\ndescription: Note a task\ntrigger:\n  keywords: [remind, todo]\n  max_length: 200\npipeline:\n  - action: add_task\n    input: \"{{text}}\"\n    output: id\n  - action: reply\n    message: \"Noted ({{id}}).\"\n";
const TIME: &str = "name: tell-time\ndescription: the sender asks what time or date it is\ntrigger:\n  classifier: local\n  intents: [ask-time]\n  question: true\npipeline:\n  - action: reply\n    message: \"It is {{intent}} o'clock.\"\n";

fn hub(files: &[(String, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("state/reflexes")).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join("state/reflexes").join(name), text).unwrap();
    }
    dir
}

/// 99 command-style reflexes plus the greeting: 100 patterns in the RegexSet.
fn hundred() -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = (0..99)
        .map(|i| {
            (
                format!("cmd-{i:02}.yaml"),
                format!("name: cmd-{i:02}\ntrigger:\n  pattern: '(?i)^!(cmd{i}|alias{i})\\b(.*)'\npipeline:\n  - action: reply\n    message: ok {i}\n"),
            )
        })
        .collect();
    files.push(("greeting.yaml".into(), GREETING.into()));
    files
}

fn engine(dir: &Path) -> Engine {
    let layout = cn_hub::Layout::new(dir);
    let (config, policy) = cn_reflex::config::read(&layout).unwrap();
    let mut e = Engine::with_config(&layout, config, policy);
    assert!(e.errors().is_empty(), "{:?}", e.errors());
    e.set_replier(Arc::new(Sink));
    e
}

fn level0(c: &mut Criterion) {
    let dir = hub(&hundred());
    let mut e = engine(dir.path());
    assert_eq!(e.reflexes().len(), 100);
    let mut g = c.benchmark_group("level0");
    g.throughput(Throughput::Elements(1));
    g.bench_function("match one message against 100 reflexes (hit)", |b| {
        b.iter(|| black_box(e.match_level0(black_box("hello there, how are you doing today?"), None)))
    });
    g.bench_function("match one message against 100 reflexes (miss)", |b| {
        b.iter(|| black_box(e.match_level0(black_box("could you look at the failing build on main?"), None)))
    });
    g.bench_function("reply end to end (input in, reply done, journaled)", |b| {
        b.iter(|| {
            let h = e.handle(&Input::new(black_box("hello there")).source("discord"));
            assert!(!h.escalate);
            black_box(h)
        })
    });
    // As in the daemon: the item is current in `state/input.md`, and every step's call reads
    // its provenance there (a sense's item; a peer's, which also reads cn.yaml's peers).
    std::fs::write(
        dir.path().join("cn.yaml"),
        "name: bench
peers:
  ada: /nowhere
",
    )
    .unwrap();
    for (what, from) in [("a stranger's", "from: discord\nsense: discord\nauthor-id: '7'"), ("a peer's", "from: ada")] {
        let item = format!(
            "---\nid: i-1\n{from}\ncadence: inbox\nqueued: 2026-11-24T00:00:00Z\nthread: i-1\n---\nhello there\n"
        );
        std::fs::write(dir.path().join("state/input.md"), item).unwrap();
        g.bench_function(format!("reply end to end, {what} current item (provenance checked per call)"), |b| {
            b.iter(|| {
                let h = e.handle(&Input::new(black_box("hello there")).source("discord"));
                assert!(!h.escalate);
                black_box(h)
            })
        });
    }
    g.finish();
}

/// A stand-in for the local model, deterministic: triage by keyword, a fixed summary.
struct Local;
impl Model for Local {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        let markdown = if plan.grammar.is_some() {
            let msg = plan.prompt.rsplit("Message: ").next().unwrap_or("");
            if msg.contains("time") || msg.contains("date") {
                "ask-time"
            } else {
                "none"
            }
        } else {
            "A short summary of the page."
        };
        Ok(Answer { markdown: markdown.into(), ..Answer::default() })
    }
}

fn serve_page() -> (String, usize) {
    let page = "<p>Sea otters hold hands while they sleep so they do not drift apart. </p>".repeat(40);
    let text_len = cn_reflex::html_to_text(&page).len();
    let (url, _) = cn_reflex::testing::serve_html(page).unwrap();
    (url, text_len)
}

/// The reference stream: 1,000 messages, deterministic (a fixed LCG), in four kinds.
fn stream(base: &str) -> Vec<(&'static str, String)> {
    const GREETINGS: &[&str] = &["hi", "hello!", "hey there", "good morning", "Hello, how are you?", "hey :)"];
    const TASKS: &[&str] = &[
        "remind me to call the bank tomorrow",
        "todo: renew the passport",
        "please remind me to water the plants",
        "add a todo to review PR #42",
    ];
    const TIME_QS: &[&str] = &["what time is it?", "what's the date today?", "do you know the time?"];
    const QUESTIONS: &[&str] = &[
        "why does the build fail on arm64?",
        "how should we structure the memory consolidation notes?",
        "can you explain what changed in the scheduler last week?",
        "what do you think about moving the journal to sqlite?",
        "could you draft a reply to the peer about the outage?",
    ];
    let mut seed: u64 = 0x5eed;
    let mut next = || {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    (0..1000)
        .map(|i| {
            let r = next();
            match r % 100 {
                0..=29 => ("greeting", GREETINGS[r / 100 % GREETINGS.len()].to_string()),
                30..=49 => ("link", format!("summarize {base}/article-{i}")),
                50..=69 => ("task", TASKS[r / 100 % TASKS.len()].to_string()),
                70..=79 => ("time", TIME_QS[r / 100 % TIME_QS.len()].to_string()),
                _ => ("question", QUESTIONS[r / 100 % QUESTIONS.len()].to_string()),
            }
        })
        .collect()
}

fn reference_stream(c: &mut Criterion) {
    let (base, page_text) = serve_page();
    let files: Vec<(String, String)> = [
        ("greeting.yaml", GREETING),
        ("summarize-url.yaml", cn_reflex::examples::SUMMARIZE_URL),
        ("task.yaml", TASK),
        ("time.yaml", TIME),
    ]
    .iter()
    .map(|(n, t)| (n.to_string(), t.to_string()))
    .collect();
    let dir = hub(&files);
    // Fetches reach loopback only when a policy.urls entry names the host.
    std::fs::write(dir.path().join("cn.yaml"), format!("policy:\n  urls: [\"{base}/\"]\n")).unwrap();
    let mut e = engine(dir.path());
    e.set_model(Box::new(Local));
    let messages = stream(&base);
    // What the executive would have been sent for one item: its system prompt (stood in for
    // by the tool docs it is shown — the reflex actions' docs — plus a preamble), the item,
    // and for a link the page it would have had to read.
    let system: usize = 600 + e.registry().docs_for(2).iter().map(|d| d.to_prompt().len()).sum::<usize>();
    let exec_chars = |kind: &str, text: &str| system + text.len() + if kind == "link" { page_text } else { 0 };
    let mut by_level = [0usize; 4];
    let (mut all_tokens, mut saved_tokens) = (0usize, 0usize);
    for (kind, text) in &messages {
        let h = e.handle(&Input::new(text));
        let level = if h.escalate { 3 } else { h.level as usize };
        by_level[level] += 1;
        let tokens = exec_chars(kind, text) / 4;
        all_tokens += tokens;
        if !h.escalate {
            saved_tokens += tokens;
        }
    }
    let kinds =
        ["greeting", "link", "task", "time", "question"].map(|k| (k, messages.iter().filter(|(x, _)| *x == k).count()));
    println!("reference stream: {} messages {kinds:?}", messages.len());
    for (l, n) in by_level.iter().enumerate() {
        println!("  level {l}: {n} ({:.1}%)", *n as f64 / 10.0);
    }
    println!(
        "  executive tokens (chars/4; system prompt {system} chars): all to the executive {all_tokens}, saved {saved_tokens} ({:.1}%)",
        saved_tokens as f64 * 100.0 / all_tokens as f64
    );
    let mut g = c.benchmark_group("stream");
    g.sample_size(10).throughput(Throughput::Elements(messages.len() as u64));
    g.bench_function("1000 mixed messages (stand-in local model, loopback fetch)", |b| {
        b.iter(|| {
            for (_, text) in &messages {
                black_box(e.handle(&Input::new(text)));
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = level0, reference_stream
}
criterion_main!(benches);
