//! A hub's files as the tests of every crate read and write them, knowing no crate of cn's:
//! items put in the inbox as a sense would, snapshots to prove nothing changed, the journal.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::git;

/// Put an item straight into the inbox, as a sense or a person would.
pub fn put_item(hub: &Path, id: &str, from: &str, cadence: &str, queued: &str, content: &str) {
    let text = format!("---\nid: {id}\nfrom: {from}\ncadence: {cadence}\nqueued: {queued}\n---\n\n{content}\n");
    std::fs::write(hub.join("threads/inbox").join(format!("{id}.md")), text).unwrap();
}

/// Every file of the hub (outside `.git`) with its bytes, plus HEAD: to prove nothing changed.
pub fn snapshot(hub: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let bytes = std::fs::read(&p).unwrap();
                out.insert(
                    p.strip_prefix(root).unwrap().display().to_string(),
                    String::from_utf8_lossy(&bytes).into_owned(),
                );
            }
        }
    }
    walk(hub, hub, &mut out);
    out.insert("HEAD".into(), git(hub, &["rev-parse", "HEAD"]));
    out
}

/// The paths whose content differs between two snapshots (short, for assertion messages).
pub fn changed(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>) -> Vec<String> {
    a.keys().chain(b.keys()).filter(|k| a.get(*k) != b.get(*k)).cloned().collect()
}

/// Every entry of the hub's journal. A line that is not JSON fails the test unless it is
/// what a kill mid-append leaves by design (`cn_storage::journal`): the last line without its
/// newline, or such a fragment sealed by the next append with `~`. Readers skip both.
pub fn journal(hub: &Path) -> Vec<serde_json::Value> {
    let path = hub.join("state/journal.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut entries = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(line) {
            Ok(entry) => entries.push(entry),
            Err(e) => {
                let torn = line.ends_with("~\n") || (i + 1 == lines.len() && !line.ends_with('\n'));
                assert!(torn, "{} line {}: {e}: {line:?}", path.display(), i + 1);
            }
        }
    }
    entries
}

/// The `cn.yaml` of a hub `ada` whose local level and executive are the shell scripts `local`
/// and `exec` (written as `root/local.sh` and `root/exec.sh`, their sandbox writing under
/// `root`), with no minimum interval between autonomous executive calls.
pub fn scripted_models(root: &Path, local: &str, exec: &str) -> String {
    std::fs::write(root.join("local.sh"), local).unwrap();
    std::fs::write(root.join("exec.sh"), exec).unwrap();
    format!(
        "name: ada\nmodels:\n  local: {{provider: command, command: [sh, {l}], timeout_secs: 60, sandbox: {{write: ['{r}']}}}}\n  \
         executive: {{provider: command, command: [sh, {e}], timeout_secs: 60, sandbox: {{write: ['{r}']}}}}\n\
         budget: {{daily_tokens: 1000000, min_interval_secs: 0}}\nsenses:\n  bind: 127.0.0.1:0\n",
        l = root.join("local.sh").display(),
        e = root.join("exec.sh").display(),
        r = root.display()
    )
}

/// The owner turns the shell on, grants it to level-1 reflexes, and adds a reflex that runs
/// whatever follows `run `.
pub fn grant_shell(hub: &Path) {
    let config = std::fs::read_to_string(hub.join("cn.yaml")).unwrap();
    std::fs::write(
        hub.join("cn.yaml"),
        format!(
            "{}reflexes:\n  grants:\n    1: [shell, reply]\n",
            config.replace("  shell: false\n", "  shell: true\n")
        ),
    )
    .unwrap();
    std::fs::write(
        hub.join("state/reflexes/run.yaml"),
        "name: run\nlevel: 1\ntrigger: {pattern: '^run (?P<cmd>.+)$'}\npipeline:\n  - action: shell\n    command: \"{{cmd}}\"\n",
    )
    .unwrap();
}

pub fn sandbox_works(error: &str) -> bool {
    if error.contains("cannot sandbox") {
        assert!(std::env::var_os("CN_TEST_NO_LANDLOCK").is_some(), "no Landlock ABI 4 here: {error}");
        eprintln!("\n*** trust_sandbox: this kernel cannot sandbox; only the refusal was tested: {error} ***\n");
        return false;
    }
    true
}

/// The `cn.yaml` of a hub `name` whose level 2 is the shell script `model` (written as
/// `root/NAME-model.sh`, its sandbox writing under `root`), with `extra` appended. Level 0 and
/// 2 may reply, noop and ack (2 also defer); the owner endpoint listens on a free loopback port.
pub fn level2_yaml(root: &Path, name: &str, model: &str, extra: &str) -> String {
    let script = root.join(format!("{name}-model.sh"));
    std::fs::write(&script, model).unwrap();
    format!(
        "name: {name}\nmodels:\n  local:\n    provider: command\n    command: [sh, {script}]\n    timeout_secs: 60\n    sandbox: {{write: ['{root}']}}\n\
         senses:\n  bind: 127.0.0.1:0\npolicy:\n  levels:\n    0: [reply, noop, ack]\n    2: [reply, noop, ack, defer]\n{extra}",
        script = script.display(),
        root = root.display()
    )
}

/// Poll `f` until it gives a value; panic naming `what` after `limit`.
pub fn wait_until<T>(limit: Duration, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < limit, "timed out after {limit:?} waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Index of the first `decision` entry for item `id` (one that filed it somewhere), if any.
pub fn decided_at(entries: &[serde_json::Value], id: &str) -> Option<usize> {
    entries.iter().position(|e| e["type"] == "decision" && e["id"] == id && e["place"].is_string())
}

/// `Authorization: Bearer <the hub's owner token>` (what `cn chat` sends).
pub fn owner_auth(hub: &Path) -> (&'static str, String) {
    let token = std::fs::read_to_string(hub.join(".git/cn-owner-token")).expect("cn init made the owner token");
    ("authorization", format!("Bearer {}", token.trim()))
}

/// POST `body` (JSON) to `url` with `headers`; the status and the JSON answer (null if none).
pub fn post(url: &str, headers: &[(&str, &str)], body: &str) -> (u16, serde_json::Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
    let mut req = agent.post(url).header("content-type", "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let mut resp = req.send(body).unwrap_or_else(|e| panic!("POST {url}: {e}"));
    let status = resp.status().as_u16();
    let text = resp.body_mut().read_to_string().unwrap_or_default();
    (status, serde_json::from_str(&text).unwrap_or(serde_json::Value::Null))
}

/// The `.md` files of a directory (none when it does not exist).
pub fn md_count(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().filter(|e| e.path().extension().is_some_and(|x| x == "md")).count())
        .unwrap_or(0)
}

/// A field of an item's typed origin, given as JSON (`KEY`, or `answer.KEY` for where it is
/// answered).
pub fn origin_field(origin: &serde_json::Value, key: &str) -> Option<String> {
    let v = match key.strip_prefix("answer.") {
        Some(k) => origin.get("answer")?.get(k)?,
        None => origin.get(key)?,
    };
    v.as_str().map(str::to_string)
}

/// Item `id` in the inbox: a GitHub message from mallory, a stranger, saying `body`.
pub fn put_mallorys(hub: &Path, id: &str, body: &str) {
    let item = format!(
        "---\nid: {id}\nfrom: github\ncadence: inbox\nqueued: 2026-01-01T00:00:00Z\nsense: github\nauthor-id: mallory\norigin:\n  sense: github\n  author: github:mallory\n  kind: message\n---\n\n{body}\n"
    );
    std::fs::write(hub.join(format!("threads/inbox/{id}.md")), item).unwrap();
}
