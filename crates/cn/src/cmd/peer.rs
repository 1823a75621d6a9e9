//! `cn peer add NAME REMOTE` / `cn peer list` — the hubs this agent mails. Peers added here
//! live in `state/peers.json`; `cn.yaml`'s `peers:` (name: remote) is read too.

use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Add (or change) a peer: its name and git remote (URL or path).
    Add { name: String, remote: String },
    /// Remove a peer added with `cn peer add`.
    Rm { name: String },
    /// List the peers.
    List,
}

pub fn run(hub: Option<&Path>, cmd: Command) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    match cmd {
        Command::Add { name, remote } => {
            cn_agent::add_peer(&hub, &name, &remote).map_err(super::hub::report_err)?;
            println!("peer {name} added");
        }
        Command::Rm { name } => {
            let _lock = cn_agent::lock(&hub).map_err(super::hub::report_err)?;
            if !hub.remove_peer(&name).map_err(super::hub::report_err)? {
                let why = if hub.peer(&name).ok().flatten().is_some() {
                    format!("peer `{name}` is listed in cn.yaml's `peers:`; remove it there")
                } else {
                    format!("no peer `{name}`")
                };
                return Err(super::UsageError(why).into());
            }
            cn_hub::git::Git::new(hub.root())
                .commit_paths_quick(&format!("cn peer rm {name}"), &cn_hub::layout::OWN)?;
            println!("peer {name} removed");
        }
        Command::List => {
            for (name, peer) in hub.peers().map_err(super::hub::report_err)? {
                println!("{name}\t{}", peer.remote);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
