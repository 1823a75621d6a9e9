//! What the engine, the compiler and the config know about each core action without running
//! it: its name, level, main parameter and purity, and the grants those levels imply.
//!
//! A plain table below the actions, the compiler and the config, so each of them reads it
//! without depending on the others.

use std::collections::BTreeMap;

use cn_compute::Level;
use cn_tools::Grant;

/// What the engine knows about an action without running it.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub name: &'static str,
    pub level: Level,
    /// The parameter a step's `input:` sets.
    pub main: &'static str,
    /// True when running it changes nothing outside the pipeline (it runs in a dry run).
    pub pure: bool,
}

pub const SPECS: &[Spec] = &[
    Spec { name: "fetch_url", level: 1, main: "url", pure: false },
    Spec { name: "read_file", level: 1, main: "path", pure: false },
    Spec { name: "write_file", level: 1, main: "content", pure: false },
    Spec { name: "local_prompt", level: 2, main: "prompt", pure: false },
    Spec { name: "ollama_prompt", level: 2, main: "prompt", pure: false },
    Spec { name: "extract_json", level: 1, main: "json", pure: true },
    Spec { name: "template", level: 0, main: "template", pure: true },
    Spec { name: "github_api", level: 1, main: "path", pure: false },
    Spec { name: "reply", level: 0, main: "message", pure: false },
    Spec { name: "react", level: 0, main: "emoji", pure: false },
    Spec { name: "add_task", level: 0, main: "task", pure: false },
    Spec { name: "add_idea", level: 0, main: "idea", pure: false },
    Spec { name: "routine", level: 1, main: "text", pure: false },
    Spec { name: "tasks_list", level: 0, main: "filter", pure: true },
    Spec { name: "task_done", level: 0, main: "name", pure: false },
    Spec { name: "task_move", level: 0, main: "name", pure: false },
    Spec { name: "task_cancel", level: 0, main: "name", pure: false },
    Spec { name: "ideas_list", level: 0, main: "words", pure: true },
    Spec { name: "idea_drop", level: 0, main: "name", pure: false },
    Spec { name: "schedule_add", level: 0, main: "action", pure: false },
    Spec { name: "schedule_list", level: 0, main: "words", pure: true },
    Spec { name: "schedule_remove", level: 0, main: "name", pure: false },
    Spec { name: "log", level: 0, main: "message", pure: false },
    Spec { name: "mcp", level: 1, main: "tool", pure: false },
    Spec { name: "shell", level: 1, main: "command", pure: false },
    Spec { name: "when", level: 0, main: "text", pure: true },
    Spec { name: "clock", level: 0, main: "format", pure: true },
    Spec { name: "activity", level: 0, main: "period", pure: true },
    Spec { name: "why", level: 0, main: "text", pure: true },
    Spec { name: "vet", level: 0, main: "text", pure: false },
    // Not an effect: ends the pipeline and hands the item to the executive.
    Spec { name: "escalate", level: 0, main: "reason", pure: true },
];

/// The level-2 triage's answer for "none of the listed intents: this needs the executive".
pub const EXECUTIVE_INTENT: &str = "executive";

pub fn spec(name: &str) -> Option<&'static Spec> {
    SPECS.iter().find(|s| s.name == name)
}

/// Actions no reflex runs unless the owner grants them by name in `reflexes.grants`:
/// writing files and running commands change the machine, and a reflex answers strangers.
pub const OWNER_GRANTED: &[&str] = &["write_file", "shell"];

/// Default grants: a reflex of level L may run every action of level ≤ L, except the
/// [`OWNER_GRANTED`] ones.
pub fn default_grants() -> BTreeMap<Level, Grant> {
    let granted = |l: Level| SPECS.iter().filter(move |s| s.level <= l && !OWNER_GRANTED.contains(&s.name));
    (0..=2).map(|l| (l, Grant(granted(l).map(|s| s.name.to_string()).collect()))).collect()
}
