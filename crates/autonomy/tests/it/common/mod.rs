//! Helpers shared by the senses' integration tests.

use std::time::{Duration, Instant};

use cn_autonomy::attention::Attention;

/// Wait (bounded) until the pool satisfies `cond`.
pub fn wait_until(attention: &Attention, what: &str, mut cond: impl FnMut(&Attention) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let seen = attention.generation();
        if cond(attention) {
            return;
        }
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "timed out waiting for {what}");
        attention.wait(seen, left);
    }
}

/// The hub in `dir`, with the cn.yaml it needs to open (senses take an open hub).
#[allow(dead_code)]
pub fn open_hub(dir: &std::path::Path) -> cn_hub::Hub {
    std::fs::write(dir.join("cn.yaml"), "name: t\n").unwrap();
    cn_hub::Hub::open(dir).unwrap()
}

/// One POST to the senses' server on loopback (no proxy, blocking): the status and the body.
#[allow(dead_code)]
pub fn post(url: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).proxy(None).build().into();
    let mut req = agent.post(url);
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let mut resp = req.send(body).unwrap();
    (resp.status().as_u16(), resp.body_mut().read_to_string().unwrap())
}
