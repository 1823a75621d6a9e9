//! Orchestration overhead per iteration: everything but the sensor command and the models —
//! writing the artifacts (orchestrator, controller, actuator, sensor output), reading the
//! working tree's changes, and the commit. The components are in-process stand-ins that
//! write their files instantly, so what is timed is the loop's own cost. Figure: ≤ 30 ms
//! median (BENCHMARKS.md).

use std::process::Command;
use std::time::{Duration, Instant};

use cn_loops::{
    no_models, Actuation, Actuator, CommandRun, Component, Controller, Ctx, Defaults, Git, GitOrchestrator, Judgment,
    Loop, LoopRun, Result, Sensor, SensorReport, SensorSpec, Task, ACTUATOR_OUTPUT, CONTROLLER_OUTPUT, SENSOR_OUTPUT,
};
use criterion::{criterion_group, criterion_main, Criterion};

struct InstantSensor;
impl Sensor for InstantSensor {
    fn sense(&mut self, run: &LoopRun, iteration: u64) -> Result<SensorReport> {
        let r = CommandRun {
            command: "javac src/**/*.java".into(),
            output: format!("{iteration} errors\n"),
            code: Some(1),
            elapsed: Duration::ZERO,
        };
        let report = SensorReport { results: vec![("compilation".into(), r)] };
        run.write_doc(SENSOR_OUTPUT, &report.render())?;
        Ok(report)
    }
}

struct NotYet;
impl Controller for NotYet {
    fn control(&mut self, ctx: &Ctx, iteration: u64) -> Result<Judgment> {
        ctx.run.write(CONTROLLER_OUTPUT, &format!("---\ntarget-met: false\n---\n\nFix error {iteration}.\n"))?;
        Ok(Judgment { target_met: false })
    }
}

struct Edit;
impl Actuator for Edit {
    fn actuate(&mut self, ctx: &Ctx, iteration: u64) -> Result<Actuation> {
        std::fs::write(ctx.run.dir.join("src/Factorial.java"), format!("// version {iteration}\n")).unwrap();
        ctx.run.write(ACTUATOR_OUTPUT, &format!("# Actuator Output\n\nEdited, iteration {iteration}.\n"))?;
        Ok(Actuation::Done { summary: "Actuator: edited.".into() })
    }
}

fn git(dir: &std::path::Path, args: &[&str]) {
    assert!(Command::new("git").args(args).current_dir(dir).status().unwrap().success());
}

/// A repository with `src/Factorial.java` committed and an empty `loop-run/`.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    git(p, &["init", "-q"]);
    git(p, &["config", "user.name", "bench"]);
    git(p, &["config", "user.email", "bench@bench.invalid"]);
    std::fs::create_dir_all(p.join("src")).unwrap();
    std::fs::create_dir_all(p.join("loop-run")).unwrap();
    std::fs::write(p.join("src/Factorial.java"), "// start\n").unwrap();
    git(p, &["add", "-A"]);
    git(p, &["commit", "-q", "-m", "initial"]);
    dir
}

/// A fresh repository and loop: iteration numbers (and the history every
/// `orchestrator-output.md` carries) stay those of a real loop, not of thousands of
/// iterations in one repository.
fn fresh() -> (tempfile::TempDir, Loop) {
    let dir = repo();
    let p = dir.path();
    let run = LoopRun::new(p).unwrap();
    let g = Git::open(&run.dir).unwrap();
    let task = Task {
        max_iterations: LOOP_LENGTH,
        sensors: vec![SensorSpec {
            name: "compilation".into(),
            command: "javac src/**/*.java".into(),
            target: Some("no errors".into()),
            timeout: cn_loops::COMPONENT_TIMEOUT,
        }],
        controller: Component::Command("in-process".into()),
        actuator: Component::Command("in-process".into()),
        text: "---\nmax-iterations: 20\n---\n# Task\n".into(),
        env: Vec::new(),
        sandbox: Default::default(),
    };
    // The orchestrator checks before each commit that task.md is the one it read.
    std::fs::write(p.join("loop-run/task.md"), &task.text).unwrap();
    let orchestrator = Box::new(GitOrchestrator::new(run.clone(), g.clone()).unwrap());
    let lp =
        Loop::with_components(run, g, task, Box::new(InstantSensor), Box::new(NotYet), Box::new(Edit), orchestrator);
    (dir, lp)
}

/// Iterations per loop before a fresh one starts (twice the document's max-iterations).
const LOOP_LENGTH: u64 = 20;

/// A loop whose three components are real, trivial commands, sandboxed as `cn loop run`
/// runs them (`sandbox` is task.md's field): what an iteration costs with the sandbox, the
/// sensor's throwaway view and the guard, beside the same with `sandbox: false`.
fn fresh_commands(sandbox: &str) -> (tempfile::TempDir, Loop) {
    let dir = repo();
    let p = dir.path();
    let task = format!(
        "---\nmax-iterations: {LOOP_LENGTH}\nsandbox: {sandbox}\nsensors:\n  compilation:\n    command: \"true\"\n\
         controller: {{command: \"printf -- '---\\\\ntarget-met: false\\\\n---\\\\n' > $CN_LOOP_RUN/controller-output.md\"}}\n\
         actuator: {{command: \"echo $CN_LOOP_ITERATION > src/Factorial.java\"}}\n---\n\n# Task\n"
    );
    std::fs::write(p.join("loop-run/task.md"), task).unwrap();
    let lp = Loop::open(p, &Defaults::default(), &mut no_models).unwrap();
    (dir, lp)
}

/// Time `step` over loops from `fresh`, a new one every [`LOOP_LENGTH`] iterations.
fn iterations(c: &mut Criterion, name: &str, fresh: impl Fn() -> (tempfile::TempDir, Loop)) {
    let (mut dir, mut lp) = fresh();
    let mut n = 0u64;
    c.bench_function(name, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                if n == LOOP_LENGTH {
                    (dir, lp) = fresh();
                    n = 0;
                }
                n += 1;
                let start = Instant::now();
                lp.step(n, Vec::new()).unwrap();
                total += start.elapsed();
            }
            total
        })
    });
    drop((dir, lp));
}

fn bench(c: &mut Criterion) {
    iterations(c, "loop iteration overhead (commit included)", fresh);
    for (name, sandbox) in [("sandboxed", "true"), ("unsandboxed", "false")] {
        iterations(c, &format!("loop iteration with three trivial commands, {name}"), || fresh_commands(sandbox));
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
