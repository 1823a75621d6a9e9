//! `cn init`: make a directory a hub — a git repository with the layout, a commented
//! `cn.yaml`, the lean core memory and the notes it points to, example reflexes and a
//! schedule — and commit it; and make the owner token (in `.git`, never committed).
//!
//! Invariant: init never overwrites a file; running it again only adds what is missing.

use std::path::{Path, PathBuf};

use cn_git::Git;

use crate::error::{io_at, AgentError, Result};
use crate::item::Cadence;
use cn_hub::hub::name_problem;
use cn_hub::Layout;

/// The directories of a hub; each gets a `.gitkeep` so git keeps it while empty.
fn dirs(l: &Layout) -> Vec<PathBuf> {
    let mut dirs =
        vec![l.reflexes(), l.mca(), l.notes(), l.inbox(), l.doing(), l.deferred(), l.archived(), l.outbox(), l.sent()];
    dirs.extend(Cadence::ALL.iter().filter(|c| c.is_reflection()).map(|c| l.reflections(c.as_str())));
    dirs.push(l.loops());
    dirs
}

/// The files `cn init` writes (path, template). In the files marked `true`, `{{name}}`
/// becomes the agent's name and `{{port}}` the owner endpoint's port ([`free_port`]).
fn files(l: &Layout) -> [(PathBuf, &'static str, bool); 18] {
    [
        (l.config(), include_str!("templates/cn.yaml"), true),
        (l.root().join(".gitignore"), include_str!("templates/gitignore"), false),
        (l.core_seed(), include_str!("templates/core_seed.md"), true),
        (l.note("systems"), include_str!("templates/systems.md"), false),
        (l.note("reflexes"), include_str!("templates/reflexes.md"), false),
        (l.note("actions"), include_str!("templates/actions.md"), false),
        (l.reflex("hello"), include_str!("templates/hello.yaml"), true),
        (l.reflex("summarize-url"), include_str!("templates/summarize-url.yaml"), false),
        // The starter set: the routine answered below the executive (issue 17).
        (l.reflex("thanks"), include_str!("templates/thanks.yaml"), false),
        (l.reflex("bye"), include_str!("templates/bye.yaml"), true),
        (l.reflex("routine"), include_str!("templates/routine.yaml"), false),
        (l.reflex("time"), include_str!("templates/time.yaml"), false),
        (l.reflex("doing"), include_str!("templates/doing.yaml"), false),
        (l.reflex("why"), include_str!("templates/why.yaml"), false),
        (l.schedule(), include_str!("templates/schedule.json"), false),
        (l.tasks(), "[]\n", false),
        (l.ideas(), "[]\n", false),
        (l.journal(), "", false),
    ]
}

/// What `cn init` did.
#[derive(Debug, Clone)]
pub struct InitReport {
    pub root: PathBuf,
    pub name: String,
    /// Files written, relative to the hub.
    pub created: Vec<String>,
    /// Every path init's commit holds: the files it wrote, the `.gitkeep` of each empty
    /// directory, and a completed `.gitignore`.
    pub committed_paths: Vec<String>,
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
    if let Some(why) = name_problem(&name) {
        return Err(AgentError::Invalid(format!("agent name: {why}; pass --name")));
    }

    let mut created = Vec::new();
    let mut kept = Vec::new();
    let layout = Layout::new(&root);
    // What init itself wrote: the only paths its commit stages (a folder made a hub keeps
    // its other files out of the commit — a `secret.env` stays the owner's business).
    let mut own = Vec::new();
    let port = free_port().to_string();
    for d in dirs(&layout) {
        let keep = d.join(".gitkeep");
        if !keep.exists() {
            cn_storage::write_atomic(&keep, b"").map_err(io_at(&keep))?;
            own.push(layout.relative(&keep).to_string_lossy().into_owned());
        }
    }
    for (path, template, named) in files(&layout) {
        let rel = layout.relative(&path).to_string_lossy().into_owned();
        if path.exists() {
            kept.push(rel);
            continue;
        }
        let text =
            if named { template.replace("{{name}}", &name).replace("{{port}}", &port) } else { template.to_string() };
        cn_storage::write_atomic(&path, text.as_bytes()).map_err(io_at(&path))?;
        created.push(rel);
    }
    // An existing .gitignore (the owner's) gets the runtime lines it lacks, appended.
    let ignore = root.join(".gitignore");
    if kept.iter().any(|k| k == ".gitignore") && complete_gitignore(&ignore)? {
        own.push(".gitignore".to_string());
    }
    own.extend(created.iter().cloned());

    let fresh = !root.join(".git").exists();
    let git = Git::new(&root);
    if fresh {
        git.init()?;
    }
    // The agent commits as itself unless the repository says otherwise.
    if !git.has_identity() {
        git.set_identity(&name, &format!("{name}@cn.invalid"))?;
    }
    // The owner endpoint's token, inside .git so it is never committed.
    cn_hub::owner_token::ensure_file(&layout)?;
    // Only init's own files are staged and committed; a second init that added nothing
    // leaves the owner's uncommitted edits alone.
    let committed = if own.is_empty() {
        false
    } else {
        let paths: Vec<&str> = own.iter().map(String::as_str).collect();
        git.add_forced(&paths)?;
        git.commit_only(&format!("cn init: hub {name}"), &paths)?;
        true
    };
    Ok(InitReport { root, name, created, kept, committed_paths: if committed { own } else { Vec::new() }, committed })
}

/// A loopback port nothing listens on now, for `senses.bind`: so a second hub on the machine
/// does not find its owner endpoint taken by the first (the daemon still reports a port taken
/// later, naming `senses.bind`). Drawn at random from below Linux's ephemeral range, so two
/// hubs made before either runs are unlikely to draw the same; 7878 if none is free.
pub fn free_port() -> u16 {
    const FIRST: u16 = 20000;
    const SPAN: u64 = 12000;
    for _ in 0..64 {
        let draw = u64::from_str_radix(&cn_hub::id::new(), 16).unwrap_or(0) % SPAN;
        let port = FIRST + draw as u16;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    7878
}

/// Give a hub made by an older cn the runtime lines its `.gitignore` lacks (files a newer cn
/// writes at run time, which a decision's commit would otherwise take in), and commit that
/// change alone. The daemon calls it as it starts; true when it changed the file. A hub
/// without `.gitignore` or without git is left alone.
pub fn ensure_gitignore(root: &Path) -> Result<bool> {
    let ignore = root.join(".gitignore");
    if !ignore.is_file() || !root.join(".git").exists() || !complete_gitignore(&ignore)? {
        return Ok(false);
    }
    Git::new(root).commit_paths_quick("cn: .gitignore ignores the runtime files of this cn", &[".gitignore"])?;
    Ok(true)
}

/// Append the runtime lines of init's `.gitignore` that `path` lacks; true when it changed.
fn complete_gitignore(path: &Path) -> Result<bool> {
    let mut text = std::fs::read_to_string(path).map_err(io_at(path))?;
    let have: Vec<&str> = text.lines().map(str::trim).collect();
    let missing: Vec<&str> = include_str!("templates/gitignore")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty() && !have.contains(&l.trim()))
        .collect();
    if missing.is_empty() {
        return Ok(false);
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("# cn's locks, run state and caches (added by cn)\n");
    for l in missing {
        text.push_str(l);
        text.push('\n');
    }
    cn_storage::write_atomic(path, text.as_bytes()).map_err(io_at(path))?;
    Ok(true)
}

/// A directory name made into an agent name.
fn default_name(dir: &str) -> String {
    let n: String =
        dir.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect();
    let n = n.trim_matches('-').to_string();
    if name_problem(&n).is_none() {
        n
    } else {
        "cn".into()
    }
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
        assert_eq!(std::fs::read_to_string(r.root.join(".git/cn-owner-token")).unwrap().trim().len(), 64);
        let hub = crate::Hub::open(&r.root).unwrap();
        assert_eq!(hub.name(), "sigma");
        for f in ["state/notes/core_seed.md", "state/reflexes/hello.yaml", "threads/reflections/daily/.gitkeep"] {
            assert!(r.root.join(f).is_file(), "{f}");
        }
        // The policy block is one the tools layer accepts.
        let policy = hub.config().policy.clone();
        assert!(policy.allows(3, "delegate") && !policy.allows(2, "send"));
        // The grants `cn init` writes are the ones a cn.yaml without `policy:` means.
        assert_eq!(policy.levels, cn_hub::config::Policy::documented().levels);

        std::fs::write(r.root.join("cn.yaml"), "name: changed\n").unwrap();
        let again = init(&root, Some("other")).unwrap();
        assert!(again.created.is_empty(), "{:?}", again.created);
        assert_eq!(std::fs::read_to_string(r.root.join("cn.yaml")).unwrap(), "name: changed\n");
        assert!(init(&root, Some("a/b")).is_err());
    }

    #[test]
    fn an_older_hubs_gitignore_gets_the_runtime_lines_in_a_commit_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let r = init(&dir.path().join("sigma"), None).unwrap();
        assert!(!ensure_gitignore(&r.root).unwrap(), "a fresh hub has them all");
        let ignore = r.root.join(".gitignore");
        let old = std::fs::read_to_string(&ignore).unwrap().replace("state/peer-status.json\n", "");
        std::fs::write(&ignore, old).unwrap();
        Git::new(&r.root).commit_paths_quick("an older cn", &[".gitignore"]).unwrap();
        assert!(ensure_gitignore(&r.root).unwrap());
        assert!(std::fs::read_to_string(&ignore).unwrap().contains("state/peer-status.json"));
        assert!(Git::new(&r.root).is_clean(), "committed");
    }
}
