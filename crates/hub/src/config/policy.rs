//! `policy:` (cn-tools): which tools each level may call, what an item from someone other
//! than the owner may cause, and which URLs may be fetched.

use std::collections::BTreeMap;

use cn_compute::Level;
use serde::{Deserialize, Deserializer, Serialize};

/// The tool names (or `prefix*` globs) a level may call.
///
/// A namespaced tool (`server.tool`: an MCP server's) is matched by a glob only when the
/// glob names its namespace (`server.*`): a bare `*` or `se*` grants none of them, so adding
/// a server to `mcp:` widens no level until the owner names it here.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Grant(pub Vec<String>);

impl Grant {
    pub fn allows(&self, tool: &str) -> bool {
        let namespace = tool.split_once('.').map(|(ns, _)| ns);
        self.0.iter().any(|g| match g.strip_suffix('*') {
            Some(prefix) => {
                tool.starts_with(prefix)
                    && namespace.is_none_or(|ns| prefix.len() > ns.len() && prefix.as_bytes()[ns.len()] == b'.')
            }
            None => g == tool,
        })
    }
}

/// The `policy:` section: which tools each level may call; a level with no grant may call
/// nothing. `Policy::default()` grants nothing; in cn.yaml every key merges with
/// [`Policy::documented`]: a `policy:` that names only `urls:` keeps the documented levels,
/// and `levels:` replaces the grant of each level it names (`3: []` empties one), keeping
/// the others'.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    /// Level → grant (from cn.yaml: over the documented grants, level by level).
    #[serde(default = "documented_levels", deserialize_with = "levels_over_documented")]
    pub levels: BTreeMap<Level, Grant>,
    /// Whether the `shell` action may run at all.
    pub shell: bool,
    /// If set, only URLs matching one of these (scheme, host, port, path prefix) may be
    /// fetched; an entry also lets fetches reach its host when that host is loopback or
    /// private.
    pub urls: Option<Vec<String>>,
    /// Largest file or response a tool may read, in bytes.
    pub max_bytes: Option<u64>,
    /// Longest a tool may run, in seconds.
    pub timeout_secs: Option<u64>,
    /// Environment variables the `shell` action's commands see, besides a minimal `PATH`,
    /// `HOME`, `LANG` (`cn_process::child::BASE_ENV`); every other variable of cn's environment
    /// (an API key, say) is withheld.
    pub env: Vec<String>,
    /// How long an action held for the owner's approval waits before it is denied.
    pub approval_timeout_secs: Option<u64>,
    /// Whether commands run in the Landlock sandbox (writes only in the hub or the loop's
    /// tree, no network unless `shell_network`); absent means yes. `false` runs them
    /// unsandboxed; on a kernel that cannot sandbox, commands are refused unless it is false.
    pub sandbox: Option<bool>,
    /// Whether a sandboxed command may use TCP.
    pub shell_network: bool,
    /// What an item from someone other than the owner may cause, by provenance: `anyone`
    /// (default [`ANYONE`]: answer, file, defer, drop), `peers`, `peer:NAME`, a sense
    /// (`github`, `discord` …) or `SENSE:USER`. An item's calls outside these, even ones its
    /// level grants, are held for the owner's approval. The owner's items may cause
    /// everything their level grants.
    pub from: BTreeMap<String, Grant>,
}

/// The executive's tools for the agent's own state (document 003's task queue, ideas backlog
/// and schedule): the reflex engine's actions of those names, granted to level 3 by default.
pub const STATE_TOOLS: &[&str] = &[
    "add_task",
    "add_idea",
    "tasks_list",
    "task_done",
    "task_move",
    "task_cancel",
    "ideas_list",
    "idea_drop",
    "schedule_add",
    "schedule_list",
    "schedule_remove",
];

/// What anyone's item may cause unless `policy.from.anyone` says otherwise: be answered,
/// filed (tasks, ideas: marked with their source), deferred, dropped or surfaced to the
/// owner; list, complete, move or cancel what it filed itself (the routine's tools refuse
/// another's) — and the reflexes' steps that change nothing outside the run (templates, the
/// clock, the local model's triage). Fetching, reading or writing files, mailing peers, the
/// shell, GitHub's API, the schedule, notes and reflexes need the owner.
pub const ANYONE: &[&str] = &[
    "reply",
    "react",
    "noop",
    "ack",
    "defer",
    "delete",
    "surface",
    "commit",
    "add_task",
    "add_idea",
    // The routine and its tools keep an item to what it filed itself (`source`): another's
    // task, idea or the schedule is refused by the tool.
    "routine",
    "tasks_list",
    "task_done",
    "task_move",
    "task_cancel",
    "ideas_list",
    "idea_drop",
    "log",
    "template",
    "extract_json",
    "when",
    "clock",
    "activity",
    "why",
    "vet",
    "escalate",
    "local_prompt",
    "ollama_prompt",
];

impl Policy {
    pub fn allows(&self, level: Level, tool: &str) -> bool {
        self.levels.get(&level).is_some_and(|g| g.allows(tool))
    }

    /// Whether an item from `who` may cause a call of `tool` (its level's grant is checked
    /// apart, by [`Policy::allows`]): the owner's may cause anything; anyone else's what
    /// `from.anyone` (default [`ANYONE`]) or the narrower keys of `who` grant. An MCP server's
    /// tools (`server.tool`, and the reflexes' `mcp` action) are left to that server's
    /// `callers:`, which admits the owner's items only unless it says `anyone`.
    pub fn allows_from(&self, who: &crate::Provenance, tool: &str) -> bool {
        if who.is_owner() || tool.contains('.') || tool == "mcp" {
            return true;
        }
        who.policy_keys().iter().any(|key| match self.from.get(key) {
            Some(grant) => grant.allows(tool),
            None => key == "anyone" && ANYONE.contains(&tool),
        })
    }

    /// The line of `cn.yaml` that would let `who`'s items cause `tool` without asking. Only
    /// an authenticated author can be remembered: a public source without a user (an email
    /// whose sender the receiving server did not authenticate, an event no one wrote) gets
    /// "this once" only — a line for the whole sense would let anyone on it cause `tool`.
    pub fn widening(who: &crate::Provenance, tool: &str) -> String {
        if let crate::Provenance::Public { sense, user: None } = who {
            return format!(
                "nothing: this once only (the sender on {sense} is not authenticated, so no line can name them; \
                 `policy.from.{sense}` would let everyone on {sense} cause `{tool}`)"
            );
        }
        let key = who.policy_keys().pop().unwrap_or_else(|| "anyone".into());
        format!("policy.from.{key}: [{tool}]  (added to cn.yaml under `policy: from:`)")
    }

    /// Whether commands run sandboxed (`policy.sandbox`, default true).
    pub fn sandboxed(&self) -> bool {
        self.sandbox.unwrap_or(true)
    }

    /// Grant `tools` to `level` (used when building defaults).
    pub fn grant(mut self, level: Level, tools: &[&str]) -> Self {
        self.levels.entry(level).or_default().0.extend(tools.iter().map(|s| s.to_string()));
        self
    }

    /// Whether `url` may be fetched: with no `urls:` list, any; else one entry must match it
    /// by scheme, host, port and path (the entry's path a prefix on a `/` boundary), never by
    /// string prefix (`https://example.com` does not admit `https://example.com.evil` or
    /// `https://example.com@evil`). An entry that does not parse as a URL matches nothing.
    pub fn url_allowed(&self, url: &url::Url) -> bool {
        self.urls.as_ref().is_none_or(|list| list.iter().any(|entry| url_matches(entry, url)))
    }

    /// Whether a `urls:` entry names `url`'s host and port: only then may a fetch reach a
    /// loopback, private, link-local or metadata address.
    pub fn names_host(&self, url: &url::Url) -> bool {
        self.urls.iter().flatten().filter_map(|e| url::Url::parse(e).ok()).any(|e| same_origin(&e, url))
    }

    /// What a `cn.yaml` without `policy:` means: the grants `cn init` writes and README
    /// documents — the ops below the executive's (levels 0–2 answer, close or defer; the
    /// executive also its own state tools and reading files in the hub), no shell.
    pub fn documented() -> Policy {
        Policy::default()
            .grant(0, &["reply", "noop", "ack"])
            .grant(1, &["reply", "noop", "ack", "defer"])
            .grant(2, &["reply", "noop", "ack", "defer"])
            .grant(3, &["reply", "send", "noop", "ack", "surface", "commit", "defer", "delegate", "delete"])
            .grant(3, STATE_TOOLS)
            .grant(3, &["reflex_write", "note_write", "read_file"])
    }
}

fn documented_levels() -> BTreeMap<Level, Grant> {
    Policy::documented().levels
}

/// `policy.levels` as cn.yaml writes it, over the documented grants: each level it names
/// replaces that level's grant; a level it does not name keeps the documented one.
fn levels_over_documented<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<Level, Grant>, D::Error> {
    let mut levels = documented_levels();
    levels.extend(Option::<BTreeMap<Level, Grant>>::deserialize(d)?.unwrap_or_default());
    Ok(levels)
}

/// Same scheme, host and port (the scheme's default when none is written).
pub fn same_origin(a: &url::Url, b: &url::Url) -> bool {
    a.scheme() == b.scheme() && a.host() == b.host() && a.port_or_known_default() == b.port_or_known_default()
}

fn url_matches(entry: &str, url: &url::Url) -> bool {
    let Ok(e) = url::Url::parse(entry) else { return false };
    if !same_origin(&e, url) || !url.username().is_empty() || url.password().is_some() {
        return false;
    }
    let prefix = e.path().trim_end_matches('/');
    let path = url.path();
    path == prefix || prefix.is_empty() || path.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
}
