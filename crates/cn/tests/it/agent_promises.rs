//! The agent keeps its word (issue 18), through the binary: an owner's request `cn chat`
//! sends to the embedded model is answered or handed up, never dropped by a level below the
//! executive; an idle week on an injected clock costs nothing; `cn journal why` shows the
//! whole chain; real `cn chat` and `cn loop run` sessions keep the daemon from the executive.
//! What a run does to tasks, promises, silent reflexes, sessions and ideas in-process is
//! cn-daemon's (crates/daemon/tests/it/promises.rs).

use crate::daemon_common;

use std::path::{Path, PathBuf};
use std::process::Command;

use daemon_common::*;

const MINUTE: std::time::Duration = std::time::Duration::from_secs(60);

/// A default hub, as `cn init` writes it: level 2 is the embedded SmolLM2, no executive.
fn default_hub(root: &Path, name: &str) -> PathBuf {
    let hub = root.join(name);
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).arg("init").arg(&hub).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    hub
}

/// The issue's finding, on the embedded model: "Can you review …" → `do noop: No action
/// taken`. Now a request nothing below the executive can do is handed up with the true reason
/// (no executive is configured: it waits until one is), and the routine is done.
#[test]
fn an_owner_request_at_level_2_is_never_closed_by_a_noop() {
    let dir = tempfile::tempdir().unwrap();
    let hub = default_hub(dir.path(), "ada");
    for request in [
        "Can you review the draft of my blog post by Friday?",
        "Please add a task to call the dentist tomorrow",
        "Delete the old notes, they are useless",
    ] {
        let out = cn_ok(&hub, &["chat", request]);
        // What was done, in words: not an op's reason passed off as an answer.
        assert!(
            out.contains("no executive is configured") || out.starts_with("Added: call the dentist — due "),
            "{request}: {out}"
        );
    }
    let entries = journal(&hub);
    let decisions: Vec<_> = entries.iter().filter(|e| e["type"] == "decision" && e["from"] == "owner").collect();
    assert_eq!(decisions.len(), 3, "{decisions:#?}");
    for d in &decisions {
        let closed = d["gtd"] == "delete" || d["op"] == "noop" || d["op"] == "ack";
        assert!(!closed, "a level-2 decision closed an owner request: {d}");
        if d["gtd"] == "defer" {
            assert_eq!(d["handed_up"], "handed up: no executive is configured", "{d}");
            assert!(d["until"].is_null(), "it waits for an executive, not for a time: {d}");
        }
    }
}

/// Issue 17's finding in `cn demo`: a task falling due was decided by the embedded model with
/// "The item is not available for delivery". Whatever the local model writes now, what
/// reaches a thread is about the task, or the task is handed up honestly (left open, back
/// later) — never the embarrassing line.
#[test]
fn a_task_falling_due_at_level_2_gets_no_embarrassing_reply() {
    let dir = tempfile::tempdir().unwrap();
    let hub = default_hub(dir.path(), "ada");
    let task = "Write a one-line status note for the owner";
    cn_ok(&hub, &["task", "add", task, "--due", "2000-01-01T00:00:00Z", "--priority", "1"]);
    cn_ok(&hub, &["run", "--until-idle"]);
    let entries = journal(&hub);
    let decision = entries
        .iter()
        .find(|e| e["type"] == "decision" && e["from"] == "ada")
        .unwrap_or_else(|| panic!("no decision on the task: {entries:#?}"));
    if decision["op"] == "reply" {
        let message = decision["message"].as_str().unwrap_or_default();
        let content = format!("Task due: {task}");
        assert!(cn_reflex::vet::check(message, &content, &content).is_ok(), "an unfit reply was sent: {decision}");
    } else {
        // No executive: the embedded model does not pretend; cn closes the impulse saying
        // that nothing below the executive can do it, and the task stays open.
        assert_eq!((decision["op"].as_str(), decision["level"].as_u64()), (Some("ack"), Some(1)), "{decision}");
        let reason = decision["reason"].as_str().unwrap();
        assert!(
            reason.contains("nothing below the executive can do it") && reason.contains("stays open"),
            "{decision}"
        );
    }
    let all = serde_json::to_string(&tasks(&hub)).unwrap();
    assert!(!all.contains("\"done\":true"), "a level-2 decision completed the task: {all}");
    for dir in ["threads/archived", "threads/deferred"] {
        for e in std::fs::read_dir(hub.join(dir)).unwrap().flatten() {
            let text = std::fs::read_to_string(e.path()).unwrap();
            assert!(!text.contains("not available for"), "{}: {text}", e.path().display());
        }
    }
}

/// A hub whose local level and executive are shell scripts (`local`, `exec`), with no
/// minimum interval between autonomous executive calls.
fn scripted_hub(root: &Path, local: &str, exec: &str) -> PathBuf {
    let hub = root.join("ada");
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).arg("init").arg(&hub).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(hub.join("cn.yaml"), cn_testkit::hub::scripted_models(root, local, exec)).unwrap();
    hub
}

fn tasks(hub: &Path) -> Vec<serde_json::Value> {
    serde_json::from_str(&cn_ok(hub, &["task", "list", "--all", "--json"])).unwrap()
}

/// Schedule state as if the daily reflection last fired a day and an hour ago, so the next
/// run fires it once.
fn a_day_passes(hub: &Path) {
    let then = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(25);
    let state = serde_json::json!({"daily-reflection": {"last_fired": cn_storage::rfc3339(then)}});
    std::fs::write(hub.join("state/schedule-state.json"), state.to_string()).unwrap();
}

/// `cn ARGS` on `hub` with the clock `day` days ahead (libfaketime: an injected clock for
/// the real binary).
fn cn_on_day(hub: &Path, day: u32, args: &[&str]) {
    let out = Command::new("faketime")
        .arg("-f")
        .arg(format!("+{day}d"))
        .arg(env!("CARGO_BIN_EXE_cn"))
        .arg("--hub")
        .arg(hub)
        .args(args)
        .output()
        .expect("faketime (Debian's faketime; scripts/deps.sh --test installs it)");
    assert!(out.status.success(), "day {day}: cn {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// An idle week costs no thinking (issue 17): a daily reflection over a day in which nothing
/// was decided is closed without a model; after a day with work, it goes to the executive.
/// Seven days on an injected clock, the real binary.
#[test]
fn an_idle_week_costs_no_executive_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("exec.calls");
    let exec = format!(
        "cat >/dev/null; echo call >> {}; printf '```yaml\\ntool: ack\\nreason: reflected on the review\\n```\\n'\n",
        calls.display()
    );
    let hub =
        scripted_hub(dir.path(), "cat >/dev/null; printf '```yaml\\ntool: noop\\nreason: small\\n```\\n'\n", &exec);
    a_day_passes(&hub);
    for day in 0..7 {
        cn_on_day(&hub, day, &["run", "--until-idle"]);
    }
    assert!(!calls.exists(), "the executive was asked in an idle week: {:?}", std::fs::read_to_string(&calls));
    let quiet: Vec<_> = journal(&hub)
        .into_iter()
        .filter(|e| e["type"] == "decision" && e["cadence"] == "daily")
        .map(|e| e["reason"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(quiet.len(), 7, "one reflection a day: {quiet:?}");
    assert!(quiet.iter().all(|r| r.starts_with("A quiet day")), "{quiet:?}");
    let budget: serde_json::Value = serde_json::from_str(&cn_ok(&hub, &["budget", "--json"])).unwrap();
    let days = budget["history"].as_array().into_iter().flatten().chain([&budget["today"]]);
    let spent: u64 = days.map(|d| d["tokens"].as_u64().unwrap_or(0)).sum();
    assert_eq!(spent, 0, "{budget}");

    // A day with work: the owner's request was decided, so the reflection after it is the
    // executive's (and the one after that, with nothing new, is quiet again).
    cn_on_day(&hub, 7, &["chat", "Please review the release checklist"]);
    cn_on_day(&hub, 8, &["run", "--until-idle"]);
    let n = std::fs::read_to_string(&calls).unwrap_or_default().lines().count();
    assert_eq!(n, 2, "the owner's item and the reflection after it went to the executive");
    let reasons: Vec<_> = journal(&hub)
        .into_iter()
        .filter(|e| e["type"] == "decision" && e["cadence"] == "daily")
        .map(|e| e["reason"].as_str().unwrap_or_default().to_string())
        .collect();
    let reflected = reasons.iter().filter(|r| *r == "reflected on the review").count();
    assert_eq!(
        reflected, 1,
        "the first reflection after the work was the executive's, the next quiet again: {reasons:?}"
    );
}

/// The executive's prompt carries the time and zone, the item's thread and a digest of the
/// journal; `cn journal why ID` shows the whole chain, the action, the reasoning and the
/// commit included.
#[test]
fn the_executive_knows_the_time_and_why_shows_the_whole_chain() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("prompt.txt");
    let exec = format!(
        "cat > {}\nprintf 'The owner wants a date; tomorrow is known from the clock line.\\n\\n```yaml\\ntool: reply\\nmessage: Tomorrow it is.\\n```\\n'\n",
        seen.display()
    );
    let hub = scripted_hub(dir.path(), &exec, &exec);
    // Not a starter reflex's (those answer "what did you do today" from the journal).
    cn_ok(&hub, &["chat", "Could you check the deploy logs for errors?"]);
    // Not the routine's either ("Remind me tomorrow" is now asked about below the executive).
    let out = cn_ok(&hub, &["chat", "Which is better for the bank call, tomorrow or Friday?"]);
    assert_eq!(out.trim(), "Tomorrow it is.");
    let prompt = std::fs::read_to_string(&seen).unwrap();
    let today = String::from_utf8(Command::new("date").arg("+%Y-%m-%d").output().unwrap().stdout).unwrap();
    assert!(prompt.contains(&format!("Now: {}", today.trim())) && prompt.contains("time zone"), "{prompt}");
    assert!(prompt.contains("What you did lately") && prompt.contains("do reply: Tomorrow it is."), "{prompt}");

    let id = journal(&hub)
        .iter()
        .rev()
        .find(|e| e["type"] == "decision" && e["from"] == "owner")
        .and_then(|e| e["id"].as_str().map(str::to_string))
        .unwrap();
    let why = cn_ok(&hub, &["journal", "why", &id]);
    for part in
        ["salience", "took item", "action", "params:", "reasoning: The owner wants a date", "decision", "commit"]
    {
        assert!(why.contains(part), "`{part}` missing from:\n{why}");
    }
}

/// The executive reads the item's thread in its prompt, and `cn journal why ID` shows the
/// actions it took with their results (issue 18, point 5).
#[test]
fn the_executive_reads_the_thread_and_why_shows_the_action_results() {
    let dir = tempfile::tempdir().unwrap();
    let seen = dir.path().join("prompt.txt");
    let asked = dir.path().join("asked");
    // The first ask reads a file; the second answers.
    let exec = format!(
        "cat > {seen}\nif [ -f {asked} ]; then printf '```yaml\\ntool: reply\\nmessage: Step 7 broke.\\n```\\n'; \
         else touch {asked}; printf '```yaml\\ntool: read_file\\npath: notes/build.txt\\n```\\n'; fi\n",
        seen = seen.display(),
        asked = asked.display()
    );
    let local = "cat > /dev/null; printf '```yaml\\ntool: noop\\nreason: later\\n```\\n'\n";
    let hub = scripted_hub(dir.path(), local, &exec);
    std::fs::create_dir_all(hub.join("notes")).unwrap();
    std::fs::write(hub.join("notes/build.txt"), "The build broke on step 7 (linking).\n").unwrap();
    let put = |id: &str, queued: &str, text: &str| {
        let item = format!("---\nid: {id}\nfrom: owner\ncadence: inbox\nqueued: {queued}\nthread: t1\n---\n{text}\n");
        std::fs::write(hub.join(format!("threads/inbox/{id}.md")), item).unwrap();
    };
    put("b1", "2026-01-06T15:00:00Z", "The nightly build failed again.");
    cn_ok(&hub, &["input"]);
    cn_ok(&hub, &["out", "do", "reply", "--message", "I will look into it."]);
    put("b2", "2026-01-06T16:00:00Z", "Could you look at why the build failed?");
    cn_ok(&hub, &["run", "--once"]);
    let prompt = std::fs::read_to_string(&seen).unwrap();
    assert!(prompt.contains("## Thread") && prompt.contains("owner: The nightly build failed again."), "{prompt}");
    let why = cn_ok(&hub, &["journal", "why", "b2"]);
    for part in [
        "read_file",
        "params: {\"path\":\"notes/build.txt\"}",
        "result:",
        "The build broke on step 7",
        "do reply: Step 7 broke.",
    ] {
        assert!(why.contains(part), "`{part}` missing from:\n{why}");
    }
}

/// The same check end to end: a real `cn chat` process (waiting for a line on its stdin)
/// holds the session while a running daemon takes an autonomous task; the daemon leaves the
/// executive alone and the journal says why. Once chat has quit, the next autonomous work
/// goes to the executive again and the journal says the session ended.
#[test]
fn a_running_daemon_defers_to_a_cn_chat_session_and_resumes_after() {
    let dir = tempfile::tempdir().unwrap();
    defers_to_a_session_while_it_runs(dir.path(), "chat", |hub| {
        let chat = cn_cmd(hub)
            .arg("chat")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // EOF on its stdin ends the chat.
        (chat, Box::new(|chat: &mut std::process::Child| drop(chat.stdin.take())))
    });
}

/// An AI loop's controller is an executive session too: a real `cn loop run` on the hub
/// (its sensor waiting for a file the test writes) holds it while the daemon defers.
#[test]
fn a_running_daemon_defers_to_a_cn_loop_run_and_resumes_after() {
    let dir = tempfile::tempdir().unwrap();
    let code = dir.path().join("code");
    let go = dir.path().join("go");
    std::fs::create_dir_all(code.join("loop-run")).unwrap();
    std::fs::write(code.join("README"), "code\n").unwrap();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.name", "Loop Test"],
        &["config", "user.email", "loop@test.invalid"],
        &["add", "README"],
        &["commit", "-q", "-m", "initial"],
    ] {
        assert!(Command::new("git").args(args).current_dir(&code).status().unwrap().success());
    }
    let task = format!(
        "---\nmax-iterations: 1\nsensors:\n  s:\n    command: \"while [ ! -e {go} ]; do sleep 0.05; done; echo measured\"\n\
         controller: {{command: \"printf -- '---\\\\ntarget-met: true\\\\n---\\\\n' > $CN_LOOP_RUN/controller-output.md\"}}\n\
         actuator: {{command: \"true\"}}\n---\n\n# Task\n\nMeasure.\n",
        go = go.display()
    );
    std::fs::write(code.join("loop-run/task.md"), task).unwrap();
    defers_to_a_session_while_it_runs(dir.path(), "loop", |hub| {
        let run = cn_cmd(hub).args(["loop", "run"]).arg(&code).stdout(std::process::Stdio::null()).spawn().unwrap();
        // The sensor finishes once `go` exists; the loop then ends (its target is met).
        (run, Box::new(move |_: &mut std::process::Child| std::fs::write(&go, "").unwrap()))
    });
}

type Holder = (std::process::Child, Box<dyn FnOnce(&mut std::process::Child)>);

/// With `hold` (a real cn process announcing a `what` session) running, a daemon on a
/// scripted hub decides an autonomous task below the executive and journals why; after the
/// process has ended (`hold`'s second part makes it end), the executive works again.
fn defers_to_a_session_while_it_runs(root: &Path, what: &str, hold: impl FnOnce(&Path) -> Holder) {
    let marker = root.join("exec-asked");
    let exec =
        format!("cat > /dev/null; touch {}\nprintf '```yaml\\ntool: ack\\nreason: done\\n```\\n'\n", marker.display());
    let local = "cat > /dev/null; printf '```yaml\\ntool: noop\\nreason: later\\n```\\n'\n";
    let hub = scripted_hub(root, local, &exec);
    let (mut holder, end) = hold(&hub);
    let sessions = hub.join("state/sessions");
    let file = format!("{}-{what}.json", holder.id());
    wait_until(MINUTE, "the session to be announced", || sessions.join(&file).is_file().then_some(()));
    let daemon = Daemon::start(&hub, &[]);
    cn_ok(&hub, &["task", "add", "Tidy the notes", "--due", "2020-01-01"]);
    let said = |entries: &[serde_json::Value], text: &str| {
        entries.iter().find(|e| e["summary"].as_str().is_some_and(|s| s.contains(text))).cloned()
    };
    let deferred = wait_until(MINUTE, "the task decided at the local level", || {
        let entries = journal(&hub);
        entries.iter().any(|e| e["type"] == "decision" && e["from"] == "ada").then_some(entries)
    });
    assert!(!marker.exists(), "the executive was asked while the {what} session ran");
    let why = format!("an executive session runs ({what}, pid {})", holder.id());
    assert!(said(&deferred, &why).is_some(), "`{why}` not journaled: {deferred:#?}");

    end(&mut holder);
    let status = wait_until(MINUTE, "the session's process to end", || holder.try_wait().unwrap());
    assert!(status.success(), "{what}: {status}");
    assert!(!sessions.join(&file).exists(), "the session file is removed when it ends");
    cn_ok(&hub, &["task", "add", "Water the plants", "--due", "2020-01-01"]);
    let deadline = std::time::Instant::now() + MINUTE;
    while !marker.exists() {
        let entries = journal(&hub);
        assert!(std::time::Instant::now() < deadline, "the executive was not asked again: {entries:#?}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let entries = journal(&hub);
    let resumed = format!("session ({what}, pid {}) has ended: autonomous executive work resumes", holder.id());
    assert!(said(&entries, &resumed).is_some(), "`{resumed}` not journaled: {entries:#?}");
    assert!(daemon.stop().success());
}
