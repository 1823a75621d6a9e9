//! `cn clone REMOTE DIR` — a working hub from the hub's origin on another machine: its state,
//! reflexes, notes, threads and journal; fresh secrets of its own (or the hub's id key from
//! `--id-key FILE`), never the model. See `cn_agent::clone`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The hub's origin (a git URL or path).
    pub remote: String,
    /// Where the clone goes (absent or empty).
    pub dir: PathBuf,
    /// The hub's branch in origin (default: the lease's, else origin's HEAD, main or master).
    #[arg(long)]
    pub branch: Option<String>,
    /// A file holding the hub's id key (a copy of .git/cn-id-key from a machine that ran it):
    /// what a clone that may take the hub's lease over needs.
    #[arg(long, value_name = "FILE")]
    pub id_key: Option<PathBuf>,
}

pub fn run(_hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let r = cn_agent::clone::clone(&args.remote, &args.dir, args.branch.as_deref(), args.id_key.as_deref())
        .map_err(super::hub::report_err)?;
    println!("cloned hub {} ({}) into {}", r.name, r.branch, r.root.display());
    println!("  new here: an owner token and a clone id (in .git/); the hub's secrets stay where they were");
    match (&r.lease, r.same_key) {
        (Some(l), Some(true)) => println!(
            "  the hub is leased (held by {}, term {}): `cn run` here stands by and takes over when the lease ends",
            l.label, l.term
        ),
        (Some(l), _) => println!(
            "  the hub is leased (held by {}, term {}) with another id key: copy .git/cn-id-key from that machine (`cn clone … --id-key FILE`, or into {}/.git/) before `cn run` here",
            l.label,
            l.term,
            r.root.display()
        ),
        (None, _) => {}
    }
    if r.needs_model {
        println!("  cn.yaml uses the embedded local model: fetch it here with `cn model pull`");
    }
    Ok(ExitCode::SUCCESS)
}
