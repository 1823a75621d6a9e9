//! Progress you can watch (issue 33): `cn loop run --json` emits an event per component per
//! iteration (elapsed time, the sensor's exit status) and per commit, and the control room's
//! Loops view follows a run while it goes.

use crate::hub_common::init_hub;
use crate::loops_support::{cn, git, write_exec};
use crate::serve_common::{http, Serve};

use std::io::Read;
use std::process::Stdio;
use std::time::{Duration, Instant};

#[test]
fn json_events_and_the_loops_view_follow_a_running_loop() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let project = hub.join("project");
    std::fs::create_dir_all(project.join("loop-run")).unwrap();
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["config", "user.name", "Loop Test"]);
    git(&project, &["config", "user.email", "loop@test.invalid"]);
    // The actuator appends to a file in an existing folder (a new top-level entry would need
    // namespaces: see crates/loops/tests/it/toolchains.rs).
    std::fs::create_dir_all(project.join("notes")).unwrap();
    std::fs::write(project.join("notes/.keep"), "").unwrap();
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "initial"]);
    // The sensor holds the first measurement until the test releases it.
    let release = dir.path().join("release");
    let sensor = dir.path().join("sensor.sh");
    write_exec(&sensor, "#!/bin/bash\nuntil [ -e \"$RELEASE\" ]; do sleep 0.05; done\necho measured; exit 3\n");
    std::fs::write(
        project.join("loop-run/task.md"),
        format!(
            "---\nmax-iterations: 2\nenv: [RELEASE]\nsensors:\n  wait:\n    command: \"{}\"\ncontroller: {{command: \"printf -- '---\\\\ntarget-met: false\\\\n---\\\\nAgain.\\\\n' > $CN_LOOP_RUN/controller-output.md\"}}\nactuator: {{command: \"echo $CN_LOOP_ITERATION >> notes/acted.txt\"}}\n---\n\nNever done.\n",
            sensor.display()
        ),
    )
    .unwrap();
    let serve = Serve::start(&hub, &[]);
    let bearer = format!("Bearer {}", serve.token);
    let auth = [("Authorization", bearer.as_str())];
    let mut run = cn()
        .args(["--hub"])
        .arg(&hub)
        .args(["loop", "run", "--json"])
        .arg(&project)
        .env("RELEASE", &release)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // While the sensor waits, the view shows the run as running, with its start.
    let deadline = Instant::now() + Duration::from_secs(60);
    let view = loop {
        let loops = http(serve.addr, "GET", "/api/loops", &auth, "").json();
        let l = loops["loops"].as_array().and_then(|a| a.iter().find(|l| l["dir"] == "project")).cloned();
        if let Some(l) = l.filter(|l| l["progress"]["running"] == true) {
            break l;
        }
        assert!(Instant::now() < deadline, "the view never showed the loop running: {loops}");
        std::thread::sleep(Duration::from_millis(50));
    };
    let lines = view["progress"]["lines"].as_array().unwrap();
    assert!(lines[0].as_str().unwrap().contains("from iteration 0; sandbox: "), "{view}");

    std::fs::write(&release, "").unwrap();
    let status = run.wait().unwrap();
    let mut out = String::new();
    run.stdout.take().unwrap().read_to_string(&mut out).unwrap();
    assert_eq!(status.code(), Some(1), "max-iterations without the target: {out}");
    let events: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kinds: Vec<String> = events
        .iter()
        .map(|e| {
            let role = e["role"].as_str().map(|r| format!(" {r}")).unwrap_or_default();
            format!("{} {}{role}", e["event"].as_str().unwrap(), e["iteration"])
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "start 0",
            "component 0 sensor",
            "commit 0",
            "component 1 controller",
            "component 1 actuator",
            "component 1 sensor",
            "commit 1",
            "component 2 controller",
            "commit 2",
            "end 2",
        ],
        "{out}"
    );
    let first = &events[1];
    assert_eq!((first["name"].as_str(), first["exit_status"].as_i64()), (Some("wait"), Some(3)), "{out}");
    assert!(first["elapsed_ms"].as_u64().is_some(), "{out}");
    assert_eq!(events[6]["files_changed"], serde_json::json!(["notes/acted.txt"]), "{out}");

    // Once it ended, the view shows the last run, not running.
    let loops = http(serve.addr, "GET", "/api/loops", &auth, "").json();
    let l = loops["loops"].as_array().unwrap().iter().find(|l| l["dir"] == "project").unwrap().clone();
    assert_eq!(l["progress"]["running"], false, "{l}");
    let lines: Vec<&str> = l["progress"]["lines"].as_array().unwrap().iter().filter_map(|v| v.as_str()).collect();
    assert!(lines.iter().any(|x| x.starts_with("iteration 0 · sensor wait · exit 3 · ")), "{lines:?}");
    assert_eq!(lines.last().copied(), Some("iteration 2 · end · max-iterations"), "{lines:?}");
}
