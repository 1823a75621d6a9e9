//! Self-extension through `cn run`: the executive writes a reflex with the `reflex_write`
//! tool (granted to level 3 by the hub's policy); the reflex is dry-run against the item that
//! prompted it and written in shadow mode (it cannot act); once the owner approves it with
//! `cn reflex approve`, the next such message is answered at level 0 without asking any
//! model. (Promotion by agreement is in reflex_shadow.rs.)

use crate::daemon_common;

use daemon_common::*;

/// The executive: the first time, it writes a `status` reflex; after that it acknowledges.
/// Every call is counted in `exec-calls`.
const EXECUTIVE: &str = r#"cat > /dev/null
dir=$(dirname "$0")
echo x >> "$dir/exec-calls"
if [ -e "$dir/wrote" ]; then printf '```yaml\ntool: ack\nreason: a reflex handles these now\n```\n'; exit 0; fi
touch "$dir/wrote"
cat <<'END'
I will handle status questions with a reflex from now on.

```yaml
tool: reflex_write
name: status
yaml: |
  name: status
  description: Answer status questions without the executive
  level: 0
  trigger:
    pattern: "(?i)\\bstatus\\b"
  pipeline:
    - action: reply
      message: "All systems green."
```
END
"#;

/// Level 2 must not be asked in this test.
const LOCAL: &str = "cat > /dev/null\necho x >> \"$(dirname \"$0\")/local-calls\"\nprintf '```yaml\\ntool: defer\\nreason: not me\\n```\\n'\n";

#[test]
fn the_executive_writes_a_reflex_that_answers_the_next_message_at_level_zero() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("exec.sh");
    std::fs::write(&script, EXECUTIVE).unwrap();
    let extra =
        format!(
            "  executive:\n    provider: command\n    command: [sh, {}]\n    timeout_secs: 60\n    sandbox: {{write: ['{}']}}\n",
            script.display(),
            script.parent().unwrap().display()
        );
    let hub = hub(dir.path(), "ada", LOCAL, "");
    // The executive goes under `models:`, and level 3 gets the hub template's grants.
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace("senses:", &format!("{extra}senses:")).replace(
        "    2: [reply, noop, ack, defer]\n",
        "    2: [reply, noop, ack, defer]\n    3: [reply, noop, ack, defer, add_task, add_idea, reflex_write, note_write, read_file]\n",
    );
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();

    let out = cn_cmd(&hub).args(["chat", "--timeout", "60", "What is the status?"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join("exec-calls")).unwrap().lines().count(), 2);
    // Written in shadow: it exists, committed, but cannot act; nothing is held.
    let reflex = std::fs::read_to_string(hub.join("state/reflexes/status.yaml")).unwrap();
    assert!(reflex.contains("All systems green.") && reflex.contains("mode: shadow"), "{reflex}");
    let entries = journal(&hub);
    assert!(
        entries.iter().any(|e| e["type"] == "reflex"
            && e["action"] == "write"
            && e["outcome"] == "shadow"
            && e["name"] == "status"
            && e["dry_run_on"].as_str().is_some_and(|t| t.trim() == "What is the status?")),
        "{entries:#?}"
    );
    assert!(cn_ok(&hub, &["approvals"]).contains("nothing waits"));
    let log = std::process::Command::new("git").arg("-C").arg(&hub).args(["log", "--format=%s"]).output().unwrap();
    assert!(String::from_utf8_lossy(&log.stdout).contains("reflex: write status (shadow)"), "committed to the hub");

    // The owner approves it: active, committed.
    assert!(cn_ok(&hub, &["reflex", "approve", "status"]).contains("approved"));
    let reflex = std::fs::read_to_string(hub.join("state/reflexes/status.yaml")).unwrap();
    assert!(reflex.contains("mode: active"), "{reflex}");
    let log = std::process::Command::new("git").arg("-C").arg(&hub).args(["log", "--format=%s"]).output().unwrap();
    assert!(String::from_utf8_lossy(&log.stdout).contains("reflex: promote status (owner)"));

    // The next status question: the new reflex answers, no model is asked.
    let out = cn_ok(&hub, &["chat", "--timeout", "60", "status, please"]);
    assert_eq!(out.trim(), "All systems green.");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("exec-calls")).unwrap().lines().count(),
        2,
        "the executive was not asked"
    );
    assert!(!dir.path().join("local-calls").exists(), "nor the local model");
}
