//! `cn clone REMOTE DIR`: a working hub on another machine, from the hub's origin (cn.yaml
//! `origin.push` keeps it there) — its state, reflexes, notes, threads and journal, as origin
//! holds them; never its secrets (they are not in origin) nor the local model (a cache).
//!
//! Only the hub's branch is fetched: origin also holds peer mail (`cn-mail/…`, `cn-receipt/…`),
//! which is transport, not the hub. The branch is the one origin's lease names, else the one
//! origin's HEAD names, else `main` or `master`, whichever exists.
//!
//! This clone gets secrets of its own: an owner token (its owner endpoint's) and an id key —
//! unless `--id-key FILE` gives the hub's, which a clone that may take the hub's lease over
//! needs (the impulse items of both must get the same ids: see `cn_lease`).
//!
//! Invariant: clone writes nothing it did not fetch into the hub's files (no template is
//! added, so the clone's branch is origin's, commit for commit); what it makes is in `.git/`.

use std::path::{Path, PathBuf};

use cn_git::Git;
use cn_lease::{LeaseRecord, LEASE_REF};

use crate::error::{io_at, AgentError, Result};

/// What `cn clone` made.
#[derive(Debug, Clone)]
pub struct CloneReport {
    pub root: PathBuf,
    pub name: String,
    pub branch: String,
    /// The lease origin holds, if the hub is leased.
    pub lease: Option<LeaseRecord>,
    /// Whether this clone's id key is the hub's as the lease names it (`None`: no lease to
    /// compare with).
    pub same_key: Option<bool>,
    /// cn.yaml's local model is the embedded one, which `cn model pull` fetches.
    pub needs_model: bool,
}

/// Clone the hub at `remote` into `dir` (absent or empty). `branch` overrides the guess;
/// `id_key` is a file holding the hub's id key.
pub fn clone(remote: &str, dir: &Path, branch: Option<&str>, id_key: Option<&Path>) -> Result<CloneReport> {
    cn_git::check_remote(remote)?;
    if dir.exists() && std::fs::read_dir(dir).map_err(io_at(dir))?.next().is_some() {
        return Err(AgentError::Invalid(format!("{} is not empty; give a new directory", dir.display())));
    }
    let key = match id_key {
        Some(path) => {
            let key = std::fs::read_to_string(path).map_err(io_at(path))?.trim().to_string();
            if key.len() < 32 || key.chars().any(char::is_whitespace) {
                return Err(AgentError::Invalid(format!(
                    "{} does not hold an id key (one line of at least 32 characters, as .git/cn-id-key)",
                    path.display()
                )));
            }
            Some(key)
        }
        None => None,
    };
    let made = !dir.exists();
    std::fs::create_dir_all(dir).map_err(io_at(dir))?;
    let result = clone_into(remote, dir, branch, key.as_deref());
    if result.is_err() {
        // Nothing half-made is left behind (a directory this clone created, or emptied).
        if made {
            let _ = std::fs::remove_dir_all(dir);
        } else if let Ok(entries) = std::fs::read_dir(dir) {
            for e in entries.flatten() {
                let _ = std::fs::remove_dir_all(e.path()).or_else(|_| std::fs::remove_file(e.path()));
            }
        }
    }
    result
}

fn clone_into(remote: &str, dir: &Path, branch: Option<&str>, key: Option<&str>) -> Result<CloneReport> {
    let root = dir.canonicalize().map_err(io_at(dir))?;
    let git = Git::new(&root);
    git.init()?;
    // What origin lists: its HEAD, the lease, and the usual branch names.
    let listed = git.list_with_head(remote, &["HEAD", LEASE_REF, "refs/heads/main", "refs/heads/master"])?;
    let head_target = listed.head;
    let mut lease_sha = None;
    let mut heads = Vec::new();
    for (sha, name) in listed.refs {
        match name.as_str() {
            n if n == LEASE_REF => lease_sha = Some(sha),
            n => {
                if let Some(b) = n.strip_prefix("refs/heads/") {
                    heads.push(b.to_string());
                }
            }
        }
    }
    let lease = match &lease_sha {
        Some(sha) => {
            git.fetch_id(remote, sha)?;
            let size = git.object_size(sha)?.unwrap_or(u64::MAX);
            (size <= 16 << 10).then(|| git.commit_text(sha).ok()).flatten().and_then(|t| LeaseRecord::parse(&t))
        }
        None => None,
    };
    let branch = match branch {
        Some(b) => b.to_string(),
        None => lease
            .as_ref()
            .map(|l| l.branch.clone())
            .filter(|b| !b.is_empty())
            .or(head_target.clone().filter(|h| origin_has(&git, remote, h)))
            .or_else(|| ["main", "master"].into_iter().find(|b| heads.iter().any(|h| h == b)).map(str::to_string))
            .ok_or_else(|| {
                AgentError::Invalid(format!(
                    "{} holds no hub branch cn can tell (no lease naming one, no HEAD, no main or master); pass --branch",
                    cn_process::redact::redact(remote)
                ))
            })?,
    };
    git.add_remote("origin", remote, &branch)?;
    git.fetch_remote("origin").map_err(|e| match e {
        cn_git::GitError::Failed { stderr, .. } if stderr.contains("couldn't find remote ref") => {
            AgentError::Invalid(format!("origin has no branch `{branch}`; pass --branch"))
        }
        other => other.into(),
    })?;
    git.checkout_at(&branch, &format!("origin/{branch}"))?;
    let hub = crate::Hub::open(&root).map_err(|e| match e {
        cn_hub::HubError::NoHub(_) => {
            AgentError::Invalid(format!("origin's `{branch}` is not a hub (it holds no cn.yaml at its root)"))
        }
        other => other.into(),
    })?;
    let name = hub.name().to_string();
    // The hub commits as itself, like one `cn init` made.
    git.set_identity(&name, &format!("{name}@cn.invalid"))?;
    let layout = hub.layout();
    cn_hub::owner_token::ensure_file(layout)?;
    if let Some(key) = key {
        let path = layout.id_key();
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&path).map_err(io_at(&path))?;
        std::io::Write::write_all(&mut file, format!("{key}\n").as_bytes()).map_err(io_at(&path))?;
    }
    cn_hub::owner_token::id_key(layout)?;
    cn_hub::owner_token::clone_id(layout)?;
    let same_key = match (&lease, cn_lease::Upstream::of(&hub)) {
        (Some(l), Ok(Some(up))) => up.me().ok().map(|me| me.key == l.key),
        (Some(l), _) => {
            let key = cn_hub::owner_token::id_key(layout)?;
            Some(cn_lease::key_fingerprint(&key) == l.key)
        }
        (None, _) => None,
    };
    let needs_model = hub.config().models.local().provider == Some(cn_hub::config::ProviderKind::Embedded);
    Ok(CloneReport { root, name, branch, lease, same_key, needs_model })
}

/// Whether origin has `branch` (a HEAD may name one that does not exist).
fn origin_has(git: &Git, remote: &str, branch: &str) -> bool {
    git.remote_has_branch(remote, branch)
}
