//! `cn reflex test|list` end to end: the real binary, a real hub directory, and a real HTTP
//! server on 127.0.0.1 serving the page the document's `summarize-url` reflex summarizes.
//! The level-2 model is the scripted test facility (`CN_SCRIPTED_ANSWERS`).

use std::path::Path;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::Value;

/// The autonomy document's example, verbatim (the constant is the document's text).
const SUMMARIZE_URL: &str = cn_reflex::examples::SUMMARIZE_URL;

const PAGE: &str = "<!doctype html><html><head><title>Sea otters</title><style>body{margin:0}</style></head>\
    <body><h1>Sea otters</h1><p>Sea otters hold hands while they sleep so they do not drift apart.</p>\
    <p>They use rocks as tools to open shellfish.</p></body></html>";

const SUMMARY: &str = "Sea otters hold hands while sleeping and use rocks as tools.";

fn serve() -> (String, Arc<AtomicUsize>) {
    cn_reflex::testing::serve_html(PAGE.to_string()).unwrap()
}

fn hub() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cn.yaml"), "# a minimal hub\nreflexes:\n  min_samples: 10\n").unwrap();
    std::fs::create_dir_all(dir.path().join("state/reflexes")).unwrap();
    std::fs::write(dir.path().join("state/reflexes/summarize-url.yaml"), SUMMARIZE_URL).unwrap();
    dir
}

/// Let fetches reach the loopback server at `base`: the owner names its host in cn.yaml
/// (loopback is refused otherwise).
fn allow(hub: &Path, base: &str) {
    let path = hub.join("cn.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}policy:\n  urls: [\"{base}/\"]\n")).unwrap();
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

fn journal(hub: &Path) -> Vec<Value> {
    std::fs::read_to_string(hub.join("state/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn summarize_url_summarizes_a_loopback_page() {
    let hub = hub();
    let (base, hits) = serve();
    allow(hub.path(), &base);
    let url = format!("{base}/otters.html");
    let scripted = answers(&hub);
    let out = json_out(&cn(hub.path(), &["reflex", "test", "--json", &format!("summarize {url}")], Some(&scripted)));

    let keys: Vec<&str> = out.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["reflex", "level", "vars", "steps", "escalate"]);
    assert_eq!(out["reflex"], "summarize-url");
    assert_eq!(out["level"], 2);
    assert_eq!(out["vars"], serde_json::json!({"url": url}));
    assert_eq!(out["escalate"], false);
    let actions: Vec<&str> = out["steps"].as_array().unwrap().iter().map(|s| s["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["fetch_url", "ollama_prompt", "reply"]);
    let content = out["steps"][0]["output"].as_str().unwrap();
    assert!(content.contains("Sea otters hold hands while they sleep so they do not drift apart."), "{content}");
    assert!(!content.contains("<p>") && !content.contains("margin"), "markup reached the prompt: {content}");
    assert_eq!(out["steps"][1]["output"], SUMMARY);
    assert_eq!(out["steps"][2]["output"], SUMMARY);
    assert_eq!(hits.load(Ordering::SeqCst), 1);

    let j = journal(hub.path());
    assert_eq!(j.len(), 1, "{j:?}");
    assert_eq!((j[0]["type"].as_str(), j[0]["pattern"].as_str()), (Some("reflex"), Some("summarize-url")));
    assert_eq!((j[0]["skipped_executive"].as_bool(), j[0]["test"].as_bool()), (Some(true), Some(true)));

    // The human form says what the reply would send.
    let o = cn(hub.path(), &["reflex", "test", "summarize", &url], Some(&scripted));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success());
    assert!(
        text.contains("reflex: summarize-url (level 2)") && text.contains(&format!("3. reply → would send: {SUMMARY}")),
        "{text}"
    );
    assert!(text.contains("handled without the executive"), "{text}");
}

#[test]
fn dry_run_performs_no_effect_at_all() {
    let hub = hub();
    let (base, hits) = serve();
    allow(hub.path(), &base);
    let out =
        json_out(&cn(hub.path(), &["reflex", "test", "--dry-run", "--json", &format!("summarize {base}/x")], None));
    assert_eq!(out["reflex"], "summarize-url");
    assert_eq!(out["escalate"], false);
    assert!(out["steps"][0]["output"].as_str().unwrap().starts_with("(dry run: fetch_url http://127.0.0.1:"), "{out}");
    assert!(
        out["steps"][1]["output"].as_str().unwrap().starts_with("(dry run: ollama_prompt Summarize in 2-3 sentences:"),
        "{out}"
    );
    assert_eq!(hits.load(Ordering::SeqCst), 0, "a dry run fetched");
    assert!(!hub.path().join("state/journal.jsonl").exists());
    assert!(!hub.path().join("state/reflex-stats.json").exists());
}

#[test]
fn when_the_level_2_model_fails_the_item_escalates_and_is_journaled() {
    let hub = hub();
    std::fs::write(
        hub.path().join("cn.yaml"),
        "reflexes:\n  min_samples: 10\nmodels:\n  local: {provider: embedded, path: no-such-model.gguf}\n",
    )
    .unwrap();
    let (base, _) = serve();
    allow(hub.path(), &base);
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
    let (base, hits) = serve();
    allow(hub.path(), &base);
    let out = json_out(&cn(hub.path(), &["reflex", "test", "--json", &format!("summarize {base}/x")], None));
    assert_eq!(out["reflex"], "summarize-url");
    assert_eq!(out["escalate"], false, "{out}");
    assert_eq!(hits.load(Ordering::SeqCst), 1);
    let summary = out["steps"][1]["output"].as_str().unwrap();
    assert!(summary.split_whitespace().count() >= 3, "the local model wrote a summary: {out}");
    assert_eq!(out["steps"][2]["action"], "reply");
}

#[test]
fn nothing_matches_goes_to_the_executive() {
    let hub = hub();
    let out = json_out(&cn(hub.path(), &["reflex", "test", "--json", "what", "is", "love?"], None));
    assert_eq!(out, serde_json::json!({"reflex": null, "level": 3, "vars": {}, "steps": [], "escalate": true}));
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
