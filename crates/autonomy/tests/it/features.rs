//! The test facilities stay out of a shipping build.

use std::path::Path;

/// `CN_SCRIPTED_ANSWERS` swaps `cn reflex test`'s level-2 model for a script: only the binary
/// the tests build honours it (cn-autonomy's `testing` feature, turned on by dev-dependencies
/// alone), never the one `cargo build` ships.
#[test]
fn only_a_test_build_reads_scripted_answers() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut manifests = vec![root.join("Cargo.toml")];
    for e in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let m = e.path().join("Cargo.toml");
        if m.is_file() {
            manifests.push(m);
        }
    }
    let mut dev = 0;
    for m in &manifests {
        let text = std::fs::read_to_string(m).unwrap();
        let mut section = String::new();
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line.to_string();
            } else if line.contains("\"testing\"") && !line.starts_with('#') {
                assert_eq!(
                    section,
                    "[dev-dependencies]",
                    "{}: `{line}` puts the test facilities into a shipping build",
                    m.display()
                );
                dev += 1;
            }
        }
        if m.ends_with("autonomy/Cargo.toml") {
            let default = text.lines().find(|l| l.trim_start().starts_with("default")).unwrap_or("");
            assert!(!default.contains("testing"), "{default}");
        }
    }
    assert!(dev >= 1, "cn's tests need the feature: {manifests:?}");
    // And the binary under test honours it (the reflex tests use it throughout).
    assert_eq!(cn_autonomy::SCRIPTED_ANSWERS_ENV, Some("CN_SCRIPTED_ANSWERS"));
}
