//! hub — an open hub: its root, its [`Layout`], and `cn.yaml` read once ([`HubConfig`], plus
//! the keys it writes). Every crate takes a `&Hub` or one of its sections.
//!
//! Invariant: a hub is found, never guessed — `--hub`, else `$CN_HUB`, else the current
//! directory or the nearest parent holding `cn.yaml`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, HubConfig, Written};
use crate::layout::{Layout, CONFIG};

/// The `from` of items the owner writes (they are processed first).
pub const OWNER: &str = "owner";

/// Why a hub cannot be found, opened or changed.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    /// No hub where one was looked for.
    #[error("{0}")]
    NoHub(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("{path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A request that cannot be performed as given (unknown peer, bad peer name, …).
    #[error("{0}")]
    Invalid(String),
    /// A peer's remote git may not be given.
    #[error(transparent)]
    Remote(#[from] cn_git::RemoteRefused),
}

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> HubError + '_ {
    move |source| HubError::Io { path: path.to_path_buf(), source }
}

/// Find the hub: `explicit` (the `--hub` flag), else `$CN_HUB`, else the current directory
/// and its parents — the first holding `cn.yaml`.
pub fn find_hub(explicit: Option<&Path>) -> Result<PathBuf, HubError> {
    let given = explicit.map(Path::to_path_buf).or_else(|| std::env::var_os("CN_HUB").map(PathBuf::from));
    if let Some(dir) = given {
        if dir.join(CONFIG).is_file() {
            return Ok(dir);
        }
        return Err(HubError::NoHub(format!(
            "{} is not a hub (it has no {CONFIG}); create one with `cn init {}`",
            dir.display(),
            dir.display()
        )));
    }
    let cwd = std::env::current_dir().map_err(io_at(Path::new(".")))?;
    for dir in cwd.ancestors() {
        if dir.join(CONFIG).is_file() {
            return Ok(dir.to_path_buf());
        }
    }
    Err(HubError::NoHub(format!(
        "no hub here: neither {} nor a parent holds {CONFIG}; pass --hub DIR, set CN_HUB, or run `cn init`",
        cwd.display()
    )))
}

/// Take the dotted `key` out of a YAML mapping; false when it is not there.
fn without(value: &mut serde_yaml_ng::Value, key: &str) -> bool {
    let (parent, last) = match key.rsplit_once('.') {
        Some((parent, last)) => (Some(parent), last),
        None => (None, key),
    };
    let mut at = value;
    for part in parent.into_iter().flat_map(|p| p.split('.')) {
        match at.get_mut(part) {
            Some(v) => at = v,
            None => return false,
        }
    }
    at.as_mapping_mut().and_then(|m| m.remove(last)).is_some()
}

/// A peer: another hub, reached through its git remote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Peer {
    pub remote: String,
}

/// An open hub.
#[derive(Debug, Clone)]
pub struct Hub {
    layout: Layout,
    name: String,
    config: HubConfig,
    written: Written,
}

impl Hub {
    /// Open the hub at `root` (which holds `cn.yaml`, with a `name`). cn.yaml is read here,
    /// once.
    pub fn open(root: impl Into<PathBuf>) -> Result<Hub, HubError> {
        let layout = Layout::new(root);
        let path = layout.config();
        let text = std::fs::read_to_string(&path).map_err(io_at(&path))?;
        let (config, written) = HubConfig::parse_written(&text, &path)?;
        let name = config.name.clone().filter(|n| valid_name(n)).ok_or(ConfigError::Name { path })?;
        // cn's writes in this hub never follow a link out of it (cn_storage::beneath).
        cn_storage::beneath::hold(layout.root());
        Ok(Hub { layout, name, config, written })
    }

    /// Find and open: see [`find_hub`].
    pub fn find(explicit: Option<&Path>) -> Result<Hub, HubError> {
        Hub::open(find_hub(explicit)?)
    }

    /// Open the hub at `root` to read it, even while its cn.yaml has an error (a typo made
    /// while the daemon runs on its last good config): the hub with cn.yaml less each key
    /// that has an error, and the first error. Only a command that reads the hub (chat with a
    /// running daemon, the journal, the task list, `cn config show`) opens it so; one that
    /// acts on cn.yaml's values refuses it ([`Hub::open`]). A cn.yaml that is not YAML, or
    /// whose `name` is the error, cannot be read around: that error.
    pub fn open_to_read(root: impl Into<PathBuf>) -> Result<(Hub, Option<ConfigError>), HubError> {
        let layout = Layout::new(root);
        let first = match Hub::open(layout.root()) {
            Ok(hub) => return Ok((hub, None)),
            Err(HubError::Config(e)) => e,
            Err(e) => return Err(e),
        };
        let path = layout.config();
        let text = std::fs::read_to_string(&path).map_err(io_at(&path))?;
        let Ok(mut value) = serde_yaml_ng::from_str::<serde_yaml_ng::Value>(&text) else { return Err(first.into()) };
        // Each error names its key: without it, the rest is read (a few keys at most).
        for _ in 0..8 {
            let Ok(text) = serde_yaml_ng::to_string(&value) else { break };
            let err = match HubConfig::parse_written(&text, &path) {
                Ok((config, written)) => {
                    let Some(name) = config.name.clone().filter(|n| valid_name(n)) else { break };
                    cn_storage::beneath::hold(layout.root());
                    return Ok((Hub { layout, name, config, written }, Some(first)));
                }
                Err(e) => e,
            };
            if !err.key().is_some_and(|key| without(&mut value, key)) {
                break;
            }
        }
        Err(first.into())
    }

    pub fn root(&self) -> &Path {
        self.layout.root()
    }
    /// Where each file of the hub lives.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The hub's journal, open for appending typed records: the one way to write it.
    pub fn journal(&self) -> Result<crate::journal::HubJournal, crate::journal::JournalError> {
        self.layout.open_journal()
    }
    /// cn.yaml, parsed.
    pub fn config(&self) -> &HubConfig {
        &self.config
    }
    /// git for this hub's repository, seeing what its cn.yaml's `git.env` names (and only
    /// that: another hub open in the same process has its own).
    pub fn git(&self) -> cn_git::Git {
        cn_git::Git::new(self.root()).passing(&self.config.git.env)
    }
    /// Every value the hub runs with and where it came from (`cn config show`).
    pub fn settings(&self) -> Vec<crate::config::Setting> {
        self.config.settings(&self.written)
    }
    /// The agent's name: peers address it as `<name>/<thread>` branches.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// A path under the root.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }
    pub fn input(&self) -> PathBuf {
        self.layout.input()
    }
    pub fn output(&self) -> PathBuf {
        self.layout.output()
    }
    pub fn inbox(&self) -> PathBuf {
        self.layout.inbox()
    }
    pub fn deferred(&self) -> PathBuf {
        self.layout.deferred()
    }
    pub fn archived(&self) -> PathBuf {
        self.layout.archived()
    }
    pub fn reflections(&self, cadence: &str) -> PathBuf {
        self.layout.reflections(cadence)
    }
    pub fn outbox(&self) -> PathBuf {
        self.layout.outbox()
    }
    pub fn sent(&self) -> PathBuf {
        self.layout.sent()
    }
    pub fn journal_path(&self) -> PathBuf {
        self.layout.journal()
    }

    /// Every peer: `cn.yaml`'s `peers:` (name: remote), then `state/peers.json` over it.
    pub fn peers(&self) -> Result<BTreeMap<String, Peer>, HubError> {
        let mut out: BTreeMap<String, Peer> =
            self.config.peers.iter().map(|(k, v)| (k.clone(), Peer { remote: v.clone() })).collect();
        let file = self.layout.peers();
        let added: BTreeMap<String, Peer> = cn_storage::read_json_or_default(&file).map_err(io_at(&file))?;
        out.extend(added);
        // cn.yaml's names are checked when it is read, `cn peer add`'s when added; a name in
        // `state/peers.json` from an older cn or a hand edit is dropped here, so no sender
        // is ever `owner`, the hub itself or a path.
        out.retain(|name, _| match peer_name_problem(name, &self.name) {
            None => true,
            Some(why) => {
                tracing::warn!(file = %file.display(), "peer ignored: {why}");
                false
            }
        });
        Ok(out)
    }

    pub fn peer(&self, name: &str) -> Result<Option<Peer>, HubError> {
        Ok(self.peers()?.remove(name))
    }

    /// A known peer, or an error listing the known ones.
    pub fn require_peer(&self, name: &str) -> Result<Peer, HubError> {
        let peers = self.peers()?;
        match peers.get(name) {
            Some(p) => Ok(p.clone()),
            None => {
                let known: Vec<&str> = peers.keys().map(String::as_str).collect();
                let known = if known.is_empty() { "none yet".to_string() } else { known.join(", ") };
                Err(HubError::Invalid(format!(
                    "`{name}` is not a peer of {} (known: {known}); add it with `cn peer add {name} REMOTE`",
                    self.name
                )))
            }
        }
    }

    /// Add (or change) a peer in `state/peers.json`.
    pub fn add_peer(&self, name: &str, remote: &str) -> Result<(), HubError> {
        if let Some(why) = peer_name_problem(name, &self.name) {
            return Err(HubError::Invalid(format!("peer name: {why}")));
        }
        cn_git::check_remote(remote)?;
        cn_git::check_no_credentials(remote)?;
        let file = self.layout.peers();
        let mut peers: BTreeMap<String, Peer> = cn_storage::read_json_or_default(&file).map_err(io_at(&file))?;
        peers.insert(name.to_string(), Peer { remote: remote.to_string() });
        cn_storage::write_json_atomic(&file, &peers).map_err(io_at(&file))
    }
}

impl Hub {
    /// Remove a peer added with `cn peer add`; false when `state/peers.json` has none by that
    /// name (a peer listed in cn.yaml is removed by editing cn.yaml).
    pub fn remove_peer(&self, name: &str) -> Result<bool, HubError> {
        let file = self.layout.peers();
        let mut peers: BTreeMap<String, Peer> = cn_storage::read_json_or_default(&file).map_err(io_at(&file))?;
        if peers.remove(name).is_none() {
            return Ok(false);
        }
        cn_storage::write_json_atomic(&file, &peers).map_err(io_at(&file))?;
        Ok(true)
    }
}

/// A name that is safe as a file name and a git branch component.
pub fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with(['-', '.'])
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        && !s.contains("..")
}

/// Names no hub and no peer may have, whatever their case: `owner` (an item `from: owner` is
/// the owner's: a peer or a hub by that name would make its mail the owner's word) and the
/// top directories of the mail layout (`cn-mail`, `cn-receipt`: a peer by that name would
/// read every peer's mail and receipts as its own).
pub const RESERVED_NAMES: &[&str] = &[OWNER, "cn-mail", "cn-receipt"];

/// Why `name` cannot name an agent (`cn init --name`, cn.yaml's `name:`) or a peer
/// (`cn peer add`, cn.yaml's `peers:`): empty, path-like (a `/`, a leading `.` or `-`,
/// `..`), not plain characters, or reserved ([`RESERVED_NAMES`]). `None` when it can.
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a name cannot be empty".into());
    }
    if !valid_name(name) {
        return Some(format!(
            "`{name}` is not a plain name: use at most 64 letters, digits, `-`, `_` or `.`, not starting with `.` \
             or `-` and without `..` (it becomes a file name and a git branch prefix)"
        ));
    }
    if let Some(reserved) = RESERVED_NAMES.iter().find(|r| r.eq_ignore_ascii_case(name)) {
        let why = if *reserved == OWNER {
            "items from it would be the owner's"
        } else {
            "its branches hold every peer's mail and receipts"
        };
        return Some(format!("`{name}` is reserved ({why}); choose another"));
    }
    None
}

/// Why `name` cannot name a peer of the hub called `me`: [`name_problem`], or the hub's own
/// name (its mail would be the agent's own). `None` when it can.
pub fn peer_name_problem(name: &str, me: &str) -> Option<String> {
    name_problem(name).or_else(|| {
        name.eq_ignore_ascii_case(me).then(|| {
            format!("`{name}` is this hub's own name (items from it would be the agent's own); choose another")
        })
    })
}

/// The names of the hub's peers at `layout` (empty when cn.yaml or the peers file cannot be
/// read: an unknown sender is then nobody's peer, which grants less, never more).
pub fn peer_names(layout: &Layout) -> Vec<String> {
    Hub::open(layout.root()).ok().and_then(|h| h.peers().ok()).map(|p| p.into_keys().collect()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_hub_upwards_and_explains_when_there_is_none() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG), "name: sigma\n").unwrap();
        let deep = dir.path().join("threads/inbox");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(find_hub(Some(dir.path())).unwrap(), dir.path());
        let e = find_hub(Some(&deep)).unwrap_err();
        assert!(e.to_string().contains("not a hub") && e.to_string().contains("cn init"), "{e}");
        let hub = Hub::open(dir.path()).unwrap();
        assert_eq!(hub.name(), "sigma");
        assert_eq!(hub.layout().journal(), dir.path().join("state/journal.jsonl"));
    }

    #[test]
    fn peers_come_from_config_and_peers_json() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG), "name: sigma\npeers:\n  pi: /srv/pi.git\n").unwrap();
        let hub = Hub::open(dir.path()).unwrap();
        hub.add_peer("tau", "/srv/tau.git").unwrap();
        let peers = hub.peers().unwrap();
        assert_eq!(peers.keys().collect::<Vec<_>>(), ["pi", "tau"]);
        let e = hub.require_peer("rho").unwrap_err();
        assert!(e.to_string().contains("pi, tau"), "{e}");
        assert!(hub.add_peer("a/b", "x").is_err());
    }

    #[test]
    fn a_bad_config_names_the_file_and_the_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG), "name: sigma\npeers: [\n").unwrap();
        let e = Hub::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("cn.yaml") && e.contains("line"), "{e}");
        std::fs::write(dir.path().join(CONFIG), "models: {}\n").unwrap();
        let e = Hub::open(dir.path()).unwrap_err().to_string();
        assert!(e.contains("`name`"), "{e}");
        std::fs::write(dir.path().join(CONFIG), "").unwrap();
        assert!(Hub::open(dir.path()).unwrap_err().to_string().contains("`name`"));
    }

    /// The message says what failed and where; the source says why; the chain (what `cn`
    /// and every other edge prints) says each once.
    #[test]
    fn an_unreadable_config_is_named_and_its_cause_said_once() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join(CONFIG);
        std::fs::create_dir(&config).unwrap();
        let e = HubConfig::load(&config).unwrap_err();
        let cause = std::io::Error::from_raw_os_error(21).to_string(); // EISDIR
        assert_eq!(e.to_string(), format!("cannot read {}", config.display()));
        assert_eq!(cn_compute::chain(&e), format!("cannot read {}: {cause}", config.display()));
    }

    #[test]
    fn the_config_is_read_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG), "name: sigma\nbudget: {daily_tokens: 7}\n").unwrap();
        let hub = Hub::open(dir.path()).unwrap();
        std::fs::remove_file(dir.path().join(CONFIG)).unwrap();
        assert_eq!(hub.config().budget.daily_tokens, Some(7));
        let setting = hub.settings().into_iter().find(|s| s.key == "budget.daily_tokens").unwrap();
        assert_eq!((setting.value, setting.from), (serde_json::json!(7), crate::config::Source::File));
    }
}
