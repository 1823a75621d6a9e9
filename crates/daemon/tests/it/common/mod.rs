//! What the daemon's tests share: a hub whose level 2 is a shell script (exact and fast), and
//! the daemon — `cn run` without the binary — in a thread of the test, stopped by its
//! `StopToken`. Waits are on what the daemon writes, with a deadline.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

use cn_daemon::{DaemonError, RunMode, RunOptions, RunReport, StopToken};
pub use cn_testkit::hub::{decided_at, journal, md_count, owner_auth, post, wait_until};

pub const MINUTE: Duration = Duration::from_secs(60);

/// A model that acknowledges everything at once.
pub const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

/// A hub `name` under `root` (as `cn init` makes it) whose level-2 model is the shell script
/// `model`, with `extra` appended to cn.yaml. The owner endpoint listens on a free loopback port.
pub fn hub(root: &Path, name: &str, model: &str, extra: &str) -> PathBuf {
    let hub = root.join(name);
    cn_agent::init(&hub, Some(name)).unwrap();
    std::fs::write(hub.join("cn.yaml"), cn_testkit::hub::level2_yaml(root, name, model, extra)).unwrap();
    hub
}

/// Replace `senses:`'s first line with itself followed by `more` (a sense's YAML).
pub fn add_senses(hub: &Path, more: &str) {
    let senses = "senses:\n  bind: 127.0.0.1:0\n";
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    assert!(yaml.contains(senses), "{yaml}");
    std::fs::write(hub.join("cn.yaml"), yaml.replace(senses, &format!("{senses}{more}"))).unwrap();
}

/// `cn_agent::Hub::open`, required to succeed.
pub fn open(hub: &Path) -> cn_agent::Hub {
    cn_agent::Hub::open(hub).unwrap()
}

pub fn options(mode: RunMode) -> RunOptions {
    RunOptions { mode, ..RunOptions::default() }
}

/// `cn run` on a hub, in a thread: stopped (and joined) when dropped.
pub struct Daemon {
    pub hub: PathBuf,
    stop: StopToken,
    thread: Option<JoinHandle<Result<RunReport, DaemonError>>>,
}

impl Daemon {
    pub fn start(hub: &Path) -> Daemon {
        let _ = std::fs::remove_file(cn_daemon::run_info(hub));
        let (h, stop) = (open(hub), StopToken::new());
        let s = stop.clone();
        let thread = std::thread::spawn(move || cn_daemon::run(h, options(RunMode::Daemon), s));
        Daemon { hub: hub.to_path_buf(), stop, thread: Some(thread) }
    }

    /// The owner endpoint's URL, once the daemon has written `state/run.json`.
    pub fn owner_url(&mut self) -> String {
        let (hub, thread) = (&self.hub, &mut self.thread);
        wait_until(MINUTE, "the daemon to write state/run.json", || {
            if thread.as_ref().is_some_and(|t| t.is_finished()) {
                let ended = thread.take().unwrap().join();
                panic!("the daemon returned early: {ended:?}");
            }
            cn_daemon::owner_url(hub)
        })
    }

    /// Stop it as SIGTERM does (the current act finishes, nothing new starts); its report.
    pub fn stop(mut self) -> RunReport {
        self.stop.stop();
        self.thread.take().unwrap().join().expect("the daemon's thread panicked").expect("the daemon ends cleanly")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        self.stop.stop();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A field of an item's typed origin (`origin.KEY`, or `origin.answer.KEY` with `answer.`).
pub fn origin_field(item: &cn_storage::Doc, key: &str) -> Option<String> {
    cn_testkit::hub::origin_field(&serde_json::to_value(item.get("origin")?).ok()?, key)
}

/// Give a [`hub`] under `root` a level-3 executive: the shell script `executive`.
pub fn add_executive(hub: &Path, root: &Path, executive: &str) {
    let script = root.join("exec.sh");
    std::fs::write(&script, executive).unwrap();
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let models = "models:\n";
    let line = format!(
        "{models}  executive: {{provider: command, command: [sh, {}], timeout_secs: 60, sandbox: {{write: ['{}']}}}}\n",
        script.display(),
        root.display()
    );
    std::fs::write(hub.join("cn.yaml"), yaml.replacen(models, &line, 1)).unwrap();
}

/// `cn run` on a hub in a process of its own (this test binary's [`daemon_driver`]), for a
/// test that kills it: killed with SIGKILL when dropped.
pub struct KillableDaemon {
    child: std::process::Child,
}

impl KillableDaemon {
    /// Started on `hub` with `env` added to its environment.
    pub fn start(hub: &Path, env: &[(&str, &str)]) -> KillableDaemon {
        let _ = std::fs::remove_file(cn_daemon::run_info(hub));
        let mut c = cn_testkit::child::test_command("common::daemon_driver");
        c.env("CN_DAEMON_TEST_DAEMON", hub).stdout(std::process::Stdio::null());
        for (k, v) in env {
            c.env(k, v);
        }
        KillableDaemon { child: c.spawn().expect("the test binary runs") }
    }

    /// The owner endpoint's URL, once the daemon has written `state/run.json`.
    pub fn owner_url(&mut self, hub: &Path) -> String {
        let child = &mut self.child;
        wait_until(MINUTE, "the daemon to write state/run.json", || {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("the daemon's process exited early: {status}");
            }
            cn_daemon::owner_url(hub)
        })
    }

    /// SIGKILL, and reaped.
    pub fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for KillableDaemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Not a test: the daemon's own process for [`KillableDaemon`]; runs `cn run` on
/// `CN_DAEMON_TEST_DAEMON` until killed.
#[test]
#[ignore = "the daemon's process for KillableDaemon; runs only as its child"]
fn daemon_driver() {
    let Some(hub) = std::env::var_os("CN_DAEMON_TEST_DAEMON").map(PathBuf::from) else { return };
    let report = cn_daemon::run(open(&hub), options(RunMode::Daemon), StopToken::new());
    panic!("the daemon returned before it was killed: {report:?}");
}

/// The GitHub webhook's secret, in the variable `senses.github.secret_env` names: the same for
/// every test of this binary (the daemon runs in this process).
pub const HOOK_SECRET: &str = "hook-secret";

/// Give a [`hub`] a GitHub webhook signed with [`HOOK_SECRET`].
pub fn add_webhook(hub: &Path) {
    std::env::set_var("CN_TEST_HOOK_SECRET", HOOK_SECRET);
    add_senses(hub, "  github:\n    secret_env: CN_TEST_HOOK_SECRET\n");
}

/// Deliver a GitHub `issues` event (signed with [`HOOK_SECRET`]) to the daemon whose owner
/// endpoint is `owner_url`; it must be accepted.
pub fn deliver_github(owner_url: &str, event: &serde_json::Value) {
    let hook = owner_url.replace(cn_autonomy::senses::OWNER_PATH, cn_autonomy::senses::GITHUB_PATH);
    let body = event.to_string();
    let sig = cn_autonomy::senses::github::sign(HOOK_SECRET.as_bytes(), body.as_bytes());
    let (status, answer) = post(&hook, &[("x-github-event", "issues"), ("x-hub-signature-256", &sig)], &body);
    assert!(status < 300, "{status} {answer}");
}

/// What `cn chat TEXT` does with a daemon running: the owner's message posted to the owner
/// endpoint `url`, and its answer to the owner once decided.
pub fn chat(hub: &Path, url: &str, text: &str) -> String {
    let (k, auth) = owner_auth(hub);
    let (status, body) = post(url, &[(k, &auth)], &serde_json::json!({ "text": text }).to_string());
    assert_eq!(status, 202, "{body}");
    let id = body["accepted"].as_str().unwrap().to_string();
    let h = open(hub);
    wait_until(MINUTE, &format!("the answer to {text:?}"), || cn_agent::answer_to(&h, &id).unwrap())
}

/// Every approval, held or decided, as `cn approvals --all --json` lists them.
pub fn approvals(hub: &Path) -> Vec<serde_json::Value> {
    let all = cn_hub::approvals::list(&cn_hub::Layout::new(hub)).unwrap();
    all.iter().map(|a| serde_json::to_value(a).unwrap()).collect()
}

/// The decided items from `from`, in order.
pub fn decided_from(hub: &Path, from: &str) -> Vec<serde_json::Value> {
    journal(hub)
        .into_iter()
        .filter(|e| e["type"] == "decision" && e["from"] == from && e["place"].is_string())
        .collect()
}

/// [`hub`] `ada` with a level-3 executive — the shell script `executive` — and a GitHub
/// webhook ([`add_webhook`]).
pub fn executive_hub(root: &Path, model: &str, executive: &str, extra: &str) -> PathBuf {
    let hub = hub(root, "ada", model, extra);
    add_executive(&hub, root, executive);
    add_webhook(&hub);
    hub
}

/// `cn run --until-idle` on `hub`.
pub fn run_until_idle(hub: &Path) -> RunReport {
    cn_daemon::run(open(hub), options(RunMode::UntilIdle), StopToken::new()).unwrap()
}

/// What `cn chat TEXT` does with no daemon running: the owner's message put in the inbox,
/// `cn run --once` until it is answered; the answer to the owner.
pub fn chat_alone(hub: &Path, text: &str) -> String {
    let h = open(hub);
    let id = cn_agent::enqueue_new(&h, cn_agent::OWNER, cn_agent::Cadence::Inbox, text).unwrap().id;
    for _ in 0..20 {
        if let Some(answer) = cn_agent::answer_to(&h, &id).unwrap() {
            return answer;
        }
        let report = cn_daemon::run(open(hub), options(RunMode::Once), StopToken::new()).unwrap();
        assert!(!report.nothing_to_do(), "the message {id} is no longer queued, and not answered");
    }
    panic!("no answer to {text:?} after 20 runs");
}

/// The hub's reflexes as `cn reflex list --json` lists them (its `reflexes`).
pub fn reflex_list(hub: &Path) -> Vec<serde_json::Value> {
    let h = open(hub);
    let (config, policy) = cn_reflex::config::of(h.config());
    let engine = cn_reflex::Engine::with_config(h.layout(), config, policy).named(h.name());
    cn_reflex::listing(&engine, None)
}

/// The control room alone on `hub`'s files, as `cn serve` runs it; stopped when dropped.
pub struct Serve {
    _server: cn_daemon::serve::Server,
    room: cn_testkit::http::Room,
}

impl std::ops::Deref for Serve {
    type Target = cn_testkit::http::Room;
    fn deref(&self) -> &cn_testkit::http::Room {
        &self.room
    }
}

pub fn serve(hub: &Path) -> Serve {
    let h = open(hub);
    let config = h.config().serve.clone().unwrap_or_default();
    let server = cn_daemon::serve::Server::start(h, &config, None).unwrap();
    Serve { room: cn_testkit::http::Room::of_url(&server.url()), _server: server }
}
