//! The commands: one file per command, this enum parses and dispatches.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod parse;
mod reflex;

/// Bad usage or input: reported on one line, exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

#[derive(Parser, Debug)]
#[command(name = "cn", version, about = "cn — an autonomous agent runtime. The agent thinks; cn acts.", long_about = None)]
pub struct Cli {
    /// The hub (the agent's git repository). Default: $CN_HUB, else the nearest directory
    /// upwards holding cn.yaml.
    #[arg(long, global = true, env = "CN_HUB", value_name = "DIR")]
    pub hub: Option<PathBuf>,
    /// More logging on stderr (-v info, -vv debug); CN_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Extract the tool calls from a model's markdown answer and print them as JSON.
    Parse(parse::Args),
    /// Reflexes: list them with their analytics, or test what one would do with a text.
    Reflex(reflex::Args),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Parse(args) => parse::run(args),
        Command::Reflex(args) => reflex::run(cli.hub, args),
    }
}
