//! Origin's carry (`refs/cn/attention`), which a clone taking over a leased hub reads: any
//! bytes read without panicking, and what is kept reads back as the same items.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (kept, ids) = cn_autonomy::attention::spool::read_carry(data);
    let (again, ids_again) = cn_autonomy::attention::spool::read_carry(&kept);
    assert_eq!(ids, ids_again);
    assert_eq!(kept, again);
});
