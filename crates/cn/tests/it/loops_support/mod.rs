//! Shared by the `loops_*` tests of the binary: real git repositories in temp dirs and the
//! real `cn` binary. The loops themselves are cn-loops's tests (crates/loops/tests/it).
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

pub use cn_testkit::{git, text, write_exec};

pub fn cn() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cn"));
    c.env_remove("CN_HUB").env_remove("CN_LOG");
    c
}

/// A git repository with one commit (a .gitignore for compiler output) and `task.md`.
pub fn repo(task: &str) -> tempfile::TempDir {
    let dir = cn_testkit::git_repo();
    let p = dir.path();
    std::fs::write(p.join(".gitignore"), "*.class\n").unwrap();
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    std::fs::create_dir_all(p.join("loop-run")).unwrap();
    std::fs::write(p.join("loop-run/task.md"), task).unwrap();
    dir
}

pub fn run(dir: &Path, args: &[&str]) -> Output {
    cn().args(args).arg(dir).output().unwrap()
}

/// Commit subjects, oldest first.
pub fn subjects(dir: &Path) -> Vec<String> {
    git(dir, &["log", "--reverse", "--format=%s"]).lines().map(str::to_string).collect()
}

pub fn show(dir: &Path, sha: &str, path: &str) -> String {
    git(dir, &["show", &format!("{sha}:{path}")])
}
