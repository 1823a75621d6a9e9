//! `cn run` — the agent: the compute loop with `decide` = attention over the hub's percepts,
//! inbox items and impulses (`cn_autonomy::HubMind`). Each move plans at the level the
//! configuration and the thinking budget allow, asks, parses and acts; an item stays current
//! until a GTD op decides it. As a daemon (no `--once` / `--until-idle`) it also starts the
//! senses and the hub watcher and rests on attention. SIGINT or SIGTERM lets the current act
//! finish, flushes and exits 0.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::process::ExitCode;
use std::sync::atomic::Ordering;

use anyhow::Context;
use cn_autonomy::{HubMind, LevelPlan, RunMode};
use cn_compute::{Inputs, Parts, StopToken};

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
    let config = cn_compute::Config::load(&config_path).map_err(|e| super::UsageError(e.to_string()))?;
    let autonomy = cn_autonomy::AutonomyConfig::load(&root).map_err(|e| super::UsageError(e.to_string()))?;

    // One agent per hub: attention's spool and the current item are this process's.
    let Some(_running) = cn_storage::ProcessLock::try_acquire(&run_lock(&root))? else {
        return Err(super::UsageError(format!(
            "another `cn run` is working on {} (it holds {}); stop it first, or talk to it with `cn chat`",
            root.display(),
            run_lock(&root).display()
        ))
        .into());
    };

    let tiered = cn_models::from_config(&config, &root).map_err(|e| super::UsageError(format!("cn.yaml: {e}")))?;
    let models = cn_models::ModelsConfig::from_config(&config).map_err(|e| super::UsageError(format!("cn.yaml: {e}")))?;
    let policy = cn_tools::Policy::from_config(config.get("policy")).map_err(|e| super::UsageError(e.to_string()))?;
    let mut ctx = cn_tools::ToolContext::new(&root);
    ctx.hub = Some(root.clone());
    ctx.policy = policy;
    let mut registry = cn_tools::Registry::new(ctx);
    cn_agent::register_ops(&mut registry, &hub);
    registry.register(cn_autonomy::notes::note_write_tool());

    let reflexes = match cn_reflex::Engine::load(&root) {
        Ok(mut engine) => {
            for e in engine.errors() {
                eprintln!("cn run: reflex skipped: {e}");
            }
            match cn_models::provider(&models.local(), "models.local", &root) {
                Ok(m) => engine.set_model(m),
                Err(e) => eprintln!("cn run: reflexes have no level-2 model: {e}"),
            }
            // The agent's own state tools come from the reflex engine: the same code writes
            // tasks and ideas whether a reflex or the executive asks.
            for name in ["add_task", "add_idea", "read_file"] {
                if let Some(tool) = engine.registry().get(name) {
                    registry.register(tool.clone());
                }
            }
            let engine = Arc::new(Mutex::new(engine));
            registry.register(cn_reflex::reflex_write_tool(engine.clone()));
            Some(engine)
        }
        Err(e) => {
            eprintln!("cn run: reflexes off: {e}");
            None
        }
    };
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
    let (auto, restored) = cn_autonomy::Autonomous::open(&root, &autonomy).with_context(|| format!("cannot open {}", root.join("state").display()))?;
    if restored > 0 {
        tracing::info!(restored, "percepts and impulses restored from state/attention.jsonl");
    }
    let attention = auto.attention.clone();
    let pacing = auto.pacing;
    let mut mind = HubMind::new(hub, auto, mode, stop.clone(), local, executive).max_moves(args.max_moves);
    if let Some(engine) = reflexes {
        mind = mind.with_reflexes(engine);
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
    // The daemon senses the world and rests on attention: a percept, a changed inbox or
    // impulse file, the next due time or a stop ends a rest at once.
    let mut _senses = None;
    let mut _watch = None;
    if mode == RunMode::Daemon {
        let senses = cn_autonomy::Senses::start(&root, &autonomy.senses, attention.clone()).map_err(|e| super::UsageError(e.to_string()))?;
        if let Some(discord) = senses.discord() {
            mind = mind.with_presence(Box::new(cn_autonomy::senses::discord::DiscordPresence::new(discord)));
        }
        if let Some(addr) = senses.local_addr() {
            eprintln!("cn run: listening on http://{addr} (owner: POST {})", cn_autonomy::senses::OWNER_PATH);
            write_run_info(&root, Some(addr));
        } else {
            write_run_info(&root, None);
        }
        _senses = Some(senses);
        _watch = Some(cn_autonomy::senses::hub::watch(&root, attention.clone()).map_err(|e| super::UsageError(e.to_string()))?);
        let idle_attention = attention.clone();
        decorators.push(cn_autonomy::rest_decorator(attention, pacing, stop.clone()));
        // Idle, the resident set is what the idle loop touches (see `resident`).
        decorators.push(crate::resident::release_when_idle(move || !idle_attention.active_within(pacing.idle), handled.clone()));
    }
    let inputs = Inputs {
        workdir: root.clone(),
        config: Some(config.into()),
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
    drop(_senses);
    let handled = handled.load(Ordering::Relaxed);
    eprintln!("cn run: {} move(s), {handled} item(s) decided", state.moves);
    if mode == RunMode::Once && handled == 0 {
        eprintln!("cn run: nothing to do (the queue is empty)");
        return Ok(ExitCode::from(3));
    }
    Ok(ExitCode::SUCCESS)
}

/// The daemon's lock: held by the one `cn run` working on a hub.
pub fn run_lock(hub: &Path) -> PathBuf {
    hub.join("state/run.lock")
}

/// `state/run.json`: who is running and where its owner endpoint listens (for `cn chat`).
fn write_run_info(hub: &Path, addr: Option<std::net::SocketAddr>) {
    let info = serde_json::json!({
        "pid": std::process::id(),
        "started": cn_storage::now_rfc3339(),
        "owner_url": addr.map(|a| format!("http://{a}{}", cn_autonomy::senses::OWNER_PATH)),
    });
    if let Err(e) = cn_storage::write_json_atomic(&hub.join("state/run.json"), &info) {
        tracing::warn!(%e, "cannot write state/run.json");
    }
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
