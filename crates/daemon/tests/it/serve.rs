//! The control room over plain HTTP, `cn_daemon::serve::Server` alone on a hub's files (as
//! `cn serve` starts it): the owner only (401 without the token, the token traded for an
//! HttpOnly SameSite=Strict cookie, no Referer leak), cross-origin and DNS-rebinding requests
//! refused, the page's first data the owner's only, approvals run or denied from the page,
//! the Now view. (A bind refused, the reflex switch and the loops and peers views beside the
//! commands, and the daemon's own control room, are the binary's: crates/cn/tests/it/serve_http.rs.)

use std::path::PathBuf;

use cn_testkit::http::http;
use serde_json::{json, Value};

use crate::common::*;

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    (dir, hub)
}

#[test]
fn the_owner_only_with_the_token_traded_for_a_strict_cookie() {
    let (_dir, hub) = setup();
    let serve = serve(&hub);
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
    let serve = serve(&hub);
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
    let serve = serve(&hub);
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
    let log = std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap();
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
fn the_pages_first_data_is_data_the_owners_only() {
    let (_dir, hub) = setup();
    // A stranger's text in the journal, written to break out of a string or an element.
    let attack = "\"});fetch('/api/approvals/x/approve',{method:'POST'});({\"</script><script>alert(1)</script>";
    let entry = json!({"ts": "2026-01-01T00:00:00Z", "type": "observation", "summary": attack});
    std::fs::write(hub.join("state/journal.jsonl"), format!("{entry}\n")).unwrap();
    let serve = serve(&hub);
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
/// by the owner's message, as `cn chat` sends it with no daemon).
#[test]
fn the_now_view_shows_due_next_overdue_and_done_today() {
    let (_dir, hub) = setup();
    for (what, due) in [
        ("file the expense report", "2000-01-01T00:00:00Z"),
        ("renew the certificate", "2099-01-01T09:00:00Z"),
        ("water the plants", "2099-02-01T09:00:00Z"),
    ] {
        let mut task = cn_autonomy::impulses::Task::new(what);
        task.due = Some(due.parse().unwrap());
        cn_autonomy::impulses::tasks_of(&hub).add(task).unwrap();
    }
    let answer = chat_alone(&hub, "done with water the plants");
    assert!(answer.starts_with("Done: water the plants"), "{answer}");
    let serve = serve(&hub);
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
