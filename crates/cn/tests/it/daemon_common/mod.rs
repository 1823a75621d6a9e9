//! Helpers for the daemon's end-to-end tests: a hub whose level 2 is a command-line model
//! (a shell script standing in for a model, so tests are fast and exact), the real `cn run`
//! daemon as a child process, and waiting on what the daemon writes — with a deadline,
//! never a fixed sleep.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::hub_common;
#[allow(unused_imports)]
pub use hub_common::{cn_cmd, cn_ok, init_hub};

/// `cn init` a hub `name` under `root` whose level-2 model is the shell script `model`,
/// with `extra` appended to cn.yaml. The owner endpoint listens on a free loopback port.
pub fn hub(root: &Path, name: &str, model: &str, extra: &str) -> PathBuf {
    let hub = init_hub(root, name);
    let script = root.join(format!("{name}-model.sh"));
    std::fs::write(&script, model).unwrap();
    let yaml = format!(
        "name: {name}\nmodels:\n  local:\n    provider: command\n    command: [sh, {script}]\n    timeout_secs: 60\n    sandbox: {{write: ['{root}']}}\n\
         senses:\n  bind: 127.0.0.1:0\npolicy:\n  levels:\n    0: [reply, noop, ack]\n    2: [reply, noop, ack, defer]\n{extra}",
        script = script.display(),
        root = root.display()
    );
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
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

/// Poll `f` until it gives a value; panic naming `what` after `limit`.
pub fn wait_until<T>(limit: Duration, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < limit, "timed out after {limit:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
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

/// Index of the first `decision` entry for item `id`, if any.
pub fn decided_at(entries: &[Value], id: &str) -> Option<usize> {
    entries.iter().position(|e| e["type"] == "decision" && e["id"] == id && e["place"].is_string())
}

/// POST `body` (JSON) to `url`; the status and the JSON answer.
/// `Authorization: Bearer <the hub's owner token>` (what `cn chat` sends).
pub fn owner_auth(hub: &Path) -> (&'static str, String) {
    let token = std::fs::read_to_string(hub.join(".git/cn-owner-token")).expect("cn init made the owner token");
    ("authorization", format!("Bearer {}", token.trim()))
}

pub fn post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut req = agent.post(url).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut resp = req.send(body).unwrap_or_else(|e| panic!("POST {url}: {e}"));
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// A field of an item's typed origin (`origin.KEY`, or `origin.answer.KEY` with `answer.`).
pub fn origin_field(item: &cn_storage::Doc, key: &str) -> Option<String> {
    let origin = item.get("origin")?;
    let v = match key.strip_prefix("answer.") {
        Some(k) => origin.get("answer")?.get(k)?,
        None => origin.get(key)?,
    };
    v.as_str().map(str::to_string)
}

/// The `.md` files of a directory.
pub fn md_count(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "md")).count())
        .unwrap_or(0)
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
