//! The words the learned reading is held to: what a clause says beside what the model read
//! in it — a time only a clock would hold, an item that exists, a request to change or to book,
//! a name, a repeat — each a test on the person's own words.

use jiff::Zoned;

use super::super::device::*;
use super::super::Said;
use crate::when::{self, WhenError};
use cn_understand::{Intent, SlotKind, Understood};

/// The words of every slot of `kind`, joined.
pub(super) fn joined(u: &Understood, kind: SlotKind) -> String {
    u.slots_of(kind).map(|s| s.text.trim()).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The words of a slot the tagger cut in pieces, with the few words between them it left out
/// ("call Aunt [Saroja and] wish her": a name it did not know is no gap in what to do); pieces
/// far apart, or with another slot between, are joined as [`joined`] does.
pub(super) fn spanned(u: &Understood, kind: SlotKind, text: &str) -> String {
    let mut out = String::new();
    let mut last: Option<std::ops::Range<usize>> = None;
    for s in u.slots_of(kind) {
        let gap = last.as_ref().and_then(|l| text.get(l.end..s.range.start));
        let between_other = |l: &std::ops::Range<usize>| {
            u.slots.iter().any(|o| o.kind != kind && o.range.start >= l.end && o.range.end <= s.range.start)
        };
        match (gap, &last) {
            (Some(g), Some(l))
                if g.split_whitespace().count() <= 2 && !g.contains([',', '.', ';']) && !between_other(l) =>
            {
                out.push_str(g);
                out.push_str(s.text.trim());
            }
            _ => {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(s.text.trim());
            }
        }
        last = Some(s.range.clone());
    }
    out.trim().to_string()
}

/// A slot's words as the person meant them: a leading "to", "that", "about" and trailing
/// punctuation gone.
pub(super) fn clean(words: &str) -> String {
    let mut w = words.trim().trim_matches(|c: char| matches!(c, '"' | '“' | '”' | '\'' | ',' | '.' | '!' | '?' | ':'));
    for lead in ["to ", "that ", "about ", "for ", "of "] {
        if w.len() > lead.len() && w.get(..lead.len()).is_some_and(|h| h.eq_ignore_ascii_case(lead)) {
            w = w.get(lead.len()..).unwrap_or(w);
        }
    }
    w.trim().to_string()
}

/// The pattern of a name given to an alarm, a timer or a reminder ("an alarm called Music
/// Practice", "label it Cleaning", "in the name of Leave for home", "Let's call it Phone home").
pub(super) fn name_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:(?:alarms?|timers?|reminders?|one|it|tasks?|events?)\s+(?:to\s+be\s+|that\s+is\s+|that's\s+|should\s+be\s+|will\s+be\s+)?(?:called|titled|named|label(?:l?ed))(?:\s+as)?|label\s+it(?:\s+as)?|name\s+it(?:\s+as)?|call\s+it(?:\s+as)?|in\s+the\s+name\s+of|with\s+the\s+(?:name|title|label)|name\s+(?:the|my|this)\s+(?:new\s+)?(?:alarm|timer|reminder|one)(?:\s+as)?|(?:make|set|change)\s+the\s+(?:name|title|label)(?:\s+(?:to|for|as))?|(?:use|give\s+it)\s+the\s+(?:name|title|label)|(?:alarm|timer|reminder)\s+as|(?:the\s+)?(?:name|title|label)\s+(?:should\s+be|is|will\s+be))\s+(?P<name>[^.?!,;]+)")
            .unwrap_or_else(|e| unreachable!("the name pattern compiles: {e}"))
    })
}

/// The name in the words after a naming phrase, up to " and …" or a courtesy, with a time
/// said inside cut out ("Cleaning at 3:45 pm", "Leave for home" whole): the name and the
/// words left for the rest of the clause.
pub(super) fn name_of(words: &str) -> Option<(String, String)> {
    static END: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let end = END.get_or_init(|| {
        regex::Regex::new(r"(?i)\s+(?:and|but|please|this\s+time|instead|now|thanks|thank\s+you)\b")
            .unwrap_or_else(|e| unreachable!("the name end pattern compiles: {e}"))
    });
    let cut = end.find(words).map_or(words.len(), |m| m.start());
    let (head, tail) = words.split_at(cut);
    let epoch = jiff::Timestamp::UNIX_EPOCH.to_zoned(jiff::tz::TimeZone::UTC);
    // ("a timer called train for 90 seconds": the span is no part of the name either.)
    let (name, left) = match when::parse(head, &epoch) {
        Ok(Some(d)) => (clean(&crate::routine::frames::trim_words(&d.rest)), format!("{} {tail}", d.phrase)),
        _ => match span_from_now(head, &epoch) {
            Some(d) => (clean(&crate::routine::frames::trim_words(&d.rest)), format!("{} {tail}", d.phrase)),
            None => (clean(head), tail.to_string()),
        },
    };
    // "an alarm as soon as you can", "a reminder as well": no name.
    let first = name.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    let not_a_name = ["soon", "well", "usual", "always", "before", "planned", "early", "late", "possible", "needed"];
    (!cn_hub::words::content(&name).is_empty()
        && name.split_whitespace().count() <= 6
        && !not_a_name.contains(&first.as_str()))
    .then_some((name, left))
}

/// The name a person gives an alarm or a timer ("an alarm called Music Practice", "label it
/// Cleaning", "in the name of Leave for home").
pub(in crate::routine) fn named(text: &str) -> Option<String> {
    let c = name_re().captures(text)?;
    name_of(c.name("name")?.as_str()).map(|(n, _)| n)
}

/// A clause that gives a name ("Call it Leave for home.", "You can use the name Grocery
/// run.", "Let's call it Phone home and set it for 15:30."): the name, and the clause with the
/// naming cut out (what else it says).
pub fn naming(clause: &str) -> Option<(String, String)> {
    let c = name_re().captures(clause)?;
    let whole = c.get(0)?;
    let (name, left) = name_of(c.name("name")?.as_str())?;
    let rest = format!("{} {left} {}", &clause[..whole.start()], &clause[whole.end()..]);
    Some((name, rest.split_whitespace().collect::<Vec<_>>().join(" ")))
}

/// Words that only ask for something to be set, or again ("Can you try again?", "It will
/// be", "Set it", "I need one more"): no request of their own.
pub fn only_asking(words: &str) -> bool {
    const ASKING: &[&str] = &[
        "set", "setup", "up", "the", "a", "an", "my", "me", "to", "for", "make", "create", "add", "new", "another",
        "i", "want", "need", "would", "like", "put", "please", "can", "you", "could", "it", "one", "will", "be",
        "should", "and", "also", "time", "as", "with", "let", "let's", "lets", "if", "try", "trying", "again", "once",
        "more", "attempt", "retry", "go", "give", "do", "that", "this", "though", "now", "but", "yes", "ok", "okay",
        "great", "perfect", "cool", "alright", "right", "all", "fine", "then", "thanks", "thank", "so", "about",
        "mind", "able", "think", "at", "of", "in", "on", "instead", "same", "favor", "favour", "other", "its", "it's",
        "we", "us", "use", "really", "just", "maybe", "well", "sure", "help", "very", "much", "lot", "favor", "one",
        "there", "go", "ahead", "show", "see", "view", "check", "display", "have", "schedule", "install", "program",
        "needs", "has", "is",
    ];
    words
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .all(|w| ASKING.contains(&w.to_ascii_lowercase().as_str()))
}

/// A list of days said one by one ("Monday, Wednesday, and Friday", "monday wednesday
/// friday", "Tuesday, Wednesday") put as "Monday and Wednesday and Friday", which the time
/// parser reads a day at a time; `None` when no such list is said. (Days said in the plural or
/// after "every" are a repeat, read before this.)
pub(in crate::routine) fn days_apart(text: &str) -> Option<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        let day = format!("(?:{})", when::WEEKDAY);
        regex::Regex::new(&format!(r"(?i)\b{day}(?:(?:\s*,\s*(?:and\s+|&\s*)?|\s+and\s+|\s*&\s*|\s+){day})+\b"))
            .unwrap_or_else(|e| unreachable!("the day list pattern compiles: {e}"))
    });
    let m = re.find(text)?;
    let days: Vec<&str> = m
        .as_str()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("and"))
        .collect();
    Some(format!("{}{}{}", &text[..m.start()], days.join(" and "), &text[m.end()..]))
}

/// What an alarm does when it goes off ("my alarm to go off", "it rings"), said of one set.
pub(in crate::routine) fn go_off_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:to\s+)?(?:go|goes|going)\s+off\b|\b(?:to\s+)?(?:ring|rings|sound|sounds)\b")
            .unwrap_or_else(|e| unreachable!("the go-off pattern compiles: {e}"))
    })
}

/// The part of the day a time phrase says ("tomorrow morning at 5"), if any.
pub(in crate::routine) fn day_part(phrase: &str) -> Option<&'static str> {
    let lower = phrase.to_ascii_lowercase();
    lower.split(|c: char| !c.is_alphanumeric()).find_map(|w| match w {
        "morning" => Some("morning"),
        "afternoon" => Some("afternoon"),
        "evening" | "tonight" => Some("evening"),
        "night" => Some("night"),
        _ => None,
    })
}

/// Whether a time phrase says am or pm (or noon, midnight).
pub(in crate::routine) fn meridiem(phrase: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(
            r"(?i)\d\s*[ap]\.?m\b|\b[ap]\.?m\b|\bnoon\b|\bmidnight\b|\bmidday\b|\b(?:1[3-9]|2[0-3]):\d\d\b",
        )
        .unwrap_or_else(|e| unreachable!("the am/pm pattern compiles: {e}"))
    })
    .is_match(phrase)
}

/// "team meeting friday at 10": the words said before the tagger's what ("meeting") that
/// name the same thing, when they are only names — no request, no filler ("I have a …").
pub(super) fn named_whole(text: &str, task: &str, now: &Zoned) -> Option<String> {
    const ASKS: &[&str] = &["remind", "reminder", "schedule", "remember", "note", "please", "pls", "plz", "hey"];
    let whole = clean(&crate::routine::frames::trim_words(&when::parse(text, now).ok()??.rest));
    // "set aliens movie reminder for 8 pm": the words that ask and say it is a reminder are
    // no part of the name.
    let mut words: Vec<&str> = whole.split_whitespace().collect();
    while words.first().is_some_and(|w| {
        ["set", "make", "create", "add", "put", "a", "an", "the", "new"].contains(&w.to_ascii_lowercase().as_str())
    }) {
        words.remove(0);
    }
    // ("Psychiatrist appointment for 8 pm tomorrow, please.": the courtesy after it too.)
    while words.last().is_some_and(|w| {
        ["reminder", "alarm", "for", "at", "on", "please", "pls", "plz", "thanks"]
            .contains(&w.trim_end_matches([',', '.', '!', '?']).to_ascii_lowercase().as_str())
            || w.chars().all(|c| c.is_ascii_punctuation())
    }) {
        words.pop();
    }
    if let Some(last) = words.last_mut() {
        *last = last.trim_end_matches([',', '.', '!', '?']);
    }
    let whole = words.join(" ");
    let head = whole.len().checked_sub(task.len()).and_then(|at| whole.get(..at))?;
    if !whole.to_ascii_lowercase().ends_with(&task.to_ascii_lowercase()) {
        return None;
    }
    let words: Vec<&str> = head.split_whitespace().collect();
    let names = !words.is_empty()
        && words.len() <= 3
        && words.iter().all(|w| {
            let w = w.to_ascii_lowercase();
            w.chars().all(|c| c.is_alphanumeric() || c == '\'' || c == '-')
                && !only_asking(&w)
                && !ASKS.contains(&w.as_str())
                && device(&w).is_none()
        });
    names.then_some(whole)
}

/// Whether `words` name days of the week as a repeat ("on Tuesdays", "mondays").
pub(in crate::routine) fn plural_day(words: &str) -> bool {
    words.split_whitespace().any(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase();
        ["mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays", "weekdays", "weekends"]
            .contains(&w.as_str())
    })
}

/// Whether the words say something repeats.
pub(in crate::routine) fn repeat_word(text: &str) -> bool {
    text.split_whitespace().map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase()).any(|w| {
        matches!(
            w.as_str(),
            "every"
                | "each"
                | "daily"
                | "weekly"
                | "weekdays"
                | "weekday"
                | "workday"
                | "workdays"
                | "weekends"
                | "hourly"
                | "monthly"
                | "yearly"
                | "annually"
                | "nightly"
                | "recurring"
                | "reoccurring"
                | "repeating"
                | "everyday"
        )
    })
}

/// Whether `rest` goes on, after "and", to ask something more than the alarm ("… and call
/// mom at 8").
pub(in crate::routine) fn second_request(rest: &str) -> bool {
    // Read as the time reader reads it: "one hour and ten minutes" is one span.
    let lower = when::numbers::normalize(rest).text.to_ascii_lowercase();
    // "a timer for 30 minutes, then another after that": a second one, not said how.
    if ["then another", "and another", "another after", "one more after"].iter().any(|w| lower.contains(w)) {
        return true;
    }
    lower.match_indices(" and ").any(|(i, _)| {
        let next = lower[i + 5..].split_whitespace().next().unwrap_or("");
        !next.is_empty() && !only_asking(next) && device(next).is_none()
    })
}

/// The words that undo, said first ("turn off my …", "cancel the …").
pub(super) fn undo_lead_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(
            r"(?i)^\s*(?:please\s+)?(?:(?:turn|switch|shut)\s+off|cancel|delete|remove|clear|disable|dismiss)\s+",
        )
        .unwrap_or_else(|e| unreachable!("the undo-lead pattern compiles: {e}"))
    })
}

/// Whether the level-2 model's reading `intent` of a message the routine did not take may be
/// acted on: an idea only where the words say it is one; a filing never where the built-in
/// model is sure the message changes what exists ("turn off all reminders until i turn them
/// back on" is no idea).
pub fn level_two_may(intent: &str, clause: &str) -> bool {
    let change = cn_understand::understand(clause)
        .is_ok_and(|u| matches!(u.intent, Intent::Cancel | Intent::Move | Intent::Complete) && u.confidence >= 0.9);
    match intent {
        "idea" => marked(Intent::Idea, clause) && !change,
        // "when im i going to finish the task": a question files nothing, whatever level two
        // reads in it; nor does a message for someone else.
        // Nor one that holds several requests or corrects itself, filed whole as one task.
        "task" => {
            !change
                && !changes_existing(clause)
                && !asks(clause)
                && !for_another(clause)
                && !crate::routine::parse::composite(clause)
        }
        _ => true,
    }
}

/// A moment no clock says ("when I get home", "once I'm back"): a condition of the task's.
pub(super) fn condition_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:when|once|as\s+soon\s+as|after)\s+(?:i|we)\s+(?:get|gets|arrive|arrives|am|'m|leave|come|go)\s+(?:home|back|there|to\s+(?:work|the\s+office|school)|in|out)\b|\bwhen\s+i'?m\s+(?:home|back)\b")
            .unwrap_or_else(|e| unreachable!("the condition pattern compiles: {e}"))
    })
}

/// `words` with a possessive "'s" cut ("tomorrow's alarm" → "tomorrow alarm"), so a day said
/// of a thing reads as the day.
pub(crate) fn without_possessive(words: &str) -> String {
    format!("{words} ").replace("'s ", " ").replace("’s ", " ").trim_end().to_string()
}

/// Whether the day `phrase` read in `words` is said as a possessive of a thing ("tomorrow's
/// meeting", "tomorrows meeting"), which names the thing, not when to remind of it.
pub fn possessive_day(words: &str, phrase: &str) -> bool {
    let lower = words.to_ascii_lowercase();
    let phrase = phrase.trim().to_ascii_lowercase();
    if !["today", "tomorrow", "tonight"].contains(&phrase.as_str()) {
        return false;
    }
    ["'s ", "’s ", "s "].iter().any(|s| lower.contains(&format!("{phrase}{s}")))
}

/// A time no clock can hold ("soon", "sometime", "at some point"): said of a task, it is the
/// task's own words.
pub(super) fn vague(words: &str) -> bool {
    let w = words.trim().trim_end_matches(['.', '!', '?']).to_ascii_lowercase();
    ["soon", "sometime", "some time", "at some point", "eventually", "one of these days", "someday", "some day"]
        .contains(&w.as_str())
}

/// Whether `text` asks to change or remove what exists ("disable reminder", "I want to delete
/// and cancel breakfast plans set up to remind me…", "… on Wednesday instead of Thursday",
/// "that reminder must be updated", "resume the alarm in 15 minutes"): never a new filing.
pub fn changes_existing(text: &str) -> bool {
    remakes(text) || changes(text)
}

/// Whether `text` changes an event that exists — people added to it ("Add Julie Jim and Jack
/// to my Lunch Tomorrow Afternoon"), its time remade ("Make my event on May 21 be at PM"), its
/// length or its name ("add an additional hour onto my appointment with Jenny", "make the
/// orthodontist appointment 30 minutes longer") — which no reading files or moves.
pub fn remakes(text: &str) -> bool {
    // "Add Julie Jim and Jack to my Lunch Tomorrow Afternoon": people added to an event, not a
    // thing added to a list.
    static TO_EVENT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let to_event = TO_EVENT.get_or_init(|| {
        regex::Regex::new(
            r"(?i)^\s*(?:please\s+)?(?:add|invite|include)\s+\S.*?\s+to\s+(?:my|the|this|that|our)\s+(?P<to>[\w'\s-]+)",
        )
        .unwrap_or_else(|e| unreachable!("the added-to pattern compiles: {e}"))
    });
    if let Some(to) = to_event.captures(text).and_then(|c| c.name("to")) {
        // ("… to my dentist appointment", not "… to my shopping list" nor "… to my calendar".)
        let to = to.as_str().to_ascii_lowercase();
        let words: Vec<&str> = to.split_whitespace().take(4).collect();
        let event =
            ["lunch", "dinner", "breakfast", "meeting", "party", "event", "appointment", "call", "trip", "session"];
        let list = ["list", "calendar", "schedule", "agenda", "diary", "reminders", "tasks", "todo", "todos", "to-do"];
        if words.iter().any(|w| event.contains(w)) && !words.iter().any(|w| list.contains(w)) {
            return true;
        }
    }
    static REMADE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    REMADE
        .get_or_init(|| {
            regex::Regex::new(
                r"(?i)\b(?:make|have)\s+(?:my|the|this|that)\s+[^.!?]{0,40}?\bbe\s+(?:at|on|for|in|moved)\b|\b(?:an?\s+(?:additional|extra)|another|\d+\s+more)\s+(?:\w+\s+)?(?:hours?|minutes?|mins?|days?)\s+(?:on|onto|to)\s+(?:my|the|this|that|our)\s+(?:[\w'-]+\s+){0,3}(?:meeting|appointment|event|lunch|dinner|call|party|session|class)|\b(?:minutes?|mins?|hours?|hrs?)\s+(?:longer|shorter)\b|\b(?:rename[ds]?|attendees?)\b",
            )
            .unwrap_or_else(|e| unreachable!("the remade pattern compiles: {e}"))
        })
        .is_match(text)
}

pub(super) fn changes(text: &str) -> bool {
    // "I need to move the time for drinks with Naomi", "Decline my meeting next monday", "I need
    // to clear my schedule for next week", "the reminder about … needs to be disregarded": what
    // exists changed, answered or undone — never a new filing.
    static EVENT: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let event = EVENT.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:(?:move|reschedule|postpone|push\s+back)\s+(?:the\s+time\s+(?:for|of)|my\s+(?:[\w'-]+\s+){0,3}(?:meeting|appointment|event|lunch|dinner|call|reminder|alarm)s?\b)|(?:decline|accept|rsvp\s+to)\s+(?:the\s+|my\s+|an?\s+|this\s+|that\s+)?(?:[\w'-]+\s+){0,3}(?:meeting|invit\w*|event|appointment|party|lunch|dinner)|clear\s+(?:out\s+)?(?:my|the)\s+(?:schedule|calendar|day|afternoon|morning|evening|week)|(?:un|dis)invite\w*|(?:got|was|were|has\s+been)\s+(?:moved|changed|rescheduled|pushed|postponed|cancell?ed)|(?:move|reschedule|push|postpone|shift|bump)\s+[\w' -]{1,40}?\s+(?:to|until|till)\s+(?:(?:next|this|the)\s+)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|later|next\s+week)|(?:people|person)\s+attending|attendees?|guest\s+list|and\s+send\s+(?:an?\s+)?invit\w*|(?:reminders?|alarms?)\b[^.!?]{0,60}\b(?:disregard|ignor)\w*|needs?\s+to\s+be\s+(?:disregard|ignor|cancel|delet|remov|dismiss)\w*)")
            .unwrap_or_else(|e| unreachable!("the changed event pattern compiles: {e}"))
    });
    if event.is_match(text) {
        return true;
    }
    static CHANGE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    CHANGE
        .get_or_init(|| {
            regex::Regex::new(r"(?i)^\s*(?:(?:right\s+)?now\s+)?(?:(?:i\s+(?:want|need|would\s+like)\s+to\s+|please\s+|can\s+you\s+|could\s+you\s+)?(?:disable|delete|cancel|remove|erase|stop|turn\s+off|switch\s+off|shut\s+off|repeat|extend|adjust|reset|change|label|rename|relabel|resume|restart|pause|unpause)\b)|\binstead\s+of\b|\b(?:be|been|get|gets)\s+(?:updat|chang|mov|reschedul|cancel|delet)\w*|\b(?:reduce|modify|extend|increase|decrease|shorten|lengthen|adjust|postpone|delay)\s+(?:(?:my|the|this|that|current|next|snooze|wake\s+up|morning)\s+)*(?:\w+\s+)?(?:alarms?|timers?|reminders?|snooze|task)\b|\bmove\s+(?:the|my|this|that)\s+(?:\w+\s+)?(?:alarm|timer|reminder)s?\s+(?:up|back|forward|earlier|later|ahead)\b|\badd\s+(?:another|\d+\s+more|an?\s+(?:extra|other))\b[^.!?]{0,30}\bto\s+(?:(?:my|the|this|that)\s+)?(?:\w+\s+)?(?:alarm|timer|reminder)|\b(?:make|set|put|push)\s+(?:my|the|this|that)\s+(?:\w+\s+)?(?:alarms?|timers?|reminders?)\s+[^.!?]{0,30}\b(?:later|earlier|sooner)\b|\b(?:alarms?|reminders?)\b[^.!?]*\bneeds?\s+to\s+(?:be\s+)?(?:chang|mov|reschedul|updat|shift)\w*|\b(?:alarms?|reminders?|timers?)\s+(?:updated|changed|moved|rescheduled|switched|shifted)\s+(?:to|for|from)\b|\b(?:alarms?|reminders?|timers?)\b[^.!?]{0,40}\b(?:changed|moved|rescheduled|pushed|switched|shifted)\s+(?:to|until|till)\b|^\s*(?:please\s+)?(?:toss|throw)\s+(?:out|away)\b")
                .unwrap_or_else(|e| unreachable!("the change pattern compiles: {e}"))
        })
        .is_match(text)
}

/// A sentence that only sets the scene ("I'm hoping to motivate myself to do some chores
/// around the house."), beside the one that asks.
pub fn scene(clause: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)^\s*(?:i'?m|i\s+am|i'?ve\s+been|i\s+have\s+been|i\s+was)\s+(?:hoping|trying|planning|thinking|going|looking|wanting)\b")
            .unwrap_or_else(|e| unreachable!("the scene pattern compiles: {e}"))
    })
    .is_match(clause)
}

/// A clause that says only a time ("It will be for 4:45 pm.", "Set it for 5:15 in the
/// evening.", "Can you retry with the time as three pm?"): the time, for the filing said
/// beside it — or, said alone, for the question what to set.
pub fn time_only(clause: &str, now: &Zoned) -> Option<Result<when::Due, WhenError>> {
    // "I need to be up at 8AM": a wake-up asked for, not a time alone.
    if be_up(&clause.to_ascii_lowercase()) {
        return None;
    }
    match when::parse(clause, now) {
        Ok(Some(d)) if only_asking(&d.rest) => Some(Ok(d)),
        Err(e) if only_asking(&clause.to_ascii_lowercase().replacen(&e.phrase().to_ascii_lowercase(), " ", 1)) => {
            Some(Err(e))
        }
        _ => None,
    }
}

/// An alarm's or a timer's own name, when the person set one without naming what for.
/// "tell me when it turns 7:00", "tell me when ten minutes have passed": an alert, said with
/// its time as the reader takes it ("tell me at 7:00", "tell me in 10 minutes").
pub fn told_when(clause: &str) -> Option<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\btell\s+me\s+when\s+(?:it\s+(?:turns|gets\s+to|is)\s+(?P<at>\S+(?:\s*[ap]\.?m\.?)?)|(?P<span>\S+\s+(?:minutes?|mins?|hours?|seconds?|secs?))\s+(?:have|has)\s+(?:passed|gone\s+by|elapsed))\s*[.!?]?\s*$")
            .unwrap_or_else(|e| unreachable!("the told-when pattern compiles: {e}"))
    });
    let c = re.captures(clause)?;
    let all = c.get(0)?;
    let when = match (c.name("at"), c.name("span")) {
        (Some(at), _) => format!("at {}", at.as_str()),
        (_, Some(span)) => format!("in {}", span.as_str()),
        _ => return None,
    };
    Some(format!("{}alert me {when}", &clause[..all.start()]))
}

/// The time a span said in `text` ends, from `now` ("for 5 minutes", "a 15 minute timer").
pub(super) fn span_from_now(text: &str, now: &Zoned) -> Option<when::Due> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?P<n>\d{1,3})[\s-]*(?P<u>min(?:ute)?s?|hours?|hrs?|sec(?:ond)?s?|secs?)\b")
            .unwrap_or_else(|e| unreachable!("the span pattern compiles: {e}"))
    });
    let shift = when::shift(text).or_else(|| {
        let normal = when::numbers::normalize(text).text;
        let c = re.captures(&normal)?;
        // "alert me at 1 hour before": before something not said, not an hour from now.
        let after = normal[c.get(0)?.end()..].trim_start().to_ascii_lowercase();
        if ["before", "earlier", "prior", "ahead", "in advance", "early"].iter().any(|w| after.starts_with(w)) {
            return None;
        }
        let s = when::shift(&format!("for {} {}", c.name("n")?.as_str(), c.name("u")?.as_str()))?;
        let all = c.get(0)?;
        let rest = format!("{} {}", &normal[..all.start()], &normal[all.end()..]);
        Some(when::Shift { rest, ..s })
    })?;
    let at = now.checked_add(shift.span).ok()?;
    // "at 0800 hours" is a clock, not a span of 800 hours: a timer is set for under a day.
    if at.timestamp().duration_since(now.timestamp()) > jiff::SignedDuration::from_hours(24) {
        return None;
    }
    Some(when::Due { at, phrase: shift.phrase, rest: shift.rest, day_given: false, time_given: true })
}

/// Whether words the tagger marked as a time are left over once the time was read from them.
pub(super) fn unread_time(when_words: &str, due: &when::Due) -> bool {
    let read = cn_hub::words::content(&due.phrase);
    let rest = cn_hub::words::content(&due.rest);
    cn_hub::words::content(when_words)
        .iter()
        .any(|w| !read.contains(w) && rest.contains(w) && w.chars().any(char::is_alphabetic))
}

/// The words that say something repeats when no repeat could be read from them: the tagger's
/// `recur` slot, or "recurring", "repeating", "repeat".
pub(super) fn repeat_unsaid(u: &Understood, text: &str) -> Option<String> {
    let recur = joined(u, SlotKind::Recur);
    if !recur.is_empty() {
        return Some(recur);
    }
    text.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_ascii_lowercase())
        .find(|w| matches!(w.as_str(), "recurring" | "repeating" | "repeat" | "reoccurring" | "recurrent"))
}

/// A repeat said with one weekday and no other day ("Create repeating alarm for 4:30pm Sunday
/// afternoon"): the text with that weekday said as every week's ("… every Sunday afternoon").
pub(super) fn weekly_on(text: &str) -> Option<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?P<before>\w+\s+)?(?P<wd>(?:mon|tues|wednes|thurs|fri|satur|sun)day)s?\b")
            .unwrap_or_else(|e| unreachable!("the weekday pattern compiles: {e}"))
    });
    let mut days = re.captures_iter(text);
    let c = days.next()?;
    let before = c.name("before").map_or(String::new(), |b| b.as_str().trim().to_ascii_lowercase());
    if days.next().is_some()
        || ["this", "next", "last", "every", "each", "coming", "upcoming"].contains(&before.as_str())
    {
        return None;
    }
    let wd = c.name("wd")?;
    Some(format!("{}every {}{}", &text[..wd.start()], wd.as_str(), &text[c.get(0)?.end()..]))
}

/// Words that only ask for an alarm or a reminder ("Set the alarm to"): no what of their own.
pub(super) fn filler(words: &str) -> bool {
    const ASKING: &[&str] = &[
        "set", "setup", "up", "the", "a", "an", "my", "me", "to", "for", "alarm", "alarms", "timer", "reminder",
        "make", "create", "add", "new", "another", "i", "want", "need", "would", "like", "put", "turn", "on", "give",
        "start", "please", "can", "you", "could", "it", "one", "an", "apply", "setting",
    ];
    words
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| ASKING.contains(&w.to_ascii_lowercase().as_str()))
}

/// A due time from a `when` slot: none said, read, or asked about.
pub(super) fn due(words: &str, now: &Zoned) -> Result<Option<when::Due>, WhenError> {
    if words.is_empty() {
        return Ok(None);
    }
    match when::parse(words, now)? {
        Some(d) => Ok(Some(d)),
        None => Err(WhenError::Unreadable { phrase: words.to_string(), why: "it names no day or time I know".into() }),
    }
}

/// A list's filter from the words of its `when` slot: by their words, else the one day they
/// name ("on friday", "for march 4th") — a part of a day or a stretch of days is not one day,
/// and lists all that is open.
pub(super) fn filter(words: &str, now: &Zoned) -> cn_hub::tasks::Filter {
    use cn_hub::tasks::Filter;
    let by_words = filter_words(words);
    if by_words != Filter::Open {
        return by_words;
    }
    match when::parse(words, now) {
        Ok(Some(d)) if d.day_given && !d.time_given && !words.to_ascii_lowercase().contains("week") => {
            Filter::Day(d.at.date())
        }
        _ => Filter::Open,
    }
}

/// A list's filter by its words alone ("today", "next week", "overdue").
pub(super) fn filter_words(words: &str) -> cn_hub::tasks::Filter {
    use cn_hub::tasks::Filter;
    let w = words.to_ascii_lowercase();
    // "the day after tomorrow" is one day, not tomorrow: read by date.
    if w.contains("after tomorrow") {
        return Filter::Open;
    }
    if w.contains("overdue") || w.contains("late") {
        Filter::Overdue
    } else if w.contains("next week") {
        Filter::NextWeek
    } else if w.contains("week") {
        Filter::Week
    } else if w.contains("tomorrow") || w.contains("tmrw") {
        Filter::Tomorrow
    } else if w.contains("today")
        || w.contains("tonight")
        || w.contains("this morning")
        || w.contains("this afternoon")
        || w.contains("this evening")
    {
        Filter::Today
    } else {
        Filter::Open
    }
}

/// Whether the words say what they change is on the list ("my reminder", "the alarm").
pub(super) fn said(text: &str) -> Said {
    let lower = text.to_ascii_lowercase();
    let named =
        ["reminder", "task", "todo", "to-do", "to do", "alarm", "appointment", "meeting", "event", "calendar", "list"]
            .iter()
            .any(|w| lower.contains(w));
    if named {
        Said::Explicit
    } else {
        Said::Implicit
    }
}

/// The words that say a request is about the person's list, calendar or ideas, by intent:
/// a model's guess is acted on only with them (or, for an addition, a time and a very high
/// confidence). Chosen on the data sets' validation splits, where without them weather,
/// public events and messages were filed as tasks.
pub(super) fn marked(intent: Intent, text: &str) -> bool {
    static RE: std::sync::OnceLock<[regex::Regex; 6]> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        let r = |p: &str| regex::Regex::new(&format!("(?i){p}")).unwrap_or_else(|e| unreachable!("the marker pattern compiles: {e}"));
        [
            r(r"\b(?:(?:set\s+up|setup|schedule|make|create|arrange|organi[sz]e|plan)\s+(?:me\s+)?(?:(?:an?|my|the|new)\s+(?:[\w'-]+\s+){0,3})?(?:meeting|meet|appointment|event|lunch|dinner|breakfast)|remind|reminded|reminders?|remember\s+to|tasks?|todos?|to-?do|(?:my|the|to[\s-]?do|todo|task|shopping|grocery)\s+list|calendar|diary|agenda|schedule|alarm|timer|countdown|note\s+to\s+self|forget|appointment|wake|(?:need|have|got|must)\s+to\s+(?:be|get)\s+up|(?:alert|notify|ping|buzz|bother|nudge)\s+me)\b"),
            // The list's own words, or a question about one's own time ("what do I have going
            // on today", "do I have anything to do on saturday", "am I doing anything friday",
            // "what did I want to remember").
            r(r"\b(?:reminders?|tasks?|todos?|to-?do|(?:my|the|to[\s-]?do|todo|task|shopping|grocery|to-?buy|purchase)\s+list|calendar|diary|agenda|schedule|alarms?|timers?|alerts|appointments?|plans|planned|meetings?|events?|remind|remember|notifications|what\s+(?:do|have)\s+i\s+(?:got|have)|(?:do|did)\s+i\s+have\s+(?:anything|something)|have\s+i\s+got\s+(?:anything|something)|am\s+i\s+(?:doing|busy)|going\s+on|(?:have|need)\s+to\s+do|when\s+(?:is|are|was)\s+my|when'?s\s+my|when\s+am\s+i|when\s+my|what\s+time\s+(?:is|are)\s+my|what\s+time'?s\s+my|show\s+me\s+my|(?:do|did)\s+i\s+have\s+(?:an?\s+|my\s+|any\s+)?[\w'-]+(?:\s+[\w'-]+){0,5}?\s+(?:today|tonight|tomorrow|later|this\s+\w+|next\s+\w+|(?:on|for)\s+(?:mon|tue|wed|thu|fri|sat|sun)\w*)|how(?:'s|\s+is|\s+does|\s+do)\s+(?:my\s+)?(?:today|tonight|tomorrow|(?:this|next)\s+\w+|\w+day)\s+look|(?:do|will)\s+i\s+(?:meet|see)\b|am\s+i\s+(?:meeting|seeing|scheduled|booked)|will\s+i\s+be\s+(?:meeting|seeing)|what\s+time\s+my|what(?:'s|\s+is)\s+my\s+next|what(?:'s|\s+is)\s+(?:happening|scheduled|planned|on)\s+(?:for\s+|on\s+)?(?:today|tonight|tomorrow|(?:the\s+)?day\s+after|this|next|mon|tue|wed|thu|fri|sat|sun)|am\s+i\s+going\s+to\s+(?:the\s+|a\s+)?[\w'-]+(?:\s+[\w'-]+){0,3}\s+(?:with|today|tonight|tomorrow|this|next|on)\b|any\s+[\w'-]+\s+(?:scheduled|planned|booked)|what\s+do\s+i\s+need\s+to\s+(?:buy|get|pick\s+up|do)|my\s+(?:day|plans?)\s+(?:for|on|look|today|tomorrow)|plan\s+for\s+the\s+day|what\s+time\s+am\s+i|when\s+do\s+i\s+(?:meet|see|have)|where\s+(?:do|am)\s+i\s+(?:have|supposed|need)\s+to\s+be|(?:recall|keep\s+in\s+mind|bear\s+in\s+mind|not\s+(?:want\s+to\s+)?forget)|(?:anything|something)\s+(?:happening|scheduled|planned))\b"),
            r(r"\b(?:reminders?|tasks?|todos?|to-?do|(?:my|the|to[\s-]?do|todo|task|shopping|grocery)\s+list|calendar|schedule|alarms?|timers?|appointments?|meetings?|events?)\b"),
            r(r"\b(?:reminders?|tasks?|todos?|to-?do|(?:my|the|to[\s-]?do|todo|task|shopping|grocery)\s+list|calendar|schedule|alarms?|timers?|appointments?|meetings?|events?|snooze)\b"),
            r(r"\b(?:reminders?|tasks?|todos?|to-?do|(?:my|the|to[\s-]?do|todo|task|shopping|grocery)\s+list|done|finished|complete|completed|tick|check\s+off)\b"),
            r(r"\b(?:an\s+idea|new\s+idea|my\s+ideas|ideas?\s+list|idea\s*:|someday|some\s+day|for\s+later|one\s+day)"),
        ]
    });
    let i = match intent {
        Intent::Add => 0,
        Intent::List => 1,
        Intent::Cancel => 2,
        Intent::Move => 3,
        Intent::Complete => 4,
        Intent::Idea => 5,
        _ => return false,
    };
    re[i].is_match(text)
}

/// Whether `text` has a word that undoes something ("cancel", "turn off", "don't remind me",
/// "no longer need"): without one, no reading of it cancels anything.
pub(super) fn undoes(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:cancel\w*|delet\w*|remov\w*|drop\w*|clear\w*|stop\w*|end|erase\w*|disabl\w*|deactivat\w*|off|rid|don'?t|do\s+not|no\s+longer|not\s+need\w*|anymore|any\s+more|scrap\w*|forget|nix|kill|dismiss\w*|silence|unschedul\w*|unset|scratch|trash|ditch|abort|wipe|eliminat\w*|discard\w*|undo|never\s*mind|nevermind|skip|quit|halt|mute|snuff|toss\w*|throw\s+(?:out|away))\b")
            .unwrap_or_else(|e| unreachable!("the undo pattern compiles: {e}"))
    })
    .is_match(text)
}

/// Whether `text` begins by undoing something ("cancel alarm set for 6pm", "please delete …").
pub(in crate::routine) fn undoes_first(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:cancel|delete|remove|clear|disable|dismiss|erase|stop|drop|turn\s+off|switch\s+off|shut\s+off|get\s+rid\s+of)\b")
            .unwrap_or_else(|e| unreachable!("the undo-first pattern compiles: {e}"))
    })
    .is_match(text)
}

/// A question ("will I make my 2pm appointment?"), which files nothing.
pub(super) fn asks(text: &str) -> bool {
    let t = without_wake_word(&text.trim().to_ascii_lowercase());
    let first = t.split_whitespace().next().unwrap_or("");
    // "Will I need long pants if I stay out past 10PM": a question of the person's own.
    if ["will", "would", "should", "shall", "might"].contains(&first)
        && t.split_whitespace().nth(1).is_some_and(|w| w == "i" || w == "we")
    {
        return true;
    }
    // "I'm leaving my office at 5pm what time should I arrive at my kids' school": a question
    // after what the person says of their day — unless a reminder, alarm or timer is asked.
    let asked_after = [
        "what time should",
        "what time do i",
        "what time will",
        "what time would",
        "how long will",
        "how long does",
        "how long should",
        "how far",
        "how much time",
        "when should i",
        "when do i need",
        "should i ",
    ];
    if asked_after.iter().any(|a| t.contains(a)) && !["remind", "alarm", "timer"].iter().any(|w| t.contains(w)) {
        return true;
    }
    let polite = ["can", "could", "would", "will", "please", "pls"].contains(&first)
        && t.split_whitespace().nth(1).is_some_and(|w| w == "you" || w == "u");
    // "i need to put out the garbage tonight - can you remind me at 8?": asked politely, later.
    let polite = polite
        || [
            "can you remind",
            "could you remind",
            "would you remind",
            "will you remind",
            "can you set",
            "could you set",
        ]
        .iter()
        .any(|w| t.contains(w));
    // "Set a timer for 20 min?", "Cancel my 5 am alarm, would you?": a request with a question
    // mark is still the request.
    let imperative = [
        "set", "cancel", "create", "add", "remind", "delete", "remove", "make", "start", "schedule", "put", "change",
        "move", "snooze", "wake",
    ]
    .contains(&first);
    !polite
        && !imperative
        && (t.ends_with('?')
            || [
                "what", "what's", "whats", "when", "where", "why", "how", "who", "which", "is", "are", "do", "does",
                "did", "am",
            ]
            .contains(&first))
}

/// A message to someone else or a command to a device ("send a text to Doug that says don't
/// forget …", "tell Jack that I have finished …"): not the person's own list.
/// `text` (lower case) without the assistant's name said first ("siri can you …", "hey
/// google, …").
pub(super) fn without_wake_word(text: &str) -> String {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"^\s*(?:(?:hey|ok|okay|hi)\s+)?(?:siri|alexa|google|cortana|assistant|computer)\b[\s,.!:]*")
            .unwrap_or_else(|e| unreachable!("the wake-word pattern compiles: {e}"))
    })
    .replace(text, "")
    .into_owned()
}

/// "make sure Kiera knows that …", "let Sam know …": a message for someone else to hear.
pub(crate) fn tells_another(text: &str) -> bool {
    let t = without_wake_word(&text.trim().to_ascii_lowercase());
    let t = t.trim_start_matches("please ").trim_start_matches("can you ").trim_start_matches("could you ");
    let told: Vec<&str> = t
        .strip_prefix("make sure ")
        .or_else(|| t.strip_prefix("ensure "))
        .map(|r| r.strip_prefix("that ").unwrap_or(r))
        .or_else(|| t.strip_prefix("let "))
        .map(|r| r.split_whitespace().take(2).collect())
        .unwrap_or_default();
    let [who, verb] = told[..] else { return false };
    ["knows", "know", "hears", "remembers", "understands"].contains(&verb)
        && !["i", "i'm", "we", "me", "us", "you", "my", "the", "this", "that", "it", "to"].contains(&who)
}

/// The event in words that ask to file it ("schedule a dentist appointment" → "dentist
/// appointment", "create meeting to go over presentation" → "meeting to go over presentation"); `None` when what is filed is itself a filing ("set a reminder for my new
/// schedule").
pub(super) fn filed_event(words: &str) -> Option<String> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        // An event with an article ("a dentist appointment"), or a meeting or an appointment
        // without one ("create meeting to go over presentation"; "make dinner" is no event).
        regex::Regex::new(r"(?i)^\s*(?:set\s+up|schedule|make|create|add|put|set|arrange|organi[sz]e|plan)\s+(?:me\s+)?(?P<e>(?:(?:an?|my|the|new)\s+(?:[\w'-]+\s+){0,3}(?:appointment|meeting|meet|lunch|dinner|breakfast|party|session|interview|date|visit|check-?up|class|lesson|game|practice|call)|meeting|meet|appointment)(?:\s+with\s+[\w'.-]+(?:(?:\s*,\s*|\s+and\s+|\s+)[\w'.-]+){0,4})?(?:\s+(?:to|about|regarding)\s+[\w'-]+(?:\s+[\w'-]+){0,7})?)\s*[.!?]*\s*$")
            .unwrap_or_else(|e| unreachable!("the filed event pattern compiles: {e}"))
    });
    let e = re.captures(words)?.name("e")?.as_str().trim();
    let e = ["a ", "an ", "my ", "the ", "new "]
        .iter()
        .find_map(|a| e.get(..a.len()).filter(|h| h.eq_ignore_ascii_case(a)).map(|_| &e[a.len()..]))
        .unwrap_or(e)
        .trim()
        .to_string();
    let filing = ["reminder", "task", "alarm", "timer", "note", "list", "event", "entry"];
    (!e.split_whitespace().any(|w| filing.contains(&w.to_ascii_lowercase().as_str()))).then_some(e)
}

/// Whether `text` puts in something that starts one day and ends another ("a skiing trip
/// starting on Monday at 12 pm and ending on Sunday"): a span no task holds — the executive's.
pub(crate) fn spans_days(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\bstart(?:s|ing)?\b[^.!?]*\bend(?:s|ing)?\s+(?:on|at|by)\b")
            .unwrap_or_else(|e| unreachable!("the span pattern compiles: {e}"))
    })
    .is_match(text)
}

/// An event named with its time and nothing else ("team meeting friday at 10", "my dentist
/// appointment tomorrow at 3"): the event and when.
pub(super) fn named_event(text: &str, now: &Zoned) -> Option<(String, when::Due)> {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let re = RE.get_or_init(|| {
        regex::Regex::new(r"(?i)^\s*(?:my\s+|the\s+|a\s+|an\s+|our\s+)?(?P<e>(?:[\w'-]+\s+){0,3}(?:meeting|appointment|lunch|dinner|breakfast|party|session|interview|date|visit|check-?up|class|lesson|practice|conference|reunion|shower|wedding|recital|concert|hike|match|workout|game|show|trip)(?:\s+with\s+[\w'.-]+(?:\s+and\s+[\w'.-]+)?)?)\s*(?:,?\s*(?:please|pls|thanks))?\s*[.!]*\s*$")
            .unwrap_or_else(|e| unreachable!("the named event pattern compiles: {e}"))
    });
    let d = when::parse(text, now).ok()??;
    // ("Cooking class this saturday" may be a search for one: a day alone names no event of
    // one's own; a clock time does.)
    if !d.time_given {
        return None;
    }
    // "Gender reveal is at 4 pm Sunday": a name said to be at a clock time is the event, what
    // it is called aside ("it is at 4", "that is at 4" name nothing).
    static IS: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let is = IS.get_or_init(|| {
        regex::Regex::new(
            r"(?i)^\s*(?:my\s+|the\s+|our\s+)?(?P<e>[\w'-]+(?:\s+[\w'-]+){0,3}?)\s+(?:is|are|'s)\s*[.!]*\s*$",
        )
        .unwrap_or_else(|e| unreachable!("the named-is pattern compiles: {e}"))
    });
    let e = match re.captures(&d.rest).and_then(|c| c.name("e")) {
        Some(e) => e.as_str().trim().to_string(),
        None => {
            let e = is.captures(&d.rest)?.name("e")?.as_str().trim().to_string();
            let pronoun =
                ["it", "that", "this", "there", "he", "she", "they", "we", "i", "what", "which", "who", "when"];
            if e.split_whitespace().any(|w| pronoun.contains(&w.to_ascii_lowercase().as_str())) {
                return None;
            }
            e
        }
    };
    // "is the team meeting friday at 10?", "cancel my lunch": a question or a change is no
    // event named.
    let first = e.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    let verbs = [
        "is", "are", "was", "cancel", "move", "delete", "when", "what", "where", "who", "do", "does", "did", "any",
        "make", "cook", "eat", "have", "go", "get", "buy", "book", "order", "prepare", "plan", "schedule", "set",
        "create", "add", "attend", "skip", "host", "finish", "grab", "reserve", "find", "call", "text", "tell", "send",
        "play", "watch",
    ];
    (!verbs.contains(&first.as_str()) && !text.contains('?')).then_some((e, d))
}

/// Whether `text` says a clock time ("at 10", "3pm").
pub(super) fn clock_said(text: &str, now: &Zoned) -> bool {
    // (A part of a day — "in the morning", "tonight" — is no clock.)
    matches!(when::parse(text, now), Ok(Some(d)) if d.time_given && {
        let p = d.phrase.to_ascii_lowercase();
        p.contains(|c: char| c.is_ascii_digit()) || p.contains("noon") || p.contains("midnight")
    })
}

/// Whether `text` asks to file something at all ("set …", "add …", "I need …", "new
/// reminder …") — a bare name ("the appointment") does not, nor a place ("Brunch at New York
/// New York Hotel and Casino on Sunday").
pub(super) fn asks_to_file(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:set|setup|add|create|make|schedule|remind|put|new\s+(?:reminder|task|alarm|timer|event|meeting|appointment|entry|item|todo|to-do|one)|book|plan|arrange|need|want|like|can|could|would|please|enter|mark|block|pencil|note|save|give|start\s+(?:a|an|the|my|new)|wake)\b")
            .unwrap_or_else(|e| unreachable!("the filing pattern compiles: {e}"))
    })
    .is_match(text)
}

/// Whether words to file ask to see the list instead ("check my notifications", "show me my
/// reminders").
pub(super) fn looks_at_list(what: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)^\s*(?:check|show\s+me|show|see|view|read|look\s+at|go\s+over|review)\s+(?:my|the)\s+(?:notifications|reminders|alarms|calendar|schedule|tasks|agenda|to-?do\s+list|list)\s*[.!?]*\s*$")
            .unwrap_or_else(|e| unreachable!("the list-look pattern compiles: {e}"))
    })
    .is_match(what)
}

/// `text` without the courtesy around a request ("Hello, can you please …", "… for me?").
pub(super) fn courtesy_gone(text: &str) -> String {
    static RE: std::sync::OnceLock<[regex::Regex; 2]> = std::sync::OnceLock::new();
    let [lead, tail] = RE.get_or_init(|| {
        let r = |p: &str| regex::Regex::new(p).unwrap_or_else(|e| unreachable!("the courtesy pattern compiles: {e}"));
        [
            r(r"(?i)^\s*(?:(?:hi|hello|hey)\b[\s,.!]*)?(?:(?:please|kindly)\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:i\s+(?:want|need|would\s+like|'d\s+like)\s+(?:you\s+)?to\s+)?"),
            r(r"(?i)(?:,?\s+please|\s+for\s+me)?\s*[.!?]*\s*$"),
        ]
    });
    let t = lead.replace(text, "");
    tail.replace(&t, "").into_owned()
}

/// "book (me) a meeting", "book an appointment": an event of the person's own.
pub(super) fn own_event_re() -> &'static regex::Regex {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)^book\s+(?:me\s+|myself\s+)?(?:an?|my)\s+(?:[\w:]+\s+){0,3}(?:meeting|appointment|call|session|check-?up|lesson|class)\b")
            .unwrap_or_else(|e| unreachable!("the own event pattern compiles: {e}"))
    })
}

pub(crate) fn for_another(text: &str) -> bool {
    let t = without_wake_word(&text.trim().to_ascii_lowercase());
    let t = t.trim_start_matches("please ").trim_start_matches("can you ").trim_start_matches("could you ");
    let mut words = t.split_whitespace();
    let first = words.next().unwrap_or("");
    // "give me an alarm for 3pm", "turn on an alarm for 7am", "send me a reminder": the
    // person's own alarm or reminder.
    let second = t.split_whitespace().nth(1).unwrap_or("");
    if matches!(second, "me" | "on" | "myself") && (device(t).is_some() || t.contains("remind")) {
        return false;
    }
    // "turn off my 8pm alarm", "switch off the reminder": the person's own, undone.
    if matches!(first, "turn" | "switch" | "shut") && second == "off" && (device(t).is_some() || t.contains("remind")) {
        return false;
    }
    // "play an alarm at 5am next tuesday": the alarm is the person's own.
    if first == "play" && device(t).is_some() {
        return false;
    }
    // "book me a meeting tomorrow at 3 pm": a meeting in the person's own calendar (a room,
    // a table or tickets are booked with others: [`booked`]).
    if first == "book" && own_event_re().is_match(t) && !booked(t) {
        return false;
    }
    // "Remind the team about …": a message to others (the executive's), not the person's list.
    // ("remind about the road trip", "remind to call mom": the person's own.)
    if first == "remind" && words.next().is_some_and(|w| !["me", "myself", "us", "me,", "about", "to"].contains(&w)) {
        return true;
    }
    if tells_another(t) {
        return true;
    }
    // Bare imperatives are work for the executive ("write a thank-you note", "book a table").
    [
        "send",
        "text",
        "message",
        "tell",
        "ask",
        "email",
        "call",
        "ring",
        "phone",
        "play",
        "turn",
        "open",
        "reply",
        "dm",
        "whatsapp",
        "write",
        "give",
        "show",
        "draft",
        "book",
        "invite",
        "order",
        "find",
        "search",
        "summarize",
        "summarise",
        "translate",
        "research",
        "review",
        "compose",
        // Work on a codebase or a machine ("Deploy the website tonight"): the executive's.
        "deploy",
        "publish",
        "merge",
        "push",
        "commit",
        "refactor",
        "debug",
        "install",
        "upgrade",
        "rebuild",
        "restart",
        "reboot",
    ]
    .contains(&first)
}

/// Whether `text` books something with others ("schedule a meeting room for 4:00 on
/// thursday", "reserve a table for friday at 8", "schedule a call with the accountant", "i
/// need to rent a car for may 11th", "place an order for my whole shopping list" — the other
/// side must be asked): the executive's, never a task filed.
pub(crate) fn booked(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:(?:meeting|conference|hotel|board|class)\s*rooms?|rooms?\s+(?:for|at)\b|tables?\s+for\b|reservations?|reserve|tickets?|flights?|seats?\s+(?:for|on|at)\b|(?:schedule|arrange|set\s+up|organi[sz]e)\s+(?:a\s+|an\s+)?(?:phone\s+|video\s+|conference\s+|zoom\s+)?call\s+with\b|^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:schedule|book|order|get|arrange|set\s+up)\s+(?:me\s+)?(?:an?\s+)?(?:uber|lyft|taxi|cab|ride)\b|\bbook\s+(?:me\s+|us\s+)?(?:an?\s+)?(?:[\w'-]+\s+)?appointment\s+at\b|\b(?:rent|hire)\s+(?:me\s+|us\s+)?(?:an?\s+)?(?:[\w'-]+\s+)?(?:car|van|bike|truck|suv)\b|\brental\s+car|\bplace\s+(?:an?\s+)?order\b)")
            .unwrap_or_else(|e| unreachable!("the booked pattern compiles: {e}"))
    })
    .is_match(text)
}

/// Whether a question asks what the hub does not hold of its items — who comes, who organised
/// it, who answered an invitation (or answers one), where it is, how long it lasts, when one is
/// free ("Who has not declined the invite to karaoke night?", "where is my lunch event
/// happening?", "Decline my meeting next monday"): a list of the matching items would be no
/// answer, so it goes up.
pub(super) fn asks_beyond(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)^\s*(?:(?:hi|hello|hey)\b[\s,.!]*)?(?:who|whom|whose|whoz|where|how\s+long|how\s+many\s+people)\b|\b(?:attend(?:s|ing|ed|ees?)?|organi[sz](?:er|ing|ed)|responded|respond|response|rsvp|declined?|accept(?:ed)?|invite[ds]?|invitations?|going\s+to\s+be\s+there|location|address|duration|last\s+(?:for\s+)?(?:long|how)|with\s+whom|openings?|free\s+(?:time|slots?|periods?)|availab(?:le|ility)|find\s+(?:me\s+)?(?:an?\s+)?(?:\d+|an?|one|two|three|half\s+an)\s+(?:minutes?|hours?|min))\b|\b(?:who|whom)\b.*\b(?:with|coming|going|there)\b")
            .unwrap_or_else(|e| unreachable!("the beyond pattern compiles: {e}"))
    })
    .is_match(text)
}

/// Whether `text` is a question about the person's own time or things ("Do I still have yoga
/// this Thursday?", "Is my hackathon scheduled for next week?", "When I 'm I see the
/// dentist?"): asked (a question word first, or a question mark) and said of oneself.
pub(super) fn own_question(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let own = RE
        .get_or_init(|| {
            regex::Regex::new(r"(?i)\b(?:i|i'm|im|i'll|my|me|am)\b")
                .unwrap_or_else(|e| unreachable!("the own pattern compiles: {e}"))
        })
        .is_match(text);
    own && asks(text)
}

/// Whether `text` clears a stretch of the calendar ("I need to clear my schedule for next
/// week", "wipe my calendar tomorrow"): everything in it undone at once — the executive's, never
/// a cancel of whatever matches the day.
pub(super) fn clears(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:clear|wipe|empty|free\s+up|block\s+off)\s+(?:out\s+)?(?:all\s+(?:of\s+)?)?(?:my|the)\s+(?:whole\s+|entire\s+)?(?:schedule|calendar|day|afternoon|morning|evening|week|agenda|diary)\b")
            .unwrap_or_else(|e| unreachable!("the clearing pattern compiles: {e}"))
    })
    .is_match(text)
}

/// Whether `text` asks to make a meeting or an appointment ("create meeting for work with
/// supervisors", "set up an appointment with the bank"): something that happens at a time.
pub(super) fn makes_meeting(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)^\s*(?:please\s+|can\s+you\s+|could\s+you\s+)?(?:set\s+up|schedule|make|create|arrange|organi[sz]e|plan|book)\s+(?:me\s+)?(?:(?:an?|my|the|new|another)\s+)?(?:[\w'-]+\s+){0,2}(?:meeting|meet|appointment|event)s?\b")
            .unwrap_or_else(|e| unreachable!("the making pattern compiles: {e}"))
    })
    .is_match(text)
}

/// Whether a question asks after one's own time by its words ("When I 'm I see the dentist?",
/// "do i have dinner between gym and movie ?", "Am I supposed to be in a call with Jake?", "Is
/// my hackathon scheduled?"), not after a thing ("What do my notes say?").
pub(super) fn of_time(text: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    RE.get_or_init(|| {
        regex::Regex::new(r"(?i)^\s*when\b|\b(?:do|did)\s+i\s+(?:still\s+)?have\b|\bam\s+i\b|\b(?:scheduled|planned|booked|happening|on\s+my\s+calendar)\b|\bmy\s+(?:day|week|weekend|morning|afternoon|evening|schedule|calendar|agenda|planner)\b")
            .unwrap_or_else(|e| unreachable!("the own-time pattern compiles: {e}"))
    })
    .is_match(text)
}
