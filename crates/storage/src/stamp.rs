//! What identifies one version of a file or directory without reading it: device, inode,
//! size, modification and change times. A daemon that checks the same files every minute
//! stats them and reads only what changed — one `statx` instead of an open, a read and a
//! parse (and, for a watched directory, no `IN_OPEN` event waking the watcher).
//!
//! Invariant (git's "racily clean" rule): a stamp taken while the file's times are recent —
//! within [`RACY`] of the clock — is not trusted, since a second write within the
//! filesystem's timestamp granularity could leave size and times unchanged. Such a file is
//! read again at the next check, until its times are old enough to vouch for its content.

use std::io;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// How recent a file's times may be for its stamp still to be trusted.
pub const RACY: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    modified: Option<SystemTime>,
    changed_ns: i128,
    /// Taken while the times were recent (see the module's invariant).
    racy: bool,
}

impl Stamp {
    /// The stamp of `path` as it is now; `None` when nothing is there.
    pub fn of(path: &Path) -> io::Result<Option<Stamp>> {
        let meta = match std::fs::metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let modified = meta.modified().ok();
        #[cfg(unix)]
        let (dev, ino, changed_ns) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino(), i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()))
        };
        #[cfg(not(unix))]
        let (dev, ino, changed_ns) = (0, 0, 0);
        let now = SystemTime::now();
        let recent = |t: SystemTime| now.duration_since(t).map_or(true, |age| age < RACY);
        #[cfg(unix)]
        let changed_recently = {
            let now_ns = now.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128);
            now_ns - changed_ns < RACY.as_nanos() as i128
        };
        #[cfg(not(unix))]
        let changed_recently = false;
        let racy = modified.is_none_or(recent) || changed_recently;
        Ok(Some(Stamp { dev, ino, len: meta.len(), modified, changed_ns, racy }))
    }

    /// Whether a value read along with `earlier` is still what the file holds, given that
    /// `now` is the file's stamp at this moment: same file, same size and times, and
    /// `earlier` was not racy.
    pub fn vouches(earlier: Option<&Option<Stamp>>, now: &Option<Stamp>) -> bool {
        match (earlier, now) {
            (Some(None), None) => true,
            (Some(Some(a)), Some(b)) => !a.racy && a.same_version(b),
            _ => false,
        }
    }

    fn same_version(&self, other: &Stamp) -> bool {
        (self.dev, self.ino, self.len, self.modified, self.changed_ns)
            == (other.dev, other.ino, other.len, other.modified, other.changed_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_write_is_not_trusted_and_a_replaced_file_is_a_new_version() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tasks.json");
        let missing = Stamp::of(&p).unwrap();
        assert_eq!(missing, None);
        assert!(Stamp::vouches(Some(&missing), &Stamp::of(&p).unwrap()), "still missing");
        std::fs::write(&p, "[]").unwrap();
        let fresh = Stamp::of(&p).unwrap();
        assert!(!Stamp::vouches(Some(&missing), &fresh), "created");
        assert!(!Stamp::vouches(Some(&fresh), &Stamp::of(&p).unwrap()), "just written: racy, read again");
        assert!(!Stamp::vouches(None, &fresh), "never read");

        // Old enough: the same version is vouched for; a same-size replacement is not.
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::options().write(true).open(&p).unwrap().set_modified(old).unwrap();
        // (set_modified moved ctime to now, so this stamp is racy too; take it as settled.)
        let mut trusted = Stamp::of(&p).unwrap();
        if let Some(s) = trusted.as_mut() {
            s.racy = false;
        }
        assert!(Stamp::vouches(Some(&trusted), &Stamp::of(&p).unwrap()));
        let tmp = dir.path().join("tasks.json.tmp");
        std::fs::write(&tmp, "{}").unwrap();
        std::fs::rename(&tmp, &p).unwrap();
        assert!(!Stamp::vouches(Some(&trusted), &Stamp::of(&p).unwrap()), "replaced by rename: new inode");
    }
}
