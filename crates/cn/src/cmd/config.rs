//! `cn config show [--json]` — the configuration the hub runs with: every value after cn.yaml
//! merged with the defaults (README: "How cn.yaml merges"), each with where it came from
//! (`cn.yaml`, `default`, or `state/peers.json` for a peer added with `cn peer add`).
//! `cn config check` — everything `cn run` checks before it starts (and a running daemon
//! before it takes a changed cn.yaml): the models' API keys, the senses' secrets, the control
//! room's address; exit 2 with the reason when it would refuse.

use std::path::Path;
use std::process::ExitCode;

use serde_json::{json, Value};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Print the effective configuration, one value a line, with where each came from.
    Show {
        /// One JSON object: key → {"value", "from"}.
        #[arg(long)]
        json: bool,
    },
    /// Check cn.yaml as `cn run` does at start (API keys, secrets, addresses included).
    Check,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = match args.command {
        Sub::Check => super::hub::open(hub)?,
        Sub::Show { .. } => super::hub::open_to_read(hub, false)?,
    };
    match args.command {
        Sub::Check => {
            cn_daemon::check(&hub, cn_daemon::RunMode::Daemon).map_err(|e| super::UsageError(cn_compute::chain(&e)))?;
            println!("{} is fine: `cn run` would start with it", hub.layout().config().display());
        }
        Sub::Show { json } => {
            let mut rows: Vec<(String, Value, &str)> =
                hub.settings().into_iter().map(|s| (s.key, s.value, s.from.name())).collect();
            // Peers added with `cn peer add` live in state/peers.json, over cn.yaml's.
            let written = &hub.config().peers;
            for (name, peer) in hub.peers().map_err(super::hub::report_err)? {
                if written.get(&name) != Some(&peer.remote) {
                    rows.retain(|(k, _, _)| *k != format!("peers.{name}") && k != "peers");
                    rows.push((format!("peers.{name}"), Value::String(peer.remote), "state/peers.json"));
                }
            }
            if json {
                let map: serde_json::Map<String, Value> =
                    rows.into_iter().map(|(k, v, from)| (k, json!({"value": v, "from": from}))).collect();
                println!("{}", serde_json::to_string_pretty(&Value::Object(map))?);
            } else {
                let shown: Vec<(String, String, &str)> =
                    rows.into_iter().map(|(k, v, from)| (k, text(&v), from)).collect();
                let width = shown.iter().map(|(k, v, _)| k.len() + v.len() + 2).max().unwrap_or(0).min(60);
                for (k, v, from) in shown {
                    let line = format!("{k}: {v}");
                    println!("{line:<width$}  # {from}");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A value as YAML would show it in flow style: strings bare, `null` as `~`.
fn text(v: &Value) -> String {
    match v {
        Value::Null => "~".into(),
        Value::String(s) => s.clone(),
        Value::Array(items) => format!("[{}]", items.iter().map(text).collect::<Vec<_>>().join(", ")),
        Value::Object(map) if map.is_empty() => "{}".into(),
        other => other.to_string(),
    }
}
