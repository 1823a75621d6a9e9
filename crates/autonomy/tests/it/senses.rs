//! The senses against real servers on loopback: the GitHub webhook receiver and the owner
//! endpoint (HTTP requests to the running `Senses`), notification polling (against an axum
//! server standing in for api.github.com), the file watcher and a calendar file.
#![cfg(feature = "senses")]

use std::net::SocketAddr;
use std::time::Duration;

use cn_autonomy::attention::{Attention, PoolConfig};
use cn_autonomy::config::AutonomyConfig;
use cn_autonomy::senses::github::{sign, NotificationPoller};
use cn_autonomy::{Input, Senses};

use crate::common;
use common::wait_until;

fn drain(attention: &Attention) -> Vec<cn_autonomy::Candidate> {
    std::iter::from_fn(|| attention.decide(jiff::Timestamp::now())).collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/tests/fixtures/github/{name}.json", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn start(hub: &std::path::Path, yaml: &str) -> (Senses, Attention, SocketAddr) {
    let config = AutonomyConfig::from_yaml(yaml).unwrap();
    let attention = Attention::new(PoolConfig::default());
    let senses = Senses::start(&common::open_hub(hub), &config.senses, attention.clone()).unwrap();
    let addr = senses.local_addr().unwrap();
    assert!(addr.ip().is_loopback());
    (senses, attention, addr)
}

#[test]
fn webhook_accepts_signed_events_and_refuses_the_rest() {
    std::env::set_var("CN_TEST_HOOK_SECRET_A", "It's a Secret to Everybody");
    let hub = tempfile::tempdir().unwrap();
    let (senses, attention, addr) = start(
        hub.path(),
        "senses:\n  bind: 127.0.0.1:0\n  owner: {enabled: false}\n  github: {secret_env: CN_TEST_HOOK_SECRET_A, owners: [octocat]}\n",
    );
    let url = format!("http://{addr}/github/webhook");
    let deliveries = std::sync::atomic::AtomicUsize::new(0);
    let post = |event: &str, body: Vec<u8>, sig: Option<String>| {
        // Each delivery its own id (one id again is a redelivery, dropped).
        let n = deliveries.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let delivery = if n == 0 { "72d3162e".to_string() } else { format!("72d3162e-{n}") };
        let mut headers = vec![("X-GitHub-Event", event), ("X-GitHub-Delivery", delivery.as_str())];
        if let Some(s) = &sig {
            headers.push(("X-Hub-Signature-256", s.as_str()));
        }
        common::post(&url, &headers, &body).0
    };
    for event in ["issues", "issue_comment", "pull_request", "push"] {
        let body = fixture(event);
        let sig = sign(b"It's a Secret to Everybody", &body);
        assert_eq!(post(event, body, Some(sig)), 202, "{event}");
    }
    let body = fixture("push");
    assert_eq!(post("push", body.clone(), None), 401, "missing signature");
    let wrong = sign(b"not the secret", &body);
    assert_eq!(post("push", body.clone(), Some(wrong)), 401, "wrong secret");
    let mut tampered = body.clone();
    tampered[10] ^= 1;
    let sig = sign(b"It's a Secret to Everybody", &body);
    assert_eq!(post("push", tampered, Some(sig.clone())), 401, "tampered body");
    // The same signed body again — under any delivery id — was taken already: dropped.
    assert_eq!(post("push", body, Some(sig)), 200);
    wait_until(&attention, "four pooled percepts", |a| a.len() == 4);
    let got = drain(&attention);
    // octocat is the owner: the issue comes first. Owner items are never coalesced, so the
    // comment on the same issue (by hubot) is an item of its own.
    assert!(got[0].item.owner());
    assert_eq!(
        got[0].item.summary(),
        "GitHub: issue #42 opened in octo-org/hello-world by octocat: Spelling error in the README file"
    );
    let rest: Vec<&str> = got[1..].iter().map(|c| c.item.summary()).collect();
    assert!(
        rest.contains(&"GitHub: hubot commented on #42 in octo-org/hello-world: Good catch! I'll send a fix."),
        "{rest:?}"
    );
    assert!(
        rest.contains(&"GitHub: pull request #7 opened in octo-org/hello-world by hubot: Fix the spelling of commit"),
        "{rest:?}"
    );
    assert!(
        rest.contains(
            &"GitHub: hubot pushed 1 commit(s) to refs/heads/main in octo-org/hello-world: Fix the spelling of commit"
        ),
        "{rest:?}"
    );
    assert!(got[1..].iter().all(|c| !c.item.owner()));
    if let Input::Percept(p) = &got[1].item {
        let d: cn_autonomy::senses::github::Delivered = p.data_as().unwrap();
        assert!(d.delivery.is_some_and(|d| d.starts_with("72d3162e")));
        assert_eq!(d.repository, "octo-org/hello-world");
    }
    senses.stop();
}

#[test]
fn owner_endpoint_needs_the_token_and_goes_first() {
    std::env::set_var("CN_TEST_OWNER_TOKEN_B", "tok-123");
    let hub = tempfile::tempdir().unwrap();
    let (senses, attention, addr) =
        start(hub.path(), "senses:\n  bind: 127.0.0.1:0\n  owner: {token_env: CN_TEST_OWNER_TOKEN_B}\n");
    attention.admit(cn_autonomy::Percept::new(cn_hub::Sense::Github, "busy work"));
    let url = format!("http://{addr}/owner/message");
    let body = r#"{"text": "What did you do today?", "thread": "t1"}"#;
    let send = |auth: Option<&str>| {
        let mut headers = vec![("content-type", "application/json")];
        if let Some(a) = auth {
            headers.push(("authorization", a));
        }
        common::post(&url, &headers, body.as_bytes()).0
    };
    assert_eq!(send(None), 401);
    assert_eq!(send(Some("Bearer nope")), 401);
    assert_eq!(send(Some("Bearer tok-123")), 202);
    let empty = common::post(
        &url,
        &[("authorization", "Bearer tok-123"), ("content-type", "application/json")],
        b"{\"text\": \"\"}",
    );
    assert_eq!(empty.0, 400, "an empty message is refused");
    wait_until(&attention, "the owner's message", |a| a.len() == 2);
    let first = attention.decide(jiff::Timestamp::now()).unwrap();
    assert_eq!(first.item.summary(), "Owner: What did you do today?");
    assert!(first.salience.explanation.contains("owner 1000"), "{}", first.salience.explanation);
    senses.stop();
}

#[test]
fn notifications_are_polled_from_a_configurable_base_url() {
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::IntoResponse;
    let rt = runtime();
    let base = rt.block_on(async {
        async fn notifications(headers: HeaderMap) -> axum::response::Response {
            if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some("Bearer gh-token") {
                return StatusCode::UNAUTHORIZED.into_response();
            }
            let lm = "Wed, 07 Jan 2026 10:05:00 GMT";
            if headers.get("if-modified-since").and_then(|v| v.to_str().ok()) == Some(lm) {
                return StatusCode::NOT_MODIFIED.into_response();
            }
            let body = std::fs::read_to_string(format!(
                "{}/tests/fixtures/github/notifications.json",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap();
            ([("last-modified", lm), ("x-poll-interval", "60"), ("content-type", "application/json")], body)
                .into_response()
        }
        let app = axum::Router::new().route("/api/v3/notifications", axum::routing::get(notifications));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{addr}/api/v3")
    });
    rt.block_on(async {
        let mut bad = NotificationPoller::new(&base, "wrong".into()).unwrap();
        assert!(bad.poll().await.unwrap_err().to_string().contains("401"));
        let mut poller = NotificationPoller::new(&base, "gh-token".into()).unwrap();
        let first = poller.poll().await.unwrap();
        let summaries: Vec<&str> = first.iter().map(|p| p.summary.as_str()).collect();
        assert_eq!(
            summaries,
            [
                "GitHub notification (mention): Issue Greetings in octo-org/hello-world",
                "GitHub notification (review_requested): PullRequest Fix the spelling of commit in octo-org/hello-world",
            ]
        );
        assert_eq!(poller.poll_interval, Some(Duration::from_secs(60)));
        assert!(poller.poll().await.unwrap().is_empty(), "304 Not Modified: nothing new");
    });
}

#[test]
fn file_changes_become_debounced_percepts_but_state_does_not() {
    let hub = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(hub.path().join("notes")).unwrap();
    std::fs::create_dir_all(hub.path().join("state")).unwrap();
    let config =
        AutonomyConfig::from_yaml("senses:\n  owner: {enabled: false}\n  files: {paths: ['.'], debounce: 100ms}\n")
            .unwrap();
    let attention = Attention::new(PoolConfig::default());
    let senses = Senses::start(&common::open_hub(hub.path()), &config.senses, attention.clone()).unwrap();
    assert!(senses.local_addr().is_none(), "no HTTP endpoint enabled, no server");
    std::fs::write(hub.path().join("state/journal.jsonl"), "{}\n").unwrap();
    for i in 0..5 {
        std::fs::write(hub.path().join("notes/a.md"), format!("draft {i}")).unwrap();
    }
    wait_until(&attention, "a percept for notes/a.md", |a| {
        a.with_pool(|p| p.iter().any(|x| x.item.summary() == "File changed: notes/a.md"))
    });
    let all = drain(&attention);
    assert!(
        all.iter().all(|c| !c.item.summary().contains("state")),
        "{:?}",
        all.iter().map(|c| c.item.summary()).collect::<Vec<_>>()
    );
    // Five writes, one file: one item (debounced, and coalesced by path).
    assert_eq!(all.iter().filter(|c| c.item.summary() == "File changed: notes/a.md").count(), 1);
    senses.stop();
}

#[test]
fn a_calendar_event_becomes_a_percept_before_it_starts() {
    let hub = tempfile::tempdir().unwrap();
    let start = jiff::Timestamp::now() + jiff::SignedDuration::from_mins(5);
    let dt = start.strftime("%Y%m%dT%H%M%SZ").to_string();
    let ics = format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cn//test//EN\r\nBEGIN:VEVENT\r\nUID:soon@example.com\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:{dt}\r\nSUMMARY:Call with Ada\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:later@example.com\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20990101T000000Z\r\nSUMMARY:Far future\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    );
    std::fs::write(hub.path().join("cal.ics"), ics).unwrap();
    let config = AutonomyConfig::from_yaml(
        "senses:\n  owner: {enabled: false}\n  calendar:\n    - {source: cal.ics, lead: 15m, refresh: 1h}\n",
    )
    .unwrap();
    let attention = Attention::new(PoolConfig::default());
    let senses = Senses::start(&common::open_hub(hub.path()), &config.senses, attention.clone()).unwrap();
    wait_until(&attention, "the calendar percept", |a| a.len() == 1);
    let c = attention.decide(jiff::Timestamp::now()).unwrap();
    assert!(c.item.summary().starts_with("Calendar: Call with Ada starts in "), "{}", c.item.summary());
    assert_eq!(c.item.due().map(|d| d.as_second()), Some(start.as_second()));
    senses.stop();
}

#[test]
fn a_flood_stays_bounded_and_the_owner_message_sent_during_it_comes_first() {
    let hub = tempfile::tempdir().unwrap();
    let config = AutonomyConfig::from_yaml("senses:\n  bind: 127.0.0.1:0\nattention:\n  capacity: 200\n").unwrap();
    let attention = Attention::new(config.attention.clone());
    let senses = Senses::start(&common::open_hub(hub.path()), &config.senses, attention.clone()).unwrap();
    let url = format!("http://{}/owner/message", senses.local_addr().unwrap());
    let (half, at_half) = std::sync::mpsc::channel();
    let (sent, owner_sent) = std::sync::mpsc::channel::<()>();
    let a = attention.clone();
    let flood = std::thread::spawn(move || {
        for i in 0..10_000 {
            if i == 5_000 {
                half.send(()).unwrap();
                owner_sent.recv().unwrap();
            }
            a.admit(
                cn_autonomy::Percept::new(cn_hub::Sense::Github, format!("flood {i}")).key(format!("github:o/r#{i}")),
            );
        }
    });
    at_half.recv().unwrap();
    let token = std::fs::read_to_string(hub.path().join(".git/cn-owner-token")).unwrap();
    let bearer = format!("Bearer {}", token.trim());
    let body = serde_json::json!({"text": "Stop what you're doing and answer me"}).to_string();
    let (status, _) = common::post(
        &url,
        &[("authorization", bearer.as_str()), ("content-type", "application/json")],
        body.as_bytes(),
    );
    assert_eq!(status, 202);
    sent.send(()).unwrap();
    flood.join().unwrap();
    assert!(attention.len() <= 201, "the pool grew to {}", attention.len());
    let first = attention.decide(jiff::Timestamp::now()).unwrap();
    assert_eq!(first.item.summary(), "Owner: Stop what you're doing and answer me");
    let report = attention.with_pool(|p| p.take_flood_report()).unwrap();
    assert_eq!(attention.len() as u64 + report.coalesced + report.shed, 10_000, "every flood item accounted for");
    assert!(report.shed >= 9_800);
    let entry = cn_autonomy::journal::flood(&report).into_entry();
    assert!(entry.0["summary"].as_str().unwrap().contains("shed"), "{:?}", entry);
    senses.stop();
}
