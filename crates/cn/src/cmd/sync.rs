//! `cn sync` — take mail addressed to this agent from every peer's remote (read-only), and
//! publish in `origin` — the only repository it writes — the outbox, receipts for what it
//! took, and the release of mail its peers have receipted. A peer that fails does not stop
//! the others; the command then exits 1 after reporting.

use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    let r = cn_agent::sync(&hub).map_err(super::hub::report_err)?;
    if args.json {
        let v = serde_json::json!({
            "sent": r.sent, "received": r.received, "rejected": r.rejected,
            "duplicates": r.duplicates, "receipts": r.receipts, "released": r.released, "errors": r.errors,
        });
        println!("{v}");
    } else {
        println!(
            "sent {}, received {}, rejected {}{}",
            r.sent.len(),
            r.received.len(),
            r.rejected.len(),
            if r.duplicates > 0 { format!(", {} already delivered", r.duplicates) } else { String::new() }
        );
    }
    for e in &r.errors {
        eprintln!("cn sync: {}", super::shown_line(&e.to_string()));
    }
    Ok(if r.errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
