//! The embedded model's life in a long-running process: freed when idle and loaded again on
//! the next ask; its prompt's keys and values kept on disk for the next process (and a cache
//! file that is garbage ignored); a change of thread count keeps what the context holds.
//!
//! Needs the model file; without it the test fails and says to run `cn model pull`.
#![cfg(feature = "local-model")]

use std::path::PathBuf;
use std::time::Duration;

use cn_compute::{parse, Model, Parsed, Plan};
use cn_models::embedded::{release_idle, Embedded};
use cn_models::plan::default_tool_docs;
use cn_models::{build_plan, LevelLimits, PlanInput};
use cn_tools::ToolDoc;

/// One test at a time: they share the process's models, and one measures its memory.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn model() -> PathBuf {
    cn_models::pull::model_path().filter(|p| p.is_file()).unwrap_or_else(|| {
        panic!("the local model file is missing; run `cn model pull` (or set CN_MODEL_PATH) and run this test again")
    })
}

fn plan(item: &str) -> Plan {
    let docs = default_tool_docs();
    let refs: Vec<&ToolDoc> = docs.iter().collect();
    let input = PlanInput {
        level: 2,
        core_seed: "I am Bud, a helpful agent.",
        item,
        owner: true,
        tools: &refs,
        ..Default::default()
    };
    build_plan(&input, LevelLimits::default_for(2))
}

fn one_call(answer: &str) {
    match parse(answer).as_slice() {
        [Parsed::Call(_)] => {}
        other => panic!("not one tool call: {other:?}\n{answer}"),
    }
}

/// Resident memory of this process, in bytes.
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("statm");
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("resident pages");
    pages * 4096
}

#[test]
fn an_idle_model_is_freed_and_the_next_ask_loads_it_again() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let path = model();
    let mut m = Embedded::new(&path).with_fixed_threads(1).with_release_after(Some(Duration::ZERO));
    let mut kept = Embedded::new(&path).with_fixed_threads(1).with_release_after(None);
    let p = plan("Thanks, that's all for today!");
    let first = m.ask(&p).expect("first ask").markdown;
    one_call(&first);
    assert!(m.stats.load > Duration::ZERO, "the first ask loads the model");
    kept.load().expect("load");
    let loaded_rss = rss();

    // `kept` (never released) shares the model file, so only `m`'s context goes; then `kept`
    // is dropped and the model itself is freed by the last release.
    assert_eq!(release_idle(), 1, "only the model whose release_after has passed");
    assert!(!m.is_loaded() && kept.is_loaded());
    drop(kept);
    let freed_rss = rss();
    assert!(
        loaded_rss.saturating_sub(freed_rss) > 80 << 20,
        "the model and both contexts were freed: {} MB before, {} MB after",
        loaded_rss >> 20,
        freed_rss >> 20
    );
    assert_eq!(release_idle(), 0, "nothing left to release");

    let again = m.ask(&p).expect("ask after release").markdown;
    assert!(m.stats.load > Duration::ZERO, "loaded again");
    assert_eq!(again, first, "a fresh context answers the same prompt the same way");
}

#[test]
fn the_prompt_cache_on_disk_spares_the_next_process_the_shared_prompt_and_garbage_is_ignored() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let path = model();
    let dir = tempfile::tempdir().expect("tempdir");
    let cache = dir.path().join("state/cache");

    let mut first = Embedded::new(&path).with_fixed_threads(1).with_prompt_cache(&cache);
    one_call(&first.ask(&plan("Please remind me to review PR #42 on Monday.")).expect("ask").markdown);
    assert_eq!(first.stats.prompt_reused, 0, "nothing cached yet");
    drop(first);
    let files: Vec<_> = std::fs::read_dir(&cache).expect("the cache dir").flatten().map(|e| e.path()).collect();
    assert_eq!(files.len(), 1, "one cache file, no temp files left: {files:?}");
    assert!(files[0].file_name().unwrap().to_string_lossy().starts_with("local-model-"));

    // A new Embedded (a new process, as far as its context knows) with another item.
    let mut second = Embedded::new(&path).with_fixed_threads(1).with_prompt_cache(&cache);
    one_call(&second.ask(&plan("Can you tell Bob the build is green again?")).expect("ask").markdown);
    let s = second.stats;
    assert!(
        s.prompt_reused > 100,
        "the system prompt and tool docs came from disk: {} of {}",
        s.prompt_reused,
        s.prompt_tokens
    );
    drop(second);

    // Hostile bytes where the cache was: ignored, the answer is still a call, and the file
    // is written again.
    std::fs::write(&files[0], b"GGSQ\x01\x00\x00\x00 not a state file at all \xff\xfe").expect("write garbage");
    let mut third = Embedded::new(&path).with_fixed_threads(1).with_prompt_cache(&cache);
    one_call(&third.ask(&plan("hi")).expect("ask despite a garbage cache").markdown);
    assert_eq!(third.stats.prompt_reused, 0);
    drop(third);
    let mut fourth = Embedded::new(&path).with_fixed_threads(1).with_prompt_cache(&cache);
    fourth.ask(&plan("hello there")).expect("ask");
    assert!(fourth.stats.prompt_reused > 100, "the cache was written again after the garbage");
}

#[test]
fn a_change_of_threads_keeps_what_the_context_holds() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let path = model();
    let mut m = Embedded::new(&path).with_fixed_threads(1);
    one_call(&m.ask(&plan("Add a task: buy milk, priority 2.")).expect("ask").markdown);
    assert_eq!(m.threads_used(), Some(1));
    let mut m = m.with_fixed_threads(2);
    one_call(&m.ask(&plan("Write a haiku about autumn leaves.")).expect("ask").markdown);
    assert_eq!(m.threads_used(), Some(2), "a new context with two threads");
    assert!(m.stats.load == Duration::ZERO, "the model was not loaded again");
    assert!(m.stats.prompt_reused > 100, "the keys and values moved to the new context: {}", m.stats.prompt_reused);
}
