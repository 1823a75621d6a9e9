//! Helpers for the daemon's end-to-end tests: a hub whose level 2 is a command-line model
//! (a shell script standing in for a model, so tests are fast and exact), the real `cn run`
//! daemon as a child process, and waiting on what the daemon writes — with a deadline,
//! never a fixed sleep.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::hub_common;
pub use cn_testkit::hub::{decided_at, md_count, owner_auth, post, wait_until};
#[allow(unused_imports)]
pub use hub_common::{cn_cmd, cn_ok, init_hub};

/// `cn init` a hub `name` under `root` whose level-2 model is the shell script `model`,
/// with `extra` appended to cn.yaml. The owner endpoint listens on a free loopback port.
pub fn hub(root: &Path, name: &str, model: &str, extra: &str) -> PathBuf {
    let hub = init_hub(root, name);
    std::fs::write(hub.join("cn.yaml"), cn_testkit::hub::level2_yaml(root, name, model, extra)).unwrap();
    hub
}

/// Give a [`hub`] a GitHub webhook whose secret is in `$CN_TEST_HOOK_SECRET`.
pub fn add_webhook(hub: &Path) {
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace(
        "senses:\n  bind: 127.0.0.1:0\n",
        "senses:\n  bind: 127.0.0.1:0\n  github:\n    secret_env: CN_TEST_HOOK_SECRET\n",
    );
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
}

/// [`hub`] with a level-3 executive too — the shell script `executive` — and a GitHub
/// webhook whose secret is in `$CN_TEST_HOOK_SECRET`.
pub fn executive_hub(root: &Path, model: &str, executive: &str, extra: &str) -> PathBuf {
    let hub = hub(root, "ada", model, extra);
    let script = root.join("exec.sh");
    std::fs::write(&script, executive).unwrap();
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace(
        "senses:\n  bind: 127.0.0.1:0\n",
        &format!(
            "  executive:\n    provider: command\n    command: [sh, {}]\n    timeout_secs: 60\n    sandbox: {{write: ['{}']}}\n\
             senses:\n  bind: 127.0.0.1:0\n  github:\n    secret_env: CN_TEST_HOOK_SECRET\n",
            script.display(),
            root.display()
        ),
    );
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    hub
}

/// The daemon: `cn run` on `hub`, with `env`.
pub struct Daemon {
    pub child: Child,
    pub hub: PathBuf,
}

impl Daemon {
    pub fn start(hub: &Path, env: &[(&str, &str)]) -> Daemon {
        let _ = std::fs::remove_file(hub.join("state/run.json"));
        let mut cmd = cn_cmd(hub);
        cmd.arg("run").stdout(Stdio::null()).stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        Daemon { child: cmd.spawn().unwrap(), hub: hub.to_path_buf() }
    }

    /// The owner endpoint's URL, once the daemon has written `state/run.json`.
    pub fn owner_url(&mut self) -> String {
        let path = self.hub.join("state/run.json");
        let child = &mut self.child;
        wait_until(Duration::from_secs(60), "the daemon to write state/run.json", || {
            if let Ok(Some(status)) = child.try_wait() {
                let mut err = String::new();
                if let Some(mut stderr) = child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut stderr, &mut err);
                }
                panic!("the daemon exited early: {status}: {err}");
            }
            let info: Value = serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok()?;
            info["owner_url"].as_str().map(str::to_string)
        })
    }

    /// SIGTERM, then the exit status (within a deadline).
    pub fn stop(mut self) -> std::process::ExitStatus {
        signal(&self.child, "TERM");
        let child = &mut self.child;
        wait_until(Duration::from_secs(60), "the daemon to exit after SIGTERM", || child.try_wait().ok().flatten())
    }

    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill").arg(format!("-{sig}")).arg(child.id().to_string()).status().unwrap();
    assert!(ok.success());
}

/// The hub's journal entries (a torn last line is skipped).
pub fn journal(hub: &Path) -> Vec<Value> {
    std::fs::read_to_string(hub.join("state/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The time `minutes` from now (negative: ago), to the second, RFC 3339 in UTC.
pub fn minutes_from_now(minutes: i64) -> String {
    let now = jiff::Timestamp::now().as_second();
    jiff::Timestamp::from_second(now + minutes * 60).unwrap().to_string()
}

/// Debian's libfaketime (`scripts/deps.sh --test` installs the `faketime` package), to preload
/// into a `cn` whose wall clock a test sets (`FAKETIME`, with `FAKETIME_DONT_FAKE_MONOTONIC=1`
/// so its timers run as they do).
pub fn libfaketime() -> PathBuf {
    let multiarch = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"];
    multiarch
        .iter()
        .map(|d| Path::new(d).join("faketime/libfaketimeMT.so.1"))
        .find(|p| p.is_file())
        .expect("libfaketime (Debian's faketime; scripts/deps.sh --test installs it)")
}
