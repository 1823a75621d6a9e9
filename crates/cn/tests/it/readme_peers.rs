//! README's "Two hubs on one machine", run as written: the steps are read from README.md's
//! block and each line is given to `sh` with the real `cn` first on `PATH`, in a fresh
//! directory; a line ending in `&` is a daemon (`cn run`), kept and stopped at the end. Two
//! hubs made by `cn init`, neither with a git `origin`, must exchange mail both ways under
//! their daemons within two minutes; `cn peer add` and `cn peer list` must say what a peer
//! runs to receive a hub's mail.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The `sh` block that follows README's "**Two hubs on one machine**".
fn readme_steps() -> Vec<String> {
    let readme = include_str!("../../../../README.md");
    let at = readme.find("**Two hubs on one machine**").expect("README has the two-hub steps");
    let rest = &readme[at..];
    let start = rest.find("```sh\n").expect("a sh block follows") + "```sh\n".len();
    let end = rest[start..].find("```").expect("the block ends");
    rest[start..start + end]
        .lines()
        // A comment starts at ` #` (no step quotes a `#`).
        .map(|l| l.split(" #").next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// `sh -c line` in `dir`, with the tested `cn` first on `PATH` and no `CN_HUB`.
fn sh(dir: &Path, line: &str) -> Command {
    let bin = Path::new(env!("CARGO_BIN_EXE_cn")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let mut c = Command::new("sh");
    c.arg("-c").arg(line).current_dir(dir).env("PATH", path).env_remove("CN_HUB").env("CN_LOG", "warn");
    c
}

/// The daemons the steps started, stopped (SIGTERM, then killed past a deadline) when dropped.
struct Daemons(Vec<(String, Child)>);

impl Drop for Daemons {
    fn drop(&mut self) {
        for (_, child) in &mut self.0 {
            let _ = Command::new("kill").arg("-TERM").arg(child.id().to_string()).status();
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        for (_, child) in &mut self.0 {
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Whether any file under `hub/threads` but outside its own mail (`threads/mail`) holds
/// `text`: a mail from a peer, filed.
fn filed(hub: &Path, text: &str) -> bool {
    let mut dirs: Vec<PathBuf> = vec![hub.join("threads")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                if p != hub.join("threads/mail") {
                    dirs.push(p);
                }
            } else if std::fs::read_to_string(&p).is_ok_and(|t| t.contains(text)) {
                return true;
            }
        }
    }
    false
}

#[test]
fn readme_two_hubs_exchange_mail_both_ways_under_their_daemons() {
    let steps = readme_steps();
    assert!(steps.iter().any(|s| s.ends_with('&')), "the steps start daemons: {steps:?}");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut daemons = Daemons(Vec::new());
    let mut sent = None;
    for step in &steps {
        if let Some(daemon) = step.strip_suffix('&') {
            let log = std::fs::File::create(root.join(format!("daemon-{}.log", daemons.0.len()))).unwrap();
            let child = sh(&root, &format!("exec {}", daemon.trim()))
                .stdin(Stdio::null())
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .unwrap();
            daemons.0.push((daemon.to_string(), child));
            continue;
        }
        let out = sh(&root, step).output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "README step `{step}` failed: {stdout}{stderr}");
        if step.contains(" send ") {
            sent.get_or_insert_with(Instant::now);
        }
        // `cn peer add` says what the other hub runs to receive this one's mail: its name
        // and this hub's directory (neither has an origin).
        if let Some(rest) = step.strip_prefix("cn --hub ").filter(|s| s.contains(" peer add ")) {
            let me = rest.split_whitespace().next().unwrap();
            let want = format!("cn peer add {me} {}", root.join(me).display());
            assert!(stdout.contains(&want), "`{step}` says what the peer runs ({want}): {stdout}");
            assert!(stdout.contains("no git remote `origin`"), "`{step}` says why: {stdout}");
        }
    }
    for (step, child) in &mut daemons.0 {
        assert!(child.try_wait().unwrap().is_none(), "the daemon `{step}` runs");
    }
    let (ada, bob) = (root.join("ada"), root.join("bob"));
    // Both directions, within two minutes of the first send.
    let sent = sent.expect("the steps send mail");
    let limit = Duration::from_secs(120);
    loop {
        let there = (filed(&bob, "Lunch on Friday?"), filed(&ada, "Send me the minutes"));
        if there == (true, true) {
            break;
        }
        for (step, child) in &mut daemons.0 {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the daemon `{step}` exited: {status}");
            }
        }
        let logs: String = (0..daemons.0.len())
            .map(|i| std::fs::read_to_string(root.join(format!("daemon-{i}.log"))).unwrap_or_default())
            .collect();
        assert!(
            sent.elapsed() < limit,
            "mail not delivered within {limit:?} (bob has ada's: {}, ada has bob's: {}); daemons' logs:\n{logs}",
            there.0,
            there.1
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Each hub's peer list names the other as a peer that names it back (no "does not
    // name" hint) and says what a peer runs.
    for (hub, me) in [(&ada, "ada"), (&bob, "bob")] {
        let out = sh(&root, &format!("cn --hub {me} peer list")).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(!text.contains("does not name"), "{text}");
        assert!(text.contains(&format!("cn peer add {me} {}", hub.display())), "{text}");
    }
}

/// `cn peer list` says when a peer on this machine does not name this hub, and the command
/// that fixes it; `--json` carries both.
#[test]
fn peer_list_says_a_peer_that_does_not_name_this_hub_receives_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for step in ["cn init ada", "cn init bob", "cn --hub ada peer add bob bob"] {
        assert!(sh(&root, step).status().unwrap().success(), "{step}");
    }
    let fix = format!("cn peer add ada {}", root.join("ada").display());
    let out = sh(&root, "cn --hub ada peer list").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("does not name ada yet: receives no mail until it runs `{fix}`")), "{text}");
    let out = sh(&root, "cn --hub ada peer list --json").output().unwrap();
    let peers: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(peers[0]["names_me"], false, "{peers}");
    assert_eq!(peers[0]["to_receive"], fix.as_str(), "{peers}");
    // Named back: the hint goes.
    assert!(sh(&root, "cn --hub bob peer add ada ada").status().unwrap().success());
    let out = sh(&root, "cn --hub ada peer list --json").output().unwrap();
    let peers: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(peers[0]["names_me"], true, "{peers}");
}
