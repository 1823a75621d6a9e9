//! `cn parse [FILE]` — what `parse` makes of a markdown answer, as a JSON array: one element
//! per call (`{"tool", "params"}`) or per bad block (`{"error", "block", "line"}`), in order.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use cn_compute::Parsed;
use serde_json::{json, Value};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// A markdown file; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut text = String::new();
    match args.file.as_deref() {
        None => std::io::stdin().read_to_string(&mut text).context("cannot read standard input")?,
        Some(p) if p.as_os_str() == "-" => {
            std::io::stdin().read_to_string(&mut text).context("cannot read standard input")?
        }
        Some(p) => {
            // A file that cannot be read is bad input (exit 2), like any other bad argument.
            text = std::fs::read_to_string(p).map_err(|e| {
                super::UsageError(format!("cannot read {}: {e}", p.display(), e = cn_compute::Chain(&e)))
            })?;
            0
        }
    };
    let out: Vec<Value> = cn_compute::parse(&text)
        .into_iter()
        .map(|entry| match entry {
            Parsed::Call(c) => json!({"tool": c.tool, "params": c.params}),
            Parsed::Error(e) => json!({"error": e.message, "block": e.block, "line": e.line}),
        })
        .collect();
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(ExitCode::SUCCESS)
}
