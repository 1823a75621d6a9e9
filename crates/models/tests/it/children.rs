//! Children cn starts on someone's behalf: a command model (`provider: command`) asked at
//! level 3 as `cn ask --level 3` asks it (`model_of`, then the plan), in a process of its own
//! whose environment holds an API key and more ([`ask_driver`]). A secret in that
//! environment does not reach the program unless cn.yaml passes it, a grandchild left
//! holding stdout does not keep the ask waiting, a program flooding its output is stopped at
//! the cap instead of being read to the deadline, and the model writes only what its entry
//! grants.

use std::path::Path;
use std::time::{Duration, Instant};

use cn_compute::Model;

const SECRET: &str = "sk-ant-do-not-leak";

/// A hub whose executive is `sh SCRIPT`, `extra` under its entry.
fn hub_with_model(dir: &Path, script: &str, extra: &str) {
    std::fs::write(dir.join("model.sh"), script).unwrap();
    let yaml = format!(
        "models:\n  executive:\n    provider: command\n    command: [sh, {}]\n    timeout_secs: 120\n{extra}",
        dir.join("model.sh").display()
    );
    std::fs::write(dir.join("cn.yaml"), yaml).unwrap();
}

/// How an ask ended: the answer's markdown, or the error's chain.
fn ask(hub: &Path) -> (Result<String, String>, Duration) {
    let started = Instant::now();
    let mut c = cn_testkit::child::test_command("children::ask_driver");
    c.env("CN_MODELS_TEST_HUB", hub)
        .env("ANTHROPIC_API_KEY", SECRET)
        .env("GIT_SSH_COMMAND", "touch /tmp/cn-test-git-ssh-pwned")
        .env("CN_GIVEN_TO_MODEL", "given")
        .env("CN_NAMED", "named");
    let out = c.output().expect("the test binary runs");
    let took = started.elapsed();
    let said = cn_testkit::child::said(&out.stdout);
    let Some(v) = said.first() else { panic!("the ask's process said nothing: {}", cn_testkit::text(&out)) };
    let ended = match (v["answer"].as_str(), v["error"].as_str()) {
        (Some(a), _) => Ok(a.to_string()),
        (_, Some(e)) => Err(e.to_string()),
        _ => panic!("{v}"),
    };
    (ended, took)
}

/// Not a test: the asking process for [`ask`]. Asks the executive of `CN_MODELS_TEST_HUB`
/// "hi" at level 3, as `cn ask --level 3 hi` does.
#[test]
#[ignore = "the asking process for the tests that set its environment (children::ask); runs only as their child"]
fn ask_driver() {
    let Some(hub) = std::env::var_os("CN_MODELS_TEST_HUB").map(std::path::PathBuf::from) else { return };
    let result = (|| -> Result<String, Box<dyn std::error::Error>> {
        let config = cn_hub::HubConfig::load(&cn_hub::Layout::new(&hub).config())?;
        let mut model = cn_models::model_of(&config.models, &config.budget, &hub, "executive")?;
        let docs = cn_models::plan::default_tool_docs();
        let tools: Vec<_> = docs.iter().collect();
        let input = cn_models::PlanInput { level: 3, item: "hi", owner: true, tools: &tools, ..Default::default() };
        let plan = cn_models::build_plan(&input, cn_models::level_limits(&config.models, 3));
        Ok(model.ask(&plan)?.markdown)
    })();
    let said = match result {
        Ok(answer) => serde_json::json!({ "answer": answer }),
        Err(e) => serde_json::json!({ "error": cn_compute::chain(&*e) }),
    };
    cn_testkit::child::say(&said);
}

#[test]
fn a_secret_is_not_seen_by_a_command_model_unless_passed() {
    let hub = tempfile::tempdir().unwrap();
    hub_with_model(hub.path(), "cat >/dev/null; env\n", "    env: [CN_GIVEN_TO_MODEL]\n");
    let (answer, _) = ask(hub.path());
    let answer = answer.unwrap_or_else(|e| panic!("{e}"));
    assert!(!answer.contains(SECRET), "the key leaked: {answer}");
    assert!(answer.contains("CN_GIVEN_TO_MODEL=given"), "{answer}");
    assert!(answer.contains("PATH="), "{answer}");
}

#[test]
fn a_grandchild_holding_stdout_does_not_keep_the_ask_waiting() {
    let hub = tempfile::tempdir().unwrap();
    hub_with_model(hub.path(), "cat >/dev/null; sleep 600 & echo 'the answer'\n", "");
    let (answer, took) = ask(hub.path());
    assert!(answer.unwrap_or_else(|e| panic!("{e}")).contains("the answer"));
    assert!(took < Duration::from_secs(60), "waited {took:?} for the grandchild");
}

#[test]
fn a_flooding_model_is_stopped_at_the_cap() {
    let hub = tempfile::tempdir().unwrap();
    hub_with_model(hub.path(), "cat >/dev/null; exec yes\n", "");
    let (answer, took) = ask(hub.path());
    let error = answer.expect_err("a flood is an answer");
    assert!(error.contains("answered more than"), "{error}");
    assert!(took < Duration::from_secs(60), "read to the deadline: {took:?}");
}

/// What the command model dumped: its environment, and whether the secrets were withheld.
fn check_env(dump: &Path) -> String {
    let env = std::fs::read_to_string(dump.join("env.txt")).unwrap_or_else(|e| panic!("the child left no env: {e}"));
    assert!(!env.contains(SECRET) && !env.contains("GIT_SSH_COMMAND"), "the secrets reached the child: {env}");
    assert!(env.contains("CN_NAMED=named"), "a variable cn.yaml names is passed: {env}");
    env
}

#[test]
fn a_command_model_writes_only_what_its_entry_grants() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dir.path().join("hub");
    let dump = dir.path().join("dump");
    std::fs::create_dir_all(hub.join("threads")).unwrap();
    std::fs::create_dir_all(&dump).unwrap();
    let script = dir.path().join("model.sh");
    std::fs::write(
        &script,
        format!(
            "cat > /dev/null\nenv > {d}/env.txt\necho 'policy: {{shell: true}}' >> {h}/cn.yaml\ntouch {h}/threads/model-wrote\n\
             touch \"$TMPDIR/scratch\" && echo temp-ok >> {d}/env.txt\necho the answer\n",
            d = dump.display(),
            h = hub.display()
        ),
    )
    .unwrap();
    let yaml = format!(
        "models:\n  executive:\n    provider: command\n    command: [sh, {}]\n    timeout_secs: 60\n    env: [CN_NAMED]\n    sandbox: {{write: ['{}']}}\n",
        script.display(),
        dump.display()
    );
    std::fs::write(hub.join("cn.yaml"), &yaml).unwrap();
    let (answer, _) = ask(&hub);
    if let Err(e) = &answer {
        if e.contains("cannot sandbox") {
            // This kernel cannot sandbox: refused (fail closed), the way out named.
            assert!(std::env::var_os("CN_TEST_NO_LANDLOCK").is_some(), "no Landlock ABI 4 here: {e}");
            assert!(e.contains("`sandbox: false` in `models.executive`"), "{e}");
            return;
        }
    }
    assert!(answer.unwrap_or_else(|e| panic!("{e}")).contains("the answer"));
    let env = check_env(&dump);
    assert!(env.contains("temp-ok"), "its private TMPDIR is writable: {env}");
    assert_eq!(std::fs::read_to_string(hub.join("cn.yaml")).unwrap(), yaml, "the model rewrote cn.yaml");
    assert!(!hub.join("threads/model-wrote").exists(), "the model wrote in the hub");
}
