//! Every parser of outside input, fed arbitrary bytes and arbitrary mutations of valid
//! input: none may panic (release builds abort on panic, so a panic is a dead daemon). What
//! each returns is not checked here — only that it returns. The quick companion of the
//! libFuzzer targets under `fuzz/` (scripts/fuzz.sh), run by every `cargo test`.

use std::io::Cursor;

use proptest::prelude::*;

/// Arbitrary text biased toward the syntax the parsers care about.
fn texty() -> impl Strategy<Value = String> {
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

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![prop::collection::vec(any::<u8>(), 0..512), texty().prop_map(String::into_bytes)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn model_answers(s in texty()) {
        let _ = cn_compute::parse(&s);
    }

    #[test]
    fn cn_out_arguments(args in prop::collection::vec(texty(), 0..8)) {
        let _ = cn_agent::parse_out(&args);
    }

    #[test]
    fn frontmatter_and_mail(s in texty()) {
        let _ = cn_storage::Doc::parse(&s);
        let _ = cn_agent::Mail::parse(&s);
    }

    #[test]
    fn sync_batch_reader(b in bytes(), n in 0usize..5) {
        let _ = cn_agent::sync::parse_batch(&b, n);
        let _ = cn_agent::envelope::Envelope::from_commit(&b);
    }

    #[test]
    fn task_md(s in texty()) {
        let _ = cn_loops::Task::parse(&s, &cn_loops::Defaults::default());
        let _ = cn_loops::parse_answer(&s);
    }

    #[test]
    fn cron_expressions(s in texty()) {
        if let Ok(c) = s.parse::<cn_autonomy::cron::Cron>() {
            let tz = jiff::tz::TimeZone::UTC;
            let _ = c.next_n(jiff::Timestamp::UNIX_EPOCH, &tz, 3);
        }
        let _ = cn_autonomy::cron::time_zone(&s);
    }

    #[test]
    fn webhook_payloads(b in bytes(), event in texty(), form in any::<bool>()) {
        let ct = if form { "application/x-www-form-urlencoded" } else { "application/json" };
        if let Ok(v) = cn_autonomy::senses::github::webhook_payload(Some(ct), &b) {
            let _ = cn_autonomy::senses::github::percept_for(&event, &v, &[]);
        }
    }

    #[test]
    fn webhook_payload_shapes(v in arb_json(), event in prop::sample::select(vec!["issues", "issue_comment", "pull_request", "push", "ping", "x"])) {
        let _ = cn_autonomy::senses::github::percept_for(event, &v, &["o".to_string()]);
    }

    #[test]
    fn icalendar(s in texty()) {
        let _ = cn_autonomy::senses::calendar::events(&s);
    }

    #[test]
    fn model_stream_lines(b in bytes()) {
        let _ = cn_models::provider::anthropic::read_stream(Cursor::new(b.clone()));
        let _ = cn_models::provider::openai::read_stream(Cursor::new(b.clone()));
        let _ = cn_models::provider::ollama::read_stream(Cursor::new(b));
    }
}

fn arb_json() -> impl Strategy<Value = serde_json::Value> {
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
