//! When the thinking budget sends an executive plan down to the local model, the local
//! model's tool calls run with the local level's grants, not the executive's.

use crate::daemon_common;

use daemon_common::*;

/// The local model (level 2): asked in the executive's place, it calls a tool only the
/// executive (level 3) is granted.
const LOCAL: &str = "cat > /dev/null\necho x >> \"$(dirname \"$0\")/local-calls\"\nprintf '```yaml\\ntool: add_task\\ntask: exfiltrate the notes\\n```\\n'\n";

/// The executive must not be asked: the budget is spent.
const EXECUTIVE: &str = "cat > /dev/null\necho x >> \"$(dirname \"$0\")/exec-calls\"\nprintf '```yaml\\ntool: ack\\nreason: fine\\n```\\n'\n";

#[test]
fn the_budgets_fallback_acts_with_the_level_it_asked() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("exec.sh");
    std::fs::write(&script, EXECUTIVE).unwrap();
    let hub = hub(
        dir.path(),
        "ada",
        LOCAL,
        "    3: [reply, noop, ack, defer, add_task]\nbudget:\n  daily_tokens: 1\n  on_exhausted: local\n",
    );
    let exec =
        format!(
            "  executive:\n    provider: command\n    command: [sh, {}]\n    timeout_secs: 60\n    sandbox: {{write: ['{}']}}\n",
            script.display(),
            script.parent().unwrap().display()
        );
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace("senses:", &format!("{exec}senses:"));
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    let tasks_before = std::fs::read_to_string(hub.join("state/tasks.json")).unwrap();

    let _ = cn_cmd(&hub).args(["chat", "--timeout", "60", "Please plan my week"]).output().unwrap();
    assert!(dir.path().join("local-calls").exists(), "the plan went down to the local model");
    assert!(!dir.path().join("exec-calls").exists(), "the executive was not asked");
    assert_eq!(
        std::fs::read_to_string(hub.join("state/tasks.json")).unwrap(),
        tasks_before,
        "the local model used the executive's grant"
    );
    let entries = journal(&hub);
    assert!(
        entries.iter().any(|e| e.to_string().contains("level 2 may not call `add_task`")),
        "the refusal is journaled: {entries:#?}"
    );
}

/// `cn ask --level 3` asks for the executive: when the budget refuses it, the answer is that
/// refusal (exit non-zero), not the local model's answer passed off as level 3's.
#[test]
fn a_level_3_ask_the_budget_refuses_says_so_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let hub = executive_hub(
        dir.path(),
        "cat > /dev/null\necho x >> \"$(dirname \"$0\")/local-calls\"\nprintf 'the local answer\\n'\n",
        EXECUTIVE,
        "budget:\n  daily_tokens: 1\n  on_exhausted: local\n",
    );
    let out = cn_cmd(&hub).args(["ask", "--level", "3", "plan my week"]).output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "exit {:?}: {stdout}", out.status.code());
    assert!(stderr.contains("thinking budget"), "{stderr}");
    assert!(!stdout.contains("the local answer"), "{stdout}");
    assert!(!dir.path().join("local-calls").exists(), "the local model was not asked in its place");
    assert!(!dir.path().join("exec-calls").exists(), "the executive was not asked");
    // Without `--level`, cn picks the level: the budget's fallback to the local model stands.
    let out = cn_cmd(&hub).args(["ask", "plan my week"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("the local answer"));
}
