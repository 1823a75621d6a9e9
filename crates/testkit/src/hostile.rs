//! Strategies for the parsers' hostile-input properties: arbitrary text biased toward the
//! syntax the parsers care about (frontmatter, fenced YAML, SSE lines, iCalendar, cron), raw
//! bytes, and JSON shaped like the webhooks cn reads. Each crate's `tests/it/hostile.rs`
//! feeds them to its parsers; none may panic (release builds abort on panic, so a panic is a
//! dead daemon). The quick companion of the libFuzzer targets under `fuzz/`.

use proptest::prelude::*;

/// As many cases as every crate's hostile properties run.
pub fn config() -> ProptestConfig {
    ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() }
}

/// Arbitrary text biased toward the syntax the parsers care about.
pub fn texty() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "---\n",
        "```yaml\n",
        "```\n",
        "tool: reply\n",
        "message: ",
        "id: ",
        "to: ",
        ": ",
        "- ",
        "\n",
        "  ",
        "{",
        "}",
        "[",
        "]",
        "\"",
        "'",
        "é",
        "✓",
        "\u{0}",
        "\r\n",
        "data: ",
        "[DONE]",
        "BEGIN:VEVENT\r\n",
        "END:VEVENT\r\n",
        "DTSTART:",
        "20260107T100000Z",
        "*/",
        "5",
        "*",
        " ",
        ",",
        "-",
        "blob ",
        "missing\n",
        "&",
        "=",
        "%",
        "+",
    ]);
    prop::collection::vec(prop_oneof![atoms.prop_map(str::to_string), any::<String>()], 0..40).prop_map(|v| v.concat())
}

/// Raw bytes, or [`texty`] text as bytes.
pub fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![prop::collection::vec(any::<u8>(), 0..512), texty().prop_map(String::into_bytes)]
}

/// JSON values with the keys of GitHub's webhook payloads, nested a few levels.
pub fn arb_json() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_map(serde_json::Value::from),
        texty().prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        let keys = prop::sample::select(vec![
            "repository",
            "full_name",
            "sender",
            "login",
            "issue",
            "number",
            "title",
            "comment",
            "body",
            "action",
            "pull_request",
            "ref",
            "commits",
            "head_commit",
            "message",
            "zen",
        ]);
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::btree_map(keys, inner, 0..5)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
        ]
    })
}
