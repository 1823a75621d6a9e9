//! The routine corpus's figures (issue 31): every line of a half of `bench/routine/` parsed
//! and performed through the library on a fresh copy of the fixture hub, and the table
//! BENCHMARKS.md reports — exactly its effect, handed up (left to the executive or asked
//! about), wrong effect — with each line that was not exact.
//!
//!     cargo run --release -p cn-reflex --example routine_corpus -- [tune|heldout]
//!
//! (`bash bench/routine.sh` runs it.) No model is asked: these are the deterministic levels.

use cn_reflex::routine::corpus;

fn main() -> std::process::ExitCode {
    let half = std::env::args().nth(1).unwrap_or_else(|| "heldout".into());
    let file = match half.as_str() {
        "tune" | "tuning" => "corpus-tune.tsv",
        "heldout" | "held-out" => "corpus-heldout.tsv",
        other => {
            eprintln!("routine_corpus: `{other}` is not a half: tune or heldout");
            return std::process::ExitCode::from(2);
        }
    };
    let start = std::time::Instant::now();
    let t = match corpus::tally(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("routine_corpus: cannot run {file}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let took = start.elapsed();
    let pct = |n: usize| 100.0 * n as f64 / t.lines.max(1) as f64;
    println!("half: {half} ({file}), {} requests", t.lines);
    println!("| exactly their effect | handed up | wrong effects |");
    println!("|---|---|---|");
    println!(
        "| {} ({:.1} %) | {} ({:.1} %) | {} ({:.1} %) |",
        t.exact,
        pct(t.exact),
        t.handed_up,
        pct(t.handed_up),
        t.wrong,
        pct(t.wrong)
    );
    println!(
        "{:.2} ms a request (parse, files, answer; fresh fixture each)",
        took.as_secs_f64() * 1000.0 / t.lines.max(1) as f64
    );
    for (n, message, expected, verdict) in &t.misses {
        let (kind, got) = match verdict {
            corpus::Verdict::HandedUp { got } => ("handed up", got),
            corpus::Verdict::Wrong { got } => ("WRONG", got),
            corpus::Verdict::Exact => continue,
        };
        println!("  {kind:9} line {n}: {message}\n            want {expected}\n            got  {got}");
    }
    std::process::ExitCode::SUCCESS
}
