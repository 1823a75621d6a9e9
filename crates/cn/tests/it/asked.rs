//! Does what it is asked (issue 30), end to end with the real binary: a person's request is
//! done, or reaches the executive, or is handed up with the true reason — never closed with a
//! token answer; the agent makes no work of its own work; an approval resumes the work that
//! waited for it and its result reaches whoever asked.
//!
//! The executive is a real OpenAI-compatible server on loopback ([`Executive`]) that counts
//! the calls it receives: what reaches it is what it counts.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::daemon_common::{journal, md_count};
use crate::hub_common::{cn_cmd, cn_ok, init_hub};

/// An OpenAI-compatible executive on loopback: every chat completion is answered with a reply
/// tool call (streamed, as the provider asks), and counted; the last prompt is kept.
struct Executive {
    url: String,
    calls: Arc<AtomicUsize>,
    prompts: Arc<Mutex<Vec<String>>>,
}

impl Executive {
    fn start() -> Executive {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let calls = Arc::new(AtomicUsize::new(0));
        let prompts = Arc::new(Mutex::new(Vec::new()));
        let (count, seen) = (calls.clone(), prompts.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let (mut line, mut length) = (String::new(), 0);
                loop {
                    line.clear();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    continue;
                }
                count.fetch_add(1, Ordering::SeqCst);
                seen.lock().unwrap().push(String::from_utf8_lossy(&body).into_owned());
                let events = [
                    r#"{"model":"stand-in","choices":[{"index":0,"delta":{"content":"```yaml\ntool: reply\nmessage: the executive did it\n```"}}]}"#,
                    r#"{"model":"stand-in","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":20}}"#,
                ];
                let mut out =
                    String::from("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-type: text/event-stream\r\n\r\n");
                for e in events {
                    out.push_str(&format!("data: {e}\n\n"));
                }
                out.push_str("data: [DONE]\n\n");
                let _ = stream.write_all(out.as_bytes());
            }
        });
        Executive { url, calls, prompts }
    }

    fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }

    /// Configure it as `hub`'s executive (its key in `CN_TEST_EXEC_KEY`).
    fn configure(&self, hub: &Path) {
        let path = hub.join("cn.yaml");
        let yaml = std::fs::read_to_string(&path).unwrap().replacen(
            "  local:\n    provider: embedded\n",
            &format!(
                "  local:\n    provider: embedded\n  executive:\n    provider: openai\n    base_url: {}\n    model: stand-in\n    api_key_env: CN_TEST_EXEC_KEY\n",
                self.url
            ),
            1,
        );
        std::fs::write(&path, yaml).unwrap();
    }
}

/// `cn chat TEXT` (no daemon: the agent runs for the message); its answer.
fn chat(hub: &Path, text: &str) -> String {
    let out = cn_cmd(hub).args(["chat", "--timeout", "120", text]).env("CN_TEST_EXEC_KEY", "sk-test").output().unwrap();
    assert!(out.status.success(), "cn chat {text:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn decisions(hub: &Path) -> Vec<Value> {
    journal(hub).into_iter().filter(|e| e["type"] == "decision").collect()
}

fn tasks(hub: &Path) -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(hub.join("state/tasks.json")).unwrap()).unwrap()
}

fn ideas(hub: &Path) -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(hub.join("state/ideas.json")).unwrap()).unwrap()
}

const REQUESTS: [&str; 5] = [
    "Book a table for two at 7pm",
    "Send the report to Alice",
    "Cancel my 3pm meeting",
    "Deploy the website tonight",
    "Order more coffee beans",
];

/// The requests of the issue reach the executive, one call each; small talk and the routine
/// are answered below it, and no answer is a token.
#[test]
fn a_persons_requests_reach_the_executive_and_small_talk_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let exec = Executive::start();
    exec.configure(&hub);
    for (n, request) in REQUESTS.iter().enumerate() {
        let answer = chat(&hub, request);
        assert_eq!(answer, "the executive did it", "{request}");
        assert_eq!(exec.calls(), n + 1, "{request}: one executive call");
        let prompt = exec.prompts.lock().unwrap().last().cloned().unwrap_or_default();
        assert!(prompt.contains(&request.replace('"', "\\\"")), "the executive saw the request: {prompt}");
    }
    for (said, answered) in [("hello", "Hello! I'm ada"), ("thanks!", "You're welcome."), ("what time is it?", "It's ")]
    {
        let answer = chat(&hub, said);
        assert!(answer.starts_with(answered), "{said}: {answer}");
    }
    assert_eq!(exec.calls(), REQUESTS.len(), "small talk costs no executive call");
    let answer = chat(&hub, "remind me to call mom tomorrow at 5pm");
    assert!(answer.starts_with("Added: call mom — due "), "{answer}");
    let filed = tasks(&hub);
    assert_eq!(filed.len(), 1, "the routine did what was asked");
    assert!(filed[0]["due"].is_string(), "with its due time: {:?}", filed[0]);
    for d in decisions(&hub) {
        assert_ne!(d["message"], "👍", "{d}");
        assert!(d["level"].is_u64(), "every decision says which level made it: {d}");
    }
    // Nothing was filed from the requests: they were the executive's.
    assert_eq!(ideas(&hub).len(), 0);
}

/// No executive configured: a request is handed up saying so — the line of cn.yaml that adds
/// one — and waits (not retried hourly) until an executive is configured; then it reaches it.
#[test]
fn without_an_executive_a_request_waits_with_the_true_reason_until_one_is_configured() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let answer = chat(&hub, "Book a table for two at 7pm");
    assert!(answer.contains("no executive is configured") && answer.contains("models.executive"), "{answer}");
    assert!(!answer.contains("queued"), "not the old token hand-up: {answer}");
    let deferred = std::fs::read_dir(hub.join("threads/deferred"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .unwrap();
    let item = std::fs::read_to_string(&deferred).unwrap();
    assert!(item.contains("waits-for: executive") && !item.contains("\nuntil:"), "{item}");
    let d = decisions(&hub).pop().unwrap();
    assert_eq!(d["handed_up"], "handed up: no executive is configured", "{d}");
    // It is not retried: a run finds nothing to do, and the item stays where it waits.
    let out = cn_cmd(&hub).args(["run", "--once"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(deferred.is_file());
    // An executive configured: the item comes back and reaches it.
    let exec = Executive::start();
    exec.configure(&hub);
    let out = cn_cmd(&hub).args(["run", "--once"]).env("CN_TEST_EXEC_KEY", "sk-test").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(exec.calls(), 1);
    assert!(!deferred.is_file());
    let d = decisions(&hub).pop().unwrap();
    assert_eq!((d["op"].as_str(), d["level"].as_u64()), (Some("reply"), Some(3)), "{d}");
}

/// A level-2 triage that answers a request with `👍` (the old `triage-chat`) never sends it:
/// the request goes to the executive, or — with none — is handed up.
#[test]
fn a_thumbs_up_to_a_request_is_never_sent() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    // A level-2 model that classes everything as chat, and the old reflex that nods at chat.
    let exec = Executive::start();
    exec.configure(&hub);
    let script = dir.path().join("local.sh");
    std::fs::write(&script, "cat >/dev/null; echo chat\n").unwrap();
    let path = hub.join("cn.yaml");
    let yaml = std::fs::read_to_string(&path).unwrap().replacen(
        "  local:\n    provider: embedded\n",
        &format!("  local:\n    provider: command\n    command: [sh, {}]\n", script.display()),
        1,
    );
    std::fs::write(&path, yaml).unwrap();
    std::fs::write(
        hub.join("state/reflexes/triage-chat.yaml"),
        "name: triage-chat\ndescription: a greeting or thanks\nlevel: 2\ntrigger:\n  classifier: local\n  intents: [chat]\n  max_length: 40\npipeline:\n  - action: reply\n    message: \"👍\"\n",
    )
    .unwrap();
    let answer = chat(&hub, "Order more coffee beans");
    assert_eq!(answer, "the executive did it");
    assert_eq!(exec.calls(), 1);
    let reflex = journal(&hub).into_iter().find(|e| e["type"] == "reflex" && e["name"] == "triage-chat").unwrap();
    assert_eq!(reflex["outcome"], "escalated", "{reflex}");
    assert_eq!(reflex["triage"], "chat", "`cn journal why` names the class: {reflex}");
    assert!(reflex["summary"].as_str().unwrap().contains("triage-chat"), "{reflex}");
    assert!(!std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap().contains("\"message\":\"👍\""));
}

/// The agent makes no work from its own work: a past-due task, an idea and another agent's
/// notice go through triage reflexes that would file anything (an old hub's, with a level-2
/// model that says "task" and "idea" to everything) — and nothing is filed.
#[test]
fn the_agent_files_nothing_from_its_own_items_or_notices() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let script = dir.path().join("local.sh");
    std::fs::write(
        &script,
        "prompt=$(cat)\ncase \"$prompt\" in *Categories:*) echo task ;; *) printf '```yaml\\ntool: ack\\nreason: seen\\n```\\n' ;; esac\n",
    )
    .unwrap();
    let path = hub.join("cn.yaml");
    let yaml = std::fs::read_to_string(&path).unwrap().replacen(
        "  local:\n    provider: embedded\n",
        &format!("  local:\n    provider: command\n    command: [sh, {}]\n", script.display()),
        1,
    );
    std::fs::write(&path, yaml).unwrap();
    for (name, intent) in [("triage-task", "task"), ("triage-idea", "idea")] {
        std::fs::write(
            hub.join(format!("state/reflexes/{name}.yaml")),
            format!(
                "name: {name}\nlevel: 2\ntrigger:\n  classifier: local\n  intents: [{intent}]\npipeline:\n  - action: add_{intent}\n    input: \"{{{{text}}}}\"\n  - action: reply\n    message: \"Filed: {{{{text}}}}\"\n"
            ),
        )
        .unwrap();
    }
    cn_ok(&hub, &["task", "add", "file the expense report", "--due", "2000-01-01T00:00:00Z"]);
    cn_ok(&hub, &["idea", "add", "Research memory consolidation"]);
    // Another agent's notice about one of our items, as `cn sync` files it.
    std::fs::write(
        hub.join("threads/inbox/n1.md"),
        "---\nid: n1\nfrom: bob\ncadence: inbox\nqueued: 2026-11-24T10:00:00Z\nthread: t1\nkind: notice\norigin:\n  sense: peer\n  author: peer:bob\n  kind: notice\n  thread: t1\n---\n\nbob decided on your item `t1`: do ack\n",
    )
    .unwrap();
    let out = cn_cmd(&hub).args(["run", "--until-idle"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tasks = tasks(&hub);
    assert_eq!(tasks.len(), 1, "no task from the agent's own items: {tasks:?}");
    assert_eq!(ideas(&hub).len(), 1, "no idea from the agent's own items");
    let text = std::fs::read_to_string(hub.join("state/journal.jsonl")).unwrap();
    for junk in ["Task due: Task due", "Commitment follow-up: Task due", "Idea to explore: Idea to explore"] {
        assert!(!text.contains(junk), "{junk}");
    }
    // The notice was recorded on its thread, and nothing was mailed back.
    let notice = decisions(&hub).into_iter().find(|d| d["id"] == "n1").unwrap();
    assert!(notice["reason"].as_str().unwrap().starts_with("recorded on thread t1"), "{notice}");
    assert_eq!(md_count(&hub.join("threads/mail/outbox")), 0);
}

/// A peer asks for a summary of a page; fetching it for a peer needs the owner's approval.
/// The peer is told it waits for that; the owner approves; the pipeline resumes where it was
/// held, and the summary goes to the peer — not to the owner's terminal.
#[test]
fn an_approval_resumes_the_held_pipeline_and_the_peer_gets_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let page = "<html><body><h1>Tides</h1><p>Tides are the rise and fall of sea levels caused by the \
        gravity of the Moon and the Sun. Most coasts see two high tides a day.</p></body></html>";
    let (site, _hits) = cn_reflex::testing::serve_html(page.to_string()).unwrap();
    let (ada, bob) = (init_hub(dir.path(), "ada"), init_hub(dir.path(), "bob"));
    let remotes = peers(dir.path(), &ada, &bob);
    // Level 2 (a command model here) writes the summary; the owner allows the loopback page.
    let script = dir.path().join("local.sh");
    std::fs::write(
        &script,
        "cat >/dev/null; echo 'Tides rise and fall twice a day, pulled by the Moon and the Sun.'\n",
    )
    .unwrap();
    let path = ada.join("cn.yaml");
    let yaml = std::fs::read_to_string(&path)
        .unwrap()
        .replacen(
            "  local:\n    provider: embedded\n",
            &format!("  local:\n    provider: command\n    command: [sh, {}]\n", script.display()),
            1,
        )
        .replacen("  shell: false\n", &format!("  shell: false\n  urls: [\"{site}/\"]\n"), 1);
    std::fs::write(&path, yaml).unwrap();
    cn_ok(&bob, &["send", "--to", "ada", "--message", &format!("summarize {site}/tides")]);
    cn_ok(&bob, &["sync"]);
    cn_ok(&ada, &["sync"]);
    cn_ok(&ada, &["run", "--until-idle"]);
    let held = decisions(&ada).pop().unwrap();
    assert!(held["handed_up"].as_str().unwrap().contains("waits for the owner's approval"), "{held}");
    let approvals: Value = serde_json::from_str(&cn_ok(&ada, &["approvals", "--json"])).unwrap();
    let id = approvals.as_array().unwrap()[0]["id"].as_str().unwrap().to_string();
    // bob hears that it waits for the owner.
    cn_ok(&ada, &["sync"]);
    cn_ok(&bob, &["sync"]);
    let told = inbox_text(&bob);
    assert!(told.contains("needs my owner's approval"), "{told}");
    // The owner approves: the fetch runs, the item is back in ada's queue for bob.
    let approved = cn_ok(&ada, &["approve", &id]);
    assert!(approved.contains("back in the queue") && approved.contains("peer:bob"), "{approved}");
    cn_ok(&ada, &["run", "--until-idle"]);
    let done = decisions(&ada).pop().unwrap();
    assert_eq!(done["op"], "reply", "{done}");
    assert!(done["message"].as_str().unwrap().contains("Moon"), "{done}");
    cn_ok(&ada, &["sync"]);
    cn_ok(&bob, &["sync"]);
    let told = inbox_text(&bob);
    assert!(told.contains("Tides rise and fall"), "the summary reached bob: {told}");
    drop(remotes);
}

/// Two hubs that know each other over bare repositories on disk.
fn peers(root: &Path, ada: &Path, bob: &Path) -> Vec<PathBuf> {
    let mut bares = Vec::new();
    for hub in [ada, bob] {
        let name = hub.file_name().unwrap().to_str().unwrap();
        let bare = root.join(format!("{name}.git"));
        let ok = std::process::Command::new("git").args(["init", "-q", "--bare"]).arg(&bare).status().unwrap();
        assert!(ok.success());
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(hub)
            .args(["remote", "add", "origin"])
            .arg(&bare)
            .status()
            .unwrap();
        assert!(ok.success());
        bares.push(bare);
    }
    cn_ok(ada, &["peer", "add", "bob", bares[1].to_str().unwrap()]);
    cn_ok(bob, &["peer", "add", "ada", bares[0].to_str().unwrap()]);
    bares
}

/// Everything in `hub`'s inbox, concatenated.
fn inbox_text(hub: &Path) -> String {
    let mut all = String::new();
    for e in std::fs::read_dir(hub.join("threads/inbox")).unwrap().flatten() {
        all.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
    }
    all
}

/// Half an hour of a busy hub (issue 30's done-when), on an injected clock: a past-due task, an
/// idea, a file the owner edits, a calendar event, and a peer mailing every five minutes. The
/// daemon runs (libfaketime puts it five minutes further each round) and decides all of it —
/// and files no task or idea of its own items or notices, sends no token answer, and keeps its
/// commits bounded.
#[test]
fn half_an_hour_of_a_busy_hub_makes_no_work_of_its_own_work() {
    let dir = tempfile::tempdir().unwrap();
    let (ada, bob) = (init_hub(dir.path(), "ada"), init_hub(dir.path(), "bob"));
    let _remotes = peers(dir.path(), &ada, &bob);
    let start = jiff::Timestamp::now();
    let ics_time = |t: jiff::Timestamp| t.strftime("%Y%m%dT%H%M%SZ").to_string();
    std::fs::write(
        ada.join("calendar.ics"),
        format!(
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//cn//test//EN\r\nBEGIN:VEVENT\r\nUID:standup@test\r\nDTSTAMP:{s}\r\nDTSTART:{e}\r\nSUMMARY:Team standup\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
            s = ics_time(start),
            e = ics_time(start + jiff::SignedDuration::from_mins(20))
        ),
    )
    .unwrap();
    std::fs::create_dir_all(ada.join("notes")).unwrap();
    std::fs::write(ada.join("notes/plan.md"), "v0\n").unwrap();
    let path = ada.join("cn.yaml");
    // cn init's `senses:` block (up to its blank line), replaced.
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("\nsenses:\n").expect("cn init writes senses:") + 1;
    let end = start + text[start..].find("\n\n").unwrap() + 1;
    let yaml = format!(
        "{}senses:\n  bind: 127.0.0.1:0\n  files: {{paths: [notes], debounce: 100ms}}\n  calendar: [{{source: calendar.ics, lead: 15m}}]\n  peers: {{every: 5m}}\n{}",
        &text[..start],
        &text[end..]
    );
    std::fs::write(&path, yaml).unwrap();
    git_commit_all(&ada);
    cn_ok(&ada, &["task", "add", "file the expense report", "--due", "2000-01-01T00:00:00Z"]);
    cn_ok(&ada, &["idea", "add", "Research memory consolidation"]);
    let commits_before = commits(&ada);

    for round in 0..=6u32 {
        cn_ok(&bob, &["send", "--to", "ada", "--message", &format!("round {round}: hello ada, how are things?")]);
        cn_ok(&bob, &["sync"]);
        let _ = std::fs::remove_file(ada.join("state/run.json"));
        // libfaketime preloaded into cn itself (the `faketime` wrapper would stand between the
        // test's signal and the daemon).
        let mut daemon = std::process::Command::new(env!("CARGO_BIN_EXE_cn"))
            .env("LD_PRELOAD", crate::daemon_common::libfaketime())
            .env("FAKETIME", format!("+{}m", round * 5))
            .arg("--hub")
            .arg(&ada)
            .arg("run")
            .env_remove("CN_HUB")
            .env("CN_LOG", "error")
            // The wall clock five minutes further each round; the monotonic clock (timers,
            // the files sense's debounce) left alone.
            .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("faketime (Debian's faketime; scripts/deps.sh --test installs it)");
        // Once it listens, the owner edits a note (the files sense sees changes while it runs).
        crate::daemon_common::wait_until(std::time::Duration::from_secs(60), "the daemon to start", || {
            ada.join("state/run.json").exists().then_some(())
        });
        std::fs::write(ada.join("notes/plan.md"), format!("v{}\n", round + 1)).unwrap();
        let said = format!("round {round}:");
        crate::daemon_common::wait_until(
            std::time::Duration::from_secs(90),
            "bob's mail of this round decided",
            || {
                let entries = journal(&ada);
                let took = entries.iter().find(|e| {
                    e["type"] == "observation"
                        && e["summary"].as_str().is_some_and(|s| s.ends_with("from bob"))
                        && e["context"].as_str().is_some_and(|c| c.starts_with(&said))
                })?;
                let id = took["id"].as_str()?;
                entries.iter().any(|e| e["type"] == "decision" && e["id"] == id).then_some(())
            },
        );
        // The edit of this round was decided too (the files sense debounces it).
        crate::daemon_common::wait_until(std::time::Duration::from_secs(90), "the file change decided", || {
            let n = decisions(&ada).into_iter().filter(|d| d["from"] == "file").count();
            (n as u32 > round).then_some(())
        });
        // libfaketime is preloaded into the daemon itself: the signal reaches cn.
        crate::daemon_common::signal(&daemon, "TERM");
        let status = daemon.wait().unwrap();
        assert!(status.success(), "round {round}: the daemon stopped with {status}");
        cn_ok(&ada, &["sync"]);
        cn_ok(&bob, &["sync"]);
        cn_ok(&bob, &["run", "--until-idle"]);
        cn_ok(&bob, &["sync"]);
    }

    // Nothing was filed from the agent's own items, the peer's answers or the notices.
    assert_eq!(tasks(&ada).len(), 1, "{:?}", tasks(&ada));
    assert_eq!(ideas(&ada).len(), 1, "{:?}", ideas(&ada));
    assert_eq!(tasks(&bob).len(), 0, "{:?}", tasks(&bob));
    assert_eq!(ideas(&bob).len(), 0, "{:?}", ideas(&bob));
    let all = decisions(&ada);
    assert!(all.iter().any(|d| d["from"] == "calendar"), "the calendar event was decided: {all:#?}");
    for d in &all {
        assert!(d["message"].as_str().is_none_or(|m| !cn_hub::origin::is_token_answer(m)), "a token answer: {d}");
    }
    // bob's greetings were answered by ada's hello reflex; ada's automatic answers were recorded
    // on their threads at bob, never answered again.
    let bobs = decisions(&bob);
    assert!(
        bobs.iter().all(|d| d["reason"].as_str().is_some_and(|r| r.starts_with("recorded on thread"))),
        "{bobs:#?}"
    );
    // Commits stay bounded: a few a round (mail in, decisions, the sync), not one per tick.
    let made = commits(&ada) - commits_before;
    assert!(made <= 7 * 8, "{made} commits in half an hour");
}

fn git_commit_all(hub: &Path) {
    for args in [&["add", "-A"][..], &["commit", "-qm", "test setup"][..]] {
        let ok = std::process::Command::new("git").arg("-C").arg(hub).args(args).status().unwrap();
        assert!(ok.success());
    }
}

fn commits(hub: &Path) -> usize {
    let out =
        std::process::Command::new("git").arg("-C").arg(hub).args(["rev-list", "--count", "HEAD"]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// Issue 40, finding 4: a fetch the policy refuses is told as that — the reflex, the step and
/// the policy's reason — never "it needs an executive model" (an executive would not change
/// it); and the command the hand-up names shows the item: `cn input` with an empty inbox lists
/// what waits in threads/deferred/, and `cn input ID` shows it without taking it.
#[test]
fn a_refused_fetch_is_told_as_that_and_the_named_command_shows_the_item() {
    let dir = tempfile::tempdir().unwrap();
    let hub = init_hub(dir.path(), "ada");
    let answer = chat(&hub, "summarize http://127.0.0.1:9/page");
    assert!(answer.contains("could not fetch_url") && answer.contains("loopback"), "{answer}");
    assert!(!answer.contains("executive"), "an executive would not help: {answer}");
    assert!(answer.contains("`cn input ID` shows it"), "{answer}");
    let d = decisions(&hub).pop().unwrap();
    let id = d["item"].as_str().unwrap().to_string();
    assert!(d["handed_up"].as_str().unwrap().contains("loopback"), "{d}");
    // `cn input`: nothing in the inbox, and what waits is named.
    let out = cn_cmd(&hub).arg("input").output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(said.contains("1 waiting in threads/deferred/") && said.contains(&id), "{said}");
    assert!(said.contains("summarize http://127.0.0.1:9/page"), "{said}");
    // `cn input ID` shows it, and leaves it where it waits.
    let shown = cn_ok(&hub, &["input", &id]);
    assert!(shown.contains(&format!("id: {id}")) && shown.contains("summarize http://127.0.0.1:9/page"), "{shown}");
    assert!(hub.join(format!("threads/deferred/{id}.md")).is_file());
    let out = cn_cmd(&hub).args(["input", "no-such-item"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no item `no-such-item`"));
}
