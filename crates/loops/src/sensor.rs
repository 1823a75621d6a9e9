//! Sensor: observe the codebase, write `sensor-output.md`, change nothing, judge nothing.
//!
//! The sensors of one measurement run in task.md's order in one throwaway view of the tree
//! (`crate::view`): what they write — `.class` files, `target/`, `.pytest_cache/` — is
//! thrown away with it, so it never reaches the tree, the commit or the actuator's report.
//!
//! One sensor: frontmatter `sensor: NAME` and `exit-status: N`, then `## Command` and
//! `## Output` as the document shows. Several: `sensors: [..]` and `exit-status: {name: N}`,
//! then one `## NAME` section each (with `### Command`, `### Output`), in task.md's order.
//! Each output keeps its last [`TAIL`] bytes (a long log's errors come last), with a note of
//! what was left out.

use cn_storage::Doc;
use serde_yaml_ng::{Mapping, Value};

use crate::artifacts::{fenced, LoopRun, SENSOR_OUTPUT};
use crate::command::{run_in, CommandRun, Role};
use crate::error::Result;
use crate::task::SensorSpec;
use crate::view::View;

/// Most of one sensor's output kept in `sensor-output.md` (its tail).
pub const TAIL: usize = 32 * 1024;

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
        body.push_str(&fenced("text", tail(&r.output, TAIL).as_ref()));
    }
}

/// The last `max` bytes of `text` (from a line start when one is near), with a note of what
/// was left out.
fn tail(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let mut cut = text.len() - max;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    if let Some(nl) = text[cut..].find('\n').filter(|n| *n < 200) {
        cut += nl + 1;
    }
    format!(
        "[… the first {cut} bytes of the output are left out; the last {} follow …]\n{}",
        text.len() - cut,
        &text[cut..]
    )
    .into()
}

/// The sensors of task.md, run as commands.
pub struct CommandSensor {
    pub specs: Vec<SensorSpec>,
}

impl Sensor for CommandSensor {
    fn sense(&mut self, run: &LoopRun, iteration: u64) -> Result<SensorReport> {
        let mut results = Vec::with_capacity(self.specs.len());
        let view = View::new(run)?;
        for spec in &self.specs {
            tracing::info!(sensor = %spec.name, command = %spec.command, "sensing");
            results.push((
                spec.name.clone(),
                run_in(run, Role::Sensor, &spec.command, iteration, Some(&view), spec.timeout)?,
            ));
        }
        drop(view);
        let report = SensorReport { results };
        run.write_doc(SENSOR_OUTPUT, &report.render())?;
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(cmd: &str, out: &str, code: i32) -> CommandRun {
        CommandRun { command: cmd.into(), output: out.into(), code: Some(code), elapsed: Default::default() }
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

    #[test]
    fn a_long_log_keeps_its_tail() {
        let log: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        let report = SensorReport { results: vec![("t".into(), r("x", &log, 1))] };
        let text = report.render().render();
        assert!(text.contains("line 19999\n") && !text.contains("line 10\n"), "kept the tail");
        assert!(text.contains("bytes of the output are left out"), "said so");
        assert!(text.len() < TAIL + 1000);
    }
}
