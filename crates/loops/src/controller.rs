//! Controller: read task.md, `sensor-output.md` and the git history, judge whether the target
//! is met, and if not, write instructions for the actuator. Writes `controller-output.md`,
//! whose frontmatter carries `target-met: true|false` — the one field the orchestrator reads.
//!
//! Invariant: `controller-output.md` is written only once the judgment is known to parse; a
//! bad answer is an error and leaves nothing half-written (the old file is removed first,
//! and it is committed, so a controller that writes nothing is noticed).

use cn_compute::Plan;
use cn_storage::Doc;
use serde_yaml_ng::{Mapping, Value};

use crate::artifacts::{LoopRun, CONTROLLER_OUTPUT, LOOP_RUN, SENSOR_OUTPUT};
use crate::command::{run_command, Role};
use crate::error::{LoopError, NoTargetMet, Result};
use crate::git::Git;
use crate::model::ModelSource;
use crate::task::Task;

/// What a controller gives the orchestrator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgment {
    pub target_met: bool,
}

/// What every component may look at: where the loop is, its history, its task.
pub struct Ctx<'a> {
    pub run: &'a LoopRun,
    pub git: &'a Git,
    pub task: &'a Task,
}

pub trait Controller {
    /// Judge the latest measurement and write `controller-output.md`.
    fn control(&mut self, ctx: &Ctx, iteration: u64) -> Result<Judgment>;
}

const ROLE: &str = "controller";

/// A program that reads `$CN_LOOP_RUN/task.md` and `sensor-output.md` and writes
/// `$CN_LOOP_RUN/controller-output.md` with `target-met` in its frontmatter.
pub struct CommandController {
    pub command: String,
}

impl Controller for CommandController {
    fn control(&mut self, ctx: &Ctx, iteration: u64) -> Result<Judgment> {
        let file = LoopRun::rel(CONTROLLER_OUTPUT);
        ctx.run.remove(CONTROLLER_OUTPUT)?;
        let done = run_command(ctx.run, Role::Controller, &self.command, iteration)?;
        if !done.success() {
            return Err(LoopError::component(
                ROLE,
                format!("`{}` exited with status {}: {}", self.command, done.status_text(), done.output.trim()),
            ));
        }
        let text = ctx.run.read(CONTROLLER_OUTPUT)?.ok_or_else(|| {
            LoopError::component(ROLE, format!("`{}` did not write {file}; a controller must write it with `target-met: true|false` in its frontmatter", self.command))
        })?;
        let doc = Doc::parse(&text).map_err(|e| LoopError::component_from(ROLE, file.clone(), e))?;
        match target_met(doc.get("target-met")) {
            Some(target_met) => Ok(Judgment { target_met }),
            None => Err(LoopError::component(
                ROLE,
                format!("{file}: frontmatter field `target-met` is missing or not true/false; the controller must write `target-met: true|false`"),
            )),
        }
    }
}

/// A model judges: its prompt is task.md, sensor-output.md and the artifacts' git history;
/// its answer is markdown opening with `target-met: true|false` (as frontmatter or as the
/// first line).
pub struct ModelController {
    pub source: ModelSource,
}

pub const SYSTEM: &str = "You are the controller of an AI loop. You read the task (its setpoint: each sensor's \
target), the latest sensor output and the history of earlier iterations. You judge whether every \
target is met. If it is not, you write clear instructions for the actuator, who edits the code and \
sees only your instructions.\n\nAnswer in markdown that starts with YAML frontmatter:\n\n---\n\
target-met: false\n---\n\n# Controller Output\n\n(what the sensor shows, and the instructions for the \
actuator)\n\nWrite `target-met: true` only when the sensor output shows every target met.";

/// What a local model's answer must be (llama.cpp's GBNF): the `target-met` frontmatter,
/// then the heading and one to six lines of instructions — so even a tiny model answers a
/// judgment that parses, and ends well inside `max_tokens`.
pub const GRAMMAR: &str = r#"root ::= "---\ntarget-met: " ("true" | "false") "\n---\n\n# Controller Output\n\n" line{1,6}
line ::= [^\x00-\x1F] [^\x00-\x1F]{0,159} "\n"
"#;

impl Controller for ModelController {
    fn control(&mut self, ctx: &Ctx, iteration: u64) -> Result<Judgment> {
        let sensor = ctx.run.read(SENSOR_OUTPUT)?.unwrap_or_else(|| "(no sensor output yet)".into());
        let level = self.source.level();
        let prompt = if level == 2 {
            // A small local model: the task and the measurement's end only (a long history
            // costs it seconds per thousand tokens and confuses it).
            format!(
                "This is iteration {iteration} of at most {}.\n\n# task.md\n\n{}\n\n# sensor-output.md (its end)\n\n{}",
                ctx.task.max_iterations,
                ctx.task.text,
                tail(&sensor, LOCAL_SENSOR_CHARS)
            )
        } else {
            format!(
                "This is iteration {iteration} of at most {}.\n\n# task.md\n\n{}\n\n# sensor-output.md\n\n{}\n\n# History (git log -p of loop-run/, newest first)\n\n{}",
                ctx.task.max_iterations,
                ctx.task.text,
                sensor,
                history(ctx.git)
            )
        };
        let plan = Plan {
            level,
            system: SYSTEM.into(),
            prompt,
            max_tokens: if level == 2 { 512 } else { 2048 },
            tools: Vec::new(),
            // A local model judges under the grammar (the binary refuses a local provider
            // that cannot honor one); the executive answers freely and is parsed leniently.
            grammar: (level == 2).then(|| GRAMMAR.to_string()),
            item: Some(format!("loop iteration {iteration} controller")),
            owner: false,
        };
        ctx.run.remove(CONTROLLER_OUTPUT)?;
        let answer = self.source.ask(ROLE, &plan, iteration)?;
        let (target_met, body) =
            parse_answer(&answer.markdown).map_err(|source| LoopError::Answer { role: ROLE, source })?;
        let mut front = Mapping::new();
        front.insert("target-met".into(), Value::Bool(target_met));
        ctx.run.write_doc(CONTROLLER_OUTPUT, &Doc::new(front, body))?;
        Ok(Judgment { target_met })
    }
}

/// Most of `sensor-output.md` a local controller reads (its end: errors come last).
const LOCAL_SENSOR_CHARS: usize = 3000;

/// The last `max` bytes of `text` (at a character boundary).
fn tail(text: &str, max: usize) -> &str {
    let mut cut = text.len().saturating_sub(max);
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    &text[cut..]
}

/// The artifacts' recent history, bounded so the prompt stays small.
fn history(git: &Git) -> String {
    const MAX: usize = 12_000;
    let log = git.patches(3, LOOP_RUN).unwrap_or_default();
    if log.trim().is_empty() {
        return "(no earlier iterations)".into();
    }
    if log.len() <= MAX {
        return log;
    }
    let mut cut = MAX;
    while !log.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\n[… older history left out; see `git log -p loop-run/` …]", &log[..cut])
}

fn target_met(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => word(s),
        _ => None,
    }
}

fn word(s: &str) -> Option<bool> {
    match s.trim().trim_matches(|c| c == '`' || c == '*' || c == '"' || c == '\'').to_ascii_lowercase().as_str() {
        "true" | "yes" => Some(true),
        "false" | "no" => Some(false),
        _ => None,
    }
}

/// Read a controller model's answer: `target-met` from its frontmatter, or from a first line
/// `target-met: true|false` (bold or backticks tolerated). A whole answer wrapped in a
/// `` ```markdown `` fence is unwrapped first. Anything else is an error quoting the answer's start.
pub fn parse_answer(markdown: &str) -> Result<(bool, String), NoTargetMet> {
    let text = unwrap_fence(markdown.trim_start());
    if Doc::has_frontmatter(text) {
        if let Ok(doc) = Doc::parse(text) {
            if let Some(met) = target_met(doc.get("target-met")) {
                return Ok((met, doc.body));
            }
        }
    }
    let mut lines = text.lines();
    if let Some(first) = lines.by_ref().find(|l| !l.trim().is_empty()) {
        let first = first.trim().trim_matches('*').trim_matches('`');
        if let Some((key, value)) = first.split_once(':') {
            let key = key.trim().trim_matches(|c| c == '*' || c == '`').to_ascii_lowercase().replace(['_', ' '], "-");
            if key == "target-met" {
                if let Some(met) = word(value) {
                    let body: Vec<&str> = lines.collect();
                    return Ok((met, body.join("\n").trim_start_matches('\n').to_string() + "\n"));
                }
            }
        }
    }
    Err(NoTargetMet { start: markdown.chars().take(200).collect() })
}

fn unwrap_fence(text: &str) -> &str {
    let t = text.trim();
    for open in ["```markdown\n", "```md\n", "```\n"] {
        if let Some(inner) = t.strip_prefix(open).and_then(|r| r.strip_suffix("```")) {
            return inner;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_every_accepted_shape() {
        let (met, body) = parse_answer("---\ntarget-met: false\n---\n\n# Controller Output\n\nFix it.\n").unwrap();
        assert!(!met);
        assert_eq!(body, "# Controller Output\n\nFix it.\n");
        assert!(parse_answer("```markdown\n---\ntarget-met: true\n---\nok\n```").unwrap().0);
        assert!(parse_answer("\n**target-met: true**\nDone.").unwrap().0);
        assert!(!parse_answer("Target_Met: `no`\nstill broken").unwrap().0);
        assert!(parse_answer("---\ntarget-met: \"yes\"\n---\n").unwrap().0);
    }

    #[test]
    fn the_grammar_says_what_parse_answer_reads() {
        // A sample of what the grammar accepts parses to its judgment.
        let sample = "---\ntarget-met: false\n---\n\n# Controller Output\n\nFix line 3.\n";
        assert_eq!(parse_answer(sample).unwrap(), (false, "# Controller Output\n\nFix line 3.\n".to_string()));
        assert!(GRAMMAR.starts_with("root ::= \"---\\ntarget-met: \" (\"true\" | \"false\")"), "{GRAMMAR}");
    }

    #[test]
    fn bad_answers_are_errors_quoting_the_start() {
        for bad in ["", "The code looks fine.", "---\ntarget-met: maybe\n---\n", "target-met: perhaps"] {
            let e = parse_answer(bad).unwrap_err().to_string();
            assert!(e.contains("target-met") && e.contains("began"), "{bad:?}: {e}");
        }
    }
}
