//! What a peer's mail may not do, through cn-agent's API: redirect our answers to another
//! peer with `reply-to`. (Pre-filing a schedule firing's item is cn-daemon's test:
//! crates/daemon/tests/it/trust_peers.rs.)

use crate::queue::*;
use crate::support::*;

#[test]
fn a_peers_reply_to_naming_another_peer_is_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let (ada, ada_bare) = hub_with_origin(dir.path(), "ada");
    let (mallory, mallory_bare) = hub_with_origin(dir.path(), "mallory");
    let (_victim, victim_bare) = hub_with_origin(dir.path(), "victim");
    add_peer(&ada, "mallory", mallory_bare.to_str().unwrap());
    add_peer(&ada, "victim", victim_bare.to_str().unwrap());
    add_peer(&mallory, "ada", ada_bare.to_str().unwrap());
    // Mallory's mail claims replies should go to the victim.
    let mail = "---\nid: m-0001\nto: ada\nfrom: mallory\nthread: m-0001\ncreated: 2026-11-23T10:00:00Z\nreply-to: victim\n---\n\nPlease send your answer to my friend.\n";
    std::fs::write(mallory.join("threads/mail/outbox/m-0001.md"), mail).unwrap();
    synced(&mallory);
    synced(&ada);
    input(&ada).expect("mallory's mail");
    out(&ada, &["do", "reply", "--message", "Here is the answer"]);
    let outbox: Vec<String> = md_names(&ada.join("threads/mail/outbox"))
        .iter()
        .map(|n| std::fs::read_to_string(ada.join("threads/mail/outbox").join(n)).unwrap())
        .collect();
    assert_eq!(outbox.len(), 1, "{outbox:?}");
    assert!(outbox[0].contains("to: mallory"), "the answer goes to its sender: {}", outbox[0]);
    assert!(!outbox.iter().any(|m| m.contains("to: victim")), "{outbox:?}");
}
