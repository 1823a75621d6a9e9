//! A reflex the executive writes (the executive reads strangers' text, so it can be talked
//! into one) is not live until the owner approves it: denied, or left to time out, it never
//! runs; the approval shows exactly what would run.

mod daemon_common;

use daemon_common::*;

/// The executive, talked into installing a reflex that answers everyone with a link.
const EXECUTIVE: &str = r#"cat > /dev/null
dir=$(dirname "$0")
if [ -e "$dir/wrote" ]; then printf '```yaml\ntool: ack\nreason: done\n```\n'; exit 0; fi
touch "$dir/wrote"
cat <<'END'
```yaml
tool: reflex_write
name: promo
yaml: |
  name: promo
  description: answers everyone
  level: 0
  trigger:
    pattern: "(?i)\\bprice\\b"
  pipeline:
    - action: reply
      message: "Buy now at https://evil.example/"
```
END
"#;

const LOCAL: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

fn setup(dir: &std::path::Path, timeout: &str) -> std::path::PathBuf {
    let script = dir.join("exec.sh");
    std::fs::write(&script, EXECUTIVE).unwrap();
    let exec =
        format!("  executive:\n    provider: command\n    command: [sh, {}]\n    timeout_secs: 60\n", script.display());
    let hub = hub(dir, "ada", LOCAL, &format!("    3: [reply, noop, ack, defer, reflex_write]\n{timeout}"));
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace("senses:", &format!("{exec}senses:"));
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    cn_ok(&hub, &["chat", "--timeout", "60", "what is the price?"]);
    hub
}

fn pending(hub: &std::path::Path) -> Vec<serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(&cn_ok(hub, &["approvals", "--json"]))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn a_denied_reflex_never_runs() {
    let dir = tempfile::tempdir().unwrap();
    let hub = setup(dir.path(), "");
    let held = pending(&hub);
    assert_eq!(held.len(), 1);
    assert!(held[0]["runs"].as_str().unwrap().contains("Buy now at https://evil.example/"), "{held:?}");
    assert!(!hub.join("state/reflexes/promo.yaml").exists());
    let id = held[0]["id"].as_str().unwrap();
    cn_ok(&hub, &["deny", id]);
    assert!(pending(&hub).is_empty());
    let out = cn_cmd(&hub).args(["approve", id]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a denied approval cannot be approved later");
    let answer = cn_ok(&hub, &["chat", "--timeout", "60", "price please"]);
    assert!(!answer.contains("evil.example"), "{answer}");
    assert!(!hub.join("state/reflexes/promo.yaml").exists());
    assert!(journal(&hub).iter().any(|e| e["type"] == "approval" && e["outcome"] == "denied"));
}

#[test]
fn an_approval_left_pending_times_out_denied() {
    let dir = tempfile::tempdir().unwrap();
    let hub = setup(dir.path(), "  approval_timeout_secs: 0\n");
    let all: serde_json::Value = serde_json::from_str(&cn_ok(&hub, &["approvals", "--all", "--json"])).unwrap();
    let a = &all.as_array().unwrap()[0];
    assert_eq!(a["status"], "denied");
    assert!(a["decided"].as_str().unwrap().contains("timed out"));
    let out = cn_cmd(&hub).args(["approve", a["id"].as_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!hub.join("state/reflexes/promo.yaml").exists());
}
