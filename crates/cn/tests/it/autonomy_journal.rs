//! `cn journal` and `cn journal why` against the real binary and a real journal: entries
//! written through cn_storage::Journal with cn_autonomy's records, plus a torn last line.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

use cn_autonomy::journal::{Kind, Record};
use cn_storage::Journal;

fn cn(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cn")).current_dir(dir).args(args).env_remove("CN_HUB").output().unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// A hub whose journal holds yesterday's and today's work on two items, and a torn line.
fn hub_with_journal() -> (tempfile::TempDir, String) {
    let hub = tempfile::tempdir().unwrap();
    std::fs::write(hub.path().join("cn.yaml"), "name: test\n").unwrap();
    let path = hub.path().join("state/journal.jsonl");
    let mut j = Journal::open(&path).unwrap();
    let old = "2020-01-01T09:00:00Z";
    j.append(&Record::new(Kind::Impulse, "idea-old", "Idea to explore: tides").reasoning("idle").into_entry_at(old))
        .unwrap();
    j.append(
        &Record::new(Kind::Exploration, "idea-old", "read about tides").outcome("learned A, B").into_entry_at(old),
    )
    .unwrap();
    let now = cn_storage::now_rfc3339();
    let id = "p-0123456789ab";
    j.append(
        &Record::new(Kind::Observation, id, "Owner: please review PR 42")
            .context("from owner (the owner)")
            .reasoning("salience 1000 = owner 1000 + waited 0s 0")
            .outcome("selected")
            .into_entry_at(&now),
    )
    .unwrap();
    j.append(&Record::new(Kind::Reflex, "p-other", "greeting: wave").outcome("handled at level 0").into_entry_at(&now))
        .unwrap();
    j.append(&cn_storage::Entry::at(&now, "action").with("item", id).with("tool", "read_file").with("outcome", "ok"))
        .unwrap();
    j.append(
        &Record::new(Kind::Decision, id, "do: reply with the review")
            .reasoning("the owner asked")
            .outcome("replied")
            .into_entry_at(&now),
    )
    .unwrap();
    drop(j);
    // A crash mid-write.
    std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"ts\":\"20").unwrap();
    (hub, id.to_string())
}

#[test]
fn what_did_you_do_today() {
    let (hub, _) = hub_with_journal();
    let out = cn(hub.path(), &["journal"]);
    let all = stdout(&out);
    assert_eq!(all.lines().count(), 6, "{all}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("skipped line 7"), "torn line reported");
    let today = stdout(&cn(hub.path(), &["journal", "--today"]));
    let rows: Vec<&str> = today.lines().collect();
    assert_eq!(rows.len(), 4, "{today}");
    assert!(rows[0].contains("observation") && rows[0].ends_with("Owner: please review PR 42"), "{}", rows[0]);
    assert!(rows[2].contains("action") && rows[2].ends_with("read_file → ok"), "{}", rows[2]);
    let decisions = stdout(&cn(hub.path(), &["journal", "--since", "2019-12-31T00:00:00Z", "--type", "exploration"]));
    assert_eq!(decisions.lines().count(), 1);
    assert!(decisions.contains("read about tides"));
    let recent = stdout(&cn(hub.path(), &["journal", "--since", "1h", "--type", "decision", "--json"]));
    let v: serde_json::Value = serde_json::from_str(recent.trim()).unwrap();
    assert_eq!(v["type"], "decision");
    assert_eq!(v["reasoning"], "the owner asked");
    assert_eq!(cn(hub.path(), &["journal", "--type", "musing"]).status.code(), Some(2));
    assert_eq!(cn(hub.path(), &["journal", "--since", "a while"]).status.code(), Some(2));
}

#[test]
fn since_reads_words_counting_back() {
    let (hub, _) = hub_with_journal();
    // Today's four entries, not 2020's.
    for since in ["yesterday", "today", "2 hours ago", "last monday"] {
        let out = stdout(&cn(hub.path(), &["journal", "--since", since]));
        assert_eq!(out.lines().count(), 4, "--since {since}: {out}");
    }
    let out = cn(hub.path(), &["journal", "--since", "next fortnight-ish"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`next fortnight-ish`") && err.contains("RFC 3339") && err.contains("yesterday"), "{err}");
}

#[test]
fn why_did_you_do_that() {
    let (hub, id) = hub_with_journal();
    let why = stdout(&cn(hub.path(), &["journal", "why", &id]));
    let heads: Vec<&str> = why.lines().filter(|l| !l.starts_with("    ")).collect();
    assert_eq!(heads.len(), 3, "{why}");
    assert!(heads[0].contains("observation") && heads[2].contains("decision"), "{why}");
    assert!(why.contains("    reasoning: salience 1000 = owner 1000"), "{why}");
    assert!(why.contains("    outcome: replied"), "{why}");
    assert!(!why.contains("greeting"), "another item's entries are not in the chain");
    let out = cn(hub.path(), &["journal", "why", "p-nothing"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Issue 40, finding 8: the real binary's journal lines carry document 003's fields beside
/// cn's own — a `decision` with `context` (what it was about), `reasoning` (who decided at
/// which level, and why) and `action` (what was done); an `impulse` with `source`, the task
/// or idea under its source's name, and attention's `decision` on it.
#[test]
fn decisions_and_impulses_carry_the_documents_fields() {
    let dir = tempfile::tempdir().unwrap();
    let ack = "cat > /dev/null; printf '```yaml\\ntool: ack\\nreason: nothing to add\\n```\\n'\n";
    // Level 2 sends everything up; the executive acks.
    let local = "cat > /dev/null\nprintf 'executive\\n'\n";
    let budget = "budget: {daily_tokens: 1000000, min_interval_secs: 0}\n";
    let hub = crate::daemon_common::hub(dir.path(), "ada", local, budget);
    let exec = dir.path().join("exec.sh");
    std::fs::write(&exec, ack).unwrap();
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace(
        "senses:\n",
        &format!(
            "  executive: {{provider: command, command: [sh, {}], timeout_secs: 60, sandbox: {{write: ['{}']}}}}\nsenses:\n",
            exec.display(),
            dir.path().display()
        ),
    );
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    assert!(stdout(&cn(&hub, &["chat", "hello"])).starts_with("Hello!"));
    stdout(&cn(&hub, &["task", "add", "water the ferns", "--due", "2000-01-01T00:00:00Z"]));
    stdout(&cn(&hub, &["idea", "add", "How tides work"]));
    stdout(&cn(&hub, &["run", "--until-idle"]));
    let entries = crate::daemon_common::journal(&hub);
    let find = |what: &str, f: &dyn Fn(&serde_json::Value) -> bool| {
        entries.iter().find(|e| f(e)).cloned().unwrap_or_else(|| panic!("no {what} in {entries:#?}"))
    };

    // The owner's "hello", answered by the starter reflex.
    let hello = find("decision on hello", &|e| e["type"] == "decision" && e["from"] == "owner");
    assert_eq!(hello["context"], "a message from the owner on chat: “hello”", "{hello}");
    assert_eq!(hello["reasoning"], "reflex `hello` decided at level 0", "{hello}");
    assert!(hello["action"].as_str().unwrap().starts_with("do reply: Hello!"), "{hello}");
    // cn's own fields are still there.
    assert_eq!(
        (hello["gtd"].as_str(), hello["op"].as_str(), hello["level"].as_u64()),
        (Some("do"), Some("reply"), Some(0))
    );

    // The task falling due: an impulse, then the executive's decision on it.
    let task = find("the task's impulse", &|e| e["type"] == "impulse" && e["source"] == "task");
    assert_eq!(
        (task["task"].as_str(), task["decision"].as_str()),
        (Some("water the ferns"), Some("selected")),
        "{task}"
    );
    let decided = find("the decision on the task", &|e| e["type"] == "decision" && e["id"] == task["id"]);
    assert_eq!(decided["context"], "a task falling due (filed by the owner): “Task due: water the ferns”", "{decided}");
    assert_eq!(decided["reasoning"], "the executive decided at level 3: nothing to add", "{decided}");
    assert_eq!(decided["action"], "do ack: nothing to add", "{decided}");

    // The idea explored while idle.
    let idea = find("the idea's impulse", &|e| e["type"] == "impulse" && e["source"] == "idea");
    assert_eq!(
        (idea["idea"].as_str(), idea["decision"].as_str()),
        (Some("How tides work"), Some("selected")),
        "{idea}"
    );

    // `cn journal why` shows them.
    let why = stdout(&cn(&hub, &["journal", "why", hello["id"].as_str().unwrap()]));
    assert!(why.contains("    reasoning: reflex `hello` decided at level 0"), "{why}");
}
