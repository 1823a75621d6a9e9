//! Train the understanding model: `cargo run --release -p cn-understand --example train --
//! OUT.bin TRAIN.jsonl...` (bench/understand/train.sh assembles the files and calls this).

use std::path::PathBuf;

mod common;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((out, inputs)) = args.split_first() else {
        eprintln!("usage: train OUT.bin TRAIN.jsonl...");
        std::process::exit(2);
    };
    let mut examples = Vec::new();
    let mut data = Vec::new();
    for i in inputs {
        let p = PathBuf::from(i);
        match common::read(&p) {
            Ok(mut e) => examples.append(&mut e),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2);
            }
        }
        data.extend(std::fs::read(&p).unwrap_or_default());
    }
    let digest = format!("{:016x}", cn_understand::features::hash(&[&String::from_utf8_lossy(&data)]));
    let config = cn_understand::train::Config::default();
    let started = std::time::Instant::now();
    let blob = cn_understand::train::train(&examples, config, digest);
    if let Err(e) = std::fs::write(out, &blob) {
        eprintln!("{out}: {e}");
        std::process::exit(1);
    }
    eprintln!(
        "trained on {} examples in {:.1} s: {out} ({} bytes)",
        examples.len(),
        started.elapsed().as_secs_f32(),
        blob.len()
    );
}
