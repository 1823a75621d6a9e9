//! `cn run` — the agent: the compute loop over the hub's items. Each move plans at the level
//! the configuration and the thinking budget allow, asks, parses and acts; an item stays
//! current until a GTD op decides it. SIGINT or SIGTERM lets the current act finish, flushes
//! and exits 0.

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::Context;
use cn_autonomy::{HubMind, LevelPlan, RunMode};
use cn_compute::{Decorator, Inputs, Parts, StopToken};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Handle one item, then exit (for system cron). Exit 3 when there was none.
    #[arg(long, conflicts_with = "until_idle")]
    pub once: bool,
    /// Handle items until the queue is empty, then exit.
    #[arg(long)]
    pub until_idle: bool,
    /// Moves allowed on one item before it is deferred with the reason.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub max_moves: u32,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = cn_agent::Hub::find(hub).context("cn run needs a hub")?;
    let root = hub.root().to_path_buf();
    let config_path = root.join("cn.yaml");
    let config = cn_compute::Config::load(&config_path).map_err(super::UsageError)?;

    let tiered = cn_models::from_config(&config, &root).map_err(|e| super::UsageError(format!("cn.yaml: {e}")))?;
    let models = cn_models::ModelsConfig::from_config(&config).map_err(|e| super::UsageError(format!("cn.yaml: {e}")))?;
    let policy = cn_tools::Policy::from_config(config.get("policy")).map_err(super::UsageError)?;
    let mut ctx = cn_tools::ToolContext::new(&root);
    ctx.hub = Some(root.clone());
    ctx.policy = policy;
    let mut registry = cn_tools::Registry::new(ctx);
    cn_agent::register_ops(&mut registry, &hub);
    let level = |l: u8| LevelPlan {
        level: l,
        docs: registry.docs_for(l).into_iter().cloned().collect(),
        limits: cn_models::level_limits(&models, l),
    };
    let local = level(2);
    let executive_configured = tiered.has(3);
    let executive = executive_configured.then(|| level(3));

    let stop = StopToken::new();
    stop_on_signals(&stop)?;
    let mode = match (args.once, args.until_idle) {
        (true, _) => RunMode::Once,
        (_, true) => RunMode::UntilIdle,
        _ => RunMode::Daemon,
    };
    let mut mind = HubMind::new(hub, mode, stop.clone(), local, executive).max_moves(args.max_moves);
    match cn_reflex::Engine::load(&root) {
        Ok(mut engine) => {
            for e in engine.errors() {
                eprintln!("cn run: reflex skipped: {e}");
            }
            match cn_models::provider(&models.local(), "models.local", &root) {
                Ok(m) => engine.set_model(m),
                Err(e) => eprintln!("cn run: reflexes have no level-2 model: {e}"),
            }
            mind = mind.with_reflexes(engine);
        }
        Err(e) => eprintln!("cn run: reflexes off: {e}"),
    }
    let handled = mind.handled();
    let mut decorators = Vec::new();
    if executive_configured {
        // The thinking budget wraps ask: the executive runs only when its admission rule
        // allows, else the plan falls back to the local level or the item is deferred.
        let budget = cn_models::open_budget(&config, &root).map_err(|e| super::UsageError(format!("cn.yaml: {e}")))?;
        let for_mind = budget.clone();
        mind = mind.executive_allowed(move |owner| {
            owner || for_mind.lock().map(|mut b| b.can_do_autonomous_work()).unwrap_or(false)
        });
        decorators.push(cn_models::Budget::decorator(budget));
    }
    if mode == RunMode::Daemon {
        decorators.push(Decorator::pacing(Duration::from_secs(5), stop.clone()));
    }
    let inputs = Inputs {
        workdir: root.clone(),
        config: Some(config_path),
        parts: Parts {
            mind: Box::new(mind),
            model: Box::new(tiered),
            tools: Box::new(registry),
            store: Box::new(cn_storage::JournalStore::open(&root.join("state"))?),
        },
        decorators,
        stop,
        outcome_capacity: 64,
    };
    let state = cn_compute::begin(inputs)?;
    let handled = handled.load(Ordering::Relaxed);
    eprintln!("cn run: {} move(s), {handled} item(s) decided", state.moves);
    if mode == RunMode::Once && handled == 0 {
        eprintln!("cn run: nothing to do (the queue is empty)");
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::SUCCESS)
}

/// SIGINT / SIGTERM ask the loop to stop after the current act; a second one exits at once.
pub fn stop_on_signals(stop: &StopToken) -> anyhow::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]).context("cannot install signal handlers")?;
    let stop = stop.clone();
    std::thread::Builder::new().name("signals".into()).spawn(move || {
        let mut seen = 0;
        for _ in signals.forever() {
            seen += 1;
            if seen > 1 {
                std::process::exit(130);
            }
            stop.stop();
        }
    })?;
    Ok(())
}
