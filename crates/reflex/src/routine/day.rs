//! "What did you do today?" and "what's next?" (issue 31, point 4): answered below the
//! executive, deterministically, in plain sentences from the journal and the task queue.
//!
//! Invariants: only what was done for people counts — messages answered (a decision on a
//! person's message, `item_kind: message`), tasks added, done, moved or called off and ideas
//! noted by the routine (`routine` entries), reminders told (`reminder` entries); the agent's
//! own impulses, notices, reflections and explorations are never reported. No op syntax
//! ("do reply …"), no item ids. A person other than the owner hears only about what they
//! filed themselves (their tasks, their reminders), never the owner's.

use cn_hub::schedule::ScheduleEntry;
use cn_hub::tasks::Task;
use cn_hub::Provenance;
use cn_storage::Entry;
use jiff::{Timestamp, Zoned};
use serde_json::Value;

use crate::when::human;

/// What the routine did, as its journal entry records it (`act` on `routine` entries).
pub mod act {
    pub const ADDED: &str = "added";
    pub const DONE: &str = "done";
    pub const MOVED: &str = "moved";
    pub const CANCELLED: &str = "cancelled";
    pub const IDEA: &str = "idea";
    pub const IDEA_DROPPED: &str = "idea-dropped";
    pub const SCHEDULED: &str = "scheduled";
    pub const UNSCHEDULED: &str = "unscheduled";
}

fn get<'e>(e: &'e Entry, k: &str) -> Option<&'e str> {
    e.0.get(k).and_then(Value::as_str)
}

/// `a`, `a and b`, `a, b and c`.
fn and(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Up to three names, in quotes, then how many more.
fn names(names: &[String]) -> String {
    let shown: Vec<String> = names.iter().take(3).map(|n| format!("“{n}”")).collect();
    let more = names.len().saturating_sub(3);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        and(&shown)
    }
}

/// Whether an entry's `by` (the asker's label; none for the owner) is `who`'s to hear about.
fn theirs(e: &Entry, key: &str, who: &Provenance) -> bool {
    who.is_owner() || get(e, key) == Some(who.label().as_str())
}

/// "What did you do today?": the work done for people since midnight in `now`'s zone, from
/// the journal `entries` and the open `tasks`, as `who` may hear it.
pub fn did_today(entries: &[Entry], tasks: &[Task], who: &Provenance, now: &Zoned) -> String {
    let midnight = now.start_of_day().map_or_else(|_| now.timestamp(), |z| z.timestamp());
    let today: Vec<&Entry> = entries
        .iter()
        .filter(|e| get(e, "ts").and_then(|t| t.parse::<Timestamp>().ok()).is_some_and(|t| t >= midnight))
        .collect();
    let mut did = Vec::new();
    if who.is_owner() {
        let messages: Vec<&&Entry> =
            today.iter().filter(|e| e.kind() == "decision" && get(e, "item_kind") == Some("message")).collect();
        let answered = messages.iter().filter(|e| e.0.get("handed_up").is_none()).count();
        let yours = messages
            .iter()
            .filter(|e| e.0.get("handed_up").is_none() && get(e, "author").is_none_or(|a| a == "owner"))
            .count();
        if answered > 0 {
            let whose = match (yours, answered - yours) {
                (_, 0) => " (all yours)".to_string(),
                (0, _) => " (none of them yours)".to_string(),
                (y, _) => format!(" ({y} of them yours)"),
            };
            did.push(format!("answered {}{whose}", count(answered, "message", "messages")));
        }
    }
    let routine = |what: &str| -> Vec<String> {
        today
            .iter()
            .filter(|e| e.kind() == "routine" && get(e, "act") == Some(what) && theirs(e, "by", who))
            .filter_map(|e| get(e, "task").map(str::to_string))
            .collect()
    };
    for (what, one, many) in [
        (act::ADDED, "added a task", "added {} tasks"),
        (act::DONE, "marked a task done", "marked {} tasks done"),
        (act::MOVED, "moved a task", "moved {} tasks"),
        (act::CANCELLED, "called off a task", "called off {} tasks"),
        (act::IDEA, "noted an idea", "noted {} ideas"),
        (act::IDEA_DROPPED, "dropped an idea", "dropped {} ideas"),
        (act::SCHEDULED, "scheduled a repeat", "scheduled {} repeats"),
        (act::UNSCHEDULED, "took a repeat off the schedule", "took {} repeats off the schedule"),
    ] {
        let these = routine(what);
        if !these.is_empty() {
            let head = if these.len() == 1 { one.to_string() } else { many.replace("{}", &these.len().to_string()) };
            did.push(format!("{head} ({})", names(&these)));
        }
    }
    let reminded: Vec<String> = today
        .iter()
        .filter(|e| e.kind() == "reminder" && get(e, "outcome") == Some("told") && theirs(e, "source", who))
        .filter_map(|e| get(e, "task").map(str::to_string))
        .collect();
    if !reminded.is_empty() {
        did.push(format!("reminded you of {}", names(&reminded)));
    }
    let mut text = if did.is_empty() {
        "Nothing yet today: no message answered, and no task added, done or moved since midnight.".to_string()
    } else {
        format!("Today I {}.", and(&did))
    };
    if who.is_owner() {
        let waiting = today
            .iter()
            .filter(|e| {
                e.kind() == "decision" && get(e, "item_kind") == Some("message") && e.0.get("handed_up").is_some()
            })
            .count();
        if waiting > 0 {
            text.push_str(&format!(
                " {} I could not answer myself ({}).",
                count(waiting, "message", "messages"),
                if waiting == 1 { "it waits for the executive or you" } else { "they wait for the executive or you" }
            ));
        }
    }
    let open: Vec<&Task> = tasks.iter().filter(|t| !t.done && theirs_task(t, who)).collect();
    let due_today = open.iter().filter(|t| cn_hub::tasks::Filter::Today.keeps(t, now)).count();
    if !open.is_empty() {
        text.push_str(&format!(
            " {} open, {} due today.",
            count(open.len(), "task is", "tasks are"),
            if due_today == 0 { "none".to_string() } else { due_today.to_string() }
        ));
    }
    text
}

fn theirs_task(t: &Task, who: &Provenance) -> bool {
    who.is_owner() || t.source.as_deref() == Some(who.label().as_str())
}

/// "What's next?": the next open tasks by due time, what is overdue, how many have no due
/// time, and (for the owner) the next of the schedule entries a person asked for ("every
/// Monday at 9 water the plants": the routine's, which carry the `context` they were asked
/// in) — not the agent's own (reflections and the like).
pub fn next(tasks: &[Task], schedule: &[ScheduleEntry], who: &Provenance, now: &Zoned) -> String {
    let tz = now.time_zone().clone();
    let open: Vec<&Task> =
        cn_hub::tasks::ordered(tasks).into_iter().filter(|t| theirs_task(t, who)).collect::<Vec<_>>();
    let at = |t: &Task| t.next_time().map(|d| human(&d.to_zoned(tz.clone()), now));
    let (overdue, rest): (Vec<&Task>, Vec<&Task>) =
        open.iter().partition(|t| t.next_time().is_some_and(|d| d < now.timestamp()));
    let upcoming: Vec<&Task> = rest.iter().copied().filter(|t| t.next_time().is_some()).collect();
    let undated = rest.len() - upcoming.len();
    let mut out = Vec::new();
    if let Some((first, then)) = upcoming.split_first() {
        let mut s = format!("Next: {}, {}", first.task, at(first).unwrap_or_default());
        if let Some(second) = then.first() {
            s.push_str(&format!("; then {}, {}", second.task, at(second).unwrap_or_default()));
        }
        if then.len() > 1 {
            s.push_str(&format!(" ({} after that)", count(then.len() - 1, "more", "more")));
        }
        s.push('.');
        out.push(s);
    }
    if !overdue.is_empty() {
        let listed: Vec<String> =
            overdue.iter().take(3).map(|t| format!("{} (since {})", t.task, at(t).unwrap_or_default())).collect();
        let more = overdue.len().saturating_sub(3);
        out.push(format!(
            "Overdue: {}{}.",
            and(&listed),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ));
    }
    if undated > 0 {
        let lead = if out.is_empty() { "No task has a due time; " } else { "" };
        out.push(format!("{lead}{} without a due time.", count(undated, "task is open", "tasks are open")));
    }
    if who.is_owner() {
        let next_entry = schedule
            .iter()
            .filter(|e| e.extra.contains_key("context"))
            .filter_map(|e| {
                let (cron, etz) = e.timing().ok()?;
                Some((cron.next_after(now.timestamp(), &etz).ok()?, e))
            })
            .min_by_key(|(at, _)| at.timestamp());
        if let Some((at, e)) = next_entry {
            out.push(format!("On the schedule: {}, {}.", e.action, human(&at.with_time_zone(tz.clone()), now)));
        }
    }
    if out.is_empty() {
        return "Nothing is next: no open tasks.".to_string();
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(ts: &str, kind: &str, keys: &[(&str, &str)]) -> Entry {
        keys.iter().fold(Entry::at(ts, kind), |e, (k, v)| e.with(k, *v))
    }

    fn task(name: &str, due: Option<&str>, source: Option<&str>) -> Task {
        let mut t = Task::new(name);
        t.due = due.map(|d| d.parse().unwrap());
        t.source = source.map(str::to_string);
        t
    }

    #[test]
    fn today_in_sentences_from_what_was_done_for_people_only() {
        let now: Zoned = "2026-11-26T15:00:00[Europe/Paris]".parse().unwrap();
        let entries = vec![
            // Yesterday: not today.
            entry("2026-11-25T20:00:00Z", "routine", &[("act", "added"), ("task", "yesterday's")]),
            entry(
                "2026-11-26T08:00:00Z",
                "decision",
                &[("item_kind", "message"), ("op", "reply"), ("author", "owner")],
            ),
            entry("2026-11-26T08:00:01Z", "routine", &[("act", "added"), ("task", "call the bank")]),
            entry(
                "2026-11-26T09:00:00Z",
                "decision",
                &[("item_kind", "message"), ("op", "reply"), ("author", "telegram:77")],
            ),
            entry(
                "2026-11-26T09:00:01Z",
                "routine",
                &[("act", "added"), ("task", "stranger's"), ("by", "telegram:77")],
            ),
            entry("2026-11-26T10:00:00Z", "routine", &[("act", "done"), ("task", "renew the car insurance")]),
            entry("2026-11-26T10:10:00Z", "routine", &[("act", "scheduled"), ("task", "water the plants")]),
            entry("2026-11-26T10:20:00Z", "routine", &[("act", "idea-dropped"), ("task", "learn the cello")]),
            entry("2026-11-26T11:00:00Z", "reminder", &[("outcome", "told"), ("task", "call the bank")]),
            entry(
                "2026-11-26T11:30:00Z",
                "decision",
                &[("item_kind", "message"), ("op", "defer"), ("handed_up", "no executive")],
            ),
            // The agent's own work and notices: never reported.
            entry(
                "2026-11-26T12:00:00Z",
                "decision",
                &[("item_kind", "impulse:task"), ("op", "ack"), ("summary", "do ack — Task due")],
            ),
            entry("2026-11-26T12:00:01Z", "decision", &[("item_kind", "notice"), ("op", "ack")]),
            entry("2026-11-26T12:00:02Z", "exploration", &[("idea", "tides")]),
        ];
        let tasks = vec![task("call the bank", Some("2026-11-26T17:00:00Z"), None), task("buy ink", None, None)];
        let owner = did_today(&entries, &tasks, &Provenance::Owner, &now);
        assert_eq!(
            owner,
            "Today I answered 2 messages (1 of them yours), added 2 tasks (“call the bank” and “stranger's”), \
             marked a task done (“renew the car insurance”), dropped an idea (“learn the cello”), \
             scheduled a repeat (“water the plants”) and reminded you of “call the bank”. \
             1 message I could not answer myself (it waits for the executive or you). 2 tasks are open, 1 due today."
        );
        for junk in ["do ", "ack", "Task due", "tides", "yesterday", "impulse", "item"] {
            assert!(!owner.contains(junk), "{junk} in {owner}");
        }
        // A stranger hears only of what they filed.
        let stranger = Provenance::parse("telegram:77");
        assert_eq!(did_today(&entries, &tasks, &stranger, &now), "Today I added a task (“stranger's”).");
        let quiet: Zoned = "2026-11-27T09:00:00[Europe/Paris]".parse().unwrap();
        assert_eq!(
            did_today(&entries, &[], &Provenance::Owner, &quiet),
            "Nothing yet today: no message answered, and no task added, done or moved since midnight."
        );
    }

    #[test]
    fn whats_next_from_the_queue() {
        let now: Zoned = "2026-11-26T15:00:00[Europe/Paris]".parse().unwrap();
        let tasks = vec![
            task("buy ink", None, None),
            task("pick up the dry cleaning", Some("2026-11-25T15:00:00Z"), None),
            task("call the bank", Some("2026-11-26T16:00:00Z"), None),
            task("renew the passport", Some("2027-01-15T08:00:00Z"), None),
            task("book the dentist", Some("2026-11-27T09:00:00Z"), None),
            task("stranger's", Some("2026-11-26T14:30:00Z"), Some("telegram:77")),
        ];
        let schedule: Vec<ScheduleEntry> = serde_json::from_str(
            r#"[{"name": "plants", "cron": "0 9 * * 1", "action": "water the plants", "tz": "Europe/Paris", "context": "asked: every Monday at 9 water the plants"},
                {"name": "daily-reflection", "cron": "0 8 * * *", "action": "Reflect", "cadence": "daily"}]"#,
        )
        .unwrap();
        assert_eq!(
            next(&tasks, &schedule, &Provenance::Owner, &now),
            "Next: stranger's, Thu 26 Nov, 15:30; then call the bank, Thu 26 Nov, 17:00 (2 more after that). \
             Overdue: pick up the dry cleaning (since Wed 25 Nov, 16:00). 1 task is open without a due time. \
             On the schedule: water the plants, Mon 30 Nov, 09:00."
        );
        let stranger = Provenance::parse("telegram:77");
        assert_eq!(next(&tasks, &schedule, &stranger, &now), "Next: stranger's, Thu 26 Nov, 15:30.");
        assert_eq!(next(&[], &[], &Provenance::Owner, &now), "Nothing is next: no open tasks.");
    }
}
