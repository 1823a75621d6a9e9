//! cn's writes stay in the hub: a folder of the hub swapped for a symbolic link (by a
//! command run with `policy.sandbox: false`, say) must not carry cn's next write — an item
//! archived, a state file saved — out of it. A process registers the hubs it opens
//! ([`hold`]); every write and move through this crate into a registered hub first checks
//! that no folder between the hub's root and the file is a link, and refuses otherwise.
//!
//! The sandbox keeps commands out of `threads/` and `state/` in the first place, so this is
//! the second line: a check before each write, not a hold on the folders while writing.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

static ROOTS: RwLock<Vec<PathBuf>> = RwLock::new(Vec::new());

/// Keep this process's writes beneath `root` free of links (as given and canonical).
pub fn hold(root: &Path) {
    let mut forms = vec![root.to_path_buf()];
    if let Ok(c) = root.canonicalize() {
        forms.push(c);
    }
    if let Ok(mut roots) = ROOTS.write() {
        for f in forms {
            if !roots.contains(&f) {
                roots.push(f);
            }
        }
    }
}

/// Refuse when a folder between a held root and `path` (its parent included) is a link.
pub fn check(path: &Path) -> io::Result<()> {
    let Ok(roots) = ROOTS.read() else { return Ok(()) };
    let Some(root) = roots.iter().filter(|r| path.starts_with(r)).max_by_key(|r| r.as_os_str().len()) else {
        return Ok(());
    };
    let Ok(rel) = path.strip_prefix(root) else { return Ok(()) };
    let mut at = root.clone();
    let mut parts: Vec<_> = rel.components().collect();
    parts.pop();
    for part in parts {
        at.push(part);
        match at.symlink_metadata() {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "{} is a symbolic link: cn writes in the hub {} only through its own folders; replace the link with a folder",
                        at.display(),
                        root.display()
                    ),
                ))
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Move `from` to `to` (creating `to`'s folder), both checked.
pub fn rename(from: &Path, to: &Path) -> io::Result<()> {
    check(from)?;
    check(to)?;
    if let Some(dir) = to.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::rename(from, to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_on_the_way_is_refused_and_the_write_goes_nowhere() {
        let d = tempfile::tempdir().unwrap();
        let hub = d.path().join("hub");
        let outside = d.path().join("outside");
        std::fs::create_dir_all(hub.join("threads/inbox")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, hub.join("threads/archived")).unwrap();
        hold(&hub);
        std::fs::write(hub.join("threads/inbox/a.md"), "a").unwrap();
        let e = rename(&hub.join("threads/inbox/a.md"), &hub.join("threads/archived/a.md")).unwrap_err();
        assert!(e.to_string().contains("threads/archived is a symbolic link"), "{e}");
        let e = crate::write_atomic(&hub.join("threads/archived/b.md"), b"b").unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
        assert!(hub.join("threads/inbox/a.md").exists());
        // A new folder of the hub is made as a folder; outside any held hub nothing is checked.
        rename(&hub.join("threads/inbox/a.md"), &hub.join("threads/doing/a.md")).unwrap();
        crate::write_atomic(&outside.join("c.md"), b"c").unwrap();
    }
}
