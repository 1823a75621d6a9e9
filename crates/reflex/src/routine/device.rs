//! Alarms, timers and wake-ups as people ask for them: which device a clause names, the times
//! it is set for (one, or several said together: "alarms at 6, 6:15 and 6:30"), and the name
//! it gets when the person gave none. Read for [`super::learned`]'s clauses and the frames of
//! [`super::parse`].

use jiff::Zoned;

use super::learned::*;
use super::Request;
use crate::when;
/// A clause that asks only for an alarm or a timer at a time ("Would you mind trying to do
/// that again, though now you try to set the alarm for 16:15?"): the request.
pub fn device_time(clause: &str, now: &Zoned) -> Option<Request> {
    let name = device(clause)?;
    // Only a request to set one ("display monday alarms" reads them).
    // A repeat is the repeat's reader's ("a recurring Tuesday alarm for 7:30").
    // "cancel alarm set for 6pm": undoing one, never setting one.
    if !set_said(clause)
        || undoes_first(clause)
        || second_request(clause)
        || repeat_word(clause)
        || count_said(clause).is_some_and(|n| n > 1)
    {
        return None;
    }
    let parsed = match when::parse(clause, now) {
        Ok(None) => match bare_hour(clause) {
            Some(at) => when::parse(&at, now),
            None => Ok(None),
        },
        // "an alarm for sunday eight": the day read, and the hour right after it; "for 7
        // tonight": the hour in the part of the day.
        Ok(Some(d)) => match bare_hour(clause).map(|at| when::parse(&at, now)) {
            Some(Ok(Some(with_hour))) if !d.time_given || with_hour.phrase.len() > d.phrase.len() => {
                Ok(Some(with_hour))
            }
            _ => Ok(Some(d)),
        },
        other => other,
    };
    match parsed {
        Ok(Some(d)) => {
            // "set wakeup call for 6:45AM": the call is the wake-up.
            static CALL: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
            let call = CALL.get_or_init(|| {
                regex::Regex::new(r"(?i)\bwake[\s-]?up\s+call\b")
                    .unwrap_or_else(|e| unreachable!("the wake-up call pattern compiles: {e}"))
            });
            let rest: String = call
                .replace_all(&d.rest, "wake up")
                .split(|c: char| !(c.is_alphanumeric() || c == '\''))
                .filter(|w| {
                    ![
                        "alarm",
                        "alarms",
                        "timer",
                        "wake",
                        "up",
                        "trying",
                        "mind",
                        "get",
                        "alert",
                        "notification",
                        "turn",
                        "ring",
                        "do",
                        "start",
                    ]
                    .contains(&w.to_ascii_lowercase().as_str())
                })
                .collect::<Vec<_>>()
                .join(" ");
            if only_asking(&rest) {
                return Some(Request::AddTask { task: name.to_string(), due: Some(d) });
            }
            // "set a workout alarm for 6am": named by the words right before it, when the
            // rest only asks.
            let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
            let said = d.rest.clone();
            let ws: Vec<&str> = said.split_whitespace().collect();
            let at =
                ws.iter().position(|w| matches!(bare(w).as_str(), "alarm" | "timer" | "alert" | "notification"))?;
            let (head, tail) = (&ws[..at], &ws[at + 1..]);
            let mut from = head.len();
            while from > 0 && {
                let w = bare(head[from - 1]);
                !w.is_empty() && !only_asking(&w) && w.chars().any(char::is_alphabetic)
            } {
                from -= 1;
            }
            let label = &head[from..];
            (!label.is_empty()
                && label.len() <= 3
                && only_asking(&head[..from].join(" "))
                && only_asking(&tail.join(" ")))
            .then(|| Request::AddTask { task: format!("{} {}", label.join(" "), bare(ws[at])), due: Some(d) })
        }
        _ => None,
    }
}

/// The words that ask to set an alarm or a timer ("display monday alarms" only reads them).
fn set_said(clause: &str) -> bool {
    static SET: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    SET.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:set|make|add|create|put|place|install|program|want|need|like|give|schedule|new|another|wake|recurring|repeating|reoccurring|get\s+me\s+up|(?:turn|switch)\s+(?:(?:the|my|an?)\s+)?(?:alarm|timer)\s+on|(?:turn|switch)\s+on|(?:can|could|may)\s+i\s+(?:have|get)|tell\s+me\s+when)\b|^\s*(?:please\s+)?(?:(?:can|could|would|will)\s+(?:we|you)\s+(?:please\s+)?)?(?:do|ring|start)\s+(?:an?\s+|the\s+|my\s+)?(?:alarm|timer)\b")
            .unwrap_or_else(|e| unreachable!("the setting pattern compiles: {e}"))
    })
    .is_match(clause)
}

/// An alarm's time said as a bare hour ("an alarm for 7.", "switch the alarm to 6 instead of
/// 7"): the clause with it said as a clock time ("at 7"), read by the hour that is next.
pub fn bare_hour(clause: &str) -> Option<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:for|to)\s+(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:\s*o'?clock)?(?P<end>\s*(?:[.!?]|$)|\s+(?:please|tomorrow|today|tonight|instead|on|this|and|every)\b)")
            .unwrap_or_else(|e| unreachable!("the bare hour pattern compiles: {e}"))
    });
    // "an alarm for sunday eight": the hour said right after the day.
    static DAY: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let day = DAY.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?P<day>(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|today)\s+(?P<n>\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?:\s*o'?clock)?(?P<end>\s*(?:[.!?]|$)|\s+(?:please|and|every)\b)")
            .unwrap_or_else(|e| unreachable!("the day's bare hour pattern compiles: {e}"))
    });
    let (c, lead) = match re.captures(clause) {
        Some(c) => (c, String::new()),
        None => {
            let c = day.captures(clause)?;
            let lead = format!("{} ", c.name("day")?.as_str());
            (c, lead)
        }
    };
    let n = c.name("n")?.as_str();
    let hour = when::numbers::cardinal(n).filter(|h| (1..=12).contains(h))?;
    let all = c.get(0)?;
    let end = c.name("end")?.as_str();
    Some(format!("{}{lead}at {hour}{end}{}", &clause[..all.start()], &clause[all.end()..]))
}

/// How many alarms or timers the words ask for ("two alarms", "3 timers"), when they say.
fn count_said(clause: &str) -> Option<usize> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?P<n>\d+|two|three|four|five|six|both)\s+(?:new\s+|separate\s+|different\s+)?(?:alarms|timers|reminders)\b")
            .unwrap_or_else(|e| unreachable!("the count pattern compiles: {e}"))
    });
    let n = re.captures(clause)?.name("n")?.as_str().to_ascii_lowercase();
    match n.as_str() {
        "both" | "two" => Some(2),
        "three" => Some(3),
        "four" => Some(4),
        "five" => Some(5),
        "six" => Some(6),
        d => d.parse().ok(),
    }
}

/// Several alarms or timers asked for in one sentence, each at its own time ("set my alarm
/// for 3 am and then 8 pm", "alarms for Friday at 7 and 8 am", "two alarms, one at 5 am the
/// other at 515 am", "timers for 60 seconds and 5 minutes", "alarms on Tuesdays for 3pm and
/// 5pm"): one for each time said, or `None` when it is not that. A day said once is every
/// time's; a repeat said once repeats every time; a number of alarms said must be the number
/// of times, and nothing else may be asked beside them.
pub fn device_times(clause: &str, now: &Zoned) -> Option<Vec<Request>> {
    let name = device(clause)?;
    // "a repeating alarm for Monday at 6 am and 10 am": every Monday, at each time.
    let repeated = when::repeated_on_days(clause);
    let clause = repeated.as_deref().unwrap_or(clause);
    // "a bedtime alarm, make it ring at 9pm": with a time said, the meal or bed names the
    // alarm — it is no second time.
    static MEAL: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let meal = MEAL.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:bed|lunch|dinner|breakfast|supper)[\s-]*time\s+(?:alarm|reminder)")
            .unwrap_or_else(|e| unreachable!("the meal-named pattern compiles: {e}"))
    });
    if let Some(m) = meal.find(clause) {
        let named = m.as_str().rsplit(char::is_whitespace).next().unwrap_or("alarm");
        let plain = format!("{}{named}{}", &clause[..m.start()], &clause[m.end()..]);
        if when::parse(&plain, now).ok().flatten().is_some_and(|d| d.time_given) {
            return None;
        }
    }
    static JOIN: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let join = JOIN.get_or_init(|| {
        // "one at 6 one at 7": each one said.
        regex::Regex::new(
            r"(?i)\band\b|\banother\b|\bthe\s+other\b|\bone\s+more\b|,|\bone\s+(?:at|for)\b.*\bone\s+(?:at|for)\b",
        )
        .unwrap_or_else(|e| unreachable!("the joining pattern compiles: {e}"))
    });
    if !set_said(clause) || !(join.is_match(clause) || days_apart(clause).is_some()) {
        return None;
    }
    // "a timer for 1 minute and 30 seconds", "an hour and a half": one span, said in parts.
    static PARTS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let parts = PARTS.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:hours?|hrs?|minutes?|mins?)\s+and\s+(?:an?\s+half|(?:\d+|[a-z]+(?:[\s-][a-z]+)?)\s+(?:minutes?|mins?|seconds?|secs?))\b")
            .unwrap_or_else(|e| unreachable!("the span parts pattern compiles: {e}"))
    });
    if parts.is_match(clause) {
        return None;
    }
    let task = named(clause).unwrap_or_else(|| name.to_string());
    // A repeat said once, for every time ("on Tuesdays for 3pm and 5pm"): its words, and the
    // clause without them.
    let (repeat, base) = match when::every(clause, now) {
        Ok(Some(e)) => (Some(e.phrase), e.rest),
        Ok(None) => (None, clause.to_string()),
        // Read as a repeat with two times, which one entry cannot have.
        Err(e) if repeat_word(clause) || plural_day(e.phrase()) => {
            let at = clause.to_ascii_lowercase().find(&e.phrase().to_ascii_lowercase())?;
            let rest = format!("{} {}", &clause[..at], &clause[at + e.phrase().len()..]);
            (Some(e.phrase().to_string()), rest)
        }
        Err(_) => (None, clause.to_string()),
    };
    // "for Sunday, Monday, and Tuesday at 3PM": each day of the list in turn.
    let mut rest = days_apart(&base).unwrap_or_else(|| base.clone());
    let mut dues: Vec<when::Due> = Vec::new();
    while dues.len() < 8 {
        match when::parse(&rest, now) {
            Ok(Some(d)) => {
                rest = d.rest.clone();
                dues.push(d);
            }
            Ok(None) => break,
            Err(_) => return None,
        }
    }
    // Timers: spans from now ("for 60 seconds and 5 minutes").
    if dues.is_empty() && repeat.is_none() {
        while dues.len() < 6 {
            let Some(s) = when::shift(&rest) else { break };
            let at = now.checked_add(s.span).ok()?;
            rest = s.rest.clone();
            dues.push(when::Due { at, phrase: s.phrase, rest: s.rest, day_given: false, time_given: true });
        }
    }
    if dues.len() < 2 {
        return None;
    }
    // Nothing else asked beside them ("… and call mom at 8").
    const JOINING: &[&str] = &[
        "and",
        "then",
        "another",
        "other",
        "one",
        "ones",
        "second",
        "first",
        "both",
        "two",
        "three",
        "four",
        "five",
        "six",
        "alarm",
        "alarms",
        "timer",
        "timers",
        "wake",
        "up",
        "separate",
        "different",
        "each",
        "get",
        "place",
        "recurring",
        "repeating",
        "reoccurring",
        "only",
        "some",
        "new",
        "couple",
        "multiple",
        "few",
    ];
    // "… I need my alarm to go off": what an alarm does, no other request.
    let rest = go_off_re().replace_all(&rest, " ");
    let left: Vec<&str> = rest
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty() && !JOINING.contains(&w.to_ascii_lowercase().as_str()))
        // ("set 2 new alarms …": the count, said in figures.)
        .filter(|w| count_said(clause).is_none_or(|n| w.parse::<usize>() != Ok(n)))
        .collect();
    if !only_asking(&left.join(" ")) && named(clause).is_none() {
        return None;
    }
    if count_said(clause).is_some_and(|n| n != dues.len()) {
        return None;
    }
    // One time said for all the days ("for Monday and Tuesday at 7pm").
    let clocks: Vec<jiff::civil::Time> = dues.iter().filter(|d| d.time_given).map(|d| d.at.time()).collect();
    if clocks.len() == 1 && dues.iter().all(|d| d.day_given) {
        for d in dues.iter_mut().filter(|d| !d.time_given) {
            d.at = d.at.date().to_datetime(clocks[0]).to_zoned(now.time_zone().clone()).ok()?;
            d.time_given = true;
        }
    }
    if dues.iter().any(|d| !d.time_given || d.at <= *now) {
        return None;
    }
    // One day said for all ("on Thursday for 9 am and 5 pm"); two days and a time said alone
    // is not known to be either's.
    let days: Vec<jiff::civil::Date> = dues.iter().filter(|d| d.day_given).map(|d| d.at.date()).collect();
    if let Some(day) = days.first().copied().filter(|_| dues.iter().any(|d| !d.day_given)) {
        if days.iter().any(|d| *d != day) {
            return None;
        }
        for d in dues.iter_mut().filter(|d| !d.day_given) {
            let on = day.to_datetime(d.at.time()).to_zoned(now.time_zone().clone()).ok()?;
            if on <= *now {
                return None;
            }
            d.at = on;
            d.day_given = true;
        }
    }
    // "tomorrow morning at 5, 5:30 and 5:45": the part of the day said with one time holds
    // for the others said bare.
    if let Some(part) = dues.iter().find_map(|d| day_part(&d.phrase)) {
        for d in dues.iter_mut().filter(|d| day_part(&d.phrase).is_none() && !meridiem(&d.phrase)) {
            let hour = match (part, d.at.hour()) {
                ("morning", h) if h > 12 => h - 12,
                ("morning", h) => h,
                ("night", h) if h < 6 => h,
                (_, h) if h < 12 => h + 12,
                (_, h) => h,
            };
            let at = d.at.date().at(hour, d.at.minute(), 0, 0).to_zoned(now.time_zone().clone()).ok()?;
            if at <= *now {
                return None;
            }
            d.at = at;
        }
    }
    let mut out = Vec::new();
    for d in dues {
        match &repeat {
            Some(phrase) => {
                if !d.time_given || d.day_given {
                    return None;
                }
                let every = when::every(&format!("{phrase} {}", d.phrase), now).ok()??;
                if every.time_unsaid() {
                    return None;
                }
                out.push(Request::AddEvery { action: task.clone(), every });
            }
            None => out.push(Request::AddTask { task: task.clone(), due: Some(d) }),
        }
    }
    Some(out)
}

/// "I need to be up at 8AM", "I have to get up by 6": a wake-up said as a need.
pub(super) fn be_up(lower: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"\b(?:need|have|got|must|want)\s+to\s+(?:be|get)\s+up\s+(?:at|by|before)\b|\bmust\s+(?:be|get)\s+up\s+(?:at|by|before)\b")
            .unwrap_or_else(|e| unreachable!("the be-up pattern compiles: {e}"))
    })
    .is_match(lower)
}

pub(super) fn device(text: &str) -> Option<&'static str> {
    let lower = text.to_ascii_lowercase();
    if lower.contains("wake me")
        || lower.contains("wake up")
        || lower.contains("wakeup")
        || lower.contains("wake-up")
        || lower.contains("get me up")
        || lower.contains("wake us")
        || be_up(&lower)
    {
        Some("Wake up")
    } else if ["alert me", "notify me", "ping me", "buzz me", "bother me", "nudge me"].iter().any(|w| lower.contains(w))
    {
        Some("Alert")
    } else if lower.contains("alarm clock") {
        Some("Alarm clock")
    } else if lower.contains("alarm") {
        Some("Alarm")
    } else if lower.contains("timer") || lower.contains("countdown") {
        Some("Timer")
    } else if lower.split(|c: char| !c.is_alphanumeric()).any(|w| w == "alert" || w == "notification") {
        // "set alert for 9AM", "Set a notification for 5pm"
        Some("Alert")
    } else {
        None
    }
}

/// What an alarm or a timer is for, from the words that ask for it ("Set a alarm for lunch":
/// "lunch"; "a workout alarm": "workout alarm"; "set the alarm": the alarm's own name); `None`
/// when they ask for none.
pub fn device_label(words: &str) -> Option<String> {
    let name = device(words)?;
    const DEVICE: &[&str] = &[
        "alarm",
        "alarms",
        "timer",
        "timers",
        "wake",
        "up",
        "call",
        "alert",
        "recurring",
        "repeating",
        "daily",
        "start",
        "begin",
        "run",
        "launch",
        "countdown",
        "clock",
        "off",
        "goes",
        "ring",
        "sound",
        "beep",
        "notify",
        "ping",
        "buzz",
        "nudge",
        "bother",
        "switch",
        "turn",
        "install",
        "program",
    ];
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
    let label = |ws: &[&str]| -> Vec<String> {
        ws.iter()
            .filter(|w| {
                let w = bare(w);
                !(w.is_empty()
                    || DEVICE.contains(&w.as_str())
                    || only_asking(&w)
                    || w.chars().all(|c| c.is_ascii_digit()))
            })
            .map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '\'')).to_string())
            .collect()
    };
    let ws: Vec<&str> = words.split_whitespace().collect();
    // The words before the alarm name it with it ("a power nap timer"), the words after it
    // alone ("an alarm for lunch").
    let at = ws.iter().position(|w| matches!(bare(w).as_str(), "alarm" | "timer" | "alert"));
    if let Some(i) = at {
        let before = label(&ws[..i]);
        if !before.is_empty() {
            return Some(format!("{} {}", before.join(" "), bare(ws[i])));
        }
    }
    let left = label(&ws);
    Some(if left.is_empty() { name.to_string() } else { left.join(" ") })
}

/// Whether `text` asks for an alarm, a timer or a wake-up.
pub fn device_said(text: &str) -> bool {
    device(text).is_some()
}

/// Whether `task` is the name an alarm, a timer or a wake-up gets when the person gave none.
pub fn device_name(task: &str) -> bool {
    ["Alarm", "Timer", "Wake up", "Alert"].contains(&task)
}
