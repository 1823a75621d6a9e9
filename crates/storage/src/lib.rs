//! storage — history. The journal (`journal.jsonl`, append-only), state files written
//! atomically, markdown documents with YAML frontmatter, and the hub's lock.
//!
//! Invariants: a state file is either its old or its new content, never a mix (temp file,
//! fsync, rename, fsync of the directory). The journal is only ever appended to, one whole
//! JSON object per `write`; a crash can leave at most a partial last line, which readers skip
//! and report.

pub mod atomic;
pub mod beneath;
pub mod frontmatter;
pub mod journal;
pub mod lock;
pub mod stamp;

pub use atomic::{read_json_or_default, sync_files, write_atomic, write_atomic_unsynced, write_json_atomic};
pub use frontmatter::{Doc, FrontmatterError};
pub use journal::{Entry, Journal, JournalRead, JournalStore, Rotation, Skipped};
pub use lock::{HubLock, ProcessLock};
pub use stamp::Stamp;

/// Now, as an RFC 3339 UTC timestamp with second precision (the journal's `ts`).
pub fn now_rfc3339() -> String {
    rfc3339(time::OffsetDateTime::now_utc())
}

/// `d` from now, as [`now_rfc3339`] writes it (a far `d` saturates at the largest time).
pub fn rfc3339_after(d: std::time::Duration) -> String {
    let now = time::OffsetDateTime::now_utc();
    let later = time::Duration::try_from(d).ok().and_then(|d| now.checked_add(d));
    rfc3339(later.unwrap_or(time::PrimitiveDateTime::MAX.assume_utc()))
}

pub fn rfc3339(t: time::OffsetDateTime) -> String {
    let t = t.replace_nanosecond(0).unwrap_or(t);
    t.format(&time::format_description::well_known::Rfc3339).unwrap_or_else(|_| t.unix_timestamp().to_string())
}
