//! Commands run in a Landlock sandbox, as `cn reflex test` runs the engine: even with the
//! shell granted by the owner, a command writes only inside the hub and opens no TCP
//! connection; `policy.sandbox: false` is the owner's way out. Nor can it write the hub's
//! `.git/`, `cn.yaml` or `state/peers.json`. On a kernel that cannot sandbox, the command is
//! refused (fail closed); the test then fails unless `CN_TEST_NO_LANDLOCK` says the machine is
//! known to lack Landlock ABI 4. (The rest of the shell's attacks, through the binary:
//! crates/cn/tests/it/trust_sandbox.rs.)

use cn_testkit::hub::grant_shell;

use crate::support::{init_hub, reflex_test};

#[test]
fn a_granted_shell_still_writes_only_in_the_hub_and_reaches_no_network() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let outside = dir.path().join("outside");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    grant_shell(&hub);

    let v = reflex_test(&hub, &format!("run touch {}", outside.display()), None, false);
    let error = v["steps"][0]["error"].as_str().unwrap_or("").to_string();
    assert!(!outside.exists(), "the command wrote outside the hub: {v}");
    if error.contains("cannot sandbox") {
        // This kernel cannot sandbox: the command was refused (fail closed), nothing ran,
        // and the message names the way out. That is all this kernel can show: say so
        // loudly, and pass only when the machine is known to lack Landlock ABI 4.
        assert!(error.contains("policy.sandbox: false"), "{error}");
        let allowed = std::env::var_os("CN_TEST_NO_LANDLOCK").is_some();
        eprintln!(
            "\n*** trust_sandbox: this kernel cannot sandbox ({error}); only the fail-closed refusal was tested{} ***\n",
            if allowed { " (CN_TEST_NO_LANDLOCK is set)" } else { "" }
        );
        assert!(allowed, "no Landlock ABI 4 here: set CN_TEST_NO_LANDLOCK=1 to accept testing only the refusal");
        return;
    }
    assert!(!error.is_empty(), "{v}");
    // A folder of the owner's in the hub (not cn's own) is writable.
    std::fs::create_dir_all(hub.join("work")).unwrap();
    let v = reflex_test(&hub, "run touch work/inside.txt", None, false);
    assert!(v["steps"][0]["error"].is_null(), "{v}");
    assert!(hub.join("work/inside.txt").exists());
    // Nor into the hub's own trust: git's directory (a hook or `core.fsmonitor` would run
    // unsandboxed on the next commit), the configuration, the peers.
    let config_before = std::fs::read(hub.join("cn.yaml")).unwrap();
    let git_config_before = std::fs::read(hub.join(".git/config")).unwrap();
    for attack in [
        "echo '[core]fsmonitor=touch /tmp/pwned' >> .git/config",
        "echo '#!/bin/sh' > .git/hooks/post-commit",
        "echo 'policy: {shell: true, sandbox: false}' >> cn.yaml",
        "echo '{}' > state/peers.json",
        "mv cn.yaml threads/ && echo x > cn.yaml",
        "touch new-top-level-file",
    ] {
        let v = reflex_test(&hub, &format!("run {attack}"), None, false);
        assert!(v["steps"][0]["error"].as_str().is_some_and(|e| !e.is_empty()), "{attack}: {v}");
    }
    assert_eq!(std::fs::read(hub.join("cn.yaml")).unwrap(), config_before);
    assert_eq!(std::fs::read(hub.join(".git/config")).unwrap(), git_config_before);
    assert!(!hub.join(".git/hooks/post-commit").exists());
    assert!(!hub.join("state/peers.json").exists());
    assert!(!hub.join("new-top-level-file").exists());
    // No TCP: git (any TCP client) cannot connect to a listening loopback port.
    let v = reflex_test(&hub, &format!("run git ls-remote http://127.0.0.1:{port}/x.git"), None, false);
    assert!(v["steps"][0]["error"].as_str().is_some_and(|e| !e.is_empty()), "{v}");
    listener.set_nonblocking(true).unwrap();
    assert!(listener.accept().is_err(), "the sandboxed command connected");

    // The owner's way out: unsandboxed, the same command writes where it likes.
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(hub.join("cn.yaml"), yaml.replace("  shell: true\n", "  shell: true\n  sandbox: false\n")).unwrap();
    reflex_test(&hub, &format!("run touch {}", outside.display()), None, false);
    assert!(outside.exists());
}
