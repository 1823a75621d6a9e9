//! `cn input [--json]` — the current item. With none, cn takes the next from the queue (its
//! order, not the agent's); with an empty queue it says so and exits 3.

use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print `{"id","from","content","cadence"}` instead of the item file, with `"subject"`
    /// when the item is a mail that has one.
    #[arg(long)]
    pub json: bool,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    let next = cn_agent::take_next(&hub).and_then(|item| {
        item.ok_or_else(|| cn_agent::AgentError::Empty("the queue is empty: nothing in threads/inbox/".into()))
    });
    super::hub::finish(next, |item| {
        if args.json {
            println!("{}", serde_json::to_string(&item.to_json())?);
        } else {
            print!("{}", super::shown(&item.render()));
        }
        Ok(ExitCode::SUCCESS)
    })
}
