//! Helpers for the control room's tests: `cn serve` as a child process (its first line of
//! output is the address with the owner token), and a plain HTTP/1.1 client over a TCP
//! stream, so a test sets exactly the headers a browser or an attacker would (Host, Origin,
//! Cookie) and sees every header of the answer.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::daemon_common::cn_cmd;

pub mod webdriver;

/// A running `cn serve`.
pub struct Serve {
    pub child: Child,
    /// The first line it printed: `http://ADDR/?token=TOKEN`.
    pub url: String,
    pub addr: SocketAddr,
    pub token: String,
}

impl Serve {
    pub fn start(hub: &Path, args: &[&str]) -> Serve {
        let mut child = cn_cmd(hub)
            .arg("serve")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cn serve starts");
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let url = first.trim().to_string();
        if url.is_empty() {
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            panic!("cn serve printed no address: {err}");
        }
        let rest = url.strip_prefix("http://").expect("an http address");
        let (addr, query) = rest.split_once("/?token=").expect("the address carries the token");
        Serve { addr: addr.parse().unwrap(), token: query.to_string(), url, child }
    }

    /// The cookie the page load sets, as a `Cookie` header value.
    pub fn cookie(&self) -> String {
        let r = http(self.addr, "GET", &format!("/?token={}", self.token), &[], "");
        assert_eq!(r.status, 303, "{r:?}");
        let set = r.header("set-cookie").expect("a cookie").to_string();
        set.split(';').next().unwrap().to_string()
    }

    pub fn host(&self) -> String {
        self.addr.to_string()
    }

    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// One request; `Host` is the address unless `headers` names one.
pub fn http(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|c| c.parse().ok()).unwrap_or(0);
    let headers =
        lines.filter_map(|l| l.split_once(':')).map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect();
    Answer { status, headers, body: body.to_string() }
}
