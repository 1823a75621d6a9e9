//! The document's walkthrough, end to end: the Java Factorial loop with the real `javac`,
//! driven through cn-loops on a real git repository. First with model components
//! replaying scripted answers (`model: scripted`), then with command components and no model.
//! Iteration 1 writes the file with the two errors, iteration 2 fixes them, iteration 3 the
//! controller finds the target met.

use std::path::Path;

use crate::support::*;

/// A YAML mapping iteration → answer, each answer a literal block.
fn answers(items: &[(u64, String)]) -> String {
    let mut out = String::new();
    for (n, md) in items {
        out.push_str(&format!("{n}: |\n"));
        for line in md.lines() {
            if line.is_empty() {
                out.push('\n');
            } else {
                out.push_str(&format!("  {line}\n"));
            }
        }
    }
    out
}

fn indent(text: &str, by: &str) -> String {
    text.lines().map(|l| if l.is_empty() { String::new() } else { format!("{by}{l}") }).collect::<Vec<_>>().join("\n")
}

const CONTROLLER_1: &str = "---\ntarget-met: false\n---\n\n# Controller Output\n\nThis is the first iteration. No Java files exist yet, so the compilation\nsensor has nothing to compile.\n\n## Instructions for actuator\n\nWrite a Java file `src/main/java/Factorial.java` containing a public class\nwith a static method `factorial(int n)` that returns the factorial of n.\n";
const CONTROLLER_2: &str = "---\ntarget-met: false\n---\n\n# Controller Output\n\nThe previous iteration produced code that does not compile. There are 2 errors.\n\n## Errors to fix\n\n1. **Line 3**: Missing return type on the method declaration. Add `long` as return type.\n2. **Line 8**: Unclosed brace — the class or method body is not properly closed.\n";
const CONTROLLER_3: &str = "---\ntarget-met: true\n---\n\n# Controller Output\n\nThe compilation sensor reports no errors. The target \"no errors\" is met.\nNo further action needed.\n";

fn task(components: &str) -> String {
    format!(
        "---\nmax-iterations: 10\nsensors:\n  compilation:\n    command: \"javac src/**/*.java\"\n    target: \"no errors\"\n{components}---\n\n# Task\n\nWrite a Java method `factorial(int n)` that returns the factorial of n.\n"
    )
}

fn javac_available() -> bool {
    std::process::Command::new("javac").arg("-version").output().map(|o| o.status.success()).unwrap_or(false)
}

#[test]
fn factorial_walkthrough_with_scripted_models() {
    assert!(javac_available(), "javac is needed (Debian: default-jdk-headless)");
    let scripts = tempfile::tempdir().unwrap();
    let controller = scripts.path().join("controller.yaml");
    let actuator = scripts.path().join("actuator.yaml");
    std::fs::write(
        &controller,
        answers(&[(1, CONTROLLER_1.into()), (2, CONTROLLER_2.into()), (3, CONTROLLER_3.into())]),
    )
    .unwrap();
    let write = format!(
        "Created the file with an iterative loop; return type `long`.\n\n```yaml\ntool: write_file\npath: {JAVA}\ncontent: |\n{}\n```\n",
        indent(BROKEN, "  ")
    );
    let fix = format!(
        "Fixed both errors.\n\n```yaml\n- tool: replace\n  path: {JAVA}\n  old: \"public factorial(int n)\"\n  new: \"public static long factorial(int n)\"\n- tool: replace\n  path: {JAVA}\n  old: \"        return result;\\n\"\n  new: \"        return result;\\n    }}\\n}}\\n\"\n```\n"
    );
    std::fs::write(&actuator, answers(&[(1, write), (2, fix)])).unwrap();
    let dir = walkthrough("scripted", &controller, &actuator);
    let p = dir.path();
    // The actuator's own account, from its tool calls.
    let shas = shas(p);
    let a1 = show(p, &shas[2], "loop-run/actuator-output.md");
    assert!(a1.starts_with("# Actuator Output\n\n## What was done\n\nCreated the file"), "{a1}");
    assert!(a1.contains(&format!("- `{JAVA}` (created)")), "{a1}");
    let a2 = show(p, &shas[3], "loop-run/actuator-output.md");
    assert!(a2.contains(&format!("- `{JAVA}` (modified)")) && a2.contains("→ ok"), "{a2}");
    assert!(!a2.contains("failed"), "{a2}");
    // The controller's answers are the artifacts, frontmatter normalized, body kept.
    assert_eq!(show(p, &shas[3], "loop-run/controller-output.md"), CONTROLLER_2);
    assert_eq!(show(p, &shas[4], "loop-run/controller-output.md"), CONTROLLER_3);

    // Ended: a second run has nothing to do and commits nothing.
    run(p).nothing_to_do();
    assert_eq!(subjects(p).len(), 5);
}

#[test]
fn factorial_walkthrough_with_command_components() {
    assert!(javac_available(), "javac is needed (Debian: default-jdk-headless)");
    let scripts = tempfile::tempdir().unwrap();
    let controller = scripts.path().join("controller.sh");
    let actuator = scripts.path().join("actuator.sh");
    // A heuristic controller: the target is met when the sensor's exit status is 0.
    write_exec(
        &controller,
        "#!/bin/bash\nset -e\nout=\"$CN_LOOP_RUN/controller-output.md\"\nif grep -q '^exit-status: 0$' \"$CN_LOOP_RUN/sensor-output.md\"; then\n  printf -- '---\\ntarget-met: true\\n---\\n\\n# Controller Output\\n\\nNo errors. The target is met.\\n' > \"$out\"\nelse\n  printf -- '---\\ntarget-met: false\\n---\\n\\n# Controller Output\\n\\nMake it compile (iteration %s).\\n' \"$CN_LOOP_ITERATION\" > \"$out\"\nfi\n",
    );
    // A scripted actuator: iteration 1 writes the broken file and no actuator-output.md (the
    // loop writes one with its output); iteration 2 fixes it and reports itself.
    let broken = scripts.path().join("broken.java");
    let fixed = scripts.path().join("fixed.java");
    std::fs::write(&broken, BROKEN).unwrap();
    std::fs::write(&fixed, FIXED).unwrap();
    write_exec(
        &actuator,
        &format!(
            "#!/bin/bash\nset -e\ngrep -q 'target-met: false' \"$CN_LOOP_RUN/controller-output.md\"\nmkdir -p src/main/java\nif [ \"$CN_LOOP_ITERATION\" = 1 ]; then\n  cp {} {JAVA}\n  echo 'wrote Factorial.java'\nelse\n  cp {} {JAVA}\n  printf '# Actuator Output\\n\\n## What was done\\n\\nFixed the return type and the brace.\\n' > \"$CN_LOOP_RUN/actuator-output.md\"\nfi\n",
            broken.display(),
            fixed.display()
        ),
    );
    let dir = walkthrough("command", &controller, &actuator);
    let p = dir.path();
    let shas = shas(p);
    assert_eq!(front(p, &shas[2], "actuator-output.md"), "exit-status: 0\n");
    let a1 = show(p, &shas[2], "loop-run/actuator-output.md");
    assert!(a1.contains("wrote Factorial.java"), "{a1}");
    assert_eq!(
        show(p, &shas[3], "loop-run/actuator-output.md"),
        "# Actuator Output\n\n## What was done\n\nFixed the return type and the brace.\n"
    );
}

/// Run the walkthrough with `model: scripted` answers files or `command:` scripts, and check
/// what it must leave.
fn walkthrough(kind: &str, controller: &Path, actuator: &Path) -> tempfile::TempDir {
    let spec = |file: &Path| match kind {
        "scripted" => format!("{{model: scripted, answers: \"{}\"}}", file.display()),
        _ => format!("{{command: \"{}\"}}", file.display()),
    };
    let components = format!("controller: {}\nactuator: {}\n", spec(controller), spec(actuator));
    let dir = repo(&task(&components));
    // A sandboxed component creates files and directories inside the tree's directories,
    // never at its top (that right would reach `.git/`): the project has its `src/`.
    std::fs::create_dir(dir.path().join("src")).unwrap();
    run(dir.path()).complete_at(3);
    check_walkthrough(dir.path());
    dir
}

/// What both walkthroughs must leave: the commits, every artifact's frontmatter at each, the
/// code at each, and the status command's view.
fn check_walkthrough(p: &Path) {
    assert_eq!(
        subjects(p),
        [
            "initial",
            "loop: iteration 0 (running)",
            "loop: iteration 1 (running)",
            "loop: iteration 2 (running)",
            "loop: iteration 3 (complete)"
        ]
    );
    let shas = shas(p);
    let (c0, c1, c2, c3) = (&shas[1], &shas[2], &shas[3], &shas[4]);

    // Iteration 0: the baseline measurement, javac finding no file.
    assert_eq!(front(p, c0, "sensor-output.md"), "sensor: compilation\nexit-status: 2\n");
    let s0 = show(p, c0, "loop-run/sensor-output.md");
    assert!(s0.contains("# Sensor Output — Compilation\n\n## Command\n\njavac src/**/*.java\n\n## Output\n"), "{s0}");
    assert!(s0.contains("file not found"), "{s0}");
    assert_eq!(front(p, c0, "orchestrator-output.md"), "iteration: 0\nstatus: running\nmax-iterations: 10\n");
    assert!(git(p, &["show", "--name-only", "--format=", c0]).lines().all(|f| f.starts_with("loop-run/")));

    // Iteration 1: the file is created, with the document's two errors.
    assert_eq!(front(p, c1, "controller-output.md"), "target-met: false\n");
    assert_eq!(show(p, c1, JAVA), BROKEN);
    assert_eq!(front(p, c1, "sensor-output.md"), "sensor: compilation\nexit-status: 1\n");
    let s1 = show(p, c1, "loop-run/sensor-output.md");
    assert!(s1.contains("Factorial.java:3: error: invalid method declaration; return type required"), "{s1}");
    assert!(s1.contains("Factorial.java:8: error: reached end of file while parsing"), "{s1}");
    assert!(s1.contains("2 errors"), "{s1}");
    assert_eq!(front(p, c1, "orchestrator-output.md"), "iteration: 1\nstatus: running\nmax-iterations: 10\n");

    // Iteration 2: fixed, compiles.
    assert_eq!(front(p, c2, "controller-output.md"), "target-met: false\n");
    assert_eq!(show(p, c2, JAVA), FIXED);
    assert_eq!(front(p, c2, "sensor-output.md"), "sensor: compilation\nexit-status: 0\n");
    assert_eq!(front(p, c2, "orchestrator-output.md"), "iteration: 2\nstatus: running\nmax-iterations: 10\n");

    // Iteration 3: target met; no actuation, no new measurement.
    assert_eq!(front(p, c3, "controller-output.md"), "target-met: true\n");
    assert_eq!(front(p, c3, "orchestrator-output.md"), "iteration: 3\nstatus: complete\nmax-iterations: 10\n");
    let changed = git(p, &["show", "--name-only", "--format=", c3]);
    assert_eq!(
        changed.lines().collect::<Vec<_>>(),
        ["loop-run/controller-output.md", "loop-run/orchestrator-output.md"]
    );
    let o3 = show(p, c3, "loop-run/orchestrator-output.md");
    assert!(o3.contains("## Result\n\nThe loop completed at iteration 3. The target was met.\n"), "{o3}");
    for n in 0..=3 {
        assert!(o3.contains(&format!("- **Iteration {n}**: ")), "{o3}");
    }
    assert!(o3.contains(&format!("Files changed: {JAVA}. Sensor: compilation exit status 1.")), "{o3}");

    // The final code is the fixed file, and it compiles; the tree is clean.
    assert_eq!(std::fs::read_to_string(p.join(JAVA)).unwrap(), FIXED);
    assert_eq!(git(p, &["status", "--porcelain"]), "");

    let st = status(p);
    assert!(st.starts_with("iteration: 3\nstatus: complete\nhistory:\n"), "{st}");
    assert_eq!(st.matches("**Iteration ").count(), 4, "{st}");
}
