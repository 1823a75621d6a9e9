//! A plain HTTP/1.1 client over a TCP stream, so a test sets exactly the headers a browser or
//! an attacker would (Host, Origin, Cookie) and sees every header of the answer.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

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

/// A control room's address as the owner opens it, `http://ADDR/?token=TOKEN`.
#[derive(Debug, Clone)]
pub struct Room {
    pub url: String,
    pub addr: SocketAddr,
    pub token: String,
}

impl Room {
    pub fn of_url(url: &str) -> Room {
        let rest = url.strip_prefix("http://").expect("an http address");
        let (addr, query) = rest.split_once("/?token=").expect("the address carries the token");
        Room { addr: addr.parse().unwrap(), token: query.to_string(), url: url.to_string() }
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
