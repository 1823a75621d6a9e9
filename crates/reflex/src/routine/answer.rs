//! What the routine tells the person: exactly what changed ("Done: renew the car insurance —
//! 2 tasks left today"), what they asked to see, or the question that holds the request
//! ("Two tasks match “the invoice”: … Which one? Nothing was changed.").
//!
//! Invariant: an answer names only what the outcomes hold — no outcome, no claim.

use cn_hub::schedule::ScheduleEntry;
use cn_hub::tasks::{Filter, Task};
use jiff::Zoned;

use super::perform::{Kind, Outcome};
use super::{Missing, Want};
use crate::when::{human, WhenError};

/// The answer for `outcomes`, one line (or block) each.
pub fn answer(outcomes: &[Outcome], now: &Zoned) -> String {
    let mut lines: Vec<String> = outcomes.iter().map(|o| line(o, now)).collect();
    // A request that said no what has nothing to leave unchanged: its question is enough.
    if outcomes.iter().any(|o| o.held() && !matches!(o, Outcome::Missing { .. })) {
        lines.push("Nothing was changed.".into());
    }
    lines.join("\n")
}

/// What a reminder tells the person who asked for it when the task falls due, and how to
/// answer it.
pub fn reminder(task: &Task, now: &Zoned) -> String {
    let due = task.next_time().map(|d| d.to_zoned(now.time_zone().clone()));
    let when = match due {
        Some(at) if now.timestamp().duration_since(at.timestamp()).as_secs() >= 120 => {
            format!(" (due {})", human(&at, now))
        }
        _ => String::new(),
    };
    format!(
        "Reminder: {}{when}. Answer “done” when it is, or “snooze” (an hour; “snooze 20 minutes”, “snooze till 5pm”).",
        task.task
    )
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn when(t: &Task, now: &Zoned) -> String {
    match t.due {
        None => String::new(),
        Some(d) => {
            let at = d.to_zoned(now.time_zone().clone());
            if at < *now {
                format!(" — overdue since {}", human(&at, now))
            } else {
                format!(" — due {}", human(&at, now))
            }
        }
    }
}

fn task_lines(tasks: &[Task], now: &Zoned) -> String {
    tasks.iter().map(|t| format!("\n- {}{}", t.task, when(t, now))).collect()
}

fn entry_line(e: &ScheduleEntry, now: &Zoned) -> String {
    let next = e.next_firing(now.timestamp()).ok().flatten().map_or_else(
        || "never fires again".to_string(),
        |z| format!("next {}", human(&z.with_time_zone(now.time_zone().clone()), now)),
    );
    let mut until =
        e.until.map_or_else(String::new, |u| format!(", until {}", human(&u.to_zoned(now.time_zone().clone()), now)));
    if let Some(s) = &e.stride {
        until = format!(", {s}{until}");
    }
    format!("\n- {}: {} (`{}`, {next}{until})", e.name, e.action, e.cron)
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Task => "open task",
        Kind::Idea => "idea",
        Kind::Entry => "schedule entry",
    }
}

fn line(o: &Outcome, now: &Zoned) -> String {
    match o {
        Outcome::Next { text } => text.clone(),
        Outcome::Added { task } => match task.due {
            Some(_) => format!("Added: {}{}.", task.task, when(task, now)),
            None => format!("Added: {} (no due time).", task.task),
        },
        Outcome::Scheduled { entry, human: every, next } => {
            let next = next.as_ref().map_or(String::new(), |z| format!(" (next {})", human(z, now)));
            format!("Scheduled: {} — {every}{next}.", entry.action)
        }
        Outcome::Listed { filter, tasks } => {
            let title = match filter {
                Filter::Open => "open".to_string(),
                Filter::Today => "due today".to_string(),
                Filter::Tomorrow => "due tomorrow".to_string(),
                Filter::Week => "due this week".to_string(),
                Filter::NextWeek => "due next week".to_string(),
                Filter::Overdue => "overdue".to_string(),
                Filter::Day(d) => format!("due {}", d.strftime("%a %-d %b")),
            };
            if tasks.is_empty() {
                format!("No tasks {title}.")
            } else {
                let head = match filter {
                    Filter::Open => format!("Your open tasks ({}):", tasks.len()),
                    _ => format!("{} {title}:", plural(tasks.len(), "task", "tasks")),
                };
                format!("{head}{}", task_lines(tasks, now))
            }
        }
        Outcome::Completed { task, left_today } => {
            let left = match left_today {
                0 => "nothing else due today".to_string(),
                n => format!("{} left today", plural(*n, "task", "tasks")),
            };
            format!("Done: {} — {left}.", task.task)
        }
        Outcome::Moved { before, after } => {
            let was = before.due.map_or_else(
                || "it had no due time".to_string(),
                |d| format!("was {}", human(&d.to_zoned(now.time_zone().clone()), now)),
            );
            let new = after.due.map_or_else(String::new, |d| human(&d.to_zoned(now.time_zone().clone()), now));
            format!("Moved: {} — now due {new} ({was}).", after.task)
        }
        Outcome::Cancelled { task, open } => {
            format!("Cancelled: {} — {} open.", task.task, plural(*open, "task", "tasks"))
        }
        Outcome::Shown { task } => {
            let mut s = format!("{}{}", task.task, when(task, now));
            if let Some(p) = task.priority {
                s.push_str(&format!("; priority {p}"));
            }
            if let Some(from) = &task.source {
                s.push_str(&format!("; asked by {from}"));
            }
            s.push('.');
            s
        }
        Outcome::IdeaAdded { idea } => format!("Noted as an idea: {}.", idea.idea),
        Outcome::IdeasListed { ideas } if ideas.is_empty() => "No ideas yet.".into(),
        Outcome::IdeasListed { ideas } => {
            let list: String = ideas.iter().map(|i| format!("\n- {}", i.idea)).collect();
            format!("Your ideas ({}):{list}", ideas.len())
        }
        Outcome::IdeaDropped { idea, left } => {
            format!("Dropped the idea: {} — {} left.", idea.idea, plural(*left, "idea", "ideas"))
        }
        Outcome::ScheduleListed { entries } if entries.is_empty() => "Nothing is scheduled.".into(),
        Outcome::ScheduleListed { entries } => {
            let list: String = entries.iter().map(|e| entry_line(e, now)).collect();
            format!("Your schedule ({}):{list}", entries.len())
        }
        Outcome::Unscheduled { entry } => format!("Removed from the schedule: {} ({}).", entry.name, entry.action),
        Outcome::Which { words, kind, names, .. } => {
            let what = match kind {
                Kind::Task => "tasks",
                Kind::Idea => "ideas",
                Kind::Entry => "schedule entries",
            };
            let listed = match names.as_slice() {
                [a, b] => format!("{a} and {b}"),
                all => all.join("; "),
            };
            let count = if names.len() == 2 { "Two".to_string() } else { names.len().to_string() };
            format!("{count} {what} match “{words}”: {listed}. Which one?")
        }
        Outcome::NoMatch { words, kind } => format!("No {} matches “{words}”.", kind_name(*kind)),
        Outcome::AskWhen { task } => format!("Move “{}” to when?", task.task),
        Outcome::Refused { why } => format!("Sorry — {why}."),
        Outcome::AskDate { error: WhenError::Past { phrase, shown, .. } } => {
            format!("“{phrase}” is in the past ({shown}) — when should it be?")
        }
        Outcome::AskDate { error } => format!("{error} — when should it be?"),
        Outcome::Missing { missing } => ask_missing(missing),
        Outcome::Dismissed => "OK — I left everything as it was.".into(),
    }
}

/// The one question a [`Missing`] asks: what it lacks, with what it said.
pub fn ask_missing(m: &Missing) -> String {
    match (m.want, &m.due, &m.what) {
        (Want::What, Some(due), _) => format!("What should I remind you of at {}?", due.human()),
        // An alarm or a timer set without a time (its own name, no what of the person's).
        (Want::When, _, Some(what)) if matches!(what.as_str(), "Alarm" | "Timer" | "Wake up") => {
            format!("When should the {} go off?", if what == "Timer" { "timer" } else { "alarm" })
        }
        (Want::When, _, Some(what)) => format!("When should I remind you about {what}?"),
        (Want::When, _, None) => "When should I remind you?".into(),
        (Want::What, None, _) | (Want::WhatAndWhen, ..) => "What should I remind you of, and when?".into(),
    }
}
