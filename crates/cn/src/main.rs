//! `cn` — the binary. Thin: it parses the command line (clap), finds the hub, and hands each
//! command to the crate that owns it. Exit codes: 0 ok, 1 failure, 2 bad usage or input,
//! 3 nothing to do (an empty queue).

// First: its printing macros shadow the standard ones in every module below (`out`).
#[macro_use]
mod out;
mod cmd;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    // Started by git as the connector of a `git://` connection: nothing else.
    if let Some(code) = cn_git::connect::connector_main() {
        std::process::exit(code);
    }
    if let Ok(exe) = std::env::current_exe() {
        cn_git::connect::use_connector(exe);
    }
    let cli = cmd::Cli::parse();
    if let Err(e) = init_tracing(cli.verbose) {
        eprintln!("cn: {e}");
    }
    match cmd::run(cli) {
        Ok(code) => code,
        Err(e) => {
            // `{:#}` prints the whole context chain on one line: what failed, and why.
            eprintln!("cn: {}", cn_process::redact::printable_line(&format!("{e:#}")));
            // Bad usage or input: no hub where one was looked for, a cn.yaml that cannot be
            // used (README: exit 2).
            let no_hub = e.chain().any(|c| {
                matches!(
                    c.downcast_ref::<cn_hub::HubError>(),
                    Some(cn_hub::HubError::NoHub(_) | cn_hub::HubError::Config(_))
                ) || matches!(
                    c.downcast_ref::<cn_agent::AgentError>(),
                    Some(cn_agent::AgentError::NoHub(_) | cn_agent::AgentError::Config(_))
                ) || c.downcast_ref::<cn_hub::ConfigError>().is_some()
            });
            if e.downcast_ref::<cmd::UsageError>().is_some() || no_hub {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn init_tracing(verbose: u8) -> Result<(), String> {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("CN_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // Colour only for a terminal: a log file or a pipe gets plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .try_init()
        .map_err(|e| e.to_string())
}
