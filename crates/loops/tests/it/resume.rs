//! Resuming: the loop's process is SIGKILLed at several points of a loop (each point is a
//! command component that writes a marker file and blocks), then a run again must
//! continue from the last commit, never repeat a committed iteration, and keep — and report
//! — the code changes the killed iteration left. Also: the manual actuator (`cn loop done`)
//! and `max-iterations`.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::support::*;

/// A sensor, controller and actuator as shell scripts over `src/F.txt`: iteration 1 writes
/// `broken`, iteration 2 `fixed`; the target is met when the file says `fixed`. Each calls
/// `hook ROLE:ITERATION`, which blocks forever (after writing its pid to `$MARKER`) when
/// `$KILL_AT` names that point and the marker does not exist yet.
fn scripted_loop(scripts: &Path, actuator: &str) -> String {
    let hook = "hook() {\n  if [ \"$KILL_AT\" = \"$1\" ] && [ ! -e \"$MARKER\" ]; then\n    echo $$ > \"$MARKER.tmp\" && mv \"$MARKER.tmp\" \"$MARKER\"\n    exec sleep 600\n  fi\n}\n";
    let sensor = scripts.join("sensor.sh");
    write_exec(
        &sensor,
        &format!("#!/bin/bash\n{hook}hook sensor:$CN_LOOP_ITERATION\nif grep -qx fixed src/F.txt 2>/dev/null; then echo 'all good'; exit 0; fi\necho 'F.txt is not fixed'; exit 1\n"),
    );
    let controller = scripts.join("controller.sh");
    write_exec(
        &controller,
        &format!("#!/bin/bash\n{hook}hook controller:$CN_LOOP_ITERATION\nif grep -q '^exit-status: 0$' \"$CN_LOOP_RUN/sensor-output.md\"; then met=true; else met=false; fi\nprintf -- '---\\ntarget-met: %s\\n---\\n\\n# Controller Output\\n\\nFix F.txt.\\n' $met > \"$CN_LOOP_RUN/controller-output.md\"\n"),
    );
    let act = scripts.join("actuator.sh");
    write_exec(
        &act,
        &format!("#!/bin/bash\n{hook}mkdir -p src\nif [ \"$CN_LOOP_ITERATION\" = 1 ]; then echo broken > src/F.txt; else echo fixed > src/F.txt; fi\nhook actuator:$CN_LOOP_ITERATION\n"),
    );
    let actuator =
        if actuator == "command" { format!("{{command: \"{}\"}}", act.display()) } else { actuator.to_string() };
    format!(
        "---\nmax-iterations: 5\nenv: [KILL_AT, MARKER]\nsandbox: {{write: [\"{}\"]}}\nsensors:\n  check:\n    command: \"{}\"\n    target: \"F.txt says fixed\"\ncontroller: {{command: \"{}\"}}\nactuator: {actuator}\n---\n\n# Task\n\nMake src/F.txt say fixed.\n",
        scripts.display(),
        sensor.display(),
        controller.display()
    )
}

fn wait_for(path: &Path) -> String {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(t) = std::fs::read_to_string(path) {
            if !t.trim().is_empty() {
                return t;
            }
        }
        assert!(Instant::now() < deadline, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Run the loop in its own process, SIGKILL it when the component at `point` is running,
/// then run again. Returns the second run.
fn kill_at(p: &Path, marker: &Path, point: &str) -> Ran {
    let mut child = Driver::new(p).env("KILL_AT", point).env("MARKER", marker).spawn();
    wait_for(marker);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // The blocked component dies with the loop's process: nothing of the killed run goes on
    // unwatched.
    let deadline = Instant::now() + Duration::from_secs(10);
    while let Some(left) = carrying(marker) {
        assert!(Instant::now() < deadline, "{point}: the component outlived the killed loop: {left}");
        std::thread::sleep(Duration::from_millis(20));
    }
    Driver::new(p).env("MARKER", marker).run()
}

/// A process (its pid and command line) whose environment has `MARKER=marker`: the killed
/// run's own, or its component's (the task passes `MARKER` through).
fn carrying(marker: &Path) -> Option<String> {
    let want = format!("MARKER={}", marker.display());
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let env = std::fs::read(e.path().join("environ")).ok()?;
        env.split(|b| *b == 0).any(|v| v == want.as_bytes()).then(|| {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            format!("{} {}", e.file_name().to_string_lossy(), String::from_utf8_lossy(&cmd).replace('\0', " "))
        })
    })
}

fn iterations(p: &Path) -> Vec<(u64, String)> {
    subjects(p)
        .iter()
        .filter_map(|s| s.strip_prefix("loop: iteration "))
        .map(|s| {
            let (n, st) = s.split_once(' ').unwrap();
            (n.parse().unwrap(), st.trim_matches(['(', ')']).to_string())
        })
        .collect()
}

#[test]
fn sigkill_at_any_point_resumes_without_repeating_or_losing() {
    let normal: Vec<(u64, String)> =
        vec![(0, "running".into()), (1, "running".into()), (2, "running".into()), (3, "complete".into())];
    let kept_fixed: Vec<(u64, String)> = vec![(0, "running".into()), (1, "running".into()), (2, "complete".into())];
    // (point, the iterations committed in the end, the iteration that kept edits)
    type Case<'a> = (&'a str, &'a Vec<(u64, String)>, Option<u64>);
    let cases: [Case; 6] = [
        ("sensor:0", &normal, None),
        ("controller:1", &normal, None),
        ("actuator:1", &normal, Some(1)),
        ("actuator:2", &kept_fixed, Some(2)),
        ("sensor:2", &kept_fixed, Some(2)),
        ("controller:3", &normal, None),
    ];
    for (point, want, kept) in cases {
        let scripts = tempfile::tempdir().unwrap();
        let dir = repo(&scripted_loop(scripts.path(), "command"));
        let p = dir.path();
        // The sandbox lets a component create files in the tree's directories, not at its top.
        std::fs::create_dir(p.join("src")).unwrap();
        let marker = scripts.path().join("marker");
        let ran = kill_at(p, &marker, point);
        ran.complete();
        assert_eq!(&iterations(p), want, "{point}: {ran}");
        assert_eq!(std::fs::read_to_string(p.join("src/F.txt")).unwrap(), "fixed\n", "{point}");
        assert_eq!(git(p, &["status", "--porcelain"]), "", "{point}: the tree is committed");
        let Ended::Run { resumed_at, recovered, .. } = &ran.ended else { unreachable!() };
        match kept {
            Some(n) => {
                // What `cn loop run` reports as "resumed iteration N: kept … (src/F.txt)".
                assert_eq!(*resumed_at, Some(n), "{point}: {ran}");
                assert!(recovered.iter().any(|f| f.contains("src/F.txt")), "{point}: {ran}");
                let sha = git(p, &["log", "--format=%H", "--grep", &format!("loop: iteration {n} ")]);
                let body = git(p, &["show", "-s", "--format=%b", sha.trim()]);
                assert!(
                    body.contains("Resumed after an interruption, keeping uncommitted changes (src/F.txt"),
                    "{point}: {body}"
                );
                let o = show(p, sha.trim(), "loop-run/orchestrator-output.md");
                assert!(
                    o.contains("## Recovered\n\nAn interrupted run left uncommitted changes: src/F.txt"),
                    "{point}: {o}"
                );
                // The kept edit is in that iteration's commit.
                let files = git(p, &["show", "--name-only", "--format=", sha.trim()]);
                assert!(files.lines().any(|f| f == "src/F.txt"), "{point}: {files}");
            }
            None => assert!(resumed_at.is_none() && recovered.is_empty(), "{point}: {ran}"),
        }
    }
}

#[test]
fn manual_actuator_waits_for_cn_loop_done() {
    let scripts = tempfile::tempdir().unwrap();
    let dir = repo(&scripted_loop(scripts.path(), "manual"));
    let p = dir.path();
    let ran = run(p);
    assert_eq!(ran.end(), (1, "waiting-for-actuator"), "{ran}");
    assert_eq!(iterations(p), [(0, "running".to_string())]);
    let o = std::fs::read_to_string(p.join("loop-run/orchestrator-output.md")).unwrap();
    assert!(o.starts_with("---\niteration: 1\nstatus: waiting-for-actuator\nmax-iterations: 5\n---\n"), "{o}");
    assert!(o.contains("cn loop done"), "{o}");

    // Running again while waiting does nothing.
    run(p).nothing_to_do();
    assert_eq!(iterations(p).len(), 1);

    // The person edits, then says so.
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::write(p.join("src/F.txt"), "fixed\n").unwrap();
    done(p).complete_at(2);
    assert_eq!(iterations(p), [(0, "running".to_string()), (1, "running".to_string()), (2, "complete".to_string())]);
    let shas = shas(p);
    let a1 = show(p, &shas[2], "loop-run/actuator-output.md");
    assert!(a1.contains("manual actuator") && a1.contains("- `src/F.txt (created)`"), "{a1}");
    assert_eq!(front(p, &shas[2], "sensor-output.md"), "sensor: check\nexit-status: 0\n");

    let late = done(p);
    late.refused();
}

#[test]
fn max_iterations_ends_the_loop_without_actuating() {
    let dir = repo(
        "---\nmax-iterations: 2\nsensors:\n  a:\n    command: \"echo one\"\n  b:\n    command: \"echo two; exit 4\"\ncontroller: {command: \"printf -- '---\\\\ntarget-met: false\\\\n---\\\\nAgain.\\\\n' > $CN_LOOP_RUN/controller-output.md\"}\nactuator: {command: \"echo $CN_LOOP_ITERATION >> src/acted.txt\"}\n---\n\nNever done.\n",
    );
    let p = dir.path();
    std::fs::create_dir(p.join("src")).unwrap();
    let ran = run(p);
    assert_eq!(ran.end(), (2, "max-iterations"), "{ran}");
    assert_eq!(
        iterations(p),
        [(0, "running".to_string()), (1, "running".to_string()), (2, "max-iterations".to_string())]
    );
    assert_eq!(std::fs::read_to_string(p.join("src/acted.txt")).unwrap(), "1\n", "only iteration 1 actuates");
    let shas = shas(p);
    assert_eq!(
        front(p, &shas[3], "orchestrator-output.md"),
        "iteration: 2\nstatus: max-iterations\nmax-iterations: 2\n"
    );
    // Several sensors: one section each, statuses in the frontmatter.
    let s = show(p, &shas[2], "loop-run/sensor-output.md");
    assert!(s.starts_with("---\nsensors:\n- a\n- b\nexit-status:\n  a: 0\n  b: 4\n---\n"), "{s}");
    assert!(s.contains("\n## a\n") && s.contains("\n## b\n") && s.contains("two"), "{s}");
    let st = status(p);
    assert!(st.starts_with("iteration: 2\nstatus: max-iterations\n"), "{st}");
}
