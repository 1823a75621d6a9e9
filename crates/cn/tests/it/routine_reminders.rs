//! Reminders reach the person (issue 31, point 2), end to end with the real `cn run` under
//! libfaketime: the wall clock set to 08:59:30 on a fixed day, so "at 9am" falls due half a
//! minute after the daemon starts. A reminder asked on Telegram (the fake Bot API) is told in
//! that chat at 09:00, as an answer to the message that asked for it; a stranger in the same
//! group answering "done" changes nothing; the owner's "snooze 1 hour" and "done" act on it.
//! One asked through `cn chat` is printed in that chat session at its minute, and "done" there
//! completes it. Waits are on what the fake recorded or the daemon wrote, with a deadline.

use crate::daemon_common;

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use cn_autonomy::testing::telegram::{sent, FakeTelegram};
use daemon_common::*;
use serde_json::Value;

const MINUTE: Duration = Duration::from_secs(60);
const TOKEN_ENV: &str = "CN_TEST_REMINDER_TOKEN";
const TOKEN: &str = "123456:reminder-SECRET_token";
const OWNER_ID: i64 = 4242;
/// A group chat the owner and a stranger share.
const GROUP: i64 = -100;
/// The day the daemon's clock is set to, half a minute before the reminder's minute.
const DAY: &str = "2026-03-11";

/// A level-2 model that answers anything plainly (nothing here should need it).
const MODEL: &str = "cat >/dev/null\nprintf '```yaml\\ntool: reply\\nmessage: I cannot do that here.\\n```\\n'\n";

/// A hub in UTC whose Telegram sense points at `fake` (when given).
fn reminder_hub(root: &Path, fake: Option<&FakeTelegram>) -> PathBuf {
    let hub = hub(root, "ada", MODEL, "reflexes:\n  time_zone: UTC\n");
    if let Some(fake) = fake {
        let senses = "senses:\n  bind: 127.0.0.1:0\n";
        let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
        let telegram = format!("{senses}{}    owners: [{OWNER_ID}]\n", fake.sense_yaml(TOKEN_ENV));
        std::fs::write(hub.join("cn.yaml"), yaml.replace(senses, &telegram)).unwrap();
    }
    hub
}

/// `cn run` with its wall clock at 08:59:30 on [`DAY`] (UTC), running on from there.
fn start_at_0859(hub: &Path, env: &[(&str, &str)]) -> Daemon {
    let lib = libfaketime();
    let at = format!("@{DAY} 08:59:30");
    let mut all: Vec<(&str, &str)> = vec![
        ("LD_PRELOAD", lib.to_str().unwrap()),
        ("FAKETIME", &at),
        ("FAKETIME_DONT_FAKE_MONOTONIC", "1"),
        ("TZ", "UTC"),
    ];
    all.extend_from_slice(env);
    let mut daemon = Daemon::start(hub, &all);
    daemon.owner_url();
    daemon
}

fn tasks(hub: &Path) -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(hub.join("state/tasks.json")).unwrap_or_else(|_| "[]".into()))
        .unwrap()
}

fn task<'a>(all: &'a [Value], name: &str) -> &'a Value {
    all.iter().find(|t| t["task"] == name).unwrap_or_else(|| panic!("no task {name}: {all:#?}"))
}

/// The journal's `reminder` entries.
fn reminders(hub: &Path) -> Vec<Value> {
    journal(hub).into_iter().filter(|e| e["type"] == "reminder").collect()
}

/// The sendMessage bodies in `chat`, in order.
fn messages(fake: &FakeTelegram, chat: i64) -> Vec<Value> {
    fake.log.all().into_iter().filter(|s| s.method == "sendMessage" && s.chat == Some(chat)).map(|s| s.body).collect()
}

#[test]
fn a_reminder_asked_on_telegram_is_told_there_at_its_minute_and_only_the_owner_can_close_it() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeTelegram::start(TOKEN);
    let hub = reminder_hub(dir.path(), Some(&fake));
    let daemon = start_at_0859(&hub, &[(TOKEN_ENV, TOKEN)]);
    let owner = (OWNER_ID, "Grace", Some("grace_h"));

    fake.message(owner, GROUP, "remind me to call the bank at 9am");
    let seen = fake.log.wait("the routine's answer", |s| !sent(s, GROUP).is_empty());
    let added = &sent(&seen, GROUP)[0];
    assert!(added.starts_with("Added: call the bank — due ") && added.contains("09:00"), "{added}");
    let asked_in = messages(&fake, GROUP)[0]["reply_parameters"]["message_id"].clone();
    assert!(asked_in.is_i64(), "the answer replies to the request");
    // The task records who asked and where to answer.
    let all = tasks(&hub);
    let bank = task(&all, "call the bank");
    assert_eq!(bank["due"], format!("{DAY}T09:00:00Z"));
    assert_eq!(
        (bank["answer_to"]["via"].as_str(), bank["answer_to"]["channel"].as_str()),
        (Some("telegram"), Some("-100"))
    );
    assert!(bank.get("source").is_none(), "the owner's own");
    assert!(bank.get("reminded").is_none(), "not told before its minute");

    // At 09:00 (the daemon's clock), in the group, as an answer to the request.
    let seen = fake.log.wait("the reminder in the group", |s| sent(s, GROUP).len() >= 2);
    let told = &sent(&seen, GROUP)[1];
    assert!(told.starts_with("Reminder: call the bank."), "{told}");
    assert_eq!(messages(&fake, GROUP)[1]["reply_parameters"]["message_id"], asked_in);
    let r =
        wait_until(MINUTE, "the reminder journaled", || reminders(&hub).into_iter().find(|e| e["outcome"] == "told"));
    assert!(r["ts"].as_str().unwrap().starts_with(&format!("{DAY}T09:00:")), "told at its minute: {r}");
    assert_eq!((r["via"].as_str(), r["to"].as_str()), (Some("telegram"), Some("-100")));
    let all = tasks(&hub);
    assert_eq!(task(&all, "call the bank")["reminded"]["due"], format!("{DAY}T09:00:00Z"));
    // Told, not filed as the agent's work: no item was made of it.
    assert!(
        !journal(&hub).iter().any(|e| e["outcome"] == "selected" && e["data"]["source"] == "task"),
        "a reminder is never the agent's impulse"
    );

    // A stranger in the same group answers "done": nothing of the owner's changes.
    fake.message((77, "Mallory", Some("mallory")), GROUP, "done");
    fake.log.wait("the stranger answered", |s| sent(s, GROUP).len() >= 3);
    let all = tasks(&hub);
    let bank = task(&all, "call the bank");
    assert!(bank.get("done").is_none() && bank["due"] == format!("{DAY}T09:00:00Z"), "{bank}");
    assert!(!sent(&fake.log.all(), GROUP)[2].starts_with("Done"), "{:?}", sent(&fake.log.all(), GROUP));

    // The owner snoozes it an hour, then says it is done: the same task, in the same chat.
    fake.message(owner, GROUP, "snooze 1 hour");
    let seen = fake.log.wait("the snooze answered", |s| sent(s, GROUP).len() >= 4);
    let moved = &sent(&seen, GROUP)[3];
    assert!(moved.starts_with("Moved: call the bank — now due ") && moved.contains("10:00"), "{moved}");
    fake.message(owner, GROUP, "done");
    let seen = fake.log.wait("the done answered", |s| sent(s, GROUP).len() >= 5);
    assert!(sent(&seen, GROUP)[4].starts_with("Done: call the bank"), "{:?}", sent(&seen, GROUP));
    let all = tasks(&hub);
    let bank = task(&all, "call the bank");
    assert_eq!((bank["done"].as_bool(), bank["status"].as_str()), (Some(true), Some("done")), "{bank}");
    assert_eq!(all.len(), 1, "nothing else was filed: {all:#?}");
    assert!(daemon.stop().success());
    let texts = sent(&fake.log.all(), GROUP);
    assert_eq!(texts.iter().filter(|t| t.starts_with("Reminder:")).count(), 1, "told once: {texts:#?}");
}

/// An interactive `cn chat` on `hub`: the child, its stdin, and its stdout's lines as they
/// come.
fn open_chat(hub: &Path) -> (std::process::Child, std::process::ChildStdin, std::sync::mpsc::Receiver<String>) {
    let mut chat = cn_cmd(hub)
        .arg("chat")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let input = chat.stdin.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    let out = chat.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (chat, input, lines)
}

#[test]
fn a_reminder_asked_in_cn_chat_is_shown_in_that_chat_at_its_minute_and_done_there() {
    let dir = tempfile::tempdir().unwrap();
    let hub = reminder_hub(dir.path(), None);
    let daemon = start_at_0859(&hub, &[]);
    let (mut chat, mut input, lines) = open_chat(&hub);
    let next = |what: &str| lines.recv_timeout(MINUTE).unwrap_or_else(|e| panic!("{what}: {e}"));

    writeln!(input, "remind me to stretch at 9am").unwrap();
    let added = next("the routine's answer");
    assert!(added.starts_with("ada> Added: stretch — due ") && added.contains("09:00"), "{added}");
    let all = tasks(&hub);
    assert_eq!(task(&all, "stretch")["answer_to"]["via"], "chat");
    // Nothing typed: the reminder appears in the open chat at 09:00.
    let told = next("the reminder in the chat");
    assert!(told.starts_with("ada> Reminder: stretch."), "{told}");
    let r = reminders(&hub).into_iter().find(|e| e["outcome"] == "told").unwrap();
    assert!(r["ts"].as_str().unwrap().starts_with(&format!("{DAY}T09:00:")), "{r}");
    assert_eq!(r["via"], "chat");
    writeln!(input, "done").unwrap();
    let done = next("the done answered");
    assert!(done.starts_with("ada> Done: stretch"), "{done}");
    assert_eq!(task(&tasks(&hub), "stretch")["done"], true);

    // Point 4: "what's next?" and "what did you do today?" in plain sentences, from the queue
    // and the journal — the reminder told, nothing of the agent's own work, no op syntax.
    writeln!(input, "remind me to buy ink tomorrow at 10am").unwrap();
    assert!(next("the second task added").starts_with("ada> Added: buy ink"));
    writeln!(input, "what's next?").unwrap();
    assert_eq!(next("what's next"), "ada> Next: buy ink, Thu 12 Mar, 10:00.");
    // A repeat scheduled is something done today too (issue 40, finding 7).
    writeln!(input, "every monday at 9am remind me to water the plants").unwrap();
    let scheduled = next("the repeat scheduled");
    assert!(scheduled.starts_with("ada> Scheduled: water the plants"), "{scheduled}");
    writeln!(input, "what did you do today?").unwrap();
    let did = next("what I did today");
    assert_eq!(
        did,
        "ada> Today I answered 5 messages (all yours), added 2 tasks (“stretch” and “buy ink”), \
         marked a task done (“stretch”), scheduled a repeat (“water the plants”) and reminded you of “stretch”. \
         1 task is open, none due today."
    );
    drop(input);
    let status = wait_until(MINUTE, "cn chat to end at EOF", || chat.try_wait().ok().flatten());
    assert!(status.success());
    assert!(daemon.stop().success());
}

/// Issue 40, finding 1: a recurring reminder asked in `cn chat` ("every day at 9am remind me
/// to …") is printed in that open chat at its minute — not raised as the agent's impulse and
/// closed — and so is a task added with `cn task add --remind` (the owner's reminder channel,
/// `cn chat` by default); "done" and "snooze" there answer them, no model is asked.
#[test]
fn a_recurring_reminder_asked_in_cn_chat_is_printed_there_at_its_minute() {
    let dir = tempfile::tempdir().unwrap();
    let hub = reminder_hub(dir.path(), None);
    let daemon = start_at_0859(&hub, &[]);
    let (mut chat, mut input, lines) = open_chat(&hub);
    let next = |what: &str| lines.recv_timeout(MINUTE).unwrap_or_else(|e| panic!("{what}: {e}"));

    writeln!(input, "every day at 9am remind me to stretch").unwrap();
    let scheduled = next("the routine's answer");
    assert!(scheduled.starts_with("ada> Scheduled: stretch — every day at 09:00"), "{scheduled}");
    let entries: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/schedule.json")).unwrap()).unwrap();
    let entry = entries.iter().find(|e| e["name"] == "stretch").unwrap_or_else(|| panic!("{entries:#?}"));
    assert_eq!(entry["remind"]["via"], "chat", "{entries:#?}");
    // The owner's own reminder from the command line, 20 seconds after the minute.
    cn_ok(&hub, &["task", "add", "buy milk", "--due", &format!("{DAY}T09:00:20Z"), "--remind"]);
    assert_eq!(task(&tasks(&hub), "buy milk")["answer_to"]["via"], "chat");

    // Nothing typed: each appears in the open chat at its time.
    let told = next("the recurring reminder in the chat");
    assert!(told.starts_with("ada> Reminder: stretch."), "{told}");
    let milk = next("the command line's reminder in the chat");
    assert!(milk.starts_with("ada> Reminder: buy milk."), "{milk}");
    let all = reminders(&hub);
    let r = all.iter().find(|e| e["task"] == "stretch" && e["outcome"] == "told").expect("stretch told");
    assert!(r["ts"].as_str().unwrap().starts_with(&format!("{DAY}T09:00:")), "told at its minute: {r}");
    // The firing is the person's reminder (a task told), never the agent's impulse.
    let fired = task(&tasks(&hub), "stretch").clone();
    assert_eq!((fired["due"].as_str(), fired["every"].as_str()), (Some(&*format!("{DAY}T09:00:00Z")), Some("stretch")));
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/schedule-state.json")).unwrap()).unwrap();
    assert_eq!(state["stretch"]["last_fired"], format!("{DAY}T09:00:00Z"), "recorded as fired: {state}");

    // "done" answers the last one told; "snooze" the one still open.
    writeln!(input, "done").unwrap();
    let done = next("the done answered");
    assert!(done.starts_with("ada> Done: buy milk"), "{done}");
    writeln!(input, "snooze 10 minutes").unwrap();
    let moved = next("the snooze answered");
    assert!(moved.starts_with("ada> Moved: stretch — now due ") && moved.contains("09:10"), "{moved}");
    drop(input);
    let status = wait_until(MINUTE, "cn chat to end at EOF", || chat.try_wait().ok().flatten());
    assert!(status.success());
    assert!(daemon.stop().success());
    let journal = journal(&hub);
    // Told, never the agent's impulse or a model's decision.
    // (An impulse's summary: "Scheduled: NAME (ACTION)", "Task due: TASK".)
    let impulse = |e: &Value| {
        ["Scheduled: stretch (", "Task due: stretch", "Task due: buy milk"].iter().any(|s| e.to_string().contains(s))
    };
    assert!(!journal.iter().any(impulse), "a reminder is never the agent's work: {journal:#?}");
    // The entry stays: it reminds again tomorrow.
    let entries: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/schedule.json")).unwrap()).unwrap();
    assert!(entries.iter().any(|e| e["name"] == "stretch"), "{entries:#?}");
}

/// "every other day at 9am remind me to stretch" through `cn chat`: scheduled with its stride
/// (every other day from its first firing, today), told at 09:00 today; an entry kept every other
/// day from yesterday is passed over at the same minute (neither fired nor recorded as fired),
/// and one whose stride is broken is named by `cn schedule list` while the daemon runs on.
#[test]
fn an_every_other_day_reminder_is_told_on_its_days_only() {
    let dir = tempfile::tempdir().unwrap();
    let hub = reminder_hub(dir.path(), None);
    let entries = r#"[
      {"name": "skipped", "cron": "0 9 * * *", "action": "water the cactus", "tz": "UTC",
       "remind": {"via": "chat"}, "stride": {"n": 2, "unit": "day", "from": "2026-03-10"}},
      {"name": "broken", "cron": "*/5 * * * *", "action": "nothing", "tz": "UTC",
       "stride": {"n": 2, "unit": "day", "from": "2026-03-10"}}
    ]"#;
    std::fs::write(hub.join("state/schedule.json"), entries).unwrap();
    let daemon = start_at_0859(&hub, &[]);
    let (mut chat, mut input, lines) = open_chat(&hub);
    let next = |what: &str| lines.recv_timeout(MINUTE).unwrap_or_else(|e| panic!("{what}: {e}"));

    writeln!(input, "every other day at 9am remind me to stretch").unwrap();
    let scheduled = next("the routine's answer");
    assert!(scheduled.starts_with("ada> Scheduled: stretch — every other day at 09:00"), "{scheduled}");
    let entries: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/schedule.json")).unwrap()).unwrap();
    let entry = entries.iter().find(|e| e["name"] == "stretch").unwrap_or_else(|| panic!("{entries:#?}"));
    assert_eq!(entry["cron"], "0 9 * * *");
    assert_eq!(entry["stride"], serde_json::json!({"n": 2, "unit": "day", "from": DAY}), "{entry:#}");
    let listed = cn_ok(&hub, &["schedule", "list"]);
    assert!(listed.contains(&format!("every other day from {DAY}")), "{listed}");
    assert!(listed.contains("broken") && listed.contains("invalid") && listed.contains("stride"), "{listed}");

    let told = next("the reminder in the chat at 09:00");
    assert!(told.starts_with("ada> Reminder: stretch."), "{told}");
    // Fired in the same check as "stretch" would have been: passed over, not recorded.
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/schedule-state.json")).unwrap()).unwrap();
    assert_eq!(state["stretch"]["last_fired"], format!("{DAY}T09:00:00Z"), "{state}");
    assert_ne!(state["skipped"]["last_fired"], format!("{DAY}T09:00:00Z"), "{state}");
    assert!(!tasks(&hub).iter().any(|t| t["every"] == "skipped"), "{:#?}", tasks(&hub));
    assert!(!reminders(&hub).iter().any(|r| r["task"] == "water the cactus"), "{:#?}", reminders(&hub));
    drop(input);
    let status = wait_until(MINUTE, "cn chat to end at EOF", || chat.try_wait().ok().flatten());
    assert!(status.success());
    assert!(daemon.stop().success(), "the daemon ran on beside the broken entry");
}

/// Issue 40, finding 1, on Telegram's fake Bot API: "every day at 9am remind me to call mom"
/// asked in a group is told in that group at 09:00; an entry added with `cn schedule add
/// --remind` is told on the owner's reminder channel (`senses.owner.remind:
/// telegram:<owner's chat>`); "done" in the group answers the group's.
#[test]
fn a_recurring_reminder_is_told_on_telegram_where_it_was_asked_or_on_the_owners_channel() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeTelegram::start(TOKEN);
    let hub = reminder_hub(dir.path(), Some(&fake));
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let senses = "senses:\n  bind: 127.0.0.1:0\n";
    std::fs::write(
        hub.join("cn.yaml"),
        yaml.replace(senses, &format!("{senses}  owner:\n    remind: telegram:{OWNER_ID}\n")),
    )
    .unwrap();
    cn_ok(&hub, &["schedule", "add", "water", "0 9 * * *", "water the plants", "--tz", "UTC", "--remind"]);
    let listed = cn_ok(&hub, &["schedule", "list"]);
    assert!(listed.contains(&format!("(reminds you on telegram:{OWNER_ID})")), "{listed}");
    let daemon = start_at_0859(&hub, &[(TOKEN_ENV, TOKEN)]);
    let owner = (OWNER_ID, "Grace", Some("grace_h"));

    fake.message(owner, GROUP, "every day at 9am remind me to call mom");
    let seen = fake.log.wait("the routine's answer", |s| !sent(s, GROUP).is_empty());
    let added = &sent(&seen, GROUP)[0];
    assert!(added.starts_with("Scheduled: call mom — every day at 09:00"), "{added}");
    let entries: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/schedule.json")).unwrap()).unwrap();
    let entry = entries.iter().find(|e| e["name"] == "call-mom").unwrap_or_else(|| panic!("{entries:#?}"));
    assert_eq!(
        (entry["remind"]["via"].as_str(), entry["remind"]["channel"].as_str()),
        (Some("telegram"), Some("-100"))
    );

    let seen = fake.log.wait("the reminders told", |s| sent(s, GROUP).len() >= 2 && !sent(s, OWNER_ID).is_empty());
    assert!(sent(&seen, GROUP)[1].starts_with("Reminder: call mom."), "{:?}", sent(&seen, GROUP));
    assert!(sent(&seen, OWNER_ID)[0].starts_with("Reminder: water the plants."), "{:?}", sent(&seen, OWNER_ID));
    let told = wait_until(MINUTE, "both reminders journaled", || {
        let told: Vec<Value> = reminders(&hub).into_iter().filter(|e| e["outcome"] == "told").collect();
        (told.len() == 2).then_some(told)
    });
    for r in &told {
        assert!(r["ts"].as_str().unwrap().starts_with(&format!("{DAY}T09:00:")), "told at its minute: {r}");
    }

    fake.message(owner, GROUP, "done");
    let seen = fake.log.wait("the done answered", |s| sent(s, GROUP).len() >= 3);
    assert!(sent(&seen, GROUP)[2].starts_with("Done: call mom"), "{:?}", sent(&seen, GROUP));
    let all = tasks(&hub);
    assert_eq!(task(&all, "call mom")["done"], true);
    assert_eq!(task(&all, "water the plants")["done"], Value::Null, "the other one is still open");
    assert!(daemon.stop().success());
    let journal = journal(&hub);
    let impulse = |e: &Value| {
        ["Scheduled: call-mom (", "Scheduled: water (", "Task due:"].iter().any(|s| e.to_string().contains(s))
    };
    assert!(!journal.iter().any(impulse), "a reminder is never the agent's work: {journal:#?}");
    let texts = sent(&fake.log.all(), GROUP);
    assert_eq!(texts.iter().filter(|t| t.starts_with("Reminder:")).count(), 1, "told once: {texts:#?}");
}
