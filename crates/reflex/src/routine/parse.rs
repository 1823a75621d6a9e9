//! Message text → typed routine requests, deterministically.
//!
//! A message is cut into clauses (sentences, and "… and move …" where a second request
//! starts); each clause is cleaned of greetings and politeness, then tried against the
//! frames below, in order — the ones that only read or remove first, "every …" before a
//! plain reminder, the statements of need ("I need to … by Friday": a task) last. A clause no
//! frame takes is tried once more with misspelt frame words put right ("remnd", "tsak",
//! "lsit"). A clause no frame takes goes to the learned understanding ([`super::learned`]:
//! intents and slots from a model trained on many people's requests). Any clause not routine
//! makes the whole message not routine; any clause with a date that cannot be used makes the
//! whole message a question.
//!
//! Invariant: a frame names the request; the words it captures are the person's own (what
//! to file, or what names the task to act on) — nothing is made up, and a bare imperative
//! ("Book a table for two at 7pm", "Send the report to Alice") is never taken: those are the
//! executive's.

use std::sync::OnceLock;

use cn_hub::words::edit_distance;
use jiff::Zoned;
use regex::Regex;

use super::frames::*;
use super::{learned, Missing, Parsed, Reply, Request, Said, Target, Want};
use crate::when::{self, WhenError};

/// What a message is for the routine, at `now` (whose zone is the hub's).
pub fn parse(text: &str, now: &Zoned) -> Parsed {
    // "alexa, buy my grocery list": an assistant's name called first is no part of the request.
    let text = wake_word_re().find(text).map_or(text, |m| &text[m.end()..]);
    // "… next thursday? Make it this thursday actually, at 3pm": a request corrected in the
    // same message is not filed twice, nor half — it goes up whole.
    if corrected_re().is_match(text) {
        return Parsed::NotRoutine;
    }
    // "I do not want to forget about the cookies in the oven; can you alert me at 3 pm": one
    // reminder, of what is not to be forgotten, at the time asked.
    let kept = forget_then_alert_re()
        .captures(text)
        .map(|c| format!("remind me about {} {}", group(&c, "what"), group(&c, "when")));
    // "can you remind me about my afternoon meetings for this week?": a question about one's
    // own meetings, put as a reminder.
    let asked = remind_of_mine_re().captures(text).map(|c| format!("what is on my calendar {}", group(&c, "rest")));
    let text = kept.as_deref().or(asked.as_deref()).unwrap_or(text);
    // "remind myself to …", "remind us to …": the person's own reminder.
    let oneself = reminds_oneself(text);
    let text = oneself.as_deref().unwrap_or(text);
    // "I don't want to be reminded to clean the house today": a reminder not wanted is no
    // reminder to file — it goes up (which one to drop is the executive's to ask).
    if unwanted_re().is_match(text) || asks_of_others(text) {
        return Parsed::NotRoutine;
    }
    // "any alarm set in the morning?", "I need to move the alarm to 9pm", "add twenty minutes
    // to my next alarm", "i need to start dinner at six tonight please set reminder": asked
    // in other words.
    let plain = said_plainly(text);
    let text = plain.as_deref().unwrap_or(text);
    // "remind me to pay school fees tomorrow not next week": a time put right, as "instead of".
    let asking = text.trim_start().to_ascii_lowercase();
    let asking = ["remind", "tell me", "please remind", "set ", "put ", "make ", "move ", "change ", "schedule "]
        .iter()
        .any(|w| asking.starts_with(w));
    let put_right = not_then_re()
        .captures(text)
        .filter(|_| asking)
        .and_then(|c| c.get(0).map(|m| format!("{} for {} instead of {}", &text[..m.start()], &c["a"], &c["b"])));
    let text = put_right.as_deref().unwrap_or(text);
    // "Make the alarm go off at 4:00pm", "let me know when it's 3pm on Thursday", "an alarm
    // reminder to ring the hairdressers": an alarm or an alert asked for in other words.
    let alarm = said_as_alarm(text);
    let text = alarm.as_deref().unwrap_or(text);
    // "Set time to bake the roast for 2 hours": the timer, a letter short.
    let timer = set_time_re()
        .captures(text)
        .and_then(|c| c.name("time"))
        .map(|m| format!("{}timer{}", &text[..m.start()], &text[m.end()..]));
    let parsed = read(timer.as_deref().unwrap_or(text), now);
    // "set an alarm for sunday for five minutes": a filing named only by a span says how long
    // or when, not what — asked, never filed as "five minutes".
    let span_named = |task: &str| when::shift(task).is_some_and(|s| cn_hub::words::content(&s.rest).is_empty());
    // ("a timer to begin at 9:30 am for 30 minutes" left "minutes": a unit alone, the same.)
    let unit_named = |task: &str| {
        let lower = task.to_ascii_lowercase();
        let mut words = lower.split(|c: char| !c.is_ascii_alphabetic()).filter(|w| !w.is_empty()).peekable();
        words.peek().is_some()
            && words
                .all(|w| matches!(w, "minute" | "minutes" | "min" | "mins" | "hour" | "hours" | "second" | "seconds"))
    };
    if let Parsed::Routine(rs) = &parsed {
        if let Some(task) = rs.iter().find_map(|r| match r {
            Request::AddTask { task, .. } if span_named(task) || unit_named(task) => Some(task),
            _ => None,
        }) {
            return Parsed::Ask(WhenError::Unreadable {
                phrase: task.clone(),
                why: "is that how long, or how soon?".into(),
            });
        }
        if let [Request::AddTask { task, due: None }] = rs.as_slice() {
            // "set a reminder for 10": an hour, not what — what is asked, at the hour said.
            if hour_named_re().is_match(task.trim()) {
                if let Ok(Some(due)) = when::parse(&format!("at {}", task.trim()), now) {
                    return Parsed::Missing(Missing { want: Want::What, what: None, due: Some(due) });
                }
            }
            // "a reminder for my hair appointment the night before": before a time the routine
            // does not know — when to remind is asked, as "two days before my wife's birthday".
            if let Some(c) = the_night_before_re().captures(task) {
                return Parsed::Missing(Missing { want: Want::When, what: Some(group(&c, "what")), due: None });
            }
        }
        // "I need to get rid of all my reminders for this weekend": a change to what is set,
        // said as a need — never filed as a task to do.
        if rs.iter().any(|r| matches!(r, Request::AddTask { task, .. } if undo_named_re().is_match(task))) {
            return Parsed::NotRoutine;
        }
        // "Set an alert for 10 minutes before the game starts": a span before a thing whose time
        // is not said is no span from now — when the thing is is asked, as "remind me 10
        // minutes before the meeting".
        if let [Request::AddTask { task, due: Some(_) }] = rs.as_slice() {
            if let Some(thing) = task.strip_prefix("before ").filter(|t| !cn_hub::words::content(t).is_empty()) {
                return Parsed::Missing(Missing { want: Want::When, what: Some(thing.to_string()), due: None });
            }
        }
        // "Remind me to walk the dogs on Tuesday and Thursday": the other days of a list left
        // in the task's words — a task for each day, at the time said.
        if let Some(each) = each_day(rs, now) {
            return Parsed::Routine(each);
        }
        // "i need to request pto for march 2 and 3": a second day left in the task's words —
        // which day is asked, never filed as "request pto and 3".
        if let Some(task) = rs.iter().find_map(|r| match r {
            Request::AddTask { task, due: Some(_) } if second_day_re().is_match(task) => Some(task),
            _ => None,
        }) {
            // ("When should I remind you about request pto?": the next message says the day.)
            let what = second_day_re().replace(task, "").trim().to_string();
            return Parsed::Missing(Missing { want: Want::When, what: Some(what), due: None });
        }
        // "Make a meeting with amanda at 2 pm tomorrow and then schedule a follow up next week
        // …": a second request left inside a task's words is not filed as its name.
        if rs.iter().any(|r| matches!(r, Request::AddTask { task, .. } if then_another_re().is_match(task))) {
            return Parsed::NotRoutine;
        }
        // "Add Julie Jim and Jack to my Lunch Tomorrow Afternoon": a change to an event that
        // exists, whichever frame read it as a filing.
        if rs.iter().any(|r| matches!(r, Request::AddTask { .. } | Request::AddEvery { .. })) && learned::remakes(text)
        {
            return Parsed::NotRoutine;
        }
        // "a Basketball game Friday at 7:30 pm, Drinks with Kyle at 11:30 pm that night, and then
        // …": a clock time left inside a name is a request not read — the whole goes up.
        if rs.iter().any(|r| matches!(r, Request::AddTask { task: n, .. } | Request::AddEvery { action: n, .. } if clock_in_name_re().is_match(n)))
        {
            return Parsed::NotRoutine;
        }
        // "a timer for two hours, when it stops create one for three hours": the second, on
        // the first's end, is no part of it — the whole goes up.
        if chained_re().is_match(text) {
            return Parsed::NotRoutine;
        }
        // "update the easter egg hunt reminder to go off at 12pm and 12:30pm": a move to two
        // times is none to one.
        if rs.iter().any(|r| matches!(r, Request::Move { .. })) && two_clocks_re().is_match(text) {
            return Parsed::NotRoutine;
        }
        // "add a skiing trip … starting on Monday at 12 pm and ending on Sunday": a span of
        // days no task holds, whichever frame read it.
        if rs.iter().any(|r| matches!(r, Request::AddTask { .. } | Request::AddEvery { .. }))
            && learned::spans_days(text)
        {
            return Parsed::NotRoutine;
        }
        // "… to water the plants every tuesday and thursday": a repeat's word left dangling at
        // the end of a name is no part of it.
        if rs
            .iter()
            .any(|r| matches!(r, Request::AddTask { task: n, .. } | Request::AddEvery { action: n, .. } if dangling(n)))
        {
            let rs = rs
                .iter()
                .cloned()
                .map(|r| match r {
                    Request::AddTask { task, due } => Request::AddTask { task: undangled(&task), due },
                    Request::AddEvery { action, every } => Request::AddEvery { action: undangled(&action), every },
                    other => other,
                })
                .collect();
            return Parsed::Routine(rs);
        }
    }
    parsed
}

pattern!(
    not_then_re,
    "a time put right",
    r"(?i)\s+(?P<a>tomorrow|today|tonight|(?:next|this)\s+(?:week|month|weekend|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s*,?\s+not\s+(?P<b>(?:tomorrow|today|tonight|(?:next|this)\s+\w+|(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b[^,.;!?]*?)\s*[.!?]*$"
);

pattern!(
    hour_named_re,
    "an hour named alone",
    r"(?i)^(?:[1-9]|1[0-2]|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:[:.]?(?:[0-5]\d))?$"
);

pattern!(
    wake_word_re,
    "an assistant's name",
    r"(?i)^\s*(?:(?:hey|hi|hello|ok|okay|good\s+(?:day|morning|afternoon|evening))[\s,]+)?(?:alexa|siri|google|cortana|bixby|assistant|car)\s*[,!.:]\s*|^\s*(?:hey|hi|hello|ok|okay|good\s+(?:day|morning|afternoon|evening))[\s,]+(?:alexa|siri|google|cortana|bixby|assistant|car)\s+"
);

/// The words a name may not end on ("water the plants every", "Colby's dinner party is at 6pm"):
/// what joined it to its time or repeat, whichever reading took it.
const DANGLING: &[&str] = &["every", "each", "is", "are", "was", "on", "at", "for", "by"];

fn dangling(name: &str) -> bool {
    name.split_whitespace().count() > 1
        && name.split_whitespace().last().is_some_and(|w| DANGLING.contains(&w.to_ascii_lowercase().as_str()))
}

fn undangled(name: &str) -> String {
    let mut words: Vec<&str> = name.split_whitespace().collect();
    while words.len() > 1 && words.last().is_some_and(|w| DANGLING.contains(&w.to_ascii_lowercase().as_str())) {
        words.pop();
    }
    words.join(" ")
}

/// Whether `text` holds more than one request or corrects itself ("… tomorrow and then
/// schedule a follow up …", "… Make it this thursday actually", "… when it stops create one
/// …"): what no single filing holds.
pub(super) fn composite(text: &str) -> bool {
    corrected_re().is_match(text) || then_another_re().is_match(text) || chained_re().is_match(text)
}

pattern!(second_day_re, "a second day", r"(?i)\band\s+\d{1,2}(?:st|nd|rd|th)?\s*$");
pattern!(
    other_day_re,
    "another day of a list",
    r"(?i)(?:\s*,\s*|\s+)(?:and\s+|&\s*)?(?:on\s+)?(?P<wd>monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|thurs)\s*$"
);

/// One task filed on a weekday with the list's other days left in its words ("walk the dogs
/// and Thursday", due Tuesday): the task on each day, at the same time; `None` otherwise.
fn each_day(rs: &[Request], now: &Zoned) -> Option<Vec<Request>> {
    let [Request::AddTask { task, due: Some(first) }] = rs else { return None };
    if !first.phrase.split(|c: char| !c.is_alphanumeric()).any(|w| when::weekday_of(w).is_some()) {
        return None;
    }
    let mut words = task.as_str();
    let mut days = Vec::new();
    while let Some(c) = other_day_re().captures(words) {
        // ("… for my class on Saturday": a day said of the name, with no "and" or comma, is
        // no day of a list.)
        if c.get(0).is_some_and(|m| m.as_str().trim_start().to_ascii_lowercase().starts_with("on ")) {
            break;
        }
        days.push(group(&c, "wd"));
        words = &words[..c.get(0)?.start()];
    }
    let words = words.trim();
    if days.is_empty() || cn_hub::words::content(words).is_empty() {
        return None;
    }
    let at = if first.time_given { format!(" at {}", first.at.strftime("%H:%M")) } else { String::new() };
    let mut each = vec![Request::AddTask { task: words.to_string(), due: Some(first.clone()) }];
    for day in days.iter().rev() {
        let due = when::parse(&format!("on {day}{at}"), now).ok()??;
        each.push(Request::AddTask { task: words.to_string(), due: Some(due) });
    }
    Some(each)
}
pattern!(
    chained_re,
    "a request chained on another's end",
    r"(?i)\bwhen\s+(?:it|that|this)\s+(?:stops|ends|finishes|goes\s+off|is\s+done|runs\s+out)\b[^.!?]*\b(?:create|set|start|make|add)\b"
);
pattern!(clock_in_name_re, "a clock time in a name", r"(?i)\b\d{1,2}(?::\d{2})?\s*[ap]\.?m\b");
pattern!(
    two_clocks_re,
    "two clock times",
    r"(?i)\b\d{1,2}(?::\d{2})?\s*(?:[ap]\.?m\b)?\s+(?:and|&)\s+\d{1,2}(?::\d{2})?\s*[ap]\.?m\b"
);
pattern!(
    then_another_re,
    "then another request",
    r"(?i)\b(?:and\s+)?then\s+(?:schedule|set|make|create|add|remind|book|put|plan)\b"
);
pattern!(
    corrected_re,
    "corrected",
    r"(?i)[.?!;]\s+[^.?!;]*\b(?:actually|no\s+wait|wait\s+no|i\s+mean|scratch\s+that|make\s+that|sorry)\b|\b(?:no\s+wait|wait\s+no|scratch\s+that)\b"
);
pattern!(
    forget_then_alert_re,
    "not to forget, then alert",
    r"(?i)^\s*(?:i\s+)?(?:do\s+not|don'?t)\s+want\s+to\s+forget\s+(?:about\s+)?(?P<what>[^;,.?!]+?)\s*[;,.]?\s+(?:so\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:remind|alert|notify|ping|tell|warn)\s+me\s+(?P<when>(?:at|in|on|by|tomorrow|tonight|today)\b[^;?!]*?)[.?!]*\s*$"
);
pattern!(
    remind_of_mine_re,
    "remind me of my meetings",
    r"(?i)^\s*(?:(?:hi|hey|hello)\b[,!.]?\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?remind\s+me\s+(?:about|of)\s+my\s+(?P<kind>(?:[a-z]+\s+)?(?:meetings|appointments|events|plans))(?P<rest>\s+(?:for\s+)?(?:today|tomorrow|tonight|this\s+week|next\s+week)\b)?\s*[?.!]*\s*$"
);
pattern!(
    the_night_before_re,
    "the night before",
    r"(?i)^(?P<what>.*\w.*?)\s+(?:the\s+(?:night|day|morning|evening|afternoon|week|weekend)|(?:an?|one|two|three|\d+)\s+(?:minutes?|hours?|days?|weeks?))\s+(?:before|prior)$"
);
pattern!(
    undo_named_re,
    "undo named",
    r"(?i)^(?:get\s+rid\s+of|cancel|delete|remove|clear|erase|turn\s+off|switch\s+off|disable|stop)\b.*\b(?:reminders?|alarms?|timers?|tasks?|events?|appointments?)\b"
);

// Not "set the time for the meeting to 3pm": that changes a time.
pattern!(
    set_time_re,
    "set time to",
    r"(?i)^\s*(?:please\s+)?set\s+(?:a\s+)?(?P<time>time)\s+(?:to\s+(?:\w+\s+){1,6})?for\s+(?:\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty|forty|fifty|sixty|ninety)\s+(?:minutes?|mins?|seconds?|secs?|hours?|hrs?)\b"
);

/// [`parse`] before its last check.
fn read(text: &str, now: &Zoned) -> Parsed {
    // "an alarm at 30 second intervals": a repeat finer than a minute, which no entry keeps.
    if let Some(m) = seconds_apart_re().find(text) {
        return Parsed::Ask(WhenError::Unreadable {
            phrase: m.as_str().to_string(),
            why: "I can repeat every minute at the most — how often, in minutes?".into(),
        });
    }
    // "Colby's dinner party is at 6pm in 2 days; can you remind me 15 mins before", "… August
    // 16th at 1 pm. Remind me 2 hours before.": the thing said first, reminded of a span before
    // its time.
    if let Some(c) = remind_before_re().captures(text) {
        let (Some(all), Some(span)) = (c.get(0), c.name("span")) else { return Parsed::NotRoutine };
        let thing = text[..all.start()].trim();
        let ask = || {
            Parsed::Ask(WhenError::Unreadable {
                phrase: all.as_str().trim().trim_start_matches([',', ';', '.']).trim().to_string(),
                why: "before what, and when is it?".into(),
            })
        };
        let Some(span) = when::shift(&format!("for {}", span.as_str())).map(|s| s.span) else { return ask() };
        if thing.is_empty() || remind_before_re().is_match(thing) {
            return ask();
        }
        // The thing as a filing ("Set reminder for sports physicals August 16th at 1 pm"), or
        // as said ("Colby's dinner party is at 6pm in 2 days": the party, then).
        let filed = match parse(thing, now) {
            Parsed::Routine(rs) => match rs.as_slice() {
                [Request::AddTask { task, due: Some(d) }] => Some((task.clone(), d.clone())),
                _ => None,
            },
            _ => None,
        };
        let said = || {
            let d = when::parse(thing, now).ok()??;
            let what = stated_re().replace(&d.rest, "").trim().to_string();
            (!cn_hub::words::content(&what).is_empty()).then_some((what, d))
        };
        return match filed.or_else(said) {
            Some((task, d)) if d.time_given => match d.at.checked_sub(span) {
                Ok(at) if at > *now => {
                    Parsed::Routine(vec![Request::AddTask { task, due: Some(when::Due { at, ..d }) }])
                }
                Ok(at) => Parsed::Ask(WhenError::past(all.as_str(), at, now)),
                Err(_) => ask(),
            },
            _ => ask(),
        };
    }
    if let Some(reply) = reply_of(text, now) {
        return Parsed::Routine(vec![Request::Reply { reply }]);
    }
    if Clean::of(text).is_some_and(|c| next_re().is_match(&c.text)) {
        return Parsed::Routine(vec![Request::Next]);
    }
    if let Some(r) = Clean::of(text).and_then(|c| before_event(&c.text, now)) {
        return Parsed::Routine(vec![r]);
    }
    if let Some(missing) = Clean::of(text).and_then(|c| missing(&c.text, now)) {
        return missing;
    }
    // "Schedule a lab appointment at 6 pm on August 3. Alex is coming along", "… Set it for 11
    // am, tomorrow, with Jon.": who comes along, said beside the filing, is part of its name.
    let (clauses, company) = companions(clauses(text), now);
    let parsed = gathered(text, clauses, now);
    match company {
        None => parsed,
        Some(who) => accompanied(parsed, &who),
    }
}

/// The requests of a message's clauses, put together.
fn gathered(text: &str, clauses: Vec<String>, now: &Zoned) -> Parsed {
    let mut requests = Vec::new();
    let mut asked = None;
    let mut missing = None;
    // A filing said over several sentences ("I need to add an alarm. It will be for 4:45 pm.
    // Name the new alarm as Leave for home."): its name and its time, each said alone.
    let mut name: Option<String> = None;
    let mut times: Vec<when::Due> = Vec::new();
    let several = clauses.len() > 1;
    // "I need to catch the 1pm train; please remind me at 11:30am to start packing": beside a
    // reminder asked for, a need only says why — it is filed on its own only when alone.
    let mut needs: Vec<usize> = Vec::new();
    let mut reminded = false;
    // "I need to get supplies for the craft fair; can you remind me on Thursday?": the need,
    // said without a time, is what the reminder beside it is of.
    let mut need: Option<String> = None;
    for clause in &clauses {
        if Clean::of(clause).is_none() {
            continue;
        }
        // "a 20 minute timer, with alarm at 5 minutes remaining": an alert before a timer
        // ends is not one the routine can set — handed up whole, never half set.
        if remaining_re().is_match(clause) {
            return Parsed::NotRoutine;
        }
        // "make sure Kiera knows …", "let Sam know the meeting moved": for someone else.
        if learned::tells_another(clause) {
            return Parsed::NotRoutine;
        }
        // "can i get to jenny's house by noon if i leave at 11:30", "I need to get the
        // directions to Katie's house, leaving at 1 PM", "i need to arrive by 5:45 … when
        // should i leave", "I need to get information on events in Hardy tomorrow night": a
        // trip or a question for the world, not a reminder — unless one is asked for in so
        // many words.
        if travel_re().is_match(clause) && !asked_for_re().is_match(clause) {
            return Parsed::NotRoutine;
        }
        // "Put all the reminders set for next week on the screen": a request to see them.
        let shown = on_screen_re().captures(clause).and_then(|c| Some(format!("show {}", c.name("x")?.as_str())));
        // "Reminder about the party on thursday.": a reminder named, asked for.
        let shown = shown.or_else(|| {
            reminder_about_re()
                .captures(clause)
                .and_then(|c| Some(format!("remind me about {}", c.name("x")?.as_str())))
        });
        let told = learned::told_when(shown.as_deref().unwrap_or(clause));
        let mut clause = told.as_deref().or(shown.as_deref()).unwrap_or(clause.as_str());
        let rest;
        if let Some((n, left)) = learned::naming(clause) {
            // Named more than once, two ways: which is meant is asked, never chosen.
            if name.as_ref().is_some_and(|had| !had.eq_ignore_ascii_case(&n)) {
                return Parsed::NotRoutine;
            }
            if learned::only_asking(&left) {
                name = Some(n);
                continue;
            }
            if learned::time_only(&left, now).is_some() || learned::device_said(&left) {
                name = Some(n);
                rest = left;
                clause = &rest;
            }
        }
        // "alert me 15 minutes before the meeting at 2 PM on Tuesday": the reminder comes that
        // long before the time said of the thing.
        if let Some(r) = before_event(clause, now) {
            requests.push(r);
            continue;
        }
        // A question ("what have I got on today?") is no time said for a filing.
        let question = Clean::of(clause).is_some_and(|c| c.question);
        match learned::time_only(clause, now).filter(|_| !question) {
            Some(Ok(due)) => {
                times.push(due);
                continue;
            }
            Some(Err(e)) => {
                asked = asked.or(Some(e));
                continue;
            }
            None => {}
        }
        // "Show me the alarm set for Wednesday": what the model is sure only reads is never
        // filed by a frame that matched its words.
        let sure = learned::sure(clause);
        let reads = sure == learned::Sure::Reads;
        if let Some(rs) = learned::device_times(clause, now).filter(|_| !reads) {
            requests.extend(rs);
            continue;
        }
        if let Some(r) = learned::device_time(clause, now).filter(|_| !reads) {
            requests.push(r);
            continue;
        }
        let Some(clean) = Clean::of(clause) else { continue };
        let framed = clause_request(&clean, now)
            .or_else(|| Clean::of(&correct_frame(&clean.text)?).and_then(|c| clause_request(&c, now)))
            .filter(|r| match r {
                Ok(Request::AddTask { .. }) => !reads,
                // A repeat in the words of a request for the agent to act ("please book
                // another boat for this weekends trip") makes no schedule entry.
                Ok(Request::AddEvery { .. }) => sure == learned::Sure::Unsure && !learned::unasked_repeat(clause),
                _ => true,
            });
        let lower = clause.to_ascii_lowercase();
        if several && matches!(framed, Some(Ok(Request::AddTask { .. }))) {
            if need_re().is_match(clause.trim()) && !lower.contains("remind") {
                needs.push(requests.len());
            } else if lower.contains("remind me") {
                reminded = true;
            }
        }
        match framed {
            Some(Ok(r)) => requests.push(r),
            Some(Err(e)) => asked = asked.or(Some(e)),
            // No frame takes it: what the learned understanding reads in it.
            None => match learned::clause(clause, now) {
                learned::Clause::Request(r) => requests.push(r),
                learned::Clause::Ask(e) => asked = asked.or(Some(e)),
                learned::Clause::Skip => {}
                // "I want to view my alarms. Can you show it to me?", "Can you try again?":
                // the clause only repeats or asks again for the one beside it.
                learned::Clause::Missing(_) | learned::Clause::NotRoutine
                    if several && (echo(clause) || learned::only_asking(clause) || learned::scene(clause)) => {}
                learned::Clause::Missing(m) => missing = missing.or(Some(m)),
                learned::Clause::NotRoutine if several && need.is_none() && need_of(clause).is_some() => {
                    need = need_of(clause);
                }
                learned::Clause::NotRoutine => return Parsed::NotRoutine,
            },
        }
    }
    if reminded {
        for &i in needs.iter().rev() {
            requests.remove(i);
        }
        needs.clear();
    }
    if let Some(e) = asked {
        return Parsed::Ask(e);
    }
    if let Some(task) = need {
        return match (requests.is_empty(), missing, name, times.len()) {
            (true, Some(Missing { what: None, due: Some(d), .. }), None, 0) => {
                Parsed::Routine(vec![Request::AddTask { task, due: Some(d) }])
            }
            (true, Some(Missing { what: None, due: None, .. }), None, 0) => {
                Parsed::Missing(Missing { want: Want::When, what: Some(task), due: None })
            }
            _ => Parsed::NotRoutine,
        };
    }
    // "every 15 minutes past 7 am": a repeat said that no reading found is asked about, never
    // filed once.
    if every_word_re().is_match(text) && requests.iter().any(|r| matches!(r, Request::AddTask { .. })) {
        return Parsed::Ask(WhenError::Unreadable {
            phrase: every_word_re().find(text).map_or("every", |m| m.as_str()).to_string(),
            why: "I can't tell how often".into(),
        });
    }
    // Two times said apart for one filing: which is meant is asked, never chosen.
    if times.len() > 1 {
        return Parsed::NotRoutine;
    }
    let time = times.pop();
    if name.is_some() || time.is_some() {
        return assembled(requests, missing, name, time);
    }
    // "i need to put out the garbage tonight - can you remind me at 8?": the need, reminded of
    // at the time the reminder asks.
    if let ([Request::AddTask { task, .. }], [0], Some(Missing { what: None, due: Some(d), .. })) =
        (requests.as_slice(), needs.as_slice(), &missing)
    {
        return Parsed::Routine(vec![Request::AddTask { task: task.clone(), due: Some(d.clone()) }]);
    }
    let files = requests.iter().any(|r| matches!(r, Request::AddTask { .. } | Request::AddEvery { .. }));
    match (requests.is_empty(), missing) {
        // A request that lacks what to do is asked about when nothing else is asked.
        (true, Some(m)) => Parsed::Missing(m),
        (true, None) => Parsed::NotRoutine,
        // "I need to add an alarm. Call it Cleaning, for 3:45 pm.": said whole further on.
        (false, Some(m)) if files && m.due.is_none() => Parsed::Routine(requests),
        // Half of it cannot be done: none of it is.
        (false, Some(_)) => Parsed::NotRoutine,
        (false, None) => Parsed::Routine(requests),
    }
}

pattern!(
    coming_re,
    "someone coming along",
    r"(?i)^\s*(?:and\s+)?(?P<who>[a-z][\w'-]*|my\s+[a-z][\w'-]*)\s+(?:is|are|will\s+be|'s)\s+(?:coming(?:\s+along|\s+with\s+(?:me|us))?|joining\s+(?:me|us)|tagging\s+along|going\s+with\s+(?:me|us))\s*[.!]*\s*$|^\s*(?:and\s+)?(?:(?:i'?ll|i\s+will|i'?m|i\s+am)\s+)?(?:bring|bringing)\s+(?P<brought>[A-Z][\w'-]*|my\s+(?:KIN))\s+(?:with|along)(?:\s+(?:me|us))?\s*[.!]*\s*$"
        .replace("KIN", KIN)
);

pattern!(
    with_after_time_re,
    "someone with, after a time",
    r"(?i)^(?P<time>.+?),?\s+with\s+(?P<who>[a-z][\w'-]*(?:\s+[A-Z][\w'-]*)?|my\s+[a-z][\w'-]*|the\s+[a-z][\w'-]*(?:\s+team)?)(?:[\s,]+please)?\s*[.!]*\s*$"
);

/// Family and people one brings along ("bring my aunt with me").
const KIN: &str = "mother|mom|mum|father|dad|wife|husband|partner|son|daughter|brother|sister|aunt|uncle|cousin|grandma|grandpa|grandmother|grandfather|boss|friend|kids?|children|family|niece|nephew";

/// `clauses` without those that only say who comes along ("Alex is coming along", "bring
/// Martha with me", "Set it for 11 am, tomorrow, with Jon" said beside a filing), and who
/// that is. Only with more than one clause: said alone, it asks for nothing.
fn companions(clauses: Vec<String>, now: &Zoned) -> (Vec<String>, Option<String>) {
    if clauses.len() < 2 {
        return (clauses, None);
    }
    let mut who: Option<String> = None;
    let mut kept = Vec::with_capacity(clauses.len());
    for clause in clauses {
        let found = match coming_re().captures(&clause) {
            // ("My father is joining me": "with my father".)
            Some(c) => c.name("who").or_else(|| c.name("brought")).map(|m| {
                let w = m.as_str();
                (w.strip_prefix("My ").map_or_else(|| w.to_string(), |rest| format!("my {rest}")), None)
            }),
            None => with_after_time_re().captures(&clause).and_then(|c| {
                let time = c.name("time")?.as_str();
                matches!(learned::time_only(time, now), Some(Ok(_)))
                    .then(|| (c.name("who").map_or("", |m| m.as_str()).to_string(), Some(time.to_string())))
            }),
        };
        match found {
            // (Two said apart: both kept, "with Alex and Jon".)
            Some((w, time)) if !w.is_empty() => {
                who = Some(match who {
                    Some(had) => format!("{had} and {w}"),
                    None => w,
                });
                if let Some(t) = time {
                    kept.push(t);
                }
            }
            _ => kept.push(clause),
        }
    }
    (kept, who)
}

/// `parsed` with `who` joined to the one filing it makes ("a lab appointment with Alex"); a
/// message that files nothing, or more than one thing, does not say whose company it is — it
/// goes up whole.
fn accompanied(parsed: Parsed, who: &str) -> Parsed {
    let with = |what: &str| {
        if what.to_ascii_lowercase().contains(&who.to_ascii_lowercase()) {
            what.to_string()
        } else {
            format!("{what} with {who}")
        }
    };
    match parsed {
        Parsed::Routine(rs) => match rs.as_slice() {
            [Request::AddTask { task, due }] => {
                Parsed::Routine(vec![Request::AddTask { task: with(task), due: due.clone() }])
            }
            _ => Parsed::NotRoutine,
        },
        Parsed::Missing(Missing { want, what: Some(w), due }) => {
            Parsed::Missing(Missing { want, what: Some(with(&w)), due })
        }
        Parsed::Ask(e) => Parsed::Ask(e),
        _ => Parsed::NotRoutine,
    }
}

/// One filing put together from its parts said in separate sentences: a name ("Call it
/// Cleaning") and a time ("It will be for 4:45 pm") joined to the alarm or reminder asked for
/// beside them. Parts that belong to no filing, or to a request that is not one, make the
/// message not routine; a filing still without a what or a when is asked about.
fn assembled(
    mut requests: Vec<Request>,
    missing: Option<Missing>,
    name: Option<String>,
    time: Option<when::Due>,
) -> Parsed {
    let device = |t: &str| learned::device_name(t);
    match (requests.as_mut_slice(), missing) {
        ([], None) => match (name, time) {
            (Some(n), Some(d)) => Parsed::Routine(vec![Request::AddTask { task: n, due: Some(d) }]),
            (Some(n), None) => Parsed::Missing(Missing { want: Want::When, what: Some(n), due: None }),
            (None, d) => Parsed::Missing(Missing { want: Want::What, what: None, due: d }),
        },
        ([], Some(m)) => {
            let what = name.or(m.what);
            let due = time.or(m.due);
            match (what, due) {
                (Some(w), Some(d)) => Parsed::Routine(vec![Request::AddTask { task: w, due: Some(d) }]),
                (what, due) => Parsed::Missing(Missing {
                    want: match (&what, &due) {
                        (Some(_), None) => Want::When,
                        (None, Some(_)) => Want::What,
                        _ => Want::WhatAndWhen,
                    },
                    what,
                    due,
                }),
            }
        }
        ([Request::AddTask { task, due }], None) => {
            if let Some(n) = name {
                // Only an alarm's or a timer's own name gives way to the one the person gave.
                if !device(task) {
                    return Parsed::NotRoutine;
                }
                *task = n;
            }
            if let Some(d) = time {
                if due.is_some() {
                    return Parsed::NotRoutine;
                }
                *due = Some(d);
            }
            Parsed::Routine(requests)
        }
        ([Request::AddEvery { action, .. }], None) if time.is_none() && device(action) => {
            if let Some(n) = name {
                *action = n;
            }
            Parsed::Routine(requests)
        }
        _ => Parsed::NotRoutine,
    }
}

/// A clause that only repeats the request beside it ("Can you show it to me?", "Can you do
/// that now?"): nothing in it but asking.
fn echo(clause: &str) -> bool {
    const ASKING: &[&str] = &[
        "show", "see", "view", "check", "display", "tell", "do", "make", "help", "want", "like", "know", "same", "now",
        "real", "quick", "favor", "favour", "pleas", "please", "thank", "thanks", "look", "let", "need", "get", "can",
        "could", "would", "will", "you", "me", "it", "that", "this", "to", "also", "again",
    ];
    let words = cn_hub::words::content(clause);
    words.iter().all(|w| ASKING.contains(&w.as_str()))
}

/// Whether `text` is for the routine: a request the patterns read (or one to ask about), or
/// one in the routine's words they are unsure of (for the local model to classify). The
/// `routine: true` trigger.
pub fn recognizes(text: &str) -> bool {
    let now = jiff::Timestamp::now().to_zoned(jiff::tz::TimeZone::UTC);
    !matches!(parse(text, &now), Parsed::NotRoutine) || super::classify::unsure(text)
}

/// `text` cleaned as a clause is for the frames (greetings, politeness, end punctuation
/// gone): what an answer to a question says. `None` when nothing is left but courtesy.
pub(crate) fn clean(text: &str) -> Option<String> {
    Clean::of(text).map(|c| c.text)
}

/// A clause cleaned for the frames: greetings, politeness and end punctuation gone.
struct Clean {
    text: String,
    /// It asked something ("…?") without a polite "can you": only the reading frames apply.
    question: bool,
    /// It carried a ✅: a task named is done.
    ticked: bool,
}

/// A pattern of the routine's, compiled (they are constants: one that does not compile is a bug).
pub(super) fn re(what: &str, pattern: &str) -> Regex {
    Regex::new(pattern).unwrap_or_else(|e| unreachable!("the {what} pattern compiles: {e}"))
}

macro_rules! pattern {
    ($name:ident, $what:literal, $pattern:expr) => {
        pub(super) fn $name() -> &'static Regex {
            static RE: OnceLock<Regex> = OnceLock::new();
            RE.get_or_init(|| re($what, &$pattern))
        }
    };
}
pub(super) use pattern;

pattern!(
    remaining_re,
    "time remaining",
    r"(?i)\b(?:\d+|a|an|one|two|three|four|five|ten|fifteen|twenty|thirty)\s+(?:minutes?|mins?|seconds?|secs?|hours?)\s+(?:remaining|left)\b"
);
pattern!(
    travel_re,
    "a trip",
    r"(?i)\b(?:directions?|traffic|if\s+i\s+(?:leave|go|drive|walk|take)|leaving\s+(?:at|in|now|by|from)|how\s+long\s+(?:will|would|does|is)\s+it\s+take|(?:when|what\s+time)\s+(?:should|do|must|would|shall)\s+(?:i|we)\s+(?:leave|go|head\s+out|set\s+off|depart|get\s+going)|(?:get|find|need)\s+(?:some\s+|more\s+)?(?:info|information)\s+(?:on|about|regarding)\s+(?:the\s+)?events?)\b"
);
pattern!(asked_for_re, "a reminder asked for", r"(?i)\b(?:remind|reminder|alarm|timer|tasks?|to-?do|calendar)\b");
pattern!(
    reminder_about_re,
    "a reminder about",
    r"(?i)^\s*(?:a\s+|new\s+)?reminder\s+(?:about|of|re|regarding)\s+(?P<x>.+)$"
);
pattern!(
    on_screen_re,
    "on the screen",
    r"(?i)^\s*(?:please\s+)?(?:put|bring|pull|get)\s+(?:up\s+)?(?P<x>.+?)\s+(?:up\s+)?on\s+(?:the|my)\s+(?:screen|display)\s*[.!?]*\s*$"
);
pattern!(
    lead_re,
    "lead",
    r"(?i)^(?:(?:hey|hi|hello|good\s+(?:day|morning|afternoon|evening)|ok|okay|so|oh|and|also|um|right|alright|all\s+right|btw|then|great|perfect|cool|yes|yeah|sure|awesome|thanks|thank\s+you)\b[\s,]*)+"
);
// ("Car, find the date and time for my tennis activity", "car what is the date …": the
// assistant addressed by name, as KVRET's drivers do.)
pattern!(
    addressed_re,
    "the assistant addressed",
    r"(?i)^(?:car|assistant)(?:\s*,\s*|\s+(?P<next>(?:what|when|where|which|how|find|set|schedule|remind|please|i|can|could|will|would|tell|give|show|add|make|put|check|look)\b))"
);
pattern!(
    polite_re,
    "polite",
    r"(?i)^(?:(?:please|pls|plz|kindly)\s+|(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?|i'?d\s+like\s+you\s+to\s+)+"
);
pattern!(
    tail_re,
    "tail",
    r"(?i)(?:[\s,]+(?:please|pls|plz|thanks|thank\s+you|thx|ty|cheers|for\s+me|if\s+you\s+can))+[\s.!?]*$"
);
pattern!(
    courtesy_re,
    "courtesy",
    r"(?i)^(?:thanks?(?:\s+you)?(?:\s+so\s+much|\s+a\s+lot)?|thx|ty|cheers|ok(?:ay)?|great|cool|perfect|nice|please|hi|hello|hey|good\s+(?:morning|afternoon|evening))$"
);

impl Clean {
    fn of(clause: &str) -> Option<Clean> {
        let ticked = clause.contains(['✅', '✔', '☑']);
        let mut t: String = clause
            .chars()
            .filter(|c| !matches!(c, '✅' | '✔' | '☑' | '\u{fe0f}'))
            .collect::<String>()
            .trim()
            .to_string();
        let asks = t.trim_end().ends_with('?');
        t = lead_re().replace(&t, "").to_string();
        t = addressed_re().replace(&t, "$next").to_string();
        t = lead_re().replace(&t, "").to_string();
        let polite = polite_re().is_match(&t);
        t = polite_re().replace(&t, "").to_string();
        t = tail_re().replace(&t, "").to_string();
        let t = t.trim().trim_end_matches(['.', '!', '?', ',', ';', ':']).trim().to_string();
        if t.is_empty() || courtesy_re().is_match(&t) {
            return None;
        }
        Some(Clean { text: t, question: asks && !polite, ticked })
    }
}

pattern!(
    remind_before_re,
    "remind me a span before",
    r"(?i)(?:^|[\s,;.]+)\s*(?:and\s+)?(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:remind|alert|notify|ping)\s+(?:me|us)\s+(?:about\s+it\s+|of\s+it\s+)?(?P<span>(?:\d+|an?|one|two|three|four|five|ten|fifteen|twenty|thirty|forty[\s-]five|half\s+an)\s+(?:minutes?|mins?|hours?|hrs?|days?))\s+(?:before|beforehand|ahead|earlier|prior)(?:\s+(?:it|that|then|hand|of\s+time|the\s+event|it\s+starts))?\s*(?:please)?\s*[.!?]*\s*$"
);

pattern!(
    stated_re,
    "a thing's time stated",
    r"(?i)\s+(?:is|are|will\s+be|starts|begins|was\s+moved|has\s+been\s+moved)(?:\s+(?:at|on|for))?\s*$"
);

pattern!(
    seconds_apart_re,
    "seconds apart",
    r"(?i)\b(?:\d+|a|one|two|five|ten|fifteen|twenty|thirty|forty|forty[\s-]five|fifty)[\s-]*(?:seconds?|secs?)[\s-]+intervals?\b|\bevery\s+(?:\d+|two|five|ten|fifteen|twenty|thirty|forty|forty[\s-]five|fifty)\s*(?:seconds|secs)\b"
);

// Where a second request starts after "and": its first words.
pattern!(
    second_re,
    "second request",
    r"(?i)^(?:then\s+|also\s+)?(?:remind\s+me|add\s|put\s|mark\s|tick\s|check\s+off|move\s|push\s|postpone\s|reschedule\s|snooze\s|delay\s|cancel\s|delete\s|remove\s|drop\s|scrap\s|what'?s\s|what\s+is\s|show\s+me\s+(?:my|the)\s|list\s+my\s|note\s+to\s+self|don'?t\s+let\s+me\s+forget|set\s+(?:an?|the|my)\s+(?:alarm|timer|reminder)\b)"
);

pattern!(
    second_filing_re,
    "second filing",
    r"(?i)^(?:then\s+|also\s+)?(?:remind\s+me|add\s|put\s|what'?s\s|what\s+is\s|show\s+me\s+(?:my|the)\s|list\s+my\s|note\s+to\s+self|don'?t\s+let\s+me\s+forget)"
);

/// Whether `sentence` ends in an abbreviation's stop ("8 p.m.", "e.g.", "Dr."), which ends
/// no sentence.
fn abbreviated(sentence: &str) -> bool {
    // "a." and "p." are the first stops of "a.m." and "p.m.".
    ends_in(sentence, &["a", "p", "a.m", "p.m", "e.g", "i.e", "dr", "mr", "mrs", "ms", "st", "vs", "approx"])
        || initials(sentence)
}

/// Whether `sentence` ends in letters each followed by a stop ("add t.p. to reminders", "the
/// u.s. office") or in a capital's ("call J. Smith"): initials, no sentence's end ("I." is the
/// word).
fn initials(sentence: &str) -> bool {
    let last = sentence.trim_end_matches('.').rsplit(char::is_whitespace).next().unwrap_or("");
    match last.len() {
        1 => last.chars().all(|c| c.is_ascii_uppercase() && c != 'I'),
        _ => last.split('.').all(|l| l.len() == 1 && l.chars().all(|c| c.is_ascii_alphabetic())),
    }
}

/// Whether the last word of `sentence`, its stops cut, is one of `words` (lower case).
fn ends_in(sentence: &str, words: &[&str]) -> bool {
    let last = sentence.trim_end_matches('.').rsplit(|c: char| c.is_whitespace()).next().unwrap_or("");
    words.contains(&last.to_ascii_lowercase().as_str())
}

/// A reminder a span before a thing whose time is said ("Set a reminder to alert me 15 minutes
/// before the meeting at 2 PM on Tuesday": "the meeting", Tuesday 13:45); `None` when the
/// clause is not that, the thing's time is not a clock time, or the reminder would be past.
fn before_event(clause: &str, now: &Zoned) -> Option<Request> {
    let c = before_event_re().captures(clause)?;
    let span = when::shift(&format!("for {}", c.name("span")?.as_str()))?.span;
    let due = when::parse(c.name("when")?.as_str(), now).ok()??;
    if !due.time_given || !learned::only_asking(&due.rest) {
        return None;
    }
    let what = c.name("what")?.as_str().trim().to_string();
    let at = due.at.checked_sub(span).ok()?;
    (at > *now && !cn_hub::words::content(&what).is_empty()).then(|| Request::AddTask {
        task: what.clone(),
        due: Some(when::Due { at, phrase: due.phrase.clone(), rest: what, day_given: true, time_given: true }),
    })
}

pattern!(
    before_event_re,
    "a reminder before a thing",
    r"(?i)^\s*(?:please\s+)?(?:set\s+(?:a|an)\s+(?:reminder|alert|alarm)\s+(?:to\s+(?:alert|remind|notify)\s+me\s+)?|remind\s+me\s+|alert\s+me\s+|notify\s+me\s+)(?P<span>(?:\d+|an?|one|two|five|ten|fifteen|twenty|thirty|forty\s+five|half\s+an)\s+(?:minutes?|mins?|hours?|hrs?))\s+before\s+(?P<what>.+?)\s+(?P<when>(?:at|on|tomorrow|today|tonight)\b.*?)[.!]?\s*$"
);

/// Whether `sentence` ends in a month shortened with a stop ("Sept.", "feb.").
fn month_shortened(sentence: &str) -> bool {
    ends_in(sentence, &["jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"])
}

pattern!(
    counted_re,
    "alarms counted",
    r"(?i)^(?:please\s+)?(?:can\s+you\s+)?(?:set|create|make|add)\s+(?:me\s+)?(?:two|three|four|2|3|4|a\s+couple\s+of)\s+(?:alarms|timers)\s*[.:;!]?$"
);
pattern!(each_one_re, "each one", r"(?i)^(?:one|the\s+first(?:\s+one)?)\s+(?:for|at)\b");

/// The message cut into clauses: sentences, and "… and <a second request>".
fn clauses(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut sentence = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        sentence.push(*c);
        let next = chars.get(i + 1);
        // "Thank you so much..Show my alarms": a run of stops before a capital ends a sentence too.
        let ends = matches!(c, '.' | ';' | '!' | '?' | '\n')
            && (next.is_none_or(|n| n.is_whitespace())
                || (i > 0 && matches!(chars[i - 1], '.' | '!' | '?') && next.is_some_and(|n| n.is_uppercase())));
        // "at 8 p.m. tonight", "e.g. milk": an abbreviation's stop ends nothing.
        // "before Sept. 1st": a month's stop before its day ends nothing either.
        let day_next = chars[i + 1..].iter().find(|n| !n.is_whitespace()).is_some_and(char::is_ascii_digit);
        let abbreviation = *c == '.' && (abbreviated(&sentence) || (day_next && month_shortened(&sentence)));
        if ends && !abbreviation {
            out.push(std::mem::take(&mut sentence));
        }
    }
    out.push(sentence);
    // "Set two alarms. One for 5 a.m. and a second one for 6:30 a.m.": the times said in the
    // next sentence are the ones asked for.
    let mut joined: Vec<String> = Vec::new();
    for s in out {
        match joined.last_mut() {
            Some(last) if counted_re().is_match(last.trim()) && each_one_re().is_match(s.trim_start()) => {
                let head = last.trim_end().trim_end_matches(['.', ':', ';', '!']).to_string();
                *last = format!("{head}, {}", s.trim_start());
            }
            _ => joined.push(s),
        }
    }
    let mut clauses = Vec::new();
    for s in joined.into_iter().filter(|s| !s.trim().is_empty()) {
        let mut rest = s.as_str();
        loop {
            let lower = rest.to_ascii_lowercase();
            // Within "remind me to …", what follows is what to be reminded of ("remind me to
            // call and cancel the dentist"): only a second filing or question starts anew.
            let reminding =
                lower.trim_start().starts_with("remind me to ") || lower.trim_start().starts_with("remind me about ");
            let cut = lower.match_indices(" and ").map(|(i, _)| i).find(|&i| {
                second_re().is_match(&rest[i + 5..]) && (!reminding || second_filing_re().is_match(&rest[i + 5..]))
            });
            match cut {
                Some(i) => {
                    clauses.push(rest[..i].to_string());
                    rest = &rest[i + 5..];
                }
                None => {
                    clauses.push(rest.to_string());
                    break;
                }
            }
        }
    }
    clauses
}

/// `text` with a reminder said of oneself otherwise than "me" put as "me" ("remind myself to
/// …", "remind us to book …"); `None` when it is not one. (A reminder for someone else —
/// "Remind Sarah to bring the projector" — is a message to them, the executive's.)
fn reminds_oneself(text: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        // ("please send a reminder to me for my doctor's appointment", "send me a reminder to
        // call": one's own; "send a reminder to Aubrey" is not.)
        Regex::new(r"(?i)\b(?:remind\s+(?:myself|us)|send\s+(?:me\s+a\s+reminder|a\s+reminder\s+to\s+me))\s+(?P<link>to|that|about|of|for|on|at|in|tomorrow|tonight|today|every)\b")
            .unwrap_or_else(|e| unreachable!("the remind-oneself pattern compiles: {e}"))
    });
    let link = |c: &regex::Captures| match &c["link"] {
        "for" | "For" | "FOR" => "about".to_string(),
        l => l.to_string(),
    };
    re.is_match(text).then(|| re.replace(text, |c: &regex::Captures| format!("remind me {}", link(c))).into_owned())
}

fn unwanted_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:do\s*n[o']?t|dont|never|no\s+longer|no\s+need\s+to)\s+(?:want\s+(?:to\s+be\s+|you\s+to\s+)?|need\s+(?:to\s+be\s+|you\s+to\s+)?)?remind(?:ed|er)?\b")
            .unwrap_or_else(|e| unreachable!("the unwanted-reminder pattern compiles: {e}"))
    })
}

/// A question about others or about what no item holds ("will jane be at the 3 pm meeting", "2
/// pm meeting with who", "check my dad's calendar"): never filed.
fn asks_of_others(text: &str) -> bool {
    static RE: OnceLock<[Regex; 3]> = OnceLock::new();
    let [aux, who, whose] = RE.get_or_init(|| {
        let re = |p: &str| Regex::new(p).unwrap_or_else(|e| unreachable!("the others-question pattern compiles: {e}"));
        [
            re(r"(?i)^\s*(?:will|would|is|are|was|were|does|did|has)\s+(?P<who>[a-z]+)\s+(?:be|attend|come|go|join)\b"),
            // ("… with who", "who else is going", "who is coming"; a "who" inside what to do —
            // "call the plumber who fixed the sink" — asks nothing.)
            re(r"(?i)^\s*(?:who|whom|whose)\b|\bwith\s+(?:who|whom)\b|\bwho\s+else\b"),
            re(r"(?i)\b(?P<who>[a-z]+)'s\s+(?:calendar|schedule|agenda)\b"),
        ]
    });
    const OWN: &[&str] = &[
        "you",
        "u",
        "i",
        "we",
        "my",
        "there",
        "it",
        "this",
        "that",
        "today",
        "tomorrow",
        "tonight",
        "yesterday",
        "week",
        "weekend",
        "month",
        "year",
        "day",
    ];
    let other = |c: regex::Captures| {
        let who = c["who"].to_ascii_lowercase();
        !OWN.contains(&who.as_str()) && !when::WEEKDAYS.contains(&who.as_str())
    };
    aux.captures(text).is_some_and(other)
        || (who.is_match(text) && !text.to_ascii_lowercase().contains("remind"))
        || whose.captures_iter(text).any(other)
}

/// `text` asked in other words put plainly: a question begun with "any" ("any alarm set in the
/// morning?" → "do i have any alarm …"), a change said as a need ("I need to move the alarm to
/// 9pm" → "move the alarm to 9pm"), minutes added to an item ("add twenty minutes to my next
/// alarm" → "move my next alarm twenty minutes later"), a need with the reminder asked after it
/// ("i need to start dinner at six pm tonight please set reminder" → "remind me to start dinner
/// at six pm tonight"); `None` when nothing is.
fn said_plainly(text: &str) -> Option<String> {
    static RE: OnceLock<[Regex; 5]> = OnceLock::new();
    let [any, need_change, add_span, need_then_set, on_calendar] = RE.get_or_init(|| {
        let re = |p: &str| Regex::new(p).unwrap_or_else(|e| unreachable!("the said-plainly pattern compiles: {e}"));
        [
            re(r"(?i)^\s*any\s+(?P<rest>(?:alarms?|reminders?|timers?|tasks?|events?|meetings?|appointments?|to-?dos?)\b.*)$"),
            re(r"(?i)^\s*i\s+(?:need|want|have|would\s+like|'d\s+like|'d\s+love)\s+to\s+(?P<rest>(?:move|change|cancel|delete|remove|reschedule|snooze|push|postpone)\s+(?:the|my|this|that|all|tomorrow's|today's)\s+(?:[\w'-]+\s+){0,3}?(?:alarms?|reminders?|timers?|tasks?|to-?dos?)\b.*)$"),
            re(r"(?i)^\s*(?:please\s+)?add\s+(?P<n>(?:\d+|an?|one|two|three|four|five|ten|fifteen|twenty|thirty|forty|forty-five|forty\s+five|sixty)\s+(?:more\s+)?(?:minutes?|mins?|hours?))\s+to\s+(?P<item>(?:my|the|this|that)\s+[^.!?]*?)\s*[.!?]*$"),
            re(r"(?i)^\s*i\s+(?:need|have|must|got)\s+to\s+(?P<what>.+?)[\s,;.]+(?:(?:can|could|would|will)\s+you\s+)?(?:please\s+)?(?:set|make|create|add)\s+(?:me\s+)?(?:a\s+)?reminder(?:\s+for\s+(?:it|that|this|me))?\s*[.!?]*$"),
            re(r"(?i)^\s*(?P<lead>(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?)(?:add|put|enter|write|place|pop|stick|schedule|insert)\s+(?P<what>.+?)\s+(?:to|on|in|into|onto)\s+(?:(?:my|the|our)\s+)?(?:(?:personal|family|work|google|outlook|shared|office|home|own|main|business|school|team)\s+)?(?:calendar|calender|diary|agenda)\b(?P<rest>.*)$"),
        ]
    });
    if let Some(done) = said_done(text) {
        return Some(done);
    }
    if let Some(c) = any.captures(text) {
        return Some(format!("do i have any {}", &c["rest"]));
    }
    if let Some(c) = need_change.captures(text) {
        return Some(c["rest"].to_string());
    }
    if let Some(c) = add_span.captures(text) {
        return Some(format!("move {} {} later", &c["item"], &c["n"]));
    }
    if let Some(c) = need_then_set.captures(text) {
        return Some(format!("remind me to {}", &c["what"]));
    }
    // "put insanity on my calendar at 6 30 am", "add choreography to my family calendar": the
    // calendar is where tasks are kept, no part of the task's name.
    if let Some(c) = on_calendar.captures(text) {
        return Some(format!("{}add {} to my list{}", &c["lead"], &c["what"], &c["rest"]));
    }
    // "add a grocery item to buy fish": the item is what to file.
    static ITEM: OnceLock<Regex> = OnceLock::new();
    let item = ITEM.get_or_init(|| {
        Regex::new(r"(?i)^\s*(?:please\s+)?(?:add|create|make|put)\s+(?:a|an|one|new|a\s+new)\s+(?:grocery|shopping|to-?do|todo|task|list)\s+item\s+(?:to\s+|:\s*|for\s+)(?P<x>\S.*)$")
            .unwrap_or_else(|e| unreachable!("the list-item pattern compiles: {e}"))
    });
    item.captures(text).map(|c| format!("add {} to my list", &c["x"]))
}

/// A task marked done in other words, put as "mark X as done": "complete task go shopping",
/// "mark pancake mix on my grocery shopping list", "finish hikes on my to do list" — a
/// completing verb before "task" or "item", or with the list named, or "mark", "check off",
/// "tick off" ("finish the report by friday" is a task to file).
fn said_done(text: &str) -> Option<String> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?i)^\s*(?:please\s+)?(?P<verb>complete|finish|mark|check\s+off|tick\s+off|cross\s+off)\s+(?:the\s+)?(?P<kind>(?:task|item|to-?do)\s+)?(?P<x>.+?)(?P<list>\s+(?:on|in|from|off)\s+(?:my\s+|the\s+)?(?:[\w-]+\s+){0,2}list)?\s*[.!?]*$")
            .unwrap_or_else(|e| unreachable!("the said-done pattern compiles: {e}"))
    });
    let c = re.captures(text)?;
    let x = c.name("x")?.as_str();
    let verb = c.name("verb")?.as_str().to_ascii_lowercase();
    let marked = !verb.starts_with("complete") && !verb.starts_with("finish");
    let lower = x.to_ascii_lowercase();
    let already =
        [" as done", " as complete", " as completed", " as finished", " done", " off", " complete", " completed"]
            .iter()
            .any(|w| lower.ends_with(w));
    // ("mark the invoice done and move the plumber to Monday": said plainly already.)
    let plain = [" done", " as ", " and ", " then ", ",", ";"].iter().any(|w| lower.contains(w));
    (!already && !plain && (marked || c.name("kind").is_some() || c.name("list").is_some()))
        .then(|| format!("mark {x} as done"))
}

/// `text` with an alarm or an alert asked for in other words put plainly: "make the alarm go
/// off at 4" → "set the alarm at 4", "let me know when it's 3pm" → "alert me at 3pm", "an alarm
/// reminder to …" → "a reminder to …"; `None` when none is.
fn said_as_alarm(text: &str) -> Option<String> {
    static RE: OnceLock<[Regex; 3]> = OnceLock::new();
    let [go_off, when_its, alarm_reminder] = RE.get_or_init(|| {
        let re = |p: &str| Regex::new(p).unwrap_or_else(|e| unreachable!("the alarm-said pattern compiles: {e}"));
        [
            re(r"(?i)\b(?:make|have|let|get)\s+(?P<the>(?:the|my|an?)\s+)?alarm\s+(?:go\s+off|ring|sound|buzz)\b"),
            re(r"(?i)\b(?:let\s+me\s+know|tell\s+me|alert\s+me|notify\s+me)\s+when\s+it(?:'s|’s|\s+is|s)\s+(?P<t>\d|noon|midnight|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"),
            re(r"(?i)\balarm\s+(?P<r>reminders?\s+(?:to|that|about|of)\b)"),
        ]
    });
    let t =
        go_off.replace(text, |c: &regex::Captures| format!("set {}alarm", c.name("the").map_or("an ", |m| m.as_str())));
    let t = when_its.replace(&t, |c: &regex::Captures| format!("alert me at {}", &c["t"]));
    let t = alarm_reminder.replace(&t, |c: &regex::Captures| c["r"].to_string());
    (t != text).then(|| t.into_owned())
}

/// Frame words people misspell; a correction keeps the first letter.
const FRAME_WORDS: &[&str] = &[
    "remind",
    "reminder",
    "reminders",
    "task",
    "tasks",
    "todo",
    "todos",
    "list",
    "done",
    "finished",
    "complete",
    "completed",
    "cancel",
    "delete",
    "remove",
    "snooze",
    "postpone",
    "reschedule",
    "idea",
    "ideas",
    "schedule",
    "overdue",
    "every",
    "mark",
    "tick",
    "tomorrow",
    "today",
    "tonight",
    "week",
    "alarm",
    "alarms",
    "calendar",
    // Time words ("in 5 mintues", "tomorow mornign", "on wendsday").
    "minute",
    "minutes",
    "hours",
    "second",
    "seconds",
    "morning",
    "mornings",
    "afternoon",
    "afternoons",
    "evening",
    "evenings",
    "monday",
    "mondays",
    "tuesday",
    "tuesdays",
    "wednesday",
    "wednesdays",
    "thursday",
    "thursdays",
    "friday",
    "fridays",
    "saturday",
    "saturdays",
    "sunday",
    "sundays",
    "reminder",
    "reminders",
    "timer",
    "timers",
];
/// Real words a frame word is one edit from.
const REAL: &[&str] = &[
    "rewind",
    "cancer",
    "remote",
    "cheek",
    "ideal",
    "ever",
    "last",
    "lost",
    "mask",
    "lift",
    "dune",
    "dine",
    "mourning",
    "remainder",
    "sundry",
    "timber",
    "tiger",
    "times",
    "tamer",
    "tuner",
    "minuet",
    "reminded",
    "timed",
    "tuned",
    "hoes",
    "seconder",
    "time",
    "tier",
    "ides",
];

/// `text` with misspelt frame words put right, if any was.
pub(super) fn correct_frame(text: &str) -> Option<String> {
    let mut changed = false;
    let words: Vec<String> = text
        .split(' ')
        .map(|token| {
            // The word, and what follows it ("tsak:").
            let end = token.find(|c: char| !c.is_ascii_alphabetic()).unwrap_or(token.len());
            let (w, after) = token.split_at(end);
            let lower = w.to_ascii_lowercase();
            // ("any events scheduled on Friday": a frame word with its ending is no slip.)
            let inflected =
                FRAME_WORDS.iter().any(|k| ["d", "s", "ed", "es"].iter().any(|e| lower.strip_suffix(e) == Some(k)));
            if lower.len() < 4 || REAL.contains(&lower.as_str()) || FRAME_WORDS.contains(&lower.as_str()) || inflected {
                return token.to_string();
            }
            let fix = FRAME_WORDS.iter().find(|k| {
                k.as_bytes().first() == lower.as_bytes().first() && {
                    let d = edit_distance(&lower, k);
                    // Four letters: only two swapped ("tsak", "lsit"); longer: one edit.
                    if lower.len() == 4 || k.len() == 4 {
                        // ("alam", "timr": a letter left out of a frame word of five — not its
                        // last, "hour" being no slip of "hours".)
                        d == 1
                            && ((lower.len() == k.len() && swapped(&lower, k))
                                || (lower.len() == 4 && k.len() == 5 && !k.starts_with(lower.as_str())))
                    } else {
                        // ("sechdule": two letters swapped is one slip of the hand, too.)
                        d == 1 || (lower.len() == k.len() && swapped(&lower, k))
                    }
                }
            });
            match fix {
                Some(k) => {
                    changed = true;
                    format!("{k}{after}")
                }
                None => token.to_string(),
            }
        })
        .collect();
    changed.then(|| words.join(" "))
}

/// `a` is `b` with two neighbouring letters swapped.
fn swapped(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    diff.len() == 2 && diff[1] == diff[0] + 1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
}

/// The request one clause makes: `None` when it is not routine, an error when its date
/// cannot be used.
fn clause_request(c: &Clean, now: &Zoned) -> Option<Result<Request, WhenError>> {
    let t = c.text.as_str();
    if let Some(r) = unschedule(t)
        .or_else(|| lists(t))
        .or_else(|| show(t))
        .or_else(|| time_of(t, now))
        .or_else(|| asked_when(t, now))
    {
        return Some(Ok(r));
    }
    if c.question {
        return None;
    }
    if let Some(r) = idea(t).or_else(|| drop_idea(t)) {
        return Some(Ok(r));
    }
    if c.ticked {
        return Some(Ok(Request::Complete { words: t.to_string(), said: Said::Explicit }));
    }
    if let Some(r) = instead(t, now) {
        return Some(r);
    }
    // "every …" before a plain reminder ("remind me to … every morning"), a plain reminder
    // before the verbs it may contain ("remind me to move the car").
    if let Some(r) = every(t, now).or_else(|| add(t, now, add_re())) {
        return Some(r);
    }
    if let Some(r) = complete(t).or_else(|| cancel(t)) {
        return Some(Ok(r));
    }
    if let Some(r) = event(t, now) {
        return Some(r);
    }
    move_(t, now).or_else(|| add(t, now, need_re())).or_else(|| statement_done(t)).or_else(|| bare_event(t, now))
}

/// What a need said alone is ("I need to get supplies for the craft fair": "get supplies for
/// the craft fair"), when it names something to do and asks nothing.
fn need_of(clause: &str) -> Option<String> {
    let c = need_re().captures(clause.trim())?;
    let what = group(&c, "i");
    let what = what.trim_end_matches(['.', '!', ';', ',']).trim();
    (!what.contains('?') && !cn_hub::words::content(what).is_empty()).then(|| what.to_string())
}

/// Whether `words` start with a request to file something ("set a reminder for …").
pub(super) fn files(words: &str) -> bool {
    filing_re().is_match(words.trim())
}

/// Words as a person meant them: outer quotes and a leading "to" gone.
pub(crate) fn unquote(s: &str) -> String {
    let s = s.trim().trim_matches(|c: char| matches!(c, '"' | '“' | '”' | '\'' | '‘' | '’') || c.is_whitespace());
    // "set a reminder for Monday 10am: standup notes" leaves the colon once the time is cut.
    let s = s.trim_start_matches(|c: char| matches!(c, ':' | ';' | ',' | '-' | '–' | '—') || c.is_whitespace());
    let s = s.strip_prefix("to ").unwrap_or(s);
    // "set a reminder that every tuesday is garbage day", its day cut: "garbage day".
    let s = s.strip_prefix("that is ").unwrap_or(s);
    let quoted = ['"', '“', '”'];
    let s = match (s.find(quoted), s.rfind(quoted)) {
        // `"send the numbers" for the end of the month` after the date is cut: the quotes.
        (Some(0), Some(end)) if end > 0 => {
            format!("{}{}", &s[1..end], &s[end + s[end..].chars().next().map_or(1, char::len_utf8)..])
        }
        _ => s.to_string(),
    };
    s.trim().trim_end_matches(['.', ',', ';', ':', '!']).trim().to_string()
}

// A request to file something that says no what: "set a reminder", "add a task", "new
// task", "create an event", "add an event to my calendar" (then, maybe, a time).
pattern!(
    missing_frame_re,
    "missing frame",
    r"(?ix)^(?:i\s+(?:need|want|would\s+like|'d\s+like)\s+(?:to\s+)?)?(?:
        remind\s+me
      | (?:a\s+)?reminder
      | (?:set|add|create|make|put\s+in|schedule|new)\s+(?:me\s+)?(?:a\s+|an\s+|another\s+|new\s+)*(?:reminder|task|to[\s-]?do|event|appointment)
        (?:\s+(?:to|on|in|into)\s+(?:my|the)\s+(?:calendar|list|schedule|to[\s-]?do\s+list|todo\s+list|task\s+list|reminders))?
      | (?:a\s+|another\s+)?(?:new\s+)(?:reminder|task|to[\s-]?do|event)
      | reminder
    )(?:\s+(?P<rest>.+))?$"
);
// "remind me two days before my wife's birthday": when is relative to something the routine
// does not know — asked.
pattern!(
    before_re,
    "before",
    r"(?ix)^(?:remind\s+me|set\s+(?:me\s+)?(?:a\s+)?reminder|add\s+a\s+reminder)\s+
        (?:(?:an?|one|two|three|four|five|six|seven|ten|a\s+few|a\s+couple\s+of|\d+)\s+(?:minutes?|hours?|days?|nights?|weeks?|months?)|the\s+(?:day|night|week|morning|evening|weekend)|(?:a|the)\s+little\s+while|shortly|just|right|some\s+time)
        \s+(?:before|ahead\s+of|prior\s+to)\s+(?P<what>.+)$"
);

/// A request to file something without its what or its when: a [`Missing`]. `None` when the
/// text says both, or is no such request.
fn missing(t: &str, now: &Zoned) -> Option<Parsed> {
    if let Some(c) = before_re().captures(t) {
        let what = unquote(&group(&c, "what"));
        if !cn_hub::words::content(&what).is_empty() {
            return Some(Parsed::Missing(Missing { want: Want::When, what: Some(what), due: None }));
        }
    }
    let c = missing_frame_re().captures(t)?;
    let rest = group(&c, "rest");
    if rest.is_empty() {
        return Some(Parsed::Missing(Missing { want: Want::WhatAndWhen, what: None, due: None }));
    }
    // Only a time after the frame ("for 5pm", "tomorrow at 9"): what is asked.
    match when::parse(&rest, now) {
        Ok(Some(due)) if trim_words(&due.rest).is_empty() => {
            Some(Parsed::Missing(Missing { want: Want::What, what: None, due: Some(due) }))
        }
        Err(e) if trim_words(&rest.replacen(e.phrase(), "", 1)).is_empty() => Some(Parsed::Ask(e)),
        _ => None,
    }
}

pattern!(
    next_re,
    "what's next",
    r"(?i)^(?:so\s+)?(?:what'?s|what\s+is|what\s+comes)\s+(?:next|up\s+next|coming\s+up)(?:\s+(?:for\s+me|on\s+my\s+list|today))?$|^what\s+(?:do|should)\s+i\s+do\s+next$|^what'?s\s+on\s+(?:deck|the\s+agenda)$"
);
pattern!(
    reply_done_re,
    "reply done",
    r"(?i)^(?:(?:it'?s|it\s+is|all|now|already)\s+)?(?:done|did\s+it|finished|completed|sorted|handled)(?:\s+(?:now|already|thanks?|thx|ty))?$"
);
pattern!(
    reply_snooze_re,
    "reply snooze",
    r"(?i)^(?:snooze|later|remind\s+me\s+(?:again\s+)?(?:later|again))(?:\s+(?:it|that))?(?:\s+(?P<rest>.+))?$"
);

/// An answer to a reminder, said alone: "done" (or ✅), "snooze", "snooze 1 hour", "snooze
/// till 5pm". Whether a reminder was told in the conversation is the routine's to find out.
pub(crate) fn reply_of(text: &str, now: &Zoned) -> Option<Reply> {
    let t = text.trim();
    if !t.is_empty() && t.chars().all(|c| matches!(c, '✅' | '✔' | '☑' | '\u{fe0f}') || c.is_whitespace()) {
        return Some(Reply::Done);
    }
    let t = t.trim_end_matches(['.', '!', ' ']).trim();
    if reply_done_re().is_match(t) {
        return Some(Reply::Done);
    }
    let c = reply_snooze_re().captures(t)?;
    let Some(rest) = c.name("rest").map(|r| r.as_str().trim()) else { return Some(Reply::Snooze(Target::Later)) };
    if let Some(s) = when::shift(&format!("for {}", rest.trim_start_matches("for ").trim_start_matches("by "))) {
        return s.rest.trim().is_empty().then_some(Reply::Snooze(Target::By(s.span)));
    }
    match when::parse(rest, now) {
        Ok(Some(due)) if trim_words(&due.rest).is_empty() => Some(Reply::Snooze(Target::At(due))),
        _ => None,
    }
}
