//! `cn loop init|run|status|done DIR` — AI loops on a git working tree (cn-loops).
//!
//! Exit codes: `run`/`done` exit 0 when the loop completed or now waits for a person, 1 when
//! it stopped at `max-iterations` without meeting the target (or failed), 2 on bad input,
//! 3 when there was nothing to do (the loop had already ended, or still waits for
//! `cn loop done`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use cn_loops::progress::Event;
use cn_loops::{Defaults, LoopError, RunEnd, Status};

use super::UsageError;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Write a loop-run/task.md template (the document's Factorial example) in DIR.
    Init {
        /// The codebase: a git working tree, with the loop's files in DIR/loop-run/.
        #[arg(default_value = ".", value_name = "DIR")]
        dir: PathBuf,
    },
    /// Run the loop on the git repository DIR until the target is met, max-iterations is
    /// reached, or a manual actuator's turn comes. Resumes an interrupted loop. Prints a line
    /// per component per iteration (elapsed time, the sensor's exit status) and per commit.
    Run {
        /// The codebase: a git working tree, with the loop's files in DIR/loop-run/.
        #[arg(default_value = ".", value_name = "DIR")]
        dir: PathBuf,
        /// Print the progress as JSON events, one object per line (`start`, `component`,
        /// `commit`, then `end` or `failed`).
        #[arg(long)]
        json: bool,
    },
    /// Print the loop's iteration, status and history, from git.
    Status {
        /// The codebase: a git working tree, with the loop's files in DIR/loop-run/.
        #[arg(default_value = ".", value_name = "DIR")]
        dir: PathBuf,
    },
    /// The person acting as the actuator has finished editing: sense, commit, continue.
    Done {
        /// The codebase: a git working tree, with the loop's files in DIR/loop-run/.
        #[arg(default_value = ".", value_name = "DIR")]
        dir: PathBuf,
        /// Print the progress as JSON events, one object per line.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: Args, hub: Option<&Path>) -> anyhow::Result<ExitCode> {
    match args.action {
        Action::Init { dir } => {
            let path = cn_loops::init(&dir).map_err(report)?;
            println!("wrote {}", path.display());
            println!("edit it (sensors, controller, actuator), then: cn loop run {}", dir.display());
            Ok(ExitCode::SUCCESS)
        }
        Action::Run { dir, json } => drive(&dir, hub, false, json),
        Action::Done { dir, json } => drive(&dir, hub, true, json),
        Action::Status { dir } => {
            let st = cn_loops::status(&dir).map_err(report)?;
            print!("{}", super::shown(&st.to_string()));
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn drive(dir: &Path, hub: Option<&Path>, done: bool, json: bool) -> anyhow::Result<ExitCode> {
    let read = |root: &Path| {
        cn_hub::HubConfig::load(&cn_hub::Layout::new(root).config()).map_err(|e| UsageError(cn_compute::chain(&e)))
    };
    // With --hub, its cn.yaml is read once and gives both the loop defaults and the models.
    let given = hub.map(read).transpose()?;
    let defaults = match &given {
        Some(config) => Defaults::of(&config.loops),
        None => Defaults::load(dir, None).map_err(report)?,
    };
    // `model: local | executive` components ask the hub's configured models (cn.yaml), or
    // the defaults (the embedded local model) when the loop runs outside any hub.
    let root = hub.map(Path::to_path_buf).or_else(|| cn_hub::find_hub(None).ok());
    if let Some(r) = &root {
        cn_loops::config_is_committed(dir, &cn_hub::Layout::new(r).config()).map_err(report)?;
    }
    let config = match (given, &root) {
        (Some(config), _) => config,
        (None, Some(r)) => read(r)?,
        (None, None) => cn_hub::HubConfig::default(),
    };
    // A loop's controller is an executive session of its hub while the loop runs: the daemon
    // on the hub does no autonomous executive work meanwhile (cn_models::session).
    let _session =
        root.as_ref().and_then(|r| cn_models::Sessions::in_state(&cn_hub::Layout::new(r).state()).begin("loop").ok());
    // Its components never read that hub's secrets, wherever the loop's tree lies.
    let mut defaults = defaults;
    defaults.hub = root.clone().or(defaults.hub);
    let base = root.unwrap_or_else(|| dir.to_path_buf());
    let mut models = |role: &'static str, kind: &str| -> Result<Box<dyn cn_compute::Model>, cn_loops::BoxError> {
        // A local controller judges under a grammar (cn_loops::controller::GRAMMAR); only
        // the embedded model honors one, and a small model's free text rarely starts with
        // `target-met`: refuse the others before anything runs.
        let local = config.models.local();
        if role == "controller" && kind == "local" && local.provider != Some(cn_hub::config::ProviderKind::Embedded) {
            let provider = local.provider.map(|p| format!("{p:?}").to_lowercase()).unwrap_or_default();
            return Err(format!(
                "models.local is the `{provider}` provider, which cannot answer under the controller's grammar (`target-met`, then instructions); \
                 in loop-run/task.md set `controller: {{model: executive}}` or a `controller: {{command: \"…\"}}` that writes controller-output.md, \
                 or use the embedded model (`models.local: {{provider: embedded}}` in cn.yaml)"
            )
            .into());
        }
        Ok(cn_models::model_of(&config.models, &config.budget, &base, kind)?)
    };
    // Each event as it happens: a line for people (the end is the outcome line below), or
    // one JSON object per line.
    let print = move |e: &Event| {
        if json {
            println!("{}", serde_json::to_string(e).unwrap_or_default());
        } else if !matches!(e, Event::End { .. } | Event::Failed { .. }) {
            println!("{}", super::shown(&e.to_string()));
        }
    };
    let outcome = cn_loops::run_with(dir, &defaults, &mut models, done, print).map_err(report)?;
    Ok(print_outcome(dir, &outcome, json))
}

fn print_outcome(dir: &Path, o: &RunEnd, json: bool) -> ExitCode {
    if let Some(n) = o.resumed_at {
        eprintln!(
            "cn: resumed iteration {n}: kept the interrupted run's uncommitted changes ({}); they are in its commit",
            super::shown_line(&o.recovered.join(", "))
        );
    }
    if json {
        // The `end` event said it; the exit code says the same as below.
        return match (o.status, o.nothing_to_do) {
            (_, true) => ExitCode::from(3),
            (Status::Complete | Status::WaitingForActuator, false) => ExitCode::SUCCESS,
            _ => ExitCode::from(1),
        };
    }
    let d = dir.display();
    match (o.status, o.nothing_to_do) {
        (Status::WaitingForActuator, true) => {
            println!("iteration {}: still waiting for the actuator; edit, then `cn loop done {d}`", o.iteration);
            ExitCode::from(3)
        }
        (status, true) => {
            println!("iteration {}: {status}; the loop has ended, nothing to do", o.iteration);
            ExitCode::from(3)
        }
        (Status::Complete, false) => {
            println!("iteration {}: complete — the target is met", o.iteration);
            ExitCode::SUCCESS
        }
        (Status::WaitingForActuator, false) => {
            println!(
                "iteration {}: waiting-for-actuator — follow {d}/loop-run/controller-output.md, edit, then `cn loop done {d}`",
                o.iteration
            );
            ExitCode::SUCCESS
        }
        (status, false) => {
            println!("iteration {}: {status} — the target is not met", o.iteration);
            ExitCode::from(1)
        }
    }
}

/// Bad input is a usage error (exit 2); the rest fails with context.
fn report(e: LoopError) -> anyhow::Error {
    if e.is_input() {
        anyhow::Error::new(UsageError(cn_compute::chain(&e)))
    } else {
        anyhow::Error::new(e).context("loop")
    }
}
