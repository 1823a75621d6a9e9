//! AI loops: sensor, controller, actuator, orchestrator; git is the clock.
//!
//! A loop runs on a git working tree DIR (the codebase) with its artifacts in
//! `DIR/loop-run/`: `task.md` (the setpoint) and one `{role}-output.md` per component. Each
//! component is independent: it reads the files of the boxes before it and writes its own.
//! The orchestrator commits once per iteration; history is git, never per-iteration copies.
//!
//! ```text
//! iteration 0: sensor → commit
//! iteration N: orchestrator → controller → (target met: commit, stop)
//!              → (N = max-iterations: commit, stop) → actuator → sensor → commit
//! ```
//!
//! Components are traits ([`Sensor`], [`Controller`], [`Actuator`], [`Orchestrator`]);
//! task.md chooses the controller and actuator: a command, a model (through a
//! [`ModelFactory`] the caller supplies), or for the actuator a person (`manual`).
//!
//! Invariants: nothing runs before DIR, task.md and the components are checked; the actuator
//! never commits; a committed iteration is never repeated; uncommitted code changes are
//! never discarded.

mod actuator;
mod artifacts;
mod command;
mod controller;
mod error;
mod git;
mod guard;
mod model;
mod orchestrator;
pub mod progress;
mod run;
mod sensor;
mod status;
mod task;
mod tools;
mod view;

use std::path::Path;

pub use actuator::{manual_done, Actuation, Actuator, CommandActuator, ManualActuator, ModelActuator};
pub use artifacts::{LoopRun, ACTUATOR_OUTPUT, CONTROLLER_OUTPUT, LOOP_RUN, ORCHESTRATOR_OUTPUT, SENSOR_OUTPUT, TASK};
pub use command::{run_command, CommandRun, Role, COMPONENT_TIMEOUT};
pub use controller::{parse_answer, CommandController, Controller, Ctx, Judgment, ModelController};
pub use error::{BoxError, LoopError, NoTargetMet, Result};
pub use git::{Git, LoopCommit};
pub use model::{no_models, ModelFactory, ModelSource, NoModelProvider};
pub use orchestrator::{GitOrchestrator, Orchestrator, OrchestratorOutput, Status};
pub use run::{Loop, RunEnd};
pub use sensor::{CommandSensor, Sensor, SensorReport};
pub use status::{status, LoopStatus};
pub use task::{config_is_committed, Component, Defaults, SensorSpec, Task, TEMPLATE};

/// `cn loop run DIR` (`done: false`) or `cn loop done DIR` (`done: true`).
pub fn run(dir: &Path, defaults: &Defaults, models: &mut dyn ModelFactory, done: bool) -> Result<RunEnd> {
    Loop::open(dir, defaults, models)?.run(done)
}

/// The same, handing each progress event to `sink` as it happens (`cn loop run` prints them).
pub fn run_with(
    dir: &Path,
    defaults: &Defaults,
    models: &mut dyn ModelFactory,
    done: bool,
    sink: impl FnMut(&progress::Event) + 'static,
) -> Result<RunEnd> {
    let mut lp = Loop::open(dir, defaults, models)?;
    lp.progress = std::mem::replace(&mut lp.progress, progress::Progress::none()).with_sink(sink);
    lp.run(done)
}

/// `cn loop init DIR`: write the `loop-run/task.md` template; refuse to overwrite one.
pub fn init(dir: &Path) -> Result<std::path::PathBuf> {
    let run = LoopRun::new(dir)?;
    let path = run.path(TASK);
    if path.exists() {
        return Err(LoopError::input(format!("{}: already exists; edit it, or remove it first", path.display())));
    }
    run.write(TASK, TEMPLATE)?;
    Ok(path)
}
