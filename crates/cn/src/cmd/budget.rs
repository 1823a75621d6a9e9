//! `cn budget [--json]` — the thinking budget: today's executive spend and the calls in
//! flight, the share of today's items answered at each level, the executive tokens each
//! reflex saved, and the days before (`cn_daemon::economy`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = cn_agent::Hub::find(hub).context("cn budget needs a hub")?;
    let report = cn_daemon::economy::report(&hub)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{report}");
    }
    Ok(ExitCode::SUCCESS)
}
