//! Piecewise grants. Landlock only allows: a rule grants rights beneath a directory and can
//! never take them away below it. So a directory that holds something protected is never
//! granted itself; each of its entries is granted instead (a directory without anything
//! protected beneath it whole, a file in place), and the directories on the way to a
//! protected path are split the same way. Symbolic links are never granted: their target
//! could be anywhere, and Landlock checks the path a link resolves to anyway.

use std::path::{Path, PathBuf};

/// The paths to grant beneath `root`. `places` are the protected paths (relative to
/// `root`) whose ancestors must not be granted whole; `protected` says whether a path
/// (relative) is itself protected, and is left out.
pub(crate) fn grants(root: &Path, places: &[PathBuf], protected: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(root, Path::new(""), places, protected, &mut out);
    out
}

fn walk(root: &Path, rel: &Path, places: &[PathBuf], protected: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else { return };
    for entry in entries.flatten() {
        let r = rel.join(entry.file_name());
        if protected(&r) {
            continue;
        }
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() && places.iter().any(|p| p.starts_with(&r) && *p != r) {
            walk(root, &r, places, protected, out);
        } else if kind.is_dir() || kind.is_file() {
            out.push(root.join(&r));
        }
    }
}

/// Read grants for the whole file system but `unreadable` (absolute paths) and every other
/// path a mount shows them under ([`aliases`]): `/` split piecewise down to each of them.
/// Devices, `/proc` and the like are granted whole.
pub(crate) fn readable_except(unreadable: &[PathBuf]) -> Vec<PathBuf> {
    let root = Path::new("/");
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let places: Vec<PathBuf> = aliases(unreadable, &mountinfo)
        .iter()
        .filter_map(|p| p.strip_prefix(root).ok())
        .map(Path::to_path_buf)
        .collect();
    grants(root, &places, &|rel| places.iter().any(|p| p == rel))
}

/// `paths`, and each other path a mount in `mountinfo` (`/proc/self/mountinfo`'s text) shows
/// the same file under: a bind mount of a folder above one (a container's volume, a second
/// home) is another way to it, and Landlock grants by the way a file is reached (issue 42's
/// own red team: a loop read the hub's token through a bind mount of the hub).
pub(crate) fn aliases(paths: &[PathBuf], mountinfo: &str) -> Vec<PathBuf> {
    // (device, root within its file system, mount point) of each mount, in mount order.
    let mounts: Vec<(&str, PathBuf, PathBuf)> = mountinfo
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            Some((*f.get(2)?, PathBuf::from(unescape(f.get(3)?)), PathBuf::from(unescape(f.get(4)?))))
        })
        .collect();
    let mut out: Vec<PathBuf> = paths.to_vec();
    for path in paths {
        let path = path.canonicalize().unwrap_or_else(|_| path.clone());
        if !out.contains(&path) {
            out.push(path.clone());
        }
        // The mount the path lies in: the deepest mount point above it, the last mounted there.
        let Some((dev, root, point)) = mounts
            .iter()
            .filter(|(_, _, point)| path.starts_with(point))
            .max_by_key(|(_, _, point)| point.components().count())
        else {
            continue;
        };
        let Ok(rest) = path.strip_prefix(point) else { continue };
        let inner = root.join(rest);
        for (d, r, p) in &mounts {
            if d != dev || (r == root && p == point) {
                continue;
            }
            if let Ok(rest) = inner.strip_prefix(r) {
                let alias = p.join(rest);
                if !out.contains(&alias) {
                    out.push(alias);
                }
            }
        }
    }
    out
}

/// A mountinfo path with its octal escapes (`\040` for a space) undone.
fn unescape(field: &str) -> String {
    let b = field.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        // Three octal digits of a byte (`\377` at most).
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| b[i] == b'\\' && (b'0'..=b'3').contains(&d[0]) && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_way_to_what_is_protected_is_split() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for p in ["a/b/c", "a/x", "y"] {
            std::fs::create_dir_all(r.join(p)).unwrap();
        }
        std::fs::write(r.join("a/b/secret"), "s").unwrap();
        std::fs::write(r.join("a/b/open"), "o").unwrap();
        let places = [PathBuf::from("a/b/secret")];
        let mut got: Vec<String> = grants(r, &places, &|rel| rel == Path::new("a/b/secret"))
            .iter()
            .map(|p| p.strip_prefix(r).unwrap().display().to_string())
            .collect();
        got.sort();
        assert_eq!(got, ["a/b/c", "a/b/open", "a/x", "y"]);
        let read = readable_except(&[r.join("a/b/secret")]);
        assert!(read.contains(&r.join("a/x")) && read.contains(&r.join("a/b/open")), "{read:?}");
        assert!(!read.iter().any(|p| r.join("a/b/secret").starts_with(p)), "{read:?}");
        assert!(read.contains(&PathBuf::from("/usr")), "{read:?}");
    }

    #[test]
    fn a_bind_mount_of_a_folder_above_is_another_way_to_it() {
        let mountinfo = "22 1 254:0 / / rw - ext4 /dev/vda rw\n\
                         40 22 0:5 / /proc rw - proc proc rw\n\
                         63 22 254:0 /home/u /var/my\\040home rw - ext4 /dev/vda rw\n\
                         64 22 254:0 /home/u/hub/.git /mnt/g rw - ext4 /dev/vda rw\n\
                         65 22 254:0 /srv /srv2 rw - ext4 /dev/vda rw\n\
                         66 22 0:9 /home/u /other rw - tmpfs t rw\n";
        let secret = PathBuf::from("/home/u/hub/.git/cn-owner-token");
        let got = aliases(std::slice::from_ref(&secret), mountinfo);
        assert_eq!(
            got,
            [secret, PathBuf::from("/var/my home/hub/.git/cn-owner-token"), PathBuf::from("/mnt/g/cn-owner-token")]
        );
        // A path seen through a bind mount: the original too.
        let got = aliases(&[PathBuf::from("/var/my home/hub/.git")], mountinfo);
        assert!(got.contains(&PathBuf::from("/home/u/hub/.git")) && got.contains(&PathBuf::from("/mnt/g")), "{got:?}");
        // Nonsense is no mount.
        assert_eq!(aliases(&[PathBuf::from("/x")], "\n1\n1 2 3\n1 2 3 /y /a\\777\\"), [PathBuf::from("/x")]);
        assert_eq!(unescape("a\\040b\\777\\"), "a b\\777\\");
    }
}
