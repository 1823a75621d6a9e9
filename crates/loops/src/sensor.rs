//! Sensor: observe the codebase, write `sensor-output.md`, change nothing, judge nothing.
//!
//! One sensor: frontmatter `sensor: NAME` and `exit-status: N`, then `## Command` and
//! `## Output` as the document shows. Several: `sensors: [..]` and `exit-status: {name: N}`,
//! then one `## NAME` section each (with `### Command`, `### Output`), in task.md's order.

use cn_storage::Doc;
use serde_yaml_ng::{Mapping, Value};

use crate::artifacts::{fenced, LoopRun, SENSOR_OUTPUT};
use crate::command::{run_command, CommandRun};
use crate::error::Result;
use crate::task::SensorSpec;

pub trait Sensor {
    /// Run every sensor and write `sensor-output.md`.
    fn sense(&mut self, run: &LoopRun, iteration: u64) -> Result<SensorReport>;
}

/// What the sensors measured: one command run per sensor, in task.md's order.
#[derive(Debug, Clone, PartialEq)]
pub struct SensorReport {
    pub results: Vec<(String, CommandRun)>,
}

impl SensorReport {
    /// `Sensor compilation: exit status 1.` — a line for the history.
    pub fn summary(&self) -> String {
        let parts: Vec<String> =
            self.results.iter().map(|(name, r)| format!("{name} exit status {}", r.status_text())).collect();
        format!("Sensor: {}.", parts.join(", "))
    }

    pub fn render(&self) -> Doc {
        let mut front = Mapping::new();
        let mut body = String::new();
        match self.results.as_slice() {
            [(name, r)] => {
                front.insert("sensor".into(), name.as_str().into());
                front.insert("exit-status".into(), exit(r));
                body.push_str(&format!("# Sensor Output — {}\n\n", title(name)));
                section(&mut body, "##", r);
            }
            results => {
                let names: Vec<Value> = results.iter().map(|(n, _)| n.as_str().into()).collect();
                let statuses: Mapping = results.iter().map(|(n, r)| (n.as_str().into(), exit(r))).collect();
                front.insert("sensors".into(), Value::Sequence(names));
                front.insert("exit-status".into(), Value::Mapping(statuses));
                body.push_str("# Sensor Output\n");
                for (name, r) in results {
                    body.push_str(&format!("\n## {name}\n\n"));
                    section(&mut body, "###", r);
                }
            }
        }
        Doc::new(front, body)
    }
}

fn exit(r: &CommandRun) -> Value {
    match r.code {
        Some(c) => Value::Number(c.into()),
        None => "killed by a signal".into(),
    }
}

fn title(name: &str) -> String {
    let mut chars = name.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

fn section(body: &mut String, level: &str, r: &CommandRun) {
    body.push_str(&format!("{level} Command\n\n{}\n\n{level} Output\n\n", r.command));
    if r.output.trim().is_empty() {
        body.push_str("(no output)\n");
    } else {
        body.push_str(&fenced("text", &r.output));
    }
}

/// The sensors of task.md, run as commands.
pub struct CommandSensor {
    pub specs: Vec<SensorSpec>,
}

impl Sensor for CommandSensor {
    fn sense(&mut self, run: &LoopRun, iteration: u64) -> Result<SensorReport> {
        let mut results = Vec::with_capacity(self.specs.len());
        for spec in &self.specs {
            tracing::info!(sensor = %spec.name, command = %spec.command, "sensing");
            results.push((spec.name.clone(), run_command(run, "sensor", &spec.command, iteration)?));
        }
        let report = SensorReport { results };
        run.write_doc(SENSOR_OUTPUT, &report.render())?;
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(cmd: &str, out: &str, code: i32) -> CommandRun {
        CommandRun { command: cmd.into(), output: out.into(), code: Some(code) }
    }

    #[test]
    fn one_sensor_follows_the_document() {
        let report = SensorReport { results: vec![("compilation".into(), r("javac x.java", "1 error\n", 1))] };
        let text = report.render().render();
        assert!(text.starts_with("---\nsensor: compilation\nexit-status: 1\n---\n\n# Sensor Output — Compilation\n\n## Command\n\njavac x.java\n\n## Output\n\n```text\n1 error\n```\n"), "{text}");
        assert_eq!(report.summary(), "Sensor: compilation exit status 1.");
    }

    #[test]
    fn several_sensors_get_a_section_each() {
        let report = SensorReport { results: vec![("a".into(), r("x", "", 0)), ("b".into(), r("y", "bad", 2))] };
        let doc = report.render();
        let text = doc.render();
        assert!(text.contains("sensors:\n- a\n- b\nexit-status:\n  a: 0\n  b: 2\n"), "{text}");
        assert!(text.contains("\n## a\n\n### Command\n\nx\n\n### Output\n\n(no output)\n"), "{text}");
        assert!(text.contains("\n## b\n"), "{text}");
    }
}
