//! Daily use without sharp edges (issue 32), each with the real binary: a daemon that follows
//! its cn.yaml as it is edited; sections that merge with the defaults; two default hubs
//! running side by side as peers, committing nothing while idle; output piped into `head`;
//! a hub left clean after a decision; `cn chat` saying what the agent finishes first; and the
//! small things a new user met in the first hour.

use crate::daemon_common;

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use daemon_common::*;
use serde_json::Value;

const MINUTE: Duration = Duration::from_secs(60);

/// A level-2 model: a page's summary when asked for one, else `ack`.
const SUMMARIZER: &str = "prompt=$(cat)\ncase \"$prompt\" in\n  *'Summarize the following page'*) echo 'The page is about cats: cats sleep most of the day.' ;;\n  *) printf '```yaml\\ntool: ack\\nreason: seen\\n```\\n' ;;\nesac\n";

/// Acknowledges whatever it is asked.
const ACK: &str = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";

fn cn(hub: &Path, args: &[&str]) -> Output {
    cn_cmd(hub).args(args).output().expect("cn runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A loopback page server: every request gets `body`; the paths asked are recorded.
fn page_server(body: &'static str) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(Mutex::new(Vec::new()));
    let seen = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut first = String::new();
            let _ = reader.read_line(&mut first);
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            seen.lock().unwrap().push(first.split_whitespace().nth(1).unwrap_or("").to_string());
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (base, hits)
}

fn run_info(hub: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(hub.join("state/run.json")).unwrap_or_default()).unwrap_or_default()
}

/// `cn chat hello`'s answer (the hello reflex's).
fn chat_ok(hub: &Path) -> String {
    let out = cn(hub, &["chat", "--timeout", "60", "hello"]);
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The first journal entry whose summary starts with `prefix`, after the first `skip` entries.
fn entry_after(hub: &Path, skip: usize, prefix: &str) -> Option<Value> {
    journal(hub).into_iter().skip(skip).find(|e| e["summary"].as_str().is_some_and(|s| s.starts_with(prefix)))
}

#[test]
fn the_daemon_follows_cn_yaml_as_it_is_edited_and_keeps_its_config_through_a_bad_edit() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", SUMMARIZER, "");
    // A broken reflex file is said in the journal, not only skipped.
    std::fs::write(hub.join("state/reflexes/broken.yaml"), "name: broken\nlevel: [\n").unwrap();
    let (base, hits) =
        page_server("<html><body><p>Cats sleep most of the day. Cats purr. Cats hunt at night.</p></body></html>");
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    wait_until(MINUTE, "the broken reflex to be journaled", || entry_after(&hub, 0, "a reflex file was skipped"));
    std::fs::remove_file(hub.join("state/reflexes/broken.yaml")).unwrap();
    let chat = |text: &str| {
        let out = cn(&hub, &["chat", "--timeout", "60", text]);
        assert!(out.status.success(), "cn chat {text}: {}", stderr(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };

    // No `policy.urls` naming the page's loopback host: the summary reflex may not fetch it.
    chat(&format!("summarize {base}/cats"));
    assert!(hits.lock().unwrap().is_empty(), "fetched a loopback page no entry names: {:?}", hits.lock().unwrap());

    // The owner adds the host to cn.yaml while the daemon runs: a `policy:` that names only
    // `urls:` (the documented levels stay).
    let seen = journal(&hub).len();
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let with_urls = yaml.replace("policy:\n  levels:\n", &format!("policy:\n  urls: ['{base}/']\n  levels:\n"));
    assert_ne!(with_urls, yaml);
    std::fs::write(hub.join("cn.yaml"), &with_urls).unwrap();
    let reloaded =
        wait_until(MINUTE, "the daemon to take the edited cn.yaml", || entry_after(&hub, seen, "cn.yaml changed"));
    assert!(reloaded["summary"].as_str().unwrap().contains("policy"), "{reloaded}");
    let answer = chat(&format!("summarize {base}/cats"));
    assert_eq!(*hits.lock().unwrap(), ["/cats"], "the running daemon did not take policy.urls");
    assert!(answer.contains("cats sleep"), "{answer}");

    // A bad edit: refused where the owner looks, and the daemon keeps the config it runs.
    let seen = journal(&hub).len();
    std::fs::write(hub.join("cn.yaml"), format!("{with_urls}bugdet: {{daily_tokens: 5}}\n")).unwrap();
    let refused = wait_until(MINUTE, "the bad edit to be refused", || entry_after(&hub, seen, "cn.yaml edit refused"));
    let why = refused["summary"].as_str().unwrap();
    assert!(why.contains("bugdet") && why.contains("did you mean `budget`"), "{why}");
    let banner = run_info(&hub)["config_error"].as_str().unwrap_or("").to_string();
    assert!(banner.contains("bugdet"), "state/run.json's config_error (the control room's banner): {banner:?}");
    // Issue 40, finding 5: the owner is not locked out. Commands that read the hub work, and
    // say the error and that the daemon runs on its last good config; one that acts on
    // cn.yaml's values refuses it as `cn run` does.
    for read in [&["task", "list"][..], &["journal"], &["config", "show"]] {
        let out = cn(&hub, read);
        assert!(out.status.success(), "{read:?}: {}", stderr(&out));
        let said = stderr(&out);
        assert!(said.contains("bugdet") && said.contains("did you mean `budget`"), "{read:?}: {said}");
        assert!(said.contains("the daemon keeps running on its last good config"), "{read:?}: {said}");
    }
    let journaled = cn(&hub, &["journal"]);
    assert!(String::from_utf8_lossy(&journaled.stdout).contains("cn.yaml edit refused"), "the refusal can be read");
    let shown = String::from_utf8_lossy(&cn(&hub, &["config", "show"]).stdout).to_string();
    assert!(shown.contains("policy.urls") && !shown.contains("bugdet"), "{shown}");
    let out = cn(&hub, &["config", "check"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("bugdet"), "{}", stderr(&out));
    // `cn chat` talks to the daemon, which still works on the last good config (its
    // policy.urls included).
    let out = cn(&hub, &["chat", "--timeout", "60", "hello"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("last good config"), "{}", stderr(&out));
    let (status, accepted) = post(
        &daemon.owner_url(),
        &[(owner_auth(&hub).0, &owner_auth(&hub).1)],
        &format!("{{\"text\": \"summarize {base}/dogs\"}}"),
    );
    assert_eq!(status, 202, "{accepted}");
    let id = accepted["accepted"].as_str().unwrap().to_string();
    wait_until(MINUTE, "the daemon to decide it", || decided_at(&journal(&hub), &id));
    assert_eq!(*hits.lock().unwrap(), ["/cats", "/dogs"]);

    // Fixed: the refusal is over, the banner goes.
    std::fs::write(hub.join("cn.yaml"), &with_urls).unwrap();
    wait_until(MINUTE, "the banner to go", || run_info(&hub)["config_error"].is_null().then_some(()));

    // An edit that passes the check but cannot start (its port is taken): refused, and the
    // last config runs again, on its address.
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let seen = journal(&hub).len();
    let owner_url = daemon.owner_url();
    std::fs::write(hub.join("cn.yaml"), with_urls.replace("bind: 127.0.0.1:0", &format!("bind: 127.0.0.1:{port}")))
        .unwrap();
    let refused =
        wait_until(MINUTE, "the unstartable edit to be refused", || entry_after(&hub, seen, "cn.yaml edit refused"));
    let why = refused["summary"].as_str().unwrap();
    assert!(why.contains(&format!("cannot listen on 127.0.0.1:{port}")) && why.contains("senses.bind"), "{why}");
    wait_until(MINUTE, "the last config to run again", || {
        (run_info(&hub)["owner_url"] == owner_url.as_str()).then_some(())
    });
    assert!(chat_ok(&hub).contains("Hello"), "the daemon answers on its old address");
    std::fs::write(hub.join("cn.yaml"), &with_urls).unwrap();
    wait_until(MINUTE, "the banner to go", || run_info(&hub)["config_error"].is_null().then_some(()));
    drop(taken);
    let mut log = daemon.child.stderr.take().unwrap();
    let stopped = daemon.stop();
    assert!(stopped.success(), "{stopped:?}");
    // And the log said why (CN_LOG=error keeps only errors: this is one).
    let mut text = String::new();
    std::io::Read::read_to_string(&mut log, &mut text).unwrap();
    assert!(text.contains("cn.yaml changed but cannot be used") && text.contains("bugdet"), "{text}");
}

#[test]
fn a_partial_section_merges_with_the_defaults_and_config_show_says_where_each_value_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    // One `reflexes.grants` line, and a `policy:` of only `urls:` (cn init's levels removed).
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let policy_at = yaml.find("\npolicy:").unwrap();
    let yaml = format!(
        "{}\npolicy:\n  urls: ['https://example.com/']\nreflexes:\n  grants:\n    0: [reply, log]\n",
        &yaml[..policy_at]
    );
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    let show = cn_ok(&hub, &["config", "show"]);
    let line = |key: &str| {
        show.lines()
            .find(|l| l.starts_with(&format!("{key}: ")))
            .unwrap_or_else(|| panic!("no {key}:\n{show}"))
            .to_string()
    };
    assert!(line("policy.urls").ends_with("# cn.yaml"), "{show}");
    let levels = line("policy.levels.2");
    assert!(levels.contains("[reply, noop, ack, defer]") && levels.ends_with("# default"), "{levels}");
    assert!(line("reflexes.grants.0").ends_with("# cn.yaml"));
    assert!(line("senses.bind").ends_with("# cn.yaml") && line("senses.owner.enabled").ends_with("# default"));
    let json: Value = serde_json::from_str(&cn_ok(&hub, &["config", "show", "--json"])).unwrap();
    assert_eq!(json["policy.levels.3"]["from"], "default");
    assert_eq!(json["name"]["value"], "ada");

    // The one grants line leaves level 2 as it was: summarize-url still fetches and asks.
    let answers = dir.path().join("answers.json");
    std::fs::write(&answers, r#"["An example page."]"#).unwrap();
    let out = cn_cmd(&hub)
        .args(["reflex", "test", "--json", "--dry-run", "summarize https://example.com/a"])
        .env("CN_SCRIPTED_ANSWERS", &answers)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["reflex"], "summarize-url", "{v:#}");
    let refused: Vec<&Value> = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["error"].as_str().is_some_and(|e| e.contains("grant")))
        .collect();
    assert!(refused.is_empty(), "a step of summarize-url lost its grant: {v:#}");

    // `cn config check` says what `cn run` would.
    assert!(cn_ok(&hub, &["config", "check"]).contains("would start"));
    std::fs::write(
        hub.join("cn.yaml"),
        "name: ada\nmodels:\n  executive: {provider: anthropic, model: m, api_key_env: CN_TEST_NO_SUCH_KEY}\n",
    )
    .unwrap();
    let out = cn(&hub, &["config", "check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("CN_TEST_NO_SUCH_KEY"), "{}", stderr(&out));
}

#[test]
fn output_piped_into_head_is_quiet_and_exits_zero_and_empty_lists_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    for (args, says) in [
        (&["task", "list"][..], "no open tasks"),
        (&["idea", "list"], "no ideas"),
        (&["journal"], "the journal is empty"),
        (&["journal", "--type", "sync"], "no journal entry matches --type sync"),
        (&["peer", "list"], "no peers"),
    ] {
        let out = cn_ok(&hub, args);
        assert!(out.contains(says), "cn {args:?}: {out}");
    }
    // Enough of each that the reader is gone long before the writer is done.
    let state = hub.join("state");
    let tasks: Vec<Value> = (0..3000)
        .map(|i| serde_json::json!({"id": format!("task-{i:012x}"), "task": format!("task number {i}"), "created": "2026-01-01T00:00:00Z"}))
        .collect();
    std::fs::write(state.join("tasks.json"), serde_json::to_string(&tasks).unwrap()).unwrap();
    let ideas: Vec<Value> = (0..3000)
        .map(|i| serde_json::json!({"id": format!("idea-{i:012x}"), "idea": format!("idea number {i}"), "created": "2026-01-01T00:00:00Z"}))
        .collect();
    std::fs::write(state.join("ideas.json"), serde_json::to_string(&ideas).unwrap()).unwrap();
    let mut lines = String::new();
    for i in 0..5000 {
        lines.push_str(&format!(
            "{{\"ts\":\"2026-01-01T00:00:00Z\",\"type\":\"sync\",\"sent\":[\"m{i}\"],\"received\":[],\"rejected\":[]}}\n"
        ));
    }
    std::fs::write(state.join("journal.jsonl"), lines).unwrap();
    for args in ["task list", "idea list", "journal", "journal --type sync", "task list --json"] {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("set -o pipefail; \"$CN\" --hub \"$HUB\" {args} | head -1"))
            .env("CN", env!("CARGO_BIN_EXE_cn"))
            .env("HUB", &hub)
            .env_remove("CN_HUB")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "cn {args} | head -1: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "cn {args} | head -1 is not quiet");
        assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
    }
    // A sync entry reads as words, not JSON.
    let first = cn_ok(&hub, &["journal", "--type", "sync"]).lines().next().unwrap().to_string();
    assert!(first.contains("peer mail synced: 1 sent, 0 received") && !first.contains('{'), "{first}");
}

#[test]
fn the_small_things_say_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    // `cn init` says how many files its commit holds.
    let other = dir.path().join("bob");
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).arg("init").arg(&other).output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).to_string();
    let committed = git(&other, &["show", "--name-only", "--format=", "HEAD"]).lines().count();
    assert!(said.contains(&format!("({committed} files committed)")), "{said} vs {committed}");
    // cn.yaml's comment names the mail branches as they are.
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    assert!(yaml.contains("cn-mail/<name>/<id>") && !yaml.contains("`<name>/<thread-id>`"), "{yaml}");
    // `cn --help` lists `rm` for ideas and the schedule.
    let help = String::from_utf8_lossy(&cn(&hub, &["--help"]).stdout).to_string();
    for word in ["ideas.json): add, list, rm", "schedule.json): add, list, rm"] {
        assert!(help.contains(word), "{help}");
    }

    let cases: &[(&[&str], &str, &str)] = &[
        (&["out", "do", "frobnicate", "--x", "1"], "unknown op `frobnicate`", "unknown flag"),
        (&["reflex", "enable", "nosuch"], "no reflex `nosuch`", "os error"),
        (&["schedule", "add", "never", "0 0 31 2 *", "February 31st"], "never fires", "CronScheduler"),
        (&["schedule", "next", "0 0 31 2 *"], "never fires", "CronScheduler"),
        (&["parse", "/nonexistent"], "cannot read /nonexistent", "panicked"),
        (&["journal", "--type", "bogus"], "unknown entry type `bogus`", "panicked"),
    ];
    for (args, says, not) in cases {
        let out = cn(&hub, args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "cn {args:?}: {err}");
        assert!(err.contains(says) && !err.contains(not), "cn {args:?}: {err}");
    }
    // `sync` is one of the journal's types.
    assert!(cn(&hub, &["journal", "--type", "sync"]).status.success());

    // A peer whose remote does not answer is warned about, and recorded all the same.
    let out = cn(&hub, &["peer", "add", "pi", "/no/such/path"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("warning") && stderr(&out).contains("does not answer"), "{}", stderr(&out));
    assert!(cn_ok(&hub, &["peer", "list"]).contains("/no/such/path"));
    // A port another program holds: `cn run` says which key to change.
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let bind = yaml.lines().find(|l| l.trim_start().starts_with("bind: ")).unwrap().trim().to_string();
    let busy = yaml.replace(&bind, &format!("bind: {}", taken.local_addr().unwrap()));
    std::fs::write(hub.join("cn.yaml"), busy).unwrap();
    let out = cn(&hub, &["run"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("senses.bind") && stderr(&out).contains("free port"), "{}", stderr(&out));
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    // One that answers is not.
    let bare = dir.path().join("bob.git");
    git(dir.path(), &["init", "-q", "--bare", bare.to_str().unwrap()]);
    let out = cn(&hub, &["peer", "add", "bob", bare.to_str().unwrap()]);
    assert!(out.status.success() && stderr(&out).is_empty(), "{}", stderr(&out));
}

/// `cn init` a default hub `name` under `root` with an `origin` (a bare repository beside
/// it), whose local model is `model` and whose peer sync runs every second (the documented
/// `senses.peers.every`, so the test waits for syncs instead of minutes). Everything else —
/// `senses.bind` included — is what `cn init` wrote.
fn default_hub(root: &Path, name: &str, model: &str) -> PathBuf {
    let hub = init_hub(root, name);
    let origin = root.join(format!("{name}.git"));
    git(root, &["init", "-q", "--bare", origin.to_str().unwrap()]);
    git(&hub, &["remote", "add", "origin", origin.to_str().unwrap()]);
    let script = root.join(format!("{name}-model.sh"));
    std::fs::write(&script, model).unwrap();
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    let yaml = yaml
        .replace(
            "  local:\n    provider: embedded\n",
            &format!(
                "  local:\n    provider: command\n    command: [sh, {}]\n    sandbox: {{write: ['{}']}}\n",
                script.display(),
                root.display()
            ),
        )
        .replace("  peers: {every: 1m}\n", "  peers: {every: 1s}\n");
    assert!(yaml.contains("provider: command") && yaml.contains("every: 1s"), "{yaml}");
    std::fs::write(hub.join("cn.yaml"), yaml).unwrap();
    git(&hub, &["commit", "-qam", "a command model, a sync every second"]);
    hub
}

fn commits(hub: &Path) -> usize {
    git(hub, &["rev-list", "--count", "HEAD"]).trim().parse().unwrap()
}

/// The last fetch of `peer` that `state/peer-status.json` records.
fn last_fetch(hub: &Path, peer: &str) -> Option<String> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(hub.join("state/peer-status.json")).ok()?).ok()?;
    v[peer]["last-fetch"].as_str().map(str::to_string)
}

#[test]
fn two_default_hubs_run_side_by_side_as_peers_and_commit_nothing_while_idle() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, b) = (default_hub(root, "a", ACK), default_hub(root, "b", ACK));
    let bind = |h: &Path| {
        let yaml = std::fs::read_to_string(h.join("cn.yaml")).unwrap();
        yaml.lines().find(|l| l.trim_start().starts_with("bind:")).unwrap().to_string()
    };
    assert_ne!(bind(&a), bind(&b), "cn init gave both hubs the same owner endpoint");
    let mut da = Daemon::start(&a, &[]);
    let mut db = Daemon::start(&b, &[]);
    let (ua, ub) = (da.owner_url(), db.owner_url());
    assert_ne!(ua, ub);

    // Peers added while the daemons run: they start syncing (on by default) without a restart.
    cn_ok(&a, &["peer", "add", "b", root.join("b.git").to_str().unwrap()]);
    cn_ok(&b, &["peer", "add", "a", root.join("a.git").to_str().unwrap()]);
    cn_ok(&a, &["send", "--to", "b", "--message", "hello b"]);
    wait_until(MINUTE, "b's daemon to decide a's mail", || {
        journal(&b).iter().find(|e| e["type"] == "decision" && e["from"] == "a").map(|_| ())
    });
    wait_until(MINUTE, "a's daemon to decide b's notice", || {
        journal(&a).iter().find(|e| e["type"] == "decision" && e["from"] == "b").map(|_| ())
    });
    // Quiet now: every mail released by its sender, every receipt retired, both hubs clean.
    for h in [&a, &b] {
        wait_until(MINUTE, "the mail to settle and the hub to be clean", || {
            let peers: Value = serde_json::from_str(&cn_ok(h, &["peer", "list", "--json"])).ok()?;
            let settled = peers
                .as_array()?
                .iter()
                .all(|p| p["waiting_out"] == 0 && p["waiting_in"] == 0 && p["receipts_pending"] == 0);
            (settled && git(h, &["status", "--porcelain"]).trim().is_empty()).then_some(())
        });
    }
    let before = (commits(&a), commits(&b));
    // Ten idle syncs of each (a sync a second here, as the ten minutes' 2,880 commits a day
    // were a sync every 30 s): not one commit, not one changed file the hub tracks.
    for (h, peer) in [(&a, "b"), (&b, "a")] {
        let mut fetches = std::collections::BTreeSet::new();
        wait_until(MINUTE, "ten idle syncs", || {
            fetches.extend(last_fetch(h, peer));
            (fetches.len() >= 10).then_some(())
        });
    }
    assert_eq!((commits(&a), commits(&b)), before, "an idle sync committed");
    for h in [&a, &b] {
        assert_eq!(git(h, &["status", "--porcelain"]).trim(), "", "an idle sync changed a tracked file");
        assert!(cn_ok(h, &["peer", "list"]).contains("fetched 20"), "cn peer list shows the last fetch");
    }
    assert!(da.stop().success() && db.stop().success());
}

#[test]
fn a_decision_leaves_a_clean_hub_and_chat_leaves_no_session_behind() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", ACK, "");
    git(&hub, &["add", "-A"]);
    git(&hub, &["commit", "-qm", "a command model"]);
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    for i in 0..6 {
        // The hello reflex answers (its statistics change), or the model acknowledges.
        let text = if i % 2 == 0 { "hello" } else { "please look at the build" };
        let out = cn(&hub, &["chat", "--timeout", "60", text]);
        assert!(out.status.success(), "{}", stderr(&out));
        // Everything the decision changed is in a commit: no journal line outside it, no
        // untracked statistics.
        let mut dirty = String::new();
        wait_until(MINUTE, &format!("the hub to be clean after decision {i}"), || {
            dirty = git(&hub, &["status", "--porcelain", "--untracked-files=all"]);
            if dirty.trim().is_empty() {
                return Some(());
            }
            eprintln!("{dirty}");
            None
        });
    }
    let head = git(&hub, &["show", "--name-only", "--format=%s", "HEAD"]);
    assert!(head.starts_with("cn out: ") && head.contains("state/journal.jsonl"), "{head}");
    assert!(
        git(&hub, &["ls-files", "state/reflex-stats.json"]).contains("reflex-stats"),
        "the statistics are committed"
    );
    // Runtime files are ignored, not committed.
    for f in ["state/run.json", "state/run.lock", "state/attention.jsonl"] {
        assert!(git(&hub, &["ls-files", f]).is_empty(), "{f} is committed");
        assert!(hub.join(f).exists(), "{f}");
    }
    assert!(daemon.stop().success());

    // Without a daemon (no idle upkeep), chat runs `cn run --once`; its decision's commit is
    // followed by `git gc --auto`. Packing due: an afternoon's loose objects, made here at
    // once (git counts a sample, objects/17, so many are needed for a few to land there).
    git(&hub, &["config", "gc.auto", "256"]);
    let bulk = hub.join("loops/bulk");
    std::fs::create_dir_all(&bulk).unwrap();
    for i in 0..1500 {
        std::fs::write(bulk.join(i.to_string()), format!("an afternoon of history, part {i}\n")).unwrap();
    }
    git(&hub, &["add", "loops/bulk"]);
    git(&hub, &["-c", "maintenance.auto=false", "-c", "gc.auto=0", "commit", "-qm", "bulk"]);
    let loose = |hub: &Path| -> u64 {
        let counts = git(hub, &["count-objects", "-v"]);
        counts.lines().find_map(|l| l.strip_prefix("count: ")).unwrap_or("0").trim().parse().unwrap()
    };
    assert!(loose(&hub) >= 1500);
    // Every session's lock goes with its chat, too.
    for _ in 0..3 {
        let out = cn(&hub, &["chat", "--timeout", "60", "hello"]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
    wait_until(MINUTE, "git gc --auto to pack the loose objects", || (loose(&hub) < 100).then_some(()));
    let sessions = hub.join("state/sessions");
    let left: Vec<_> =
        std::fs::read_dir(&sessions).map(|d| d.flatten().map(|e| e.file_name()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "sessions left behind: {left:?}");
    // A chat killed before its end (Ctrl-C) is swept by the next one.
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::write(sessions.join("999999-chat.json"), r#"{"pid": 999999, "what": "chat"}"#).unwrap();
    std::fs::write(sessions.join("999999-chat.lock"), "").unwrap();
    let out = cn(&hub, &["chat", "--timeout", "60", "hello"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let left: Vec<_> = std::fs::read_dir(&sessions).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.is_empty(), "a dead session was not swept: {left:?}");
}

#[test]
fn chat_says_what_the_agent_finishes_before_it_answers() {
    let dir = tempfile::tempdir().unwrap();
    let gate = dir.path().join("go");
    // The executive works on the task until the test opens the gate (no fixed wait).
    let executive = format!(
        "prompt=$(cat)\ncase \"$prompt\" in\n  *'Write the weekly report'*) while [ ! -e '{gate}' ]; do sleep 0.05; done ;;\nesac\nprintf '```yaml\\ntool: ack\\nreason: done\\n```\\n'\n",
        gate = gate.display()
    );
    let hub = executive_hub(dir.path(), ACK, &executive, "budget:\n  min_interval_secs: 0\n");
    let mut daemon = Daemon::start(&hub, &[("CN_TEST_HOOK_SECRET", "s")]);
    daemon.owner_url();
    cn_ok(&hub, &["task", "add", "Write the weekly report", "--due", "2026-01-01T09:00:00Z"]);
    wait_until(MINUTE, "the executive to work on the task", || hub.join("state/working.json").exists().then_some(()));
    let mut chat = cn_cmd(&hub)
        .args(["chat", "--timeout", "60", "are you there?"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(chat.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(
        line.starts_with("cn chat: finishing task “Write the weekly report” on the executive, ")
            && line.contains(" s…"),
        "{line:?}"
    );
    std::fs::write(&gate, "").unwrap();
    let out = chat.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).trim().is_empty());
    assert!(daemon.stop().success());
}

/// Issue 40, finding 5, with no daemon: a typo in cn.yaml still lets the owner read the hub
/// (`cn task list`, `cn journal`, `cn config show` say the error and that `cn run` will not
/// start until it is fixed); `cn chat`, which would need `cn run`, says so instead of queueing
/// a message nothing will answer; a command that acts (`cn task add`) refuses it as before.
#[test]
fn a_typo_in_cn_yaml_without_a_daemon_leaves_the_hub_readable_and_says_what_will_not_start() {
    let dir = tempfile::tempdir().unwrap();
    let hub = hub(dir.path(), "ada", SUMMARIZER, "");
    cn_ok(&hub, &["task", "add", "water the plants"]);
    let yaml = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(hub.join("cn.yaml"), format!("{yaml}bugdet: {{daily_tokens: 5}}\n")).unwrap();
    for read in [&["task", "list"][..], &["journal"], &["config", "show"]] {
        let out = cn(&hub, read);
        assert!(out.status.success(), "{read:?}: {}", stderr(&out));
        let said = stderr(&out);
        assert!(said.contains("bugdet") && said.contains("`cn run` will not start until cn.yaml is fixed"), "{said}");
    }
    assert!(String::from_utf8_lossy(&cn(&hub, &["task", "list"]).stdout).contains("water the plants"));
    let out = cn(&hub, &["chat", "hello"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("no daemon is running") && stderr(&out).contains("bugdet"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_dir(hub.join("threads/inbox"))
            .unwrap()
            .filter(|e| !e.as_ref().unwrap().file_name().to_string_lossy().starts_with('.'))
            .count(),
        0,
        "nothing queued"
    );
    let out = cn(&hub, &["task", "add", "buy ink"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
