//! What the crates' integration tests share (each crate's `tests/it`): scratch git
//! repositories, executable scripts, the test binary re-run as a child process (for a test
//! that must kill, attack or re-sandbox the process doing the work), git servers on loopback
//! (`servers`), a hub's files (`hub`), a plain HTTP client (`http`), and proptest strategies for the text the parsers of outside input meet.
//!
//! Invariant: it depends on no crate of cn's, so every crate can take it as a
//! dev-dependency without a cycle; what a fixture needs of a crate, the crate's tests build.

pub mod child;
pub mod hostile;
pub mod http;
pub mod hub;
pub mod servers;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `git ARGS` in `dir`, required to succeed; its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?} in {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A fresh repository in a temp dir: branch `main`, a test identity, no commit.
pub fn git_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    let p = dir.path();
    git(p, &["init", "-q", "-b", "main"]);
    git(p, &["config", "user.name", "cn test"]);
    git(p, &["config", "user.email", "test@cn.invalid"]);
    dir
}

/// A loop's repository: one commit (a .gitignore for compiler output), and `task` written to
/// `loop-run/task.md`.
pub fn loop_repo(task: &str) -> tempfile::TempDir {
    let dir = git_repo();
    let p = dir.path();
    std::fs::write(p.join(".gitignore"), "*.class\n").expect("the .gitignore is written");
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    std::fs::create_dir_all(p.join("loop-run")).expect("loop-run/ is made");
    std::fs::write(p.join("loop-run/task.md"), task).expect("task.md is written");
    dir
}

/// Commit subjects, oldest first.
pub fn subjects(dir: &Path) -> Vec<String> {
    git(dir, &["log", "--reverse", "--format=%s"]).lines().map(str::to_string).collect()
}

/// A file as commit `sha` holds it.
pub fn show(dir: &Path, sha: &str, path: &str) -> String {
    git(dir, &["show", &format!("{sha}:{path}")])
}

/// A bare repository `root/NAME.git`, made `hub`'s git remote `origin`; its path.
pub fn bare_origin(root: &Path, hub: &Path, name: &str) -> PathBuf {
    let bare = root.join(format!("{name}.git"));
    let path = bare.to_str().expect("a UTF-8 temp path");
    git(root, &["init", "-q", "--bare", path]);
    git(hub, &["remote", "add", "origin", path]);
    bare
}

/// Write an executable script (mode 0755).
pub fn write_exec(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, body).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// The `.md` files (not temp files) of a directory, by name; none when it does not exist.
pub fn md_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.expect("a directory entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".md") && !n.starts_with('.'))
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

/// A process's exit status and output, for a failed assertion's message.
pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}
