//! Issue 33's done-when: AI loops on real projects with real toolchains (`javac`, `cargo`,
//! `make`/`cc`, `pytest`; installed by `scripts/deps.sh`), with command components and the
//! manual actuator. Each reaches `complete`; nothing a sensor writes — `.class` files,
//! `build/`, `target/`, `Cargo.lock`, `.pytest_cache/` — reaches the tree or a commit, and
//! the actuator's "Files changed" lists only what it changed. A component that writes
//! `.git/hooks/` or opens a socket is refused, and the loop reports it.
//!
//! Every loop runs twice: on what this kernel gives, and with its newer layers taken away
//! (`CN_TEST_SANDBOX_WITHOUT=namespaces,scope,overlay`: Landlock alone, the sensor in a copy),
//! which is what a kernel without unprivileged user namespaces runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::*;

const FALLBACK: &str = "namespaces,scope,overlay";

/// A git repository holding `files`, committed (no `.gitignore`: nothing hides the sensors'
/// output), with `loop-run/task.md`.
fn project(files: &[(&str, &str)], task: &str) -> tempfile::TempDir {
    let dir = cn_testkit::git_repo();
    let p = dir.path();
    for (path, text) in files {
        let f = p.join(path);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, text).unwrap();
    }
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "--allow-empty", "-m", "initial"]);
    std::fs::create_dir_all(p.join("loop-run")).unwrap();
    std::fs::write(p.join("loop-run/task.md"), task).unwrap();
    dir
}

/// Scripts outside the tree: the judge (target met when every sensor exited 0) and an
/// actuator that writes each iteration's version of files (`N/PATH` under its folder).
struct Scripts {
    dir: tempfile::TempDir,
}

impl Scripts {
    fn new(versions: &[(u64, &str, &str)], extra_actuator: &str) -> Scripts {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write_exec(
            &d.join("judge.sh"),
            "#!/bin/bash\nfront=$(awk '/^---$/{n++; next} n==1' \"$CN_LOOP_RUN/sensor-output.md\")\n\
             bad=$(printf '%s\\n' \"$front\" | grep -E '^(exit-status: |  [A-Za-z0-9_-]+: )' | grep -vE ': 0$')\n\
             [ -z \"$bad\" ] && met=true || met=false\n\
             printf -- '---\\ntarget-met: %s\\n---\\n\\n# Controller Output\\n\\nMake every sensor pass.\\n' $met > \"$CN_LOOP_RUN/controller-output.md\"\n",
        );
        for (n, path, text) in versions {
            let f = d.join(n.to_string()).join(path);
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, text).unwrap();
        }
        write_exec(
            &d.join("actuate.sh"),
            &format!(
                "#!/bin/bash\nv={}/$CN_LOOP_ITERATION\n[ -d \"$v\" ] && (cd \"$v\" && find . -type f) | while read f; do mkdir -p \"$(dirname \"$f\")\"; cp \"$v/$f\" \"$f\"; done\n{extra_actuator}\nexit 0\n",
                d.display()
            ),
        );
        Scripts { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// task.md with these sensors (in order), the judge and the actuator.
    fn task(&self, sensors: &[(&str, &str)], extra: &str) -> String {
        let mut t = String::from("---\nmax-iterations: 6\nsensors:\n");
        for (name, cmd) in sensors {
            t.push_str(&format!("  {name}:\n    command: \"{cmd}\"\n    target: \"exit status 0\"\n"));
        }
        t.push_str(&format!(
            "controller: {{command: \"{}\"}}\nactuator: {{command: \"{}\"}}\n{extra}---\n\n# Task\n\nMake it build and pass.\n",
            self.path("judge.sh").display(),
            self.path("actuate.sh").display()
        ));
        t
    }
}

/// `cn loop run|done DIR`: in this process on what the kernel gives, in a process of its own
/// with the layers `without` names taken away (the kernel is probed once per process).
fn run(dir: &Path, verb: &str, without: Option<&str>) -> Ran {
    match (without, verb) {
        (None, "done") => done(dir),
        (None, _) => crate::support::run(dir),
        (Some(w), "done") => Driver::new(dir).without(Some(w)).done().run(),
        (Some(w), _) => Driver::new(dir).without(Some(w)).run(),
    }
}

/// The loop completed, and no commit nor the tree holds any of `never` (a path prefix).
fn complete_and_clean(dir: &Path, ran: &Ran, never: &[&str]) {
    ran.complete();
    let committed = git(dir, &["log", "--all", "--name-only", "--format="]);
    let tree = git(dir, &["ls-files", "--others", "--cached"]);
    for n in never {
        assert!(
            !committed.lines().any(|l| l.starts_with(n) || l.contains(&format!("/{n}"))),
            "{n} committed:\n{committed}"
        );
        assert!(!tree.lines().any(|l| l.starts_with(n) || l.contains(&format!("/{n}"))), "{n} in the tree:\n{tree}");
    }
    assert!(git(dir, &["status", "--porcelain"]).trim().is_empty(), "all committed: {}", git(dir, &["status"]));
}

/// Every "Files changed" of the history, as the commits' bodies say.
fn files_changed(dir: &Path) -> Vec<String> {
    git(dir, &["log", "--format=%b"])
        .lines()
        .filter_map(|l| l.split_once("Files changed: ").map(|(_, f)| f.split(". ").next().unwrap_or("").to_string()))
        .collect()
}

fn with_both<F: Fn(Option<&str>)>(f: F) {
    for without in [None, Some(FALLBACK)] {
        f(without);
    }
}

#[test]
fn factorial_with_javac_glob_and_a_person_as_the_actuator_commits_no_class_file() {
    with_both(|without| {
        let scripts = Scripts::new(&[], "");
        let task = format!(
            "---\nmax-iterations: 10\nsensors:\n  compilation:\n    command: \"javac src/**/*.java\"\n    target: \"no errors\"\ncontroller: {{command: \"{}\"}}\nactuator: manual\n---\n\n# Task\n\nWrite a Java method `factorial(int n)` that returns the factorial of n.\n",
            scripts.path("judge.sh").display()
        );
        let repo = project(&[], &task);
        let p = repo.path();
        let o = run(p, "run", without);
        assert_eq!(o.end(), (1, "waiting-for-actuator"), "{o}");
        // The person writes the broken file, then fixes it.
        for version in [BROKEN, FIXED] {
            std::fs::create_dir_all(p.join("src/main/java")).unwrap();
            std::fs::write(p.join(JAVA), version).unwrap();
            let o = run(p, "done", without);
            assert_eq!(o.exit_code(), 0, "{o}");
            if version == FIXED {
                complete_and_clean(p, &o, &[]);
            }
        }
        assert_eq!(subjects(p).last().unwrap(), "loop: iteration 3 (complete)");
        let all = git(p, &["log", "--all", "--name-only", "--format="]) + &git(p, &["ls-files", "-o"]);
        assert!(!all.contains(".class"), "a .class file reached the tree or a commit:\n{all}");
        assert!(!p.join("src/main/java/Factorial.class").exists());
        assert_eq!(files_changed(p), [JAVA, JAVA], "only the person's edits");
        // The sensor did compile: its report says exit 0 at the end.
        assert!(show(p, "HEAD~1", "loop-run/sensor-output.md").contains("exit-status: 0"));
    });
}

#[test]
fn factorial_with_javac_into_build_classes_commits_no_build_folder() {
    with_both(|without| {
        let scripts = Scripts::new(&[(1, JAVA, BROKEN), (2, JAVA, FIXED)], "");
        let task = scripts.task(&[("compilation", "javac -d build/classes src/**/*.java")], "");
        let repo = project(&[("src/main/java/.keep", "")], &task);
        let p = repo.path();
        let o = run(p, "run", without);
        complete_and_clean(p, &o, &["build", ".class"]);
        assert_eq!(subjects(p).last().unwrap(), "loop: iteration 3 (complete)", "{o}");
        assert_eq!(files_changed(p), [JAVA, JAVA]);
        // Iteration 2's measurement is javac's two errors; iteration 3's a clean compile.
        let shas = shas(p);
        let s2 = show(p, &shas[shas.len() - 2], "loop-run/sensor-output.md");
        assert!(s2.contains("exit-status: 0"), "{s2}");
        let s1 = show(p, &shas[shas.len() - 3], "loop-run/sensor-output.md");
        assert!(s1.contains("exit-status: 1") && s1.contains("error"), "{s1}");
    });
}

const CARGO_TOML: &str = "[package]\nname = \"fact\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n";
const LIB_BROKEN_TEST: &str = "pub fn factorial(n: u64) -> u64 {\n    (1..n).product()\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn five() {\n        assert_eq!(super::factorial(5), 120);\n    }\n}\n";
const LIB_FIXED: &str = "pub fn factorial(n: u64) -> u64 {\n    (1..=n).product()\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn five() {\n        assert_eq!(super::factorial(5), 120);\n    }\n}\n";

#[test]
fn a_cargo_crate_with_build_then_test_as_two_sensors_commits_no_target() {
    with_both(|without| {
        let scripts = Scripts::new(&[(1, "src/lib.rs", LIB_BROKEN_TEST), (2, "src/lib.rs", LIB_FIXED)], "");
        let task = scripts.task(&[("build", "cargo build --offline"), ("test", "cargo test --offline")], "");
        let repo = project(&[("Cargo.toml", CARGO_TOML), ("src/.keep", "")], &task);
        let p = repo.path();
        let o = run(p, "run", without);
        complete_and_clean(p, &o, &["target", "Cargo.lock"]);
        assert_eq!(files_changed(p), ["src/lib.rs", "src/lib.rs"]);
        let shas = shas(p);
        // Iteration 1: it builds, its test fails — two sections, in task.md's order.
        let s1 = show(p, &shas[shas.len() - 3], "loop-run/sensor-output.md");
        assert!(s1.contains("sensors:\n- build\n- test\nexit-status:\n  build: 0\n  test: 101\n"), "{s1}");
        let (build, test) = (s1.find("\n## build\n").unwrap(), s1.find("\n## test\n").unwrap());
        assert!(build < test && s1[test..].contains("assertion `left == right` failed"), "{s1}");
        // The progress shows both sensors each iteration, with their exit status.
        let stdout = o.lines();
        assert!(stdout.contains("iteration 1 · sensor build · exit 0 · "), "{stdout}");
        assert!(stdout.contains("iteration 1 · sensor test · exit 101 · "), "{stdout}");
        assert!(stdout.contains("iteration 2 · sensor test · exit 0 · "), "{stdout}");
    });
}

#[test]
fn a_c_project_with_make_into_build_and_an_actuator_refused_git_hooks_and_sockets() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    with_both(|without| {
        let makefile = "build/fact: src/fact.c\n\tmkdir -p build\n\tcc -Wall -Werror -o build/fact src/fact.c\n\ntest: build/fact\n\t./build/fact 5 | grep -qx 120\n";
        let broken = "#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char **v) { long r = 1; for (int i = 2; i <= atoi(v[1]); i++) r *= i; printf(\"%ld\\n\", r) return 0; }\n";
        let fixed = "#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char **v) { (void)c; long r = 1; for (int i = 2; i <= atoi(v[1]); i++) r *= i; printf(\"%ld\\n\", r); return 0; }\n";
        // Besides its edit, iteration 1's actuator tries a git hook and a connection.
        let attack = format!(
            "if [ \"$CN_LOOP_ITERATION\" = 1 ]; then\n  echo '#!/bin/sh' > .git/hooks/post-commit || echo 'refused: the hook'\n  \
             (exec 3<>/dev/tcp/127.0.0.1/{port}) || echo 'refused: the socket'\nfi"
        );
        let scripts = Scripts::new(&[(1, "src/fact.c", broken), (2, "src/fact.c", fixed)], &attack);
        let task = scripts.task(&[("make", "make test")], "");
        let repo = project(&[("Makefile", makefile), ("src/.keep", "")], &task);
        let p = repo.path();
        let o = run(p, "run", without);
        complete_and_clean(p, &o, &["build"]);
        assert_eq!(files_changed(p), ["src/fact.c", "src/fact.c"]);
        assert!(!p.join(".git/hooks/post-commit").exists(), "the hook was written");
        listener.set_nonblocking(true).unwrap();
        assert!(listener.accept().is_err(), "the actuator connected");
        // The loop reports both refusals: the actuator's output, committed with iteration 1.
        let shas = shas(p);
        let a1 = show(p, &shas[shas.len() - 3], "loop-run/actuator-output.md");
        assert!(a1.contains("refused: the hook") && a1.contains("refused: the socket"), "{a1}");
        assert!(a1.contains(".git/hooks/post-commit"), "{a1}");
    });
}

/// A Python interpreter with pytest (Debian's `python3-pytest` is for `/usr/bin/python3`).
fn python_with_pytest() -> String {
    for py in ["python3", "/usr/bin/python3"] {
        let ok = Command::new(py).args(["-m", "pytest", "--version"]).output().is_ok_and(|o| o.status.success());
        if ok {
            return py.to_string();
        }
    }
    panic!("pytest is needed: install python3-pytest (scripts/deps.sh --test)");
}

#[test]
fn a_python_project_with_pytest_commits_no_cache() {
    let py = python_with_pytest();
    with_both(|without| {
        let broken = "def factorial(n):\n    r = 1\n    for i in range(2, n):\n        r *= i\n    return r\n";
        let fixed = "def factorial(n):\n    r = 1\n    for i in range(2, n + 1):\n        r *= i\n    return r\n";
        let tests = "from fact import factorial\n\n\ndef test_five():\n    assert factorial(5) == 120\n";
        let scripts = Scripts::new(&[(1, "fact.py", broken), (2, "fact.py", fixed)], "");
        let task = scripts.task(&[("tests", &format!("{py} -m pytest -q"))], "");
        let repo = project(&[("test_fact.py", tests), ("fact.py", "")], &task);
        let p = repo.path();
        let o = run(p, "run", without);
        complete_and_clean(p, &o, &[".pytest_cache", "__pycache__"]);
        assert_eq!(files_changed(p), ["fact.py", "fact.py"]);
        let shas = shas(p);
        let s1 = show(p, &shas[shas.len() - 3], "loop-run/sensor-output.md");
        assert!(s1.contains("exit-status: 1") && s1.contains("assert 24 == 120"), "{s1}");
    });
}

/// Where the kernel gives no user namespace, an actuator cannot create a new entry at the
/// tree's top; task.md's `sandbox: {write: [build]}` names the folder, and cn makes it. With a
/// namespace it can create it either way.
#[test]
fn top_level_folders_an_actuator_creates_with_or_without_namespaces() {
    with_both(|without| {
        for declared in [false, true] {
            let scripts = Scripts::new(&[], "mkdir -p gen && echo made > gen/out.txt || echo 'refused: gen/'");
            let extra = if declared { "sandbox: {write: [gen]}\n" } else { "" };
            let task = scripts.task(&[("check", "test -f gen/out.txt")], extra);
            let repo = project(&[("README", "x\n")], &task);
            let p = repo.path();
            let o = run(p, "run", without);
            let stdout = o.lines();
            let namespaces = o.sandbox().contains("mount namespace");
            if declared || namespaces {
                complete_and_clean(p, &o, &[]);
                assert_eq!(std::fs::read_to_string(p.join("gen/out.txt")).unwrap(), "made\n");
                assert_eq!(files_changed(p), ["gen/out.txt"]);
            } else {
                // Refused, and the loop says so: the actuator's report and the start line.
                assert_eq!(o.exit_code(), 1, "{o}");
                assert!(stdout.contains("an actuator cannot create new entries at the top"), "{stdout}");
                assert!(stdout.contains("`sandbox: {write: [build]}`"), "{stdout}");
                let a = show(p, "HEAD", "loop-run/actuator-output.md");
                assert!(a.contains("refused: gen/") && a.contains("Permission denied"), "{a}");
            }
        }
    });
}
