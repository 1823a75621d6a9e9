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

/// Read grants for the whole file system but `unreadable` (absolute paths): `/` split
/// piecewise down to each of them. Devices, `/proc` and the like are granted whole.
pub(crate) fn readable_except(unreadable: &[PathBuf]) -> Vec<PathBuf> {
    let root = Path::new("/");
    let places: Vec<PathBuf> =
        unreadable.iter().filter_map(|p| p.strip_prefix(root).ok()).map(Path::to_path_buf).collect();
    grants(root, &places, &|rel| places.iter().any(|p| p == rel))
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
}
