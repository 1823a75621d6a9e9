//! `cn out <gtd> [op] [flags] [--dry-run] [--json]` — decide the current item. The words are
//! parsed by `cn_agent::parse_out` (the document's grammar, exactly, its forms built from the
//! ops' files); bad input is one line on stderr naming the problem and the accepted form,
//! exit 2, and nothing written. `--help` prints `cn_agent::args::grammar()`.

use std::path::Path;
use std::process::ExitCode;

use super::UsageError;

#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
pub struct Args {
    /// <do|defer|delegate|delete> [op] [flags] [--dry-run] [--json]; `cn out --help` lists
    /// every form
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0.., value_name = "WORDS")]
    pub words: Vec<String>,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    if matches!(args.words.as_slice(), [h] if h == "--help" || h == "-h") {
        print!("{}", cn_agent::args::grammar());
        return Ok(ExitCode::SUCCESS);
    }
    let parsed =
        cn_agent::parse_out(&args.words).map_err(|e| UsageError(format!("cn out: {e}", e = cn_compute::Chain(&e))))?;
    let hub = super::hub::open(hub)?;
    if parsed.dry_run {
        let gtd = cn_agent::validate(&hub, &parsed.gtd).map_err(super::hub::report_err)?;
        if parsed.json {
            println!("{}", serde_json::to_string(&gtd.to_json())?);
        } else {
            println!("ok (dry run): cn out {}", gtd.to_command());
        }
        return Ok(ExitCode::SUCCESS);
    }
    // A past `--until` brings the item straight back: allowed (it is how to requeue now), but
    // said, in case the year was mistyped.
    if let cn_agent::Gtd::Defer(cn_agent::ops::Defer { until: Some(u), .. }) = &parsed.gtd {
        let at = cn_agent::validate(&hub, &parsed.gtd).ok().and_then(|g| match g {
            cn_agent::Gtd::Defer(d) => d.until,
            _ => None,
        });
        if at.is_some_and(|t| t < cn_storage::now_rfc3339()) {
            eprintln!("cn out: warning: --until {u} is in the past; the item is back in the queue at once");
        }
    }
    // The agent's decision: the current item's sender decides what it may cause, as for the
    // executive (a peer's item cannot make `cn out do send` mail another peer unasked).
    super::hub::finish(cn_agent::decide(&hub, &parsed.gtd, &cn_agent::DecideAs::agent()), |d| {
        if parsed.json {
            println!("{}", serde_json::to_string(&d.to_json())?);
        } else {
            println!("{}: {} → {}", d.item.id, super::shown_line(&d.gtd.summary()), d.place);
            if !d.mail.is_empty() {
                println!("mail queued for `cn sync`: {}", d.mail.join(", "));
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}
