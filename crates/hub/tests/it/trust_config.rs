//! cn.yaml's settings that would widen trust by accident (issue 34, point 8): a misspelt
//! `policy.from` key is an error naming it, with the key it meant.

use cn_hub::HubConfig;

#[test]
fn a_misspelt_policy_from_key_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cn.yaml");
    let yaml = "name: ada\npolicy:\n  levels:\n    0: [reply, noop, ack]\n";
    for (from, said) in [
        ("githbu: [fetch_url]", "did you mean `github`"),
        ("owner: [send]", "nothing to widen"),
        ("\"peer:../x\": [send]", "plain name"),
        ("\"github:\": [send]", "names no user"),
        ("\"gitlab:bob\": [send]", "`gitlab` is not a sense"),
    ] {
        let text = yaml.replace("policy:\n  levels:\n", &format!("policy:\n  from:\n    {from}\n  levels:\n"));
        std::fs::write(&path, text).unwrap();
        let err = match HubConfig::load(&path) {
            Err(e) => cn_compute::chain(&e),
            Ok(_) => panic!("policy.from with {from} was read"),
        };
        assert!(err.contains("policy.from.") && err.contains(said), "{from}: {err}");
    }
    // The documented keys pass.
    let good = "policy:\n  from:\n    peers: [send]\n    \"peer:pi\": [delegate]\n    github: [fetch_url]\n    \"discord:42\": [note_write]\n    anyone: [reply]\n  levels:\n";
    std::fs::write(&path, yaml.replace("policy:\n  levels:\n", good)).unwrap();
    if let Err(e) = HubConfig::load(&path) {
        panic!("the documented keys: {}", cn_compute::chain(&e));
    }
}
