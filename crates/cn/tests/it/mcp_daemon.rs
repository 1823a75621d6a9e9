//! MCP tools in the running daemon (issue 21): the real `cn run` with the reference
//! `mcp-server-time` (PyPI) in cn.yaml's `mcp:`. The executive (a script standing in for the
//! level-3 model) calls `time.get_current_time` on the owner's item and replies with what the
//! server said; the same call on a stranger's item (a GitHub webhook) is refused by the trust
//! boundary, and a tool of the server that cn.yaml does not grant is refused by policy, with
//! nothing sent to the server either time. A server that never answers delays nothing: the
//! daemon answers the owner at once. And `cn reflex test` runs a reflex's `mcp` action.

use crate::daemon_common;
use crate::mcp_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use daemon_common::*;
use serde_json::Value;

const MINUTE: Duration = Duration::from_secs(60);

/// The executive: with no outcome yet, it calls an MCP tool (`time.convert_time` when the
/// item says "convert", else `time.get_current_time`); once the server answered, it replies
/// with the time; once a call failed, it tells the owner why (a stranger gets an `ack`). Its
/// last prompt is kept in `exec-prompt`.
const EXECUTIVE: &str = r#"prompt=$(cat)
dir=$(dirname "$0")
printf '%s' "$prompt" > "$dir/exec-prompt"
outcomes=$(printf '%s\n' "$prompt" | awk '/^## Recent outcomes/{f=1;next} /^## /{f=0} f')
item=$(printf '%s\n' "$prompt" | awk '/^## Item/{f=1} f')
case "$outcomes" in
  *"succeeded"*)
    t=$(printf '%s\n' "$outcomes" | sed -n 's/.*datetime[^0-9]*\([0-9][0-9T:.+-]*\).*/\1/p' | head -1)
    printf '```yaml\ntool: reply\nmessage: "It is %s"\n```\n' "$t" ;;
  *"failed"*)
    case "$item" in
      *"From: owner"*)
        why=$(printf '%s\n' "$outcomes" | grep failed | head -1 | tr -d '"\\')
        printf '```yaml\ntool: reply\nmessage: |\n  refused %s\n```\n' "$why" ;;
      *) printf '```yaml\ntool: ack\nreason: the tool was refused\n```\n' ;;
    esac ;;
  *)
    case "$item" in
      *convert*) printf '```yaml\ntool: time.convert_time\nsource_timezone: UTC\ntime: "12:00"\ntarget_timezone: Europe/Paris\n```\n' ;;
      *) printf '```yaml\ntool: time.get_current_time\ntimezone: UTC\n```\n' ;;
    esac ;;
esac
"#;

/// Level 2 answers the owner (the hanging-server test runs without an executive).
const LOCAL: &str = r#"prompt=$(cat)
case "$prompt" in
  *"From: owner"*) printf '```yaml\ntool: reply\nmessage: status is green\n```\n' ;;
  *) printf '```yaml\ntool: ack\nreason: seen\n```\n' ;;
esac
"#;

fn venv() -> PathBuf {
    let py = mcp_support::python().expect("the MCP venv");
    py.parent().and_then(Path::parent).unwrap().to_path_buf()
}

/// A hub whose executive is `EXECUTIVE`, level 3 granted `grants`, with `mcp` (YAML under
/// `mcp:`) and a GitHub webhook.
fn mcp_hub(dir: &Path, grants: &str, mcp: &str) -> PathBuf {
    executive_hub(dir, LOCAL, EXECUTIVE, &format!("    3: [reply, noop, ack, defer{grants}]\nmcp:\n{mcp}"))
}

/// `mcp-server-time` behind `tee`, so the test sees every request cn sent it (its sandbox
/// lets it write that one file).
fn time_server(venv: &Path, requests: &Path) -> String {
    let bin = venv.join("bin/mcp-server-time");
    std::fs::write(requests, "").unwrap();
    format!(
        "  time:\n    command: [sh, -c, \"tee -a '{r}' | '{}' --local-timezone UTC\"]\n    timeout: 30s\n    sandbox: {{write: ['{r}']}}\n",
        bin.display(),
        r = requests.display(),
    )
}

fn tool_calls(requests: &Path) -> Vec<Value> {
    std::fs::read_to_string(requests)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["method"] == "tools/call")
        .collect()
}

fn actions<'a>(entries: &'a [Value], tool: &str) -> Vec<&'a Value> {
    entries.iter().filter(|e| e["type"] == "action" && e["tool"] == tool).collect()
}

#[test]
fn the_executive_calls_an_mcp_tool_for_the_owner_and_never_for_a_stranger() {
    let venv = venv();
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("requests.jsonl");
    let hub = mcp_hub(dir.path(), ", time.get_current_time", &time_server(&venv, &requests));
    let secret = "hook-secret";
    let mut daemon = Daemon::start(&hub, &[("CN_TEST_HOOK_SECRET", secret)]);
    let owner_url = daemon.owner_url();
    let ready = wait_until(MINUTE, "the time server's tools to join", || {
        journal(&hub)
            .into_iter()
            .find(|e| e["summary"].as_str().is_some_and(|s| s.starts_with("MCP server `time` is ready")))
    });
    let joined: Vec<&str> = ready["tools"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(joined.contains(&"time.get_current_time") && joined.contains(&"time.convert_time"), "{ready}");

    // The owner asks: the executive calls the tool, sees its answer and replies with it.
    let out = cn_ok(&hub, &["chat", "--timeout", "60", "fetch the current UTC datetime from the time server"]);
    let entries = journal(&hub);
    let calls = actions(&entries, "time.get_current_time");
    assert_eq!(calls.len(), 1, "{entries:#?}");
    assert_eq!(calls[0]["outcome"], "ok", "{:#}", calls[0]);
    assert_eq!(calls[0]["level"], 3);
    let text = calls[0]["result"]["text"].as_str().unwrap();
    let answer: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    let datetime = answer["datetime"].as_str().unwrap();
    assert_eq!(answer["timezone"], "UTC");
    assert_eq!(out.trim(), format!("It is {datetime}"), "the reply carries what the server said");
    // The executive was shown the server's tool with the server's own schema.
    let prompt = std::fs::read_to_string(dir.path().join("exec-prompt")).unwrap();
    assert!(prompt.contains("tool: time.get_current_time") && prompt.contains("timezone"), "{prompt}");
    assert!(!prompt.contains("tool: time.convert_time"), "an ungranted tool is not offered: {prompt}");
    assert_eq!(tool_calls(&requests).len(), 1);

    // A tool of the same server that cn.yaml does not grant: refused by policy.
    let out = cn_ok(&hub, &["chat", "--timeout", "60", "convert noon UTC to Paris time"]);
    assert!(out.contains("level 3 may not call `time.convert_time`"), "{out}");

    // A stranger's item (a GitHub issue) that asks for the same tool: refused by the trust
    // boundary before anything reaches the server.
    let hook_url = owner_url.replace(cn_autonomy::senses::OWNER_PATH, cn_autonomy::senses::GITHUB_PATH);
    let body = serde_json::json!({
        "action": "opened",
        "issue": {"number": 7, "title": "fetch the current UTC datetime from the time server", "body": "call your time tool", "html_url": "https://example.invalid/issues/7", "user": {"login": "mallory"}},
        "repository": {"full_name": "acme/widgets"},
        "sender": {"login": "mallory"}
    })
    .to_string();
    let sig = cn_autonomy::senses::github::sign(secret.as_bytes(), body.as_bytes());
    let (status, answer) = post(&hook_url, &[("x-github-event", "issues"), ("x-hub-signature-256", &sig)], &body);
    assert!(status < 300, "{status} {answer}");
    let entries = wait_until(MINUTE, "the stranger's item decided", || {
        let e = journal(&hub);
        e.iter().any(|d| d["type"] == "decision" && d["from"] == "github" && d["place"].is_string()).then_some(e)
    });
    assert!(daemon.stop().success());
    let calls = actions(&entries, "time.get_current_time");
    assert_eq!(calls.len(), 2, "the executive tried: {entries:#?}");
    assert_eq!(calls[1]["outcome"], "error");
    let error = calls[1]["error"].as_str().unwrap();
    assert!(error.contains("owner's items only") && error.contains("github"), "{error}");
    let converts = actions(&entries, "time.convert_time");
    assert_eq!(converts.len(), 1);
    assert!(converts[0]["error"].as_str().unwrap().contains("may not call"), "{:#}", converts[0]);
    assert_eq!(tool_calls(&requests).len(), 1, "only the owner's call reached the server");
}

/// A server that never answers (it keeps its pipes open and says nothing) delays nothing: the
/// daemon answers the owner while it is still starting, the journal says it is down, and
/// stopping the daemon kills it.
#[test]
fn a_server_that_hangs_at_start_delays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("stuck.pid");
    std::fs::write(&pidfile, "").unwrap();
    // It hangs far longer than the test waits for the owner's answer.
    let mcp = format!(
        "  stuck:\n    command: [sh, -c, \"echo $$ > '{p}'; exec sleep 3600\"]\n    timeout: 300s\n    sandbox: {{write: ['{p}']}}\n",
        p = pidfile.display()
    );
    let hub = hub(dir.path(), "ada", LOCAL, &format!("mcp:\n{mcp}"));
    let mut daemon = Daemon::start(&hub, &[]);
    daemon.owner_url();
    let pid = wait_until(MINUTE, "the stuck server to start", || {
        std::fs::read_to_string(&pidfile).ok().and_then(|p| p.trim().parse::<u32>().ok())
    });
    let out = cn_cmd(&hub).args(["chat", "--timeout", "30", "relay the zebra report"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "status is green");
    assert!(Path::new(&format!("/proc/{pid}")).exists(), "the server is still starting");
    assert!(!journal(&hub).iter().any(|e| e["summary"].as_str().is_some_and(|s| s.contains("`stuck` is ready"))));
    assert!(daemon.stop().success());
    wait_until(MINUTE, "the stuck server to be killed with the daemon", || {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Gone, or a zombie its parent has not reaped.
        (state.is_empty() || state.split_whitespace().nth(2) == Some("Z")).then_some(())
    });
}

/// `cn reflex test` runs a reflex's `mcp` action against the configured server, for the
/// owner; with `--source` a stranger's sense, the server refuses it.
#[test]
fn cn_reflex_test_calls_the_mcp_server() {
    let venv = venv();
    let dir = tempfile::tempdir().unwrap();
    let requests = dir.path().join("requests.jsonl");
    let hub = hub(
        dir.path(),
        "ada",
        LOCAL,
        &format!("reflexes:\n  grants:\n    1: [mcp, time.*, log]\nmcp:\n{}", time_server(&venv, &requests)),
    );
    std::fs::create_dir_all(hub.join("state/reflexes")).unwrap();
    std::fs::write(
        hub.join("state/reflexes/utc-now.yaml"),
        "name: utc-now\ndescription: The time in UTC, from the time server\nlevel: 1\ntrigger:\n  pattern: \"utc time please\"\npipeline:\n  - action: mcp\n    tool: time.get_current_time\n    args: {timezone: UTC}\n    output: now\n  - action: log\n    message: \"{{now}}\"\n",
    )
    .unwrap();
    let out: Value = serde_json::from_str(&cn_ok(&hub, &["reflex", "test", "--json", "utc time please"])).unwrap();
    assert_eq!(out["reflex"], "utc-now", "{out:#}");
    assert_eq!(out["escalate"], false, "{out:#}");
    assert_eq!(out["steps"][0]["action"], "mcp");
    let text = out["steps"][0]["output"]["text"].as_str().unwrap();
    assert!(text.contains("\"timezone\": \"UTC\"") && text.contains("datetime"), "{text}");
    assert_eq!(tool_calls(&requests).len(), 1);

    let out: Value =
        serde_json::from_str(&cn_ok(&hub, &["reflex", "test", "--json", "--source", "github", "utc time please"]))
            .unwrap();
    assert_eq!(out["escalate"], true, "{out:#}");
    let error = out["steps"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("owner's items only"), "{out:#}");
    assert_eq!(tool_calls(&requests).len(), 1, "nothing reached the server");
}
