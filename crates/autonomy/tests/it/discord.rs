//! The Discord sense against a fake Discord on loopback (`cn_autonomy::testing::discord`: a
//! websocket gateway that speaks the real protocol and an axum server standing in for the
//! HTTP API, recording every typing trigger and posted message). Waits are on recorded events
//! with a deadline.
#![cfg(feature = "testing")]

use std::time::{Duration, Instant};

use serde_json::json;

use cn_autonomy::attention::{Attention, PoolConfig};
use cn_autonomy::config::AutonomyConfig;
use cn_autonomy::senses::discord::{self, channel_of, DiscordHandle};
use cn_autonomy::testing::discord::{count, message_payload, FakeDiscord, BOT_ID, DEADLINE};
use cn_autonomy::{Input, Senses};

use crate::common;
use common::wait_until;

/// Wait (bounded) until `handle` has no typing keep-alive left in `channel`.
fn wait_not_typing(handle: &DiscordHandle, channel: u64) {
    let deadline = Instant::now() + DEADLINE;
    while handle.is_typing(channel) {
        assert!(Instant::now() < deadline, "the typing keep-alive in {channel} did not end");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn start(fake: &FakeDiscord, token_env: &str, token: &str, extra: &str) -> (Senses, Attention) {
    std::env::set_var(token_env, token);
    let hub = tempfile::tempdir().unwrap();
    let config = AutonomyConfig::from_yaml(&fake.yaml(token_env, extra)).unwrap();
    let attention = Attention::new(PoolConfig::default());
    let senses = Senses::start(&common::open_hub(hub.path()), &config.senses, attention.clone()).unwrap();
    (senses, attention)
}

#[test]
fn messages_become_percepts_the_owner_by_id_and_bots_are_ignored() {
    let grace = ("42", "grace", Some("Grace"), false);
    let ada = ("100", "ada", None, false);
    let fake = FakeDiscord::start(vec![
        message_payload(1001, 10, (BOT_ID, "cn-bot", None, true), "my own earlier answer"),
        message_payload(1002, 10, ("901", "other-bot", None, true), "beep"),
        message_payload(1003, 99, ada, "in a channel not on the list"),
        message_payload(1004, 10, grace, "Can you look at the build?\nIt fails on main."),
        // Last: once it is in the pool, everything before it has been handled.
        message_payload(1005, 11, ada, "thanks!"),
    ]);
    let (senses, attention) =
        start(&fake, "CN_TEST_DISCORD_TOKEN_A", "token-a", "    channels: [10, \"11\"]\n    owners: [\"42\"]\n");
    wait_until(&attention, "ada's message", |a| a.with_pool(|p| p.iter().any(|x| x.item.summary() == "ada: thanks!")));
    let got: Vec<_> = std::iter::from_fn(|| attention.decide(jiff::Timestamp::now())).collect();
    let summaries: Vec<&str> = got.iter().map(|c| c.item.summary()).collect();
    assert_eq!(
        summaries,
        ["Grace: Can you look at the build?", "ada: thanks!"],
        "the owner first; bots and other channels not sensed"
    );

    let Input::Percept(owner) = &got[0].item else { panic!("not a percept") };
    assert!(owner.owner, "user 42 is in senses.discord.owners");
    assert_eq!(owner.sense, cn_hub::Sense::Discord);
    assert_eq!(owner.key.as_deref(), Some("discord:10/1004"));
    // Typed, and written as the map it was before: the same keys in the same order.
    let before = json!({"channel_id": "10", "message_id": "1004", "author_id": "42", "author": "Grace", "guild_id": "7", "forwarded": false});
    assert_eq!(serde_json::to_string(&owner.data).unwrap(), before.to_string());
    assert_eq!(owner.text.as_deref(), Some("Can you look at the build?\nIt fails on main."));
    assert_eq!(channel_of(owner), Some(10));
    let Input::Percept(other) = &got[1].item else { panic!("not a percept") };
    assert!(!other.owner);
    let posted: discord::Posted = other.data_as().unwrap();
    assert_eq!((posted.post.author.as_str(), posted.post.channel_id.as_str()), ("ada", "11"));

    let identify = fake.log.wait("IDENTIFY", |s| s.iter().any(|x| x.what == "identify"));
    let d = &identify.iter().find(|x| x.what == "identify").unwrap().body;
    assert_eq!(d["token"], "Bot token-a");
    let intents = d["intents"].as_u64().unwrap();
    assert_eq!(
        intents & (1 << 9 | 1 << 12 | 1 << 15),
        1 << 9 | 1 << 12 | 1 << 15,
        "guild messages, DMs and message content"
    );
    assert!(!format!("{got:?}").contains("token-a"), "the token never reaches a percept");
    senses.stop();
}

#[test]
fn typing_starts_at_once_is_kept_alive_and_ends_with_the_guard() {
    let fake = FakeDiscord::start(Vec::new());
    let (senses, _attention) = start(&fake, "CN_TEST_DISCORD_TOKEN_B", "token-b", "");
    let discord = senses.discord().expect("senses.discord is on");

    // Dropped: the keep-alive ends on its own; then nothing more is triggered.
    let guard = discord.typing(10);
    let seen = fake.log.wait("the first typing trigger", |s| count(s, "typing", 10) >= 1);
    assert_eq!(seen.iter().find(|x| x.what == "typing").unwrap().auth.as_deref(), Some("Bot token-b"));
    fake.log.wait("the typing indicator kept alive", |s| count(s, "typing", 10) >= 3);
    assert!(discord.is_typing(10));
    drop(guard);
    wait_not_typing(&discord, 10);
    let triggers = count(&fake.log.in_channel(10), "typing", 10);
    discord.send(10, "sentinel").unwrap();
    let after = fake.log.in_channel(10);
    assert_eq!(count(&after, "typing", 10), triggers, "no trigger after the guard dropped");
    assert_eq!(after.last().map(|s| (s.what, s.body["content"].as_str())), Some(("message", Some("sentinel"))));

    // Stopped: stop() returns once the last trigger has been answered.
    let guard = discord.typing(11);
    fake.log.wait("two triggers in 11", |s| count(s, "typing", 11) >= 2);
    guard.stop();
    assert!(!discord.is_typing(11));
    let triggers = count(&fake.log.in_channel(11), "typing", 11);
    discord.send(11, "sentinel").unwrap();
    let after = fake.log.in_channel(11);
    assert_eq!(count(&after, "typing", 11), triggers, "no trigger after stop()");
    assert_eq!(after.last().map(|s| s.what), Some("message"));
    senses.stop();
}

#[test]
fn sending_the_answer_stops_typing_and_long_text_is_split() {
    let fake = FakeDiscord::start(Vec::new());
    fake.deny(13);
    let (senses, _attention) = start(&fake, "CN_TEST_DISCORD_TOKEN_C", "token-c", "");
    let discord = senses.discord().unwrap();
    let guard = discord.typing(12);
    fake.log.wait("typing in 12", |s| count(s, "typing", 12) >= 2);
    let para = |c: char| c.to_string().repeat(1500);
    let answer = format!("{}\n{}\n{} @everyone", para('a'), para('b'), para('c'));
    discord.send(12, &answer).unwrap();
    assert!(!discord.is_typing(12), "sending the answer ended the typing indicator");
    let seen = fake.log.in_channel(12);
    let first_message = seen.iter().position(|s| s.what == "message").unwrap();
    assert!(seen[first_message..].iter().all(|s| s.what == "message"), "no trigger after the answer: {seen:?}");
    let parts: Vec<&str> = seen[first_message..].iter().map(|s| s.body["content"].as_str().unwrap()).collect();
    assert_eq!(parts.len(), 3);
    assert!(parts.iter().all(|p| p.chars().count() <= 2000));
    assert_eq!(parts.join("\n"), answer);
    let body = &seen[first_message].body;
    assert_eq!(body["allowed_mentions"]["parse"], json!([]), "answers ping nobody: {body}");
    assert_eq!(seen[first_message].auth.as_deref(), Some("Bot token-c"));
    drop(guard);

    // Errors say what went wrong.
    let e = discord.send(13, "hello").unwrap_err().to_string();
    assert!(e.contains("channel 13"), "{e}");
    assert!(discord.send(12, " \n ").unwrap_err().to_string().contains("empty"));
    assert!(discord.send(0, "hello").unwrap_err().to_string().contains("not a Discord channel id"));
    assert!(fake.log.all().iter().all(|s| s.what != "other"), "only the documented routes were used");
    senses.stop();
}

#[test]
fn config_errors_name_the_key() {
    let e = AutonomyConfig::from_yaml("senses:\n  discord:\n    token_env: X\n    typing_evry: 1s\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("senses.discord") && e.contains("typing_evry"), "{e}");

    let hub = tempfile::tempdir().unwrap();
    let attention = Attention::new(PoolConfig::default());
    std::env::remove_var("CN_TEST_DISCORD_TOKEN_UNSET");
    let config = AutonomyConfig::from_yaml(
        "senses:\n  owner: {enabled: false}\n  discord: {token_env: CN_TEST_DISCORD_TOKEN_UNSET}\n",
    )
    .unwrap();
    let e = Senses::start(&common::open_hub(hub.path()), &config.senses, attention.clone())
        .err()
        .expect("no token, no start")
        .to_string();
    assert!(
        e.contains("senses.discord.token_env") && e.contains("CN_TEST_DISCORD_TOKEN_UNSET") && e.contains("not set"),
        "{e}"
    );

    std::env::set_var("CN_TEST_DISCORD_TOKEN_D", "token-d");
    let config =
        AutonomyConfig::from_yaml("senses:\n  owner: {enabled: false}\n  discord: {token_env: CN_TEST_DISCORD_TOKEN_D, gateway_url: 'http://127.0.0.1:9'}\n")
            .unwrap();
    let e = Senses::start(&common::open_hub(hub.path()), &config.senses, attention)
        .err()
        .expect("not a websocket URL")
        .to_string();
    assert!(e.contains("gateway_url") && !e.contains("token-d"), "{e}");
}
