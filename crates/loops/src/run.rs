//! The loop itself, in the document's order: an initial sensor run and a commit (iteration
//! 0); then each iteration: orchestrator → controller → target met? final status, commit,
//! stop → max iterations reached? final status, commit, stop → actuator → sensor → commit.
//!
//! Resuming: the state is the last committed `orchestrator-output.md`, so a run killed at any
//! point continues with the iteration after it and never repeats a committed one. Code
//! changes left uncommitted by the interrupted iteration are kept, never discarded: they are
//! printed, recorded under `## Recovered` and in that iteration's history line, the sensor is
//! re-run on them before the controller judges, and they are committed with the iteration.
//!
//! `max-iterations` counts iterations that judge: iteration `max-iterations` runs the
//! controller and, if the target is still not met, ends the loop without actuating.
//!
//! Invariant: the actuator never commits; only [`Orchestrator::commit`] does, once per
//! iteration. A component's error stops the loop with nothing committed for that iteration
//! (`orchestrator-output.md` says `failed`, uncommitted), and `cn loop run` retries it.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::actuator::{manual_done, Actuation, Actuator, CommandActuator, ManualActuator, ModelActuator};
use crate::artifacts::{LoopRun, ORCHESTRATOR_OUTPUT, TASK};
use crate::controller::{CommandController, Controller, Ctx, ModelController};
use crate::error::{LoopError, Result};
use crate::git::Git;
use crate::model::{ModelFactory, ModelSource};
use crate::orchestrator::{GitOrchestrator, Orchestrator, OrchestratorOutput, Status};
use crate::progress::{Event, Progress};
use crate::sensor::{CommandSensor, Sensor, SensorReport};
use crate::task::{Component, Defaults, Task};

/// How a `run` ended: the iteration it stopped at and the status it stopped with (the
/// seed's "final result", or a pause while a person actuates). Not compute's `Outcome`,
/// which is what one act of the kernel's loop produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunEnd {
    pub iteration: u64,
    pub status: Status,
    /// True when the loop had already ended and nothing ran.
    pub nothing_to_do: bool,
    /// Uncommitted code changes an interrupted run left, kept and committed with the
    /// resumed iteration.
    pub recovered: Vec<String>,
    /// The iteration that resumed (and committed `recovered`), when one did.
    pub resumed_at: Option<u64>,
}

pub struct Loop {
    pub run: LoopRun,
    pub git: Git,
    pub task: Task,
    pub sensor: Box<dyn Sensor>,
    pub controller: Box<dyn Controller>,
    pub actuator: Box<dyn Actuator>,
    pub orchestrator: Box<dyn Orchestrator>,
    /// Where each component's and commit's event goes (`crate::progress`).
    pub progress: Progress,
    /// The iteration at work, for a failure's event.
    at: u64,
    _lock: Option<cn_storage::HubLock>,
}

impl Loop {
    /// Check everything (DIR, task.md, the components) before anything runs, and take the
    /// loop's lock (`.git/.cn.lock`) so two runs never interleave.
    pub fn open(dir: &Path, defaults: &Defaults, models: &mut dyn ModelFactory) -> Result<Loop> {
        let mut run = LoopRun::new(dir)?;
        let git = Git::open(&run.dir)?;
        // task.md is read once, here. Once the loop has committed it, only the committed one
        // is run: a change since is a component's (refused) or the owner's (to commit).
        // Compared before it is parsed: a rewrite that does not even parse (a component killed
        // mid-write) is refused as a rewrite, with the way back.
        let rel = LoopRun::rel(TASK);
        if let (Some(committed), Ok(Some(text))) = (git.show_head(&rel), run.read(TASK)) {
            if committed != text {
                return Err(LoopError::input(format!(
                "{rel} differs from the one committed in {dir}: the loop runs only its committed task (a component may have rewritten it). \
                 If you changed it, commit it yourself (`git -C {dir} commit -m 'loop task' -- {rel}`); if you did not, restore it (`git -C {dir} checkout -- {rel}`)",
                dir = run.dir.display()
            )));
            }
        }
        let task = Task::load(&run, defaults)?;
        run.env = task.env.clone();
        run.sandbox = task.sandbox.clone();
        if let Some(hub) = &defaults.hub {
            run.unreadable = cn_hub::protect::hub_secrets(hub, &run.dir);
        }
        let controller: Box<dyn Controller> = match &task.controller {
            Component::Command(c) => Box::new(CommandController { command: c.clone() }),
            Component::Model { model, answers } => Box::new(ModelController {
                source: ModelSource::new("controller", model, answers.as_deref(), &run.dir, models)?,
            }),
            Component::Manual => {
                return Err(LoopError::input("loop-run/task.md: `controller: manual` is not supported"))
            }
        };
        let actuator: Box<dyn Actuator> = match &task.actuator {
            Component::Command(c) => Box::new(CommandActuator { command: c.clone() }),
            Component::Model { model, answers } => Box::new(ModelActuator {
                source: ModelSource::new("actuator", model, answers.as_deref(), &run.dir, models)?,
            }),
            Component::Manual => Box::new(ManualActuator),
        };
        let lock = cn_storage::HubLock::acquire(&git.git_dir()?, Duration::ZERO).map_err(|e| {
            LoopError::input_from(format!("{}: another `cn loop` is running here", run.dir.display()), e)
        })?;
        // The top-level folders task.md's `sandbox: {write: [build]}` names: made by cn, so a
        // component may write in them where it cannot create entries at the top itself.
        for rel in task.sandbox.relative_writes().map_err(LoopError::input)? {
            let path = run.dir.join(rel);
            std::fs::create_dir_all(&path).map_err(LoopError::io(path))?;
        }
        let sensor = Box::new(CommandSensor { specs: task.sensors.clone() });
        let mut orchestrator = Box::new(GitOrchestrator::new(run.clone(), git.clone())?);
        orchestrator.task_sha256 = Some(sha256(&task.text));
        let progress = Progress::to_file(&git.git_dir()?, &run.dir)?;
        let mut lp = Loop::with_components(run, git, task, sensor, controller, actuator, orchestrator);
        lp._lock = Some(lock);
        lp.progress = progress;
        Ok(lp)
    }

    /// Assemble a loop from given components (tests, benchmarks, other front ends).
    pub fn with_components(
        run: LoopRun,
        git: Git,
        task: Task,
        sensor: Box<dyn Sensor>,
        controller: Box<dyn Controller>,
        actuator: Box<dyn Actuator>,
        orchestrator: Box<dyn Orchestrator>,
    ) -> Loop {
        Loop {
            run,
            git,
            task,
            sensor,
            controller,
            actuator,
            orchestrator,
            progress: Progress::none(),
            at: 0,
            _lock: None,
        }
    }

    /// `cn loop run` (`done: false`) and `cn loop done` (`done: true`): run iterations until
    /// the loop ends or waits for a person.
    pub fn run(&mut self, done: bool) -> Result<RunEnd> {
        let outcome = self.iterate(done);
        match &outcome {
            Ok(o) if o.nothing_to_do => {}
            Ok(o) => {
                self.git.maintain();
                self.progress.emit(Event::End { iteration: o.iteration, status: o.status.to_string() });
            }
            Err(e) => self.progress.emit(Event::Failed { iteration: self.at, error: cn_compute::chain(e) }),
        }
        outcome
    }

    /// The run's first event, once it is known to have work (`from`: its first iteration).
    fn started(&mut self, from: u64) {
        self.at = from;
        self.progress.emit(Event::Start {
            dir: self.run.dir.display().to_string(),
            pid: std::process::id(),
            sandbox: self.sandbox_line(),
            iteration: from,
        });
    }

    /// How this run's command components are sandboxed, for its start event.
    fn sandbox_line(&self) -> String {
        if self.task.sandbox == cn_hub::SandboxSpec::On(false) {
            return "off (task.md says `sandbox: false`)".into();
        }
        let view = if cn_process::sandbox::overlay_works(&self.run.dir) { "an overlay" } else { "a copy of the tree" };
        format!("{}; sensors run in {view}, thrown away after", cn_process::sandbox::kernel().describe())
    }

    /// The sensors' events, one per sensor.
    fn sensed(&mut self, n: u64, report: &SensorReport) {
        for (name, r) in &report.results {
            let outcome = format!("exit {}", r.status_text());
            self.progress.emit(Event::component(n, "sensor", Some(name), r.elapsed, r.code, outcome));
        }
    }

    /// Right before a commit: task.md is still the one this run read. The guard checks each
    /// component; this holds against a process that outlived its component.
    fn task_unchanged(&self, n: u64) -> Result<()> {
        if self.run.read(TASK)?.as_deref() == Some(self.task.text.as_str()) {
            return Ok(());
        }
        Err(LoopError::Tampered {
            role: "a component's process",
            command: format!("(iteration {n})"),
            changes: vec![format!("changed {}", LoopRun::rel(TASK))],
            dir: self.run.dir.clone(),
        })
    }

    fn committed(&mut self, n: u64, status: Status, files_changed: Vec<String>) {
        self.progress.emit(Event::Commit { iteration: n, status: status.to_string(), files_changed });
    }

    fn iterate(&mut self, done: bool) -> Result<RunEnd> {
        let committed = self.orchestrator.committed()?;
        let on_disk = self.run.read(ORCHESTRATOR_OUTPUT)?.and_then(|t| OrchestratorOutput::state_of(&t));
        let mut next = match committed {
            None => {
                if done {
                    return Err(LoopError::input(
                        "the loop has not started; nothing is waiting for `cn loop done` (run `cn loop run` first)",
                    ));
                }
                let changed = self.orchestrator.changed_code()?;
                if !changed.is_empty() {
                    return Err(LoopError::input(format!(
                        "{}: the working tree has uncommitted changes outside loop-run/ ({}); commit or stash them before starting the loop, so each iteration's commit holds only its own changes",
                        self.run.dir.display(),
                        changed.join(", ")
                    )));
                }
                self.started(0);
                self.initial()?;
                1
            }
            Some((iteration, status)) if status.is_final() => {
                if done {
                    return Err(LoopError::input(format!(
                        "the loop has ended ({status} at iteration {iteration}); nothing is waiting for `cn loop done`"
                    )));
                }
                return Ok(RunEnd { iteration, status, nothing_to_do: true, recovered: Vec::new(), resumed_at: None });
            }
            Some((iteration, _)) => iteration + 1,
        };
        let waiting = on_disk == Some((next, Status::WaitingForActuator));
        let mut recovered = Vec::new();
        match (waiting, done) {
            (true, false) => {
                return Ok(RunEnd { iteration: next, status: Status::WaitingForActuator, nothing_to_do: true, recovered, resumed_at: None })
            }
            (false, true) => {
                return Err(LoopError::input(format!(
                    "the loop is not waiting for the actuator (next is iteration {next}); `cn loop done` follows a `manual` actuator's turn"
                )))
            }
            (true, true) => {
                self.started(next);
                let status = self.guard(next, |l| l.finish_manual(next))?;
                if status != Status::Running {
                    return Ok(RunEnd { iteration: next, status, nothing_to_do: false, recovered, resumed_at: None });
                }
                next += 1;
            }
            (false, false) if committed.is_some() => {
                recovered = self.orchestrator.changed_code()?;
                if !recovered.is_empty() {
                    tracing::info!(iteration = next, changes = ?recovered, "resuming: uncommitted code changes are kept and committed with this iteration");
                }
            }
            (false, false) => {}
        }
        if !(waiting && done) && committed.is_some() {
            self.started(next);
        }
        let mut kept = recovered.clone();
        let resumed_at = (!recovered.is_empty()).then_some(next);
        loop {
            let status = self.guard(next, |l| l.step(next, std::mem::take(&mut kept)))?;
            if status != Status::Running {
                return Ok(RunEnd { iteration: next, status, nothing_to_do: false, recovered, resumed_at });
            }
            next += 1;
        }
    }

    /// Iteration 0: measure, commit the baseline.
    fn initial(&mut self) -> Result<()> {
        self.record(0, Status::Running, "Initial measurement in progress.", None)?;
        let report = self.sensor.sense(&self.run, 0)?;
        self.sensed(0, &report);
        let line = format!("**Iteration 0**: Initial measurement. {}", report.summary());
        self.record(0, Status::Running, "Loop is running. Initial measurement (iteration 0) done.", Some(&line))?;
        self.orchestrator.stage()?;
        self.task_unchanged(0)?;
        self.orchestrator.commit(0, Status::Running, &line)?;
        self.committed(0, Status::Running, Vec::new());
        Ok(())
    }

    /// One iteration; returns the status it ended with.
    pub fn step(&mut self, n: u64, recovered: Vec<String>) -> Result<Status> {
        let mut line = format!("**Iteration {n}**:");
        let mut note = None;
        if !recovered.is_empty() {
            let kept = recovered.join(", ");
            line.push_str(&format!(
                " Resumed after an interruption, keeping uncommitted changes ({kept}); sensor re-run on them."
            ));
            note = Some(format!(
                "An interrupted run left uncommitted changes: {kept}. They are kept, the sensor was re-run on them, and they are committed with iteration {n}."
            ));
            let report = self.sensor.sense(&self.run, n)?;
            self.sensed(n, &report);
        }
        self.record_with(
            n,
            Status::Running,
            &format!("Loop is running. Iteration {n} in progress."),
            None,
            note.clone(),
        )?;
        let ctx = Ctx { run: &self.run, git: &self.git, task: &self.task };
        let started = Instant::now();
        let judgment = self.controller.control(&ctx, n)?;
        let judged = if judgment.target_met { "target met" } else { "target not met" };
        self.progress.emit(Event::component(n, "controller", None, started.elapsed(), None, judged));
        if judgment.target_met {
            line.push_str(" Controller: target met. Loop complete.");
            let result = format!("The loop completed at iteration {n}. The target was met.");
            return self.finish(n, Status::Complete, &result, &line, note);
        }
        line.push_str(" Controller: target not met.");
        if n >= self.task.max_iterations {
            line.push_str(" Max iterations reached.");
            let result = format!("The loop stopped at iteration {n}, its max-iterations, without meeting the target.");
            return self.finish(n, Status::MaxIterations, &result, &line, note);
        }
        let ctx = Ctx { run: &self.run, git: &self.git, task: &self.task };
        let started = Instant::now();
        let actuation = self.actuator.actuate(&ctx, n)?;
        let outcome = match &actuation {
            Actuation::Waiting => "waiting for a person (`cn loop done`)".to_string(),
            Actuation::Done { summary } => summary.trim_start_matches("Actuator: ").trim_end_matches('.').to_string(),
        };
        self.progress.emit(Event::component(n, "actuator", None, started.elapsed(), None, outcome));
        match actuation {
            Actuation::Waiting => {
                let current = format!(
                    "Waiting for the actuator (a person), iteration {n}: follow loop-run/controller-output.md, edit the code, then run `cn loop done {}`.",
                    self.run.dir.display()
                );
                self.record_with(n, Status::WaitingForActuator, &current, None, note)?;
                Ok(Status::WaitingForActuator)
            }
            Actuation::Done { summary } => {
                line.push(' ');
                line.push_str(&summary);
                self.sense_and_commit(n, line, note)
            }
        }
    }

    /// The loop ends: final status, commit, stop.
    fn finish(&mut self, n: u64, status: Status, result: &str, line: &str, note: Option<String>) -> Result<Status> {
        self.orchestrator.stage()?;
        self.record_with(n, status, result, Some(line), note)?;
        self.task_unchanged(n)?;
        self.orchestrator.commit(n, status, line)?;
        self.committed(n, status, Vec::new());
        Ok(status)
    }

    /// After a person's turn: their account (or one listing what changed), sense, commit.
    fn finish_manual(&mut self, n: u64) -> Result<Status> {
        let changed = self.orchestrator.changed_code()?;
        let summary = manual_done(&self.run, &changed)?;
        let line = format!("**Iteration {n}**: Controller: target not met. {summary}");
        self.sense_and_commit(n, line, None)
    }

    fn sense_and_commit(&mut self, n: u64, mut line: String, note: Option<String>) -> Result<Status> {
        let report = self.sensor.sense(&self.run, n)?;
        self.sensed(n, &report);
        // Staging after the sensor lists the actuator's changes (and anything the sensor
        // left) in the same git process that stages them.
        let changed = self.orchestrator.stage()?;
        if changed.is_empty() {
            line.push_str(" No files changed.");
        } else {
            line.push_str(&format!(" Files changed: {}.", changed.join(", ")));
        }
        line.push(' ');
        line.push_str(&report.summary());
        let current = format!("Loop is running. Iteration {n} completed. Target not yet met.");
        self.record_with(n, Status::Running, &current, Some(&line), note)?;
        self.task_unchanged(n)?;
        self.orchestrator.commit(n, Status::Running, &line)?;
        self.committed(n, Status::Running, changed);
        Ok(Status::Running)
    }

    /// Run one iteration's work; on error, say so in `orchestrator-output.md` (uncommitted).
    fn guard(&mut self, n: u64, f: impl FnOnce(&mut Loop) -> Result<Status>) -> Result<Status> {
        self.at = n;
        let result = f(self);
        if let Err(e) = &result {
            let current = format!("Iteration {n} failed: {e}. Nothing of it is committed; fix the cause, then `cn loop run` retries iteration {n}.", e = cn_compute::Chain(&e));
            if let Err(e2) = self.record(n, Status::Failed, &current, None) {
                tracing::error!(error = %e2, "could not record the failure");
            }
        }
        result
    }

    fn record(&mut self, n: u64, status: Status, current: &str, line: Option<&str>) -> Result<()> {
        self.record_with(n, status, current, line, None)
    }

    fn record_with(
        &mut self,
        n: u64,
        status: Status,
        current: &str,
        line: Option<&str>,
        recovered: Option<String>,
    ) -> Result<()> {
        let mut history = self.orchestrator.history().to_vec();
        history.extend(line.map(str::to_string));
        self.orchestrator.record(OrchestratorOutput {
            iteration: n,
            status,
            max_iterations: self.task.max_iterations,
            current: current.to_string(),
            recovered,
            history,
        })
    }
}

fn sha256(text: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_compute::Scripted;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        assert!(Command::new("git").args(args).current_dir(dir).status().unwrap().success());
    }

    /// The model components with `cn_compute::Scripted`: what each is asked, and the
    /// actuator's tools refusing `loop-run/`.
    #[test]
    fn model_components_prompts_and_confinement() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        git(p, &["init", "-q"]);
        git(p, &["config", "user.name", "t"]);
        git(p, &["config", "user.email", "t@t.invalid"]);
        git(p, &["commit", "-q", "--allow-empty", "-m", "initial"]);
        std::fs::create_dir(p.join("loop-run")).unwrap();
        let task_text = "---\nmax-iterations: 4\nsensors:\n  done:\n    command: \"cat done.txt\"\n    target: \"done.txt exists\"\ncontroller: {model: executive}\nactuator: {model: local}\n---\n\n# Task\n\nCreate done.txt.\n";
        std::fs::write(p.join("loop-run/task.md"), task_text).unwrap();

        let controller = Scripted::new([
            "---\ntarget-met: false\n---\n\n# Controller Output\n\nCreate done.txt saying yes.\n",
            "target-met: true\n\nIt exists.",
        ]);
        let actuator = Scripted::new([
            "I write it, and try to move the goalposts.\n\n```yaml\n- tool: write_file\n  path: done.txt\n  content: \"yes\\n\"\n- tool: write_file\n  path: loop-run/task.md\n  content: \"---\\nmax-iterations: 99\\n---\\n\"\n```\n",
        ]);
        let (asked_c, asked_a) = (controller.asked.clone(), actuator.asked.clone());
        let mut models = move |role: &'static str, kind: &str| -> Result<Box<dyn cn_compute::Model>, crate::BoxError> {
            match (role, kind) {
                ("controller", "executive") => Ok(Box::new(controller.clone())),
                ("actuator", "local") => Ok(Box::new(actuator.clone())),
                other => Err(format!("unexpected {other:?}").into()),
            }
        };
        let outcome = crate::run(p, &Defaults::default(), &mut models, false).unwrap();
        assert_eq!((outcome.iteration, outcome.status), (2, Status::Complete));

        let asked_c = asked_c.lock().unwrap();
        assert_eq!(asked_c.len(), 2);
        assert_eq!(asked_c[0].level, 3);
        assert!(asked_c[0].prompt.contains("Create done.txt.") && asked_c[0].prompt.contains("# sensor-output.md"));
        assert!(asked_c[0].prompt.contains("No such file"), "{}", asked_c[0].prompt);
        assert!(asked_c[1].prompt.contains("loop: iteration 1 (running)"), "history: {}", asked_c[1].prompt);
        let asked_a = asked_a.lock().unwrap();
        assert_eq!(asked_a.len(), 1);
        assert_eq!(asked_a[0].level, 2);
        assert!(asked_a[0].system.contains("tool: write_file") && asked_a[0].system.contains("tool: replace"));
        assert_eq!(asked_a[0].tools, ["replace", "write_file"]);
        assert!(asked_a[0].prompt.contains("Create done.txt saying yes."));
        assert!(!asked_a[0].prompt.contains("# sensor-output.md"), "the actuator never sees the sensor");

        assert_eq!(std::fs::read_to_string(p.join("done.txt")).unwrap(), "yes\n");
        assert_eq!(std::fs::read_to_string(p.join("loop-run/task.md")).unwrap(), task_text);
        let out =
            Command::new("git").args(["show", "HEAD~1:loop-run/actuator-output.md"]).current_dir(p).output().unwrap();
        let a = String::from_utf8(out.stdout).unwrap();
        assert!(a.contains("- `done.txt` (created)"), "{a}");
        assert!(a.contains("`write_file` `loop-run/task.md` → failed: not allowed"), "{a}");
        assert!(a.contains("## What was done\n\nI write it, and try to move the goalposts."), "{a}");
    }
}
