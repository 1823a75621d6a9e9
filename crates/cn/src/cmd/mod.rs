//! The commands: one file per command, this enum parses and dispatches.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod ask;
mod model;
mod parse;

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
    /// Ask a level (2 local, 3 executive) and print the model's markdown.
    Ask(ask::Args),
    /// The embedded local model: `cn model pull`.
    Model(model::Args),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Parse(args) => parse::run(args),
        Command::Ask(args) => ask::run(args, cli.hub),
        Command::Model(args) => model::run(args),
    }
}
