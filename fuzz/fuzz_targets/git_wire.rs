//! What a `git://` server sends to a push and a small fetch cn speaks itself
//! (`cn_git::wire`): receive-pack's advertisement, its report, and a pack a commit is read
//! from — any bytes, without a panic and within their bounds; a commit read from a pack is
//! the one asked for.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use cn_git::wire::{commit_from_pack, object_id, read_receive_advertisement, read_report};
    if let Ok(ad) = read_receive_advertisement(&mut &data[..], 4096) {
        assert!(ad.refs.values().all(|id| id.len() == 40));
    }
    let _ = read_report(&mut &data[..]);
    let want = "0123456789abcdef0123456789abcdef01234567";
    assert_eq!(commit_from_pack(data, want, 4096), None);
    // A pack of the bytes as a commit gives them back.
    let pack = cn_git::wire::pack(&[("commit", data)]);
    let id = object_id("commit", data);
    assert_eq!(commit_from_pack(&pack, &id, data.len()).as_deref(), Some(data));
});
