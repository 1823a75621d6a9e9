//! Outbound fetches, through the engine as `cn reflex test` runs it: the shipped
//! summarize-url reflex on a fresh `cn init` hub refuses
//! loopback and metadata addresses for whoever asks; allowlist entries match by scheme, host,
//! port and path (not string prefix); every redirect is checked again; the GitHub token
//! never follows a redirect to another host. The owner's line naming a loopback host (as
//! `cn demo` writes) still lets the page be fetched.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::support::{init_hub, reflex_test, reflex_test_in_child};

/// A loopback server answering every request with `status` and `extra` headers; it records
/// each request's head.
fn server(status: &str, extra: String, body: &'static str) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let status = status.to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut head = String::new();
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                head.push_str(&line);
                line.clear();
            }
            log.lock().unwrap().push(head);
            let _ = write!(
                stream,
                "HTTP/1.1 {status}\r\n{extra}Content-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, seen)
}

fn first_error(v: &Value) -> String {
    v["steps"][0]["error"].as_str().unwrap_or("").to_string()
}

fn add_policy(hub: &Path, line: &str) {
    let path = hub.join("cn.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("  shell: false\n"));
    std::fs::write(&path, text.replacen("  shell: false\n", &format!("  shell: false\n{line}\n"), 1)).unwrap();
}

#[test]
fn the_summarize_reflex_never_reaches_loopback_or_metadata_for_a_stranger() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let (base, seen) = server("200 OK", String::new(), "<p>internal admin page</p>");
    let port = base.rsplit(':').next().unwrap();
    for url in [
        format!("{base}/admin"),
        format!("http://localhost:{port}/admin"),
        format!("http://[::1]:{port}/admin"),
        format!("http://2130706433:{port}/admin"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
    ] {
        let v = reflex_test(&hub, &format!("summarize {url}"), None, false);
        assert_eq!(v["reflex"], "summarize-url");
        assert_eq!(v["escalate"], true, "{url}: {v}");
        let e = first_error(&v);
        assert!(e.contains("loopback, private, link-local or metadata"), "{url}: {e}");
    }
    assert!(seen.lock().unwrap().is_empty(), "the loopback server was reached");

    // The owner names the host: now the page is fetched (the demo's case).
    add_policy(&hub, &format!("  urls: [\"{base}/\"]"));
    // The local model's answer is scripted (the test is about the fetch).
    let v = reflex_test(&hub, &format!("summarize {base}/admin"), Some(&["An admin page."]), false);
    assert!(v["steps"][0]["output"].as_str().unwrap_or("").contains("internal admin page"), "{v}");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn allowlist_entries_are_not_string_prefixes() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let (base, seen) = server("200 OK", String::new(), "<p>evil</p>");
    let hostport = base.trim_start_matches("http://");
    add_policy(&hub, "  urls: [\"https://example.com\", \"http://example.com\"]");
    for url in [
        "https://example.com.evil/x".to_string(),
        format!("http://example.com@{hostport}/x"),
        "http://example.com:8080/x".to_string(),
    ] {
        let v = reflex_test(&hub, &format!("summarize {url}"), None, false);
        assert_eq!(v["escalate"], true, "{url}: {v}");
        let e = first_error(&v);
        assert!(e.contains("allowlist") || e.contains("credentials") || e.contains("not an http"), "{url}: {e}");
    }
    assert!(seen.lock().unwrap().is_empty());
}

#[test]
fn a_redirect_is_checked_again_and_the_token_stays_with_its_host() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    // B: a second loopback host that records what reaches it.
    let (b, b_seen) = server("200 OK", String::new(), "{\"ok\": true}");
    // A: the allowlisted page, redirecting to B.
    let (a, a_seen) = server("302 Found", format!("Location: {b}/stolen\r\n"), "");
    add_policy(&hub, &format!("  urls: [\"{a}/\"]"));
    let v = reflex_test(&hub, &format!("summarize {a}/page"), None, false);
    assert!(first_error(&v).contains("allowlist") || first_error(&v).contains("loopback"), "{v}");
    assert_eq!(a_seen.lock().unwrap().len(), 1);
    assert!(b_seen.lock().unwrap().is_empty(), "the redirect was followed to an unlisted host");

    // github_api: the owner lists both hosts; the API redirects to B; the token stays with A.
    let hub2 = init_hub(&dir.path().join("two"), "ada");
    add_policy(&hub2, &format!("  urls: [\"{a}/\", \"{b}/\"]"));
    let config = hub2.join("cn.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}reflexes:\n  github_api: {a}\n")).unwrap();
    std::fs::write(
        hub2.join("state/reflexes/pr.yaml"),
        "name: pr\nlevel: 1\ntrigger: {pattern: '^pr (\\d+)$', extract: [n]}\npipeline:\n  - action: github_api\n    input: /repos/o/r/pulls/{{n}}\n",
    )
    .unwrap();
    // The token is in the environment of the process running the engine.
    let v = reflex_test_in_child(&hub2, "pr 7", &[("GITHUB_TOKEN", "ghp_secret_token")]);
    assert_eq!(v["escalate"], false, "{v}");
    let a_heads = a_seen.lock().unwrap().clone();
    assert!(a_heads.last().unwrap().to_ascii_lowercase().contains("authorization: bearer ghp_secret_token"));
    let b_heads = b_seen.lock().unwrap().clone();
    assert_eq!(b_heads.len(), 1, "{b_heads:?}");
    assert!(!b_heads[0].contains("ghp_secret_token"), "the token crossed hosts: {}", b_heads[0]);
}
