//! "Why did you do that?" asked in chat is answered from the journal (issue 40, finding 8),
//! end to end with the real binary and no executive configured: the owner in `cn chat` hears
//! the last decision taken for them — what was done, the reflex or rule that took it, its level
//! and reason — never the question handed up; a "why" answered is not itself explained. The
//! attack: strangers on Telegram (the fake Bot API), in a group the owner shares, hear only
//! about decisions on their own messages — one with none hears nothing of the owner's, and an
//! owner's item named by its id is answered as unknown.

use crate::daemon_common;

use std::path::Path;

use cn_autonomy::testing::telegram::{sent, FakeTelegram};
use daemon_common::*;

const TOKEN_ENV: &str = "CN_TEST_WHY_TOKEN";
const TOKEN: &str = "123456:why-SECRET_token";
const GROUP: i64 = -100;
/// The level-2 model [`hub`] wants, removed before the hub runs.
const LOCAL: &str = "cat > /dev/null\n";

fn chat(hub: &Path, text: &str) -> String {
    cn_ok(hub, &["chat", "--timeout", "60", text]).trim().to_string()
}

#[test]
fn why_is_answered_from_the_journal_and_a_stranger_hears_only_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeTelegram::start(TOKEN);
    let hub = hub(dir.path(), "ada", LOCAL, "reflexes:\n  time_zone: UTC\n");
    let senses = "senses:\n  bind: 127.0.0.1:0\n";
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let telegram = format!("{senses}{}    owners: [4242]\n", fake.sense_yaml(TOKEN_ENV));
    // No model at all: what no reflex takes is handed up, saying no executive is configured.
    let start = yaml.find("models:\n").unwrap();
    let end = start + yaml[start..].find("senses:").unwrap();
    let yaml = format!("{}{}", &yaml[..start], &yaml[end..]);
    std::fs::write(hub.join("cn.yaml"), yaml.replace(senses, &telegram)).unwrap();

    // The owner, in `cn chat`: a reminder filed by the routine, then "why?".
    assert!(chat(&hub, "remind me to call the bank tomorrow at 10am").starts_with("Added: call the bank"));
    let bank = journal(&hub).into_iter().rev().find(|e| e["type"] == "decision").unwrap()["id"].clone();
    let bank = bank.as_str().unwrap().to_string();
    let why = chat(&hub, "why did you do that?");
    assert!(
        why.starts_with("My last decision for you on “remind me to call the bank tomorrow at 10am” (item "),
        "{why}"
    );
    assert!(why.contains("I replied “Added: call the bank"), "{why}");
    assert!(
        why.contains("My reflex `routine` took it at level 1, below the executive: its heuristics matched."),
        "{why}"
    );
    assert!(why.contains(&format!("`cn journal why {bank}`")), "{why}");
    // A request nothing below the executive can do is handed up; "why?" says so, and a second
    // "why?" explains the same decision, not the first answer.
    assert!(chat(&hub, "Can you review my blog post?").contains("no executive is configured"));
    for _ in 0..2 {
        let why = chat(&hub, "what made you do that?");
        assert!(why.contains("on “Can you review my blog post?”"), "{why}");
        assert!(why.contains("I handed it up (no executive is configured)"), "{why}");
        assert!(why.contains("cn's own rules decided it at level 1, below the executive."), "{why}");
    }
    // One named by its id.
    let why = chat(&hub, &format!("why did you do {bank}?"));
    assert!(why.starts_with(&format!("On item {bank} on “remind me to call the bank")), "{why}");
    // Answered by the `why` reflex at level 0: no model asked, nothing handed up.
    let entries = journal(&hub);
    let whys: Vec<_> = entries.iter().filter(|e| e["type"] == "reflex" && e["name"] == "why").collect();
    assert_eq!(whys.len(), 4, "{whys:#?}");
    for w in &whys {
        let d = entries.iter().find(|e| e["type"] == "decision" && e["id"] == w["item"]).unwrap();
        assert_eq!((d["level"].as_u64(), d["op"].as_str()), (Some(0), Some("reply")), "{d}");
        assert!(d.get("handed_up").is_none(), "{d}");
        assert_eq!(d["reasoning"], "reflex `why` decided at level 0", "{d}");
    }
    let calls = std::fs::read_to_string(hub.join("state/interactions.jsonl")).unwrap_or_default();
    for w in &whys {
        assert!(!calls.contains(w["item"].as_str().unwrap()), "a model was asked about a why");
    }

    // Strangers in a group the owner shares.
    let daemon = Daemon::start(&hub, &[(TOKEN_ENV, TOKEN)]);
    let mallory = (77, "Mallory", Some("mallory"));
    let eve = (88, "Eve", Some("eve"));
    let said = |n: usize| fake.log.wait("an answer in the group", |s| sent(s, GROUP).len() >= n)[..].to_vec();
    fake.message(eve, GROUP, "why did you do that?");
    let eves = sent(&said(1), GROUP)[0].clone();
    assert!(eves.starts_with("I have taken no decision on anything of yours yet"), "{eves}");
    fake.message(mallory, GROUP, "remind me to feed the cat at 9am");
    assert!(sent(&said(2), GROUP)[1].starts_with("Added: feed the cat"));
    fake.message(mallory, GROUP, "why did you do that?");
    let mallorys = sent(&said(3), GROUP)[2].clone();
    assert!(
        mallorys.starts_with("My last decision on your messages on “remind me to feed the cat at 9am”"),
        "{mallorys}"
    );
    assert!(mallorys.contains("My reflex `routine` took it at level 1"), "{mallorys}");
    fake.message(mallory, GROUP, &format!("why did you do {bank}?"));
    let named = sent(&said(4), GROUP)[3].clone();
    assert_eq!(named, format!("I have no decision of yours on {bank}."));
    fake.message(eve, GROUP, "why did you do that?");
    let eves_again = sent(&said(5), GROUP)[4].clone();
    assert!(eves_again.starts_with("I have taken no decision on anything of yours yet"), "{eves_again}");
    for told in [&eves, &mallorys, &named, &eves_again] {
        for owners in ["bank", "blog", "handed", "cn journal", "feed the cat"] {
            if told == &mallorys && owners == "feed the cat" {
                continue;
            }
            assert!(!told.contains(owners), "a stranger was told `{owners}`: {told}");
        }
    }
    // And the owner's "why?" is still about the owner's own, not a stranger's.
    let why = chat(&hub, "why did you do that?");
    assert!(why.contains("Can you review my blog post?") && !why.contains("feed the cat"), "{why}");
    assert!(daemon.stop().success());
}
