//! The engine: one item in, at most one reflex run, and a verdict — handled, or escalate.
//!
//! Matching goes from cheap to expensive: every level-0 pattern at once (one `RegexSet`), the
//! level-1 heuristics, then — only if some reflex asks for it — one level-2 question to the
//! local model ("which of these intents?"), its answer accepted only if it names one. Nothing
//! matched: the item escalates to the executive (level 3).
//!
//! A matched reflex runs its pipeline step by step, each step a tool call through the
//! registry at the reflex's level. A step that fails ends the pipeline; the run is journaled
//! (`type: reflex`, `skipped_executive: false`, the error) and the item escalates — it is
//! never dropped.

use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use cn_compute::{Level, Model, Plan, ToolCall, ToolError};
use cn_tools::{Policy, Registry};
use regex::Regex;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::actions::{self, Replier, Shared, Target, Turn};
use crate::config::{self, ReflexConfig};
use crate::load::Catalog;
use crate::load_error::LoadError;
use crate::mode::Mode;
use crate::reflex::{Reflex, Trigger, TriggerKind};
use crate::spec::{self, EXECUTIVE_INTENT};
use crate::stats::{self, RunOutcome, Stats};
use crate::vars;

/// What attention routes to the reflexes, as they see it: its text, the sense it came from
/// and its id.
///
/// The seed calls what attention scores and routes its *inputs* ("percepts + impulses"):
/// this is one of them, whichever it was (a percept, an impulse, a hub item, the text given
/// to `cn reflex test`), borrowed for one run. It is not autonomy's `Percept` (one sensed
/// thing with its sense, time and payload), so it does not take that name.
#[derive(Debug, Clone, Copy, Default)]
pub struct Input<'a> {
    pub text: &'a str,
    /// The sense it came from (`discord`, `github`, ...).
    pub source: Option<&'a str>,
    /// Its id (thread, message), linking the journal entry to it.
    pub id: Option<&'a str>,
    /// Where it came from (`cn_hub::Origin`): its kind and author decide which reflexes may
    /// take it (a trigger's `kind:` and `from:`). Absent (`cn reflex test TEXT`): a person's
    /// message from the owner, or from the `source` sense's public.
    pub origin: Option<&'a cn_hub::Origin>,
}

impl<'a> Input<'a> {
    pub fn new(text: &'a str) -> Self {
        Input { text: text.trim(), source: None, id: None, origin: None }
    }
    pub fn origin(mut self, origin: &'a cn_hub::Origin) -> Self {
        self.origin = Some(origin);
        self
    }
    /// Its kind: the origin's, else a person's message.
    pub fn kind(&self) -> cn_hub::Kind {
        self.origin.map_or(cn_hub::Kind::Message, |o| o.kind)
    }
    /// Its author: the origin's, else the owner (or the `source` sense's public).
    pub fn author(&self) -> cn_hub::Provenance {
        match (self.origin, self.source) {
            (Some(o), _) => o.author.clone(),
            (None, None | Some("owner")) => cn_hub::Provenance::Owner,
            (None, Some(sense)) => cn_hub::Provenance::Public { sense: sense.into(), user: None },
        }
    }
    pub fn source(mut self, source: &'a str) -> Self {
        self.source = Some(source);
        self
    }
    pub fn id(mut self, id: &'a str) -> Self {
        self.id = Some(id);
        self
    }
}

/// What happened to one item: `cn reflex test --json` prints exactly this.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Handled {
    /// The reflex that ran, or null.
    pub reflex: Option<String>,
    /// The reflex's level, or 3 when the item goes to the executive.
    pub level: Level,
    /// What the trigger extracted.
    pub vars: Map<String, Value>,
    pub steps: Vec<StepRun>,
    /// True when the executive must handle the item (no reflex, a failed step, `escalate`).
    pub escalate: bool,
    /// Why it escalated after a reflex ran (a step's error or an `escalate` step's reason).
    #[serde(skip)]
    pub error: Option<String>,
    #[serde(skip)]
    pub trigger: Option<TriggerKind>,
    #[serde(skip)]
    pub latency: Duration,
    /// What the level-2 triage answered (an intent or `executive`), when it was asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub triage: Option<String>,
    /// A shadow reflex's run on this escalated item: what it would have done, to compare
    /// with the decision the item gets ([`Engine::settle_shadow`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadow: Option<crate::shadow::ShadowRun>,
    /// A step held for the owner's approval: the item waits for it, then the run resumes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held: Option<HeldRun>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRun {
    pub action: String,
    pub output: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

pub(crate) enum Stop {
    Escalate(String),
    Failed(String),
    /// A step's call is held for the owner's approval (its id); the run can resume after it.
    Held {
        approval: String,
        reason: String,
        step: usize,
    },
}

/// A pipeline stopped at a step held for the owner's approval: what [`Engine::resume`] needs
/// to go on from there once the owner approved it (kept in the approval, `cn_hub::approvals`).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct HeldRun {
    pub approval: String,
    pub reflex: String,
    /// The held step (0-based): its result is bound to its `output`, then the next runs.
    pub step: usize,
    /// The run's variables when it stopped.
    pub env: Map<String, Value>,
}

/// How many nested reflex calls a pipeline may make.
const MAX_DEPTH: usize = 4;

/// The journal's word of a reflex file that did not load (`error`: where and why).
pub fn skipped(error: &str) -> cn_hub::journal::Record {
    let summary = format!("a reflex file was skipped: {error}");
    cn_hub::journal::Record::new(cn_hub::journal::Kind::Observation, cn_hub::id::prefixed("reflex"), summary)
        .outcome("the other reflexes run; fix the file (`cn reflex list` shows the error)")
}

/// How a dry run's step with effects starts its output: `(dry run: ACTION MAIN)`.
const DRY_RUN: &str = "(dry run: ";

/// How many escalated items are remembered for `reflex_write`'s dry run.
const RECENT: usize = 64;

pub struct Engine {
    shared: Arc<Shared>,
    registry: Registry,
    dir: PathBuf,
    catalog: Catalog,
    stats: Stats,
    reload_every: Duration,
    last_check: Instant,
    recent: VecDeque<(Option<String>, String, Option<String>)>,
    /// The hub's own name, the variable `me` (a reflex introduces the agent by it).
    me: Option<String>,
    /// The broken-file errors reported already.
    reported: std::collections::HashSet<String>,
    /// What the level-2 triage answered for the item being handled (for [`Handled::triage`]).
    triaged: std::sync::Mutex<Option<String>>,
    /// The running reflex's replies are checked for token answers (see [`Engine::run`]).
    token_guard: std::cell::Cell<bool>,
}

impl Engine {
    /// Load the reflexes of an open hub, with the config it has already read.
    pub fn of_hub(hub: &cn_hub::Hub) -> Engine {
        let (config, policy) = config::of(hub.config());
        Engine::with_config(hub.layout(), config, policy).named(hub.name())
    }

    /// The agent's own name, the variable `me`.
    pub fn named(mut self, me: &str) -> Engine {
        self.me = Some(me.to_string());
        self
    }

    /// Load the reflexes of the hub laid out at `hub` with a config already read (a hub with
    /// only reflexes needs no `name`: `cn reflex`). Broken reflex files do not fail this (see
    /// [`Engine::errors`]). `policy`'s level grants are used as the reflex grants; see
    /// [`crate::config::of`] and [`crate::config::read`] to derive both from `cn.yaml`.
    pub fn with_config(hub: &cn_hub::Layout, config: ReflexConfig, policy: Policy) -> Engine {
        let hub = hub.root().canonicalize().unwrap_or_else(|_| hub.root().to_path_buf());
        let shared = Arc::new(Shared::new(hub.clone(), config));
        let registry = actions::registry(&shared, policy);
        let layout = cn_hub::Layout::new(&hub);
        let dir = layout.reflexes();
        let mut engine = Engine {
            stats: Stats::open(layout.reflex_stats()),
            shared,
            registry,
            dir,
            catalog: Catalog::default(),
            reload_every: Duration::from_millis(500),
            last_check: Instant::now(),
            recent: VecDeque::new(),
            me: None,
            reported: std::collections::HashSet::new(),
            triaged: std::sync::Mutex::new(None),
            token_guard: std::cell::Cell::new(false),
        };
        engine.reload_quietly();
        engine
    }

    /// The first load: its errors are the caller's to report ([`Engine::errors`]).
    fn reload_quietly(&mut self) {
        self.load_catalog(false);
    }

    /// The level-2 model (`local_prompt`, and `classifier: local` triage).
    pub fn set_model(&mut self, model: Box<dyn Model>) {
        if let Ok(mut m) = self.shared.models.lock() {
            m.default = Some(model);
        }
    }

    /// A model a step may pick by name (`model: NAME`).
    pub fn set_named_model(&mut self, name: &str, model: Box<dyn Model>) {
        if let Ok(mut m) = self.shared.models.lock() {
            m.named.insert(name.to_string(), model);
        }
    }

    /// The MCP client for the `mcp` action (the daemon's, when `mcp:` names servers).
    pub fn set_mcp(&mut self, caller: Arc<dyn actions::McpCaller>) {
        if let Ok(mut m) = self.shared.mcp.write() {
            *m = Some(caller);
        }
    }

    /// How `reply` and `react` reach the sender.
    pub fn set_replier(&mut self, replier: Arc<dyn Replier>) {
        if let Ok(mut r) = self.shared.replier.write() {
            *r = replier;
        }
    }

    /// How often the reflex directory is checked for changes (default 500 ms; zero checks
    /// on every item).
    pub fn set_reload_interval(&mut self, every: Duration) {
        self.reload_every = every;
    }

    pub fn hub(&self) -> &Path {
        &self.shared.hub
    }

    pub fn reflexes(&self) -> &[Reflex] {
        &self.catalog.reflexes
    }

    pub fn reflex(&self, name: &str) -> Option<&Reflex> {
        self.catalog.get(name)
    }

    /// The files that did not load, with file, line and field.
    pub fn errors(&self) -> &[LoadError] {
        &self.catalog.errors
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The registry the actions run through (its docs describe every action).
    /// Whom the reflexes' calls are made for when the caller knows (`cn reflex test
    /// --source`); unset, each call's provenance is the hub's current item's.
    pub fn set_caller(&mut self, from: cn_hub::Provenance) {
        self.registry.ctx.from = Some(from);
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The text of `state/notes/reflexes.md`: the format, then every action with its level
    /// and parameters, from the registry's own docs (so the notes never drift from the code).
    pub fn notes(&self) -> String {
        let mut out = crate::examples::NOTES.to_string();
        for spec in spec::SPECS {
            match self.registry.get(spec.name) {
                Some(tool) => {
                    out.push('\n');
                    out.push_str(&tool.doc().to_prompt().replacen("```yaml\ntool:", "```yaml\naction:", 1));
                    out.push_str(&format!("Level {}; `input:` sets `{}`.\n", spec.level, spec.main));
                }
                None => out.push_str(&format!(
                    "\n### {}\nEnds the pipeline and hands the item to me; `input:` sets `reason`.\n",
                    spec.name
                )),
            }
        }
        out
    }

    /// Re-read every reflex file now. A broken file is reported once, when it first shows
    /// (the caller reports those found on construction: see [`Engine::errors`]), not at every
    /// reload.
    pub fn reload(&mut self) {
        self.load_catalog(true);
    }

    fn load_catalog(&mut self, report: bool) {
        self.catalog = Catalog::load(&self.dir, &self.registry);
        let now: std::collections::HashSet<String> = self.catalog.errors.iter().map(|e| cn_compute::chain(e)).collect();
        if report {
            // Where the owner looks, not only in the log: the journal (as the daemon does for
            // those found when it starts).
            for e in now.difference(&self.reported) {
                tracing::warn!("reflex skipped: {e}");
                self.shared.journal(&skipped(e));
            }
        }
        self.reported = now;
        let files: BTreeMap<String, PathBuf> =
            self.catalog.reflexes.iter().map(|r| (r.name.clone(), r.file.clone())).collect();
        for name in self.stats.reenable_changed(&files) {
            tracing::info!(reflex = %name, "reflex file changed: re-enabled");
        }
        self.catalog.index(&self.stats.disabled());
        self.last_check = Instant::now();
    }

    fn maybe_reload(&mut self) {
        if self.last_check.elapsed() >= self.reload_every {
            self.last_check = Instant::now();
            if self.catalog.changed(&self.dir) {
                self.reload();
            }
        }
    }

    /// Persist the analytics now (they are otherwise written at most once a second).
    pub fn flush(&mut self) {
        self.stats.flush();
    }

    /// Handle one item for real.
    pub fn handle(&mut self, input: &Input) -> Handled {
        self.run(input, Mode::Live)
    }

    /// Handle one item in the given mode.
    pub fn run(&mut self, input: &Input, mode: Mode) -> Handled {
        let start = Instant::now();
        self.maybe_reload();
        let found = self.find(input);
        // Only the next message may answer the routine's question: one no routine reflex
        // takes drops it.
        if mode == Mode::Live
            && input.kind().is_message()
            && !found.as_ref().is_some_and(|(i, _, _)| self.catalog.reflexes[*i].trigger.routine)
        {
            let answer_to = input.origin.and_then(|o| o.answer.as_ref());
            crate::routine::pending::forget(&self.shared.hub, answer_to, &input.author(), &self.shared.now());
        }
        let triage = self.triaged.lock().ok().and_then(|mut t| t.take());
        let escalated = |shadow| Handled {
            triage: triage.clone(),
            reflex: None,
            level: 3,
            vars: Map::new(),
            steps: vec![],
            escalate: true,
            error: None,
            trigger: None,
            latency: start.elapsed(),
            shadow,
            held: None,
        };
        let Some((index, kind, vars)) = found else {
            self.remember(input);
            // What the live reflexes leave to the models, a shadow reflex may try.
            let shadow = if mode == Mode::Live {
                let found = self.catalog.shadows.clone().into_iter().find_map(|i| self.accept(i, false, input));
                found.map(|(i, _, vars)| self.run_shadow(i, vars, input, false))
            } else {
                None
            };
            return escalated(shadow);
        };
        // A promoted learned reflex is checked now and then: this item goes to the executive
        // too, the reflex only in shadow (`reflexes.learn.check_every`).
        if mode == Mode::Live && self.catalog.reflexes[index].learned.is_some() {
            let every = self.shared.config.learn.check_every;
            let name = self.catalog.reflexes[index].name.clone();
            if self.stats.check_due(&name, every) {
                self.remember(input);
                let shadow = self.run_shadow(index, vars, input, true);
                return escalated(Some(shadow));
            }
        }
        let reflex = &self.catalog.reflexes[index];
        self.set_turn(mode, reflex, input);
        // A reflex that matched by evidence (a pattern) may answer small talk as it likes; a
        // triage or a heuristic that answers a person's message with a token ("👍", "ok")
        // drops a request, so such a reply escalates instead.
        self.token_guard.set(input.kind().is_message() && reflex.trigger.kind != TriggerKind::Pattern);
        let mut env = self.env(&vars, input);
        let mut steps = Vec::with_capacity(reflex.steps.len());
        let mut stop = self.run_steps(reflex, &mut env, mode, 0, 0, &mut steps).err();
        // A learned reflex does what the executive did for a person — answers with content or
        // files — or hands the message up: it never closes it with a token or nothing
        // (`learn::rules`; one promoted before that rule, or whose reply came out a token).
        if stop.is_none() && mode == Mode::Live && reflex.learned.is_some() && input.kind().is_message() {
            let did = steps.iter().any(|s| {
                (s.action == "reply" && !cn_hub::origin::is_token_answer(&vars::as_text(&s.output)))
                    || crate::learn::FILINGS.contains(&s.action.as_str())
            });
            if !did {
                stop = Some(Stop::Escalate(format!(
                    "learned reflex `{}` neither answered with content nor filed anything: a person's message is not closed with a token",
                    reflex.name
                )));
            }
        }
        let mut held = None;
        let (escalate, error, outcome) = match stop {
            None => (false, None, RunOutcome::Ok),
            Some(Stop::Escalate(reason)) => (true, Some(reason), RunOutcome::Escalated),
            Some(Stop::Failed(err)) => (true, Some(err), RunOutcome::Failed),
            Some(Stop::Held { approval, reason, step }) => {
                held = Some(HeldRun { approval, reflex: reflex.name.clone(), step, env: env.clone() });
                (true, Some(reason), RunOutcome::Escalated)
            }
        };
        let handled = Handled {
            reflex: Some(reflex.name.clone()),
            level: reflex.level,
            vars,
            steps,
            escalate,
            error,
            trigger: Some(kind),
            latency: start.elapsed(),
            triage,
            shadow: None,
            held,
        };
        if mode != Mode::DryRun {
            self.journal_run(&handled, input, outcome, mode);
        }
        if mode == Mode::Live {
            let (name, file) = (reflex.name.clone(), reflex.file.clone());
            if let Some(reason) = self.stats.record(&name, outcome, handled.latency, &self.shared.config, &file) {
                self.disable(&name, &file, &reason, handled.error.as_deref());
            }
        }
        if escalate {
            self.remember(input);
        }
        handled
    }

    /// Whether reflex `i` takes `p`: its trigger kind and extracted variables. `matched`:
    /// the set already matched the reflex's pattern, so its own regex is compiled only to
    /// read captures.
    pub(crate) fn accept(
        &self,
        i: usize,
        matched: bool,
        p: &Input,
    ) -> Option<(usize, TriggerKind, Map<String, Value>)> {
        let r = &self.catalog.reflexes[i];
        if !source_ok(&r.trigger, p.source) || !r.trigger.takes(p.kind(), &p.author()) {
            return None;
        }
        // The routine takes, besides what its patterns read, an answer to the question it
        // asked in this conversation.
        let pending = || {
            let answer_to = p.origin.and_then(|o| o.answer.as_ref());
            crate::routine::pending::answers(&self.shared.hub, answer_to, &p.author(), p.text, &self.shared.now())
        };
        let mut vars = heuristics(&r.trigger, p.text, &pending)?;
        if let Some(pattern) = &r.trigger.pattern {
            if !matched || pattern.captures_anything() {
                vars.extend(captures(pattern.regex()?, &r.trigger.extract, p.text)?);
            }
        }
        Some((i, r.trigger.kind, vars))
    }

    /// The run's variables: what the trigger extracted, plus `text`, `source`, `item`, `me`.
    pub(crate) fn env(&self, vars: &Map<String, Value>, input: &Input) -> Map<String, Value> {
        let mut env = vars.clone();
        env.insert("text".into(), Value::String(input.text.to_string()));
        env.insert("source".into(), input.source.map_or(Value::Null, |s| Value::String(s.into())));
        env.insert("item".into(), input.id.map_or(Value::Null, |s| Value::String(s.into())));
        env.insert("me".into(), self.me.clone().map_or(Value::Null, Value::String));
        env
    }

    /// What the actions read for this run (the mode, the reflex, whom it answers).
    pub(crate) fn set_turn(&self, mode: Mode, reflex: &Reflex, input: &Input) {
        let target = Target {
            item: input.id.map(String::from),
            source: input.source.map(String::from),
            text: input.text.to_string(),
            reflex: reflex.name.clone(),
            level: reflex.level,
        };
        if let Ok(mut t) = self.shared.turn.lock() {
            *t = Turn { mode, reflex: reflex.name.clone(), target };
        }
    }

    /// The first reflex that takes `input`, its trigger kind and extracted variables.
    fn find(&self, p: &Input) -> Option<(usize, TriggerKind, Map<String, Value>)> {
        let reflexes = &self.catalog.reflexes;
        let accept = |i: usize, matched: bool| self.accept(i, matched, p);
        // Level 0 (and patterns narrowed by heuristics).
        let found = match &self.catalog.set {
            Some(set) => set.matches(p.text).iter().find_map(|k| accept(self.catalog.set_owner[k], true)),
            None => self.catalog.set_owner.iter().find_map(|&i| accept(i, false)),
        };
        if found.is_some() {
            return found;
        }
        // Level 1.
        if let Some(found) = self.catalog.heuristic.iter().find_map(|&i| accept(i, false)) {
            return Some(found);
        }
        // Level 2: only asked when some reflex wants it, so an idle hub spends nothing.
        let candidates: Vec<(usize, Map<String, Value>)> =
            self.catalog.local.iter().filter_map(|&i| accept(i, false).map(|(i, _, v)| (i, v))).collect();
        if candidates.is_empty() {
            return None;
        }
        let intent = self.classify(p, &candidates)?;
        let (i, mut vars) = candidates.into_iter().find(|(i, _)| reflexes[*i].trigger.intents.contains(&intent))?;
        vars.insert("intent".into(), Value::String(intent));
        Some((i, TriggerKind::Local, vars))
    }

    /// Ask the level-2 model which intent `p` is; `None` when it has no model, fails, or
    /// answers anything but one of the intents.
    fn classify(&self, p: &Input, candidates: &[(usize, Map<String, Value>)]) -> Option<String> {
        let mut intents: Vec<(&str, &str)> = Vec::new();
        for (i, _) in candidates {
            let r = &self.catalog.reflexes[*i];
            intents.extend(r.trigger.intents.iter().map(|n| (n.as_str(), r.description.as_str())));
        }
        // The executive first: a small model leans to the first choices, and a wrong
        // "executive" costs one call where a wrong intent answers a person badly.
        let mut list =
            format!("- {EXECUTIVE_INTENT}: a question or a request to write, explain, plan, check or decide\n");
        for (name, desc) in &intents {
            list.push_str(&format!("- {name}{}{desc}\n", if desc.is_empty() { "" } else { ": " }));
        }
        let alternatives: Vec<String> = [format!("\"{EXECUTIVE_INTENT}\"")]
            .into_iter()
            .chain(intents.iter().map(|(n, _)| format!("\"{n}\"")))
            .collect();
        let plan = Plan {
            level: 2,
            system: "You sort a person's message into one category. Answer with the category name only.".into(),
            prompt: format!(
                "Categories:\n{list}\nExamples:\nMessage: Why is the build slow?\nCategory: {EXECUTIVE_INTENT}\nMessage: Write a toast for my dad\nCategory: {EXECUTIVE_INTENT}\n\nMessage: {}\nCategory:",
                p.text
            ),
            max_tokens: 16,
            grammar: Some(format!("root ::= {}", alternatives.join(" | "))),
            item: p.id.map(String::from),
            ..Plan::default()
        };
        let mut models = self.shared.models.lock().ok()?;
        let Some(model) = models.default.as_mut() else {
            tracing::info!("no level-2 model configured: `classifier: local` reflexes cannot triage");
            return None;
        };
        let answer = match model.ask(&plan) {
            Ok(a) => a.markdown,
            Err(err) => {
                tracing::warn!(err = %cn_compute::Chain(&err), "level-2 triage failed; escalating");
                return None;
            }
        };
        let word = answer
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c == '.' || c == '*')
            .to_ascii_lowercase();
        let intent = intents.iter().find(|(n, _)| *n == word).map(|(n, _)| n.to_string());
        if let Ok(mut t) = self.triaged.lock() {
            *t = Some(word.clone());
        }
        if intent.is_none() {
            tracing::info!(answer = %word, "level-2 triage chose no listed intent; escalating");
        }
        intent
    }

    pub(crate) fn run_steps(
        &self,
        r: &Reflex,
        env: &mut Map<String, Value>,
        mode: Mode,
        depth: usize,
        from: usize,
        out: &mut Vec<StepRun>,
    ) -> Result<Value, Stop> {
        let mut last = Value::Null;
        for (n, step) in r.steps.iter().enumerate().skip(from) {
            let fail = |err: String| {
                Stop::Failed(format!("{}: step {} `{}` (line {}): {err}", r.name, n + 1, step.action, step.line))
            };
            let result = self.run_step(r, step, env, mode, depth);
            match result {
                Ok(output) => {
                    if let Some(name) = &step.output {
                        env.insert(name.clone(), output.clone());
                    }
                    last = output.clone();
                    if depth == 0 {
                        out.push(StepRun { action: step.action.clone(), output, error: None });
                    }
                }
                Err(Stop::Escalate(reason)) => {
                    if depth == 0 {
                        out.push(StepRun {
                            action: step.action.clone(),
                            output: Value::String(reason.clone()),
                            error: None,
                        });
                    }
                    return Err(Stop::Escalate(reason));
                }
                Err(Stop::Failed(err)) => {
                    if depth == 0 {
                        out.push(StepRun {
                            action: step.action.clone(),
                            output: Value::Null,
                            error: Some(err.clone()),
                        });
                    }
                    return Err(if depth == 0 { fail(err) } else { Stop::Failed(err) });
                }
                Err(Stop::Held { approval, reason, .. }) => {
                    if depth == 0 {
                        out.push(StepRun {
                            action: step.action.clone(),
                            output: Value::String(reason.clone()),
                            error: None,
                        });
                        return Err(Stop::Held { approval, reason, step: n });
                    }
                    // Inside a called reflex the run cannot resume where it stopped: it goes up.
                    return Err(Stop::Escalate(reason));
                }
            }
        }
        Ok(last)
    }

    /// Go on with a run that stopped at a step held for the owner's approval, now that the
    /// owner approved it and the call returned `result`: the result is the held step's
    /// output, then the rest of the pipeline runs (its reply decides the item). `None` when the
    /// reflex is gone or was changed so that the step no longer fits.
    pub fn resume(&mut self, held: &HeldRun, result: Value, input: &Input) -> Option<Handled> {
        let start = Instant::now();
        self.maybe_reload();
        let index = self.catalog.reflexes.iter().position(|r| r.name == held.reflex)?;
        let reflex = self.catalog.reflexes[index].clone();
        let step = reflex.steps.get(held.step)?;
        self.set_turn(Mode::Live, &reflex, input);
        self.token_guard.set(false);
        let mut env = held.env.clone();
        if let Some(name) = &step.output {
            env.insert(name.clone(), result.clone());
        }
        let mut steps = vec![StepRun { action: step.action.clone(), output: result, error: None }];
        let stop = self.run_steps(&reflex, &mut env, Mode::Live, 0, held.step + 1, &mut steps).err();
        let (escalate, error, outcome) = match stop {
            None => (false, None, RunOutcome::Ok),
            Some(Stop::Escalate(reason)) | Some(Stop::Held { reason, .. }) => {
                (true, Some(reason), RunOutcome::Escalated)
            }
            Some(Stop::Failed(err)) => (true, Some(err), RunOutcome::Failed),
        };
        let handled = Handled {
            reflex: Some(reflex.name.clone()),
            level: reflex.level,
            vars: held.env.clone(),
            steps,
            escalate,
            error,
            trigger: Some(reflex.trigger.kind),
            latency: start.elapsed(),
            triage: None,
            shadow: None,
            held: None,
        };
        self.journal_run(&handled, input, outcome, Mode::Live);
        Some(handled)
    }

    fn run_step(
        &self,
        r: &Reflex,
        step: &crate::reflex::Step,
        env: &Map<String, Value>,
        mode: Mode,
        depth: usize,
    ) -> Result<Value, Stop> {
        // A dry run did not run the steps with effects: what a later step reads of their output
        // (`{{done.answer}}`) is said to be unknown, not undefined — the pipeline is fine.
        let not_run = |path: &str| -> Option<Value> {
            if mode != Mode::DryRun {
                return None;
            }
            let (root, field) = path.split_once('.')?;
            let action = env.get(root)?.as_str()?.strip_prefix(DRY_RUN)?.split(' ').next()?;
            Some(Value::String(format!("({action} not run: its {field} is not known)")))
        };
        let params = match vars::substitute_or(&Value::Object(step.params.clone()), env, &not_run)
            .map_err(|e| Stop::Failed(cn_compute::chain(&e)))?
        {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        if step.action == "reply" && self.token_guard.get() {
            let message = params.get("message").map(vars::as_text).unwrap_or_default();
            if cn_hub::origin::is_token_answer(&message) {
                return Err(Stop::Escalate(format!(
                    "reflex {}: `{}` is a token answer, not an answer to what was asked",
                    r.name,
                    message.trim()
                )));
            }
        }
        if step.action == "escalate" {
            let reason = params.get("reason").map(vars::as_text).unwrap_or_default();
            return Err(Stop::Escalate(if reason.is_empty() {
                format!("reflex {} escalated", r.name)
            } else {
                reason
            }));
        }
        if let Some(spec) = spec::spec(&step.action) {
            if matches!(mode, Mode::DryRun | Mode::Shadow) && !spec.pure {
                // Say what would happen, and whether policy would allow it, without doing it.
                if !self.registry.ctx.policy.allows(r.level, spec.name) {
                    return Err(Stop::Failed(format!("not allowed: level {} may not call `{}`", r.level, spec.name)));
                }
                let main = params.get(spec.main).map(vars::as_text).unwrap_or_default();
                if mode == Mode::Shadow {
                    // What it would have done, whole: a reply's text is compared with the
                    // real one.
                    return Ok(Value::String(main));
                }
                return Ok(Value::String(format!("{DRY_RUN}{} {})", spec.name, short(&main, 200))));
            }
            // A step held for the owner's approval is no failure of the reflex (a stranger
            // could otherwise disable it by asking): the item goes up, saying why.
            return self.registry.run(r.level, &ToolCall::new(spec.name, params)).map_err(|e| match e {
                ToolError::Held { ref approval, .. } => Stop::Held {
                    approval: approval.clone(),
                    reason: format!("reflex {}: {e}", r.name, e = cn_compute::Chain(&e)),
                    step: 0,
                },
                // The action found the item is not its own (the routine's "not routine"): up,
                // with its reason, and no failure counted against the reflex.
                ToolError::Escalate(why) => Stop::Escalate(why),
                e => Stop::Failed(cn_compute::chain(&e)),
            });
        }
        // A call to another reflex.
        let callee = self
            .catalog
            .get(&step.action)
            .filter(|c| c.callable)
            .ok_or_else(|| Stop::Failed(format!("no callable reflex `{}`", step.action)))?;
        if depth + 1 >= MAX_DEPTH {
            return Err(Stop::Failed(format!("reflex calls nested deeper than {MAX_DEPTH}")));
        }
        let mut inner = Map::new();
        for key in ["text", "source", "item"] {
            inner.insert(key.into(), env.get(key).cloned().unwrap_or(Value::Null));
        }
        inner.extend(params);
        if let (Some(re), Some(text)) = (
            callee.trigger.pattern.as_ref().and_then(|p| p.regex()),
            inner.get("text").and_then(Value::as_str).map(String::from),
        ) {
            if let Some(caught) = captures(re, &callee.trigger.extract, &text) {
                inner.extend(caught);
            }
        }
        let mut ignored = Vec::new();
        self.run_steps(callee, &mut inner, mode, depth + 1, 0, &mut ignored).map_err(|s| match s {
            Stop::Failed(e) => Stop::Failed(format!("in reflex {}: {e}", callee.name)),
            other => other,
        })
    }

    fn journal_run(&self, h: &Handled, p: &Input, outcome: RunOutcome, mode: Mode) {
        let Some(name) = &h.reflex else { return };
        let how = match (&h.triage, h.trigger) {
            (Some(class), _) => format!("the level-2 triage classed it `{class}`"),
            (None, Some(TriggerKind::Pattern)) => "its pattern matched".to_string(),
            (None, Some(TriggerKind::Heuristic)) => "its heuristics matched".to_string(),
            _ => "it matched".to_string(),
        };
        let what = match (outcome, &h.error) {
            (RunOutcome::Ok, _) => {
                format!("did {}", h.steps.iter().map(|s| s.action.as_str()).collect::<Vec<_>>().join(" → "))
            }
            (RunOutcome::Escalated, Some(why)) => format!("escalated: {why}"),
            (RunOutcome::Failed, Some(err)) => format!("failed: {err}"),
            _ => "escalated".to_string(),
        };
        let failed = outcome == RunOutcome::Failed;
        let e = crate::journal::Ran {
            summary: format!("reflex `{name}` (level {}): {how}; {what}", h.level),
            pattern: name,
            name,
            level: h.level,
            trigger: serde_json::to_value(h.trigger).unwrap_or(Value::Null),
            action: h.steps.last().map(|s| s.action.as_str()),
            actions: h.steps.iter().map(|s| s.action.as_str()).collect(),
            skipped_executive: !h.escalate,
            outcome: match outcome {
                RunOutcome::Ok => "ok",
                RunOutcome::Escalated => "escalated",
                RunOutcome::Failed => "error",
            },
            latency_ms: (h.latency.as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0,
            item: p.id,
            source: p.source,
            error: h.error.as_deref().filter(|_| failed),
            reason: h.error.as_deref().filter(|_| !failed),
            triage: h.triage.as_deref(),
            test: mode == Mode::Test,
        };
        self.shared.journal(&e);
    }

    fn disable(&mut self, name: &str, file: &Path, reason: &str, last_error: Option<&str>) {
        tracing::warn!(reflex = %name, %reason, "reflex disabled");
        self.catalog.index(&self.stats.disabled());
        let mut disabled = crate::journal::Changed::new(name, "disable", "disabled");
        disabled.reason = Some(reason);
        self.shared.journal(&disabled);
        let shown = file.strip_prefix(&self.shared.hub).unwrap_or(file).display().to_string();
        let body = format!(
            "The reflex `{name}` {reason}, so it is disabled: the items it would take go to the executive.\n\n\
             Last error: {}\n\nFix `{shown}` (or ask me to): saving the file re-enables the reflex.",
            last_error.unwrap_or("(none recorded)")
        );
        if let Err(err) = stats::surface(
            &self.shared.hub,
            &format!("reflex-{name}-disabled"),
            &format!("Reflex `{name}` disabled"),
            &body,
        ) {
            tracing::error!(err = %cn_compute::Chain(&err), "cannot surface the disabled reflex");
        }
    }

    fn remember(&mut self, p: &Input) {
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back((p.id.map(String::from), p.text.to_string(), p.source.map(String::from)));
    }

    /// The text and source of a recently escalated item: by id, or the latest.
    pub fn escalated(&self, id: Option<&str>) -> Option<(String, Option<String>)> {
        let found = match id {
            Some(id) => self.recent.iter().rev().find(|(i, _, _)| i.as_deref() == Some(id)),
            None => self.recent.back(),
        };
        found.map(|(_, t, s)| (t.clone(), s.clone()))
    }

    /// Only the level-0 match (no pipeline, journal or reload): the name of the reflex
    /// whose pattern takes `text` first. What the matching benchmark measures.
    pub fn match_level0(&self, text: &str, source: Option<&str>) -> Option<&str> {
        let set = self.catalog.set.as_ref()?;
        set.matches(text)
            .iter()
            .map(|k| &self.catalog.reflexes[self.catalog.set_owner[k]])
            .find(|r| {
                source_ok(&r.trigger, source)
                    && (!crate::reflex::has_heuristics(&r.trigger) || heuristics(&r.trigger, text, &|| false).is_some())
            })
            .map(|r| r.name.as_str())
    }

    /// Put `catalog` in place (a trial one, for a dry run). It takes over what was seen on
    /// disk, so the swap itself does not look like a change to reload.
    pub(crate) fn swap_catalog(&mut self, mut catalog: Catalog) -> Catalog {
        catalog.seen = self.catalog.seen.clone();
        std::mem::replace(&mut self.catalog, catalog)
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn journal<T: cn_storage::Typed>(&self, record: &T) {
        self.shared.journal(record);
    }

    pub(crate) fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    pub(crate) fn stats_mut(&mut self) -> &mut Stats {
        &mut self.stats
    }

    pub(crate) fn config(&self) -> &ReflexConfig {
        &self.shared.config
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stats.flush();
    }
}

fn source_ok(t: &Trigger, source: Option<&str>) -> bool {
    t.sources.is_empty() || source.is_some_and(|s| t.sources.iter().any(|x| x == s))
}

fn url_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r#"https?://[^\s<>"']+"#).unwrap_or_else(|_| unreachable!("a constant regex")))
}

fn is_question(text: &str) -> bool {
    const WORDS: &[&str] = &[
        "what", "why", "how", "when", "where", "who", "which", "can", "could", "is", "are", "do", "does", "should",
        "would", "will",
    ];
    let t = text.trim();
    t.ends_with('?') || t.split_whitespace().next().is_some_and(|w| WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

/// Level-1 checks; the variables they define (`url`) when all hold. `pending`: whether the
/// text answers the routine's question pending in its conversation.
fn heuristics(t: &Trigger, text: &str, pending: &dyn Fn() -> bool) -> Option<Map<String, Value>> {
    let mut vars = Map::new();
    if t.min_length.is_some() || t.max_length.is_some() {
        let n = text.chars().count();
        if t.min_length.is_some_and(|m| n < m) || t.max_length.is_some_and(|m| n > m) {
            return None;
        }
    }
    if let Some(k) = &t.keywords {
        if !k.is_match(text) {
            return None;
        }
    }
    if t.unless.as_ref().is_some_and(|u| u.is_match(text)) {
        return None;
    }
    if let Some(q) = t.question {
        if is_question(text) != q {
            return None;
        }
    }
    if t.has_url {
        let url = url_regex().find(text)?.as_str().trim_end_matches(['.', ',', ')', ';', '!', '?']);
        vars.insert("url".into(), Value::String(url.to_string()));
    }
    if t.routine && !crate::routine::recognizes(text) && !pending() {
        return None;
    }
    Some(vars)
}

/// The pattern's captures as variables: `extract` names the groups in order; named groups
/// keep their names.
fn captures(re: &Regex, extract: &[String], text: &str) -> Option<Map<String, Value>> {
    let caps = re.captures(text)?;
    let mut vars = Map::new();
    // Trimmed: a capture that runs to the end of a message keeps its newline otherwise.
    for (i, name) in extract.iter().enumerate() {
        vars.insert(
            name.clone(),
            caps.get(i + 1).map_or(Value::Null, |m| Value::String(m.as_str().trim().to_string())),
        );
    }
    for name in re.capture_names().flatten() {
        vars.insert(
            name.to_string(),
            caps.name(name).map_or(Value::Null, |m| Value::String(m.as_str().trim().to_string())),
        );
    }
    Some(vars)
}

fn short(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
