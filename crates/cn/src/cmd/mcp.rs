//! `cn mcp` — serve the hub's agent interface (`input`, `out`, tasks, ideas, the journal) as
//! an MCP server on stdin/stdout, for a coding agent to be the agent (`cn_mcp::server`).

use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(hub: Option<&Path>, _args: Args) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    cn_mcp::serve_stdio(hub)?;
    Ok(ExitCode::SUCCESS)
}
