//! The control room in a real browser: Debian's headless Chromium driven over WebDriver
//! against the real `cn serve` on a real hub. The page loads with the printed address (and
//! forgets the token), a journal entry appears live when the real `cn run --once` decides an
//! item, the entry opens its "why" chain down to the git commit, an approval is approved
//! from the page, and the chart reads the budget's days.
//!
//! With `CN_SCREENSHOTS=DIR` set, a PNG of every view is written there (docs/control-room/).

mod daemon_common;
mod serve_common;

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
    let held = cn_hub::approvals::hold(
        &layout,
        "reflex_write",
        json!({"name": "greet", "yaml": yaml}),
        format!("write state/reflexes/greet.yaml:\n{yaml}"),
        "nothing".into(),
        Some("item-1".into()),
        Some("bob".into()),
        3600,
    )
    .unwrap();
    // Something in the pool and something due, for the Now view.
    cn_ok(&hub, &["task", "add", "renew the certificate", "--due", "2099-01-01T09:00:00Z"]);

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
    let hub_name = browser.wait("#hub-name");
    assert_eq!(browser.text(&hub_name), "ada");
    browser.wait("#now-due tbody tr");
    let due = browser.text(&browser.wait("#now-due"));
    assert!(due.contains("schedule daily-reflection"), "the hub's schedule, next firing: {due}");
    assert!(due.contains("2099-01-01 09:00:00 UTC task renew the certificate"), "{due}");
    assert_eq!(browser.eval("return document.cookie"), json!(""), "scripts cannot read the HttpOnly cookie");
    shoot("now");

    // Journal: an item decided by the real binary appears live.
    let tab = browser.wait("#tabs button[data-view=journal]");
    browser.click(&tab);
    browser.wait("body[data-shown=journal]");
    browser.wait("#live:not(.off)");
    let out = cn_cmd(&hub).args(["chat", "--no-wait", "good evening, how are you?"]).output().unwrap();
    let queued = String::from_utf8_lossy(&out.stderr);
    let id = queued.trim().rsplit(' ').next().unwrap().to_string();
    assert!(queued.contains("queued"), "{queued}");
    cn_ok(&hub, &["run", "--once"]);
    let entry = browser.wait(&format!("#journal-list li.entry[data-id='{id}'][data-type=decision]"));
    browser.click(&entry);
    let chain = browser.wait("#why-chain li");
    assert!(!browser.text(&chain).is_empty());
    let commit = browser.wait("#why-commits li");
    let log = std::process::Command::new("git").current_dir(&hub).args(["log", "--format=%h"]).output().unwrap();
    let hashes = String::from_utf8_lossy(&log.stdout).to_string();
    let shown = browser.text(&commit);
    assert!(hashes.lines().any(|h| shown.starts_with(h)), "the chain ends in a real commit: {shown}");
    shoot("journal");

    // Thought and money: the chart reads the ledger's days.
    browser.click(&browser.wait("#tabs button[data-view=money]"));
    browser.wait("body[data-shown=money]");
    let bars = wait_until(Duration::from_secs(30), "the chart's bars", || {
        let b = browser.all("#chart svg rect.bar");
        (b.len() == 3).then_some(b)
    });
    let tokens: Vec<String> = bars.iter().map(|b| browser.attr(b, "data-tokens").unwrap()).collect();
    assert_eq!(tokens, ["12000", "3000", "4200"]);
    let days: Vec<String> = bars.iter().map(|b| browser.attr(b, "data-day").unwrap()).collect();
    assert_eq!(days, ["2026-01-01", "2026-01-02", today().as_str()]);
    let left = browser.text(&browser.wait("#budget-left"));
    assert_eq!(left, "left today: 45,800 tokens");
    shoot("money");

    browser.click(&browser.wait("#tabs button[data-view=reflexes]"));
    let hello = browser.wait("#reflex-table tr[data-name=hello] td.status");
    assert_eq!(browser.text(&hello), "enabled");
    shoot("reflexes");

    // Approvals: exactly what would run, then approve it.
    browser.click(&browser.wait("#tabs button[data-view=approvals]"));
    let card = format!(".approval[data-id='{}']", held.id);
    let runs = browser.wait(&format!("{card} pre.runs"));
    assert_eq!(browser.text(&runs).trim(), held.runs.trim());
    shoot("approvals");
    browser.click(&browser.wait(&format!("{card} button.approve")));
    wait_until(Duration::from_secs(30), "the approval to show approved", || {
        let s = browser.all(&format!("{card} .approval-status")).into_iter().next()?;
        (browser.text(&s) == "approved").then_some(())
    });
    assert_eq!(std::fs::read_to_string(hub.join("state/reflexes/greet.yaml")).unwrap(), yaml);

    browser.click(&browser.wait("#tabs button[data-view=peers]"));
    browser.wait("body[data-shown=peers]");
    shoot("peers");
    browser.click(&browser.wait("#tabs button[data-view=loops]"));
    browser.wait("body[data-shown=loops]");
    shoot("loops");

    // Chat as the owner: with no daemon the message waits in the inbox; `cn run --once`
    // answers it and the page shows the answer.
    browser.click(&browser.wait("#tabs button[data-view=chat]"));
    let input = browser.wait("#chat-text");
    browser.type_in(&input, "hello");
    browser.click(&browser.wait("#chat-form button"));
    let pending = browser.wait("#chat-log li.agent[data-id]");
    let chat_id = browser.attr(&pending, "data-id").unwrap();
    cn_ok(&hub, &["run", "--once"]);
    let answered = browser.wait(&format!("#chat-log li.agent[data-id='{chat_id}']:not(.pending)"));
    assert!(browser.text(&answered).contains("Hello! I'm ada"), "{}", browser.text(&answered));
    shoot("chat");
}
