//! The whole loop, driven through several moves and rests by a scripted model, with
//! decorators that observe, log, block and substitute — and a stop that lets the current
//! act finish.

use std::sync::{Arc, Mutex};

use cn_compute::{
    begin, Decision, Decorator, Inputs, MemoryStore, Mind, Outcome, Outcomes, Parts, Plan, Scripted, StopToken,
    ToolError,
};
use serde_json::{json, Value};

/// Follows a script of decisions, then stops the loop. Each plan reports the last outcome,
/// the way a real plan tells the model what happened.
struct ScriptMind {
    decisions: Vec<Decision>,
    stop: StopToken,
}

impl Mind for ScriptMind {
    fn decide(&mut self, _: &Outcomes) -> Decision {
        if self.decisions.is_empty() {
            self.stop.stop();
            return Decision::Rest;
        }
        self.decisions.remove(0)
    }
    fn plan(&mut self, outcomes: &Outcomes) -> Plan {
        let last = match outcomes.last() {
            None => "nothing yet".to_string(),
            Some(Outcome::Acted { call, result: Ok(v) }) => format!("{} -> {v}", call.tool),
            Some(Outcome::Acted { call, result: Err(e) }) => format!("{} failed: {e}", call.tool),
            Some(Outcome::Unparsed(e)) => format!("unparsed: {}", e.message),
            Some(Outcome::AskFailed { error, .. }) => format!("ask failed: {error}"),
        };
        Plan { level: 3, prompt: format!("last: {last}"), max_tokens: 100, ..Plan::default() }
    }
}

/// A registry with one tool, `write`, that appends its text to a shared list.
fn registry(written: Arc<Mutex<Vec<String>>>) -> cn_tools::Registry {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Write {
        text: String,
    }
    let mut ctx = cn_tools::ToolContext::new(".");
    ctx.policy = cn_tools::Policy::default().grant(3, &["write", "danger"]);
    let mut r = cn_tools::Registry::new(ctx);
    r.register(cn_tools::typed("write", "Append text.", move |_, p: Write| {
        written.lock().unwrap().push(p.text.clone());
        Ok(json!({"written": p.text}))
    }));
    r.register(cn_tools::typed("danger", "Never allowed through.", |_, _: Value| {
        panic!("the blocking decorator must stop this call")
    }));
    r
}

#[test]
fn several_moves_and_rests_with_decorators_that_observe_log_block_and_substitute() {
    let stop = StopToken::new();
    let written = Arc::new(Mutex::new(Vec::new()));
    let model = Scripted::new([
        "First I write.\n\n```yaml\ntool: write\ntext: a\n```\n",
        "Two calls and a broken block.\n\n```yaml\n- tool: write\n  text: b\n- tool: danger\n```\n\n```yaml\nbad: [\n```\n",
        "```yaml\ntool: nope\n```\n",
    ]);
    let asked = model.asked.clone();
    let store = MemoryStore::default();
    let memory = store.memory.clone();

    let decisions = Arc::new(Mutex::new(Vec::new())); // observed
    let log = Arc::new(Mutex::new(Vec::<String>::new())); // logged
    let rests = Arc::new(Mutex::new(0)); // substituted rest
    let (d, l, r) = (decisions.clone(), log.clone(), rests.clone());
    let decorators = vec![
        // observe: see every decision, change nothing
        Decorator::Decide(Box::new(move |mut inner| {
            Box::new(move |s| {
                let decision = inner(s);
                d.lock().unwrap().push(decision);
                decision
            })
        })),
        // log: write each interaction to a log
        Decorator::Ask(Box::new(move |mut inner| {
            Box::new(move |s, plan| {
                let prompt = plan.prompt.clone();
                let answer = inner(s, plan);
                l.lock()
                    .unwrap()
                    .push(format!("{prompt} => {}", answer.as_ref().map(|a| a.markdown.len()).unwrap_or(0)));
                answer
            })
        })),
        // block: the `danger` tool never runs
        Decorator::Act(Box::new(|mut inner| {
            Box::new(move |s, call| {
                if call.tool == "danger" {
                    return Outcome::Acted { call, result: Err(ToolError::Denied("blocked by decorator".into())) };
                }
                inner(s, call)
            })
        })),
        // substitute: rest counts instead of doing nothing
        Decorator::Rest(Box::new(move |_inner| Box::new(move || *r.lock().unwrap() += 1))),
    ];

    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(config.path(), "name: tester\nmodels:\n  executive: {provider: scripted}\n").unwrap();
    let mut inputs = Inputs::new(
        "/work/here",
        Parts {
            mind: Box::new(ScriptMind {
                decisions: vec![Decision::Move, Decision::Rest, Decision::Move, Decision::Rest, Decision::Move],
                stop: stop.clone(),
            }),
            model: Box::new(model),
            tools: Box::new(registry(written.clone())),
            store: Box::new(store),
        },
    );
    inputs.config = Some(config.path().to_path_buf().into());
    inputs.decorators = decorators;
    inputs.stop = stop;

    let state = begin(inputs).expect("begin");

    // prepare: working directory and config as-is
    assert_eq!(state.workdir, std::path::Path::new("/work/here"));
    assert_eq!(state.config.get("name"), Some(&json!("tester")));
    assert_eq!(state.config.get("models.executive.provider"), Some(&json!("scripted")));
    // three moves, three rests (substituted), then the stop
    assert_eq!(state.moves, 3);
    assert_eq!(*rests.lock().unwrap(), 3, "two scripted rests and the last one before the stop");
    assert_eq!(
        *decisions.lock().unwrap(),
        [Decision::Move, Decision::Rest, Decision::Move, Decision::Rest, Decision::Move, Decision::Rest]
    );
    // only the allowed calls reached the tool, in order
    assert_eq!(*written.lock().unwrap(), ["a", "b"]);
    // the model was told about the broken block on the next turn
    let prompts: Vec<String> = asked.lock().unwrap().iter().map(|p| p.prompt.clone()).collect();
    assert_eq!(prompts[0], "last: nothing yet");
    assert_eq!(prompts[1], "last: write -> {\"written\":\"a\"}");
    assert!(prompts[2].starts_with("last: unparsed: YAML block 1 at line 9"), "{}", prompts[2]);
    // the log decorator saw every interaction
    assert_eq!(log.lock().unwrap().len(), 3);
    // the store recorded every interaction and every action that ran (the blocked one never ran)
    let m = memory.lock().unwrap();
    assert_eq!(m.interactions.len(), 3);
    let tools: Vec<(String, bool)> = m
        .actions
        .iter()
        .map(|(_, o)| match o {
            Outcome::Acted { call, result } => (call.tool.clone(), result.is_ok()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(tools, [("write".into(), true), ("write".into(), true), ("nope".into(), false)]);
    // the unknown tool is an error result the model would see; the loop went on to the end
    match state.outcomes.last() {
        Some(Outcome::Acted { call, result: Err(ToolError::Unknown(m)) }) => {
            assert_eq!(call.tool, "nope");
            assert!(m.contains("write"), "lists what may be called: {m}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn stop_lets_the_current_act_finish_and_starts_no_other() {
    let stop = StopToken::new();
    let written = Arc::new(Mutex::new(Vec::new()));
    let s = stop.clone();
    let stop_during_first_act = Decorator::Act(Box::new(move |mut inner| {
        Box::new(move |state, call| {
            s.stop(); // Ctrl-C arrives while this act runs
            inner(state, call)
        })
    }));
    let mut inputs = Inputs::new(
        ".",
        Parts {
            mind: Box::new(ScriptMind { decisions: vec![Decision::Move; 5], stop: stop.clone() }),
            model: Box::new(Scripted::new(["```yaml\n- tool: write\n  text: one\n- tool: write\n  text: two\n```"])),
            tools: Box::new(registry(written.clone())),
            store: Box::new(MemoryStore::default()),
        },
    );
    inputs.decorators = vec![stop_during_first_act];
    inputs.stop = stop;
    let state = begin(inputs).unwrap();
    assert_eq!(*written.lock().unwrap(), ["one"], "the act in progress finished; the next never started");
    assert_eq!(state.moves, 1);
}

#[test]
fn a_model_failure_is_an_outcome_and_the_loop_goes_on() {
    let stop = StopToken::new();
    let inputs = Inputs {
        stop: stop.clone(),
        ..Inputs::new(
            ".",
            Parts {
                mind: Box::new(ScriptMind { decisions: vec![Decision::Move, Decision::Move], stop: stop.clone() }),
                model: Box::new(Scripted::new(Vec::<String>::new())),
                tools: Box::new(registry(Default::default())),
                store: Box::new(MemoryStore::default()),
            },
        )
    };
    let state = begin(inputs).unwrap();
    assert_eq!(state.moves, 2);
    assert_eq!(state.outcomes.iter().filter(|o| matches!(o, Outcome::AskFailed { .. })).count(), 2);
}

#[test]
fn prepare_reports_a_bad_config_with_its_path() {
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(config.path(), "a: [\n").unwrap();
    let stop = StopToken::new();
    let mut inputs = Inputs::new(
        ".",
        Parts {
            mind: Box::new(ScriptMind { decisions: vec![], stop }),
            model: Box::new(Scripted::default()),
            tools: Box::new(registry(Default::default())),
            store: Box::new(MemoryStore::default()),
        },
    );
    inputs.config = Some(config.path().to_path_buf().into());
    let err = cn_compute::prepare(inputs).err().expect("must fail");
    assert!(err.to_string().contains(&config.path().display().to_string()), "{err}");
}
