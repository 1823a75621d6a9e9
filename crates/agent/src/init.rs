//! `cn init`: make a directory a hub — a git repository with the layout, a commented
//! `cn.yaml`, the lean core memory and the notes it points to, example reflexes and a
//! schedule — and commit it.
//!
//! Invariant: init never overwrites a file; running it again only adds what is missing.

use std::path::{Path, PathBuf};

use crate::error::{io_at, AgentError, Result};
use crate::git::{commit_all, git};
use crate::hub::valid_name;
use crate::item::Cadence;

/// The directories of a hub; each gets a `.gitkeep` so git keeps it while empty.
const DIRS: &[&str] = &[
    "state/reflexes",
    "state/mca",
    "state/notes",
    "threads/inbox",
    "threads/doing",
    "threads/deferred",
    "threads/archived",
    "threads/mail/outbox",
    "threads/mail/sent",
    "loops",
];

/// The files `cn init` writes (path, template). `{{name}}` becomes the agent's name in the
/// files marked `true`.
const FILES: &[(&str, &str, bool)] = &[
    ("cn.yaml", include_str!("templates/cn.yaml"), true),
    (".gitignore", include_str!("templates/gitignore"), false),
    ("state/notes/core_seed.md", include_str!("templates/core_seed.md"), true),
    ("state/notes/systems.md", include_str!("templates/systems.md"), false),
    ("state/notes/reflexes.md", include_str!("templates/reflexes.md"), false),
    ("state/notes/actions.md", include_str!("templates/actions.md"), false),
    ("state/reflexes/hello.yaml", include_str!("templates/hello.yaml"), true),
    ("state/reflexes/summarize-url.yaml", include_str!("templates/summarize-url.yaml"), false),
    ("state/schedule.json", include_str!("templates/schedule.json"), false),
    ("state/tasks.json", "[]\n", false),
    ("state/ideas.json", "[]\n", false),
    ("state/journal.jsonl", "", false),
];

/// What `cn init` did.
#[derive(Debug, Clone)]
pub struct InitReport {
    pub root: PathBuf,
    pub name: String,
    /// Files written, relative to the hub.
    pub created: Vec<String>,
    /// Files that were already there and were left alone.
    pub kept: Vec<String>,
    pub committed: bool,
}

/// Create (or complete) a hub at `dir`. `name` defaults to the directory's name.
pub fn init(dir: &Path, name: Option<&str>) -> Result<InitReport> {
    std::fs::create_dir_all(dir).map_err(io_at(dir))?;
    let root = dir.canonicalize().map_err(io_at(dir))?;
    let name = match name {
        Some(n) => n.to_string(),
        None => root.file_name().and_then(|n| n.to_str()).map(default_name).unwrap_or_else(|| "cn".into()),
    };
    if !valid_name(&name) {
        return Err(AgentError::Invalid(format!(
            "agent name `{name}` must be letters, digits, `-`, `_` or `.` (it becomes a git branch prefix); pass --name"
        )));
    }

    let mut created = Vec::new();
    let mut kept = Vec::new();
    let mut dirs: Vec<String> = DIRS.iter().map(|d| d.to_string()).collect();
    dirs.extend(Cadence::ALL.iter().filter(|c| c.is_reflection()).map(|c| format!("threads/reflections/{}", c.as_str())));
    for d in &dirs {
        let keep = root.join(d).join(".gitkeep");
        if !keep.exists() {
            cn_storage::write_atomic(&keep, b"").map_err(io_at(&keep))?;
        }
    }
    for (rel, template, named) in FILES {
        let path = root.join(rel);
        if path.exists() {
            kept.push(rel.to_string());
            continue;
        }
        let text = if *named { template.replace("{{name}}", &name) } else { template.to_string() };
        cn_storage::write_atomic(&path, text.as_bytes()).map_err(io_at(&path))?;
        created.push(rel.to_string());
    }

    let fresh = !root.join(".git").exists();
    if fresh {
        git(&root, &["init", "-q"])?;
    }
    // The agent commits as itself unless the repository says otherwise.
    if git(&root, &["config", "--local", "user.name"]).is_err() {
        git(&root, &["config", "--local", "user.name", &name])?;
        git(&root, &["config", "--local", "user.email", &format!("{name}@cn.invalid")])?;
    }
    // A second init that added nothing leaves the owner's uncommitted edits alone.
    let committed = if fresh || !created.is_empty() { commit_all(&root, &format!("cn init: hub {name}"))? } else { false };
    Ok(InitReport { root, name, created, kept, committed })
}

/// A directory name made into an agent name.
fn default_name(dir: &str) -> String {
    let n: String = dir.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect();
    let n = n.trim_matches('-').to_string();
    if valid_name(&n) { n } else { "cn".into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_a_committed_hub_and_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sigma");
        let r = init(&root, None).unwrap();
        assert_eq!(r.name, "sigma");
        assert!(r.committed && r.kept.is_empty());
        let hub = crate::Hub::open(&r.root).unwrap();
        assert_eq!(hub.name(), "sigma");
        for f in ["state/notes/core_seed.md", "state/reflexes/hello.yaml", "threads/reflections/daily/.gitkeep"] {
            assert!(r.root.join(f).is_file(), "{f}");
        }
        // The policy block is one the tools layer accepts.
        let yaml: serde_json::Value =
            serde_yaml_ng::from_str(&std::fs::read_to_string(r.root.join("cn.yaml")).unwrap()).unwrap();
        let policy = cn_tools::Policy::from_config(yaml.get("policy")).unwrap();
        assert!(policy.allows(3, "delegate") && !policy.allows(2, "send"));

        std::fs::write(r.root.join("cn.yaml"), "name: changed\n").unwrap();
        let again = init(&root, Some("other")).unwrap();
        assert!(again.created.is_empty(), "{:?}", again.created);
        assert_eq!(std::fs::read_to_string(r.root.join("cn.yaml")).unwrap(), "name: changed\n");
        assert!(init(&root, Some("a/b")).is_err());
    }
}
