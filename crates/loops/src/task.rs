//! `task.md`: the setpoint. Its frontmatter carries what is mechanically needed —
//! `max-iterations`, `sensors` (name → `{command, target}`), and which `controller:` and
//! `actuator:` to use — and its body is the task in plain language, read as-is.
//!
//! Invariant: a task is checked whole before anything runs; every refusal names
//! `loop-run/task.md` and the field at fault.

use std::path::{Path, PathBuf};

use cn_hub::config::LoopsConfig;
use cn_hub::{HubConfig, Layout};
use cn_storage::Doc;
use serde_json::Value;

use crate::artifacts::{LoopRun, TASK};
use crate::error::{LoopError, Result};

/// The template `cn loop init` writes: the document's own example.
pub const TEMPLATE: &str = r#"---
max-iterations: 10
sensors:
  compilation:
    command: "javac src/**/*.java"
    target: "no errors"
# Which components to use; defaults come from cn.yaml's `loops:` key.
#   controller: {model: executive}        # or {model: local}, or {command: "./judge.sh"}
#   actuator: {model: executive}          # or {command: "my-coding-agent ..."}, or manual
# Command components run sandboxed: they write in this tree (never .git/, nor loop-run/'s
# files but their own) and their own TMPDIR, with no network; the sensors in a throwaway
# view of the tree, so their output (.class files, build/) never reaches it. On a kernel
# without user namespaces they cannot create new top-level entries: name those folders,
# and cn creates them:  sandbox: {write: [build]}
#   sandbox: {network: true, write: [~/.m2, build]}   # widen it; `sandbox: false` turns it off
---

# Task

Write a Java method `factorial(int n)` that returns the factorial of n.
"#;

#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub max_iterations: u64,
    /// In the order task.md lists them.
    pub sensors: Vec<SensorSpec>,
    pub controller: Component,
    pub actuator: Component,
    /// The whole file, as the controller's prompt quotes it.
    pub text: String,
    /// `env:` — names of variables the command components see from cn's environment
    /// (everything else is withheld; `cn_process::child`).
    pub env: Vec<String>,
    /// `sandbox:` — how the command components are sandboxed: absent or `true`, writes only
    /// in the tree (never its `.git/`) and a private temporary directory, no network;
    /// `false`, unsandboxed; `{network: true, write: [paths]}` widens it.
    pub sandbox: cn_hub::SandboxSpec,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SensorSpec {
    pub name: String,
    pub command: String,
    /// Plain text for the controller: what "done" means for this metric.
    pub target: Option<String>,
    /// `timeout:` (`90s`, `5m`, or seconds): past it the sensor is killed with its process
    /// group, `sensor-output.md` says so, and the loop goes on. Default
    /// [`crate::command::COMPONENT_TIMEOUT`].
    pub timeout: std::time::Duration,
}

/// A swappable component, as `controller:` / `actuator:` choose it.
#[derive(Debug, Clone, PartialEq)]
pub enum Component {
    /// `{model: local | executive}`; `{model: scripted, answers: FILE}` replays answers.
    Model { model: String, answers: Option<PathBuf> },
    /// `{command: "…"}`: a program run in DIR with `CN_LOOP_RUN` set.
    Command(String),
    /// `manual` (actuator only): a person edits, then runs `cn loop done DIR`.
    Manual,
}

/// The components to use when task.md names none (cn.yaml `loops.controller` / `loops.actuator`).
#[derive(Debug, Clone, Default)]
pub struct Defaults {
    pub controller: Option<Value>,
    pub actuator: Option<Value>,
    /// The hub the loop runs for (`cn --hub H loop run`, or the hub found from DIR): its git
    /// directory's secrets (owner token, id key) are unreadable to every component, wherever
    /// the loop's tree lies.
    pub hub: Option<PathBuf>,
}

impl Defaults {
    /// From the `loops:` section of an already parsed cn.yaml.
    pub fn of(loops: &LoopsConfig) -> Defaults {
        Defaults { controller: loops.controller.clone(), actuator: loops.actuator.clone(), hub: None }
    }

    /// `loops.controller` / `loops.actuator` from a `cn.yaml`: the hub's when one is given,
    /// else the nearest one in DIR or above it. No file means no defaults.
    pub fn load(dir: &Path, hub: Option<&Path>) -> Result<Defaults> {
        let found = match hub {
            Some(h) => Some(Layout::new(h).config()).filter(|p| p.is_file()),
            None => dir
                .canonicalize()
                .ok()
                .and_then(|d| d.ancestors().map(|a| Layout::new(a).config()).find(|p| p.is_file())),
        };
        let Some(path) = found else {
            return Ok(Defaults::default());
        };
        config_is_committed(dir, &path)?;
        let mut defaults = Defaults::of(&HubConfig::load(&path)?.loops);
        defaults.hub = path.parent().map(Path::to_path_buf);
        Ok(defaults)
    }
}

/// A `cn.yaml` inside the loop's tree chooses the run's models, components and sandboxes,
/// and a component can write the tree: it is used only as committed (issue 34: the sandbox
/// settings come only from the owner's committed task.md and cn.yaml). One outside the tree
/// is out of every component's reach.
pub fn config_is_committed(dir: &Path, config: &Path) -> Result<()> {
    let (Ok(dir), Ok(config)) = (dir.canonicalize(), config.canonicalize()) else { return Ok(()) };
    let Ok(rel) = config.strip_prefix(&dir) else { return Ok(()) };
    let rel = rel.to_string_lossy();
    let git = cn_git::Git::new(&dir);
    let status = git
        .run(&["status", "--porcelain=v1", "--ignored", "--ignore-submodules=dirty", "--", &rel])
        .map_err(|e| LoopError::input_from(format!("{}: cannot tell whether {rel} is committed", dir.display()), e))?;
    if status.trim().is_empty() {
        return Ok(());
    }
    Err(LoopError::input(format!(
        "{}: {rel} is inside the loop's tree and not committed as it is; it would choose this run's models and sandboxes, and a component can write there. \
         If it is yours, commit it (`git -C {d} add {rel} && git -C {d} commit -m config -- {rel}`); if not, remove it",
        config.display(),
        d = dir.display()
    )))
}

const MODEL_KINDS: [&str; 3] = ["local", "executive", "scripted"];

impl Task {
    /// Read and check `loop-run/task.md`.
    pub fn load(run: &LoopRun, defaults: &Defaults) -> Result<Task> {
        let text = run.read(TASK)?.ok_or_else(|| {
            LoopError::input(format!(
                "{}: no task.md; write one (`cn loop init {}` writes a template)",
                run.path(TASK).display(),
                run.dir.display()
            ))
        })?;
        Task::parse(&text, defaults)
    }

    pub fn parse(text: &str, defaults: &Defaults) -> Result<Task> {
        let bad = |what: String| LoopError::input(format!("loop-run/task.md: {what}"));
        if !Doc::has_frontmatter(text) {
            return Err(bad(
                "no YAML frontmatter; start the file with `---`, then `max-iterations:` and `sensors:`, then `---`"
                    .into(),
            ));
        }
        let doc = Doc::parse(text).map_err(|e| LoopError::input_from("loop-run/task.md", e))?;
        let front: Value =
            serde_json::to_value(&doc.front).map_err(|e| LoopError::input_from("loop-run/task.md: frontmatter", e))?;
        let Value::Object(front) = front else {
            return Err(bad("the frontmatter is not a mapping".into()));
        };
        for key in front.keys() {
            if !["max-iterations", "sensors", "controller", "actuator", "env", "sandbox"].contains(&key.as_str()) {
                return Err(bad(format!(
                    "unknown frontmatter field `{key}` (known: max-iterations, sensors, controller, actuator, env, sandbox)"
                )));
            }
        }
        let max_iterations = match front.get("max-iterations") {
            None => return Err(bad("frontmatter field `max-iterations` is missing; give a positive integer".into())),
            Some(v) => match v.as_u64() {
                Some(n) if n > 0 => n,
                _ => {
                    return Err(bad(format!(
                        "frontmatter field `max-iterations` is {}, expected a positive integer",
                        serde_json::to_string(v).unwrap_or_default()
                    )))
                }
            },
        };
        let sensors = match front.get("sensors") {
            Some(Value::Object(map)) if !map.is_empty() => map
                .iter()
                .map(|(name, spec)| {
                    sensor(name, spec).map_err(|m| bad(format!("frontmatter field `sensors.{name}`: {m}")))
                })
                .collect::<Result<Vec<_>>>()?,
            Some(Value::Object(_)) | None => {
                return Err(bad(
                    "frontmatter field `sensors` is missing or empty; give at least one `name: {command: \"…\"}`"
                        .into(),
                ))
            }
            Some(_) => {
                return Err(
                    bad("frontmatter field `sensors` must map each sensor's name to `{command, target}`".into()),
                )
            }
        };
        let controller = component("controller", front.get("controller").or(defaults.controller.as_ref()))
            .map_err(|p| bad(p.to_string()))?;
        let actuator = component("actuator", front.get("actuator").or(defaults.actuator.as_ref()))
            .map_err(|p| bad(p.to_string()))?;
        if controller == Component::Manual {
            return Err(bad("frontmatter field `controller`: `manual` is for the actuator only".into()));
        }
        let env = match front.get("env") {
            None => Vec::new(),
            Some(Value::Array(names)) => names
                .iter()
                .map(|n| n.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| bad("frontmatter field `env`: give a list of variable names".into()))?,
            Some(_) => return Err(bad("frontmatter field `env`: give a list of variable names".into())),
        };
        let sandbox: cn_hub::SandboxSpec = match front.get("sandbox") {
            None => Default::default(),
            Some(v) => {
                serde_json::from_value(v.clone()).map_err(|e| bad(format!("frontmatter field `sandbox`: {e}")))?
            }
        };
        sandbox.relative_writes().map_err(|e| bad(format!("frontmatter field `sandbox.write`: {e}")))?;
        Ok(Task { max_iterations, sensors, controller, actuator, text: text.to_string(), env, sandbox })
    }
}

/// What is wrong with a `sensors.NAME` entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum SensorProblem {
    #[error("expected `{{command: \"…\", target: \"…\"}}`")]
    NotAMapping,
    #[error("unknown field `{0}` (known: command, target, timeout)")]
    UnknownField(String),
    #[error("`timeout`: {0}; give a duration such as 90s or 5m")]
    Timeout(String),
    #[error("`command` is empty")]
    EmptyCommand,
    #[error("`command` must be a string")]
    CommandNotAString,
    #[error("no `command`; every sensor needs the command to run")]
    NoCommand,
}

fn sensor(name: &str, spec: &Value) -> Result<SensorSpec, SensorProblem> {
    let Value::Object(map) = spec else {
        return Err(SensorProblem::NotAMapping);
    };
    if let Some(key) = map.keys().find(|k| !["command", "target", "timeout"].contains(&k.as_str())) {
        return Err(SensorProblem::UnknownField(key.clone()));
    }
    let command = match map.get("command") {
        Some(Value::String(c)) if !c.trim().is_empty() => c.clone(),
        Some(Value::String(_)) => return Err(SensorProblem::EmptyCommand),
        Some(_) => return Err(SensorProblem::CommandNotAString),
        None => return Err(SensorProblem::NoCommand),
    };
    let target = match map.get("target") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(t.clone()),
        Some(other) => Some(other.to_string()),
    };
    let timeout = match map.get("timeout") {
        None | Some(Value::Null) => crate::command::COMPONENT_TIMEOUT,
        Some(Value::String(t)) => {
            cn_hub::config::duration::parse(t).map_err(|e| SensorProblem::Timeout(e.to_string()))?
        }
        Some(Value::Number(n)) => n
            .as_f64()
            .and_then(|s| std::time::Duration::try_from_secs_f64(s).ok())
            .ok_or_else(|| SensorProblem::Timeout(format!("`{n}` is not a number of seconds")))?,
        Some(other) => return Err(SensorProblem::Timeout(format!("`{other}` is not a duration"))),
    };
    if timeout.is_zero() {
        return Err(SensorProblem::Timeout("it is zero".into()));
    }
    Ok(SensorSpec { name: name.to_string(), command, target, timeout })
}

/// What is wrong with the `controller` or `actuator` field (`role`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ComponentProblem {
    #[error(
        "frontmatter field `{0}` is missing and cn.yaml has no `loops.{0}` default; give `{{model: executive}}`, `{{model: local}}` or `{{command: \"…\"}}`"
    )]
    Missing(&'static str),
    #[error("frontmatter field `{0}`: give `model` or `command`, not both")]
    Both(&'static str),
    #[error("frontmatter field `{role}`: `model: {model}` is not one of local, executive, scripted")]
    UnknownModel { role: &'static str, model: String },
    #[error("frontmatter field `{role}`: unknown field `{key}` (known: {known})")]
    UnknownField { role: &'static str, key: String, known: &'static str },
    #[error("frontmatter field `{0}`: `answers` must be a file path")]
    AnswersNotAPath(&'static str),
    #[error("frontmatter field `{0}`: `model: scripted` needs `answers: FILE`")]
    ScriptedWithoutAnswers(&'static str),
    #[error("frontmatter field `{0}`: `command` must be a non-empty string")]
    BadCommand(&'static str),
    #[error("frontmatter field `{0}`: `model` must be local, executive or scripted")]
    ModelNotAString(&'static str),
    #[error("frontmatter field `{0}`: give `model` or `command`")]
    Neither(&'static str),
    #[error("frontmatter field `{role}` is {value}; expected `{{model: …}}`, `{{command: \"…\"}}`{or_manual}")]
    Other { role: &'static str, value: String, or_manual: &'static str },
}

fn component(role: &'static str, spec: Option<&Value>) -> Result<Component, ComponentProblem> {
    use ComponentProblem as P;
    match spec {
        None | Some(Value::Null) => Err(P::Missing(role)),
        Some(Value::String(s)) if s == "manual" => Ok(Component::Manual),
        Some(Value::Object(map)) => {
            let model = map.get("model");
            let command = map.get("command");
            match (model, command) {
                (Some(_), Some(_)) => Err(P::Both(role)),
                (Some(Value::String(m)), None) => {
                    if !MODEL_KINDS.contains(&m.as_str()) {
                        return Err(P::UnknownModel { role, model: m.clone() });
                    }
                    if let Some(key) = map.keys().find(|k| *k != "model" && *k != "answers") {
                        return Err(P::UnknownField { role, key: key.clone(), known: "model, answers" });
                    }
                    let answers = match map.get("answers") {
                        None => None,
                        Some(Value::String(p)) => Some(PathBuf::from(p)),
                        Some(_) => return Err(P::AnswersNotAPath(role)),
                    };
                    if m == "scripted" && answers.is_none() {
                        return Err(P::ScriptedWithoutAnswers(role));
                    }
                    Ok(Component::Model { model: m.clone(), answers })
                }
                (None, Some(Value::String(c))) if !c.trim().is_empty() => {
                    if let Some(key) = map.keys().find(|k| *k != "command") {
                        return Err(P::UnknownField { role, key: key.clone(), known: "command" });
                    }
                    Ok(Component::Command(c.clone()))
                }
                (None, Some(_)) => Err(P::BadCommand(role)),
                (Some(_), None) => Err(P::ModelNotAString(role)),
                (None, None) => Err(P::Neither(role)),
            }
        }
        Some(other) => Err(P::Other {
            role,
            value: other.to_string(),
            or_manual: if role == "actuator" { " or `manual`" } else { "" },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Task> {
        Task::parse(text, &Defaults::default())
    }

    #[test]
    fn the_template_with_components_parses() {
        let text = TEMPLATE.replacen("---\n\n#", "controller: {model: executive}\nactuator: manual\n---\n\n#", 1);
        let task = parse(&text).unwrap();
        assert_eq!(task.max_iterations, 10);
        assert_eq!(task.sensors[0].name, "compilation");
        assert_eq!(task.sensors[0].command, "javac src/**/*.java");
        assert_eq!(task.sensors[0].target.as_deref(), Some("no errors"));
        assert_eq!(task.controller, Component::Model { model: "executive".into(), answers: None });
        assert_eq!(task.actuator, Component::Manual);
    }

    #[test]
    fn defaults_fill_missing_components() {
        let d = Defaults {
            controller: Some(serde_json::json!({"command": "./judge.sh"})),
            actuator: Some(serde_json::json!("manual")),
            hub: None,
        };
        let task = Task::parse(TEMPLATE, &d).unwrap();
        assert_eq!(task.controller, Component::Command("./judge.sh".into()));
        let e = parse(TEMPLATE).unwrap_err().to_string();
        assert!(e.contains("`controller`") && e.contains("loops.controller"), "{e}");
    }

    #[test]
    fn defaults_come_from_the_nearest_cn_yaml_or_the_hub() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("code");
        std::fs::create_dir(&sub).unwrap();
        assert!(Defaults::load(&sub, None).unwrap().controller.is_none());
        std::fs::write(dir.path().join("cn.yaml"), "loops:\n  controller: {model: executive}\n  actuator: manual\n")
            .unwrap();
        let d = Defaults::load(&sub, None).unwrap();
        assert_eq!(d.controller, Some(serde_json::json!({"model": "executive"})));
        assert_eq!(d.actuator, Some(serde_json::json!("manual")));
        let hub = tempfile::tempdir().unwrap();
        std::fs::write(hub.path().join("cn.yaml"), "loops: [\n").unwrap();
        let e = Defaults::load(&sub, Some(hub.path())).unwrap_err();
        assert!(e.is_input() && e.to_string().contains("cn.yaml"), "{e}");
    }

    #[test]
    fn bad_input_names_the_field() {
        let ok = "controller: {command: x}\nactuator: {command: y}\n";
        let cases = [
            ("# Task\n".to_string(), "no YAML frontmatter"),
            (format!("---\nmax-iterations: 0\nsensors: {{a: {{command: x}}}}\n{ok}---\n"), "`max-iterations` is 0"),
            (
                format!("---\nmax-iterations: ten\nsensors: {{a: {{command: x}}}}\n{ok}---\n"),
                "`max-iterations` is \"ten\"",
            ),
            (format!("---\nmax-iterations: -1\nsensors: {{a: {{command: x}}}}\n{ok}---\n"), "positive integer"),
            (format!("---\nsensors: {{a: {{command: x}}}}\n{ok}---\n"), "`max-iterations` is missing"),
            (format!("---\nmax-iterations: 2\nsensors: {{a: {{target: x}}}}\n{ok}---\n"), "`sensors.a`: no `command`"),
            (format!("---\nmax-iterations: 2\n{ok}---\n"), "`sensors` is missing"),
            (format!("---\nmax-iteration: 2\n{ok}---\n"), "unknown frontmatter field `max-iteration`"),
            (
                "---\nmax-iterations: 2\nsensors: {a: {command: x}}\ncontroller: manual\nactuator: manual\n---\n"
                    .into(),
                "actuator only",
            ),
            (
                "---\nmax-iterations: 2\nsensors: {a: {command: x}}\ncontroller: {model: gpt}\nactuator: manual\n---\n"
                    .into(),
                "`model: gpt`",
            ),
        ];
        for (text, want) in cases {
            let e = parse(&text).unwrap_err();
            assert!(e.is_input(), "{e}");
            let e = e.to_string();
            assert!(e.starts_with("loop-run/task.md: ") && e.contains(want), "{text:?}: {e}");
        }
    }
}
