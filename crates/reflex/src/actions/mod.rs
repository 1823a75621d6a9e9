//! The core actions a reflex step can run, one file per action (or per pair), each a
//! [`cn_tools::Tool`] in a [`Registry`] so policy is checked where it always is.
//!
//! Every action has a level (the cheapest reflex level that may run it: sending a canned
//! reply is level 0, fetching or reading is level 1, the local model is level 2) and a main
//! parameter, the one a step's `input:` fills.
//!
//! Invariant: actions reach the world only through what they are given — the hub (paths are
//! confined to it), the policy (URL allowlist, size and time limits, shell on/off), the
//! injected [`Replier`] and level-2 model. The model never sees any of it.

mod clock;
mod extract_json;
mod fetch_url;
mod files;
mod github_api;
mod http;
mod idea_drop;
mod ideas_list;
mod log;
mod mcp;
mod prompt;
mod reply;
mod routine;
mod schedule_add;
mod schedule_list;
mod schedule_remove;
mod shell;
mod task_cancel;
mod task_done;
mod task_move;
mod tasks;
mod tasks_list;
mod template;
mod why;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use cn_compute::Model;
use cn_hub::journal::HubJournal;
use cn_tools::{Registry, ToolContext};

pub use crate::spec::{default_grants, spec, Spec, SPECS};
pub use mcp::McpCaller;
pub use reply::{NoReplier, Replier, ReplyError, Target};

use crate::config::ReflexConfig;
use crate::mode::Mode;

/// The level-2 models: one default, and any named ones (`model:` on a step picks a named
/// model if there is one, else the default).
#[derive(Default)]
pub(crate) struct Models {
    pub default: Option<Box<dyn Model>>,
    pub named: BTreeMap<String, Box<dyn Model>>,
}

/// What the actions share with the engine: the item being handled, the injected parts.
pub(crate) struct Shared {
    pub hub: PathBuf,
    pub config: ReflexConfig,
    pub turn: Mutex<Turn>,
    pub models: Mutex<Models>,
    pub replier: RwLock<Arc<dyn Replier>>,
    /// The MCP client the `mcp` action calls through, when the daemon has servers.
    pub mcp: RwLock<Option<Arc<dyn McpCaller>>>,
    journal: Mutex<Option<HubJournal>>,
    /// A fixed now for the clock-reading actions (tests); unset, the system's.
    #[cfg(test)]
    pub clock: Mutex<Option<jiff::Zoned>>,
}

/// The item and reflex a step runs for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Turn {
    pub mode: Mode,
    pub reflex: String,
    pub target: Target,
}

impl Shared {
    pub fn new(hub: PathBuf, config: ReflexConfig) -> Self {
        Shared {
            hub,
            config,
            turn: Mutex::new(Turn::default()),
            models: Mutex::new(Models::default()),
            replier: RwLock::new(Arc::new(NoReplier)),
            mcp: RwLock::new(None),
            journal: Mutex::new(None),
            #[cfg(test)]
            clock: Mutex::new(None),
        }
    }

    /// Now, in the hub's time zone (`reflexes.time_zone`, else the system's).
    pub fn now(&self) -> jiff::Zoned {
        #[cfg(test)]
        if let Some(now) = self.clock.lock().ok().and_then(|c| c.clone()) {
            return now;
        }
        crate::routine::now_in(self.config.time_zone.as_deref())
    }

    pub fn turn(&self) -> Turn {
        self.turn.lock().map(|t| t.clone()).unwrap_or_default()
    }

    /// Append to the hub's journal (opened on first use). A journal that cannot be written is
    /// logged, not fatal: the effect already happened and must not be reported as failed.
    pub fn journal<T: cn_storage::Typed>(&self, record: &T) {
        let Ok(mut guard) = self.journal.lock() else { return };
        if guard.is_none() {
            match cn_hub::Layout::new(&self.hub).open_journal() {
                Ok(j) => *guard = Some(j),
                Err(err) => {
                    tracing::error!(err = %cn_compute::Chain(&err), "cannot open the journal");
                    return;
                }
            }
        }
        if let Some(j) = guard.as_mut() {
            if let Err(err) = j.write(record) {
                tracing::error!(path = %j.path().display(), err = %cn_compute::Chain(&err), "cannot journal a reflex entry");
            }
        }
    }
}

/// Default size limit when the policy sets none.
pub(crate) const MAX_BYTES: u64 = 2 * 1024 * 1024;
/// Default time limit when the policy sets none.
pub(crate) const TIMEOUT_SECS: u64 = 30;

pub(crate) fn max_bytes(ctx: &ToolContext) -> u64 {
    ctx.policy.max_bytes.unwrap_or(MAX_BYTES)
}

pub(crate) fn timeout(ctx: &ToolContext) -> std::time::Duration {
    std::time::Duration::from_secs(ctx.policy.timeout_secs.unwrap_or(TIMEOUT_SECS))
}

/// The registry of core actions, working in `hub` under `policy`.
pub(crate) fn registry(shared: &Arc<Shared>, policy: cn_tools::Policy) -> Registry {
    let mut ctx = ToolContext::new(shared.hub.clone());
    ctx.hub = Some(shared.hub.clone());
    ctx.policy = policy;
    let mut r = Registry::new(ctx);
    r.register(fetch_url::tool())
        .register(files::read_file())
        .register(files::write_file())
        .register(extract_json::tool())
        .register(template::tool())
        .register(github_api::tool(shared))
        .register(reply::reply(shared))
        .register(reply::react(shared))
        .register(tasks::add_task(shared))
        .register(tasks::add_idea(shared))
        .register(routine::tool(shared))
        .register(tasks_list::tool(shared))
        .register(task_done::tool(shared))
        .register(task_move::tool(shared))
        .register(task_cancel::tool(shared))
        .register(ideas_list::tool(shared))
        .register(idea_drop::tool(shared))
        .register(schedule_add::tool(shared))
        .register(schedule_list::tool(shared))
        .register(schedule_remove::tool(shared))
        .register(log::tool(shared))
        .register(mcp::tool(shared))
        .register(shell::tool())
        .register(clock::when(shared))
        .register(clock::clock(shared))
        .register(clock::activity(shared))
        .register(why::tool(shared))
        .register(clock::vet());
    for name in ["local_prompt", "ollama_prompt"] {
        r.register(prompt::tool(name, shared));
    }
    r
}

/// A registry over the current directory, for tests that only need the actions' schemas.
#[cfg(test)]
pub(crate) fn test_registry() -> Registry {
    let shared = Arc::new(Shared::new(PathBuf::from("."), ReflexConfig::default()));
    registry(&shared, cn_tools::Policy::default())
}
