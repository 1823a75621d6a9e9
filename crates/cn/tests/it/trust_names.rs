//! Settings that would widen trust by accident (issue 34, point 8), with the real `cn run`
//! and `cn config check`: `senses.bind` off loopback is refused unless `senses.allow_remote`
//! says so; a blank webhook secret starts no sense. Each refusal is a clear message and
//! changes nothing. The names (`owner`, path-like) are cn-agent's tests
//! (crates/agent/tests/it/trust_names.rs), a misspelt `policy.from` cn-hub's.

use crate::daemon_common;

use daemon_common::*;

const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

#[test]
fn the_senses_bind_only_loopback_unless_the_owner_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(hub.join("cn.yaml"), yaml.replace("bind: 127.0.0.1:0", "bind: 0.0.0.0:0")).unwrap();
    // `cn config check` says what `cn run` would do.
    let check = cn_cmd(&hub).args(["config", "check"]).output().unwrap();
    let said = String::from_utf8_lossy(&check.stderr);
    assert_eq!(check.status.code(), Some(2), "config check passed 0.0.0.0: {said}");
    assert!(said.contains("senses.bind") && said.contains("senses.allow_remote"), "{said}");
    let mut run = cn_cmd(&hub)
        .arg("run")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_until(std::time::Duration::from_secs(60), "cn run to refuse", || run.try_wait().unwrap());
    let mut err = String::new();
    std::io::Read::read_to_string(run.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(!status.success(), "cn run listened on 0.0.0.0: {err}");
    assert!(err.contains("senses.bind") && err.contains("senses.allow_remote"), "{err}");
    assert!(!hub.join("state/run.json").exists(), "nothing listened");

    // Said so: it listens.
    std::fs::write(hub.join("cn.yaml"), yaml.replace("bind: 127.0.0.1:0", "bind: 0.0.0.0:0\n  allow_remote: true"))
        .unwrap();
    assert!(cn_ok(&hub, &["config", "check"]).contains("is fine"));
    let mut daemon = Daemon::start(&hub, &[]);
    let url = daemon.owner_url();
    assert!(url.contains("0.0.0.0:") || url.contains("127.0.0.1:"), "{url}");
    assert!(daemon.stop().success());
}

/// A webhook secret of blanks signs nothing anyone could not sign: the GitHub sense does not
/// start with it, and `cn config check` says so first.
#[test]
fn a_blank_webhook_secret_starts_no_sense() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    add_webhook(&hub);
    for blank in [" ", "\t \n"] {
        let check = cn_cmd(&hub).env("CN_TEST_HOOK_SECRET", blank).args(["config", "check"]).output().unwrap();
        let said = String::from_utf8_lossy(&check.stderr);
        assert_eq!(check.status.code(), Some(2), "{blank:?} passed: {said}");
        assert!(said.contains("senses.github.secret_env") && said.contains("CN_TEST_HOOK_SECRET"), "{said}");
        let mut run = cn_cmd(&hub)
            .env("CN_TEST_HOOK_SECRET", blank)
            .arg("run")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let status = wait_until(std::time::Duration::from_secs(60), "cn run to refuse", || run.try_wait().unwrap());
        let mut err = String::new();
        std::io::Read::read_to_string(run.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert!(!status.success(), "cn run started with a blank secret: {err}");
        assert!(err.contains("senses.github.secret_env"), "{err}");
        assert!(!hub.join("state/run.json").exists(), "nothing listened");
    }
    let check = cn_cmd(&hub).env("CN_TEST_HOOK_SECRET", "s3cret").args(["config", "check"]).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
}
