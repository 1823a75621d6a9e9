//! git's protocol v2 as cn reads it from a `git://` server (`cn_git::v2`): the
//! capability advertisement, a listing and a fetch's answer, from any bytes, without a panic
//! and within their bounds.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use cn_git::v2::{read_advertisement, read_pack, read_refs};
    let _ = read_advertisement(&mut &data[..]);
    if let Ok(refs) = read_refs(&mut &data[..], 4096) {
        assert!(refs.iter().all(|(id, _)| id.len() == 40));
    }
    let mut out = Vec::new();
    if let Ok(n) = read_pack(&mut &data[..], &mut out, 1024) {
        assert!(n <= 1024 && n as usize == out.len());
    }
});
