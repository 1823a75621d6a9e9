//! `cn run` — the agent: `cn_daemon::run` over the hub (the compute loop with `decide` =
//! attention over the hub's percepts, inbox items and impulses). This file parses the flags,
//! installs the signal handlers and maps the report to an exit code. SIGINT or SIGTERM lets
//! the current act finish, flushes and exits 0.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use cn_daemon::{RunMode, RunOptions, StopToken};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Handle one item, then exit (for system cron). Exit 3 when there was none.
    #[arg(long, conflicts_with = "until_idle")]
    pub once: bool,
    /// Handle items until the queue is empty, then exit.
    #[arg(long)]
    pub until_idle: bool,
    /// Moves allowed on one item before it is deferred with the reason.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub max_moves: u32,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = cn_agent::Hub::find(hub).context("cn run needs a hub")?;
    cn_understand::check()?;
    let mode = match (args.once, args.until_idle) {
        (true, _) => RunMode::Once,
        (_, true) => RunMode::UntilIdle,
        _ => RunMode::Daemon,
    };
    let stop = StopToken::new();
    stop_on_signals(&stop)?;
    let options =
        RunOptions { mode, max_moves: args.max_moves, on_listening: Some(listening), on_serving: Some(serving) };
    let report = match cn_daemon::run(hub, options, stop) {
        Ok(report) => report,
        Err(e) if e.is_usage() => return Err(super::UsageError(cn_compute::chain(&e)).into()),
        Err(e) => return Err(e.into()),
    };
    eprintln!("cn run: {} move(s), {} item(s) decided", report.moves, report.decided);
    if report.nothing_to_do() {
        eprintln!("cn run: nothing to do (the queue is empty)");
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::SUCCESS)
}

/// Tell the person where the owner endpoint listens.
fn listening(addr: Option<std::net::SocketAddr>) {
    if let Some(addr) = addr {
        eprintln!("cn run: listening on http://{addr} (owner: POST {})", cn_autonomy::senses::OWNER_PATH);
    }
}

/// SIGINT / SIGTERM ask the loop to stop after the current act; a second one exits at once.
fn serving(url: &str) {
    eprintln!("cn run: control room at {url} (`cn serve` prints the address with your token)");
}

pub fn stop_on_signals(stop: &StopToken) -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals =
        signal_hook::iterator::Signals::new([SIGINT, SIGTERM]).context("cannot install signal handlers")?;
    let stop = stop.clone();
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        let mut seen = 0;
        for _ in signals.forever() {
            seen += 1;
            if seen > 1 {
                std::process::exit(130);
            }
            stop.stop();
        }
    })?;
    Ok(())
}
