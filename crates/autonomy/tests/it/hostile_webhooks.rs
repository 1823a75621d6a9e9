//! GitHub webhooks as GitHub really sends them, against the running senses on loopback:
//! form-encoded deliveries (`payload=…`, the default content type of a repository webhook)
//! are accepted, a redelivery (the same `X-GitHub-Delivery`) is dropped, `ping` is answered.
#![cfg(feature = "senses")]

use cn_autonomy::attention::{Attention, PoolConfig};
use cn_autonomy::config::AutonomyConfig;
use cn_autonomy::senses::github::sign;
use cn_autonomy::Senses;

use crate::common;
use common::wait_until;

const SECRET: &[u8] = b"hostile hook secret";

fn form(json: &[u8]) -> Vec<u8> {
    let encoded: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("payload", std::str::from_utf8(json).unwrap())
        .finish();
    encoded.into_bytes()
}

#[test]
fn form_encoded_deliveries_redeliveries_and_ping() {
    std::env::set_var("CN_TEST_HOOK_SECRET_H", std::str::from_utf8(SECRET).unwrap());
    let hub = tempfile::tempdir().unwrap();
    let config = AutonomyConfig::from_yaml(
        "senses:\n  bind: 127.0.0.1:0\n  owner: {enabled: false}\n  github: {secret_env: CN_TEST_HOOK_SECRET_H}\n",
    )
    .unwrap();
    let attention = Attention::new(PoolConfig::default());
    let senses = Senses::start(&common::open_hub(hub.path()), &config.senses, attention.clone()).unwrap();
    let url = format!("http://{}/github/webhook", senses.local_addr().unwrap());
    let post = |event: &str, delivery: &str, content_type: &str, body: Vec<u8>| {
        let sig = sign(SECRET, &body);
        let headers = [
            ("X-GitHub-Event", event),
            ("X-GitHub-Delivery", delivery),
            ("Content-Type", content_type),
            ("X-Hub-Signature-256", sig.as_str()),
        ];
        common::post(&url, &headers, &body)
    };
    let issue = std::fs::read(format!("{}/tests/fixtures/github/issues.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let form_type = "application/x-www-form-urlencoded";
    let (status, text) = post("issues", "d-1", form_type, form(&issue));
    assert_eq!(status, 202, "{text}");
    // GitHub's "Redeliver" sends the same delivery id again: dropped, answered 200.
    let (status, text) = post("issues", "d-1", form_type, form(&issue));
    assert_eq!(status, 200);
    let body: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["duplicate"], "d-1");
    // So is a redelivery in the other content type.
    assert_eq!(post("issues", "d-1", "application/json", issue.clone()).0, 200);
    // A form without `payload` is a clear 400.
    let (status, text) = post("issues", "d-2", form_type, b"hello=1".to_vec());
    assert_eq!(status, 400);
    assert!(text.contains("payload"));
    // ping is answered, in either content type, and admits nothing.
    let ping = br#"{"zen":"Design for failure.","hook_id":1}"#;
    let (status, text) = post("ping", "d-3", form_type, form(ping));
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap()["pong"], "Design for failure.");
    wait_until(&attention, "one percept", |a| a.len() == 1);
    assert_eq!(
        attention.with_pool(|p| p.iter().map(|x| x.merged_count).collect::<Vec<_>>()),
        vec![0],
        "the redeliveries were not even coalesced: dropped"
    );
    senses.stop();
}
