//! The reflex file format, and its compilation into a checked [`Reflex`].
//!
//! ```yaml
//! name: summarize-url
//! description: Fetch a URL and return a summary
//! trigger:
//!   pattern: "summarize (https?://\\S+)"   # level 0: a regex (all patterns run as one RegexSet)
//!   extract: [url]                        # names for its capture groups (named groups work too)
//!   source: discord                       # optional: only percepts from this sense (or a list)
//!   # level 1 heuristics (all given must hold): keywords: [..], unless: [..], min_length, max_length,
//!   #   question: true|false, has_url: true (sets $url), routine: true (a request of the
//!   #   routine's: tasks, ideas, the schedule — `crate::routine::recognizes`)
//!   # level 2: classifier: local, intents: [..]  (the local model picks one intent)
//! level: 2          # optional; at least the level its trigger and actions need
//! callable: false   # true: other reflexes may run it as a step (`action: NAME`)
//! enabled: true
//! mode: active      # or shadow: it runs on the items it matches without any effect, records
//!                   # what it would have done, and the item goes on as if it had not matched
//! learned: executive  # written by cn: the executive wrote it (or `proposal`: cn proposed it);
//!                     # a learned reflex is compared with the executive and may be promoted
//! pipeline:
//!   - action: fetch_url     # a core action or a callable reflex
//!     input: $url           # the action's main parameter; `$var` is a value, `{{var}}` text
//!     output: content       # name the result for later steps
//!   - action: ollama_prompt
//!     model: qwen2.5:14b
//!     prompt: "Summarize in 2-3 sentences: {{content}}"
//!     output: summary
//!   - action: reply
//!     message: "{{summary}}"
//! ```
//!
//! Invariant: a `Reflex` exists only if every check passed — the regex compiles, every action
//! is known and given only keys it takes, every variable a step uses is defined before it,
//! and the declared level is at least what the trigger and actions need.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cn_compute::Level;
use cn_tools::Registry;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::load_error::{locate, LoadError};
use crate::pattern::Pattern;
use crate::spec;
use crate::vars;

/// What starts a reflex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TriggerKind {
    /// A regex (level 0), possibly narrowed by heuristics (then level 1).
    Pattern,
    /// Heuristics only (level 1).
    Heuristic,
    /// The local model picks one of `intents` (level 2).
    Local,
    /// No trigger: only callable from other reflexes.
    None,
}

#[derive(Debug, Clone)]
pub struct Trigger {
    pub kind: TriggerKind,
    pub pattern: Option<Pattern>,
    pub extract: Vec<String>,
    pub sources: Vec<String>,
    pub intents: Vec<String>,
    pub keywords: Option<Pattern>,
    /// Any of these words and the reflex does not take the item.
    pub unless: Option<Pattern>,
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub question: Option<bool>,
    pub has_url: bool,
    /// `from:` — whose items it takes (`owner`, `peer`, `peer:NAME`, `public`, a sense, or
    /// `SENSE:USER`; `anyone`); empty: anyone's.
    pub from: Vec<String>,
    /// `kind:` — which kinds of item it takes (`message`, `answer`, `notice`, `impulse`,
    /// `impulse:task` …, `event`, `event:file` …, `any`). Absent: a person's message, and —
    /// for a pattern or a heuristic, not a level-2 triage — an event. The agent's own
    /// impulses and another agent's automatic answers and notices reach only a reflex that
    /// names them.
    pub kinds: Vec<String>,
    /// The routine's own parser takes the text (a request about tasks, ideas or the
    /// schedule, or one it must ask about).
    pub routine: bool,
}

impl Trigger {
    /// Whether it takes an item of this kind from this author.
    pub fn takes(&self, kind: cn_hub::Kind, from: &cn_hub::Provenance) -> bool {
        let kind_ok = if self.kinds.is_empty() {
            kind.is_message() || (kind.is_event() && self.kind != TriggerKind::Local)
        } else {
            self.kinds.iter().any(|k| kind.matches(k))
        };
        kind_ok && (self.from.is_empty() || self.from.iter().any(|f| from.matches(f)))
    }
}

#[derive(Debug, Clone)]
pub struct Step {
    pub action: String,
    /// The step's parameters, `input` already renamed to the action's main parameter.
    pub params: Map<String, Value>,
    pub output: Option<String>,
    /// 1-based line of the step in its file.
    pub line: usize,
}

/// Whether a reflex acts, or only says what it would have done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReflexMode {
    #[default]
    Active,
    /// Runs without effects and records what it would have done (see `learn`).
    Shadow,
}

/// Who wrote a learned reflex (cn sets it; the owner's own reflexes have none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Learned {
    /// The executive wrote it with `reflex_write`.
    Executive,
    /// cn proposed it after several executive decisions of one shape.
    Proposal,
}

#[derive(Debug, Clone)]
pub struct Reflex {
    pub name: String,
    pub description: String,
    pub level: Level,
    pub callable: bool,
    pub enabled: bool,
    pub mode: ReflexMode,
    pub learned: Option<Learned>,
    pub trigger: Trigger,
    pub steps: Vec<Step>,
    pub file: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReflex {
    name: String,
    #[serde(default)]
    description: String,
    trigger: Option<RawTrigger>,
    level: Option<Level>,
    #[serde(default)]
    callable: bool,
    #[serde(default = "yes")]
    enabled: bool,
    #[serde(default)]
    mode: ReflexMode,
    learned: Option<Learned>,
    pipeline: Vec<Map<String, Value>>,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawTrigger {
    pattern: Option<String>,
    #[serde(default)]
    extract: Vec<String>,
    source: Option<OneOrMany>,
    classifier: Option<Classifier>,
    #[serde(default)]
    intents: Vec<String>,
    #[serde(default)]
    keywords: Vec<String>,
    /// Words that keep the reflex off an item (level 1): a request to write, explain, decide …
    #[serde(default)]
    unless: Vec<String>,
    min_length: Option<usize>,
    max_length: Option<usize>,
    question: Option<bool>,
    #[serde(default)]
    has_url: bool,
    from: Option<OneOrMany>,
    kind: Option<OneOrMany>,
    #[serde(default)]
    routine: bool,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize, PartialEq, Eq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Classifier {
    Regex,
    Local,
}

/// Parse and check one reflex file. `callables` are the names of reflexes other reflexes may
/// call (resolved by the loader before this runs).
pub fn compile(
    file: &Path,
    text: &str,
    registry: &Registry,
    callables: &BTreeSet<String>,
) -> Result<Reflex, Vec<LoadError>> {
    // A reflex the executive writes is a model's text: bounded before it is parsed.
    if let Err(e) = cn_compute::yaml::check(text) {
        return Err(vec![LoadError {
            file: file.to_path_buf(),
            line: None,
            field: String::new(),
            message: e.to_string(),
        }]);
    }
    let raw: RawReflex = serde_yaml_ng::from_str(text).map_err(|e| vec![LoadError::from_yaml(file, &e)])?;
    let mut errors = Vec::new();
    let err = |errors: &mut Vec<LoadError>, field: &str, message: String| {
        errors.push(LoadError {
            file: file.to_path_buf(),
            line: locate(text, field),
            field: field.to_string(),
            message,
        });
    };

    if !is_name(&raw.name) {
        err(&mut errors, "name", format!("`{}` is not a reflex name: use lowercase letters, digits and `-`", raw.name));
    }
    let trigger = compile_trigger(raw.trigger.unwrap_or_default(), raw.callable, &mut |f, m| err(&mut errors, f, m));
    if raw.pipeline.is_empty() {
        err(&mut errors, "pipeline", "is empty: give at least one step".into());
    }

    // Variables a step may use: what the trigger defines, then each earlier step's output.
    let mut defined: BTreeSet<String> = ["text", "source", "item", "me"].iter().map(|s| s.to_string()).collect();
    defined.extend(trigger.extract.iter().cloned());
    if let Some(p) = &trigger.pattern {
        defined.extend(p.names().iter().cloned());
    }
    if trigger.has_url {
        defined.insert("url".into());
    }
    if trigger.kind == TriggerKind::Local {
        defined.insert("intent".into());
    }

    let mut level = match trigger.kind {
        TriggerKind::Pattern if has_heuristics(&trigger) => 1,
        TriggerKind::Pattern | TriggerKind::None => 0,
        TriggerKind::Heuristic => 1,
        TriggerKind::Local => 2,
    };
    let mut steps = Vec::new();
    for (i, mut raw_step) in raw.pipeline.into_iter().enumerate() {
        let at = format!("pipeline[{i}]");
        let line = locate(text, &at).unwrap_or(0);
        let action = match raw_step.remove("action") {
            Some(Value::String(a)) => a,
            Some(other) => {
                err(&mut errors, &format!("{at}.action"), format!("must be an action name, not {other}"));
                continue;
            }
            None => {
                err(&mut errors, &at, "has no `action`".into());
                continue;
            }
        };
        let output = match raw_step.remove("output") {
            None | Some(Value::Null) => None,
            Some(Value::String(o)) if is_var(&o) => Some(o),
            Some(o) => {
                err(&mut errors, &format!("{at}.output"), format!("{o} is not a variable name (letters, digits, `_`)"));
                None
            }
        };
        let (params, action_level) = if let Some(spec) = spec::spec(&action) {
            let doc = registry.get(spec.name).map(|t| t.doc().clone());
            let mut params = raw_step;
            if let Some(input) = params.remove("input") {
                if params.contains_key(spec.main) {
                    err(
                        &mut errors,
                        &format!("{at}.input"),
                        format!("`{action}` takes its main value as `input` or `{}`, not both", spec.main),
                    );
                }
                params.insert(spec.main.to_string(), input);
            }
            if let Some(doc) = doc {
                let known = doc.param_names();
                for key in params.keys() {
                    if !known.iter().any(|(k, _)| k == key) {
                        let names: Vec<&str> = known.iter().map(|(k, _)| k.as_str()).collect();
                        err(
                            &mut errors,
                            &format!("{at}.{key}"),
                            format!("`{action}` takes no `{key}` (it takes: input, output, {})", names.join(", ")),
                        );
                    }
                }
                for (k, required) in &known {
                    if *required && !params.contains_key(k) {
                        let hint = if k == spec.main { format!("`{k}` (or `input`)") } else { format!("`{k}`") };
                        err(&mut errors, &at, format!("`{action}` needs {hint}"));
                    }
                }
            }
            (params, spec.level)
        } else if callables.contains(&action) && action != raw.name {
            let mut params = raw_step;
            if let Some(input) = params.remove("input") {
                params.insert("text".into(), input);
            }
            (params, 0)
        } else {
            let mut known: Vec<&str> = spec::SPECS.iter().map(|s| s.name).collect();
            known.extend(callables.iter().map(String::as_str).filter(|c| *c != raw.name));
            err(
                &mut errors,
                &format!("{at}.action"),
                format!("unknown action `{action}` (known: {})", known.join(", ")),
            );
            continue;
        };
        level = level.max(action_level);
        // Callable reflexes get their variables from the caller, so only check the others.
        if !raw.callable {
            for name in vars::references(&Value::Object(params.clone())) {
                if !defined.contains(&name) {
                    err(
                        &mut errors,
                        &at,
                        format!(
                            "uses `{name}`, which is not defined before this step (defined: {})",
                            defined.iter().cloned().collect::<Vec<_>>().join(", ")
                        ),
                    );
                }
            }
        }
        if let Some(o) = &output {
            defined.insert(o.clone());
        }
        steps.push(Step { action, params, output, line });
    }

    if let Some(declared) = raw.level {
        if declared > 2 {
            err(&mut errors, "level", format!("{declared}: reflexes run at levels 0–2; level 3 is the executive"));
        } else if declared < level {
            err(
                &mut errors,
                "level",
                format!(
                    "{declared} is below what this reflex needs ({level}: its trigger or an action runs at that level)"
                ),
            );
        } else {
            level = declared;
        }
    }

    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(Reflex {
        name: raw.name,
        description: raw.description,
        level,
        callable: raw.callable,
        enabled: raw.enabled,
        mode: raw.mode,
        learned: raw.learned,
        trigger,
        steps,
        file: file.to_path_buf(),
    })
}

fn compile_trigger(raw: RawTrigger, callable: bool, err: &mut dyn FnMut(&str, String)) -> Trigger {
    let had_pattern = raw.pattern.is_some();
    let pattern = raw.pattern.as_deref().and_then(|p| match Pattern::parse(p) {
        Ok(p) => Some(p),
        Err(e) => {
            err("trigger.pattern", format!("not a valid regex: {e}"));
            None
        }
    });
    if let Some(p) = &pattern {
        let groups = p.groups();
        if raw.extract.len() > groups {
            err(
                "trigger.extract",
                format!("names {} values but the pattern has {groups} capture group(s)", raw.extract.len()),
            );
        }
    }
    for name in &raw.extract {
        if !is_var(name) {
            err("trigger.extract", format!("`{name}` is not a variable name (letters, digits, `_`)"));
        }
    }
    let words = |list: &[String]| {
        if list.is_empty() {
            return None;
        }
        let alternatives: Vec<String> = list.iter().map(|k| regex::escape(k)).collect();
        Pattern::parse(&format!(r"(?i)\b(?:{})\b", alternatives.join("|"))).ok()
    };
    let keywords = words(&raw.keywords);
    let unless = words(&raw.unless);
    let local = raw.classifier == Some(Classifier::Local);
    if local && raw.intents.is_empty() {
        err("trigger.intents", "`classifier: local` needs a list of intents for the model to choose from".into());
    }
    if !local && !raw.intents.is_empty() {
        err("trigger.intents", "intents are only used with `classifier: local`".into());
    }
    for intent in &raw.intents {
        if !is_name(intent) || intent == "none" || intent == spec::EXECUTIVE_INTENT {
            err(
                "trigger.intents",
                format!("`{intent}` is not an intent name (lowercase letters, digits, `-`; not `none` or `executive`)"),
            );
        }
    }
    let list = |v: Option<OneOrMany>| match v {
        None => vec![],
        Some(OneOrMany::One(s)) => vec![s],
        Some(OneOrMany::Many(v)) => v,
    };
    let kinds = list(raw.kind);
    for k in &kinds {
        if !cn_hub::Kind::known_pattern(k) {
            err(
                "trigger.kind",
                format!(
                    "`{k}` is not a kind of item (message, answer, notice, impulse, impulse:task, impulse:idea, \
                     impulse:follow-up, impulse:schedule, event, event:file, event:calendar, event:webhook, any)"
                ),
            );
        }
    }
    let from = list(raw.from);
    for f in &from {
        if f.trim().is_empty() {
            err("trigger.from", "an empty author: give owner, peer, peer:NAME, public, a sense or SENSE:USER".into());
        }
    }
    let mut trigger = Trigger {
        kind: TriggerKind::None,
        pattern,
        extract: raw.extract,
        sources: list(raw.source),
        from,
        kinds,
        intents: raw.intents,
        keywords,
        unless,
        min_length: raw.min_length,
        max_length: raw.max_length,
        question: raw.question,
        has_url: raw.has_url,
        routine: raw.routine,
    };
    trigger.kind = if local {
        TriggerKind::Local
    } else if had_pattern {
        TriggerKind::Pattern
    } else if has_heuristics(&trigger) {
        TriggerKind::Heuristic
    } else if !trigger.sources.is_empty() {
        err("trigger", "a source alone would match every percept from it: add a pattern or a heuristic".into());
        TriggerKind::None
    } else {
        if !callable {
            err("trigger", "missing: give a `pattern`, heuristics (keywords, has_url, question, min/max_length, routine), or `classifier: local` — or mark the reflex `callable: true`".into());
        }
        TriggerKind::None
    };
    trigger
}

pub(crate) fn has_heuristics(t: &Trigger) -> bool {
    t.keywords.is_some()
        || t.unless.is_some()
        || t.min_length.is_some()
        || t.max_length.is_some()
        || t.question.is_some()
        || t.has_url
        || t.routine
}

/// A reflex or intent name: what a file may be called.
pub fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
}

fn is_var(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry() -> Registry {
        crate::actions::test_registry()
    }

    fn compile_str(text: &str) -> Result<Reflex, Vec<LoadError>> {
        compile(Path::new("r.yaml"), text, &registry(), &BTreeSet::from(["helper".to_string()]))
    }

    #[test]
    fn the_documents_example_compiles_at_level_2() {
        let r = compile_str(crate::examples::SUMMARIZE_URL).unwrap();
        assert_eq!(r.level, 2);
        assert_eq!(r.trigger.kind, TriggerKind::Pattern);
        assert_eq!(r.steps.len(), 3);
        assert_eq!(r.steps[0].params["url"], "$url");
        assert_eq!(r.steps[1].line, 10);
        assert_eq!(r.steps[2].output, None);
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let text = "name: x\ntrigger:\n  pattern: \"(unclosed\"\npipeline:\n  - action: reply\n    message: hi\n  - action: fetch_urll\n    input: $nope\n";
        let errs = compile_str(text).unwrap_err();
        let shown: Vec<String> = errs.iter().map(|e| e.to_string()).collect();
        assert!(shown.iter().any(|e| e.starts_with("r.yaml:3: `trigger.pattern`")), "{shown:?}");
        assert!(
            shown.iter().any(|e| e.starts_with("r.yaml:7: `pipeline[1].action`") && e.contains("fetch_url")),
            "{shown:?}"
        );

        let errs = compile_str("name: x\ntrigger:\n  patern: a\npipeline: []\n").unwrap_err();
        assert_eq!(errs[0].line, Some(3));
        assert_eq!(errs[0].field, "trigger");

        let errs = compile_str("name: x\ntrigger: {pattern: a}\npipeline:\n  - action: reply\n    message: \"{{later}}\"\n  - action: template\n    template: x\n    output: later\n").unwrap_err();
        assert!(errs[0].message.contains("`later`"), "{errs:?}");
        assert_eq!(errs[0].line, Some(4));

        let errs = compile_str(
            "name: x\ntrigger: {pattern: a}\nlevel: 0\npipeline:\n  - action: local_prompt\n    input: hi\n",
        )
        .unwrap_err();
        assert_eq!((errs[0].field.as_str(), errs[0].line), ("level", Some(3)), "{errs:?}");

        let errs = compile_str(
            "name: x\ntrigger: {pattern: a}\npipeline:\n  - action: reply\n    message: hi\n    colour: red\n",
        )
        .unwrap_err();
        assert_eq!((errs[0].field.as_str(), errs[0].line), ("pipeline[0].colour", Some(6)), "{errs:?}");
    }

    #[test]
    fn levels_follow_trigger_and_actions() {
        let hello = compile_str(
            "name: hi\ntrigger: {pattern: '(?i)^hello'}\npipeline:\n  - action: reply\n    message: hello!\n",
        )
        .unwrap();
        assert_eq!(hello.level, 0);
        let task = compile_str("name: t\ntrigger: {keywords: [remind], max_length: 200}\npipeline:\n  - action: add_task\n    input: \"{{text}}\"\n").unwrap();
        assert_eq!((task.level, task.trigger.kind), (1, TriggerKind::Heuristic));
        let triage = compile_str("name: q\ntrigger: {classifier: local, intents: [ask-time]}\npipeline:\n  - action: reply\n    message: \"{{intent}}\"\n").unwrap();
        assert_eq!(triage.level, 2);
        let call =
            compile_str("name: c\ntrigger: {pattern: a}\npipeline:\n  - action: helper\n    input: \"{{text}}\"\n")
                .unwrap();
        assert_eq!(call.steps[0].params["text"], "{{text}}");
    }
}
