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
        let from = a.item.as_deref().map(|i| format!(" (for item {i})")).unwrap_or_default();
        println!("{} · {} · {:?}{from}", a.id, a.tool, a.status);
        println!("  runs: {}", a.runs.replace('\n', "\n    "));
        println!("  always allow would remember: {}", a.remembers);
        if let Some(why) = &a.decided {
            println!("  decided: {why}");
        }
        if a.status == Status::Pending {
            println!("  cn approve {}   ·   cn deny {}", a.id, a.id);
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn approve(hub: Option<&Path>, args: IdArgs) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    let _lock = cn_agent::lock(&hub).map_err(super::hub::report_err)?;
    let a = approvals::decide(hub.layout(), &args.id, true).map_err(|e| UsageError(e.to_string()))?;
    match a.tool.as_str() {
        "reflex_write" => {
            let done = cn_reflex::apply_approved(hub.root(), &a)?;
            println!("approved {}: {} written and enabled", a.id, hub.layout().relative(&done.path).display());
        }
        other => return Err(UsageError(format!("approval {} holds `{other}`, which cn cannot run", a.id)).into()),
    }
    Ok(ExitCode::SUCCESS)
}

pub fn deny(hub: Option<&Path>, args: IdArgs) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    let _lock = cn_agent::lock(&hub).map_err(super::hub::report_err)?;
    let a = approvals::decide(hub.layout(), &args.id, false).map_err(|e| UsageError(e.to_string()))?;
    let entry = cn_storage::Entry::new("approval")
        .with("id", a.id.as_str())
        .with("tool", a.tool.as_str())
        .with("outcome", "denied");
    cn_hub::journal::HubJournal::append_to(&hub.layout().state(), &entry)?;
    println!("denied {}: nothing runs", a.id);
    Ok(ExitCode::SUCCESS)
}
