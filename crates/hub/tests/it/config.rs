//! cn.yaml read once, every key checked: a misspelt key is an error naming the key path, the
//! key it meant and the file.

use cn_hub::HubConfig;

#[test]
fn a_misspelt_journal_key_is_named_with_the_key_it_meant() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cn.yaml");
    std::fs::write(&path, "name: typo\njournal:\n  rotate_byte: 1500\n").unwrap();
    let err = match HubConfig::load(&path) {
        Err(e) => cn_compute::chain(&e),
        Ok(_) => panic!("journal.rotate_byte was read"),
    };
    assert!(err.contains("journal.rotate_byte") && err.contains("rotate_bytes") && err.contains("cn.yaml"), "{err}");
    // Spelt right, it is read.
    std::fs::write(&path, "name: typo\njournal:\n  rotate_bytes: 1500\n").unwrap();
    if let Err(e) = HubConfig::load(&path) {
        panic!("{}", cn_compute::chain(&e));
    }
}
