//! The model on data it did not train on, through the library: intent accuracy, slot
//! exact-match, per source. `cargo run --release -p cn-understand --example eval -- [--model
//! M.bin] TEST.jsonl...` (the effect on a hub is judged by bench/understand/judge.py).

use std::collections::BTreeMap;

use cn_understand::{understand_with, Model, SlotKind};

mod common;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let blob = match args.iter().position(|a| a == "--model") {
        Some(i) if i + 1 < args.len() => {
            let p = args.remove(i + 1);
            args.remove(i);
            std::fs::read(&p).unwrap_or_else(|e| {
                eprintln!("{p}: {e}");
                std::process::exit(2)
            })
        }
        _ => include_bytes!("../model/understand.bin").to_vec(),
    };
    let model = Model::read(&blob).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mut by: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut confusion: BTreeMap<(String, String), usize> = BTreeMap::new();
    // DUMP=FILE: every line's verdict as JSON, for choosing the thresholds on validation data.
    let mut dump = std::env::var_os("DUMP").and_then(|p| std::fs::File::create(p).ok());
    for f in &args {
        let lines = common::read(std::path::Path::new(f)).unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
        for l in lines {
            let u = understand_with(&model, &l.text);
            if let Some(f) = dump.as_mut() {
                use std::io::Write;
                let slots: Vec<&str> = u.slots.iter().map(|s| s.kind.name()).collect();
                let line = serde_json::json!({"source": l.source, "gold": l.intent.name(), "pred": u.intent.name(), "conf": u.confidence, "slots": slots, "text": l.text});
                let _ = writeln!(f, "{line}");
            }
            let s = by.entry(format!("{} {}", l.source, l.intent.name())).or_default();
            s[0] += 1;
            if u.intent == l.intent {
                s[1] += 1;
                let gold: Vec<(SlotKind, String)> =
                    l.slots.iter().map(|(k, r)| (*k, l.text[r.clone()].to_lowercase())).collect();
                let got: Vec<(SlotKind, String)> = u.slots.iter().map(|s| (s.kind, s.text.to_lowercase())).collect();
                if gold == got {
                    s[2] += 1;
                }
            } else {
                *confusion.entry((l.intent.name().into(), u.intent.name().into())).or_default() += 1;
                if std::env::var_os("SHOW").is_some() {
                    println!("MISS {} -> {} ({:.2}): {}", l.intent.name(), u.intent.name(), u.confidence, l.text);
                }
            }
        }
    }
    println!("{:<40} {:>6} {:>8} {:>8}", "source intent", "n", "intent%", "slots%");
    for (k, s) in &by {
        println!(
            "{:<40} {:>6} {:>7.1}% {:>7.1}%",
            k,
            s[0],
            100.0 * s[1] as f32 / s[0] as f32,
            100.0 * s[2] as f32 / s[0] as f32
        );
    }
    let mut c: Vec<_> = confusion.into_iter().collect();
    c.sort_by_key(|e| std::cmp::Reverse(e.1));
    for ((g, p), n) in c.iter().take(15) {
        println!("confused {g} -> {p}: {n}");
    }
}
