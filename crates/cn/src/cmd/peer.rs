//! `cn peer add NAME REMOTE` / `cn peer list` — the hubs this agent mails, and how its mail
//! with each stands. Peers added here
//! live in `state/peers.json`; `cn.yaml`'s `peers:` (name: remote) is read too.

use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub enum Command {
    /// Add (or change) a peer: its name and git remote (URL or path).
    Add { name: String, remote: String },
    /// Remove a peer added with `cn peer add`.
    Rm { name: String },
    /// List the peers: remote, last successful fetch, mail waiting each way, receipts pending
    /// (as of the last sync; the outbox as it is now).
    List {
        /// Print JSON, one object per peer.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(hub: Option<&Path>, cmd: Command) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    match cmd {
        Command::Add { name, remote } => {
            cn_agent::add_peer(&hub, &name, &remote).map_err(super::hub::report_err)?;
            println!("peer {name} added");
            // What the peer needs to receive this hub's mail: to name this hub where it
            // publishes (its origin, or its own directory).
            let home = cn_agent::mail_home(&hub);
            let me = hub.name();
            let peer_add = home.peer_add(me);
            if home.origin {
                println!(
                    "{me} publishes its mail to {name} in its origin: {name} receives it once it runs `{peer_add}`"
                );
            } else {
                println!(
                    "{me} has no git remote `origin`, so its mail to {name} waits in this hub's own repository: \
                     {name} receives it once it runs `{peer_add}`"
                );
            }
            println!("mail moves while both hubs' `cn run` runs (or at each `cn sync`)");
            if let Some(why) = cn_agent::peer_unreachable(&hub, &name) {
                eprintln!(
                    "cn: warning: peer {name}'s remote does not answer now ({why}); it is recorded anyway, \
                     and each sync tries it again (`cn peer list` shows how it stands)"
                );
            }
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
            hub.git().commit_paths_quick(&format!("cn peer rm {name}"), &cn_hub::layout::OWN)?;
            println!("peer {name} removed");
        }
        Command::List { json } => {
            let peers = cn_agent::peer_status(&hub).map_err(super::hub::report_err)?;
            if json {
                println!("{}", serde_json::to_string(&peers)?);
            } else if peers.is_empty() {
                println!("no peers (cn peer add NAME REMOTE adds one)");
            }
            for p in peers.iter().filter(|_| !json) {
                let fetched = p.last_fetch.as_deref().unwrap_or("never");
                let names_me = match p.names_me {
                    Some(false) => {
                        format!("\tdoes not name {} yet: receives no mail until it runs `{}`", hub.name(), p.to_receive)
                    }
                    _ => String::new(),
                };
                println!(
                    "{}\t{}\tfetched {fetched}\tout {} waiting\tin {} waiting\t{} receipts pending{names_me}{}",
                    p.name,
                    p.remote,
                    p.waiting_out,
                    p.waiting_in,
                    p.receipts_pending,
                    p.last_error.as_deref().map(|e| format!("\terror: {e}")).unwrap_or_default()
                );
            }
            if !json && !peers.is_empty() {
                let home = cn_agent::mail_home(&hub);
                let place = if home.origin { "its origin" } else { "its own repository, having no `origin`" };
                println!(
                    "a peer receives {}'s mail, published in {place}, once it runs `{}`",
                    hub.name(),
                    home.peer_add(hub.name())
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
