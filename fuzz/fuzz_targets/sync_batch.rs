//! `git cat-file --batch` output from a peer's repository, split by git's byte counts. The
//! first byte is how many objects were asked for (0–7); the rest is git's output.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&n, out)) = data.split_first() else { return };
    let _ = cn_agent::sync::parse_batch(out, usize::from(n % 8));
});
