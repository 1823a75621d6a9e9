//! `cn init [DIR] [--name NAME]` — create a hub (a git repository with the hub's layout and
//! an initial commit). Running it again only adds what is missing; it never overwrites.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where to create the hub (default: --hub, else the current directory).
    pub dir: Option<PathBuf>,
    /// The agent's name (default: the directory's name).
    #[arg(long)]
    pub name: Option<String>,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let dir = args.dir.or_else(|| hub.map(Path::to_path_buf)).unwrap_or_else(|| PathBuf::from("."));
    let r = cn_agent::init(&dir, args.name.as_deref()).map_err(super::hub::report_err)?;
    if r.created.is_empty() {
        println!("{} is already a hub ({}); nothing overwritten", r.root.display(), r.name);
    } else {
        println!(
            "initialized hub {} for agent {} ({} files committed)",
            r.root.display(),
            r.name,
            r.committed_paths.len()
        );
        for k in &r.kept {
            println!("  kept existing {k}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
