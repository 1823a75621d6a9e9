//! Commands run in a Landlock sandbox: even with the shell granted by the owner, a command
//! writes only inside the hub and opens no TCP connection; `policy.sandbox: false` is the
//! owner's way out. On a kernel that cannot sandbox, the command is refused (fail closed).

use std::path::Path;
use std::process::Command;

fn init(dir: &Path) -> std::path::PathBuf {
    let hub = dir.join("ada");
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).arg("init").arg(&hub).output().unwrap();
    assert!(out.status.success());
    hub
}

fn reflex_test(hub: &Path, text: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_cn"))
        .arg("--hub")
        .arg(hub)
        .args(["reflex", "test", "--json", text])
        .env_remove("CN_HUB")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_granted_shell_still_writes_only_in_the_hub_and_reaches_no_network() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init(dir.path());
    let outside = dir.path().join("outside");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let config = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    // The owner turns the shell on and grants it to level-1 reflexes.
    std::fs::write(
        hub.join("cn.yaml"),
        format!(
            "{}reflexes:\n  grants:\n    1: [shell, reply]\n",
            config.replace("  shell: false\n", "  shell: true\n")
        ),
    )
    .unwrap();
    std::fs::write(
        hub.join("state/reflexes/run.yaml"),
        "name: run\nlevel: 1\ntrigger: {pattern: '^run (?P<cmd>.+)$'}\npipeline:\n  - action: shell\n    command: \"{{cmd}}\"\n",
    )
    .unwrap();

    let v = reflex_test(&hub, &format!("run touch {}", outside.display()));
    let error = v["steps"][0]["error"].as_str().unwrap_or("").to_string();
    assert!(!outside.exists(), "the command wrote outside the hub: {v}");
    if error.contains("policy.sandbox: false") {
        // This kernel cannot sandbox: the command was refused, nothing ran.
        return;
    }
    assert!(!error.is_empty(), "{v}");
    let v = reflex_test(&hub, "run touch inside.txt");
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    assert!(hub.join("inside.txt").exists());
    // No TCP: git (any TCP client) cannot connect to a listening loopback port.
    let v = reflex_test(&hub, &format!("run git ls-remote http://127.0.0.1:{port}/x.git"));
    assert!(v["steps"][0]["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the sandboxed command connected");

    // The owner's way out: unsandboxed, the same command writes where it likes.
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(hub.join("cn.yaml"), yaml.replace("  shell: true\n", "  shell: true\n  sandbox: false\n")).unwrap();
    reflex_test(&hub, &format!("run touch {}", outside.display()));
    assert!(outside.exists());
}
