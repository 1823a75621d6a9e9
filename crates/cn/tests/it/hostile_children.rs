//! Children cn starts on someone's behalf, through the real binary (`cn ask` with a command
//! model): a secret in cn's environment does not reach the program unless cn.yaml passes it,
//! a grandchild left holding stdout does not keep cn waiting, and a program flooding its
//! output is stopped at the cap instead of being read to the deadline.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn hub_with_model(dir: &Path, script: &str, extra: &str) {
    std::fs::write(dir.join("model.sh"), script).unwrap();
    let yaml = format!(
        "models:\n  executive:\n    provider: command\n    command: [sh, {}]\n    timeout_secs: 120\n{extra}",
        dir.join("model.sh").display()
    );
    std::fs::write(dir.join("cn.yaml"), yaml).unwrap();
}

fn ask(hub: &Path) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_cn"))
        .arg("--hub")
        .arg(hub)
        .args(["ask", "--level", "3", "hi"])
        .env_remove("CN_HUB")
        .env("ANTHROPIC_API_KEY", "sk-ant-do-not-leak")
        .env("CN_GIVEN_TO_MODEL", "given")
        .output()
        .unwrap();
    (out, started.elapsed())
}

#[test]
fn a_secret_is_not_seen_by_a_command_model_unless_passed() {
    let hub = tempfile::tempdir().unwrap();
    hub_with_model(hub.path(), "cat >/dev/null; env\n", "    env: [CN_GIVEN_TO_MODEL]\n");
    let (out, _) = ask(hub.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(!stdout.contains("sk-ant-do-not-leak"), "the key leaked: {stdout}");
    assert!(stdout.contains("CN_GIVEN_TO_MODEL=given"), "{stdout}");
    assert!(stdout.contains("PATH="), "{stdout}");
}

#[test]
fn a_grandchild_holding_stdout_does_not_keep_cn_waiting() {
    let hub = tempfile::tempdir().unwrap();
    hub_with_model(hub.path(), "cat >/dev/null; sleep 600 & echo 'the answer'\n", "");
    let (out, took) = ask(hub.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("the answer"));
    assert!(took < Duration::from_secs(60), "waited {took:?} for the grandchild");
}

#[test]
fn a_flooding_model_is_stopped_at_the_cap() {
    let hub = tempfile::tempdir().unwrap();
    hub_with_model(hub.path(), "cat >/dev/null; exec yes\n", "");
    let (out, took) = ask(hub.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("answered more than"), "{stderr}");
    assert!(took < Duration::from_secs(60), "read to the deadline: {took:?}");
}
