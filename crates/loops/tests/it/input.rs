//! Bad input is refused with a clear error before anything runs or is committed; a bad
//! component answer stops the loop with nothing of that iteration committed.

use crate::support::*;

/// A task whose sensor leaves a trace, so a test can tell whether anything ran.
fn task(front: &str) -> String {
    format!("---\n{front}---\n\n# Task\n\nAnything.\n")
}

const OK_COMPONENTS: &str = "controller: {command: \"true\"}\nactuator: {command: \"true\"}\n";

fn refused(task_text: &str, want: &[&str]) {
    let dir = repo(task_text);
    let p = dir.path();
    let ran = run(p);
    let err = ran.refused();
    for w in want {
        assert!(err.contains(w), "missing {w:?} in {ran}");
    }
    assert!(!p.join("sensed").exists(), "the sensor ran: {ran}");
    assert_eq!(subjects(p), ["initial"], "something was committed");
}

#[test]
fn task_without_frontmatter_is_refused() {
    refused("# Task\n\nWrite factorial.\n", &["loop-run/task.md", "no YAML frontmatter"]);
}

#[test]
fn sensor_without_command_is_refused() {
    refused(
        &task(&format!("max-iterations: 3\nsensors:\n  compilation:\n    target: \"no errors\"\n{OK_COMPONENTS}")),
        &["loop-run/task.md", "`sensors.compilation`", "no `command`"],
    );
}

#[test]
fn max_iterations_must_be_a_positive_integer() {
    for bad in ["0", "-3", "ten", "2.5", "\"\""] {
        refused(
            &task(&format!("max-iterations: {bad}\nsensors:\n  s:\n    command: \"touch sensed\"\n{OK_COMPONENTS}")),
            &["loop-run/task.md", "`max-iterations`", "positive integer"],
        );
    }
}

#[test]
fn unknown_components_and_fields_are_refused() {
    refused(
        &task("max-iterations: 3\nsensors:\n  s:\n    command: \"touch sensed\"\ncontroller: {model: gpt}\nactuator: manual\n"),
        &["`controller`", "`model: gpt`"],
    );
    refused(
        &task("max-iterations: 3\nsensors:\n  s:\n    command: \"touch sensed\"\ncontroller: {model: scripted, answers: /nonexistent/answers.yaml}\nactuator: manual\n"),
        &["`controller`", "/nonexistent/answers.yaml"],
    );
    refused(
        &task(&format!("max-iterations: 3\nsensor:\n  s:\n    command: \"touch sensed\"\n{OK_COMPONENTS}")),
        &["unknown frontmatter field `sensor`"],
    );
}

#[test]
fn a_directory_that_is_not_a_git_repository_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::create_dir(p.join("loop-run")).unwrap();
    std::fs::write(
        p.join("loop-run/task.md"),
        task(&format!("max-iterations: 3\nsensors:\n  s:\n    command: \"touch sensed\"\n{OK_COMPONENTS}")),
    )
    .unwrap();
    // git must not find a repository above the temp dir either.
    let ran = Driver::new(p).env("GIT_CEILING_DIRECTORIES", p.parent().unwrap()).run();
    assert!(ran.refused().contains("not a git repository"), "{ran}");
    assert!(!p.join("sensed").exists());
    assert!(!p.join(".git").exists());
}

#[test]
fn a_dirty_working_tree_is_refused_at_start() {
    let dir =
        repo(&task(&format!("max-iterations: 3\nsensors:\n  s:\n    command: \"touch sensed\"\n{OK_COMPONENTS}")));
    let p = dir.path();
    std::fs::write(p.join("notes.txt"), "mine").unwrap();
    std::fs::write(p.join(".gitignore"), "*.class\n*.o\n").unwrap();
    let ran = run(p);
    let err = ran.refused();
    assert!(
        err.contains("uncommitted changes")
            && err.contains("notes.txt (created)")
            && err.contains(".gitignore (modified)"),
        "{ran}"
    );
    assert!(!p.join("sensed").exists());
    assert_eq!(subjects(p), ["initial"]);
    // The person's files are untouched.
    assert_eq!(std::fs::read_to_string(p.join("notes.txt")).unwrap(), "mine");
}

#[test]
fn a_missing_task_is_refused_and_init_writes_the_template() {
    let dir = repo("placeholder");
    let p = dir.path();
    std::fs::remove_file(p.join("loop-run/task.md")).unwrap();
    let ran = run(p);
    assert!(ran.refused().contains("cn loop init"), "{ran}");
    let written = cn_loops::init(p).unwrap_or_else(|e| panic!("{}", cn_compute::chain(&e)));
    assert_eq!(written, p.join("loop-run/task.md"));
    let t = std::fs::read_to_string(p.join("loop-run/task.md")).unwrap();
    assert!(t.starts_with("---\nmax-iterations: 10\nsensors:\n  compilation:\n    command: \"javac src/**/*.java\"\n    target: \"no errors\"\n"), "{t}");
    let again = cn_loops::init(p).expect_err("a second init overwrites the task");
    assert!(again.is_input(), "{again}");
    assert!(cn_compute::chain(&again).contains("already exists"), "{again}");
    assert_eq!(std::fs::read_to_string(p.join("loop-run/task.md")).unwrap(), t, "the task is kept");
}

#[test]
fn a_bad_controller_answer_commits_nothing_of_its_iteration() {
    let scripts = tempfile::tempdir().unwrap();
    let answers = scripts.path().join("controller.yaml");
    std::fs::write(&answers, "1: |\n  The code looks fine to me.\n").unwrap();
    let dir = repo(&task(&format!(
        "max-iterations: 3\nsensors:\n  s:\n    command: \"echo measured\"\ncontroller: {{model: scripted, answers: \"{}\"}}\nactuator: {{command: \"touch acted\"}}\n",
        answers.display()
    )));
    let p = dir.path();
    let ran = run(p);
    let err = ran.failed();
    assert!(err.contains("controller") && err.contains("target-met") && err.contains("The code looks fine"), "{ran}");
    assert_eq!(subjects(p), ["initial", "loop: iteration 0 (running)"]);
    assert!(!p.join("acted").exists());
    assert!(!p.join("loop-run/controller-output.md").exists(), "a half judgment was left behind");
    let o = std::fs::read_to_string(p.join("loop-run/orchestrator-output.md")).unwrap();
    assert!(o.starts_with("---\niteration: 1\nstatus: failed\n"), "{o}");
    let st = status(p);
    assert!(st.contains("working tree: iteration 1 failed"), "{st}");
}

#[test]
fn a_controller_command_must_write_target_met() {
    let dir = repo(&task(
        "max-iterations: 3\nsensors:\n  s:\n    command: \"echo measured\"\ncontroller: {command: \"echo '# no frontmatter' > $CN_LOOP_RUN/controller-output.md\"}\nactuator: {command: \"true\"}\n",
    ));
    let p = dir.path();
    let ran = run(p);
    let err = ran.failed();
    assert!(err.contains("loop-run/controller-output.md") && err.contains("`target-met`"), "{ran}");
    assert_eq!(subjects(p), ["initial", "loop: iteration 0 (running)"]);
}

#[test]
fn a_loop_in_a_subdirectory_commits_only_its_directory() {
    let dir = repo("unused");
    let root = dir.path();
    std::fs::remove_dir_all(root.join("loop-run")).unwrap();
    std::fs::write(root.join("other.txt"), "one\n").unwrap();
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "other"]);
    let p = root.join("proj");
    std::fs::create_dir_all(p.join("loop-run")).unwrap();
    // The sandbox lets components create files in the tree's directories, not at its top.
    std::fs::create_dir_all(p.join("out")).unwrap();
    std::fs::write(
        p.join("loop-run/task.md"),
        task("max-iterations: 3\nsensors:\n  s:\n    command: \"cat out/ok.txt\"\ncontroller: {command: \"if [ -e out/ok.txt ]; then m=true; else m=false; fi; printf -- '---\\\\ntarget-met: %s\\\\n---\\\\n' $m > $CN_LOOP_RUN/controller-output.md\"}\nactuator: {command: \"echo yes > out/ok.txt\"}\n"),
    )
    .unwrap();
    // A change outside DIR is not the loop's business: neither refused nor committed.
    std::fs::write(root.join("other.txt"), "two\n").unwrap();
    let ran = run(&p);
    ran.complete();
    for sha in git(root, &["log", "--format=%H", "--grep", "loop: iteration"]).lines() {
        let files = git(root, &["show", "--name-only", "--format=", sha]);
        assert!(files.lines().all(|f| f.starts_with("proj/")), "{sha}: {files}");
    }
    assert_eq!(git(root, &["status", "--porcelain"]), " M other.txt\n");
    let body = git(root, &["log", "-1", "--skip=1", "--format=%b"]);
    assert!(body.contains("Files changed: out/ok.txt."), "{body}");
}
