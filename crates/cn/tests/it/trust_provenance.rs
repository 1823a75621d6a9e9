//! Policy by provenance (issue 15, points 1–3) through the binary's commands: a stranger's
//! request to summarize a page (`cn reflex test --source github`) is held for the owner's
//! approval, nothing fetched; `cn approve` runs it once, `cn deny` never; the owner's own
//! request fetches at once. The page is a real loopback HTTP server. What a stranger's item
//! may cause through a running daemon is cn-daemon's (crates/daemon/tests/it/provenance.rs).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use crate::hub_common::{cn_cmd, cn_ok};
use serde_json::Value;

pub(crate) fn approvals(hub: &std::path::Path) -> Vec<Value> {
    serde_json::from_str(&cn_ok(hub, &["approvals", "--all", "--json"])).unwrap()
}

/// A loopback page server counting the requests it answers.
fn page_server() -> (String, Arc<Mutex<usize>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(Mutex::new(0));
    let seen = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            *seen.lock().unwrap() += 1;
            let body = "<p>the quarterly numbers page</p>";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, hits)
}

#[test]
fn a_strangers_summarize_request_fetches_nothing_until_approved_and_a_denial_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let hub = dir.path().join("ada");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cn")).arg("init").arg(&hub).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (base, hits) = page_server();
    // The owner lets fetches reach this loopback host (as `cn demo` does).
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(
        hub.join("cn.yaml"),
        yaml.replacen("  shell: false\n", &format!("  shell: false\n  urls: [\"{base}/\"]\n"), 1),
    )
    .unwrap();
    let answers = dir.path().join("answers.json");
    std::fs::write(&answers, r#"["A page of quarterly numbers."]"#).unwrap();
    let test = |source: Option<&str>, url: &str| -> Value {
        let mut args = vec!["reflex", "test", "--json"];
        if let Some(s) = source {
            args.extend(["--source", s]);
        }
        let text = format!("summarize {url}");
        args.push(&text);
        let out = cn_cmd(&hub).args(&args).env("CN_SCRIPTED_ANSWERS", &answers).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };

    // A stranger: the fetch is held, the reflex hands the item up (it is not a failure of
    // the reflex, so a stranger cannot get it disabled), the server is never reached.
    let v = test(Some("github"), &format!("{base}/q3"));
    assert_eq!(v["reflex"], "summarize-url");
    assert_eq!(v["escalate"], true, "{v:#}");
    assert_eq!(*hits.lock().unwrap(), 0, "a stranger's request reached the page");
    let held = approvals(&hub);
    assert_eq!(held.len(), 1, "{held:#?}");
    assert_eq!((held[0]["tool"].as_str(), held[0]["from"].as_str()), (Some("fetch_url"), Some("github")));
    assert_eq!(held[0]["params"]["url"], format!("{base}/q3"));
    let listed = cn_ok(&hub, &["approvals"]);
    assert!(listed.contains("fetch_url") && listed.contains("from github") && listed.contains("/q3"), "{listed}");
    // Asked again, the same call is the same approval.
    test(Some("github"), &format!("{base}/q3"));
    assert_eq!(approvals(&hub).len(), 1);

    // The owner approves: it runs now, and the owner sees what it fetched.
    let id = held[0]["id"].as_str().unwrap();
    let out = cn_ok(&hub, &["approve", id]);
    assert!(out.contains("quarterly numbers page"), "{out}");
    assert_eq!(*hits.lock().unwrap(), 1);
    let again = cn_cmd(&hub).args(["approve", id]).output().unwrap();
    assert_eq!(again.status.code(), Some(2), "an approval runs once");
    assert_eq!(*hits.lock().unwrap(), 1);

    // Another stranger's fetch, denied: nothing runs.
    test(Some("discord"), &format!("{base}/q4"));
    let pending: Vec<Value> = approvals(&hub).into_iter().filter(|a| a["status"] == "pending").collect();
    assert_eq!(pending.len(), 1);
    let out = cn_ok(&hub, &["deny", pending[0]["id"].as_str().unwrap()]);
    assert!(out.contains("nothing runs"), "{out}");
    assert_eq!(*hits.lock().unwrap(), 1);

    // The owner's own request fetches at once.
    let v = test(None, &format!("{base}/q1"));
    assert_eq!(v["escalate"], false, "{v:#}");
    assert!(v["steps"][0]["output"].as_str().unwrap_or("").contains("quarterly numbers page"), "{v:#}");
    assert_eq!(*hits.lock().unwrap(), 2);
    let stats = cn_ok(&hub, &["reflex", "list"]);
    assert!(!stats.contains("disabled"), "held steps are no failures: {stats}");
}
