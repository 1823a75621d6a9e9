//! `cn approvals [--json]`, `cn approve ID`, `cn deny ID` — the actions held for the owner's
//! word (`state/approvals.json`): what each will run, exactly, and what "always allow" would
//! remember. Approving runs it now; denying (or the timeout) drops it. Only the owner's own
//! commands decide: no tool writes the file.

use std::path::Path;
use std::process::ExitCode;

use cn_hub::approvals::{self, Approval, Status};

use super::UsageError;

#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Every approval, decided ones included (default: the pending ones).
    #[arg(long)]
    pub all: bool,
    /// Print them as a JSON array.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct IdArgs {
    /// The approval's id (`cn approvals` lists them).
    pub id: String,
}

pub fn list(hub: Option<&Path>, args: ListArgs) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    let all = approvals::list(hub.layout())?;
    let shown: Vec<&Approval> = all.iter().filter(|a| args.all || a.status == Status::Pending).collect();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&shown)?);
        return Ok(ExitCode::SUCCESS);
    }
    if shown.is_empty() {
        println!("nothing waits for your approval");
    }
    for a in shown {
        let mut from = a.item.as_deref().map(|i| format!(" (for item {i}")).unwrap_or_default();
        if let Some(who) = &a.from {
            from = if from.is_empty() { format!(" (from {who})") } else { format!("{from} from {who})") };
        } else if !from.is_empty() {
            from.push(')');
        }
        println!("{} · {} · {:?}{}", a.id, a.tool, a.status, super::shown_line(&from));
        println!("  runs: {}", super::shown(&a.runs).replace('\n', "\n    "));
        println!("  always allow would remember: {}", super::shown_line(&a.remembers));
        if let Some(why) = &a.decided {
            println!("  decided: {}", super::shown_line(why));
        }
        if a.status == Status::Pending {
            println!("  cn approve {}   ·   cn deny {}", a.id, a.id);
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn approve(hub: Option<&Path>, args: IdArgs) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    let done = cn_daemon::approve::approve(&hub, &args.id).map_err(usage)?;
    println!("{}", super::shown(&done.summary()));
    Ok(ExitCode::SUCCESS)
}

pub fn deny(hub: Option<&Path>, args: IdArgs) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    let a = cn_daemon::approve::deny(&hub, &args.id).map_err(usage)?;
    println!("denied {}: nothing runs", a.id);
    Ok(ExitCode::SUCCESS)
}

fn usage(e: cn_daemon::approve::ApproveError) -> anyhow::Error {
    match e {
        cn_daemon::approve::ApproveError::Lock(e) => super::hub::report_err(e),
        e if e.is_usage() => UsageError(cn_compute::chain(&e)).into(),
        e => e.into(),
    }
}
