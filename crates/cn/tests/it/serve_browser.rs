//! The control room in a real browser: Debian's headless Chromium driven over WebDriver
//! against the real `cn serve` on a real hub. The page loads with the printed address (and
//! forgets the token), a journal entry appears live when the real `cn run --once` decides an
//! item, the entry opens its "why" chain down to the git commit, an approval is approved
//! from the page, and the chart reads the budget's days.
//!
//! With `CN_SCREENSHOTS=DIR` set, a PNG of every view is written there (docs/control-room/).

use crate::daemon_common;
use crate::serve_common;

use std::time::Duration;

use daemon_common::*;
use serde_json::json;
use serve_common::webdriver::Browser;
use serve_common::*;

const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

fn today() -> String {
    let out = std::process::Command::new("date").arg("+%F").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn the_owner_watches_and_steers_the_agent_in_a_browser() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "budget:\n  daily_tokens: 50000\n");
    // Spend on earlier days and today, as the ledger keeps it.
    let budget = json!({
        "day": today(), "tokens": 4200, "cost": 0.042, "calls": 3, "refused": 0, "failed": 0,
        "reserved": [],
        "history": [
            {"day": "2026-01-01", "tokens": 12000, "cost": 0.12, "calls": 6, "refused": 1, "failed": 0},
            {"day": "2026-01-02", "tokens": 3000, "cost": 0.03, "calls": 2, "refused": 0, "failed": 1}
        ]
    });
    std::fs::write(hub.join("state/budget.json"), budget.to_string()).unwrap();
    let layout = cn_hub::Layout::new(&hub);
    let yaml = "name: greet\ndescription: greets\nlevel: 0\ntrigger:\n  pattern: \"(?i)^good morning\"\npipeline:\n  - action: reply\n    message: \"Morning!\"\n";
    let req = cn_hub::approvals::Request {
        tool: "reflex_write".into(),
        params: json!({"name": "greet", "yaml": yaml}),
        runs: format!("write state/reflexes/greet.yaml:\n{yaml}"),
        remembers: "nothing".into(),
        item: Some("item-1".into()),
        from: Some("bob".into()),
        level: None,
    };
    let held = cn_hub::approvals::request(&layout, req, 3600).unwrap();
    // A reflex learned from the executive, still in shadow.
    std::fs::write(
        hub.join("state/reflexes/status.yaml"),
        "name: status\nmode: shadow\nlearned: executive\ntrigger:\n  pattern: \"(?i)\\\\bstatus\\\\b\"\npipeline:\n  - action: reply\n    message: All green.\n",
    )
    .unwrap();
    // Something in the pool (attention's spool, as a daemon left it) and something due.
    cn_ok(&hub, &["task", "add", "renew the certificate", "--due", "2099-01-01T09:00:00Z"]);
    let out = std::process::Command::new("date").args(["-u", "-d", "-7 min", "+%FT%TZ"]).output().unwrap();
    let at = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let percept = |id: &str, sense: &str, summary: &str| {
        json!({"add": {"kind": "percept", "id": id, "sense": sense, "owner": false, "summary": summary,
                       "at": at, "data": {}}})
        .to_string()
    };
    let spool = [
        percept("p-gh1", "github", "GitHub: review requested on #42"),
        percept("p-dc1", "discord", "Discord: bob asks about the release"),
        percept("p-gone", "github", "GitHub: an issue closed"),
        json!({"done": "p-gone"}).to_string(),
    ];
    std::fs::write(hub.join("state/attention.jsonl"), spool.join("\n") + "\n").unwrap();

    let serve = Serve::start(&hub, &[]);
    let browser = Browser::start();
    let shots = std::env::var_os("CN_SCREENSHOTS").map(std::path::PathBuf::from);
    let shoot = |name: &str| {
        if let Some(dir) = &shots {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(format!("{name}.png")), browser.screenshot()).unwrap();
        }
    };

    browser.goto(&serve.url);
    browser.wait("body[data-shown=now]");
    assert!(!browser.url().contains("token"), "the token left the address bar: {}", browser.url());
    browser.wait_text("#hub-name", |t| t == "ada");
    let due = browser.wait_text("#now-due", |t| t.contains("renew the certificate")).replace('\t', " ");
    assert!(due.contains("schedule daily-reflection"), "the hub's schedule, next firing: {due}");
    assert!(due.contains("2099-01-01 09:00:00 UTC task renew the certificate"), "{due}");
    // The routine (issue 31): the person's task due next, in its own card.
    let next = browser.wait_text("#now-next", |t| t.contains("renew the certificate"));
    assert!(next.contains("2099-01-01 09:00:00 UTC"), "{next}");
    assert!(browser.wait_text("#now-done", |t| !t.is_empty()).contains("nothing done yet today"));
    let pool = browser.attrs("#now-pool tbody tr[data-id]", "data-id");
    assert_eq!(pool, ["p-dc1", "p-gh1"], "pending items, most salient first (discord 50 > github 40)");
    let why_score = browser.texts("#now-pool tbody tr[data-id=p-gh1]").concat();
    assert!(why_score.contains("source github 40") && why_score.contains("waited"), "{why_score}");
    assert_eq!(browser.eval("return document.cookie", json!([])), json!(""), "scripts cannot read the HttpOnly cookie");
    shoot("now");

    // Journal: an item decided by the real binary appears live.
    browser.click("#tabs button[data-view=journal]");
    browser.wait("body[data-shown=journal]");
    browser.wait("#live.on");
    let out = cn_cmd(&hub).args(["chat", "--no-wait", "good evening, how are you?"]).output().unwrap();
    let queued = String::from_utf8_lossy(&out.stderr);
    let id = queued.trim().rsplit(' ').next().unwrap().to_string();
    assert!(queued.contains("queued"), "{queued}");
    cn_ok(&hub, &["run", "--once"]);
    browser.click(&format!("#journal-list li.entry[data-id='{id}'][data-type=decision]"));
    browser.wait_text("#why-chain li", |t| t.contains("salience"));
    let shown = browser.wait_text("#why-commits li", |t| !t.is_empty());
    let log = std::process::Command::new("git").current_dir(&hub).args(["log", "--format=%h"]).output().unwrap();
    let hashes = String::from_utf8_lossy(&log.stdout).to_string();
    assert!(hashes.lines().any(|h| shown.starts_with(h)), "the chain ends in a real commit: {shown}");
    assert!(shown.contains(&id), "{shown}");
    shoot("journal");

    // Thought and money: the chart reads the ledger's days.
    browser.click("#tabs button[data-view=money]");
    browser.wait("body[data-shown=money]");
    let bars = wait_until(Duration::from_secs(30), "the chart's bars", || {
        let days = browser.attrs("#chart svg rect.bar", "data-day");
        (days.len() == 3).then_some(days)
    });
    assert_eq!(bars, ["2026-01-01", "2026-01-02", today().as_str()]);
    assert_eq!(browser.attrs("#chart svg rect.bar", "data-tokens"), ["12000", "3000", "4200"]);
    let heights = browser.attrs("#chart svg rect.bar", "height");
    let h: Vec<f64> = heights.iter().map(|v| v.parse().unwrap()).collect();
    assert!(h[0] > h[2] && h[2] > h[1] && h[1] > 0.0, "bars drawn to scale: {h:?}");
    browser.wait_text("#budget-left", |t| t == "left today: 45,800 tokens");
    shoot("money");

    browser.click("#tabs button[data-view=reflexes]");
    browser.wait_text("#reflex-table tr[data-name=hello] td.status", |t| t == "enabled");
    browser.wait_text("#reflex-table tr[data-name=hello] td.mode", |t| t == "active");
    browser.wait_text("#reflex-table tr[data-name=status] td.mode", |t| t.starts_with("shadow"));
    shoot("reflexes");
    // Approve (promote) the shadow reflex: the page shows it active, the file says so.
    browser.click("#reflex-table tr[data-name=status] button.approve");
    browser.wait_text("#reflex-table tr[data-name=status] td.mode", |t| t.starts_with("active"));
    let promoted = std::fs::read_to_string(hub.join("state/reflexes/status.yaml")).unwrap();
    assert!(promoted.contains("mode: active"), "{promoted}");

    // Approvals: exactly what would run, then approve it.
    browser.click("#tabs button[data-view=approvals]");
    let card = format!(".approval[data-id='{}']", held.id);
    browser.wait_text(&format!("{card} pre.runs"), |t| t.trim() == held.runs.trim());
    shoot("approvals");
    browser.click(&format!("{card} button.approve"));
    browser.wait_text(&format!("{card} .approval-status"), |t| t == "approved");
    assert_eq!(std::fs::read_to_string(hub.join("state/reflexes/greet.yaml")).unwrap(), yaml);

    browser.click("#tabs button[data-view=peers]");
    browser.wait("body[data-shown=peers]");
    shoot("peers");
    browser.click("#tabs button[data-view=loops]");
    browser.wait("body[data-shown=loops]");
    shoot("loops");

    // Now lists what was decided lately: the item decided above.
    browser.click("#tabs button[data-view=now]");
    browser.wait(&format!("#now-recent tbody tr[data-id='{id}']"));

    // Chat as the owner: it starts with the owner's earlier messages and their answers (the
    // one above, sent by `cn chat`); with no daemon the message waits in the inbox;
    // `cn run --once` answers it and the page shows the answer.
    browser.click("#tabs button[data-view=chat]");
    let history = browser.wait_text(&format!("#chat-log li.agent[data-id='{id}']"), |t| !t.is_empty());
    assert!(!history.starts_with('…'), "the earlier message's answer: {history}");
    assert!(browser.texts("#chat-log li.me").concat().contains("good evening, how are you?"));
    browser.type_in(&browser.wait("#chat-text"), "hello");
    browser.click("#chat-form button");
    let chat_id = wait_until(Duration::from_secs(60), "the message to be accepted", || {
        browser.attrs("#chat-log li.agent[data-id]", "data-id").into_iter().find(|i| *i != id)
    });
    cn_ok(&hub, &["run", "--once"]);
    let answer =
        browser.wait_text(&format!("#chat-log li.agent[data-id='{chat_id}']:not(.pending)"), |t| !t.is_empty());
    assert!(answer.contains("Hello! I'm ada"), "{answer}");
    shoot("chat");

    // The page loaded again keeps the conversation.
    browser.goto(&serve.url);
    browser.click("#tabs button[data-view=chat]");
    browser.wait_text(&format!("#chat-log li.agent[data-id='{chat_id}']"), |t| t.contains("Hello! I'm ada"));
}

/// What the page shows with its data: the hub's name, the journal's entries, what falls due,
/// what was decided lately.
const LOADED: &str = "return document.querySelector('#hub-name').textContent === 'ada' \
    && document.querySelectorAll('#journal-list li.entry').length > 0 \
    && document.querySelector('#now-due').innerText.includes('daily-reflection') \
    && document.querySelectorAll('#now-recent tbody tr[data-id]').length > 0";

#[test]
fn twenty_fresh_browser_profiles_each_load_the_page_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    cn_ok(&hub, &["chat", "--no-wait", "good morning"]);
    cn_ok(&hub, &["run", "--once"]);
    let serve = Serve::start(&hub, &[]);
    for load in 1..=20 {
        // A new WebDriver session is a new, empty Chromium profile: no cookie, no cache.
        let browser = Browser::start();
        // Navigation returns once the page has loaded (its `load` event): the data must be
        // there then, not after fetches a headless capture would not wait for.
        browser.goto(&serve.url);
        assert_eq!(browser.eval(LOADED, json!([])), json!(true), "load {load} showed no data at its load event");
        assert_eq!(browser.eval("return document.querySelector('#status').textContent", json!([])), json!(""));
        browser.wait("#live.on");
    }
    // A headless capture of a fresh profile (what the owner saw: 3 loads of 4 with no data)
    // holds the data too.
    let chromium =
        ["/usr/bin/chromium", "/usr/lib/chromium/chromium"].into_iter().find(|p| std::path::Path::new(p).exists());
    for capture in 1..=4 {
        let profile = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(chromium.expect("chromium is installed (scripts/deps.sh)"))
            .args(["--headless=new", "--no-sandbox", "--disable-gpu", "--dump-dom"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(&serve.url)
            .output()
            .unwrap();
        let dom = String::from_utf8_lossy(&out.stdout);
        assert!(dom.contains("class=\"entry") && dom.contains("daily-reflection"), "capture {capture}: {dom}");
    }
}

#[test]
fn the_control_room_in_the_daemon_shows_a_refused_cn_yaml_loops_and_every_journal_type() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "serve:\n  bind: 127.0.0.1:0\n");
    // A loop where `cn init` puts them.
    std::fs::create_dir_all(hub.join("loops/fact")).unwrap();
    cn_ok(&hub, &["loop", "init", hub.join("loops/fact").to_str().unwrap()]);
    // A sync that moved mail, as `cn sync` journals it.
    let sync = json!({"ts": "2026-01-01T00:00:00Z", "type": "sync", "sent": ["m1"], "received": [], "rejected": []});
    let journal = hub.join("state/journal.jsonl");
    let mut text = std::fs::read_to_string(&journal).unwrap_or_default();
    text.push_str(&format!("{sync}\n"));
    std::fs::write(&journal, text).unwrap();
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    let control = wait_until(Duration::from_secs(60), "the control room's address", || {
        let info: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(hub.join("state/run.json")).ok()?).ok()?;
        info["control_url"].as_str().map(str::to_string)
    });
    let token = std::fs::read_to_string(hub.join(".git/cn-owner-token")).unwrap();
    let browser = Browser::start();
    browser.goto(&format!("{control}?token={}", token.trim()));
    browser.wait("body[data-shown=now]");
    assert_eq!(browser.eval("return document.querySelector('#banner').hidden", json!([])), json!(true));

    // Every journal type reads as words: the sync entry too.
    browser.click("#tabs button[data-view=journal]");
    let sync_row = browser.wait_text("#journal-list li.entry[data-type=sync]", |t| !t.is_empty());
    assert!(sync_row.contains("peer mail synced: 1 sent") && !sync_row.contains('{'), "{sync_row}");

    // Loops finds the loop in loops/.
    browser.click("#tabs button[data-view=loops]");
    browser.wait_text("#loop-list h2", |t| t.starts_with("loops/fact"));

    // A bad edit of cn.yaml: the banner says why, on whichever view is open.
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(hub.join("cn.yaml"), format!("{yaml}bugdet: {{}}\n")).unwrap();
    let banner = browser.wait_text("#banner:not([hidden])", |t| t.contains("bugdet"));
    assert!(banner.contains("previous config"), "{banner}");
    // Fixed: it goes.
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    wait_until(Duration::from_secs(60), "the banner to go", || {
        (browser.eval("return document.querySelector('#banner').hidden", json!([])) == json!(true)).then_some(())
    });
    assert!(daemon.stop().success());
}

/// Issue 40, finding 6: a task past its due time is overdue on the page as in chat, though the
/// agent set itself a follow-up tomorrow; a reminder told and past is overdue too, not under
/// "Falls due next".
#[test]
fn the_control_room_calls_a_past_due_task_overdue_as_chat_does() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    // The agent's own task, 10 minutes late: `cn run --once` offers it, the local model acks it,
    // and the daemon leaves it open with a follow-up a day later.
    cn_ok(&hub, &["task", "add", "pay the invoice", "--due", &minutes_from_now(-10)]);
    // The owner's reminder, 5 minutes late: told on the owner's chat.
    cn_ok(&hub, &["task", "add", "call the dentist", "--due", &minutes_from_now(-5), "--remind"]);
    cn_ok(&hub, &["run", "--once"]);
    cn_ok(&hub, &["task", "add", "renew the certificate", "--due", "2099-01-01T09:00:00Z"]);
    let tasks: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(hub.join("state/tasks.json")).unwrap()).unwrap();
    let task = |name: &str| tasks.iter().find(|t| t["task"] == name).unwrap().clone();
    let now = minutes_from_now(0);
    let invoice = task("pay the invoice");
    assert!(invoice["follow_up"].as_str().is_some_and(|f| f > now.as_str()), "followed up later: {invoice}");
    let dentist = task("call the dentist");
    assert!(dentist["reminded"].is_object(), "the reminder was told: {dentist}");

    // Chat calls both overdue.
    let out = cn_cmd(&hub).args(["chat", "--timeout", "60", "what's overdue?"]).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(said.contains("pay the invoice") && said.contains("call the dentist"), "{said}");
    assert!(!said.contains("renew the certificate"), "{said}");

    let serve = Serve::start(&hub, &[]);
    let browser = Browser::start();
    browser.goto(&serve.url);
    browser.wait("body[data-shown=now]");
    let overdue = browser.wait_text("#now-overdue", |t| t.contains("pay the invoice"));
    assert!(overdue.contains("call the dentist · reminded"), "{overdue}");
    assert!(overdue.find("pay the invoice") < overdue.find("call the dentist"), "the longest overdue first: {overdue}");
    let next = browser.texts("#now-next").concat();
    assert!(next.contains("renew the certificate"), "{next}");
    assert!(
        !next.contains("pay the invoice") && !next.contains("call the dentist"),
        "past due is not due next: {next}"
    );
    // "Falls due next": what comes up from now on — the invoice only as the agent's follow-up,
    // the told reminder not at all.
    let rows: Vec<String> = browser.texts("#now-due tbody tr").into_iter().map(|r| r.replace('\t', " ")).collect();
    assert!(rows.iter().any(|r| r.contains("follow-up pay the invoice")), "{rows:?}");
    assert!(!rows.iter().any(|r| r.contains("call the dentist")), "{rows:?}");
    assert!(!rows.iter().any(|r| r.contains("task pay the invoice")), "{rows:?}");
}
