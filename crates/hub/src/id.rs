//! Ids: the one generator for everything a hub names (items, mail, turns, tasks, ideas,
//! percepts, journal chains). An id is 12 lowercase hex digits, optionally after a
//! `prefix-` that says what it names (`task-3fa9c2e01b7d`).
//!
//! Invariants: [`new`] and [`prefixed`] are unique enough for one hub (time, process and a
//! counter, hashed with a per-process random key, so two processes started in the same
//! nanosecond still differ); [`stable`] is a pure function of its seed, stable across builds
//! and platforms, so an effect repeated after a crash names the same file and the same mail.
//! Readers never parse an id: any string already on disk stays valid.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The width of an id's hex part.
pub const HEX_DIGITS: usize = 12;

/// A fresh id: 12 hex digits.
pub fn new() -> String {
    format!("{:012x}", fresh())
}

/// A fresh id naming a kind of thing: `prefix-` and 12 hex digits.
pub fn prefixed(prefix: &str) -> String {
    format!("{prefix}-{:012x}", fresh())
}

/// A 12-hex-digit id derived from `seed` (FNV-1a).
pub fn stable(seed: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in seed.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:012x}", h & 0xffff_ffff_ffff)
}

/// A 12-hex-digit id derived from `seed` and a secret `key` (SHA-256 of both): stable for
/// one hub, unguessable without its key (`owner_token::id_key`). For ids a peer could
/// otherwise compute and pre-file (a schedule firing's item).
pub fn keyed(key: &str, seed: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::new().chain_update(key.as_bytes()).chain_update([0u8]).chain_update(seed).finalize();
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// The id of the percept for a channel's delivery `seed` (see
/// `cn_autonomy::Attention::delivery_id`): `p-` and the seed keyed with the hub's id key.
pub fn delivery(key: &str, seed: &str) -> String {
    format!("p-{}", keyed(key, &format!("delivery\0{seed}")))
}

/// The SHA-256 of `bytes` as 64 lowercase hex digits: a mail's content digest in its
/// envelope, checked by the receiver.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn fresh() -> u64 {
    static N: AtomicU64 = AtomicU64::new(0);
    static KEY: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
    let mut h = KEY.get_or_init(Default::default).build_hasher();
    h.write_u64(N.fetch_add(1, Ordering::Relaxed));
    h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos()));
    h.write_u32(std::process::id());
    h.finish() & 0xffff_ffff_ffff
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn is_hex12(s: &str) -> bool {
        s.len() == HEX_DIGITS && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    }

    #[test]
    fn keyed_ids_depend_on_the_key() {
        assert_eq!(keyed("k", "schedule-daily-1"), keyed("k", "schedule-daily-1"));
        assert_ne!(keyed("k", "schedule-daily-1"), keyed("j", "schedule-daily-1"));
        assert!(is_hex12(&keyed("k", "x")));
    }

    #[test]
    fn formats() {
        assert!(is_hex12(&new()));
        let t = prefixed("task");
        let (p, hex) = t.split_once('-').unwrap();
        assert_eq!(p, "task");
        assert!(is_hex12(hex), "{t}");
        // Fixed values: ids written by earlier builds must be recomputed identically.
        assert_eq!(stable(""), "9ce484222325");
        assert_eq!(stable("a"), "dc4c8601ec8c");
        assert_eq!(stable("abc"), stable("abc"));
        assert_ne!(stable("abc"), stable("abd"));
        assert!(is_hex12(&stable("x")));
    }

    #[test]
    fn unique_across_many_and_across_threads() {
        let mut seen = HashSet::new();
        for _ in 0..10_000 {
            assert!(seen.insert(new()));
        }
        let handles: Vec<_> =
            (0..4).map(|_| std::thread::spawn(|| (0..2_000).map(|_| prefixed("p")).collect::<Vec<_>>())).collect();
        for h in handles {
            for id in h.join().unwrap() {
                assert!(seen.insert(id));
            }
        }
    }
}
