//! The control room over plain HTTP, with the real `cn serve`: the owner only (401 without
//! the token, the token traded for an HttpOnly SameSite=Strict cookie, no Referer leak),
//! cross-origin and DNS-rebinding requests refused, loopback unless forced, and the views'
//! actions doing what the CLI does (approve, reflex switch, chat) on the hub's files.

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
fn the_owner_only_with_the_token_traded_for_a_strict_cookie() {
    let (_dir, hub) = setup();
    let serve = Serve::start(&hub, &[]);
    assert!(serve.addr.ip().is_loopback(), "loopback by default: {}", serve.url);
    assert_ne!(serve.addr.port(), 0, "port 0 picked a free port and the address shows it");
    let token = std::fs::read_to_string(hub.join(".git/cn-owner-token")).unwrap();
    assert_eq!(serve.token, token.trim(), "the printed address carries the hub's owner token");

    for path in ["/", "/app.js", "/api/now", "/api/journal", "/api/events", "/api/approvals"] {
        let r = http(serve.addr, "GET", path, &[], "");
        assert_eq!(r.status, 401, "{path} without the token: {r:?}");
        assert_eq!(r.header("referrer-policy"), Some("no-referrer"));
    }
    let wrong = format!("Bearer {}", "0".repeat(64));
    assert_eq!(http(serve.addr, "GET", "/api/now", &[("Authorization", &wrong)], "").status, 401);
    assert_eq!(http(serve.addr, "GET", "/?token=nope", &[], "").status, 401);
    // The query carries the token only for the page load, and only at `/`.
    assert_eq!(http(serve.addr, "GET", &format!("/api/now?token={}", serve.token), &[], "").status, 401);

    let load = http(serve.addr, "GET", &format!("/?token={}", serve.token), &[], "");
    assert_eq!(load.status, 303, "{load:?}");
    assert_eq!(load.header("location"), Some("/"), "the token leaves the address bar");
    let set = load.header("set-cookie").unwrap();
    for part in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set.contains(part), "{set}");
    }
    let cookie = serve.cookie();
    let again = http(serve.addr, "GET", &format!("/?token={}", serve.token), &[("Cookie", &cookie)], "");
    assert_eq!(again.status, 303, "the printed address opened again still drops the token: {again:?}");
    let page = http(serve.addr, "GET", "/", &[("Cookie", &cookie)], "");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<script src=\"/app.js\""), "{}", page.body);
    assert!(!page.body.contains(&serve.token), "the page never holds the token");
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    let csp = page.header("content-security-policy").unwrap();
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    let bearer = format!("Bearer {}", serve.token);
    let now = http(serve.addr, "GET", "/api/now", &[("Authorization", &bearer)], "").json();
    assert_eq!(now["hub"], "ada");
    assert_eq!(now["daemon"]["running"], false);

    // Page weight: the page and its assets.
    let weight: usize = ["/", "/app.js", "/app.css"]
        .iter()
        .map(|p| http(serve.addr, "GET", p, &[("Cookie", &cookie)], "").body.len())
        .sum();
    assert!(weight <= 200 * 1024, "page weight {weight} bytes");
}

#[test]
fn cross_origin_rebinding_and_form_posts_are_refused() {
    let (_dir, hub) = setup();
    let serve = Serve::start(&hub, &[]);
    let cookie = serve.cookie();
    let body = r#"{"text":"hello"}"#;
    let own = serve.origin();
    let json = ("Content-Type", "application/json");
    let post = |headers: &[(&str, &str)]| http(serve.addr, "POST", "/api/chat", headers, body);

    let evil = post(&[("Cookie", &cookie), ("Origin", "http://evil.example"), json]);
    assert_eq!(evil.status, 403, "{evil:?}");
    let no_origin = post(&[("Cookie", &cookie), json]);
    assert_eq!(no_origin.status, 403, "a cookie request must say its origin: {no_origin:?}");
    let form = post(&[("Cookie", &cookie), ("Origin", &own), ("Content-Type", "text/plain")]);
    assert_eq!(form.status, 415, "a simple cross-site form post cannot be JSON: {form:?}");
    let rebound = post(&[("Cookie", &cookie), ("Origin", "http://evil.example:80"), ("Host", "evil.example:80"), json]);
    assert_eq!(rebound.status, 403, "{rebound:?}");
    let get_rebound = http(serve.addr, "GET", "/api/now", &[("Cookie", &cookie), ("Host", "evil.example")], "");
    assert_eq!(get_rebound.status, 403, "DNS rebinding: {get_rebound:?}");
    let put = http(serve.addr, "PUT", "/api/chat", &[("Cookie", &cookie), ("Origin", &own), json], body);
    assert!(put.status == 405 || put.status == 404, "{put:?}");
    assert_eq!(md_count(&hub.join("threads/inbox")), 0, "nothing refused reached the hub");

    let ok = post(&[("Cookie", &cookie), ("Origin", &own), json]);
    assert_eq!(ok.status, 202, "{ok:?}");
    assert_eq!(ok.json()["by"], "inbox", "no daemon: the message waits in the inbox");
    assert_eq!(md_count(&hub.join("threads/inbox")), 1);
    // Sent again under its Idempotency-Key (the answer was lost): the same item, queued once.
    let keyed = [("Cookie", cookie.as_str()), ("Origin", own.as_str()), json, ("Idempotency-Key", "room-42")];
    let (once, twice) = (post(&keyed), post(&keyed));
    assert_eq!((once.status, twice.status), (202, 202), "{once:?} {twice:?}");
    assert_eq!(once.json()["accepted"], twice.json()["accepted"], "{once:?} {twice:?}");
    assert_eq!(md_count(&hub.join("threads/inbox")), 2);
    // The key used again for another message (a client's bug): that message is queued too,
    // under its own id, not answered 202 as the first one's duplicate and dropped.
    let other = http(serve.addr, "POST", "/api/chat", &keyed, r#"{"text":"another question"}"#);
    assert_eq!(other.status, 202, "{other:?}");
    assert_ne!(other.json()["accepted"], once.json()["accepted"], "{other:?}");
    assert_eq!(md_count(&hub.join("threads/inbox")), 3);
    let inbox = std::fs::read_dir(hub.join("threads/inbox")).unwrap();
    let texts: Vec<String> = inbox.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect();
    assert!(texts.iter().any(|t| t.contains("another question")), "{texts:?}");
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
fn approving_from_the_page_runs_exactly_what_it_showed_and_denying_runs_nothing() {
    let (_dir, hub) = setup();
    let layout = cn_hub::Layout::new(&hub);
    let yaml = "name: greet\ndescription: greets\nlevel: 0\ntrigger:\n  pattern: \"(?i)^good morning\"\npipeline:\n  - action: reply\n    message: \"Morning!\"\n";
    let hold = |name: &str| {
        let params = json!({"name": name, "yaml": yaml.replace("greet", name)});
        let req = cn_hub::approvals::Request {
            tool: "reflex_write".into(),
            params,
            runs: format!("write state/reflexes/{name}.yaml"),
            remembers: "nothing".into(),
            item: None,
            from: None,
            level: None,
        };
        cn_hub::approvals::request(&layout, req, 3600).unwrap()
    };
    let yes = hold("greet");
    let no = hold("other");
    let serve = Serve::start(&hub, &[]);
    let bearer = format!("Bearer {}", serve.token);
    let auth = [("Authorization", bearer.as_str()), ("Content-Type", "application/json")];
    let listed = http(serve.addr, "GET", "/api/approvals", &auth, "").json();
    let shown: Vec<&Value> =
        listed["approvals"].as_array().unwrap().iter().filter(|a| a["status"] == "pending").collect();
    assert_eq!(shown.len(), 2);
    assert_eq!(shown.iter().find(|a| a["id"] == yes.id.as_str()).unwrap()["params"]["yaml"], yaml);

    let r = http(serve.addr, "POST", &format!("/api/approvals/{}/approve", yes.id), &auth, "{}");
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(std::fs::read_to_string(hub.join("state/reflexes/greet.yaml")).unwrap(), yaml);
    let log = cn_ok(&hub, &["journal", "--json"]);
    assert!(log.contains("\"approval\":\"") && log.contains(&yes.id), "{log}");
    let again = http(serve.addr, "POST", &format!("/api/approvals/{}/approve", yes.id), &auth, "{}");
    assert_eq!(again.status, 409, "decided once: {again:?}");

    let r = http(serve.addr, "POST", &format!("/api/approvals/{}/deny", no.id), &auth, "{}");
    assert_eq!(r.status, 200, "{r:?}");
    assert!(!hub.join("state/reflexes/other.yaml").exists(), "a denied action never runs");
    let unknown = http(serve.addr, "POST", "/api/approvals/ap-nope/approve", &auth, "{}");
    assert_eq!(unknown.status, 409, "{unknown:?}");
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

#[test]
fn the_pages_first_data_is_data_the_owners_only() {
    let (_dir, hub) = setup();
    // A stranger's text in the journal, written to break out of a string or an element.
    let attack = "\"});fetch('/api/approvals/x/approve',{method:'POST'});({\"</script><script>alert(1)</script>";
    let entry = json!({"ts": "2026-01-01T00:00:00Z", "type": "observation", "summary": attack});
    std::fs::write(hub.join("state/journal.jsonl"), format!("{entry}\n")).unwrap();
    let serve = Serve::start(&hub, &[]);
    for path in ["/boot/now.js", "/boot/journal.js"] {
        assert_eq!(http(serve.addr, "GET", path, &[], "").status, 401, "{path} without the token");
    }
    let cookie = serve.cookie();
    let page = http(serve.addr, "GET", "/", &[("Cookie", &cookie)], "");
    assert!(!page.body.contains(attack) && !page.body.contains("alert"), "the page itself holds no data");
    let script = http(serve.addr, "GET", "/boot/journal.js", &[("Cookie", &cookie)], "");
    assert_eq!(script.status, 200);
    assert_eq!(script.header("cross-origin-resource-policy"), Some("same-origin"), "no other site loads it");
    // One call with one JSON value: the text arrives whole, as a string in it.
    let body = script.body.trim();
    let json_text = body.strip_prefix("window.cnBootJournal(").and_then(|b| b.strip_suffix(");")).expect(body);
    let v: Value = serde_json::from_str(json_text).unwrap();
    assert_eq!(v["entries"][0]["summary"], attack);
    let now = http(serve.addr, "GET", "/boot/now.js", &[("Cookie", &cookie)], "");
    let json_text = now.body.trim().strip_prefix("window.cnBootNow = ").and_then(|b| b.strip_suffix(';')).unwrap();
    assert_eq!(serde_json::from_str::<Value>(json_text).unwrap()["hub"], "ada");
}

/// Issue 31, point 5: the Now view shows the routine — the person's tasks due next and
/// overdue from tasks.json, and what was done today from the journal (a task marked done
/// through `cn chat` by the real binary).
#[test]
fn the_now_view_shows_due_next_overdue_and_done_today() {
    let (_dir, hub) = setup();
    cn_ok(&hub, &["task", "add", "file the expense report", "--due", "2000-01-01T00:00:00Z"]);
    cn_ok(&hub, &["task", "add", "renew the certificate", "--due", "2099-01-01T09:00:00Z"]);
    cn_ok(&hub, &["task", "add", "water the plants", "--due", "2099-02-01T09:00:00Z"]);
    let answer = cn_ok(&hub, &["chat", "done with water the plants"]);
    assert!(answer.starts_with("Done: water the plants"), "{answer}");
    let serve = Serve::start(&hub, &[]);
    let bearer = format!("Bearer {}", serve.token);
    let now = http(serve.addr, "GET", "/api/now", &[("Authorization", &bearer)], "").json();
    let what = |k: &str| -> Vec<String> {
        now["routine"][k].as_array().unwrap().iter().map(|t| t["what"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(what("next"), ["renew the certificate"], "{now:#}");
    assert_eq!(now["routine"]["next"][0]["at"], "2099-01-01T09:00:00Z");
    assert_eq!(what("overdue"), ["file the expense report"]);
    assert_eq!(what("done_today"), ["water the plants"]);
    // The page shows them.
    let script = http(serve.addr, "GET", "/app.js", &[("Cookie", &serve.cookie())], "").body;
    for id in ["#now-next", "#now-overdue", "#now-done"] {
        assert!(script.contains(id), "{id}");
    }
}
