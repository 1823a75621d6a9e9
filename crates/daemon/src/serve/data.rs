//! What each view of the control room shows, as JSON built from the hub's files: the same
//! sources the CLI reads (`cn budget`, `cn journal`, `cn reflex list`, `cn approvals`,
//! `cn peer list`, `cn loop status`), so the page and the terminal never disagree.
//!
//! Invariant: reading a view changes nothing in the hub (the attention spool is replayed
//! read-only; approvals that timed out are the one exception, as with `cn approvals`).

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use cn_autonomy::jiff::Timestamp;
use cn_autonomy::Attention;
use cn_hub::Hub;
use serde_json::{json, Value};

/// At most this much of the journal's tail is read for the first page of the timeline.
pub const JOURNAL_TAIL_BYTES: u64 = 2 << 20;
/// Entries the timeline starts with.
pub const JOURNAL_FIRST: usize = 500;

/// How much of the journal's end the Now view reads (for the current item's level and the
/// last decisions): a little first — parsed on every refresh — then more only when that holds
/// too few decisions.
pub const NOW_TAIL_BYTES: [u64; 2] = [32 << 10, 256 << 10];

/// The Now view: the daemon, the current item with its level and model, the attention pool
/// with each item's salience explained, what falls due next, what was decided lately, and
/// the routine (issue 31): the person's tasks due next, overdue, and done today.
pub fn now(hub: &Hub, attention: Option<&Attention>) -> Value {
    let path = cn_hub::journal::HubJournal::path_in(&hub.layout().state());
    let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    let mut tail = Vec::new();
    for bytes in NOW_TAIL_BYTES {
        let start = len.saturating_sub(bytes);
        tail = journal_from(&path, start, bytes as usize).entries;
        if start > 0 && !tail.is_empty() {
            // The first line was cut in the middle.
            tail.remove(0);
        }
        let decisions = tail.iter().filter(|(_, e)| e.get("type").and_then(Value::as_str) == Some("decision")).count();
        if start == 0 || decisions >= RECENT {
            break;
        }
    }
    now_from(hub, attention, &tail)
}

/// [`now`] over journal entries the caller has read already (the page's first load reads the
/// journal's tail once for this and for the timeline).
pub fn now_from(hub: &Hub, attention: Option<&Attention>, tail: &[(u64, serde_json::Map<String, Value>)]) -> Value {
    let layout = hub.layout();
    let running = cn_storage::ProcessLock::is_held(&layout.run_lock());
    let run: Value = if running {
        std::fs::read_to_string(layout.run_info())
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    let current = current_item(hub, tail);
    let config = hub.config();
    let model = |level: u8| {
        config.models.for_level(level).map(|p| {
            let kind = p.provider.map(|k| serde_json::to_value(k).unwrap_or(Value::Null)).unwrap_or(Value::Null);
            json!({"level": level, "provider": kind, "model": p.model})
        })
    };
    let models: Vec<Value> = [2, 3].into_iter().filter_map(model).collect();
    let now = Timestamp::now();
    let weights = &config.attention.weights;
    let mut pool: Vec<Value> = match attention {
        Some(a) => a.with_pool(|p| {
            p.iter()
                .map(|pooled| {
                    let s = pooled.salience(weights, now);
                    pool_row(&pooled.item, s, pooled.merged_count)
                })
                .collect()
        }),
        None => spool_pending(&layout.attention())
            .into_iter()
            .map(|item| {
                let scored = cn_autonomy::attention::salience::score(&item, weights, false);
                let s = cn_autonomy::Salience::at(&scored, weights, now);
                pool_row(&item, s, 0)
            })
            .collect(),
    };
    pool.sort_by(|a, b| {
        let key = |v: &Value| (v["owner"].as_bool().unwrap_or(false), v["salience"].as_f64().unwrap_or(0.0));
        let (ka, kb) = (key(a), key(b));
        kb.0.cmp(&ka.0).then(kb.1.partial_cmp(&ka.1).unwrap_or(std::cmp::Ordering::Equal))
    });
    json!({
        "hub": hub.name(),
        "daemon": {"running": running, "info": run},
        "current": current,
        "models": models,
        "pool": pool,
        "inbox": count_md(&layout.inbox()),
        "due": due_next(hub, now),
        "recent": recent_decisions(tail),
        "routine": routine(hub, now, tail),
    })
}

/// Decisions the Now view lists: the last ones, newest first.
pub const RECENT: usize = 10;

/// The last [`RECENT`] decisions in the journal's tail, newest first: when, on which item,
/// from whom, what was decided.
fn recent_decisions(tail: &[(u64, serde_json::Map<String, Value>)]) -> Vec<Value> {
    tail.iter()
        .rev()
        .filter(|(_, e)| e.get("type").and_then(Value::as_str) == Some("decision") && e.get("place").is_some())
        .take(RECENT)
        .map(|(_, e)| {
            let e = readable(e.clone());
            json!({
                "ts": e.get("ts"), "id": e.get("id"), "from": e.get("from"), "summary": e.get("summary"),
                "level": e.get("level"),
            })
        })
        .collect()
}

/// Messages the Chat view starts with: the owner's last [`CHAT_HISTORY`] messages and what
/// the agent answered each (`answer: null` while one waits), oldest first — from the journal's
/// decisions and the items they filed, so the page, `cn chat` and the hub agree.
pub const CHAT_HISTORY: usize = 30;

pub fn chat_history(hub: &Hub) -> Value {
    let mut seen = std::collections::HashSet::new();
    let mut history: Vec<Value> = Vec::new();
    for (_, e) in journal_tail(&hub.layout().state()).entries.into_iter().rev() {
        if history.len() >= CHAT_HISTORY {
            break;
        }
        let field = |k: &str| e.get(k).and_then(Value::as_str);
        if field("type") != Some("decision") || field("from") != Some(cn_agent::OWNER) {
            continue;
        }
        let (Some(id), Some(place)) = (field("id"), field("place")) else { continue };
        if !plain_id(id) || !seen.insert(id.to_string()) {
            continue;
        }
        // The item as filed then, or wherever it is now (a deferred one came back).
        let item = cn_agent::Item::read(&hub.root().join(place)).ok().or_else(|| match cn_agent::locate(hub, id) {
            Ok(Some(cn_agent::Place::Decided(p) | cn_agent::Place::Deferred(p))) => cn_agent::Item::read(&p).ok(),
            _ => None,
        });
        let Some(item) = item else { continue };
        let text = item.content.split("\n## ").next().unwrap_or("").trim().to_string();
        history.push(json!({"id": id, "ts": field("ts"), "text": text, "answer": cn_agent::answer::Answer::of_item(&item).to_person(true)}));
    }
    history.reverse();
    // Messages still waiting: in the inbox, or being worked on.
    let mut waiting: Vec<cn_agent::Item> = Vec::new();
    if let Ok(dir) = std::fs::read_dir(hub.layout().inbox()) {
        for f in dir.flatten().map(|f| f.path()).filter(|p| p.extension().is_some_and(|x| x == "md")) {
            waiting.extend(cn_agent::Item::read(&f).ok());
        }
    }
    waiting.extend(cn_agent::Item::read(&hub.layout().input()).ok());
    waiting.retain(|i| i.from == cn_agent::OWNER && !seen.contains(&i.id));
    waiting.sort_by(|a, b| a.doc.get_str("queued").cmp(&b.doc.get_str("queued")));
    for item in waiting {
        history.push(
            json!({"id": item.id, "ts": item.doc.get_str("queued"), "text": item.content.trim(), "answer": null}),
        );
    }
    json!({"history": history})
}

/// The routine at a glance: open tasks due next (soonest first) and overdue (longest first),
/// and the tasks done today (in the hub's time zone), from `tasks.json` and the journal —
/// the routine's `done` entries and the tasks the daemon saw done. A task is overdue as chat
/// says it is ([`cn_hub::tasks::Filter::Overdue`]): by its due time, whatever follow-up the
/// agent set itself; a task without a due time is in neither list.
fn routine(hub: &Hub, now: Timestamp, tail: &[(u64, serde_json::Map<String, Value>)]) -> Value {
    let state = hub.layout().state();
    let tasks = cn_hub::tasks::tasks_in(&state).load().unwrap_or_default();
    let zone = cn_reflex::when::time_zone(hub.config().reflexes.time_zone.as_deref());
    let zoned = now.to_zoned(zone);
    let row = |t: &cn_hub::tasks::Task, at: Timestamp| json!({"at": at.to_string(), "what": t.task, "id": t.id, "source": t.source, "reminded": t.reminded.is_some()});
    let mut dated: Vec<(&cn_hub::tasks::Task, Timestamp)> =
        tasks.iter().filter(|t| !t.done).filter_map(|t| Some((t, t.due?))).collect();
    dated.sort_by_key(|(t, due)| (*due, t.priority.unwrap_or(u8::MAX)));
    let (overdue, next): (Vec<_>, Vec<_>) =
        dated.into_iter().partition(|(t, _)| cn_hub::tasks::Filter::Overdue.keeps(t, &zoned));
    let next: Vec<Value> = next.into_iter().take(10).map(|(t, at)| row(t, at)).collect();
    let overdue: Vec<Value> = overdue.into_iter().take(10).map(|(t, at)| row(t, at)).collect();
    let midnight = zoned.start_of_day().map_or(now, |z| z.timestamp());
    let name_of = |id: &str| tasks.iter().find(|t| t.id == id).map(|t| t.task.clone());
    let mut done: Vec<Value> = Vec::new();
    // The Now view's small tail when it reaches back past midnight (as on most days); the
    // journal's last 2 MiB otherwise.
    let ts = |e: &serde_json::Map<String, Value>| e.get("ts").and_then(Value::as_str)?.parse::<Timestamp>().ok();
    let covers = tail.first().and_then(|(_, e)| ts(e)).is_some_and(|t| t < midnight);
    let longer;
    let entries = if covers {
        tail
    } else {
        longer = tail_of(&cn_hub::journal::HubJournal::path_in(&state)).entries;
        &longer[..]
    };
    for e in entries.iter().map(|(_, e)| e) {
        let Some(at) = e.get("ts").and_then(Value::as_str).and_then(|t| t.parse::<Timestamp>().ok()) else { continue };
        if at < midnight {
            continue;
        }
        let s = |k: &str| e.get(k).and_then(Value::as_str);
        let what = match (s("type"), s("act"), s("outcome")) {
            (Some("routine"), Some("done"), _) => s("task").map(str::to_string),
            // The daemon marking a task done after the executive did it: "task <id> done".
            (Some("observation"), _, Some("done")) => {
                s("summary").and_then(|m| m.strip_prefix("task ")?.strip_suffix(" done")).and_then(name_of)
            }
            _ => None,
        };
        if let Some(what) = what {
            done.push(json!({"at": at.to_string(), "what": what}));
        }
    }
    json!({"next": next, "overdue": overdue, "done_today": done})
}

fn pool_row(item: &cn_autonomy::Input, s: cn_autonomy::Salience, merged: u64) -> Value {
    json!({
        "id": item.id(),
        "summary": item.summary(),
        "source": item.source_name(),
        "owner": item.owner(),
        "salience": s.score,
        "explanation": s.explanation,
        "merged": merged,
    })
}

/// The spool's pending items (none when it does not exist or cannot be read).
fn spool_pending(path: &Path) -> Vec<cn_autonomy::Input> {
    if !path.exists() {
        return Vec::new();
    }
    match cn_autonomy::attention::spool::pending(path) {
        Ok(p) => p.into_iter().filter(|(_, into)| into.is_none()).map(|(i, _)| i).collect(),
        Err(e) => {
            tracing::warn!(path = %path.display(), e = %cn_compute::Chain(&e), "control room: cannot read the attention spool");
            Vec::new()
        }
    }
}

/// The item being worked on (`state/input.md`): its id, sender, first line, and the level
/// the journal last saw it at.
fn current_item(hub: &Hub, tail: &[(u64, serde_json::Map<String, Value>)]) -> Value {
    let input = hub.layout().input();
    let Ok(item) = cn_agent::Item::read(&input) else { return Value::Null };
    let first = item.content.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
    let level = tail
        .iter()
        .rev()
        .find(|(_, e)| e.get("id").and_then(Value::as_str) == Some(item.id.as_str()) && e.get("level").is_some())
        .and_then(|(_, e)| e.get("level").cloned())
        .unwrap_or(Value::Null);
    json!({"id": item.id, "from": item.from, "text": first, "level": level})
}

/// What comes up from now on: open tasks by their due time and the follow-ups the agent set
/// itself (`follow-up`), the schedule's next firings, deferred items' `until`. A task whose
/// due time has passed is here only by a follow-up still to come (the routine's overdue list
/// has it).
fn due_next(hub: &Hub, now: Timestamp) -> Vec<Value> {
    let state = hub.layout().state();
    let mut due: Vec<(Timestamp, Value)> = Vec::new();
    if let Ok(tasks) = cn_hub::tasks::tasks_in(&state).load() {
        for t in tasks.iter().filter(|t| !t.done) {
            let mut push = |at: Timestamp, kind: &str| {
                due.push((at, json!({"at": at.to_string(), "kind": kind, "what": t.task, "id": t.id})));
            };
            match (t.due, t.follow_up) {
                (Some(at), _) if at >= now => push(at, "task"),
                (Some(_), Some(at)) if at >= now => push(at, "follow-up"),
                // A commitment without a due time comes up at its follow-up, past or not.
                (None, Some(at)) => push(at, "follow-up"),
                _ => {}
            }
        }
    }
    let schedule = cn_autonomy::impulses::schedule::Schedule::of_hub(hub.root());
    if let Ok(entries) = schedule.load() {
        for e in entries {
            let Ok((cron, tz)) = e.timing() else { continue };
            if let Ok(next) = cron.next_after(now, &tz) {
                due.push((
                    next.timestamp(),
                    json!({"at": next.timestamp().to_string(), "kind": "schedule", "what": e.name, "cron": e.cron}),
                ));
            }
        }
    }
    if let Ok(dir) = std::fs::read_dir(hub.layout().deferred()) {
        for f in dir.flatten().map(|f| f.path()).filter(|p| p.extension().is_some_and(|x| x == "md")) {
            let Ok(item) = cn_agent::Item::read(&f) else { continue };
            let Some(until) = item.marks().until.as_deref().and_then(|u| u.parse::<Timestamp>().ok()) else { continue };
            let first = item.content.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
            due.push((until, json!({"at": until.to_string(), "kind": "deferred", "what": first, "id": item.id})));
        }
    }
    due.sort_by_key(|(at, _)| *at);
    due.into_iter().take(20).map(|(_, v)| v).collect()
}

fn count_md(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().filter(|f| f.path().extension().is_some_and(|x| x == "md")).count())
        .unwrap_or(0)
}

/// Complete lines of the journal read from a byte offset.
pub struct JournalRead {
    /// Each entry with the offset just past its line.
    pub entries: Vec<(u64, serde_json::Map<String, Value>)>,
    /// Where the next read starts: just past the last complete line.
    pub offset: u64,
}

/// The journal's last [`JOURNAL_FIRST`] entries (from at most its last
/// [`JOURNAL_TAIL_BYTES`]), and the offset live updates continue from.
pub fn journal_tail(state: &Path) -> JournalRead {
    let path = cn_hub::journal::HubJournal::path_in(state);
    let mut read = tail_of(&path);
    if read.entries.len() < JOURNAL_FIRST {
        // Rotated a moment ago: the first page continues into the last segment.
        if let Some(last) = cn_storage::Journal::segments(&path).ok().and_then(|s| s.last().cloned()) {
            let mut earlier = tail_of(&last).entries;
            earlier.append(&mut read.entries);
            read.entries = earlier;
        }
    }
    let skip = read.entries.len().saturating_sub(JOURNAL_FIRST);
    read.entries.drain(..skip);
    read
}

/// The entries in the last [`JOURNAL_TAIL_BYTES`] of one file, and its length.
fn tail_of(path: &Path) -> JournalRead {
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(JOURNAL_TAIL_BYTES);
    let mut read = journal_from(path, start, JOURNAL_TAIL_BYTES as usize);
    if start > 0 && !read.entries.is_empty() {
        // The first line was cut in the middle.
        read.entries.remove(0);
    }
    read
}

/// Complete lines from `offset` (at most `max` bytes; a torn or foreign line is skipped).
/// A journal shorter than `offset` (replaced) is read from the start.
pub fn journal_from(path: &Path, offset: u64, max: usize) -> JournalRead {
    let Ok(mut file) = std::fs::File::open(path) else { return JournalRead { entries: Vec::new(), offset } };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let offset = if len < offset { 0 } else { offset };
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(offset)).is_err() || file.take(max as u64).read_to_end(&mut bytes).is_err() {
        return JournalRead { entries: Vec::new(), offset };
    }
    let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut entries = Vec::new();
    let mut at = offset;
    for line in bytes[..complete].split_inclusive(|b| *b == b'\n') {
        at += line.len() as u64;
        if let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(line) {
            entries.push((at, m));
        }
    }
    JournalRead { entries, offset: offset + complete as u64 }
}

/// A journal entry as the page shows it: with a `summary` in words for every type (the one
/// `cn journal` prints), so no entry is shown as raw JSON.
pub fn readable(mut entry: serde_json::Map<String, Value>) -> serde_json::Map<String, Value> {
    if !entry.get("summary").is_some_and(Value::is_string) {
        let summary = cn_hub::journal::summary(&cn_storage::Entry(entry.clone()));
        if !summary.is_empty() {
            entry.insert("summary".into(), Value::String(summary));
        }
    }
    entry
}

/// An item or journal id as the page may send it: letters, digits, `-`, `_`, `.`, `:`, no
/// `..` (ids name files under `threads/`).
pub fn plain_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 200
        && !id.contains("..")
        && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// "Why did you do that?": every entry of item `id`, trigger to outcome, and the commits
/// that recorded its decision.
pub fn why(hub: &Hub, id: &str) -> Value {
    let state = hub.layout().state();
    let chain: Vec<Value> = match cn_hub::journal::HubJournal::read(&state) {
        Ok(read) => {
            cn_hub::journal::why(&read.entries, id).into_iter().map(|e| Value::Object(readable(e.0.clone()))).collect()
        }
        Err(_) => Vec::new(),
    };
    json!({"id": id, "chain": chain, "commits": cn_hub::journal::why_commits(hub.root(), id)})
}

/// Thought and money: `cn budget`'s report (spend per day, share per level, tokens saved).
pub fn money(hub: &Hub) -> Value {
    match crate::economy::report(hub) {
        Ok(r) => serde_json::to_value(&r).unwrap_or(Value::Null),
        Err(e) => json!({"error": cn_compute::chain(&e)}),
    }
}

/// The reflexes with their analytics, and the files that did not load.
pub fn reflexes(hub: &Hub) -> Value {
    let engine = cn_reflex::Engine::of_hub(hub);
    let errors: Vec<String> = engine.errors().iter().map(|e| cn_compute::chain(&e)).collect();
    json!({"reflexes": cn_reflex::listing(&engine, crate::economy::call_tokens(hub)), "errors": errors})
}

/// Every approval, pending first, with exactly what approving runs.
pub fn approvals(hub: &Hub) -> Value {
    match cn_hub::approvals::list(hub.layout()) {
        Ok(mut all) => {
            all.sort_by_key(|a| (a.status != cn_hub::approvals::Status::Pending, std::cmp::Reverse(a.created)));
            json!({"approvals": all})
        }
        Err(e) => json!({"error": cn_compute::chain(&e), "approvals": []}),
    }
}

/// Peers: each with its remote; mail waiting in the outbox and sent; the syncs that moved
/// mail (the journal's `sync` entries), the last one first.
pub fn peers(hub: &Hub) -> Value {
    let layout = hub.layout();
    let peers: Vec<Value> = match hub.peers() {
        Ok(p) => p.into_iter().map(|(name, peer)| json!({"name": name, "remote": peer.remote})).collect(),
        Err(e) => vec![json!({"error": cn_compute::chain(&e)})],
    };
    let syncs: Vec<Value> = journal_tail(&layout.state())
        .entries
        .into_iter()
        .rev()
        .filter(|(_, e)| e.get("type").and_then(Value::as_str) == Some("sync"))
        .take(20)
        .map(|(_, e)| Value::Object(e))
        .collect();
    json!({
        "peers": peers,
        "outbox": count_md(&layout.outbox()),
        "sent": count_md(&layout.sent()),
        "syncs": syncs,
    })
}

/// Loops: the hub, its direct subdirectories and those of `loops/` (where `cn init` puts
/// them) that hold a `loop-run/`, each with its iterations (the commits), the sensor's last
/// output and its status.
pub fn loops(hub: &Hub) -> Value {
    let mut dirs: Vec<PathBuf> = vec![hub.root().to_path_buf()];
    let subdirs = |dir: &Path| -> Vec<PathBuf> {
        let mut subs: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|d| d.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect())
            .unwrap_or_default();
        subs.sort();
        subs
    };
    dirs.extend(subdirs(hub.root()));
    dirs.extend(subdirs(&hub.layout().loops()));
    let loops: Vec<Value> = dirs
        .into_iter()
        .filter(|d| d.join(cn_loops::LOOP_RUN).is_dir())
        .map(|d| {
            let name = hub.layout().relative(&d).display().to_string();
            let sensor = std::fs::read_to_string(d.join(cn_loops::LOOP_RUN).join(cn_loops::SENSOR_OUTPUT)).ok();
            let progress = loop_progress(&d);
            match cn_loops::status(&d) {
                Ok(s) => json!({
                    "dir": if name.is_empty() { ".".to_string() } else { name },
                    "iteration": s.iteration,
                    "status": s.status.to_string(),
                    "sensor": sensor,
                    "progress": progress,
                    "iterations": s.commits.iter().map(|c| json!({"commit": c.sha, "iteration": c.iteration, "status": c.status, "body": c.body})).collect::<Vec<_>>(),
                }),
                Err(e) => json!({"dir": name, "error": cn_compute::chain(&e), "sensor": sensor, "progress": progress}),
            }
        })
        .collect();
    json!({"loops": loops})
}

/// The latest run of the loop at `dir` as `cn loop run` printed it (its last 100 lines), and
/// whether it is still running: the Loops view follows it.
fn loop_progress(dir: &Path) -> Value {
    let events = cn_loops::progress::read(dir).unwrap_or_default();
    let lines: Vec<String> = events.iter().map(ToString::to_string).collect();
    let from = lines.len().saturating_sub(100);
    json!({"running": cn_loops::progress::running(&events), "lines": &lines[from..]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_journal_reads_whole_lines_only_and_resumes_past_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.jsonl");
        let first = "{\"type\":\"decision\",\"id\":\"a\"}\n";
        std::fs::write(&path, format!("{first}not json\n{{\"type\":\"reflex\",\"id\":\"b\"}}\n{{\"type\":\"torn"))
            .unwrap();
        let read = journal_from(&path, 0, 1 << 20);
        let ids: Vec<&str> = read.entries.iter().filter_map(|(_, e)| e.get("id")?.as_str()).collect();
        assert_eq!(ids, ["a", "b"], "a foreign line is skipped, the torn last line waits");
        assert_eq!(read.entries[0].0, first.len() as u64, "each entry carries the offset past its line");
        let torn_at = read.offset;
        assert_eq!(std::fs::read(&path).unwrap()[torn_at as usize..], *b"{\"type\":\"torn");
        // The writer finishes the line: the next read starts there and gets it.
        std::fs::write(&path, [std::fs::read(&path).unwrap(), b"\"}\n".to_vec()].concat()).unwrap();
        let next = journal_from(&path, torn_at, 1 << 20);
        assert_eq!(next.entries.len(), 1);
        assert_eq!(next.entries[0].1["type"], "torn");
        // A journal shorter than the offset (replaced) is read from its start.
        std::fs::write(&path, first).unwrap();
        assert_eq!(journal_from(&path, next.offset, 1 << 20).entries.len(), 1);
        // No file: nothing, and the offset stays.
        assert_eq!(journal_from(&dir.path().join("none"), 7, 10).offset, 7);
    }

    #[test]
    fn the_first_page_continues_into_the_last_segment_after_a_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let path = cn_hub::journal::HubJournal::path_in(dir.path());
        let line = |i: usize| format!("{{\"type\":\"decision\",\"id\":\"e{i}\"}}\n");
        std::fs::write(&path, (0..3).map(line).collect::<String>()).unwrap();
        let rotation = cn_storage::Rotation { bytes: 1, daily: false };
        assert!(cn_storage::Journal::rotate_if_due(&path, &rotation).unwrap().is_some());
        std::fs::write(&path, line(3)).unwrap();
        let read = journal_tail(dir.path());
        let ids: Vec<&str> = read.entries.iter().filter_map(|(_, e)| e.get("id")?.as_str()).collect();
        assert_eq!(ids, ["e0", "e1", "e2", "e3"]);
        assert_eq!(read.offset, line(3).len() as u64, "live updates continue in the live file");
    }

    #[test]
    fn ids_from_the_page_cannot_name_a_path() {
        for ok in ["5e260680e019", "p-e8e7321ecd6f", "schedule-daily-1700000000", "task:1.2"] {
            assert!(plain_id(ok), "{ok}");
        }
        for bad in ["", "../cn", "a/b", "..", "a\\b", "x\0", &"a".repeat(201)] {
            assert!(!plain_id(bad), "{bad:?}");
        }
    }
}
