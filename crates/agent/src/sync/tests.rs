use super::*;

fn blob(b: &[u8]) -> Option<Object> {
    Some(Object { kind: "blob".into(), bytes: b.to_vec() })
}

#[test]
fn batch_output_splits_per_request() {
    let out = b"aaa blob 5\nhello\nbbb:x.md missing\nccc blob 0\n\n";
    assert_eq!(parse_batch(out, 3), vec![blob(b"hello"), None, blob(b"")]);
    assert_eq!(parse_batch(b"", 2), vec![None, None]);
    // Sizes are bytes: invalid UTF-8 does not shift the next entry.
    let out = b"aaa blob 2\n\xff\xfe\nbbb blob 3\n\xe2\x9c\x93\n";
    assert_eq!(parse_batch(out, 2), vec![blob(&[0xff, 0xfe]), blob("\u{2713}".as_bytes())]);
    let out = b"ccc commit 3\nabc\n";
    assert_eq!(parse_batch(out, 1), vec![Some(Object { kind: "commit".into(), bytes: b"abc".to_vec() })]);
}

#[test]
fn the_ref_layout_reads_both_generations_and_nothing_else() {
    let p = MailRef::parse;
    assert_eq!(p("refs/heads/cn-mail/b/m1"), Some(MailRef::Mail { peer: "b".into(), id: "m1".into() }));
    assert_eq!(p("refs/heads/cn-receipt/a/m1"), Some(MailRef::Receipt { peer: "a".into(), id: "m1".into() }));
    assert_eq!(p("refs/heads/b/m1"), Some(MailRef::Legacy { peer: "b".into(), id: "m1".into() }));
    for bad in [
        "refs/heads/main",
        "refs/heads/cn-mail/b",
        "refs/heads/b/m1/x",
        "refs/tags/b/m1",
        "refs/heads/b/..",
        "refs/heads/cn-mail/b/x/y",
    ] {
        assert_eq!(p(bad), None, "{bad}");
    }
    for r in [p("refs/heads/cn-mail/b/m1"), p("refs/heads/cn-receipt/a/m1"), p("refs/heads/b/m1")] {
        let r = r.unwrap();
        assert_eq!(p(&r.name()), Some(r));
    }
}
