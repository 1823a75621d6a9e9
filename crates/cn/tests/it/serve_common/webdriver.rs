//! A small WebDriver client (the W3C protocol over HTTP with JSON) driving Debian's headless
//! Chromium through `chromedriver`: enough to open a page, find elements, click, type, read
//! text and attributes, run a script and take a screenshot.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::daemon_common::wait_until;

/// The key a WebDriver element reference is under.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Where Debian puts the driver and the browser.
fn find(candidates: &[&str]) -> Option<String> {
    candidates.iter().find(|p| Path::new(p).exists()).map(|p| p.to_string())
}

/// chromedriver and one headless Chromium session; both end when dropped.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    agent: ureq::Agent,
}

impl Browser {
    pub fn start() -> Browser {
        let driver = find(&["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"])
            .expect("chromedriver is not installed: run scripts/deps.sh (Debian: chromium chromium-driver)");
        let chromium = find(&["/usr/bin/chromium", "/usr/lib/chromium/chromium"]).expect("chromium is not installed");
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        let base = format!("http://127.0.0.1:{port}");
        let mut b = Browser { driver: child, base, session: String::new(), agent };
        wait_until(Duration::from_secs(30), "chromedriver to be ready", || {
            let mut r = b.agent.get(format!("{}/status", b.base)).call().ok()?;
            let v: Value = serde_json::from_str(&r.body_mut().read_to_string().ok()?).ok()?;
            (v["value"]["ready"] == true).then_some(())
        });
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,900", "--no-first-run", "--disable-extensions"
            ]}
        }}});
        let v = b.call("POST", "/session", Some(caps));
        b.session = v["sessionId"].as_str().expect("a session id").to_string();
        b
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.try_call(method, path, body).unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"))
    }

    /// The answer's `value`, or the error WebDriver gave (e.g. a stale element).
    fn try_call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, Value> {
        let url = format!("{}{}", self.base, path);
        let mut resp = match body {
            Some(b) => self.agent.post(&url).header("content-type", "application/json").send(b.to_string()),
            None if method == "DELETE" => self.agent.delete(&url).call(),
            None => self.agent.get(&url).call(),
        }
        .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        let status = resp.status().as_u16();
        let v: Value = serde_json::from_str(&resp.body_mut().read_to_string().unwrap_or_default()).unwrap_or_default();
        if status < 300 {
            Ok(v["value"].clone())
        } else {
            Err(v["value"].clone())
        }
    }

    fn session(&self, rest: &str) -> String {
        format!("/session/{}{rest}", self.session)
    }

    pub fn goto(&self, url: &str) {
        self.call("POST", &self.session("/url"), Some(json!({"url": url})));
    }

    pub fn url(&self) -> String {
        self.call("GET", &self.session("/url"), None).as_str().unwrap_or("").to_string()
    }

    /// The elements matching a CSS selector now.
    pub fn all(&self, css: &str) -> Vec<String> {
        let v = self.call("POST", &self.session("/elements"), Some(json!({"using": "css selector", "value": css})));
        v.as_array()
            .map(|a| a.iter().filter_map(|e| e[ELEMENT].as_str().map(str::to_string)).collect())
            .unwrap_or_default()
    }

    /// Wait (with a deadline) for an element matching `css`.
    pub fn wait(&self, css: &str) -> String {
        wait_until(Duration::from_secs(60), &format!("an element `{css}`"), || self.all(css).into_iter().next())
    }

    pub fn type_in(&self, el: &str, text: &str) {
        self.call("POST", &self.session(&format!("/element/{el}/value")), Some(json!({"text": text})));
    }

    /// Click the first element matching `css`, waiting for it; a view that re-renders under
    /// the click (a stale element) is clicked again.
    pub fn click(&self, css: &str) {
        wait_until(Duration::from_secs(60), &format!("to click `{css}`"), || {
            let el = self.all(css).into_iter().next()?;
            self.try_call("POST", &self.session(&format!("/element/{el}/click")), Some(json!({}))).ok()
        });
    }

    /// Run `script` in the page with `args` (WebDriver's script runs outside the page's CSP).
    pub fn eval(&self, script: &str, args: Value) -> Value {
        self.call("POST", &self.session("/execute/sync"), Some(json!({"script": script, "args": args})))
    }

    /// The rendered text of every element matching `css`, read at one instant.
    pub fn texts(&self, css: &str) -> Vec<String> {
        let v = self.eval("return [...document.querySelectorAll(arguments[0])].map(e => e.innerText)", json!([css]));
        serde_json::from_value(v).unwrap_or_default()
    }

    /// Attribute `name` of every element matching `css`, read at one instant.
    pub fn attrs(&self, css: &str, name: &str) -> Vec<String> {
        let v = self.eval(
            "return [...document.querySelectorAll(arguments[0])].map(e => e.getAttribute(arguments[1]) || '')",
            json!([css, name]),
        );
        serde_json::from_value(v).unwrap_or_default()
    }

    /// Wait (with a deadline) until the first element matching `css` has text `ok` accepts.
    pub fn wait_text(&self, css: &str, ok: impl Fn(&str) -> bool) -> String {
        wait_until(Duration::from_secs(60), &format!("the text of `{css}`"), || {
            self.texts(css).into_iter().next().filter(|t| ok(t))
        })
    }

    /// A PNG of the window.
    pub fn screenshot(&self) -> Vec<u8> {
        let v = self.call("GET", &self.session("/screenshot"), None);
        base64(v.as_str().unwrap_or(""))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.agent.delete(format!("{}/session/{}", self.base, self.session)).call();
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// Standard base64 (what WebDriver sends screenshots in).
fn base64(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for v in s.bytes().filter_map(val) {
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
