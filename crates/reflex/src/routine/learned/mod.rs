//! The learned understanding ([`cn_understand`]) turned into the routine's requests: for a
//! clause no pattern frame takes, the intent and the slots that a model trained on public
//! data sets of people's requests read in it, each slot read as the routine reads words — a
//! `when` by [`crate::when::parse`], a `recur` by [`crate::when::every`], an `item` by the
//! matching of [`super::perform`].
//!
//! Invariants: the model only chooses among the routine's requests and marks the person's own
//! words; nothing it says is filed that the person did not say. Each intent is held to a
//! confidence ([`threshold`]) and to its slots — an addition needs what to add (or an alarm's
//! or timer's own word), a change to what exists needs the words that name it and a higher
//! confidence, and finds its item only by a match; below that, the clause is not routine and
//! goes up with the reason. A time slot the routine cannot read is asked about, never dropped.

use cn_understand::{Intent, SlotKind, Understood};
use jiff::Zoned;

pub use super::device::*;
use super::{Missing, Request, Said, Target, Want};
use crate::when::{self, WhenError};

/// What a clause is, by the model.
#[derive(Debug, Clone, PartialEq)]
pub enum Clause {
    Request(Request),
    /// A routine request whose time cannot be used.
    Ask(WhenError),
    /// Courtesy around a request ("okay, that's good."): no request of its own.
    Skip,
    /// A request that lacks what to do ("set a reminder for 5pm"): asked about.
    Missing(Missing),
    NotRoutine,
}

/// The least confidence each intent needs to be acted on (measured on the data sets'
/// validation splits: bench/understand/README.md).
pub fn threshold(intent: Intent) -> f32 {
    match intent {
        Intent::Add | Intent::List => 0.6,
        Intent::Idea => 0.7,
        Intent::Move => 0.7,
        Intent::Complete | Intent::Cancel => 0.8,
        Intent::Activity | Intent::Smalltalk | Intent::None => 1.1,
    }
}

/// "I need you to recommend me football matches happening tomorrow night", "I want you to
/// find me a concert": something the person wants done for them, not filed — unless what
/// they want done is the filing ("I need you to remind me …").
fn done_for_me(text: &str) -> bool {
    static RE: std::sync::OnceLock<[regex::Regex; 2]> = std::sync::OnceLock::new();
    let [wants, files] = RE.get_or_init(|| {
        let re = |p: &str| regex::Regex::new(p).unwrap_or_else(|e| unreachable!("the done-for-me pattern compiles: {e}"));
        [
            re(r"(?i)^\s*(?:i\s+(?:need|want|would\s+like)|i['’]d\s+like)\s+(?:you|u)\s+to\s+(?P<rest>.*)$"),
            re(r"(?i)^(?:please\s+)?(?:remind|set|add|put|make|create|schedule|note|write|wake|alert|tell\s+me|let\s+me\s+know)\b"),
        ]
    });
    wants.captures(text).is_some_and(|c| !files.is_match(&c["rest"]))
}

/// What the model is sure of in a clause, read once, that vetoes a frame's filing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sure {
    /// It only asks to see what there is ("Show me the alarm set for Wednesday").
    Reads,
    /// It is none of the routine's and no word of it asks to file anything ("please book
    /// another boat for this weekend's trip").
    NotRoutine,
    Unsure,
}

/// What the model is sure `clause` is, if anything.
pub fn sure(clause: &str) -> Sure {
    match cn_understand::understand(clause) {
        Ok(u) if u.intent == Intent::List && u.confidence >= 0.9 => Sure::Reads,
        Ok(u) if u.intent == Intent::None && u.confidence >= 0.95 && !marked(Intent::Add, clause) => Sure::NotRoutine,
        _ => Sure::Unsure,
    }
}

/// Whether `clause` repeats only by a plural day ("cooking classes wednesday nights") with no
/// word that asks to file anything, and the model reads no routine request in it: a thing
/// named, never a schedule entry made.
pub fn unasked_repeat(clause: &str) -> bool {
    static RE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let asked = RE.get_or_init(|| {
        regex::Regex::new(r"(?i)\b(?:every|each|daily|weekly|monthly|hourly|yearly|annually|nightly|add|set|put|make|create|schedule|book|plan|need|want|have|got)\b")
            .unwrap_or_else(|e| unreachable!("the asked pattern compiles: {e}"))
    });
    !asked.is_match(clause)
        && !marked(Intent::Add, clause)
        && matches!(cn_understand::understand(clause), Ok(u) if u.intent == Intent::None && u.confidence >= 0.5)
}

/// What the model read in `text`, for the journal ("why did you do that?"): its intent, its
/// confidence and the words of each slot. `None` for no text or no model.
pub fn reading(text: &str) -> Option<serde_json::Value> {
    if text.trim().is_empty() {
        return None;
    }
    let u = cn_understand::understand(text).ok()?;
    let slots: Vec<serde_json::Value> =
        u.slots.iter().map(|s| serde_json::json!({"slot": s.kind.name(), "words": s.text})).collect();
    Some(serde_json::json!({
        "intent": u.intent.name(),
        "confidence": (f64::from(u.confidence) * 100.0).round() / 100.0,
        "slots": slots,
    }))
}

/// What `clause` asks, by the built-in model (a model that cannot be read is not routine;
/// `cn` checks it at start-up).
pub fn clause(clause: &str, now: &Zoned) -> Clause {
    // "Thank you, could you retrieve my alarms please?": the courtesy before the request is
    // no part of it.
    static LEAD: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let lead = LEAD.get_or_init(|| {
        regex::Regex::new(r"(?i)^\s*(?:(?:sure|yes|yeah|yep|ok|okay|great|perfect|thanks|thank\s+you|cool|awesome|good|fine|alright|excellent|wonderful|nice|hi|hey|hello)\b[^,.!?]{0,30}[,.!]\s+)+")
            .unwrap_or_else(|e| unreachable!("the courtesy pattern compiles: {e}"))
    });
    let clause = match lead.find(clause) {
        Some(m) if !clause[m.end()..].trim().is_empty() => &clause[m.end()..],
        _ => clause,
    };
    // The same courtesy typed or said without a stop ("thanks also can you show me my
    // alarms", "i appreciate it very much can you tell me …"): gone when a request follows.
    static SAID: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let said = SAID.get_or_init(|| {
        regex::Regex::new(r"(?i)^(?P<lead>\s*(?:(?:ok(?:ay)?|sure|yes|yeah|yep|great|perfect|cool|awesome|good|fine|alright|all\s+right|excellent|wonderful|nice|thanks|thank\s+you|i\s+appreciate\s+(?:it|that)|you(?:'re|\s+are)\s+a\s+(?:great|big|real)\s+help|you(?:'ve|\s+have)\s+been\s+(?:very\s+|quite\s+|so\s+|really\s+)?helpful|that(?:'s|\s+is)\s+all\s+fine)(?:\s+(?:so\s+much|very\s+much|a\s+lot|job|then|and|too|though))*\s+)+(?:also\s+)?)(?:(?:can|could|would|will)\s+(?:you|i)\b|please\b|i\s+(?:also\s+)?(?:want|would|need|wish)\b|i'd\b|show\b|check\b|tell\b|bring\b|pull\b|let\b|retrieve\b)")
            .unwrap_or_else(|e| unreachable!("the unstopped courtesy pattern compiles: {e}"))
    });
    let clause = match said.captures(clause).and_then(|c| c.name("lead")) {
        Some(lead) => &clause[lead.end()..],
        None => clause,
    };
    // "i would also like you to check my notifications": the asking around a request to see
    // something is no part of it.
    static LOOK: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let look = LOOK.get_or_init(|| {
        regex::Regex::new(r"(?i)^\s*(?:i\s+(?:would|'d)\s+(?:also\s+)?like\s+(?:you\s+)?to|i\s+(?:also\s+)?(?:want|need)\s+you\s+to|(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:also\s+)?)\s+(?P<rest>(?:check|show|tell|list|read|see|look|pull\s+up|bring\s+up)\b.*)$")
            .unwrap_or_else(|e| unreachable!("the asking pattern compiles: {e}"))
    });
    let clause = match look.captures(clause).and_then(|c| c.name("rest")) {
        Some(rest) => rest.as_str(),
        None => clause,
    };
    // "What about if you set the alarm for 4:45 in the evening?": a request put as a question.
    static SUGGEST: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let suggest = SUGGEST.get_or_init(|| {
        regex::Regex::new(
            r"(?i)^\s*(?:what|how)\s+about\s+(?:if\s+)?(?:you\s+)?(?P<verb>set|make|add|create|put|setting|making|adding|creating|putting)\b(?P<ask>[^?]*)\?*\s*$",
        )
        .unwrap_or_else(|e| unreachable!("the suggestion pattern compiles: {e}"))
    });
    // "How about setting the alarm for 3pm": said as the request it is ("set the alarm …").
    let suggested = suggest.captures(clause).and_then(|c| {
        let verb = c.name("verb")?.as_str().to_ascii_lowercase();
        let verb = match verb.as_str() {
            "setting" => "set",
            "making" => "make",
            "adding" => "add",
            "creating" => "create",
            "putting" => "put",
            v => v,
        };
        Some(format!("{verb}{}", c.name("ask")?.as_str()))
    });
    let clause = suggested.as_deref().unwrap_or(clause);
    // "show me my alarams": the routine's words as meant.
    let fixed = super::parse::correct_frame(clause);
    let clause = fixed.as_deref().unwrap_or(clause);
    match cn_understand::understand(clause) {
        Ok(u) => of(&u, clause, now),
        Err(e) => {
            tracing::warn!(error = %e, "the understanding model cannot be read");
            Clause::NotRoutine
        }
    }
}

mod words;
pub use words::*;

/// What an understood clause asks.
pub fn of(u: &Understood, text: &str, now: &Zoned) -> Clause {
    // "shopping list", "my to do list": a list named alone asks to see it, never to file it.
    static BARE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let bare = BARE.get_or_init(|| {
        regex::Regex::new(
            r"(?i)^\s*(?:my\s+|the\s+)?(?P<list>(?:shopping|grocery|to[\s-]?do|todo|task)\s+list)\s*[.!?]*\s*$",
        )
        .unwrap_or_else(|e| unreachable!("the bare list pattern compiles: {e}"))
    });
    if let Some(list) = bare.captures(text).and_then(|c| c.name("list")) {
        let list = list.as_str().to_ascii_lowercase();
        return Clause::Request(if list.starts_with("shopping") || list.starts_with("grocery") {
            Request::Show { words: list, said: Said::Explicit }
        } else {
            Request::ListTasks { filter: cn_hub::tasks::Filter::Open }
        });
    }
    if u.intent == Intent::Smalltalk && u.confidence >= 0.6 {
        return Clause::Skip;
    }
    if u.confidence < threshold(u.intent) {
        return Clause::NotRoutine;
    }
    // "i would also like you to check my notifications": what is asked is to see them.
    if u.intent == Intent::Add && looks_at_list(&joined(u, SlotKind::What)) {
        return Clause::Request(Request::ListTasks { filter: cn_hub::tasks::Filter::Open });
    }
    // A time in the slots, or one the time reader finds in the words ("tmrw at noon", which
    // the tagger may leave inside what to do).
    let timed = u.slot(SlotKind::When).is_some()
        || u.slot(SlotKind::Recur).is_some()
        || matches!(when::parse(text, now), Ok(Some(_)));
    // "remind me of the address for my workplace": with no time, a question about something.
    let asks_of = text.trim_start().get(..13).is_some_and(|h| h.eq_ignore_ascii_case("remind me of "));
    let held = match u.intent {
        Intent::Add => {
            asks(text)
                || done_for_me(text)
                || for_another(text)
                || booked(text)
                || spans_days(text)
                || (asks_of && !timed)
                // "Cooking class this saturday": a name and a day, nothing asked and no clock —
                // as likely a search as an entry; handed up.
                || (!asks_to_file(text) && !marked(Intent::Add, text) && !clock_said(text, now))
                || !(marked(Intent::Add, text)
                    || (timed && (u.slot(SlotKind::What).is_some() || named_event(text, now).is_some())))
        }
        // A question ("deploy finished yet?", "is the deploy done") changes nothing.
        Intent::Complete => asks(text) || for_another(text) || !marked(u.intent, text),
        // "gather all my reminders about the pets": a cancel needs a word that undoes.
        // ("clear my schedule for next week" undoes a stretch of days at once: handed up.)
        Intent::Cancel => asks(text) || for_another(text) || clears(text) || !marked(u.intent, text) || !undoes(text),
        // An event lengthened, renamed or given people is no move of its time.
        Intent::Move => asks(text) || remakes(text) || !marked(u.intent, text),
        // A question of one's own time the model is sure of asks for the list, unless it asks
        // what no item holds (who comes, where, how long).
        // ("do i have anything against cats" is an idiom — a dislike, no thing of one's own.)
        Intent::List => {
            let item = joined(u, SlotKind::Item).to_ascii_lowercase();
            let idiom = item.split_whitespace().next() == Some("against");
            // ("What do my notes say?" asks of a file, the executive's: a time said, "when", "do
            // I have" or "am I" make it a question of one's own time.)
            let own = u.confidence >= 0.9 && own_question(text) && (u.slot(SlotKind::When).is_some() || of_time(text));
            idiom || asks_beyond(text) || !(marked(u.intent, text) || own)
        }
        _ => !marked(u.intent, text),
    };
    if held {
        return Clause::NotRoutine;
    }
    let when_words = joined(u, SlotKind::When);
    let item = clean(&joined(u, SlotKind::Item));
    let what =
        Some(clean(&spanned(u, SlotKind::What, text))).filter(|w| !cn_hub::words::content(w).is_empty() && !filler(w));
    // "Set Thursday reminder to Friday afternoon": what to do read as only a time is a change
    // to what exists, never a filing named by a time.
    // ("a bedtime alarm": a meal or bed is a time only beside a clock, and names the alarm.)
    let only_a_time = |w: &str| {
        !when::numbers::names_a_meal(w)
            && matches!(when::parse(w, now), Ok(Some(d)) if cn_hub::words::content(&d.rest).is_empty())
    };
    let lower = text.to_ascii_lowercase();
    let changed_to = ["reminder to ", "alarm to "].iter().find_map(|k| lower.find(k).map(|i| i + k.len()));
    if u.intent == Intent::Add
        && (what.as_deref().is_some_and(only_a_time) || changed_to.and_then(|i| text.get(i..)).is_some_and(only_a_time))
    {
        return Clause::NotRoutine;
    }
    // "disable reminder", "I want to delete and cancel breakfast plans set up to remind me…",
    // "… on Wednesday instead of Thursday", "that reminder must be updated": a change to what
    // exists, never a new filing.
    if matches!(u.intent, Intent::Add | Intent::Idea) && changes_existing(text) {
        return Clause::NotRoutine;
    }
    match u.intent {
        Intent::Add => {
            // "I need to set a reminder for my new schedule": the words to file hold the
            // request to file them — not read apart, not filed.
            // ("Please schedule a dentist appointment for Friday at 9 AM": the words to file
            // are the appointment, the asking verb gone.)
            let what = match what {
                Some(w) if super::parse::files(&w) => match filed_event(&w) {
                    Some(event) => Some(event),
                    None => return Clause::NotRoutine,
                },
                other => other,
            };
            if what.is_none() {
                if let Some(device) = device(text) {
                    // "a timer for 30 minutes, then another after that": not half done.
                    if second_request(text) {
                        return Clause::NotRoutine;
                    }
                    // An alarm or a timer: its time is wherever the person said it.
                    let device = named(text).unwrap_or_else(|| device.to_string());
                    // "an alarm at 1pm everyday": a repeating one, at the time said.
                    // "an alarm for 7 every day": the bare hour is its clock.
                    let every = match when::every(text, now) {
                        Ok(Some(e)) if e.time_unsaid() => match bare_hour(text).map(|t| when::every(&t, now)) {
                            Some(Ok(Some(b))) if !b.time_unsaid() => Ok(Some(b)),
                            _ => Ok(Some(e)),
                        },
                        other => other,
                    };
                    match every {
                        Ok(Some(every)) if every.time_unsaid() => {
                            return Clause::Ask(WhenError::Unreadable {
                                phrase: every.phrase,
                                why: "at what time?".into(),
                            })
                        }
                        Ok(Some(every)) => return Clause::Request(Request::AddEvery { action: device, every }),
                        Err(e) => return Clause::Ask(e),
                        Ok(None) => {}
                    }
                    // "Make a recurring alarm for 5:15am": a repeat said, not how often — asked,
                    // never set once.
                    if let Some(phrase) = repeat_unsaid(u, text) {
                        // "Create repeating alarm for 4:30pm Sunday afternoon": one weekday
                        // said with the repeat — every week on it.
                        if let Some(Ok(Some(every))) = weekly_on(text).map(|t| when::every(&t, now)) {
                            if !every.time_unsaid() {
                                return Clause::Request(Request::AddEvery { action: device, every });
                            }
                        }
                        return Clause::Ask(WhenError::Unreadable {
                            phrase,
                            why: "how often should it repeat?".into(),
                        });
                    }
                    return match when::parse(text, now) {
                        // "a timer for 5 minutes", "a 15 minute egg timer": a span from now.
                        Ok(None) => match span_from_now(text, now) {
                            // "a 15 minute power nap timer": named by the words before it.
                            Some(due) => {
                                let task = device_label(&due.rest)
                                    .filter(|l| named(text).is_none() && l.split_whitespace().count() <= 4)
                                    .unwrap_or(device);
                                Clause::Request(Request::AddTask { task, due: Some(due) })
                            }
                            // An alarm without a time it can go off at is asked about, not filed.
                            None => Clause::Missing(Missing { want: Want::When, what: Some(device), due: None }),
                        },
                        // "set an alarm at 7 and call mom at 8": a second request beside the
                        // alarm is not dropped — the whole goes up.
                        Ok(Some(d)) if second_request(&d.rest) => Clause::NotRoutine,
                        // "an alarm for my workout in thirty minutes": named by what it is for.
                        Ok(Some(d)) => {
                            let task = device_label(&d.rest)
                                .filter(|l| named(text).is_none() && l.split_whitespace().count() <= 4)
                                .unwrap_or(device);
                            Clause::Request(Request::AddTask { task, due: Some(d) })
                        }
                        Err(e) => Clause::Ask(e),
                    };
                }
            }
            let Some(what) = what else {
                // "remind me about it": what it is lies in the conversation, the executive's.
                let lower = text.to_ascii_lowercase();
                if [" it", " that", " this", " them"]
                    .iter()
                    .any(|w| lower.trim_end_matches(['.', '!', '?']).ends_with(w))
                {
                    return Clause::NotRoutine;
                }
                // "Set reminder on August 30th "Springsteen on Broadway"": what is left after
                // the frame and the date is what to remind of.
                static FRAME: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
                let frame = FRAME.get_or_init(|| {
                    regex::Regex::new(r"(?i)^\s*(?:please\s+)?(?:(?:set|add|create|make)\s+(?:(?:a|an|new|me)\s+)*reminder(?:\s+for\s+me)?|schedule|set\s+up|plan)\s*[:,-]?\s*(?P<what>.+)$")
                        .unwrap_or_else(|e| unreachable!("the reminder frame pattern compiles: {e}"))
                });
                if let Ok(Some(d)) = when::parse(text, now) {
                    let left =
                        frame.captures(&d.rest).and_then(|c| c.name("what")).map(|w| super::parse::unquote(w.as_str()));
                    if let Some(what) = left.filter(|w| !only_asking(w) && w.split_whitespace().count() <= 8) {
                        return Clause::Request(Request::AddTask { task: what, due: Some(d) });
                    }
                }
                // "team meeting friday at 10": an event named with its time.
                if let Some((event, d)) = named_event(text, now) {
                    return Clause::Request(Request::AddTask { task: event, due: Some(d) });
                }
                // "the appointment", said with nothing asked of it: no request.
                if !asks_to_file(text) {
                    return Clause::NotRoutine;
                }
                // "Please set up a meeting with Janice": the event is what, its time asked.
                if let Some(event) = filed_event(&courtesy_gone(text)) {
                    return match when::parse(text, now) {
                        Ok(Some(d)) => Clause::Request(Request::AddTask { task: event, due: Some(d) }),
                        Ok(None) => Clause::Missing(Missing { want: Want::When, what: Some(event), due: None }),
                        Err(e) => Clause::Ask(e),
                    };
                }
                // "set a reminder for 5pm": what to remind of is asked, with the time kept.
                return match when::parse(text, now) {
                    Ok(due) => Clause::Missing(Missing {
                        want: if due.is_some() { Want::What } else { Want::WhatAndWhen },
                        what: None,
                        due,
                    }),
                    Err(e) => Clause::Ask(e),
                };
            };
            let recur = joined(u, SlotKind::Recur);
            if recur.is_empty() {
                // "remind me to stretch at 1pm everyday": a repeat the tagger left in the words.
                match when::every(text, now) {
                    Ok(Some(every)) => {
                        let action = match when::every(&what, now) {
                            Ok(Some(e)) if !cn_hub::words::content(&e.rest).is_empty() => clean(&e.rest),
                            _ => what,
                        };
                        return Clause::Request(Request::AddEvery { action, every });
                    }
                    // "an alarm to study for 15 minutes each day": a repeat said that cannot be
                    // read is asked about, never dropped.
                    Err(e) => return Clause::Ask(e),
                    Ok(None) => {}
                }
            }
            if !recur.is_empty() {
                let phrase = format!("{recur} {when_words}");
                return match when::every(phrase.trim(), now) {
                    Ok(Some(every)) => Clause::Request(Request::AddEvery { action: what, every }),
                    Ok(None) => Clause::Ask(WhenError::Unreadable {
                        phrase: phrase.trim().to_string(),
                        why: "I can't tell how often".into(),
                    }),
                    Err(e) => Clause::Ask(e),
                };
            }
            if when_words.is_empty() {
                // "make a meeting with john": an event made with no time has its time asked.
                if let (Some(event), Ok(None)) = (filed_event(&courtesy_gone(text)), when::parse(text, now)) {
                    return Clause::Missing(Missing { want: Want::When, what: Some(event), due: None });
                }
                // "create meeting for work with supervisors": a meeting made, said otherwise —
                // its time asked, never filed without one.
                if matches!(when::parse(text, now), Ok(None)) && makes_meeting(text) {
                    return Clause::Missing(Missing { want: Want::When, what: Some(what), due: None });
                }
                // "remind me when i get home to take out the trash": a moment no clock says is
                // kept in the task's words, never dropped.
                let what = match condition_re().find(text) {
                    Some(c) if !what.to_ascii_lowercase().contains(&c.as_str().to_ascii_lowercase()) => {
                        format!("{what} {}", c.as_str().trim())
                    }
                    _ => what,
                };
                // A time the tagger left inside the words ("meeting with pawel for tomorrow").
                return match when::parse(&what, now) {
                    // "an email about tomorrow's meeting": the day names the meeting, not when.
                    Ok(Some(d)) if possessive_day(&what, &d.phrase) => {
                        Clause::Request(Request::AddTask { task: what, due: None })
                    }
                    Ok(Some(d)) if !cn_hub::words::content(&d.rest).is_empty() => {
                        Clause::Request(Request::AddTask { task: clean(&d.rest), due: Some(d) })
                    }
                    // "alarm at two for my medicine": an alarm's time is wherever it was said,
                    // and one without a time is asked about.
                    Ok(_) if device(text).is_some() => match when::parse(text, now) {
                        Ok(Some(d)) => Clause::Request(Request::AddTask { task: what, due: Some(d) }),
                        Ok(None) => Clause::Missing(Missing { want: Want::When, what: Some(what), due: None }),
                        Err(e) => Clause::Ask(e),
                    },
                    Ok(_) => Clause::Request(Request::AddTask { task: what, due: None }),
                    Err(e) => Clause::Ask(e),
                };
            }
            // "call the doctor soon": a time no clock can hold is the task's words, with no due.
            if vague(&when_words) {
                return Clause::Request(Request::AddTask { task: format!("{what} {}", when_words.trim()), due: None });
            }
            // The words and the time read together, so a time split between the two slots
            // ("meeting with pawel for tomorrow" + "ten am") is read whole.
            let both = format!("{what} {when_words}");
            match when::parse(&both, now) {
                // "remind me a day earlier about the party on friday": time words the reader
                // did not take ("a day earlier") are asked about, never made the task's name.
                Ok(Some(d)) if unread_time(&when_words, &d) => Clause::Ask(WhenError::Unreadable {
                    phrase: when_words,
                    why: "I can't tell which day or time that is".into(),
                }),
                Ok(Some(d)) => {
                    // "a night time alarm for 10pm": "night time", not "night time for".
                    let rest = clean(&super::frames::trim_words(&d.rest));
                    let task = if cn_hub::words::content(&rest).is_empty() { what } else { rest };
                    let task = named_whole(text, &task, now).unwrap_or(task);
                    Clause::Request(Request::AddTask { task, due: Some(d) })
                }
                // The tagger's time cut short ("for 2 hours" of "for 2 hours from now"): the
                // time as said in the whole clause.
                Ok(None) => match when::parse(text, now) {
                    Ok(Some(d)) => Clause::Request(Request::AddTask { task: what, due: Some(d) }),
                    // "set the kitchen timer for 5 minutes": a timer's span, from now.
                    _ if device(text).is_some() && span_from_now(text, now).is_some() => {
                        let Some(due) = span_from_now(text, now) else { return Clause::NotRoutine };
                        let task = device_label(&due.rest).unwrap_or(what);
                        Clause::Request(Request::AddTask { task, due: Some(due) })
                    }
                    _ => Clause::Ask(WhenError::Unreadable {
                        phrase: when_words,
                        why: "it names no day or time I know".into(),
                    }),
                },
                Err(e) => Clause::Ask(e),
            }
        }
        Intent::Idea => match what {
            Some(idea) => Clause::Request(Request::AddIdea { idea }),
            None => Clause::NotRoutine,
        },
        Intent::List => {
            // The past ("how many tasks did I finish last week?") is not the
            // open list: the journal's, or the executive's.
            // ("what alerts did I set for today?" asks what is set: the list.)
            let lower = text.to_ascii_lowercase();
            // ("what did I want to remember", "did I tell you to remind me about laundry": what
            // is set, too.)
            let set = [
                "did i set",
                "did i add",
                "did i schedule",
                "did i make",
                "did i create",
                "did i put",
                "did i want",
                "did i not want",
                "did i need",
                "did i ask you",
                "did i tell you",
                "did you put",
                "did you add",
                "did i remember to",
            ]
            .iter()
            .any(|w| lower.contains(w));
            if !set
                && ["last ", "yesterday", "did i ", "have i done", "have i finished", "have i completed", "i've done"]
                    .iter()
                    .any(|w| lower.contains(w))
            {
                return Clause::NotRoutine;
            }
            // "what alerts did I set for today": an item that is only a day is the day's list.
            let day_only = matches!(when::parse(&item, now), Ok(Some(d)) if cn_hub::words::content(&d.rest).is_empty());
            if day_only {
                Clause::Request(Request::ListTasks { filter: filter(&item, now) })
            } else if !item.is_empty() && !cn_hub::words::content(&item).is_empty() {
                // "What time is my date on friday?": the item is "date", the day only when.
                let words = match when::parse(&item, now) {
                    Ok(Some(d)) if !cn_hub::words::content(&d.rest).is_empty() => clean(&d.rest),
                    _ => item,
                };
                Clause::Request(Request::Show { words, said: Said::Explicit })
            } else {
                // "check today's calendar for meetings": the day said of the list is its filter.
                let lower = text.to_ascii_lowercase();
                let day = ["today's", "tomorrow's", "tonight's", "todays ", "tomorrows "]
                    .iter()
                    .find(|d| lower.contains(*d))
                    .map(|d| d.trim_end_matches(['\'', 's', ' ']).to_string());
                let words = match day {
                    Some(day) if when_words.trim().is_empty() => day,
                    _ => when_words,
                };
                Clause::Request(Request::ListTasks { filter: filter(&words, now) })
            }
        }
        Intent::Complete | Intent::Cancel | Intent::Move => {
            let words = if item.is_empty() { what.unwrap_or_default() } else { item };
            // "turn off my eight pm" tagged as the item: the words that undo are no name.
            // "my reminder for this evening changed (to 9pm)": the change's own word goes.
            let words = super::frames::trim_words(&undo_lead_re().replace(&words, ""));
            if cn_hub::words::content(&words).is_empty() {
                return Clause::NotRoutine;
            }
            // "turn off my alarm set for tomorrow": an item named by its time alone is the
            // alarm (or timer) said, due then.
            let plain = without_possessive(&words);
            let words = match (when::parse(plain.trim(), now), device(text)) {
                (Ok(Some(d)), Some(dev)) if cn_hub::words::content(&d.rest).is_empty() => {
                    let kind = if dev == "Timer" { "timer" } else { "alarm" };
                    format!("{kind} {words}")
                }
                _ => words,
            };
            let said = said(text);
            match u.intent {
                Intent::Complete => Clause::Request(Request::Complete { words, said }),
                Intent::Cancel => Clause::Request(Request::Cancel { words, said }),
                _ => {
                    let span = when::shift(&when_words).or_else(|| when::shift(&format!("for {when_words}")));
                    let to = if let Some(by) = span.filter(|s| s.rest.trim().is_empty()) {
                        Target::By(by.span)
                    } else if when_words.is_empty() {
                        if text.to_ascii_lowercase().contains("snooze") {
                            Target::Later
                        } else {
                            Target::Unsaid
                        }
                    } else {
                        match due(&when_words, now) {
                            Ok(Some(d)) => Target::At(d),
                            Ok(None) => Target::Unsaid,
                            Err(e) => return Clause::Ask(e),
                        }
                    };
                    // "have the floss reminder updated to once every day": how often it repeats is
                    // changed — no move's.
                    if matches!(to, Target::Unsaid) && matches!(when::every(text, now), Ok(Some(_)) | Err(_)) {
                        return Clause::NotRoutine;
                    }
                    Clause::Request(Request::Move { words, to, said })
                }
            }
        }
        Intent::Activity | Intent::Smalltalk | Intent::None => Clause::NotRoutine,
    }
}

#[cfg(test)]
mod tests;
