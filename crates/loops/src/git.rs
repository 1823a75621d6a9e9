//! Git as the loop sees it: the loop's clock and its history, on top of the hub's one git
//! wrapper (`cn_git`, which never prompts). Every call runs in DIR, so pathspecs are
//! relative to the codebase even when DIR is a subdirectory of a repository.

use std::path::{Path, PathBuf};

use crate::artifacts::LOOP_RUN;
use crate::error::{LoopError, Result};

/// The subject every loop commit starts with; `status` and history find commits by it.
pub const SUBJECT_PREFIX: &str = "loop: iteration ";

/// The trailer that records which task.md an iteration ran (its SHA-256).
pub const TASK_TRAILER: &str = "Task-SHA256: ";

#[derive(Debug, Clone)]
pub struct Git {
    git: cn_git::Git,
    /// DIR relative to the repository's root (`""` at the root, else ending in `/`), which
    /// `git add -v` prints paths relative to.
    prefix: String,
    /// The gitlinks under DIR as the index had them when first asked (relative to DIR): the
    /// folders git looks into whenever it stages the tree. The loop adds none, so the list
    /// holds for the run ([`Git::check_repositories`]).
    gitlinks: std::cell::OnceCell<Vec<String>>,
}

/// One loop commit, read back from `git log`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopCommit {
    pub sha: String,
    pub iteration: u64,
    pub status: String,
    /// The commit body: the history line of that iteration.
    pub body: String,
    /// The SHA-256 of the task.md the iteration ran (its `Task-SHA256:` trailer).
    pub task_sha256: Option<String>,
}

impl Git {
    /// Refuse a directory that is not inside a git working tree.
    pub fn open(dir: &Path) -> Result<Git> {
        let git = cn_git::Git::new(dir);
        match git.work_tree_prefix() {
            Some(prefix) => Ok(Git { git, prefix, gitlinks: std::cell::OnceCell::new() }),
            None => Err(LoopError::input(format!(
                "{}: not a git repository; the loop commits each iteration, so run `git init` there first",
                dir.display()
            ))),
        }
    }

    pub fn run(&self, args: &[&str]) -> Result<String> {
        Ok(self.git.run(args)?)
    }

    /// The last `n` commits touching `path` with their patches (`cn_git::Git::patches`).
    pub fn patches(&self, n: usize, path: &str) -> Result<String> {
        Ok(self.git.patches(n, path)?)
    }

    /// The repository's git directory (where the loop's lock lives, outside the tree).
    pub fn git_dir(&self) -> Result<PathBuf> {
        Ok(self.git.git_dir()?)
    }

    /// Paths under DIR that differ from HEAD (staged, unstaged or untracked), `loop-run/`
    /// excluded: the code changes an actuator (or a person) made and nobody committed.
    pub fn changed_code(&self) -> Result<Vec<String>> {
        self.check_repositories()?;
        let exclude = format!(":(exclude){LOOP_RUN}");
        // Not into a submodule's own working tree: git would run `git status` there, with
        // that repository's configuration.
        let out = self.run(&[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--ignore-submodules=dirty",
            "--",
            ".",
            &exclude,
        ])?;
        let mut paths = Vec::new();
        let mut entries = out.split('\0').filter(|e| !e.is_empty());
        while let Some(entry) = entries.next() {
            let (code, path) = entry.split_at(entry.len().min(3));
            paths.push(format!("{} ({})", path, describe(code.trim())));
            if code.starts_with('R') || code.starts_with('C') {
                // A rename's entry is followed by its source path.
                entries.next();
            }
        }
        Ok(paths)
    }

    /// A file as HEAD has it (`None` when HEAD or the file does not exist).
    pub fn show_head(&self, rel: &str) -> Option<String> {
        self.git.show_head(rel)
    }

    /// Stage everything under DIR; return what changed outside `loop-run/` (`path`, or
    /// `path (deleted)`), as `git add -v` reports it — one git process for both.
    ///
    /// A git repository of its own that appeared in the tree is never staged (see
    /// [`Git::check_repositories`]): it is taken out of the index at once and the run stops.
    pub fn stage(&self) -> Result<Vec<String>> {
        self.check_repositories()?;
        let out = self.run(&["add", "-A", "-v", "--", "."])?;
        let added: Vec<String> = cn_git::Git::added_paths(&out)
            .into_iter()
            .map(|p| p.strip_prefix(self.prefix.as_str()).map_or(p.clone(), str::to_string))
            .collect();
        let nested = self.git.unstage_repositories(&added)?;
        if !nested.is_empty() {
            return Err(LoopError::Repository { paths: nested, dir: self.git.dir().to_path_buf() });
        }
        let own = format!("{}{LOOP_RUN}/", self.prefix);
        let mut changed = Vec::new();
        for line in out.lines() {
            let (path, deleted) = match (line.strip_prefix("add "), line.strip_prefix("remove ")) {
                (Some(p), _) => (p, false),
                (_, Some(p)) => (p, true),
                _ => continue,
            };
            let path = path.trim().trim_matches('\'');
            if path.starts_with(&own) {
                continue;
            }
            let path = path.strip_prefix(self.prefix.as_str()).unwrap_or(path);
            changed.push(if deleted { format!("{path} (deleted)") } else { path.to_string() });
        }
        Ok(changed)
    }

    /// Refuse a git repository of its own inside the tree that git would look into.
    ///
    /// Every `git add` of the tree runs `git status` inside each gitlink's folder, with that
    /// repository's configuration: a `core.fsmonitor` hook or a clean filter there is a
    /// command cn's git runs as the owner, outside any sandbox. A component may write every
    /// folder of the tree, so a gitlink is taken only as a submodule whose git directory is
    /// in the repository's own (`.git/modules/…`, which no component can write) — or one not
    /// checked out at all. New repositories are never staged ([`Git::stage`]).
    pub fn check_repositories(&self) -> Result<()> {
        let gitlinks = match self.gitlinks.get() {
            Some(g) => g,
            None => {
                let listed = self.run(&["ls-files", "-z", "--stage", "--", "."])?;
                let found = listed
                    .split('\0')
                    .filter_map(|e| e.strip_prefix("160000 "))
                    .filter_map(|e| e.split_once('\t').map(|(_, path)| path.to_string()))
                    .collect();
                self.gitlinks.get_or_init(|| found)
            }
        };
        if gitlinks.is_empty() {
            return Ok(());
        }
        let common = self.run(&["rev-parse", "--path-format=absolute", "--git-common-dir"])?;
        let common = Path::new(common.trim()).canonicalize().map_err(LoopError::io(common.trim()))?;
        let dir = self.git.dir();
        let foreign: Vec<String> = gitlinks.iter().filter(|p| !submodule_of(&dir.join(p), &common)).cloned().collect();
        if foreign.is_empty() {
            return Ok(());
        }
        Err(LoopError::Repository { paths: foreign, dir: dir.to_path_buf() })
    }

    /// Commit DIR: the tracked files written since [`Git::stage`] (the orchestrator's own
    /// output) are taken as they are; `stage_first` stages everything first, for a commit
    /// whose new files were never staged. The iteration's one clock tick.
    pub fn commit(&self, subject: &str, body: &str, stage_first: bool) -> Result<()> {
        if stage_first {
            self.stage()?;
        }
        // Automatic maintenance would spawn another git after every commit; the loop runs it
        // once per `cn loop run` instead (`maintain`).
        // `-- .` (not `-a`): the commit takes DIR's files as they are now — what was staged
        // plus what was written since — and nothing outside DIR, even when DIR is a
        // subdirectory of a repository with other changes.
        let fixed = ["-c", "gc.auto=0", "-c", "maintenance.auto=false", "commit", "-q", "--no-verify", "--allow-empty"];
        let mut args: Vec<&str> = fixed.to_vec();
        args.extend(["-m", subject, "-m", body, "--", "."]);
        self.run(&args)?;
        Ok(())
    }

    /// Git's automatic maintenance (packing loose objects), once per run; failures only logged.
    pub fn maintain(&self) {
        self.git.maintain()
    }

    /// The loop commits touching `loop-run/`, oldest first, since the last iteration 0
    /// (an earlier loop in the same directory is not this loop's history).
    pub fn loop_commits(&self) -> Result<Vec<LoopCommit>> {
        if self.run(&["rev-parse", "-q", "--verify", "HEAD"]).is_err() {
            return Ok(Vec::new());
        }
        let out = self.run(&[
            "log",
            "--format=%H%x1f%s%x1f%b%x1e",
            "--fixed-strings",
            &format!("--grep={SUBJECT_PREFIX}"),
            "--",
            LOOP_RUN,
        ])?;
        let mut commits = Vec::new();
        for record in out.split('\x1e') {
            let mut fields = record.trim_start_matches('\n').splitn(3, '\x1f');
            let (Some(sha), Some(subject), body) = (fields.next(), fields.next(), fields.next()) else {
                continue;
            };
            let Some((iteration, status)) = parse_subject(subject) else {
                continue;
            };
            // The body is the history line, then the trailer.
            let body = body.unwrap_or("").trim();
            let (line, task) = match body.rsplit_once(TASK_TRAILER) {
                Some((line, hash)) => (line.trim(), Some(hash.trim().to_string())),
                None => (body, None),
            };
            commits.push(LoopCommit {
                sha: sha.to_string(),
                iteration,
                status,
                body: line.to_string(),
                task_sha256: task,
            });
            if iteration == 0 {
                break;
            }
        }
        commits.reverse();
        Ok(commits)
    }
}

/// Whether the folder of a gitlink is safe for git to look into: not checked out (no
/// `.git`), or a submodule whose `.git` file points into the repository's git directory
/// `common`. A `.git` folder, a link, or a file pointing elsewhere is a repository whose
/// configuration anyone who writes the tree chose.
fn submodule_of(folder: &Path, common: &Path) -> bool {
    match folder.symlink_metadata() {
        Err(_) => return true,
        Ok(m) if !m.is_dir() => return true,
        Ok(_) => {}
    }
    let dot_git = folder.join(".git");
    match dot_git.symlink_metadata() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
        Ok(m) if m.is_file() => {
            let Ok(text) = std::fs::read_to_string(&dot_git) else { return false };
            let Some(target) = text.lines().next().and_then(|l| l.strip_prefix("gitdir:")) else { return false };
            folder.join(target.trim()).canonicalize().is_ok_and(|t| t.starts_with(common))
        }
        _ => false,
    }
}

/// `loop: iteration 3 (complete)` → (3, "complete").
pub fn parse_subject(subject: &str) -> Option<(u64, String)> {
    let rest = subject.strip_prefix(SUBJECT_PREFIX)?;
    let (n, status) = rest.split_once(' ')?;
    let status = status.strip_prefix('(')?.strip_suffix(')')?;
    Some((n.parse().ok()?, status.to_string()))
}

pub fn subject(iteration: u64, status: &str) -> String {
    format!("{SUBJECT_PREFIX}{iteration} ({status})")
}

fn describe(code: &str) -> &'static str {
    match code.chars().find(|c| *c != ' ') {
        Some('?') | Some('A') => "created",
        Some('D') => "deleted",
        Some('R') => "renamed",
        _ => "modified",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_round_trip() {
        assert_eq!(parse_subject(&subject(3, "complete")), Some((3, "complete".to_string())));
        assert_eq!(parse_subject("loop: iteration x (y)"), None);
        assert_eq!(parse_subject("fix typo"), None);
    }
}
