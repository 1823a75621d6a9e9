//! `cn send --to PEER --message M [--body B]` — the owner writes to a peer. The mail waits in
//! `threads/mail/outbox/` until `cn sync` pushes it.

use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The peer's name (see `cn peer list`).
    #[arg(long)]
    pub to: String,
    /// The message (a summary when --body is given).
    #[arg(long, allow_hyphen_values = true)]
    pub message: String,
    /// The full text.
    #[arg(long, allow_hyphen_values = true)]
    pub body: Option<String>,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    let mail = cn_agent::send(&hub, &args.to, &args.message, args.body.as_deref()).map_err(super::hub::report_err)?;
    println!("mail {} to {} queued; a running `cn run` publishes it now, else `cn sync` does", mail.id, mail.to);
    Ok(ExitCode::SUCCESS)
}
