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
