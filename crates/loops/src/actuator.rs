//! Actuator: read `controller-output.md` and the codebase, change code, write
//! `actuator-output.md`. It never commits (the orchestrator does) and never sees the sensor.
//!
//! Three kinds: a command (a coding agent's command line, or a script) that may write its own
//! `actuator-output.md` — one holding its output and exit status is written when it does not;
//! a model that edits only through the `write_file` and `replace` tools, confined to DIR; and
//! `manual`, which stops the loop until a person has edited and runs `cn loop done DIR`.

use cn_compute::{Parsed, Plan};
use cn_storage::Doc;
use serde_yaml_ng::{Mapping, Value};

use crate::artifacts::{fenced, LoopRun, ACTUATOR_OUTPUT, CONTROLLER_OUTPUT, LOOP_RUN};
use crate::command::{run_command, Role};
use crate::controller::Ctx;
use crate::error::Result;
use crate::model::ModelSource;
use crate::tools;

const ROLE: &str = "actuator";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actuation {
    /// The code is changed (or left alone); the history's line for it.
    Done { summary: String },
    /// A person is to edit; the loop waits for `cn loop done`.
    Waiting,
}

pub trait Actuator {
    fn actuate(&mut self, ctx: &Ctx, iteration: u64) -> Result<Actuation>;
}

pub struct CommandActuator {
    pub command: String,
}

impl Actuator for CommandActuator {
    fn actuate(&mut self, ctx: &Ctx, iteration: u64) -> Result<Actuation> {
        ctx.run.remove(ACTUATOR_OUTPUT)?;
        let done = run_command(ctx.run, Role::Actuator, &self.command, iteration)?;
        let wrote = ctx.run.read(ACTUATOR_OUTPUT)?.is_some();
        if !wrote {
            let mut front = Mapping::new();
            front.insert(
                "exit-status".into(),
                done.code.map(|c| Value::Number(c.into())).unwrap_or_else(|| "killed by a signal".into()),
            );
            let body = format!(
                "# Actuator Output\n\n## What was done\n\nRan `{}`; it exited with status {} and wrote no actuator-output.md, so this is its output.\n\n## Output\n\n{}",
                self.command,
                done.status_text(),
                if done.output.trim().is_empty() { "(no output)\n".to_string() } else { fenced("text", &done.output) }
            );
            ctx.run.write_doc(ACTUATOR_OUTPUT, &Doc::new(front, body))?;
        }
        Ok(Actuation::Done {
            summary: format!("Actuator: `{}` exited with status {}.", self.command, done.status_text()),
        })
    }
}

pub struct ModelActuator {
    pub source: ModelSource,
}

pub const SYSTEM: &str = "You are the actuator of an AI loop: the hands. You receive the controller's \
instructions and the current codebase, and you change the code by calling tools. You never \
commit. Answer in markdown: say briefly what you do and why, and put each tool call in a fenced \
```yaml block. Paths are relative to the codebase's root.\n\n## Tools\n\n";

/// Most codebase text quoted in the actuator's prompt.
const MAX_CODE: usize = 24_000;

impl Actuator for ModelActuator {
    fn actuate(&mut self, ctx: &Ctx, iteration: u64) -> Result<Actuation> {
        let level = self.source.level();
        let registry = tools::registry(&ctx.run.dir, level);
        let mut system = SYSTEM.to_string();
        for doc in registry.docs_for(level) {
            system.push_str(&doc.to_prompt());
            system.push('\n');
        }
        let instructions = ctx.run.read(CONTROLLER_OUTPUT)?.unwrap_or_default();
        let plan = Plan {
            level,
            system,
            prompt: format!(
                "# Instructions (controller-output.md)\n\n{instructions}\n\n# The codebase\n\n{}",
                codebase(ctx)
            ),
            max_tokens: 4096,
            tools: registry.docs_for(level).iter().map(|d| d.name.clone()).collect(),
            grammar: None,
            item: Some(format!("loop iteration {iteration} actuator")),
            owner: false,
        };
        ctx.run.remove(ACTUATOR_OUTPUT)?;
        let answer = self.source.ask(ROLE, &plan, iteration)?;
        let mut calls = Vec::new();
        let (mut changed, mut failed) = (Vec::new(), 0usize);
        for entry in cn_compute::parse(&answer.markdown) {
            match entry {
                Parsed::Call(call) => {
                    let path = call.params.open().and_then(|p| p.get("path")?.as_str()).unwrap_or("?").to_string();
                    match registry.run(level, &call) {
                        Ok(v) => {
                            let how = if v["created"] == true { "created" } else { "modified" };
                            calls.push(format!("- `{}` `{path}` → ok ({how})", call.tool));
                            let line = format!("- `{path}` ({how})");
                            if !changed.contains(&line) {
                                changed.push(line);
                            }
                        }
                        Err(e) => {
                            failed += 1;
                            calls.push(format!("- `{}` `{path}` → failed: {e}", call.tool, e = cn_compute::Chain(&e)));
                        }
                    }
                }
                Parsed::Error(e) => {
                    failed += 1;
                    calls.push(format!("- block at line {} → not a tool call: {}", e.line, e.message));
                }
            }
        }
        let prose = prose(&answer.markdown);
        let body = format!(
            "# Actuator Output\n\n## What was done\n\n{}\n\n## Files changed\n\n{}\n\n## Tool calls\n\n{}\n",
            if prose.is_empty() { "(the model gave no explanation)" } else { prose.as_str() },
            if changed.is_empty() { "(none)".to_string() } else { changed.join("\n") },
            if calls.is_empty() {
                "(none: the answer held no YAML tool-call block)".to_string()
            } else {
                calls.join("\n")
            },
        );
        ctx.run.write(ACTUATOR_OUTPUT, &body)?;
        let total = calls.len();
        Ok(Actuation::Done { summary: format!("Actuator: {total} tool call(s), {failed} failed.") })
    }
}

/// The tracked and untracked files of DIR (not `loop-run/`), with as much of their text as
/// fits: the actuator needs the current code to `replace` in it.
fn codebase(ctx: &Ctx) -> String {
    let exclude = format!(":(exclude){LOOP_RUN}");
    let files = ctx
        .git
        .run(&["ls-files", "--cached", "--others", "--exclude-standard", "--", ".", &exclude])
        .unwrap_or_default();
    let mut out = String::new();
    let mut left = MAX_CODE;
    for file in files.lines().filter(|f| !f.is_empty()).take(500) {
        match std::fs::read_to_string(ctx.run.dir.join(file)) {
            Ok(text) if text.len() <= left => {
                left -= text.len();
                out.push_str(&format!("## {file}\n\n{}\n", fenced("", &text)));
            }
            _ => out.push_str(&format!("## {file}\n\n(not shown)\n\n")),
        }
    }
    if out.is_empty() {
        out.push_str("(no files yet)\n");
    }
    out
}

/// The answer without its YAML blocks: the model's own account of what it did.
fn prose(markdown: &str) -> String {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for line in markdown.lines() {
        let t = line.trim_start();
        match &fence {
            Some(f) => {
                if t.starts_with(f.as_str()) && t.trim_end().chars().all(|c| c == f.chars().next().unwrap_or('`')) {
                    fence = None;
                }
            }
            None => {
                let marker: String = t.chars().take_while(|c| *c == '`' || *c == '~').collect();
                let info = t[marker.len()..].trim().to_ascii_lowercase();
                if marker.len() >= 3 && (info.starts_with("yaml") || info.starts_with("yml")) {
                    fence = Some(marker);
                } else {
                    out.push(line);
                }
            }
        }
    }
    out.join("\n").trim().to_string()
}

/// A person edits; `cn loop done` continues.
pub struct ManualActuator;

impl Actuator for ManualActuator {
    fn actuate(&mut self, ctx: &Ctx, _iteration: u64) -> Result<Actuation> {
        // A person may write their own account; the last iteration's must not stand in for it.
        ctx.run.remove(ACTUATOR_OUTPUT)?;
        Ok(Actuation::Waiting)
    }
}

/// After `cn loop done`: keep the person's `actuator-output.md`, or write one listing what
/// changed.
pub fn manual_done(run: &LoopRun, changed: &[String]) -> Result<String> {
    if run.read(ACTUATOR_OUTPUT)?.is_none() {
        let files = if changed.is_empty() {
            "(none)".to_string()
        } else {
            changed.iter().map(|c| format!("- `{c}`")).collect::<Vec<_>>().join("\n")
        };
        let body = format!(
            "# Actuator Output\n\n## What was done\n\nA person followed controller-output.md and edited the code (manual actuator).\n\n## Files changed\n\n{files}\n"
        );
        run.write(ACTUATOR_OUTPUT, &body)?;
    }
    Ok("Actuator: a person edited (manual).".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_drops_yaml_blocks_only() {
        let md = "I create it.\n\n```yaml\ntool: write_file\npath: a\n```\n\n```java\nx\n```\nDone.";
        assert_eq!(prose(md), "I create it.\n\n\n```java\nx\n```\nDone.");
    }
}
