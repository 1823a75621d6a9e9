//! The control room over plain HTTP, with the real `cn serve`: loopback unless forced, the
//! views doing what the CLI does (a reflex switched, loops and peers read), and the daemon's
//! own control room that `cn serve` hands out. The owner-only checks, approvals from the page,
//! the first data and the Now view are cn-daemon's (crates/daemon/tests/it/serve.rs).

use crate::daemon_common;
use crate::serve_common;

use std::time::Duration;

use daemon_common::*;
use serde_json::{json, Value};
use serve_common::*;

/// A level-2 "model" that acknowledges whatever it is asked.
const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

fn setup() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    (dir, hub)
}

#[test]
fn a_non_loopback_bind_is_refused_unless_forced() {
    let (_dir, hub) = setup();
    let out = cn_cmd(&hub).args(["serve", "--bind", "0.0.0.0:0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty(), "no address printed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("0.0.0.0:0 is not a loopback address") && err.contains("--allow-remote"), "{err}");
    let out = cn_cmd(&hub).args(["serve", "--bind", "localhost:80x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`localhost:80x` is not an address"));
    // Forced, it listens where it was told.
    let serve = Serve::start(&hub, &["--bind", "0.0.0.0:0", "--allow-remote"]);
    assert!(serve.addr.ip().is_unspecified(), "{}", serve.url);
}

#[test]
fn a_reflex_is_switched_off_and_on_from_the_page_and_committed() {
    let (_dir, hub) = setup();
    let serve = Serve::start(&hub, &[]);
    let bearer = format!("Bearer {}", serve.token);
    let auth = [("Authorization", bearer.as_str()), ("Content-Type", "application/json")];
    let status = || {
        let v: Value = serde_json::from_str(&cn_ok(&hub, &["reflex", "list", "--json"])).unwrap();
        v["reflexes"].as_array().unwrap().iter().find(|r| r["name"] == "hello").unwrap()["status"].clone()
    };
    assert_eq!(status(), "enabled");
    let r = http(serve.addr, "POST", "/api/reflexes/hello/disable", &auth, "{}");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(status(), "off");
    let view = http(serve.addr, "GET", "/api/reflexes", &auth, "").json();
    assert_eq!(view["reflexes"].as_array().unwrap().iter().find(|r| r["name"] == "hello").unwrap()["status"], "off");
    let log = std::process::Command::new("git").current_dir(&hub).args(["log", "--format=%s"]).output().unwrap();
    assert!(String::from_utf8_lossy(&log.stdout).contains("reflex: disable hello"));
    assert_eq!(http(serve.addr, "POST", "/api/reflexes/hello/enable", &auth, "{}").status, 200);
    assert_eq!(status(), "enabled");
    // The same switch from the command line.
    cn_ok(&hub, &["reflex", "disable", "hello"]);
    assert_eq!(status(), "off");
    cn_ok(&hub, &["reflex", "enable", "hello"]);
    assert_eq!(status(), "enabled");
    let out = cn_cmd(&hub).args(["reflex", "disable", "no-such"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let bad = http(serve.addr, "POST", "/api/reflexes/..%2Fcn/disable", &auth, "{}");
    assert_eq!(bad.status, 409, "{bad:?}");
    assert_eq!(http(serve.addr, "GET", "/api/answer/..%2F..%2Fcn", &auth, "").status, 400);
}

#[test]
fn inside_the_daemon_chat_goes_to_attention_and_the_answer_comes_back() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "serve:\n  bind: 127.0.0.1:0\n");
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    let info: Value = serde_json::from_str(&std::fs::read_to_string(hub.join("state/run.json")).unwrap()).unwrap();
    let control = info["control_url"].as_str().expect("run.json names the control room").to_string();
    assert!(!control.contains("token"), "run.json never holds the token: {control}");
    let addr: std::net::SocketAddr = control.trim_start_matches("http://").trim_end_matches('/').parse().unwrap();
    let token = std::fs::read_to_string(hub.join(".git/cn-owner-token")).unwrap();
    // `cn serve` gives the daemon's control room, with the token, instead of a second one.
    let out = cn_ok(&hub, &["serve"]);
    assert_eq!(out.trim(), format!("{control}?token={}", token.trim()));
    let bearer = format!("Bearer {}", token.trim());
    let auth = [("Authorization", bearer.as_str()), ("Content-Type", "application/json")];
    let now = http(addr, "GET", "/api/now", &auth, "").json();
    assert_eq!(now["daemon"]["running"], true, "{now}");
    let r = http(addr, "POST", "/api/chat", &auth, r#"{"text":"hello there"}"#);
    assert_eq!(r.status, 202, "{r:?}");
    assert_eq!(r.json()["by"], "daemon");
    let id = r.json()["accepted"].as_str().unwrap().to_string();
    let answer = wait_until(Duration::from_secs(60), "the answer to the owner's message", || {
        let a = http(addr, "GET", &format!("/api/answer/{id}"), &auth, "").json();
        (a["decided"] == true).then_some(a)
    });
    assert!(answer["answer"].as_str().is_some_and(|a| !a.is_empty()), "{answer}");
    // The decision is journaled before its effects; the commit follows it.
    let why = wait_until(Duration::from_secs(30), "the why chain to end in the commit", || {
        let why = http(addr, "GET", &format!("/api/why/{id}"), &auth, "").json();
        (!why["commits"].as_array()?.is_empty()).then_some(why)
    });
    let kinds: Vec<&str> = why["chain"].as_array().unwrap().iter().filter_map(|e| e["type"].as_str()).collect();
    assert_eq!(kinds.first(), Some(&"observation"), "the trigger first, with its salience: {why}");
    assert!(why["chain"][0]["reasoning"].as_str().unwrap().starts_with("salience"), "{why}");
    assert!(kinds.contains(&"decision"), "{why}");
    assert!(why["commits"][0].as_str().unwrap().contains(&id), "{why}");
    // The page's message sent again under its Idempotency-Key (a 503, a lost answer) is the
    // same item; a key that is not one is refused.
    let keyed = [auth[0], auth[1], ("Idempotency-Key", "room-0123abcd")];
    let once = http(addr, "POST", "/api/chat", &keyed, r#"{"text":"and now?"}"#);
    let twice = http(addr, "POST", "/api/chat", &keyed, r#"{"text":"and now?"}"#);
    assert_eq!((once.status, twice.status), (202, 202), "{once:?} {twice:?}");
    assert_eq!(once.json()["accepted"], twice.json()["accepted"], "one key, one item");
    let bad = [auth[0], auth[1], ("Idempotency-Key", "room key")];
    assert_eq!(http(addr, "POST", "/api/chat", &bad, r#"{"text":"x"}"#).status, 400);
    assert!(daemon.stop().success());
    assert!(std::net::TcpStream::connect(addr).is_err(), "the control room stops with the daemon");
}

#[test]
fn the_loops_and_peers_views_read_what_the_commands_wrote() {
    let (_dir, hub) = setup();
    // A loop on a project inside the hub: two iterations that never meet the target.
    let project = hub.join("project");
    std::fs::create_dir_all(project.join("loop-run")).unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git").current_dir(&project).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    };
    git(&["init", "-q", "-b", "main"]);
    git(&["config", "user.name", "Loop Test"]);
    git(&["config", "user.email", "loop@test.invalid"]);
    git(&["commit", "-q", "--allow-empty", "-m", "initial"]);
    std::fs::write(
        project.join("loop-run/task.md"),
        "---\nmax-iterations: 2\nsensors:\n  a:\n    command: \"echo sensed-one\"\ncontroller: {command: \"printf -- '---\\\\ntarget-met: false\\\\n---\\\\nAgain.\\\\n' > $CN_LOOP_RUN/controller-output.md\"}\nactuator: {command: \"echo $CN_LOOP_ITERATION >> acted.txt\"}\n---\n\nNever done.\n",
    )
    .unwrap();
    let out = cn_cmd(&hub).args(["loop", "run"]).arg(&project).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    cn_ok(&hub, &["peer", "add", "bob", "/srv/git/bob.git"]);

    let serve = Serve::start(&hub, &[]);
    let bearer = format!("Bearer {}", serve.token);
    let auth = [("Authorization", bearer.as_str())];
    let loops = http(serve.addr, "GET", "/api/loops", &auth, "").json();
    let l = &loops["loops"][0];
    assert_eq!(l["dir"], "project", "{loops}");
    let iterations = l["iterations"].as_array().unwrap();
    assert!(iterations.len() >= 2, "{loops}");
    let head = std::process::Command::new("git").current_dir(&project).args(["rev-parse", "HEAD"]).output().unwrap();
    let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
    assert!(iterations.iter().any(|i| head.starts_with(i["commit"].as_str().unwrap())), "the commits: {loops}");
    assert!(l["sensor"].as_str().unwrap().contains("sensed-one"), "the sensor's output: {loops}");
    let peers = http(serve.addr, "GET", "/api/peers", &auth, "").json();
    assert_eq!(peers["peers"], json!([{"name": "bob", "remote": "/srv/git/bob.git"}]), "{peers}");
}
