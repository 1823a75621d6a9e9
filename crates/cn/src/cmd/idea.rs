//! `cn idea add|list|rm` — curiosities in `state/ideas.json`, explored when the agent is idle.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use cn_autonomy::impulses::{ideas_of, Idea};

use super::UsageError;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Add an idea; prints its id.
    Add {
        text: String,
        /// What sparked it.
        #[arg(long)]
        sparked_by: Option<String>,
        /// How interesting, 1 to 5: the more interesting are explored first.
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
        interest: Option<u8>,
    },
    /// Remove an idea by id.
    Rm { id: String },
    /// List the ideas.
    List {
        #[arg(long)]
        json: bool,
    },
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = super::hub::root(hub)?;
    let file = ideas_of(&hub);
    match args.command {
        Sub::Rm { id } => {
            let removed = file
                .change(|ideas| {
                    let before = ideas.len();
                    ideas.retain(|i| i.id != id);
                    let removed = ideas.len() != before;
                    (removed, removed)
                })
                .context("cannot remove the idea")?;
            if !removed {
                return Err(UsageError(format!("no idea `{id}` in {}", file.path().display())).into());
            }
        }
        Sub::Add { text, sparked_by, interest } => {
            if text.trim().is_empty() {
                return Err(UsageError("cn idea add: the idea text is empty".into()).into());
            }
            let mut idea = Idea::new(text, sparked_by, jiff::Timestamp::now());
            idea.interest = interest;
            file.add(idea.clone()).context("cannot add the idea")?;
            println!("{}", idea.id);
        }
        Sub::List { json } => {
            let ideas = file.load()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&ideas)?);
            } else if ideas.is_empty() {
                println!("no ideas (cn idea add TEXT adds one)");
            } else {
                for i in &ideas {
                    let sparked = i.sparked_by.as_deref().map(|s| format!("  (sparked by {s})")).unwrap_or_default();
                    println!("{}  {}{}", i.id, super::shown_line(&i.idea), super::shown_line(&sparked));
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
