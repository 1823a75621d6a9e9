//! The document's `summarize-url` reflex on a real hub directory and a real HTTP server on
//! 127.0.0.1 serving the page it summarizes, run by the engine as `cn reflex test` runs it
//! (its `--json` is the `Handled` here). The level-2 model is scripted.

use std::sync::atomic::Ordering;

use crate::support::reflex_test;

use cn_reflex::testing::{allow_urls as allow, journal, serve_otters, OTTERS_SUMMARY as SUMMARY};

/// A minimal hub holding the document's `summarize-url` reflex, verbatim.
fn hub() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    cn_reflex::testing::summarize_hub(dir.path()).unwrap();
    dir
}

#[test]
fn summarize_url_summarizes_a_loopback_page() {
    let hub = hub();
    let (base, hits) = serve_otters().unwrap();
    allow(hub.path(), &base).unwrap();
    let url = format!("{base}/otters.html");
    let out = reflex_test(hub.path(), &format!("summarize {url}"), Some(&[SUMMARY]), false);

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
}

#[test]
fn dry_run_performs_no_effect_at_all() {
    let hub = hub();
    let (base, hits) = serve_otters().unwrap();
    allow(hub.path(), &base).unwrap();
    let out = reflex_test(hub.path(), &format!("summarize {base}/x"), None, true);
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
fn nothing_matches_goes_to_the_executive() {
    let hub = hub();
    let out = reflex_test(hub.path(), "what is love?", None, false);
    assert_eq!(out, serde_json::json!({"reflex": null, "level": 3, "vars": {}, "steps": [], "escalate": true}));
}
