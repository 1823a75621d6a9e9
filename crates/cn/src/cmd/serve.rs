//! `cn serve [--bind ADDR] [--allow-remote]` — the control room: a web page to watch and
//! steer the agent (`cn_daemon::serve`). The first line of output is the address to open,
//! with the owner token in it. It serves the hub's files whether a daemon runs or not, until
//! SIGINT or SIGTERM — except when the daemon running on the hub already serves the control
//! room (`serve:` in cn.yaml) and no `--bind` is given: then it prints that one's address
//! with the token and exits.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The address to listen on (port 0 picks a free port). Default: `serve.bind` in cn.yaml,
    /// else 127.0.0.1:0.
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// Allow an address other than loopback: the page is plain HTTP, so the owner token then
    /// crosses the network in clear (prefer an ssh tunnel).
    #[arg(long)]
    pub allow_remote: bool,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = cn_agent::Hub::find(hub).context("cn serve needs a hub")?;
    if args.bind.is_none() {
        if let Some(url) = cn_daemon::control_url(hub.root()) {
            let token = cn_hub::owner_token::load_or_create(hub.layout(), &hub.config().senses.owner)?;
            println!("{url}?token={token}");
            eprintln!("cn serve: the daemon serves the control room; open the address above");
            return Ok(ExitCode::SUCCESS);
        }
    }
    let mut config = hub.config().serve.clone().unwrap_or_default();
    if let Some(bind) = args.bind {
        config.bind = bind;
    }
    config.allow_remote |= args.allow_remote;
    let stop = cn_daemon::StopToken::new();
    super::run::stop_on_signals(&stop)?;
    let server =
        cn_daemon::serve::Server::start(hub, &config, None).map_err(|e| super::UsageError(cn_compute::chain(&e)))?;
    println!("{}", server.url());
    crate::out::flush();
    eprintln!("cn serve: the control room (Ctrl-C stops it)");
    while !stop.wait(std::time::Duration::from_secs(3600)) {}
    drop(server);
    Ok(ExitCode::SUCCESS)
}
