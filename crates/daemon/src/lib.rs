//! cn-daemon — the agent as a library call: [`run`] assembles everything `cn run` needs
//! around one hub and runs the compute loop until the mode says stop (as mini-redis's
//! `server::run`: the binary parses flags, calls it, and maps the [`RunReport`] to an exit
//! code).
//!
//! The assembly: the configuration ([`load_config`]), the run lock (`state/run.lock`: one
//! agent per hub), the tool registry (the GTD ops, `note_write`, the reflex engine's state
//! tools and `reflex_write`), the reflex engine and its level-2 model, the models per level,
//! the thinking budget's `ask` decorator, and [`HubMind`] (attention over percepts, inbox
//! items and impulses). As a daemon ([`RunMode::Daemon`]) it also starts the senses and the
//! hub watcher, answers on their channels, writes `state/run.json`, rests on attention, and
//! releases idle code pages ([`resident`]) and keeps the hub repository packed ([`upkeep`]).
//!
//! Invariants: the run lock is held for the whole run and released when it returns; the
//! senses stop before `run` returns; a stop (the caller's [`StopToken`]) lets the current
//! act finish and ends a rest at once.

pub mod approve;
pub mod config;
pub mod context;
pub mod economy;
pub mod fleet;
pub mod follow;
pub mod journal;
pub mod mind;
pub mod otel;
pub mod reflection;
pub mod remind;
pub mod replica;
pub mod resident;
pub mod serve;
pub mod upkeep;
pub mod vet;
pub mod working;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use cn_autonomy::senses::{hub::HubWatcher, SenseError, Senses};
use cn_compute::{Inputs, Parts};

pub use cn_compute::StopToken;
pub use config::{sections, ConfigError, DaemonConfig};
pub use mind::{HubMind, LevelPlan, RunMode};

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// One item, until idle, or until stopped.
    pub mode: RunMode,
    /// Moves allowed on one item before it is deferred with the reason.
    pub max_moves: u32,
    /// Called once the daemon's senses listen (their HTTP address, if any), before the loop
    /// starts: the binary tells the person where the owner endpoint is.
    pub on_listening: Option<fn(Option<SocketAddr>)>,
    /// Called with the control room's address (without the token: stderr may end in a log;
    /// `cn serve` prints it with the token) when `serve:` starts it.
    pub on_serving: Option<fn(&str)>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { mode: RunMode::Daemon, max_moves: 4, on_listening: None, on_serving: None }
    }
}

/// What a run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunReport {
    pub mode: RunMode,
    /// Moves the loop made.
    pub moves: u64,
    /// Items decided.
    pub decided: u64,
    /// Where the owner endpoint listened (daemon mode with the endpoint on).
    pub listening: Option<SocketAddr>,
}

impl RunReport {
    /// `--once` found nothing to decide (the queue was empty).
    pub fn nothing_to_do(&self) -> bool {
        self.mode == RunMode::Once && self.decided == 0
    }
}

/// Why a run could not start or ended early.
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("another `cn run` is working on {} (it holds {}); stop it first, or talk to it with `cn chat`", root.display(), lock.display())]
    Busy { root: PathBuf, lock: PathBuf },
    #[error("cannot take the run lock {}", path.display())]
    Lock { path: PathBuf, source: std::io::Error },
    #[error("cannot open {}", path.display())]
    State { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Senses(#[from] SenseError),
    #[error(transparent)]
    Serve(#[from] serve::ServeError),
    #[error(transparent)]
    Prepare(#[from] cn_compute::PrepareError),
    /// `otel:` cannot start (a header's variable is not set).
    #[error("cn.yaml {0}")]
    Telemetry(otel::OtelError),
    /// The hub's origin (cn.yaml `origin:`) cannot be used.
    #[error(transparent)]
    Origin(cn_lease::LeaseError),
    /// `--once` / `--until-idle` on a clone that does not hold the hub's lease (why).
    #[error("this clone is a standby: {0}; run it where the lease is held, or as a daemon to take over when it ends")]
    Standby(String),
}

impl DaemonError {
    /// The hub or its configuration is at fault (the binary's exit code 2), not the run.
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            DaemonError::Config(_)
                | DaemonError::Busy { .. }
                | DaemonError::Senses(_)
                | DaemonError::Serve(_)
                | DaemonError::Telemetry(_)
                | DaemonError::Standby(_)
        )
    }
}

/// The daemon's lock: held by the one `cn run` working on a hub.
pub fn run_lock(hub: &Path) -> PathBuf {
    cn_hub::Layout::new(hub).run_lock()
}

/// The run lock, or `None` while a daemon holds it. A daemon that was killed does not hold
/// it, yet the lock can be busy for a moment after: a child it forked that has not reached
/// `exec` yet, or a `cn chat`/`cn input` probing whether a daemon runs (the probe takes the
/// lock for an instant). So when the pid `state/run.json` names is gone, the lock is tried
/// again for a bounded time; a live daemon is refused at once.
fn take_run_lock(root: &Path, lock: &Path) -> Result<Option<cn_storage::ProcessLock>, DaemonError> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let taken = cn_storage::ProcessLock::try_acquire(lock)
            .map_err(|source| DaemonError::Lock { path: lock.to_path_buf(), source })?;
        if taken.is_some() || daemon_alive(root) || std::time::Instant::now() >= deadline {
            return Ok(taken);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether the process `state/run.json` names still runs (no file, no pid: not known alive).
fn daemon_alive(root: &Path) -> bool {
    let pid = std::fs::read_to_string(run_info(root))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["pid"].as_u64())
        .and_then(|p| i32::try_from(p).ok());
    // SAFETY: signal 0 only asks whether the process exists; it sends nothing.
    pid.is_some_and(|pid| pid > 0 && pid as u32 != std::process::id() && unsafe { libc::kill(pid, 0) } == 0)
}

/// `state/run.json`: who runs on the hub and where its owner endpoint listens.
pub fn run_info(hub: &Path) -> PathBuf {
    cn_hub::Layout::new(hub).run_info()
}

/// The owner endpoint of the daemon running on `hub`, if one runs (what `cn chat` posts to).
pub fn owner_url(hub: &Path) -> Option<String> {
    if !cn_storage::ProcessLock::is_held(&run_lock(hub)) {
        return None;
    }
    let info: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run_info(hub)).ok()?).ok()?;
    info["owner_url"].as_str().map(str::to_string)
}

/// The control room the daemon running on `hub` serves (without the token), if one does.
pub fn control_url(hub: &Path) -> Option<String> {
    if !cn_storage::ProcessLock::is_held(&run_lock(hub)) {
        return None;
    }
    let info: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(run_info(hub)).ok()?).ok()?;
    info["control_url"].as_str().map(str::to_string)
}

/// Everything `cn run` requires of cn.yaml before it starts anything, checked the same way
/// when a changed cn.yaml is taken by a running daemon ([`follow`]): every section parses
/// (done when the hub was opened), the models can be built (an API key's variable is set),
/// the budget's ledger opens, `otel:` has its headers — and, for the daemon, which starts
/// them, every sense has its secrets and settings and the control room may listen where
/// `serve:` says (`--once` and `--until-idle` start neither).
pub fn check(hub: &cn_agent::Hub, mode: RunMode) -> Result<(), DaemonError> {
    let config = sections(hub)?;
    if config.tiered.has(3) {
        cn_models::budget_of(&hub.config().budget, &config.models, hub.root())?;
    }
    if let Some(otel) = &hub.config().otel {
        otel::check(otel).map_err(DaemonError::Telemetry)?;
    }
    if mode == RunMode::Daemon {
        cn_autonomy::senses::configured(hub, &config.autonomy.senses)?;
        if let Some(serve_config) = &hub.config().serve {
            serve::check(serve_config)?;
        }
    }
    Ok(())
}

/// Open the hub at `root` again and [`check`] it: what a changed cn.yaml must pass before a
/// running daemon takes it. The error is the chain, as the owner reads it.
fn reopen(root: &Path) -> Result<cn_agent::Hub, String> {
    let hub = cn_agent::Hub::open(root).map_err(|e| cn_compute::chain(&e))?;
    check(&hub, RunMode::Daemon).map_err(|e| cn_compute::chain(&e))?;
    Ok(hub)
}

/// Run the agent on `hub` until `options.mode` says stop, or `stop` is set.
///
/// As a daemon it follows cn.yaml ([`follow`]): a change that passes [`check`] ends the
/// current run of the kernel between two items, and everything is assembled again from the
/// new config — on the same attention (nothing waiting is lost), the same run lock, the same
/// control room when `serve:` did not change. A new config that passes the check but still
/// cannot start (its port is taken) is refused like a bad edit, and the last one runs again.
pub fn run(hub: cn_agent::Hub, options: RunOptions, stop: StopToken) -> Result<RunReport, DaemonError> {
    let root = hub.root().to_path_buf();
    check(&hub, options.mode)?;

    // One agent per hub: attention's spool and the current item are this process's.
    let lock = run_lock(&root);
    let Some(_running) = take_run_lock(&root, &lock)? else {
        return Err(DaemonError::Busy { root, lock });
    };

    // cn.yaml `origin:`: the hub kept in origin; leased, one active daemon among its clones.
    match cn_lease::Upstream::of(&hub).map_err(DaemonError::Origin)? {
        Some(upstream) if upstream.lease().is_some() => fleet::run(hub, options, stop, upstream),
        Some(upstream) => {
            let replica = Arc::new(replica::Replica::start(upstream, StopToken::new()));
            let report = active(hub, options, stop, Some(replica.clone()));
            if let Ok(r) = Arc::try_unwrap(replica) {
                r.finish();
            }
            report
        }
        None => active(hub, options, stop, None),
    }
}

/// The agent at work on `hub` (its run lock held by the caller): the registry, the models,
/// the mind, the senses and the loop, following cn.yaml as a daemon, until `stop`. With
/// `replica`, the hub's commits go to origin (and leased, the mind writes through at item
/// boundaries); it outlives a reload of cn.yaml (the origin it pushes to is the one the
/// daemon started with).
pub(crate) fn active(
    hub: cn_agent::Hub,
    options: RunOptions,
    stop: StopToken,
    replica: Option<Arc<replica::Replica>>,
) -> Result<RunReport, DaemonError> {
    let root = hub.root().to_path_buf();
    // A journal due for rotation (cn.yaml `journal:`) rotates as the daemon starts, and after
    // each decision (`cn_agent::decide`).
    if let Err(err) = cn_hub::journal::HubJournal::rotate_if_due(&hub.layout().state(), &hub.config().journal) {
        tracing::warn!(err = %cn_compute::Chain(&err), "cannot rotate the journal");
    }
    // A hub made by an older cn learns the runtime files this one writes, so no decision's
    // commit takes them in.
    if let Err(err) = cn_agent::ensure_gitignore(&root) {
        tracing::warn!(err = %cn_compute::Chain(&err), "cannot complete .gitignore");
    }
    let mode = options.mode;
    let state_dir = hub.layout().state();
    let (first, restored) = cn_autonomy::AutonomousLoop::open(&hub, &cn_autonomy::AutonomyConfig::of(hub.config()))
        .map_err(|source| DaemonError::State { path: state_dir.clone(), source })?;
    if restored > 0 {
        tracing::info!(restored, "percepts and impulses restored from state/attention.jsonl");
    }
    let attention = first.attention.clone();
    // Leased: what the senses admit goes to origin before they acknowledge it.
    if let Some(r) = &replica {
        r.carry(&attention);
    }
    let mut carried = Carried { replica, ..Carried::default() };
    // Only the daemon follows cn.yaml; `--once` and `--until-idle` run one config.
    let this_run = if mode == RunMode::Daemon {
        let current = Arc::new(Mutex::new(StopToken::new()));
        bridge_stop(stop.clone(), attention.clone(), current.clone());
        match follow::Watch::start(&hub, attention.clone()) {
            Ok(w) => carried.watch = Some(Arc::new(w)),
            Err(e) => {
                tracing::warn!(e = %cn_compute::Chain(&e), "cannot watch cn.yaml: the daemon runs on the config it started with")
            }
        }
        Some(current)
    } else {
        None
    };

    let mut report = RunReport { mode, moves: 0, decided: 0, listening: None };
    let mut hub = hub;
    let mut auto = Some(first);
    let mut last_good: Option<cn_agent::Hub> = None;
    loop {
        let run_stop = match &this_run {
            Some(current) => {
                let token = StopToken::new();
                *current.lock().unwrap_or_else(|p| p.into_inner()) = token.clone();
                if stop.is_stopped() {
                    break;
                }
                token
            }
            None => stop.clone(),
        };
        let auto = match auto.take() {
            Some(a) => a,
            None => cn_autonomy::AutonomousLoop::with_attention(
                &hub,
                &cn_autonomy::AutonomyConfig::of(hub.config()),
                attention.clone(),
            )
            .map_err(|source| DaemonError::State { path: state_dir.clone(), source })?,
        };
        let next: follow::Next = Arc::default();
        let snapshot = follow::Snapshot::of(&hub);
        match run_config(&snapshot, auto, &options, run_stop, &mut carried, next.clone()) {
            Ok(ran) => {
                report.moves += ran.moves;
                report.decided += ran.decided;
                report.listening = report.listening.or(ran.listening);
            }
            Err(e) => match last_good.take() {
                // The new config passed the check but did not start: refused, the last runs.
                Some(previous) => {
                    carried.refused(&hub, &cn_compute::chain(&e));
                    hub = previous;
                    continue;
                }
                None => return Err(e),
            },
        }
        let taken = next.lock().unwrap_or_else(|p| p.into_inner()).take();
        let Some(new) = taken.filter(|_| !stop.is_stopped()) else { break };
        carried.reloaded(&snapshot, &new);
        last_good = Some(std::mem::replace(&mut hub, new));
    }
    if let Some(r) = &carried.replica {
        r.end_carry();
    }
    carried.stop();
    Ok(report)
}

/// Stop the daemon's current run of the kernel and its attention when `stop` is set (a
/// signal): a thread asleep on the token, one per daemon.
fn bridge_stop(stop: StopToken, attention: cn_autonomy::Attention, current: Arc<Mutex<StopToken>>) {
    let spawned = std::thread::Builder::new().name("cn-stop-bridge".into()).spawn(move || {
        // Wake rarely (once an hour) just to re-arm; stop itself wakes it at once.
        while !stop.wait(std::time::Duration::from_secs(3600)) {}
        current.lock().unwrap_or_else(|p| p.into_inner()).stop();
        attention.stop();
    });
    if let Err(e) = spawned {
        tracing::error!(e = %cn_compute::Chain(&e), "cannot start the stop bridge; rests will end only by timeout or percept");
    }
}

/// What outlives one config of the daemon: the cn.yaml watcher, the control room (while
/// `serve:` stays the same), the addresses the senses bound, and what `state/run.json` says.
#[derive(Default)]
struct Carried {
    watch: Option<Arc<follow::Watch>>,
    control: Option<(cn_hub::config::ServeConfig, serve::Server)>,
    /// The senses' configured address and the one it bound (port 0 keeps its port).
    senses_bind: Option<(SocketAddr, SocketAddr)>,
    info: Arc<Mutex<RunInfo>>,
    /// The sections a reload changed, journaled once the new config runs.
    reload: Option<Vec<String>>,
    /// The pusher to origin (cn.yaml `origin:`), when the hub has one.
    replica: Option<Arc<replica::Replica>>,
}

impl Carried {
    /// A new config passed: once its senses listen, the banner goes and the journal says so
    /// ([`Carried::running`]).
    fn reloaded(&mut self, old: &follow::Snapshot, new: &cn_agent::Hub) {
        let sections = old.changed_sections(new);
        tracing::info!(?sections, "cn.yaml changed: the daemon runs on the new config");
        self.reload = Some(sections);
    }

    /// The config runs (its senses listen): `state/run.json` says where, and — after a reload
    /// — the journal says so (in that order: the page reads `state/run.json` when the
    /// journal grows, and `cn chat` reads it to post).
    fn running(&mut self, hub: &cn_agent::Hub, owner_url: Option<String>) {
        let reload = self.reload.take();
        {
            let mut info = self.info.lock().unwrap_or_else(|p| p.into_inner());
            info.owner_url = owner_url;
            info.control_url = self.control.as_ref().map(|(_, s)| s.base_url());
            if reload.is_some() {
                info.config_error = None;
            }
            info.write(hub.root());
        }
        if let Some(sections) = reload {
            // `peers` alone: `cn peer add|rm` changed state/peers.json, not cn.yaml.
            let summary = if sections == ["peers"] {
                "the peers changed (state/peers.json): now syncing with them".to_string()
            } else {
                format!("cn.yaml changed: now running on it ({})", sections.join(", "))
            };
            let entry = journal::ConfigChanged {
                id: cn_hub::id::prefixed("config"),
                summary,
                sections: Some(&sections),
                error: None,
                outcome: "senses, models and reflexes started again on the new config",
            };
            journal(hub, &entry);
        }
    }

    /// A changed cn.yaml the daemon cannot run: the log, the journal and the banner say why.
    fn refused(&self, hub: &cn_agent::Hub, why: &str) {
        refuse(hub, &self.info, why);
    }

    fn stop(&mut self) {
        self.control = None;
        self.watch = None;
    }
}

/// Tell the owner that a changed cn.yaml was refused, and why: a log line, a journal entry,
/// and `config_error` in `state/run.json` (the control room's banner).
fn refuse(hub: &cn_agent::Hub, info: &Mutex<RunInfo>, why: &str) {
    tracing::error!(error = %why, "cn.yaml changed but cannot be used; the daemon keeps the config it runs");
    // run.json first: the page reads it when the journal grows.
    {
        let mut info = info.lock().unwrap_or_else(|p| p.into_inner());
        info.config_error = Some(why.to_string());
        info.write(hub.root());
    }
    let entry = journal::ConfigChanged {
        id: cn_hub::id::prefixed("config"),
        summary: format!("cn.yaml edit refused: {why}"),
        sections: None,
        error: Some(why),
        outcome: "the daemon keeps running on the config it had; fix cn.yaml and save it again",
    };
    journal(hub, &entry);
}

/// cn.yaml says again what the daemon runs: a refusal is over (the banner goes).
fn undone(hub: &cn_agent::Hub, info: &Mutex<RunInfo>) {
    let mut info = info.lock().unwrap_or_else(|p| p.into_inner());
    if info.config_error.take().is_some() {
        info.write(hub.root());
        let entry = journal::ConfigChanged {
            id: cn_hub::id::prefixed("config"),
            summary: "cn.yaml is back to the config the daemon runs".into(),
            sections: None,
            error: None,
            outcome: "nothing to change",
        };
        journal(hub, &entry);
    }
}

fn journal<T: cn_storage::Typed>(hub: &cn_agent::Hub, entry: &T) {
    if let Err(e) = hub.journal().and_then(|mut j| j.write(entry)) {
        tracing::warn!(e = %cn_compute::Chain(&e), "cannot write the journal");
    }
}

/// What one config's run of the kernel did.
struct Ran {
    moves: u64,
    decided: u64,
    listening: Option<SocketAddr>,
}

/// Assemble the daemon from `hub`'s config and run the kernel until `run_stop` (a stop, or a
/// changed cn.yaml that passed, put in `next`).
fn run_config(
    snapshot: &follow::Snapshot,
    auto: cn_autonomy::AutonomousLoop,
    options: &RunOptions,
    run_stop: StopToken,
    carried: &mut Carried,
    next: follow::Next,
) -> Result<Ran, DaemonError> {
    let hub = &snapshot.hub;
    let root = hub.root().to_path_buf();
    let config = sections(hub)?;
    let DaemonConfig { autonomy, models, tiered, policy } = config;
    let budget_config = hub.config().budget.clone();
    // `otel:`: traces exported in the background; stopped (its last batch sent) at the end.
    let telemetry = match &hub.config().otel {
        Some(otel) => {
            let agent = hub.config().name.clone().unwrap_or_else(|| "cn".into());
            Some(FlushOnDrop(otel::Telemetry::start(otel, &agent, &models).map_err(DaemonError::Telemetry)?))
        }
        None => None,
    };
    let mut ctx = cn_tools::ToolContext::new(&root);
    ctx.hub = Some(root.clone());
    ctx.policy = policy;
    let mut registry = cn_tools::Registry::new(ctx);
    // Every decision made in this process, as its decider returned it: the mind keeps them.
    let decisions = cn_agent::Decisions::default();
    cn_agent::register_ops(&mut registry, hub, &decisions);
    let reflexes = reflexes(hub, &models, &mut registry, options.mode);
    // MCP servers' tools (`mcp:`): they join the registry as `server.tool` once their
    // server answers (started in the background: a server that hangs delays nothing), and
    // serve the reflexes' `mcp` action.
    let _mcp = mcp_clients(hub, &registry, reflexes.as_ref()).map(CloseMcp);

    let level = |l: u8| LevelPlan {
        level: l,
        docs: registry.docs_for(l).into_iter().cloned().collect(),
        limits: cn_models::level_limits(&models, l),
        late: registry.late(),
        policy: registry.ctx.policy.clone(),
    };
    let local = level(2);
    let executive_configured = tiered.has(3);
    let executive = executive_configured.then(|| level(3));

    let mode = options.mode;
    let state_dir = hub.layout().state();
    let attention = auto.attention.clone();
    let pacing = auto.pacing;
    let local_decides = models.local().provider.is_some_and(|p| p != cn_models::ProviderKind::Embedded);
    let mut auto = auto;
    auto.impulses.set_explore(executive_configured || local_decides);
    // The senses and the vetted tools use the hub too (the mind takes this one).
    let vet_local = models.local().provider == Some(cn_models::ProviderKind::Embedded);
    let mut mind = HubMind::new(hub.clone(), auto, mode, run_stop.clone(), local, executive)
        .max_moves(options.max_moves)
        .with_decisions(decisions.clone())
        .with_working(registry.ctx.working.clone())
        // The embedded SmolLM2 classifies and extracts under a grammar; it never decides an
        // item itself. A level-2 model the owner configured (Ollama, an API, a command) may.
        .local_decides(local_decides);
    if let Some(engine) = reflexes {
        mind = mind.with_reflexes(engine);
    }
    if let Some(t) = &telemetry {
        mind = mind.with_telemetry(t.0.clone());
    }
    if let Some(r) = &carried.replica {
        mind = mind.with_replica(r.clone());
    }
    let handled = mind.handled();
    let mut decorators = Vec::new();
    if executive_configured {
        // The thinking budget wraps ask: the executive runs only when its admission rule
        // allows, else the plan falls back to the local level or the item is deferred.
        let budget = cn_models::budget_of(&budget_config, &models, &root)?;
        let for_mind = budget.clone();
        // No autonomous executive work while an executive session (an interactive `cn chat`,
        // a loop's controller, the owner's coding agent) runs: see cn_models::session.
        // The daemon's own command-provider calls announce sessions too; they are not another's.
        // The journal says when autonomous executive work stops for a session and resumes.
        let mut sessions = cn_models::Sessions::in_state(&state_dir);
        let mut deferring: Option<cn_models::Session> = None;
        let layout = hub.layout().clone();
        mind = mind.executive_allowed(move |owner| {
            let refused = |b: &cn_models::Budget, owner: bool| -> Result<(), mind::Refused> {
                b.check(owner, 0, cn_models::ledger::MIN_ANSWER_TOKENS).map_err(|r| mind::Refused {
                    until: Some(r.retry_at(&b.ledger().now())),
                    why: cn_agent::HandUp::Budget { refusal: r.to_string() },
                })
            };
            if owner {
                // The owner is never paced; only a spent cap refuses them.
                return for_mind.lock().map_err(|_| poisoned()).and_then(|b| refused(&b, true));
            }
            let me = std::process::id();
            let running = sessions.active().into_iter().find(|s| s.pid != me);
            let summary = match (&running, &deferring) {
                (Some(s), None) => Some(format!(
                    "no autonomous executive work: an executive session runs ({}, pid {}); autonomous items go to the local level",
                    s.what, s.pid
                )),
                (None, Some(s)) => Some(format!(
                    "the executive session ({}, pid {}) has ended: autonomous executive work resumes",
                    s.what, s.pid
                )),
                _ => None,
            };
            if let Some(summary) = summary {
                let entry = cn_hub::journal::Noted { summary: &summary, outcome: "budget: session check" };
                if let Err(e) = layout.open_journal().and_then(|mut j| j.write(&entry)) {
                    tracing::warn!(e = %cn_compute::Chain(&e), "cannot journal the session check");
                }
            }
            deferring = running;
            if let Some(s) = &deferring {
                tracing::info!(pid = s.pid, what = %s.what, "an executive session runs: no autonomous executive work");
                return Err(mind::Refused {
                    why: cn_agent::HandUp::Later,
                    until: Some(cn_storage::rfc3339_after(std::time::Duration::from_secs(600))),
                });
            }
            for_mind.lock().map_err(|_| poisoned()).and_then(|b| refused(&b, false))
        });
        decorators.push(cn_models::Budget::decorator(budget));
    }
    // What the model works on now, for `cn chat` while it waits (`state/working.json`).
    decorators.push(working::decorator(hub.layout().working()));
    // The daemon senses the world and rests on attention: a percept, a changed inbox or
    // impulse file, the next due time or a stop ends a rest at once.
    let mut senses = None;
    let mut listening = None;
    if mode == RunMode::Daemon {
        // Port 0 in cn.yaml: the port it bound last time, so `cn chat` and webhooks keep it.
        let mut senses_config = autonomy.senses.clone();
        if let Some((configured, bound)) = carried.senses_bind {
            if configured == senses_config.bind && configured.port() == 0 {
                senses_config.bind = bound;
            }
        }
        let mut all = cn_autonomy::senses::configured(hub, &senses_config)?;
        all.push(Box::new(HubWatcher));
        let mut started = Senses::start_all(hub, &senses_config, all, attention.clone())?;
        mind = mind.with_channels(started.take_channels());
        if let Some(discord) = started.discord() {
            mind = mind.with_reactor(Arc::new(move |channel, message, emoji| discord.react(channel, message, emoji)));
        }
        listening = started.local_addr();
        if let Some(addr) = listening {
            carried.senses_bind = Some((autonomy.senses.bind, addr));
        }
        if let Some(tell) = options.on_listening {
            tell(listening);
        }
        // `serve:` in cn.yaml: the control room runs inside the daemon, on its live pool —
        // kept (the same address, every page open on it) while `serve:` does not change.
        match (&hub.config().serve, carried.control.take()) {
            (Some(wanted), Some((had, server))) if *wanted == had => {
                server.set_hub(hub.clone());
                carried.control = Some((had, server));
            }
            (Some(wanted), old) => {
                drop(old);
                let server = serve::Server::start(hub.clone(), wanted, Some(attention.clone()))?;
                if let Some(tell) = options.on_serving {
                    tell(&server.base_url());
                }
                carried.control = Some((wanted.clone(), server));
            }
            (None, old) => drop(old),
        }
        carried.running(hub, listening.map(|a| format!("http://{a}{}", cn_autonomy::senses::OWNER_PATH)));
        senses = Some(started);
        decorators.push(cn_autonomy::rest::rest_on(attention.clone(), pacing));
        // Idle, the resident set is what the idle loop touches (see `resident`).
        let upkeep_attention = attention.clone();
        decorators.push(upkeep::maintain_repository(
            hub.git(),
            move || !upkeep_attention.active_within(pacing.idle),
            handled.clone(),
        ));
        let idle_attention = attention.clone();
        decorators
            .push(resident::release_when_idle(move || !idle_attention.active_within(pacing.idle), handled.clone()));
        // Outermost: a changed cn.yaml is taken at a rest, before anything else rests.
        if let Some(watch) = &carried.watch {
            let info = carried.info.clone();
            let told = Box::new(move |hub: &cn_agent::Hub, why: Option<&str>| match why {
                Some(why) => refuse(hub, &info, why),
                None => undone(hub, &info),
            });
            decorators.push(follow::decorator(
                watch.clone(),
                snapshot.clone(),
                attention.clone(),
                reopen,
                told,
                next,
                run_stop.clone(),
            ));
        }
    }
    let store = cn_storage::JournalStore::open(&state_dir)
        .map_err(|source| DaemonError::State { path: state_dir.clone(), source })?;
    let vet_hub = hub.clone();
    let inputs = Inputs {
        workdir: root.clone(),
        config: None,
        parts: Parts {
            mind: Box::new(mind),
            model: match &telemetry {
                Some(t) => t.0.model(Box::new(tiered)),
                None => Box::new(tiered),
            },
            tools: {
                let vetted = vet::Vetted::new(registry, vet_hub, vet_local).with_decisions(decisions);
                match &telemetry {
                    Some(t) => t.0.tools(Box::new(vetted)),
                    None => Box::new(vetted),
                }
            },
            store: Box::new(store),
        },
        decorators,
        stop: run_stop,
        outcome_capacity: 64,
        // The op tools' calls are typed as they are parsed: a `Gtd` from parse to decide.
        reader: cn_agent::read_call,
    };
    let state = cn_compute::begin(inputs)?;
    drop(senses);
    Ok(Ran { moves: state.moves, decided: handled.load(Ordering::Relaxed), listening })
}

/// A poisoned budget lock refuses (a thread panicked holding it: nothing is known of the caps).
fn poisoned() -> mind::Refused {
    mind::Refused {
        why: cn_agent::HandUp::Budget { refusal: "the thinking budget cannot be read".into() },
        until: Some(cn_storage::rfc3339_after(std::time::Duration::from_secs(600))),
    }
}

/// The executive's own tools besides the ops, into `registry`: its notes, and the reflex
/// engine's actions for its state (tasks, ideas, the schedule: the routine's tools) and
/// reading files in the hub — the same code
/// whether a reflex or the executive asks, and whether the daemon runs the call or the owner
/// approved it (`approve`).
pub(crate) fn state_tools(registry: &mut cn_tools::Registry, engine: &cn_reflex::Engine) {
    registry.register(cn_autonomy::notes::note_write_tool());
    for name in cn_hub::config::STATE_TOOLS.iter().chain(&["read_file"]) {
        if let Some(tool) = engine.registry().get(name) {
            registry.register(tool.clone());
        }
    }
}

/// The reflex engine (levels 0–2) with its level-2 model, and its tools in `registry`: the
/// agent's own state tools come from it, so the same code writes tasks and ideas whether a
/// reflex or the executive asks. `None` (reflexes off) when the engine cannot load.
fn reflexes(
    hub: &cn_agent::Hub,
    models: &cn_models::ModelsConfig,
    registry: &mut cn_tools::Registry,
    mode: RunMode,
) -> Option<Arc<Mutex<cn_reflex::Engine>>> {
    let root = hub.root();
    let mut engine = cn_reflex::Engine::of_hub(hub);
    for e in engine.errors() {
        eprintln!("cn run: reflex skipped: {e}", e = cn_compute::Chain(&e));
        // The daemon says so where the owner looks too (once per start or change of its
        // config; `--once` runs for every `cn chat` without a daemon, so only its stderr).
        if mode == RunMode::Daemon {
            journal(hub, &cn_reflex::skipped(&cn_compute::chain(&e)));
        }
    }
    match cn_models::provider(&models.local(), "models.local", root) {
        Ok(m) => engine.set_model(m),
        Err(e) => eprintln!("cn run: reflexes have no level-2 model: {e}", e = cn_compute::Chain(&e)),
    }
    state_tools(registry, &engine);
    let engine = Arc::new(Mutex::new(engine));
    registry.register(cn_reflex::reflex_write_tool(engine.clone()));
    Some(engine)
}

/// The clients of `cn.yaml`'s `mcp:` servers, starting in the background: each server's
/// tools join `registry` when it answers, and the journal says so (or that it is down, the
/// first time). `None` without servers.
fn mcp_clients(
    hub: &cn_agent::Hub,
    registry: &cn_tools::Registry,
    reflexes: Option<&Arc<Mutex<cn_reflex::Engine>>>,
) -> Option<cn_mcp::McpClients> {
    if hub.config().mcp.is_empty() {
        return None;
    }
    let clients = match cn_mcp::McpClients::of_hub(hub) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cn run: MCP servers not started: {e}", e = cn_compute::Chain(&e));
            return None;
        }
    };
    let layout = hub.layout().clone();
    clients.join_when_ready(registry.late(), move |server, joined| {
        let entry = match &joined {
            cn_mcp::Joined::Ready(tools) => journal::McpServer {
                summary: format!("MCP server `{server}` is ready: {} tools", tools.len()),
                server,
                tools: Some(tools),
                error: None,
            },
            cn_mcp::Joined::Down(error) => journal::McpServer {
                summary: format!("MCP server `{server}` is down; retrying with backoff"),
                server,
                tools: None,
                error: Some(error),
            },
        };
        if let Err(e) = layout.open_journal().and_then(|mut j| j.write(&entry)) {
            tracing::warn!(e = %cn_compute::Chain(&e), "cannot journal the MCP server's state");
        }
    });
    if let Some(engine) = reflexes {
        if let Ok(mut engine) = engine.lock() {
            engine.set_mcp(Arc::new(clients.clone()));
        }
    }
    Some(clients)
}

/// Sends the last spans when the run ends, however it ends.
struct FlushOnDrop(otel::Telemetry);

impl Drop for FlushOnDrop {
    fn drop(&mut self) {
        self.0.shutdown();
    }
}

/// Closes the MCP clients when the run ends, however it ends (their servers die with it).
struct CloseMcp(cn_mcp::McpClients);

impl Drop for CloseMcp {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// `state/run.json`: who is running, where its owner endpoint and control room listen, and
/// why the last change to cn.yaml was refused, if it was (the control room's banner).
#[derive(Debug, Default)]
struct RunInfo {
    owner_url: Option<String>,
    control_url: Option<String>,
    config_error: Option<String>,
    started: Option<String>,
}

impl RunInfo {
    /// Write it (for `cn chat` and the control room). A failure is logged: the daemon runs
    /// without it.
    fn write(&mut self, hub: &Path) {
        let started = self.started.get_or_insert_with(cn_storage::now_rfc3339).clone();
        let info = serde_json::json!({
            "pid": std::process::id(),
            "role": "active",
            "started": started,
            "owner_url": self.owner_url,
            "control_url": self.control_url,
            "config_error": self.config_error,
        });
        if let Err(e) = cn_storage::write_json_atomic(&run_info(hub), &info) {
            tracing::warn!(e = %cn_compute::Chain(&e), "cannot write state/run.json");
        }
    }
}
