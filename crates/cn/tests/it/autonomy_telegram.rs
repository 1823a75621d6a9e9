//! The daemon on Telegram end to end: the real `cn run` as a child process, its Telegram
//! sense pointed at `cn_autonomy::testing::telegram::FakeTelegram` (a Bot API on loopback
//! recording every request). A refused or unreachable Bot API never shows the token in the
//! process's log. What the daemon answers whom, and a restart after a kill, are cn-daemon's
//! (crates/daemon/tests/it/telegram.rs).

use crate::daemon_common;

use std::time::Duration;

use cn_autonomy::testing::telegram::FakeTelegram;
use daemon_common::*;

const MINUTE: Duration = Duration::from_secs(60);
/// The bot token's variable: set only in the daemon's environment.
const TOKEN_ENV: &str = "CN_TEST_TELEGRAM_E2E_TOKEN";
const TOKEN: &str = "123456:e2e-SECRET_token";

/// The daemon's stderr, line by line as it is written (the daemon started with `CN_LOG=warn`).
fn stderr_lines(daemon: &mut Daemon) -> std::sync::mpsc::Receiver<String> {
    let stderr = daemon.child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufRead::lines(std::io::BufReader::new(stderr)).map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Lines from `rx` until one contains `what` (within a minute); all of them.
fn lines_until(rx: &std::sync::mpsc::Receiver<String>, what: &str) -> String {
    let deadline = std::time::Instant::now() + MINUTE;
    let mut seen = String::new();
    while !seen.contains(what) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) => {
                seen.push_str(&line);
                seen.push('\n');
            }
            Err(_) => panic!("timed out waiting for `{what}` in the daemon's log: {seen}"),
        }
    }
    seen
}

#[test]
fn a_refused_or_unreachable_bot_api_never_shows_the_token() {
    let dir = tempfile::tempdir().unwrap();
    // The fake knows another token: every call is 401 Unauthorized.
    let fake = FakeTelegram::start("999:the-right-token");
    let hub = hub(dir.path(), "ada", "cat > /dev/null\n", "");
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let senses = "senses:\n  bind: 127.0.0.1:0\n";
    let telegram = format!("{senses}{}    owners: [4242]\n", fake.sense_yaml(TOKEN_ENV));
    std::fs::write(hub.join("cn.yaml"), yaml.replace(senses, &telegram)).unwrap();
    assert!(std::env::var_os(TOKEN_ENV).is_none(), "the token is the daemon's only");
    let mut daemon = Daemon::start(&hub, &[(TOKEN_ENV, TOKEN), ("CN_LOG", "warn")]);
    let rx = stderr_lines(&mut daemon);
    let log = lines_until(&rx, "telegram getUpdates: HTTP 401: Unauthorized");
    assert!(!log.contains("SECRET"), "the token is never logged: {log}");
    assert!(fake.log.all().iter().any(|x| x.method == "getUpdates" && !x.token_ok));
    assert!(daemon.stop().success(), "a refused token does not stop the daemon");
    let rest: String = rx.iter().collect();
    assert!(!rest.contains("SECRET"), "{rest}");

    // Nothing listening at api_base: the connection error names the URL with `bot***`.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap().replace(&fake.api, &format!("http://{closed}"));
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    let mut daemon = Daemon::start(&hub, &[(TOKEN_ENV, TOKEN), ("CN_LOG", "warn")]);
    let rx = stderr_lines(&mut daemon);
    let log = lines_until(&rx, &format!("http://{closed}/bot***/getUpdates"));
    assert!(!log.contains("SECRET"), "the token is never logged: {log}");
    assert!(daemon.stop().success());
    let rest: String = rx.iter().collect();
    assert!(!rest.contains("SECRET"), "{rest}");
    let journal_text = std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap_or_default();
    assert!(!journal_text.contains("SECRET"));
}
