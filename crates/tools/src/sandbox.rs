//! The sandbox of a child cn runs for a hub or a loop's tree: cn-hub's layout says what is
//! protected there ([`cn_hub::protect`]), cn-process's [`Sandbox`] enforces it. The shell
//! action and a loop's components take their sandbox from here.

use std::path::Path;

use cn_hub::{protect, Layout};
use cn_process::sandbox::{kernel, Kernel, Sandbox};

/// The shell in the hub at `root`: it writes only outside what is cn's ([`protect::cns`]);
/// it reads neither `.git/` (the owner token lives there) nor secret files, in the hub or
/// the home directory's usual places for keys ([`protect::secrets`]). No network. Granted
/// piecewise, with or without namespaces: nothing new at the hub's top.
pub fn for_hub(root: &Path) -> Sandbox {
    let layout = Layout::new(root);
    let mut sandbox = Sandbox::writes_in_but(root, &protect::places(&layout), &|rel| protect::cns(&layout, rel));
    sandbox.unreadable = protect::secrets(root);
    sandbox
}

/// A loop's working tree at `root` ([`Sandbox::for_tree`]): it writes anywhere in it but its
/// git directory and its top-level secret files; it reads everything but the tokens of a hub
/// that holds the tree ([`protect::hub_tokens_above`]). No network.
pub fn for_tree(root: &Path) -> Sandbox {
    for_tree_on(root, kernel())
}

/// [`for_tree`] on a given kernel's layers.
pub fn for_tree_on(root: &Path, k: &Kernel) -> Sandbox {
    let layout = Layout::new(root);
    let mut sandbox = Sandbox::for_tree_on(root, &|rel| layout.read_protected(rel).is_some(), k);
    sandbox.unreadable = protect::hub_tokens_above(root);
    sandbox
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn rel(root: &Path, paths: &[PathBuf]) -> Vec<String> {
        let mut got: Vec<String> =
            paths.iter().map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string()).collect();
        got.sort();
        got
    }

    #[test]
    fn a_hub_is_granted_without_what_is_cns_and_a_tree_without_its_git() {
        let hub = tempfile::tempdir().unwrap();
        let h = hub.path();
        for d in [".git/hooks", "state/reflexes", "state/notes", "threads/inbox", "src/deep", "loops/x"] {
            std::fs::create_dir_all(h.join(d)).unwrap();
        }
        for f in ["cn.yaml", "notes.txt", "state/peers.json", "state/tasks.json", ".env", "src/deep/api-token.txt"] {
            std::fs::write(h.join(f), "x").unwrap();
        }
        std::os::unix::fs::symlink("/etc", h.join("etc")).unwrap();
        let s = for_hub(h);
        assert_eq!(rel(h, &s.writable), ["notes.txt", "src"]);
        assert!(s.read_only.is_empty() && s.overlay.is_none());
        let unreadable = rel(h, &s.unreadable);
        for p in [".git", ".env", "src/deep/api-token.txt"] {
            assert!(unreadable.contains(&p.to_string()), "{unreadable:?}");
        }

        let without = Kernel { landlock: 4, namespaces: false, scope: false, without: Vec::new() };
        let tree = for_tree_on(h, &without);
        assert_eq!(rel(h, &tree.writable), ["cn.yaml", "loops", "notes.txt", "src", "state", "threads"]);
        assert!(tree.read_only.is_empty());
        let with = Kernel { namespaces: true, ..without };
        let tree = for_tree_on(h, &with);
        assert_eq!(tree.writable, [h.to_path_buf()]);
        assert_eq!(rel(h, &tree.read_only), [".env", ".git"]);
    }
}
