//! `cn reflex test|list` end to end: the real binary, a real hub directory, and a real HTTP
//! server on 127.0.0.1 serving the page the document's `summarize-url` reflex summarizes.
//! The level-2 model is the scripted test facility (`CN_SCRIPTED_ANSWERS`), or the embedded
//! one. What the engine does with a scripted model is cn-reflex's test.

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::Ordering;

use serde_json::Value;

use cn_reflex::testing::{allow_urls as allow, journal, serve_otters, OTTERS_SUMMARY as SUMMARY};

/// A minimal hub holding the document's `summarize-url` reflex, verbatim.
fn hub() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    cn_reflex::testing::summarize_hub(dir.path()).unwrap();
    dir
}

fn cn(hub: &Path, args: &[&str], answers: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cn"));
    cmd.arg("--hub").arg(hub).args(args).env_remove("CN_HUB").env_remove("CN_SCRIPTED_ANSWERS");
    if let Some(a) = answers {
        cmd.env("CN_SCRIPTED_ANSWERS", a);
    }
    cmd.output().unwrap()
}

fn json_out(o: &Output) -> Value {
    assert!(o.status.success(), "stderr: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

fn answers(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let p = dir.path().join("answers.json");
    std::fs::write(&p, serde_json::to_string(&[SUMMARY]).unwrap()).unwrap();
    p
}

/// What `--json` holds is cn-reflex's test (crates/reflex/tests/it/summarize.rs); the human
/// form is the binary's.
#[test]
fn the_human_form_says_what_the_reply_would_send() {
    let hub = hub();
    let (base, hits) = serve_otters().unwrap();
    allow(hub.path(), &base).unwrap();
    let url = format!("{base}/otters.html");
    let scripted = answers(&hub);
    let o = cn(hub.path(), &["reflex", "test", "summarize", &url], Some(&scripted));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        text.contains("reflex: summarize-url (level 2)") && text.contains(&format!("3. reply → would send: {SUMMARY}")),
        "{text}"
    );
    assert!(text.contains("handled without the executive"), "{text}");
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    assert_eq!(journal(hub.path()).len(), 1);
}

#[test]
fn when_the_level_2_model_fails_the_item_escalates_and_is_journaled() {
    let hub = hub();
    std::fs::write(
        hub.path().join("cn.yaml"),
        "reflexes:\n  min_samples: 10\nmodels:\n  local: {provider: embedded, path: no-such-model.gguf}\n",
    )
    .unwrap();
    let (base, _) = serve_otters().unwrap();
    allow(hub.path(), &base).unwrap();
    let out = json_out(&cn(hub.path(), &["reflex", "test", "--json", &format!("summarize {base}/x")], None));
    assert_eq!(out["escalate"], true);
    assert_eq!(out["steps"].as_array().unwrap().len(), 2);
    assert!(out["steps"][1]["error"].as_str().unwrap().contains("no-such-model.gguf"), "{out}");
    let j = journal(hub.path());
    assert_eq!(j[0]["skipped_executive"], false);
    assert_eq!(j[0]["outcome"], "error");
    assert!(j[0]["error"].as_str().unwrap().contains("no-such-model.gguf"));
}

/// The issue's done-when: the document's reflex, verbatim, summarizes a loopback page with
/// the real embedded local model from `cn reflex test` (the demo covers `cn run`).
#[test]
fn summarize_url_verbatim_with_the_embedded_local_model() {
    let hub = hub();
    let (base, hits) = serve_otters().unwrap();
    allow(hub.path(), &base).unwrap();
    let out = json_out(&cn(hub.path(), &["reflex", "test", "--json", &format!("summarize {base}/x")], None));
    assert_eq!(out["reflex"], "summarize-url");
    assert_eq!(out["escalate"], false, "{out}");
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    let summary = out["steps"][1]["output"].as_str().unwrap();
    assert!(summary.split_whitespace().count() >= 3, "the local model wrote a summary: {out}");
    assert_eq!(out["steps"][2]["action"], "reply");
}

#[test]
fn list_shows_analytics_and_names_broken_files() {
    let hub = hub();
    std::fs::write(
        hub.path().join("state/reflexes/broken.yaml"),
        "name: broken\ntrigger:\n  pattern: \"(oops\"\npipeline:\n  - action: reply\n    message: hi\n",
    )
    .unwrap();
    std::fs::write(
        hub.path().join("state/reflex-stats.json"),
        r#"{"summarize-url": {"fired": 4, "succeeded": 3, "failed": 1, "escalated": 1, "latency_ms_p50": 12.5, "latency_ms_last": 9.0}}"#,
    )
    .unwrap();
    let o = cn(hub.path(), &["reflex", "list"], None);
    assert_eq!(o.status.code(), Some(2), "a broken reflex file is bad input");
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    let row = out.lines().find(|l| l.starts_with("summarize-url")).unwrap_or_else(|| panic!("{out}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    // Mode, agreement (none compared), executive tokens saved (none claimed: no executive
    // call was measured on this hub), then the analytics.
    assert_eq!(
        cols,
        ["summarize-url", "2", "pattern", "active", "-", "-", "4", "3", "1", "1", "12.5", "9.0", "enabled"]
    );
    assert!(out.contains("none claimed until an executive call is measured"), "{out}");
    assert!(err.contains("broken.yaml:3: `trigger.pattern`: not a valid regex"), "{err}");

    let o = cn(hub.path(), &["reflex", "list", "--json"], None);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["reflexes"][0]["name"], "summarize-url");
    assert_eq!(v["reflexes"][0]["fired"], 4);
    assert_eq!(
        (v["reflexes"][0]["mode"].as_str(), v["reflexes"][0]["tokens_saved"].as_u64()),
        (Some("active"), None),
        "no saving is claimed before an executive call was measured"
    );
    assert_eq!(v["errors"][0]["line"], 3);
    assert_eq!(v["errors"][0]["field"], "trigger.pattern");
}

#[test]
fn no_hub_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cn"))
        .current_dir(dir.path())
        .env_remove("CN_HUB")
        .args(["reflex", "list"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no hub"));
}
