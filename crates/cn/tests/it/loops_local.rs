//! The local model as a loop's controller (issue 33): it judges under a grammar — the
//! `target-met` frontmatter, then instructions — so even SmolLM2-135M answers a judgment that
//! parses; a local provider that cannot honor a grammar is refused at `cn loop run`'s start,
//! with a message naming the controllers to configure. The embedded model is the one
//! `cn model pull` fetched (CI runs it before the tests).

use crate::loops_support::*;

fn local_task(max: u64) -> String {
    format!(
        "---\nmax-iterations: {max}\nsensors:\n  compilation:\n    command: \"echo 'src/F.java:3: error: missing return type'; exit 1\"\n    target: \"no errors\"\ncontroller: {{model: local}}\nactuator: manual\n---\n\n# Task\n\nMake src/F.java compile.\n"
    )
}

#[test]
fn a_local_controller_judges_under_the_grammar() {
    let repo = repo(&local_task(1));
    let p = repo.path();
    let out = run(p, &["loop", "run"]);
    let t = text(&out);
    assert!(!t.contains("does not start with"), "{t}");
    // One iteration: the model judged (either way), and its answer is the artifact.
    assert!(matches!(out.status.code(), Some(0 | 1)), "{t}");
    let c = show(p, "HEAD", "loop-run/controller-output.md");
    assert!(c.starts_with("---\ntarget-met: true\n---\n") || c.starts_with("---\ntarget-met: false\n---\n"), "{c}");
    assert!(c.contains("# Controller Output\n\n"), "{c}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("iteration 1 · controller · target"), "{stdout}");
}

#[test]
fn a_local_controller_without_a_grammar_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let hub = crate::hub_common::init_hub(dir.path(), "ada");
    let config = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let local = "  local:\n    provider: embedded\n";
    assert!(config.contains(local), "{config}");
    let openai = "  local:\n    provider: openai\n    base_url: http://127.0.0.1:9/v1\n    model: tiny\n";
    std::fs::write(hub.join("cn.yaml"), config.replace(local, openai)).unwrap();
    let repo = repo(&local_task(3));
    let p = repo.path();
    let out = cn().arg("--hub").arg(&hub).args(["loop", "run"]).arg(p).output().unwrap();
    let t = text(&out);
    assert_eq!(out.status.code(), Some(2), "{t}");
    assert!(t.contains("frontmatter field `controller`"), "{t}");
    assert!(t.contains("cannot answer under the controller's grammar"), "{t}");
    assert!(t.contains("controller: {model: executive}") && t.contains("controller: {command:"), "{t}");
    assert_eq!(subjects(p), ["initial"], "nothing ran");
}
