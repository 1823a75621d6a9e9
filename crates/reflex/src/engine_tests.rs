//! The engine against real files, a real loopback HTTP server and fake parts: a scripted or
//! echoing level-2 model and a replier that records.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use cn_compute::{Answer, ModelError, Scripted};
use serde_json::json;

use super::*;
use crate::{ReplyError, WriteError};

use crate::examples::SUMMARIZE_URL;

const PAGE: &str = "<html><head><title>Otters</title><script>var x=1;</script></head>\
    <body><h1>Sea otters</h1><p>Sea otters hold hands while they sleep &amp; use rocks as tools.</p></body></html>";

/// Answers with its prompt, so a test sees what the model was asked.
struct Echo;
impl Model for Echo {
    fn ask(&mut self, plan: &Plan) -> Result<Answer, ModelError> {
        Ok(Answer { markdown: plan.prompt.clone(), ..Answer::default() })
    }
}

#[derive(Default)]
struct Recorder(Mutex<Vec<(Target, String)>>);
impl Replier for Recorder {
    fn reply(&self, to: &Target, message: &str) -> Result<(), ReplyError> {
        self.0.lock().unwrap().push((to.clone(), message.to_string()));
        Ok(())
    }
    fn react(&self, to: &Target, emoji: &str) -> Result<(), ReplyError> {
        self.0.lock().unwrap().push((to.clone(), format!("react:{emoji}")));
        Ok(())
    }
}

fn serve(body: &str) -> (String, Arc<AtomicUsize>) {
    crate::testing::serve_html(body.to_string()).unwrap()
}

fn hub(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("state/reflexes")).unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// cn.yaml letting fetches reach the loopback server at `base` (an entry naming the host).
fn allow(base: &str) -> String {
    format!("policy:\n  urls: [\"{base}/\"]\n")
}

/// The engine of the hub in `dir`, with the config and policy in its cn.yaml.
fn load(dir: &Path) -> Engine {
    let layout = cn_hub::Layout::new(dir);
    let (config, policy) = config::read(&layout).unwrap();
    Engine::with_config(&layout, config, policy)
}

fn engine(dir: &tempfile::TempDir) -> (Engine, Arc<Recorder>) {
    let mut e = load(dir.path());
    assert!(e.errors().is_empty(), "{:?}", e.errors());
    let r = Arc::new(Recorder::default());
    e.set_replier(r.clone());
    e.set_reload_interval(Duration::ZERO);
    (e, r)
}

fn journal(dir: &tempfile::TempDir) -> Vec<Map<String, Value>> {
    cn_hub::journal::HubJournal::read(&dir.path().join("state")).unwrap().entries.into_iter().map(|e| e.0).collect()
}

#[test]
fn the_documents_summarize_url_reflex_summarizes_a_loopback_page() {
    let (base, hits) = serve(PAGE);
    let dir = hub(&[("state/reflexes/summarize-url.yaml", SUMMARIZE_URL), ("cn.yaml", &allow(&base))]);
    let (mut e, replies) = engine(&dir);
    e.set_model(Box::new(Echo));
    let text = format!("summarize {base}/otters");
    let h = e.handle(&Input::new(&text).source("discord").id("m-1"));
    assert_eq!(h.reflex.as_deref(), Some("summarize-url"));
    assert_eq!((h.level, h.escalate), (2, false), "{h:?}");
    assert_eq!(h.vars["url"], format!("{base}/otters"));
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    let content = h.steps[0].output.as_str().unwrap();
    assert!(content.contains("Sea otters hold hands while they sleep & use rocks as tools."), "{content}");
    assert!(!content.contains('<') && !content.contains("var x"), "{content}");
    let summary = h.steps[1].output.as_str().unwrap();
    assert!(summary.starts_with("Summarize in 2-3 sentences: Otters\nSea otters"), "{summary}");
    let sent = replies.0.lock().unwrap().clone();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].1, summary);
    assert_eq!((sent[0].0.item.as_deref(), sent[0].0.source.as_deref()), (Some("m-1"), Some("discord")));
    let j = journal(&dir);
    assert_eq!(j.len(), 1);
    assert_eq!(j[0]["type"], "reflex");
    assert_eq!(j[0]["pattern"], "summarize-url");
    assert_eq!(j[0]["skipped_executive"], true);
    assert_eq!(j[0]["actions"], json!(["fetch_url", "ollama_prompt", "reply"]));
    assert_eq!(j[0]["item"], "m-1");
    e.flush();
    let stats: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("state/reflex-stats.json")).unwrap()).unwrap();
    assert_eq!(
        (stats["summarize-url"]["fired"].as_u64(), stats["summarize-url"]["succeeded"].as_u64()),
        (Some(1), Some(1))
    );
}

#[test]
fn dry_run_performs_nothing_and_test_mode_does_not_send() {
    let (base, hits) = serve(PAGE);
    let dir = hub(&[("state/reflexes/summarize-url.yaml", SUMMARIZE_URL), ("cn.yaml", &allow(&base))]);
    let (mut e, replies) = engine(&dir);
    e.set_model(Box::new(Scripted::new(["Otters hold hands."])));
    let text = format!("summarize {base}/");
    let h = e.run(&Input::new(&text), Mode::DryRun);
    assert_eq!((h.reflex.as_deref(), h.escalate), (Some("summarize-url"), false));
    assert!(h.steps[0].output.as_str().unwrap().starts_with("(dry run: fetch_url http://127.0.0.1:"), "{h:?}");
    assert_eq!(hits.load(Ordering::SeqCst), 0, "a dry run fetches nothing");
    assert!(journal(&dir).is_empty());
    assert!(!dir.path().join("state/reflex-stats.json").exists());

    let h = e.run(&Input::new(&text), Mode::Test);
    assert_eq!(h.steps[2].output, json!("Otters hold hands."));
    assert!(replies.0.lock().unwrap().is_empty(), "a test says what it would send, and sends nothing");
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    assert_eq!(journal(&dir)[0]["test"], true);
}

#[test]
fn a_failing_step_journals_the_error_and_escalates() {
    let (base, _) = serve(PAGE);
    let dir = hub(&[("state/reflexes/summarize-url.yaml", SUMMARIZE_URL), ("cn.yaml", &allow(&base))]);
    let (mut e, replies) = engine(&dir);
    let text = format!("summarize {base}/");
    let h = e.handle(&Input::new(&text).id("m-2"));
    assert!(h.escalate);
    assert_eq!(h.steps.len(), 2);
    assert!(h.steps[1].error.as_deref().unwrap().contains("no level-2 model configured"), "{h:?}");
    assert!(replies.0.lock().unwrap().is_empty());
    let j = journal(&dir);
    assert_eq!(j[0]["skipped_executive"], false);
    assert_eq!(j[0]["outcome"], "error");
    assert!(j[0]["error"].as_str().unwrap().contains("step 2 `ollama_prompt` (line 10)"), "{}", j[0]["error"]);
    assert_eq!(e.escalated(Some("m-2")).unwrap().0, text);
}

const HELLO: &str = "name: greeting\ntrigger:\n  pattern: '(?i)^(hi|hello|hey)\\b'\npipeline:\n  - action: react\n    input: \"👋\"\n  - action: reply\n    message: Hello!\n";
const TASK: &str = "name: remember-task\ndescription: Note a task\ntrigger:\n  keywords: [remind, todo]\n  max_length: 200\npipeline:\n  - action: add_task\n    input: \"{{text}}\"\n    output: id\n  - action: reply\n    message: \"Noted ({{id}}).\"\n";
const TRIAGE: &str = "name: tell-time\ndescription: the sender asks what time it is\ntrigger:\n  classifier: local\n  intents: [ask-time]\npipeline:\n  - action: reply\n    message: \"It is time ({{intent}}).\"\n";

#[test]
fn levels_zero_one_two_then_escalate() {
    let dir = hub(&[
        ("state/reflexes/greeting.yaml", HELLO),
        ("state/reflexes/task.yaml", TASK),
        ("state/reflexes/time.yaml", TRIAGE),
    ]);
    let (mut e, replies) = engine(&dir);
    let model = Scripted::new(["ask-time", "`executive`", "banana"]);
    let asked = model.asked.clone();
    e.set_model(Box::new(model));

    let h = e.handle(&Input::new("Hello there"));
    assert_eq!((h.reflex.as_deref(), h.level, h.escalate), (Some("greeting"), 0, false));
    let h = e.handle(&Input::new("please remind me to water the plants"));
    assert_eq!((h.reflex.as_deref(), h.level), (Some("remember-task"), 1));
    let tasks: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("state/tasks.json")).unwrap()).unwrap();
    assert_eq!(tasks[0]["task"], "please remind me to water the plants");
    assert!(tasks[0]["id"].as_str().unwrap().starts_with("task-"));
    assert_eq!(tasks[0]["priority"], 2);
    assert_eq!(replies.0.lock().unwrap()[2].1, format!("Noted ({}).", tasks[0]["id"].as_str().unwrap()));
    assert!(asked.lock().unwrap().is_empty(), "levels 0 and 1 never ask the model");

    let h = e.handle(&Input::new("what's the time?"));
    assert_eq!((h.reflex.as_deref(), h.level, h.escalate), (Some("tell-time"), 2, false));
    assert_eq!(h.vars["intent"], "ask-time");
    let plan = asked.lock().unwrap()[0].clone();
    assert!(
        plan.prompt.contains("- ask-time: the sender asks what time it is") && plan.prompt.contains("what's the time?"),
        "{}",
        plan.prompt
    );
    assert_eq!(plan.grammar.as_deref(), Some("root ::= \"executive\" | \"ask-time\""));
    assert!(plan.prompt.contains("- executive: a question"), "needs the executive is always a choice");
    for text in ["explain monads", "write me a poem"] {
        let h = e.handle(&Input::new(text));
        assert_eq!((h.reflex, h.level, h.escalate), (None, 3, true));
    }
    // No model left: escalates rather than guessing.
    assert!(e.handle(&Input::new("anything")).escalate);
}

#[test]
fn sources_limit_triggers() {
    let dir = hub(&[("state/reflexes/greeting.yaml", &HELLO.replace("trigger:\n", "trigger:\n  source: discord\n"))]);
    let (mut e, _) = engine(&dir);
    assert!(e.handle(&Input::new("hi").source("github")).escalate);
    assert!(e.handle(&Input::new("hi")).escalate);
    assert_eq!(e.match_level0("hi", Some("discord")), Some("greeting"));
    assert!(!e.handle(&Input::new("hi").source("discord")).escalate);
}

#[test]
fn a_reflex_failing_too_often_is_disabled_journaled_and_surfaced() {
    let dir = hub(&[
        ("cn.yaml", "reflexes:\n  min_samples: 2\n  disable_above: 0.5\n"),
        ("state/reflexes/greeting.yaml", HELLO),
    ]);
    let mut e = load(dir.path());
    e.set_reload_interval(Duration::ZERO);
    // No replier: every run fails at its first step.
    for _ in 0..2 {
        let h = e.handle(&Input::new("hi"));
        assert_eq!((h.reflex.as_deref(), h.escalate), (Some("greeting"), true));
    }
    let h = e.handle(&Input::new("hi"));
    assert_eq!((h.reflex, h.level), (None, 3), "disabled: the item goes to the executive");
    let j = journal(&dir);
    assert!(j.iter().any(|e| e["action"] == "disable" && e["outcome"] == "disabled"), "{j:?}");
    let mca: Vec<_> = std::fs::read_dir(dir.path().join("state/mca")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(mca.len(), 1);
    let doc = cn_storage::Doc::parse(&std::fs::read_to_string(&mca[0]).unwrap()).unwrap();
    assert_eq!(doc.get_str("status"), Some("open"));
    assert!(doc.body.contains("failed 2 of its last 2 runs"), "{}", doc.body);
    // Still disabled after a restart; editing the file re-enables it.
    drop(e);
    let mut e = load(dir.path());
    e.set_reload_interval(Duration::ZERO);
    assert!(e.handle(&Input::new("hi")).reflex.is_none());
    let f = std::fs::File::options().write(true).open(dir.path().join("state/reflexes/greeting.yaml")).unwrap();
    f.set_modified(std::time::SystemTime::now() + Duration::from_secs(3)).unwrap();
    e.reload();
    assert_eq!(e.handle(&Input::new("hi")).reflex.as_deref(), Some("greeting"));
}

#[test]
fn changed_files_are_reloaded_and_broken_ones_skipped() {
    let dir = hub(&[("state/reflexes/greeting.yaml", HELLO)]);
    let (mut e, _) = engine(&dir);
    assert!(e.handle(&Input::new("ping")).escalate);
    std::fs::write(
        dir.path().join("state/reflexes/ping.yaml"),
        "name: ping\ntrigger: {pattern: '^ping$'}\npipeline:\n  - action: reply\n    message: pong\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("state/reflexes/broken.yaml"),
        "name: broken\ntrigger: {pattern: '^x'}\npipeline:\n  - action: reply\n    mesage: typo\n",
    )
    .unwrap();
    let h = e.handle(&Input::new("ping"));
    assert_eq!(h.steps[0].output, json!("pong"));
    let errors: Vec<String> = e.errors().iter().map(|e| e.to_string()).collect();
    assert!(errors.iter().all(|e| e.contains("broken.yaml:")), "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("broken.yaml:5: `pipeline[0].mesage`")), "{errors:?}");
    assert!(
        errors.iter().any(|e| e.contains("broken.yaml:4: `pipeline[0]`: `reply` needs `message` (or `input`)")),
        "{errors:?}"
    );
    assert_eq!(e.handle(&Input::new("hello")).reflex.as_deref(), Some("greeting"));
}

#[test]
fn reflexes_call_reflexes_and_policy_limits_actions() {
    let dir = hub(&[
        ("cn.yaml", "policy:\n  urls: [\"http://allowed.invalid/\"]\n"),
        ("notes.txt", "hub note"),
        ("state/reflexes/shout.yaml", "name: shout\ncallable: true\npipeline:\n  - action: template\n    input: \"{{text}}!!\"\n"),
        ("state/reflexes/echo.yaml", "name: echo\ntrigger: {pattern: '^echo (?P<what>.+)'}\npipeline:\n  - action: shout\n    input: \"{{what}}\"\n    output: loud\n  - action: read_file\n    input: notes.txt\n    output: note\n  - action: template\n    input: \"{{loud}} / {{note}}\"\n"),
        ("state/reflexes/escape.yaml", "name: escape\ntrigger: {pattern: '^escape'}\npipeline:\n  - action: read_file\n    input: ../outside.txt\n"),
        ("state/reflexes/fetch.yaml", "name: fetch\ntrigger: {pattern: 'fetch (\\S+)', extract: [u]}\npipeline:\n  - action: fetch_url\n    input: $u\n"),
        ("state/reflexes/sh.yaml", "name: sh\ntrigger: {pattern: '^sh$'}\npipeline:\n  - action: shell\n    input: echo hi\n"),
    ]);
    let (mut e, _) = engine(&dir);
    let h = e.handle(&Input::new("echo yes"));
    assert_eq!(h.steps[2].output, json!("yes!! / hub note"), "{h:?}");
    for (text, needle) in [
        ("escape", "outside the allowed directory"),
        ("fetch http://127.0.0.1:9/x", "allowlist"),
        ("sh", "may not call `shell`"),
    ] {
        let h = e.handle(&Input::new(text));
        assert!(h.escalate, "{text}");
        assert!(h.error.as_deref().unwrap_or("").contains(needle), "{text}: {h:?}");
    }
}

#[test]
fn the_executive_writes_a_reflex_that_is_dry_run_then_written_in_shadow_and_committed() {
    let dir = hub(&[("state/reflexes/greeting.yaml", HELLO)]);
    let git = |args: &[&str]| {
        let o = std::process::Command::new("git").arg("-C").arg(dir.path()).args(args).output().unwrap();
        assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    git(&["init", "-q"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init"]);
    let (mut e, replies) = engine(&dir);
    assert!(e.handle(&Input::new("ping").id("m-9")).escalate);
    let yaml =
        "name: ping\nmode: active\ntrigger: {pattern: '^ping$'}\npipeline:\n  - action: reply\n    message: pong\n";

    // Refused: it does not take the item; it does not load; it is misnamed; it is the owner's.
    let err = e.write_reflex("ping", &yaml.replace("^ping$", "^pong$"), None, Some("m-9")).unwrap_err();
    assert!(err.to_string().contains("does not match"), "{err}");
    let err = e.write_reflex("ping", &yaml.replace("reply", "replyy"), None, Some("m-9")).unwrap_err();
    assert!(err.to_string().contains("`pipeline[0].action`"), "{err}");
    assert!(matches!(e.write_reflex("pong", yaml, None, Some("m-9")), Err(WriteError::Mismatch { .. })));
    let err = e.write_reflex("greeting", &HELLO.replace("Hello!", "Go away"), Some("hi"), None).unwrap_err();
    assert!(matches!(err, WriteError::Owners(_)), "{err}");
    assert!(!dir.path().join("state/reflexes/ping.yaml").exists());

    let engine_ = Arc::new(Mutex::new(e));
    let tool = crate::reflex_write_tool(engine_.clone());
    let mut ctx = cn_tools::ToolContext::new(dir.path());
    ctx.item = Some("m-9".into());
    let params = cn_compute::Params::Open(json!({"name": "ping", "yaml": yaml}).as_object().cloned().unwrap());
    let out = tool.call(&ctx, &params).unwrap().into_json();
    assert_eq!(out["dry_run"]["steps"][0]["output"], "(dry run: reply pong)");
    assert_eq!(out["mode"], "shadow");
    // Written in shadow, marked learned, whatever the YAML said; committed and journaled.
    let written = std::fs::read_to_string(dir.path().join("state/reflexes/ping.yaml")).unwrap();
    assert!(written.contains("mode: shadow\n") && written.contains("learned: executive\n"), "{written}");
    assert!(!written.contains("mode: active"), "{written}");
    assert!(git(&["log", "--oneline", "-1"]).contains("reflex: write ping (shadow)"));
    assert!(journal(&dir).iter().any(|j| j["action"] == "write" && j["name"] == "ping" && j["outcome"] == "shadow"));
    // It runs without effect: nothing sent, the item escalates, what it would do is kept.
    drop(tool);
    let mut e = Arc::try_unwrap(engine_).ok().unwrap().into_inner().unwrap();
    let h = e.handle(&Input::new("ping").id("m-10"));
    assert!(h.escalate && h.reflex.is_none(), "{h:?}");
    let run = h.shadow.expect("a shadow run");
    assert_eq!((run.reflex.as_str(), run.op.as_str(), run.message.as_deref()), ("ping", "reply", Some("pong")));
    assert!(replies.0.lock().unwrap().is_empty(), "a shadow reflex sends nothing");
    assert!(journal(&dir).iter().any(|j| j["action"] == "shadow" && j["would_reply"] == "pong" && j["item"] == "m-10"));
}

fn decided(op: &str, message: Option<&str>, text: &str, id: &str) -> crate::Decided {
    crate::Decided {
        op: op.into(),
        message: message.map(String::from),
        tools: vec![],
        level: Some(3),
        text: text.into(),
        source: Some("owner".into()),
        item: Some(id.into()),
    }
}

const LEARNED: &str = "name: status\nmode: shadow\nlearned: executive\ntrigger: {pattern: '(?i)status'}\npipeline:\n  - action: reply\n    message: All systems green.\n";

#[test]
fn agreement_on_distinct_messages_promotes_and_a_check_that_disagrees_demotes() {
    let dir = hub(&[
        ("state/reflexes/status.yaml", LEARNED),
        ("cn.yaml", "reflexes:\n  learn:\n    promote_after: 2\n    check_every: 2\n"),
    ]);
    let (mut e, replies) = engine(&dir);
    let shadow = |e: &mut Engine, text: &str, id: &str| e.handle(&Input::new(text).id(id)).shadow.unwrap();
    // The same message twice counts once.
    let r = shadow(&mut e, "status?", "a");
    assert_eq!(
        e.settle_shadow(&r, &decided("reply", Some("All systems green!"), "status?", "a")),
        crate::Verdict::Agreed { distinct: 1 }
    );
    let r = shadow(&mut e, "status?", "b");
    assert_eq!(
        e.settle_shadow(&r, &decided("reply", Some("all systems green"), "status?", "b")),
        crate::Verdict::Agreed { distinct: 1 }
    );
    assert_eq!(e.reflex("status").unwrap().mode, crate::ReflexMode::Shadow);
    let r = shadow(&mut e, "what's the status", "c");
    assert_eq!(
        e.settle_shadow(&r, &decided("reply", Some("All systems green."), "what's the status", "c")),
        crate::Verdict::Agreed { distinct: 2 }
    );
    // Promoted: it answers now.
    assert_eq!(e.reflex("status").unwrap().mode, crate::ReflexMode::Active);
    assert!(std::fs::read_to_string(dir.path().join("state/reflexes/status.yaml")).unwrap().contains("mode: active"));
    let h = e.handle(&Input::new("status now").id("d"));
    assert!(!h.escalate && h.shadow.is_none(), "{h:?}");
    assert_eq!(replies.0.lock().unwrap().len(), 1);
    // Its second run is checked: the item goes up too, the reflex in shadow.
    let h = e.handle(&Input::new("status again").id("e"));
    let r = h.shadow.clone().unwrap();
    assert!(h.escalate && r.check, "{h:?}");
    assert_eq!(replies.0.lock().unwrap().len(), 1, "nothing sent on a check");
    assert!(matches!(
        e.settle_shadow(&r, &decided("reply", Some("The database is down, I am on it."), "status again", "e")),
        crate::Verdict::Disagreed(_)
    ));
    assert_eq!(e.reflex("status").unwrap().mode, crate::ReflexMode::Shadow, "demoted");
    let j = journal(&dir);
    assert!(j.iter().any(|x| x["action"] == "promote" && x["by"] == "agreement"), "{j:?}");
    assert!(j.iter().any(|x| x["action"] == "demote" && x["by"] == "disagreement"), "{j:?}");
    assert!(j.iter().any(|x| x["action"] == "compare" && x["outcome"] == "disagreed"), "{j:?}");
    // The owner approves it again.
    crate::learn::approve(&mut e, "status").unwrap();
    assert_eq!(e.reflex("status").unwrap().mode, crate::ReflexMode::Active);
    assert!(crate::learn::approve(&mut e, "status").is_err(), "active already");
    let s = e.stats().get("status").unwrap();
    assert_eq!((s.agreed, s.compared), (3, 4));
}

#[test]
fn a_learned_reflex_that_fetches_is_never_promoted_by_agreement() {
    let dir = hub(&[
        (
            "state/reflexes/peek.yaml",
            "name: peek\nmode: shadow\nlearned: executive\ntrigger: {pattern: 'peek (\\S+)', extract: [url]}\npipeline:\n  - action: fetch_url\n    input: $url\n  - action: reply\n    message: seen\n",
        ),
        ("cn.yaml", "reflexes:\n  learn:\n    promote_after: 2\n"),
    ]);
    let (mut e, _) = engine(&dir);
    for (i, t) in
        ["peek https://example.com/a", "peek https://example.com/b", "peek https://example.com/c"].iter().enumerate()
    {
        let r = e.handle(&Input::new(t).id(&i.to_string())).shadow.unwrap();
        assert!(matches!(
            e.settle_shadow(&r, &decided("reply", Some("seen"), t, &i.to_string())),
            crate::Verdict::Agreed { .. }
        ));
    }
    assert_eq!(e.reflex("peek").unwrap().mode, crate::ReflexMode::Shadow);
    let j = journal(&dir);
    let refused: Vec<_> = j.iter().filter(|x| x["action"] == "promote" && x["outcome"] == "refused").collect();
    assert_eq!(refused.len(), 1, "journaled once: {j:?}");
    assert!(refused[0]["reason"].as_str().unwrap().contains("fetch_url"));
}

#[test]
fn several_executive_decisions_of_one_shape_propose_a_shadow_reflex() {
    let dir = hub(&[("cn.yaml", "reflexes:\n  learn:\n    propose_after: 3\n")]);
    let (mut e, _) = engine(&dir);
    assert_eq!(e.observe_decision(&decided("reply", Some("You're welcome!"), "thanks a lot", "1")), None);
    // Another op, another shape.
    assert_eq!(e.observe_decision(&decided("ack", None, "thanks again", "2")), None);
    assert_eq!(e.observe_decision(&decided("reply", Some("You're welcome!"), "many thanks for the fix", "3")), None);
    let name = e.observe_decision(&decided("reply", Some("You're welcome!"), "Thanks!", "4")).expect("proposed");
    assert_eq!(name, "learned-reply-thanks");
    let r = e.reflex(&name).unwrap();
    assert_eq!((r.mode, r.learned), (crate::ReflexMode::Shadow, Some(crate::Learned::Proposal)));
    let h = e.handle(&Input::new("thanks, you rock").source("owner").id("5"));
    assert!(h.escalate);
    assert_eq!(h.shadow.unwrap().message.as_deref(), Some("You're welcome!"));
    assert!(journal(&dir).iter().any(|x| x["action"] == "propose" && x["name"] == "learned-reply-thanks"));
}

#[test]
fn github_api_extract_json_files_ideas_log_and_shell() {
    let (api, hits) = serve(r#"{"number": 42, "title": "Fix the scheduler", "user": {"login": "pi"}}"#);
    let dir = hub(&[
        (
            "cn.yaml",
            &format!(
                "reflexes:\n  github_api: {api}/\n  grants:\n    1: [github_api, extract_json, write_file, add_idea, log, shell]\npolicy:\n  shell: true\n  sandbox: false\n  urls: [\"{api}/\"]\n"
            ),
        ),
        (
            "state/reflexes/pr.yaml",
            "name: pr\ntrigger: {pattern: 'pr (\\d+)', extract: [n]}\npipeline:\n  - action: github_api\n    input: /repos/o/r/pulls/{{n}}\n    output: pr\n  - action: extract_json\n    input: $pr\n    path: $.user.login\n    output: who\n  - action: write_file\n    path: notes/pr.md\n    content: \"#{{pr.number}} {{pr.title}} by {{who}}\"\n  - action: add_idea\n    input: \"look into {{pr.title}}\"\n  - action: log\n    input: \"noted PR {{n}}\"\n  - action: shell\n    input: cat notes/pr.md\n",
        ),
    ]);
    let (mut e, _) = engine(&dir);
    let h = e.handle(&Input::new("pr 42").id("m-5"));
    assert!(!h.escalate, "{h:?}");
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    assert_eq!(h.steps[1].output, json!("pi"));
    assert_eq!(std::fs::read_to_string(dir.path().join("notes/pr.md")).unwrap(), "#42 Fix the scheduler by pi");
    assert_eq!(h.steps[5].output, json!("#42 Fix the scheduler by pi"));
    let ideas: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("state/ideas.json")).unwrap()).unwrap();
    assert_eq!(ideas[0]["idea"], "look into Fix the scheduler");
    assert_eq!(ideas[0]["sparked_by"], "reflex pr: pr 42");
    assert!(ideas[0]["added"].as_str().unwrap().ends_with('Z'));
    let j = journal(&dir);
    assert!(j.iter().any(|x| x["type"] == "log" && x["message"] == "noted PR 42" && x["item"] == "m-5"), "{j:?}");
}

#[test]
fn notes_describe_the_format_and_every_action() {
    let dir = hub(&[]);
    let (e, _) = engine(&dir);
    let notes = e.notes();
    assert!(notes.starts_with("# Reflexes"));
    for spec in spec::SPECS {
        assert!(notes.contains(&format!("### {}\n", spec.name)), "{}", spec.name);
    }
    assert!(notes.contains("action: fetch_url\nurl: ...  # The http(s) URL to fetch."), "{notes}");
}

/// The daemon keeps the engine on its own thread and shares it with `reflex_write`.
#[test]
fn the_engine_can_move_between_threads() {
    fn send<T: Send>() {}
    send::<Engine>();
}
