//! The hub: one agent's git repository, its layout, its config, and how a command finds it.
//!
//! ```text
//! cn.yaml                          config (name, models, budget, senses, peers, policy)
//! state/input.md  state/output.md  the current item; the decision on it
//! state/peers.json                 peers added with `cn peer add` (name → git remote)
//! state/received.json              mail already taken (commit → item id): never twice
//! state/journal.jsonl  state/mca/  state/notes/  state/reflexes/  …
//! threads/inbox/<id>.md            the queue
//! threads/deferred/ archived/ reflections/<cadence>/   where decided items go
//! threads/mail/outbox/ sent/       mail to peers, before and after `cn sync`
//! ```
//!
//! Invariant: a hub is found, never guessed — `--hub`, else `$CN_HUB`, else the current
//! directory or the nearest parent holding `cn.yaml`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{format_at, io_at, AgentError, Result};

/// The config file that marks a directory as a hub.
pub const CONFIG: &str = "cn.yaml";

/// The `from` of items the owner writes (they are processed first).
pub const OWNER: &str = "owner";

/// Find the hub: `explicit` (the `--hub` flag), else `$CN_HUB`, else the current directory
/// and its parents — the first holding `cn.yaml`.
pub fn find_hub(explicit: Option<&Path>) -> Result<PathBuf> {
    let given = explicit.map(Path::to_path_buf).or_else(|| std::env::var_os("CN_HUB").map(PathBuf::from));
    if let Some(dir) = given {
        if dir.join(CONFIG).is_file() {
            return Ok(dir);
        }
        return Err(AgentError::NoHub(format!(
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
    Err(AgentError::NoHub(format!(
        "no hub here: neither {} nor a parent holds {CONFIG}; pass --hub DIR, set CN_HUB, or run `cn init`",
        cwd.display()
    )))
}

/// The keys of `cn.yaml` this layer reads; the rest belongs to other layers.
#[derive(Debug, Default, Deserialize)]
struct Config {
    name: Option<String>,
    #[serde(default)]
    peers: BTreeMap<String, String>,
}

/// A peer: another hub, reached through its git remote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Peer {
    pub remote: String,
}

/// An open hub.
#[derive(Debug, Clone)]
pub struct Hub {
    root: PathBuf,
    name: String,
    config_peers: BTreeMap<String, String>,
}

impl Hub {
    /// Open the hub at `root` (which holds `cn.yaml`).
    pub fn open(root: impl Into<PathBuf>) -> Result<Hub> {
        let root = root.into();
        let path = root.join(CONFIG);
        let text = std::fs::read_to_string(&path).map_err(io_at(&path))?;
        let config: Config = if text.trim().is_empty() {
            Config::default()
        } else {
            serde_yaml_ng::from_str(&text).map_err(|e| {
                let at = e.location().map(|l| format!("line {}, column {}: ", l.line(), l.column())).unwrap_or_default();
                format_at(&path, format!("{at}{e}"))
            })?
        };
        let name = config.name.filter(|n| valid_name(n)).ok_or_else(|| {
            format_at(&path, "`name` is missing or not a plain name (letters, digits, `-`, `_`); set `name: <agent>`")
        })?;
        Ok(Hub { root, name, config_peers: config.peers })
    }

    /// Find and open: see [`find_hub`].
    pub fn find(explicit: Option<&Path>) -> Result<Hub> {
        Hub::open(find_hub(explicit)?)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    /// The agent's name: peers address it as `<name>/<thread>` branches.
    pub fn name(&self) -> &str {
        &self.name
    }
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
    pub fn input(&self) -> PathBuf {
        self.root.join("state/input.md")
    }
    pub fn output(&self) -> PathBuf {
        self.root.join("state/output.md")
    }
    pub fn inbox(&self) -> PathBuf {
        self.root.join("threads/inbox")
    }
    pub fn deferred(&self) -> PathBuf {
        self.root.join("threads/deferred")
    }
    pub fn archived(&self) -> PathBuf {
        self.root.join("threads/archived")
    }
    pub fn reflections(&self, cadence: &str) -> PathBuf {
        self.root.join("threads/reflections").join(cadence)
    }
    pub fn outbox(&self) -> PathBuf {
        self.root.join("threads/mail/outbox")
    }
    pub fn sent(&self) -> PathBuf {
        self.root.join("threads/mail/sent")
    }
    pub fn journal_path(&self) -> PathBuf {
        self.root.join("state/journal.jsonl")
    }
    fn peers_file(&self) -> PathBuf {
        self.root.join("state/peers.json")
    }

    /// Every peer: `cn.yaml`'s `peers:` (name: remote), then `state/peers.json` over it.
    pub fn peers(&self) -> Result<BTreeMap<String, Peer>> {
        let mut out: BTreeMap<String, Peer> =
            self.config_peers.iter().map(|(k, v)| (k.clone(), Peer { remote: v.clone() })).collect();
        let file = self.peers_file();
        let added: BTreeMap<String, Peer> = cn_storage::read_json_or_default(&file).map_err(io_at(&file))?;
        out.extend(added);
        Ok(out)
    }

    pub fn peer(&self, name: &str) -> Result<Option<Peer>> {
        Ok(self.peers()?.remove(name))
    }

    /// A known peer, or an error listing the known ones.
    pub fn require_peer(&self, name: &str) -> Result<Peer> {
        let peers = self.peers()?;
        match peers.get(name) {
            Some(p) => Ok(p.clone()),
            None => {
                let known: Vec<&str> = peers.keys().map(String::as_str).collect();
                let known = if known.is_empty() { "none yet".to_string() } else { known.join(", ") };
                Err(AgentError::Invalid(format!(
                    "`{name}` is not a peer of {} (known: {known}); add it with `cn peer add {name} REMOTE`",
                    self.name
                )))
            }
        }
    }

    /// Add (or change) a peer in `state/peers.json`.
    pub fn add_peer(&self, name: &str, remote: &str) -> Result<()> {
        if !valid_name(name) {
            return Err(AgentError::Invalid(format!(
                "peer name `{name}` must be letters, digits, `-` or `_` (it becomes a git branch prefix)"
            )));
        }
        if remote.trim().is_empty() {
            return Err(AgentError::Invalid("the peer's remote is empty; give a git URL or path".into()));
        }
        let file = self.peers_file();
        let mut peers: BTreeMap<String, Peer> = cn_storage::read_json_or_default(&file).map_err(io_at(&file))?;
        peers.insert(name.to_string(), Peer { remote: remote.to_string() });
        cn_storage::write_json_atomic(&file, &peers).map_err(io_at(&file))
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
    }
}
