//! `cn loop init|run|done|status` as a person runs them: the lines printed, and the exit code
//! for each way a run ends (0 complete or waiting for the person, 1 short of the target,
//! 2 bad input, 3 nothing to do). What a loop does is cn-loops's (crates/loops/tests/it).

use crate::loops_support::*;

const JUDGE: &str = "controller: {command: \"if [ -e out/ok.txt ]; then m=true; else m=false; fi; printf -- '---\\\\ntarget-met: %s\\\\n---\\\\n' $m > $CN_LOOP_RUN/controller-output.md\"}\n";

fn task(rest: &str) -> String {
    format!(
        "---\nmax-iterations: 3\nsensors:\n  s:\n    command: \"cat out/ok.txt\"\n{rest}---\n\n# Task\n\nAnything.\n"
    )
}

/// `DIR/out/`, where the actuator may write (not at the tree's top).
fn with_out(task: &str) -> tempfile::TempDir {
    let dir = repo(task);
    std::fs::create_dir(dir.path().join("out")).unwrap();
    dir
}

fn said(out: &std::process::Output, code: i32, stdout_has: &str) {
    assert_eq!(out.status.code(), Some(code), "{}", text(out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(stdout_has), "{}", text(out));
}

#[test]
fn each_end_of_a_run_has_its_line_and_exit_code() {
    // init: the template, and what to do next.
    let dir = repo("unused");
    let p = dir.path();
    std::fs::remove_file(p.join("loop-run/task.md")).unwrap();
    let out = run(p, &["loop", "init"]);
    said(&out, 0, &format!("wrote {}/loop-run/task.md", p.display()));
    said(&out, 0, "then: cn loop run");
    let again = run(p, &["loop", "init"]);
    assert_eq!(again.status.code(), Some(2), "{}", text(&again));
    assert!(String::from_utf8_lossy(&again.stderr).starts_with("cn: "), "{}", text(&again));

    // Complete: a line per component, then the outcome; run again: nothing to do.
    let dir = with_out(&task(&format!("{JUDGE}actuator: {{command: \"echo yes > out/ok.txt\"}}\n")));
    let p = dir.path();
    let out = run(p, &["loop", "run"]);
    said(&out, 0, "iteration 1 · sensor s · exit 0 · ");
    said(&out, 0, "iteration 2: complete — the target is met");
    said(&run(p, &["loop", "run"]), 3, "iteration 2: complete; the loop has ended, nothing to do");
    let st = run(p, &["loop", "status"]);
    assert_eq!(st.status.code(), Some(0), "{}", text(&st));
    assert!(String::from_utf8_lossy(&st.stdout).starts_with("iteration: 2\nstatus: complete\n"), "{}", text(&st));

    // Short of the target at max-iterations.
    let dir = with_out(&task("controller: {command: \"printf -- '---\\\\ntarget-met: false\\\\n---\\\\n' > $CN_LOOP_RUN/controller-output.md\"}\nactuator: {command: \"true\"}\n"));
    said(&run(dir.path(), &["loop", "run"]), 1, "iteration 3: max-iterations — the target is not met");

    // A person as the actuator: waiting, still waiting, then done.
    let dir = with_out(&task(&format!("{JUDGE}actuator: manual\n")));
    let p = dir.path();
    said(
        &run(p, &["loop", "run"]),
        0,
        &format!("iteration 1: waiting-for-actuator — follow {}/loop-run/controller-output.md", p.display()),
    );
    said(
        &run(p, &["loop", "run"]),
        3,
        &format!("still waiting for the actuator; edit, then `cn loop done {}`", p.display()),
    );
    std::fs::write(p.join("out/ok.txt"), "yes\n").unwrap();
    said(&run(p, &["loop", "done"]), 0, "iteration 2: complete — the target is met");
    assert_eq!(subjects(p).last().unwrap(), "loop: iteration 2 (complete)");

    // Bad input: a usage error, on stderr, nothing committed.
    let dir = repo("# Task\n\nno frontmatter\n");
    let out = run(dir.path(), &["loop", "run"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no YAML frontmatter"), "{}", text(&out));
    assert_eq!(subjects(dir.path()), ["initial"]);
}
