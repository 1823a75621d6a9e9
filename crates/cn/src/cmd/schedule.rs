//! `cn schedule add|list|next` — recurring entries in `state/schedule.json`, and the cron
//! calculator: `cn schedule next CRON [--after RFC3339] [-n N] [--tz TZ]` prints the next N
//! fire times strictly after the given time, one RFC 3339 timestamp a line.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use cn_autonomy::cron::{self, Cron};
use cn_autonomy::impulses::{Schedule, ScheduleEntry};
use jiff::Timestamp;

use super::UsageError;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Add a recurring entry.
    Add {
        /// A unique name (morning-review).
        name: String,
        /// Five-field cron: minute hour day-of-month month day-of-week.
        cron: String,
        /// What to do when it fires.
        action: String,
        /// IANA time zone the cron is read in (default UTC).
        #[arg(long)]
        tz: Option<String>,
        /// If missed while the daemon was down, skip it (default: fire once at start).
        #[arg(long)]
        no_catch_up: bool,
        /// A reminder for you, not work for the agent: ACTION is told to you at each firing
        /// on your reminder channel (`senses.owner.remind` in cn.yaml; default `cn chat`),
        /// answered "done" or "snooze" there.
        #[arg(long)]
        remind: bool,
    },
    /// Remove an entry by name.
    Rm { name: String },
    /// List the entries with their next fire time.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Print the next fire times of a cron expression.
    Next {
        /// Five-field cron: minute hour day-of-month month day-of-week.
        cron: String,
        /// Count from this RFC 3339 time (default now); fire times are strictly after it.
        #[arg(long)]
        after: Option<String>,
        /// How many fire times.
        #[arg(short = 'n', default_value_t = 1)]
        n: usize,
        /// IANA time zone the cron is read in (default UTC).
        #[arg(long)]
        tz: Option<String>,
    },
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    match args.command {
        Sub::Next { cron, after, n, tz } => next(&cron, after.as_deref(), n, tz.as_deref()),
        Sub::Add { name, cron, action, tz, no_catch_up, remind } => {
            let hub = super::hub::root(hub)?;
            let entry = ScheduleEntry {
                name,
                cron,
                action,
                tz,
                catch_up: no_catch_up.then_some(false),
                remind: if remind { Some(super::owner_reminders(&hub)?) } else { None },
                until: None,
                stride: None,
                extra: Default::default(),
            };
            let (cron, tz) = entry.timing().map_err(|e| UsageError(cn_compute::chain(&e)))?;
            // A cron that never fires (`0 0 31 2 *`: February 31st) is refused now, not found
            // out never.
            if let Err(e) = cron.next_after(Timestamp::now(), &tz) {
                return Err(
                    UsageError(format!("schedule entry `{}`: {e}", entry.name, e = cn_compute::Chain(&e))).into()
                );
            }
            Schedule::of_hub(&hub)
                .add(entry)
                .context("cannot add the schedule entry")?
                .map_err(|e| UsageError(cn_compute::chain(&e)))?;
            Ok(ExitCode::SUCCESS)
        }
        Sub::Rm { name } => {
            let hub = super::hub::root(hub)?;
            let schedule = Schedule::of_hub(&hub);
            if !schedule.remove(&name)? {
                return Err(UsageError(format!("no schedule entry `{name}` in {}", schedule.path().display())).into());
            }
            Ok(ExitCode::SUCCESS)
        }
        Sub::List { json } => {
            let hub = super::hub::root(hub)?;
            let entries = Schedule::of_hub(&hub).load()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&entries)?);
                return Ok(ExitCode::SUCCESS);
            }
            if entries.is_empty() {
                println!("no schedule entries (cn schedule add NAME CRON ACTION adds one)");
            }
            let now = Timestamp::now();
            for e in &entries {
                let next = match e.next_firing(now) {
                    Ok(Some(z)) => cron::rfc3339(&z),
                    Ok(None) => "none (ended)".to_string(),
                    Err(err) => format!("invalid: {err}", err = cn_compute::Chain(&err)),
                };
                let tz = e.tz.as_deref().unwrap_or("UTC");
                let whom = match e.reminds() {
                    Some(to) => format!(
                        "  (reminds you on {})",
                        to.whom().map_or_else(|| to.via().to_string(), |at| format!("{}:{at}", to.via()))
                    ),
                    None => String::new(),
                };
                let until = e.until.map_or_else(String::new, |u| format!("  until {u}"));
                let until = match &e.stride {
                    Some(s) => format!("  {s}{until}"),
                    None => until,
                };
                println!("{}  `{}` {tz}  next {next}{until}  {}{whom}", e.name, e.cron, super::shown_line(&e.action));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn next(expr: &str, after: Option<&str>, n: usize, tz: Option<&str>) -> anyhow::Result<ExitCode> {
    let cron: Cron = expr.parse().map_err(|e: cron::CronError| UsageError(cn_compute::chain(&e)))?;
    let tz = cron::time_zone(tz.unwrap_or("UTC"))
        .map_err(|e| UsageError(format!("--tz: {e}", e = cn_compute::Chain(&e))))?;
    let after = match after {
        None => Timestamp::now(),
        Some(a) => a.parse::<Timestamp>().map_err(|e| {
            UsageError(format!("--after `{a}` is not an RFC 3339 time: {e}", e = cn_compute::Chain(&e)))
        })?,
    };
    let mut out = String::new();
    for z in cron.next_n(after, &tz, n).map_err(|e| UsageError(cn_compute::chain(&e)))? {
        out.push_str(&cron::rfc3339(&z));
        out.push('\n');
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}
