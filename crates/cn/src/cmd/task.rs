//! `cn task add|list|done` — the agent's commitments in `state/tasks.json`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use cn_autonomy::impulses::{tasks, tasks_of, Task};
use cn_reflex::when::Direction;

use super::UsageError;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Add a task; prints its id.
    Add {
        /// What to do.
        text: String,
        /// When it is due: RFC 3339, a date, a span from now (2h, 1 day) or words in the hub's
        /// time zone (friday, "tomorrow 9am", "in 2 hours").
        #[arg(long)]
        due: Option<String>,
        /// 1 (most urgent) to 5.
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=5))]
        priority: Option<u8>,
        /// Why: where the commitment came from.
        #[arg(long)]
        context: Option<String>,
        /// A reminder for you, not work for the agent: told to you at its due time on your
        /// reminder channel (`senses.owner.remind` in cn.yaml; default `cn chat`), answered
        /// "done" or "snooze" there. Needs --due.
        #[arg(long, requires = "due")]
        remind: bool,
    },
    /// List open tasks, due first.
    List {
        /// Include done tasks.
        #[arg(long)]
        all: bool,
        /// Print the tasks as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Mark a task done.
    Done { id: String },
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = match args.command {
        Sub::List { .. } => super::hub::open_to_read(hub, false)?.root().to_path_buf(),
        _ => super::hub::root(hub)?,
    };
    let file = tasks_of(&hub);
    match args.command {
        Sub::Add { text, due, priority, context, remind } => {
            if text.trim().is_empty() {
                return Err(UsageError("cn task add: the task text is empty".into()).into());
            }
            let mut task = Task::new(text);
            // To the second: "2h" from now has no use for nanoseconds.
            task.due = due
                .map(|d| super::typed_time(&hub, "cn task add --due", &d, Direction::Future))
                .transpose()?
                .map(|t| jiff::Timestamp::from_second(t.as_second()).unwrap_or(t));
            task.priority = priority;
            task.context = context;
            if remind {
                task.answer_to = Some(super::owner_reminders(&hub)?);
            }
            file.add(task.clone()).context("cannot add the task")?;
            println!("{}", task.id);
        }
        Sub::List { all, json } => {
            let loaded = file.load()?;
            // One order: the open tasks as `ordered` puts them, then (with --all) the done ones.
            let mut shown: Vec<&Task> = tasks::ordered(&loaded);
            if all {
                shown.extend(loaded.iter().filter(|t| t.done));
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&shown)?);
            } else if shown.is_empty() {
                let what = if all { "no tasks" } else { "no open tasks" };
                println!("{what} (cn task add TEXT [--due TIME] adds one)");
            } else {
                for t in shown {
                    let due = t.due.map_or_else(|| "-".to_string(), |d| d.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
                    let prio = t.priority.map_or_else(|| "-".to_string(), |p| format!("p{p}"));
                    let done = if t.done { "  (done)" } else { "" };
                    println!("{}  {due:<20}  {prio:<2}  {}{done}", t.id, super::shown_line(&t.task));
                }
            }
        }
        Sub::Done { id } => {
            if !file.complete(&id)? {
                return Err(UsageError(format!("no task `{id}` in {}", file.path().display())).into());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
