//! `cn run` reads `cn.yaml` once: the hub parses it when it is opened and every layer takes
//! its typed section from there. Checked from outside with strace (every `open` of the file
//! by the process and its threads), while the daemon decides real work: a queued owner item
//! and a due task, through the reflexes, the level-2 model and the ops.

use crate::daemon_common;

use std::process::Command;

use daemon_common::*;

const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

#[test]
fn cn_run_opens_cn_yaml_exactly_once_while_it_decides_items() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    std::fs::write(
        hub.join("threads/inbox/q1.md"),
        "---\nid: q1\nfrom: owner\ncadence: inbox\nqueued: 2026-01-06T15:00:00Z\n---\n\nPlease look at the build\n",
    )
    .unwrap();
    cn_ok(&hub, &["task", "add", "Write the weekly report", "--due", "2026-01-01T09:00:00Z"]);
    let trace = dir.path().join("trace.txt");
    let out = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,openat2,execve", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_cn"))
        .arg("--hub")
        .arg(&hub)
        .args(["run", "--until-idle"])
        .env_remove("CN_HUB")
        .env("CN_LOG", "error")
        .output()
        .expect("strace runs (scripts/deps.sh installs it)");
    assert!(out.status.success(), "cn run: {}", String::from_utf8_lossy(&out.stderr));
    let decided = journal(&hub).iter().filter(|e| e["type"] == "decision").count();
    assert!(decided >= 2, "the owner item and the task are decided; journal: {:?}", journal(&hub));
    let trace = std::fs::read_to_string(&trace).unwrap();
    // Children cn runs (git reads the work tree, cn.yaml among its files) are not cn: a pid
    // that exec'd anything but the cn binary is left out.
    let cn = env!("CARGO_BIN_EXE_cn");
    let pid = |l: &str| l.split_whitespace().next().unwrap_or("").to_string();
    let children: std::collections::HashSet<String> =
        trace.lines().filter(|l| l.contains("execve(") && !l.contains(cn)).map(pid).collect();
    let opens: Vec<&str> = trace.lines().filter(|l| l.contains("cn.yaml\"") && !children.contains(&pid(l))).collect();
    assert_eq!(opens.len(), 1, "cn.yaml opened {} times:\n{}", opens.len(), opens.join("\n"));
}
