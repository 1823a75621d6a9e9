//! What the reflex tests share: the engine run as `cn reflex test` runs it, in this process
//! or in a child process of the test binary whose environment holds what a test gives it
//! (`GITHUB_TOKEN`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use cn_reflex::{Engine, Input, Mode};
use serde_json::Value;

/// `cn reflex test [--dry-run] --json TEXT` as the command runs it: the hub's reflexes and
/// policy from its cn.yaml, the owner asking, the level-2 model scripted to give `answers`
/// (`None`: no model).
pub fn reflex_test(hub: &Path, text: &str, answers: Option<&[&str]>, dry_run: bool) -> Value {
    let layout = cn_hub::Layout::new(hub);
    let config = cn_hub::HubConfig::load(&layout.config()).unwrap_or_else(|e| panic!("{}", cn_compute::chain(&e)));
    let (reflexes, policy) = cn_reflex::config::of(&config);
    let mut engine = Engine::with_config(&layout, reflexes, policy);
    if let Some(me) = config.name.as_deref() {
        engine = engine.named(me);
    }
    if let Some(a) = answers {
        let answers: Vec<String> = a.iter().map(|s| s.to_string()).collect();
        engine.set_model(Box::new(cn_compute::Scripted::new(answers).named("scripted")));
    }
    engine.set_caller(cn_hub::Provenance::Owner);
    let handled = engine.run(&Input::new(text), if dry_run { Mode::DryRun } else { Mode::Test });
    serde_json::to_value(&handled).unwrap()
}

/// [`reflex_test`] (no model, no dry run) in a process of its own with `env` added to its
/// environment: `cn reflex test --json TEXT` run from a shell that holds them.
pub fn reflex_test_in_child(hub: &Path, text: &str, env: &[(&str, &str)]) -> Value {
    let mut c = cn_testkit::child::test_command("support::reflex_driver");
    c.env("CN_REFLEX_TEST_HUB", hub).env("CN_REFLEX_TEST_TEXT", text).envs(env.iter().copied());
    let out = c.output().expect("the test binary runs");
    match cn_testkit::child::said(&out.stdout).into_iter().next() {
        Some(v) => v,
        None => panic!("the engine's process said nothing: {}", cn_testkit::text(&out)),
    }
}

/// Not a test: the engine's process for [`reflex_test_in_child`].
#[test]
#[ignore = "the engine's process for the tests that set its environment (support::reflex_test_in_child); runs only as their child"]
fn reflex_driver() {
    let Some(hub) = std::env::var_os("CN_REFLEX_TEST_HUB").map(PathBuf::from) else { return };
    let text = std::env::var("CN_REFLEX_TEST_TEXT").unwrap_or_default();
    cn_testkit::child::say(&reflex_test(&hub, &text, None, false));
}

/// `cn init` a hub named `name` at `root/name` (with the starter reflexes); its path.
pub fn init_hub(root: &Path, name: &str) -> PathBuf {
    let hub = root.join(name);
    cn_agent::init(&hub, Some(name)).unwrap_or_else(|e| panic!("{}", cn_compute::chain(&e)));
    hub
}
