//! Shared by the `loops_*` end-to-end tests: real git repositories in temp dirs, the real
//! `cn` binary, and readers for the artifacts as each commit holds them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The Factorial file as the walkthrough's iteration 1 writes it: a missing return type
/// (line 3) and an unclosed brace (end of file at line 8).
pub const BROKEN: &str = "public class Factorial {\n\n    public factorial(int n) {\n        long result = 1;\n        for (int i = 2; i <= n; i++) {\n            result *= i;\n        }\n        return result;\n";
/// After iteration 2's two fixes.
pub const FIXED: &str = "public class Factorial {\n\n    public static long factorial(int n) {\n        long result = 1;\n        for (int i = 2; i <= n; i++) {\n            result *= i;\n        }\n        return result;\n    }\n}\n";

pub const JAVA: &str = "src/main/java/Factorial.java";

pub fn cn() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cn"));
    c.env_remove("CN_HUB").env_remove("CN_LOG");
    c
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// A git repository with one commit (a .gitignore for compiler output) and `task.md`.
pub fn repo(task: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    git(p, &["init", "-q", "-b", "main"]);
    git(p, &["config", "user.name", "Loop Test"]);
    git(p, &["config", "user.email", "loop@test.invalid"]);
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

pub fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Commit subjects, oldest first.
pub fn subjects(dir: &Path) -> Vec<String> {
    git(dir, &["log", "--reverse", "--format=%s"]).lines().map(str::to_string).collect()
}

/// Commit shas, oldest first.
pub fn shas(dir: &Path) -> Vec<String> {
    git(dir, &["log", "--reverse", "--format=%H"]).lines().map(str::to_string).collect()
}

pub fn show(dir: &Path, sha: &str, path: &str) -> String {
    git(dir, &["show", &format!("{sha}:{path}")])
}

/// A file's frontmatter at a commit, as YAML text (between the `---` lines).
pub fn front(dir: &Path, sha: &str, file: &str) -> String {
    let t = show(dir, sha, &format!("loop-run/{file}"));
    if !t.starts_with("---\n") {
        return String::new();
    }
    let rest = &t[4..];
    rest[..rest.find("\n---\n").map(|i| i + 1).unwrap_or(0)].to_string()
}

pub fn write_exec(path: &PathBuf, body: &str) {
    std::fs::write(path, body).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
