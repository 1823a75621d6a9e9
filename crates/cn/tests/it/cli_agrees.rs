//! Issue 40, finding 7: the CLI agrees with chat and with itself, each command run as a
//! person would on a fresh hub, checked by what they see (stdout, exit code, the hub's files).

use crate::daemon_common;

use std::path::Path;
use std::process::Output;

use daemon_common::*;
use serde_json::Value;

const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";
/// An executive that answers every item with a reply.
const REPLIES: &str = "cat > /dev/null\nprintf '```yaml\\ntool: reply\\nmessage: Tides rise twice a day.\\n```\\n'\n";

fn cn(hub: &Path, args: &[&str]) -> Output {
    cn_cmd(hub).args(args).output().unwrap()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `cn chat --no-wait TEXT`: the queued item's id.
fn queue(hub: &Path, text: &str) -> String {
    let o = cn(hub, &["chat", "--no-wait", text]);
    assert!(o.status.success(), "{}", err(&o));
    err(&o).trim().rsplit(' ').next().unwrap().to_string()
}

/// `cn journal --type reminder|budget|routine` reads the entries the journal holds of those
/// types, as it does every other type.
#[test]
fn cn_journal_type_reads_reminders_budget_refusals_and_the_routine() {
    let dir = tempfile::tempdir().unwrap();
    // An executive the budget never lets be asked.
    let hub = executive_hub(dir.path(), ACK, REPLIES, "budget:\n  daily_tokens: 1\n");
    cn_ok(&hub, &["task", "add", "call the dentist", "--due", &minutes_from_now(-1), "--remind"]);
    queue(&hub, "remind me to buy milk tomorrow at 9am");
    queue(&hub, "write me a haiku about tides");
    cn_ok(&hub, &["run", "--until-idle"]);
    for (kind, says) in
        [("reminder", "call the dentist"), ("routine", "buy milk"), ("budget", "the executive was not asked")]
    {
        let o = cn(&hub, &["journal", "--type", kind]);
        assert!(o.status.success(), "--type {kind}: {}", err(&o));
        let lines = out(&o);
        assert!(lines.lines().all(|l| l.contains(&format!("  {kind:<11}  "))), "--type {kind}: {lines}");
        assert!(lines.contains(says), "--type {kind}: {lines}");
    }
    let o = cn(&hub, &["journal", "--type", "musing"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("reminder, budget, routine"), "the refusal names them: {}", err(&o));
}

/// `cn lease` on a hub without an origin says there is no lease and why — not "run `cn
/// lease`".
#[test]
fn cn_lease_without_an_origin_says_the_hub_is_not_leased() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let o = cn(&hub, &["lease"]);
    assert!(o.status.success(), "{}", err(&o));
    let said = out(&o);
    assert!(said.starts_with("no lease: cn.yaml asks no `origin:` push or lease"), "{said}");
    assert!(!said.contains("run `cn lease`") && !err(&o).contains("cn lease"), "{said}{}", err(&o));
    let json: Value = serde_json::from_str(&out(&cn(&hub, &["lease", "--json"]))).unwrap();
    assert_eq!((json["leased"].clone(), json["origin"].clone()), (Value::Bool(false), Value::Null));
}

/// `cn budget` only reads: the hub's worktree is as clean after it as before.
#[test]
fn cn_budget_leaves_the_hub_clean() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let status = || {
        let o = std::process::Command::new("git").current_dir(&hub).args(["status", "--porcelain"]).output().unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    assert_eq!(status(), "", "a fresh hub is committed");
    let o = cn(&hub, &["budget"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(out(&o).contains("today"), "{}", out(&o));
    assert_eq!(status(), "", "cn budget left files behind");
    assert!(!hub.join("state/budget.json").exists());
}

/// `cn reflex test --dry-run` of a routine request says the routine reflex takes it, without
/// the executive — the steps it did not run are said not run, not undefined — and changes
/// nothing.
#[test]
fn a_dry_run_of_a_routine_request_is_handled_below_the_executive_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let before = std::fs::read_to_string(hub.join("state/tasks.json")).unwrap();
    let o = cn(&hub, &["reflex", "test", "--dry-run", "remind me to call mom tomorrow at 9am"]);
    assert!(o.status.success(), "{}", err(&o));
    let said = out(&o);
    assert!(said.starts_with("reflex: routine (level 1)"), "{said}");
    assert!(said.contains("1. routine → (dry run: routine remind me to call mom tomorrow at 9am)"), "{said}");
    assert!(said.contains("2. reply → (dry run: reply (routine not run: its answer is not known))"), "{said}");
    assert!(said.trim_end().ends_with("handled without the executive"), "{said}");
    assert!(!said.contains("not defined") && !said.contains("escalates"), "{said}");
    assert_eq!(std::fs::read_to_string(hub.join("state/tasks.json")).unwrap(), before, "a dry run files nothing");
}

/// `cn journal why` on a decision the executive made names level 3 and the model it asked.
#[test]
fn cn_journal_why_names_the_executive_and_its_model() {
    let dir = tempfile::tempdir().unwrap();
    let hub =
        executive_hub(dir.path(), ACK, REPLIES, "    3: [reply, noop, ack, defer]\nbudget:\n  min_interval_secs: 0\n");
    let id = queue(&hub, "write me a haiku about tides");
    cn_ok(&hub, &["run", "--until-idle"]);
    let why = cn_ok(&hub, &["journal", "why", &id]);
    assert!(why.contains("    level: 3 (the executive)"), "{why}");
    let asked = why.lines().find(|l| l.contains("  interaction  ")).unwrap_or_else(|| panic!("no model call: {why}"));
    assert!(asked.contains("level 3 asked ") && asked.contains("tokens in"), "{asked}");
}

/// A reflex file broken while the daemon runs is journaled where the owner reads (`cn
/// journal`), not only logged, and `cn reflex list` names it.
#[test]
fn a_reflex_file_broken_under_the_daemon_is_journaled_and_listed() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    std::fs::write(
        hub.join("state/reflexes/broken.yaml"),
        "name: broken\ntrigger:\n  pattern: \"(oops\"\npipeline:\n  - action: reply\n    message: hi\n",
    )
    .unwrap();
    // A message the reflexes see (half a second or more after they last looked) reads the
    // directory again.
    let said = wait_until(std::time::Duration::from_secs(60), "the broken file in the journal", || {
        cn_ok(&hub, &["chat", "--timeout", "60", "hello"]);
        let text = out(&cn(&hub, &["journal", "--type", "observation"]));
        text.contains("a reflex file was skipped").then_some(text)
    });
    assert!(said.contains("broken.yaml:3: `trigger.pattern`: not a valid regex"), "{said}");
    let o = cn(&hub, &["reflex", "list"]);
    assert_eq!(o.status.code(), Some(2), "a broken reflex file is bad input");
    assert!(err(&o).contains("broken.yaml:3: `trigger.pattern`: not a valid regex"), "{}", err(&o));
    assert!(daemon.stop().success());
}
