//! Origin's lease and carry commits (`refs/cn/lease`, `refs/cn/attention`), which anyone who
//! may push to origin writes and every clone of a leased hub reads: any bytes read without
//! panicking; a record that reads renders and reads back the same; nothing is authentic
//! without the key, and a standby's verdict on it is reached without panicking.
#![no_main]
use std::time::Duration;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (record, authentic) = cn_lease::read_lease(&text, "the hub's id key");
    let carried = cn_lease::read_carry(&text, "the hub's id key");
    // A MAC is 64 hex digits over the message: bytes from the fuzzer do not forge one.
    assert!(!authentic && !carried.authentic);
    let seen = cn_lease::Seen {
        lease: Some(cn_lease::SeenLease { sha: "0".repeat(40), record: record.clone(), authentic }),
        head: None,
    };
    let me = cn_lease::Me { clone_id: "c".into(), label: "me".into(), key: "k".into() };
    let mut watch = cn_lease::Watch::default();
    for _ in 0..2 {
        let _ = watch.verdict(&seen, &me, Duration::from_secs(10), None);
    }
    if let Some(r) = record {
        let again = cn_lease::LeaseRecord::parse(&format!("x\n\n{}", r.render()));
        assert_eq!(again.as_ref().map(|a| (&a.holder, a.term, a.ttl, a.released)), Some((&r.holder, r.term, r.ttl, r.released)));
    }
});
