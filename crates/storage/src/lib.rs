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
pub mod rfc3339;
pub mod stamp;

pub use atomic::{read_json_or_default, sync_files, write_atomic, write_atomic_unsynced, write_json_atomic};
pub use frontmatter::{Doc, FrontmatterError};
pub use journal::{Entry, Interaction, Journal, JournalRead, JournalStore, Moved, Rotation, Skipped, Typed};
pub use lock::{HubLock, ProcessLock};
pub use rfc3339::{now_rfc3339, parse_rfc3339, rfc3339, rfc3339_after, rfc3339_in, rfc3339_unix};
pub use stamp::Stamp;
