//! Test support, public so the binary's end-to-end tests and the benchmarks share it: a
//! one-page HTTP server on 127.0.0.1 that counts its requests.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Serve `body` as `text/html` to every request on an ephemeral loopback port, from a
/// background thread that lives as long as the process. Returns the base URL
/// (`http://127.0.0.1:PORT`) and the number of requests served so far.
pub fn serve_html(body: String) -> std::io::Result<(String, Arc<AtomicUsize>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}", listener.local_addr()?);
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let Ok(read) = stream.try_clone() else { continue };
            // Read the request head up to its blank line; the body of a GET is empty.
            let mut reader = BufReader::new(read);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            counter.fetch_add(1, Ordering::SeqCst);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    Ok((url, hits))
}

/// The page the `summarize-url` tests serve (markup and a style the fetch must strip).
pub const OTTERS_PAGE: &str =
    "<!doctype html><html><head><title>Sea otters</title><style>body{margin:0}</style></head>\
    <body><h1>Sea otters</h1><p>Sea otters hold hands while they sleep so they do not drift apart.</p>\
    <p>They use rocks as tools to open shellfish.</p></body></html>";

/// What a scripted level-2 model answers for [`OTTERS_PAGE`].
pub const OTTERS_SUMMARY: &str = "Sea otters hold hands while sleeping and use rocks as tools.";

/// Make `dir` a minimal hub holding the document's `summarize-url` reflex, verbatim.
pub fn summarize_hub(dir: &std::path::Path) -> std::io::Result<()> {
    std::fs::write(dir.join("cn.yaml"), "# a minimal hub\nreflexes:\n  min_samples: 10\n")?;
    std::fs::create_dir_all(dir.join("state/reflexes"))?;
    std::fs::write(dir.join("state/reflexes/summarize-url.yaml"), crate::examples::SUMMARIZE_URL)
}

/// Let the hub's fetches reach the loopback server at `base`: the owner names its host in
/// cn.yaml (loopback is refused otherwise).
pub fn allow_urls(hub: &std::path::Path, base: &str) -> std::io::Result<()> {
    let path = hub.join("cn.yaml");
    let text = std::fs::read_to_string(&path)?;
    std::fs::write(&path, format!("{text}policy:\n  urls: [\"{base}/\"]\n"))
}

/// [`serve_html`] of [`OTTERS_PAGE`].
pub fn serve_otters() -> std::io::Result<(String, Arc<AtomicUsize>)> {
    serve_html(OTTERS_PAGE.to_string())
}

/// Every entry of the hub's journal file (`state/journal.jsonl`; none when it is missing).
pub fn journal(hub: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(hub.join("state/journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}
