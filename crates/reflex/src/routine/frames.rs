//! The frames: one reader a kind of request ("what's on my list", "done with …", "cancel …",
//! "move … to …", "every …", "remind me to …"), each taking a cleaned clause
//! ([`super::parse`]) and naming the request with the person's own words, or `None`.

use std::sync::OnceLock;

use cn_hub::tasks::Filter;
use jiff::Zoned;
use regex::{Captures, Regex};

use super::parse::*;
use super::{learned, Request, Said, Target};
use crate::when::{self, WhenError};
/// Whether the words say they are about a task.
fn said_of(words: &str, whole: &str) -> Said {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        re("task words", r"(?i)\b(?:tasks?|reminders?|alarms?|timers?|to-?dos?|todo\s+list|my\s+list|the\s+list|from\s+my|off\s+my)\b")
    });
    if re.is_match(words) || re.is_match(whole) {
        Said::Explicit
    } else {
        Said::Implicit
    }
}

pub(super) fn group(c: &Captures, name: &str) -> String {
    c.name(name).map_or(String::new(), |m| m.as_str().trim().to_string())
}

const FILTER_WORDS: &str = r"today|tonight|tomorrow|this\s+week|the\s+week|next\s+week|overdue";

fn filter_of(kind: &str, when: &str) -> Filter {
    let when = when.to_ascii_lowercase();
    if matches!(kind.to_ascii_lowercase().as_str(), "overdue" | "late") || when == "overdue" {
        return Filter::Overdue;
    }
    match when.split_whitespace().collect::<Vec<_>>().join(" ").as_str() {
        "today" | "tonight" => Filter::Today,
        "tomorrow" => Filter::Tomorrow,
        "this week" | "the week" => Filter::Week,
        "next week" => Filter::NextWeek,
        _ => Filter::Open,
    }
}

pattern!(
    list_re,
    "list",
    format!(
        r"(?ix)^(?:
            (?:what'?s|what\s+is|whats)\s+on\s+(?:my\s+|the\s+)?(?:to[\s-]?do\s+|todo\s+|task\s+)?(?:list|plate|agenda)(?:\s+(?:for\s+)?(?P<w1>{FILTER_WORDS}))?
          | (?:i\s+(?:want|need|would\s+like|'d\s+like)\s+to\s+)?(?:show|list|give|tell|retrieve|display|view|see|check|pull\s+up|bring\s+up)(?:\s+(?:me|for\s+me))?\s+(?:all\s+)?(?:of\s+)?(?:my|the)\s+(?:open\s+|listed\s+|current\s+|upcoming\s+)?(?:tasks|todos|to[\s-]?dos|to[\s-]?do\s+list|todo\s+list|task\s+list|list|reminders|alarms|timers|notifications)(?:\s+(?:that\s+)?i(?:'ve|\s+have)\s+(?:set|got))?(?:\s+(?:for\s+|due\s+)?(?P<w2>{FILTER_WORDS}))?
          | what\s+(?:tasks|todos|to[\s-]?dos|reminders)\s+(?:do\s+i\s+have|have\s+i\s+got|are\s+(?:open|left|due))(?:\s+(?:for\s+)?(?P<w3>{FILTER_WORDS}))?
          | what(?:\s+do\s+i\s+have|\s+have\s+i\s+got|\s+do\s+i\s+need|\s+is\s+left|\s*'?s\s+left)\s+(?:to\s+do\s+)?(?:due\s+)?(?:on\s+)?(?:for\s+)?(?P<w4>{FILTER_WORDS})
          | (?:what'?s|what\s+is|whats|what\s+are|anything|is\s+(?:there\s+)?anything|are\s+there\s+any\s+tasks)\s+(?P<kind>due|left|overdue|open|late|on)(?:\s+(?:for\s+)?(?P<w5>{FILTER_WORDS}))?
          | (?:my\s+)?(?:tasks|todos|to[\s-]?do\s+list)(?:\s+(?:for\s+)?(?P<w6>{FILTER_WORDS}))?
          | (?:any|are\s+there\s+any)\s+(?:tasks|todos)\s+(?:due\s+)?(?P<w7>{FILTER_WORDS})?
          | (?:what'?s|what\s+is|whats)\s+(?:happening|going\s+on|planned|scheduled|coming\s+up)\s+(?:for\s+)?(?P<w8>{FILTER_WORDS})
          | what\s+(?:am\s+i|i\s+am|i'?m)\s+doing\s+(?P<w9>{FILTER_WORDS})
        )$"
    )
);
pattern!(
    ideas_re,
    "ideas",
    r"(?ix)^(?:
        (?:what|which)\s+ideas\s+(?:do\s+i\s+have|have\s+i\s+got|are\s+there)
      | (?:show|list|give|tell)(?:\s+me)?\s+(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+)?ideas(?:\s+list)?
      | what'?s\s+(?:on|in)\s+my\s+ideas(?:\s+list)?
      | my\s+ideas
    )$"
);
pattern!(
    schedule_re,
    "schedule",
    r"(?ix)^(?:(?:what'?s|what\s+is|whats)\s+(?:on\s+|in\s+)?|(?:show|list|give|tell)(?:\s+me)?\s+(?:all\s+)?(?:of\s+)?)
        (?:my|the)\s+(?:schedule|recurring\s+(?:reminders|tasks|entries)|repeating\s+reminders|schedule\s+entries)$"
);

/// "what's on my list?", "what's due this week?", "what ideas do I have?", "what's on my
/// schedule?"
pub(super) fn lists(t: &str) -> Option<Request> {
    if ideas_re().is_match(t) {
        return Some(Request::ListIdeas);
    }
    if schedule_re().is_match(t) {
        return Some(Request::ListSchedule);
    }
    // "what are the things i wanted to recall", "what is my plan for the day", "repeat my to do
    // list": what is set, asked for as people ask.
    if let Some(c) = kept_in_mind_re().captures(t) {
        let today = c.name("today").is_some();
        return Some(Request::ListTasks { filter: if today { Filter::Today } else { Filter::Open } });
    }
    let c = list_re().captures(t)?;
    let when = ["w1", "w2", "w3", "w4", "w5", "w6", "w7", "w8", "w9"]
        .iter()
        .find_map(|n| c.name(n))
        .map_or("", |m| m.as_str());
    Some(Request::ListTasks { filter: filter_of(&group(&c, "kind"), when) })
}

pattern!(
    kept_in_mind_re,
    "kept in mind",
    r"(?ix)^(?:
        what\s+(?:are|is|were|was)\s+(?:the\s+)?(?:things?|it)\s+(?:that\s+)?i\s+(?:wanted|needed|want|need)\s+to\s+(?:recall|remember|keep\s+in\s+mind|bear\s+in\s+mind)
      | what\s+(?:things\s+)?did\s+i\s+(?:not\s+want|want\s+not)\s+to\s+forget
      | what\s+(?:is|'s)\s+my\s+plan\s+for\s+(?P<today>the\s+day|today)
      | (?:repeat|recite|read)\s+(?:me\s+|back\s+)?my\s+(?:to[\s-]?do\s+list|list|tasks)
    )$"
);
pattern!(
    show_re,
    "show",
    r"(?ix)^(?:
        when\s+(?:is|'s|are)\s+(?P<a>.+?)\s+due
      | when'?s\s+(?P<b>.+?)\s+due
      | when\s+do\s+i\s+(?:have|need)\s+to\s+(?P<c>.+)
      | (?:show|tell)(?:\s+me)?\s+(?:about\s+)?(?P<d>.+?)\s+(?:task|reminder|to-?do)
      | (?:show|tell)(?:\s+me)?\s+(?:about\s+)?(?:the\s+)?(?:task|reminder|to-?do)\s+(?:to|about|for)\s+(?P<e>.+)
      | (?:what\s+about|details\s+(?:on|of|about))\s+(?:the\s+)?(?P<f>.+?)\s+(?:task|reminder)
      # did you put carrots on the shopping list, have i told you to add washing dishes to
      # my todo list, are carrots added to the grocery list, did carrots get on my list
      | (?:did|have)\s+(?:you|i)\s+(?:put|add|added|(?:told|tell|ask|asked)\s+you\s+to\s+(?:put|add))\s+(?P<g>.+?)\s+
        (?:on|to|in|into)\s+(?:my|the)\s+(?:(?:shopping|grocery|to[\s-]?do|todo|task)\s+)?list
      | (?:is|are|did)\s+(?P<h>.+?)\s+(?:added\s+to|get\s+on|got\s+on|on|in)\s+(?:my|the)\s+(?:(?:shopping|grocery|to[\s-]?do|todo|task)\s+)?list
      # is there a meeting with sam today, do i have a meeting with paul today, is the
      # meeting with lisa today, when is my meeting with infrastructure
      | (?:is\s+there|are\s+there|do\s+i\s+have|have\s+i\s+got|is\s+it\s+possible\s+(?:that\s+)?i\s+have)\s+(?:a|an|any)\s+
        (?P<i>(?:meeting|appointment|event|lunch|dinner|breakfast|call)s?\s+with\s+.+?)(?:\s+(?:today|tomorrow|tonight|this\s+week|next\s+week))?
      | is\s+(?:the|my)\s+(?P<j>(?:meeting|appointment|call|lunch|dinner)\s+with\s+.+?)\s+(?:today|tomorrow|tonight)
      | when\s+(?:is|'s)\s+my\s+(?P<k>.+)
      # what time is my appointment with cookie, what is my appointment with janice kang, is
      # my hair appointment this weekend, can you check if i have any appointment on saturday
      | what\s+time\s+(?:is|'s)\s+my\s+(?P<l>(?:[\w'-]+\s+)?(?:meeting|appointment|event|lunch|dinner|breakfast|call|class|lesson|date)s?\s+with\s+.+)
      | what\s+is\s+my\s+(?P<m>(?:[\w'-]+\s+)?(?:meeting|appointment|event|lunch|dinner|breakfast|call|class|lesson|date)s?\s+with\s+.+)
      | is\s+my\s+(?P<n>(?:[\w'-]+\s+){0,2}(?:meeting|appointment|event|lunch|dinner|breakfast|call|class|lesson|party))\s+
        (?:today|tomorrow|tonight|this\s+(?:week|weekend|morning|afternoon|evening)|next\s+week|on\s+\w+)
      | (?:can\s+you\s+|could\s+you\s+|please\s+)?(?:check|see|find\s+out)\s+(?:if|whether)\s+i\s+have\s+(?:a|an|any)\s+
        (?P<o>(?:[\w'-]+\s+)?(?:meeting|appointment|event|lunch|dinner|call|class|lesson|party)s?)(?:\s+(?:today|tomorrow|tonight|this\s+\w+|next\s+\w+|on\s+\w+|later))?
      | (?:do|did)\s+i\s+have\s+(?:a|an|any)\s+(?P<p>(?:[\w'-]+\s+)?(?:meeting|appointment|event|lunch|dinner|call|class|lesson|party)s?)\s+
        (?:today|tomorrow|tonight|this\s+\w+|next\s+\w+|on\s+\w+|later(?:\s+in\s+the\s+day)?(?:\s+today)?)
    )$"
);

pub(super) fn show(t: &str) -> Option<Request> {
    let c = show_re().captures(t)?;
    let words = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"]
        .iter()
        .find_map(|n| c.name(n))?
        .as_str()
        .trim()
        .to_string();
    Some(Request::Show { words, said: Said::Explicit })
}

pattern!(
    asked_when_re,
    "when is it",
    r"(?ix)^(?:
        (?:when|what\s+time|what\s+day)\s+(?:is|'s|are|was)\s+(?:the\s+|our\s+)?(?P<a>.+?)(?:\s+(?:scheduled|set|planned|booked|happening|due))?(?:\s+for)?
      | what\s+time\s+do\s+i\s+(?:have\s+(?:to\s+)?)?(?P<b>.+)
      | (?:find|look\s+up|search\s+for|locate)\s+(?:a|an|the|my)\s+(?P<c>(?:meeting|appointment|event|call|lunch|dinner)s?\s+(?:about|with|from|on|called|titled|named|for)\s+.+)
      | (?:did|have)\s+i\s+(?:ever\s+|already\s+)?(?:set|made|make|create|created|add|added|put\s+in)\s+(?:up\s+)?(?:a|an|any|the|my)\s+(?:reminder|alarm|task)s?\s+(?:to|for|about|of)\s+(?P<d>.+?)\s*\??
      | (?:i\s+(?:need|want|would\s+like)\s+to\s+)?(?:find\s+out|know|check)\s+(?:the\s+)?(?:date\s+and\s+time|time\s+and\s+date|date|time|day)\s+(?:of|for)\s+(?P<e>my\s+.+?)(?:,?\s+please)?\s*[.?!]?
    )$"
);

/// "when is lunch with frank?", "what time is the ice cream social?", "what time do i work
/// today", "did I ever set a reminder for food donations?": a question that may be about a task — said of no task, it acts only on a strong
/// match, and one that matches nothing is not routine ("when is the next full moon?").
pub(super) fn asked_when(t: &str, now: &Zoned) -> Option<Request> {
    let c = asked_when_re().captures(t)?;
    // ("did I set a reminder for my medicine?": the person's own, said of the task.)
    fn own(w: &str) -> &str {
        let w = w.trim();
        w.get(..3).filter(|h| h.eq_ignore_ascii_case("my ")).and_then(|_| w.get(3..)).map_or(w, str::trim_start)
    }
    // "did I set a reminder to reply to the jury summons?" asks of one's own reminders: said
    // plainly (a match shown, or none said so).
    let said = if c.name("d").or_else(|| c.name("e")).is_some() { Said::Explicit } else { Said::Implicit };
    let words = match c.name("d").or_else(|| c.name("e")) {
        Some(d) => own(d.as_str()),
        None => c.name("a").or_else(|| c.name("b")).or_else(|| c.name("c"))?.as_str().trim(),
    };
    // ("when is my …" is said of a task: [`show`]'s, or the learned layer's.)
    if words.to_ascii_lowercase().starts_with("my ") {
        return None;
    }
    // ("what time is the trade show this saturday": the day says when, not which.)
    let words = match when::parse(words, now) {
        Ok(Some(d)) => led_off(&d.rest),
        _ => words.to_string(),
    };
    let words = trim_words(&words);
    if cn_hub::words::content(&words).is_empty() || words.eq_ignore_ascii_case("it") {
        return None;
    }
    Some(Request::Show { words, said })
}

pattern!(
    time_of_re,
    "the time of one's own thing",
    r"(?ix)^(?:i\s+(?:need|want|would\s+like)\s+(?:you\s+)?to\s+|i'?d\s+like\s+to\s+)?(?:
        (?:on\s+)?(?:what|which)(?:\s+is|'s)?\s+(?:the\s+)?TD\s+(?:is|are|was|of|for|do\s+you\s+have\s+(?:for|on)|on)\s+(?P<a>.+?)(?:\s+(?:scheduled|set|planned|booked)(?:\s+(?:at|for|on))?)?
      | (?:tell|give|show|get|find)\s+me\s+(?:the\s+)?TD\s+(?:of|for|that|on)\s+(?P<b>.+?)(?:\s+(?:is|was))?(?:\s+(?:scheduled|set|planned|booked)(?:\s+(?:at|for|on))?)?
      | (?:find|find\s+out|look\s+up|check|know|get|see)\s+(?:the\s+)?TD\s+(?:of|for)\s+(?P<c>.+)
      | (?:tell\s+me|know|find\s+out|check|see)\s+(?:what|which)\s+TD\s+(?P<d>.+?)\s+(?:is|are)
      | (?:tell\s+me\s+|know\s+|find\s+out\s+)?when\s+(?P<e>my\s+.+?)\s+(?:is|are)
      | (?:tell\s+me\s+|know\s+|find\s+out\s+)?when\s+(?:am\s+i|i\s+am|i'm|do\s+i\s+have|i\s+have|will\s+i\s+be|i\s+will\s+be|is\s+my\s+next)\s+(?P<f>.+)
      | (?:(?:on\s+)?(?:what|which)\s+TD|when|what\s+time)(?:\s+(?:is\s+it|it\s+is))?\s+(?:that\s+)?(?:should|do|must|shall)\s+i\s+(?:be\s+)?(?:need\s+to\s+|have\s+to\s+)?(?P<g>(?:take|taking|get|getting)\s+.+?)(?:\s+next)?
      | (?:show|tell)\s+me\s+(?:what|which)\s+TD\s+i\s+(?:(?:need|have)\s+to\s+(?P<h>(?:take|get)\s+.+)|(?:scheduled|set|booked|planned|made)\s+(?P<k>.+))
      | (?:what|which)(?:\s+is|'s)?\s+(?:the\s+)?TD\s+(?:that\s+)?i\s+(?:should|must|need\s+to|have\s+to)\s+(?P<l>(?:take|get)\s+.+)
      | when\s+(?:is|are)\s+the\s+TD\s+(?:of|for)\s+(?P<m>.+)
      | (?P<i>[\w'-]+(?:\s+[\w'-]+)?),?\s+(?:what|which)\s+TD
      | check\s+(?P<j>[\w'-]+(?:\s+[\w'-]+)?)\s+(?:date|time|day)
    )$"
    .replace("TD", r"(?:date|time|day)(?:,?\s+(?:and\s+)?(?:date|time|day))?")
);

/// "What is the date and time of my next yoga activity?", "What day and time is tennis?",
/// "tell me when i have yoga class", "when should i take my medicine next", "Dinner, what
/// time and date?": the time of a thing asked — said of one's own ("my …"), it is shown or
/// said to match none; said of no one's, it acts only on a strong match, and one that matches
/// nothing is not routine ("what is the date of the next full moon").
pub(super) fn time_of(t: &str, now: &Zoned) -> Option<Request> {
    let c = time_of_re().captures(t)?;
    let words = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"]
        .iter()
        .find_map(|n| c.name(n))?
        .as_str()
        .trim();
    pattern!(
        which_re,
        "which of one's things",
        r"(?i)^(?:(?:my|the|our|your|today's|tonight's|tomorrow's|this|that)\s+)*(?:(?:next|soonest|upcoming|coming|following|first)\s+)?"
    );
    let own = ["my ", "today's ", "tomorrow's "].iter().any(|m| words.to_ascii_lowercase().starts_with(m));
    let words = which_re().replace(words, "").trim().to_string();
    // ("the time of today's football game": the day says when, not which.)
    let words = match when::parse(&words, now) {
        Ok(Some(d)) if !d.rest.trim().is_empty() => led_off(&d.rest),
        _ => words,
    };
    let words = trim_words(&words);
    let content = cn_hub::words::content(&words);
    // (A question's own words are no thing: "what time is it", "what day is today".)
    if content.is_empty()
        || content.iter().all(|w| matches!(w.as_str(), "it" | "today" | "now" | "calendar" | "schedule"))
    {
        return None;
    }
    Some(Request::Show { words, said: if own { Said::Explicit } else { Said::Implicit } })
}

pattern!(
    unschedule_re,
    "unschedule",
    r"(?ix)^(?:
        stop\s+reminding\s+me\s+(?:to|about)\s+(?P<a>.+?)(?:\s+every\s+\w+(?:\s+\w+)?|\s+(?:daily|weekly|monthly))?
      | (?:remove|delete|cancel|stop|drop|take)\s+(?P<b>.+?)\s+(?:from|off|out\s+of)\s+(?:my|the)\s+schedule
      | (?:remove|delete|cancel|stop|drop)\s+(?:the\s+|my\s+)?(?:schedule(?:d)?\s+(?:entry|item|reminder)|recurring\s+(?:reminder|task)|repeating\s+reminder)\s+(?:for\s+|to\s+|about\s+|called\s+)?(?P<c>.+)
      | (?:remove|delete|cancel|stop|drop)\s+(?P<d>.+?)\s+(?:schedule|recurring\s+reminder|repeating\s+reminder)
    )$"
);

pub(super) fn unschedule(t: &str) -> Option<Request> {
    let c = unschedule_re().captures(t)?;
    let words = ["a", "b", "c", "d"].iter().find_map(|n| c.name(n))?.as_str().trim().to_string();
    Some(Request::Unschedule { words })
}

pattern!(
    idea_re,
    "idea",
    r"(?ix)^(?:
        (?:(?:new|an|random|quick|another|crazy|wild|side\s+project|business|app)\s+)*idea\s*(?:for\s+(?:later|someday))?\s*[:\-–]\s*(?P<a>.+)
      | i\s+(?:have|had|'ve\s+got|got|just\s+had)\s+(?:an?\s+)?(?:new\s+|great\s+|random\s+)?idea(?:\s*[:\-–,]\s*|\s+for\s+|\s+about\s+|\s+to\s+|\s+)(?P<b>.+)
      | i'?ve\s+(?:got\s+|had\s+)?(?:an?\s+)?idea(?:\s*[:\-–,]\s*|\s+for\s+|\s+about\s+|\s+to\s+|\s+)(?P<c>.+)
      | (?:someday|some\s+day|one\s+day|maybe\s+(?:someday|one\s+day))(?:\s*[:\-–]\s*|[\s,]+)(?:i'?d\s+(?:like|love)\s+to|i\s+(?:want|would\s+like|would\s+love|hope)\s+to|i\s+(?:could|should|might|will)|we\s+(?:could|should|might)|let'?s|maybe)?\s*(?P<d>.+)
      | (?:save|note|keep|jot\s+down|write\s+down|log)\s+(?:this\s+)?(?:down\s+)?(?:as\s+)?(?:an?\s+)?idea\s*[:\-–]?\s*(?P<e>.+)
      | (?:add|put)\s+(?P<f>.+?)\s+(?:to|on)\s+(?:my\s+)?ideas(?:\s+list)?
    )$"
);

pub(super) fn idea(t: &str) -> Option<Request> {
    let c = idea_re().captures(t)?;
    let idea = unquote(["a", "b", "c", "d", "e", "f"].iter().find_map(|n| c.name(n))?.as_str());
    (!idea.is_empty()).then_some(Request::AddIdea { idea })
}

pattern!(
    drop_idea_re,
    "drop idea",
    r"(?ix)^(?:
        (?:drop|forget|scrap|delete|remove|ditch|bin|discard|kill)\s+(?:about\s+)?(?:the\s+|my\s+)?idea\s*(?:about|of|for|to|:|-)?\s*(?P<a>.+)
      | (?:drop|forget|scrap|delete|remove|ditch|bin|discard|kill)\s+(?:about\s+)?(?:the\s+|my\s+)?(?P<b>.+?)\s+idea
      | (?:remove|delete|drop|take)\s+(?P<c>.+?)\s+(?:from|off)\s+(?:my\s+)?ideas(?:\s+list)?
    )$"
);

pub(super) fn drop_idea(t: &str) -> Option<Request> {
    let c = drop_idea_re().captures(t)?;
    let words = ["a", "b", "c"].iter().find_map(|n| c.name(n))?.as_str().trim().to_string();
    Some(Request::DropIdea { words })
}

pattern!(
    complete_re,
    "complete",
    r"(?ix)^(?:
        (?:mark|tick|check|cross)\s+(?:off\s+)?(?P<a>.+?)\s+(?:as\s+)?(?:done|complete|completed|finished)
      | (?:tick|check|cross)\s+off\s+(?P<b>.+)
      | (?:tick|check|cross)\s+(?P<c>.+?)\s+off
      | (?:i'?m\s+|i\s+am\s+)?(?:done|finished|through)\s+with\s+(?P<d>.+)
      | (?:i\s+(?:have\s+|just\s+|'ve\s+)?|i'?ve\s+|just\s+)?(?:just\s+)?(?:finished|completed)\s+(?P<e>.+)
      | (?P<f>.+?)\s+(?:is|are|'s|has\s+been|have\s+been)\s+(?:now\s+)?(?:all\s+)?(?:done|finished|complete|completed|sorted|paid|booked|sent|picked\s+up|handled|taken\s+care\s+of|fixed|renewed)
      | (?P<g>.+?)\s*[—–-]+\s*(?:done|finished|completed)
    )$"
);

pub(super) fn complete(t: &str) -> Option<Request> {
    let c = complete_re().captures(t)?;
    let words = ["a", "b", "c", "d", "e", "f", "g"].iter().find_map(|n| c.name(n))?.as_str().trim().to_string();
    Some(Request::Complete { words, said: Said::Explicit })
}

pattern!(
    done_statement_re,
    "done statement",
    r"(?ix)^(?:i(?:\s+have|\s*['’]?ve)?\s+(?:just\s+|already\s+|finally\s+)?|just\s+|already\s+|finally\s+)?
        (?P<v>[a-z]+ed|paid|bought|sent|made|took|taken|got|gotten|did|done|wrote|written|rang|rung|gave|given|found|brought|sold|told|met|spoke|spoken|fed|kept|built|spent)\s+(?P<w>.+)$"
);

/// "I called the plumber": done, if it names an open task strongly (else not routine).
pub(super) fn statement_done(t: &str) -> Option<Result<Request, WhenError>> {
    let c = done_statement_re().captures(t)?;
    let verb = group(&c, "v");
    if ["need", "wanted", "asked", "wondered", "used", "supposed"].contains(&verb.to_ascii_lowercase().as_str()) {
        return None;
    }
    // "did I set my alarm for tonight": a question, not a statement.
    let asks = group(&c, "w")
        .split_whitespace()
        .next()
        .is_some_and(|w| ["i", "you", "we"].contains(&w.to_ascii_lowercase().as_str()));
    if verb.eq_ignore_ascii_case("did") && asks {
        return None;
    }
    Some(Ok(Request::Complete { words: format!("{verb} {}", group(&c, "w")), said: Said::Implicit }))
}

pattern!(
    cancel_re,
    "cancel",
    r"(?ix)^(?:
        (?:cancel|delete|remove|drop|scrap|ditch|bin|forget(?:\s+about)?|never\s*mind(?:\s+about)?|nvm|stop|kill|skip|erase|toss(?:\s+out)?|throw\s+(?:out|away)|trash|get\s+rid\s+of)\s+(?P<a>.+?)(?:\s+(?:from|off)\s+(?:my|the)\s+(?:list|tasks|todos?|to[\s-]?do\s+list|todo\s+list|task\s+list|reminders))?
      | take\s+(?P<b>.+?)\s+off\s+(?:my|the)\s+(?:list|tasks|todos?|to[\s-]?do\s+list|todo\s+list|task\s+list|reminders)
      | (?:deactivate|disable|turn\s+off|switch\s+off|shut\s+off)\s+(?P<f>(?:(?:the|my|this|that)\s+)?(?:[\w'-]+\s+){0,3}?(?:alarm|timer|reminder))
      | (?:turn|switch|shut)\s+(?P<g>(?:(?:the|my|this|that)\s+)?(?:[\w'-]+\s+){0,3}?(?:alarm|timer|reminder))\s+off
      | (?:i\s+)?(?:don'?t|do\s+not|no\s+longer)\s+(?:need|have)\s+to\s+(?P<c>.+?)(?:\s+any\s*more|\s+after\s+all)?
      | no\s+need\s+to\s+(?P<d>.+?)(?:\s+any\s*more|\s+after\s+all)?
      | (?P<e>.+?)\s+(?:is|are)\s+(?:cancelled|canceled|off|not\s+needed)(?:\s+any\s*more)?
    )$"
);

/// The words of talk itself: "stop talking", "never mind that", "forget it" name no task.
const CHATTER: &[&str] = &[
    "talk",
    "talking",
    "messag",
    "messaging",
    "text",
    "texting",
    "repli",
    "reply",
    "replying",
    "answer",
    "answering",
    "bother",
    "bothering",
    "spam",
    "spamming",
    "ask",
    "asking",
    "chat",
    "chatting",
    "question",
    "now",
    "already",
    "us",
    "quiet",
    "nois",
    "ping",
    "pinging",
    "writ",
    "writing",
    "send",
    "sending",
];

pattern!(
    none_on_re,
    "no alarms on a day",
    r"(?i)^(?:no\s+(?:more\s+)?|(?:do\s+not|don'?t)\s+(?:set|ring|sound)\s+(?:my\s+|the\s+|an?\s+|any\s+)?|turn\s+(?:my\s+|the\s+|all\s+(?:my\s+|the\s+)?)?)(?P<d>alarms?)(?:\s+off)?\s+(?P<w>(?:for|on|this|tomorrow|today|tonight)\b.*)$"
);

pub(super) fn cancel(t: &str) -> Option<Request> {
    // "no more alarms for today", "don't set my alarm this friday", "turn alarms off on
    // sunday": the alarms due that day (never "no reminders tomorrow": tasks are not muted).
    if let Some(c) = none_on_re().captures(t) {
        return Some(Request::Cancel { words: format!("{} {}", group(&c, "d"), group(&c, "w")), said: Said::Explicit });
    }
    let c = cancel_re().captures(t)?;
    // "turn off my daily alarm": a repeat turned off is not said plainly enough to drop an entry
    // of the schedule (the daily reflection is one) — only an alarm, timer or reminder filed once.
    let turned_off = c.name("f").or_else(|| c.name("g"));
    if turned_off.is_some_and(|m| {
        let w = m.as_str().to_ascii_lowercase();
        ["daily", "weekly", "monthly", "weekday", "recurring", "repeating", "every", "each"]
            .iter()
            .any(|r| w.split_whitespace().any(|x| x == *r))
    }) {
        return None;
    }
    let words = ["a", "b", "c", "d", "e", "f", "g"].iter().find_map(|n| c.name(n))?.as_str().trim().to_string();
    let said = said_of(&words, t);
    let content = cn_hub::words::content(&words);
    // "cancel that", "forget it": the words name nothing (a pending question would).
    if content.is_empty() {
        return None;
    }
    // "stop talking", "never mind the questions": said to the agent, of the talk, not of a
    // task — unless the person says it is a task ("stop the talking task").
    if said == Said::Implicit && content.iter().all(|w| CHATTER.contains(&w.as_str())) {
        return None;
    }
    Some(Request::Cancel { said, words })
}

pattern!(
    instead_re,
    "instead of",
    r"(?i)^(?:(?:please\s+)?(?:remind|tell)\s+me\s+(?:about|of|to)\s+|(?:have|make|set|put)\s+)?(?P<w>.+?)\s+(?:on|at|for)\s+(?P<to>[^,]+?)\s+instead\s+of\s+(?:on\s+|at\s+)?(?P<was>.+)$"
);
pattern!(
    day_at_end_re,
    "a day at the end",
    r"(?i)\s+(?P<day>tonight|today|tomorrow|this\s+(?:morning|afternoon|evening)|(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day)$"
);

/// "remind me about the smith wedding on thursday instead of friday": the item due at the time
/// it had, moved to the one said — both a day or a time and nothing more.
pub(super) fn instead(t: &str, now: &Zoned) -> Option<Result<Request, WhenError>> {
    let c = instead_re().captures(t)?;
    let (mut w, mut to, was) = (group(&c, "w"), group(&c, "to"), group(&c, "was"));
    // "do my chores tonight at 6 PM instead of tomorrow at noon": the day goes with the time.
    if let Some(d) = day_at_end_re().captures(&w).and_then(|d| d.get(0)) {
        to = format!("{} at {to}", d.as_str().trim());
        w.truncate(d.start());
    }
    if !matches!(target_at(&was, now), Ok(Some(_))) || cn_hub::words::content(&w).is_empty() {
        return None;
    }
    Some(match target_at(&to, now) {
        Ok(Some(due)) => {
            // "at 7 instead of 8": the bare hour it had is a time.
            let at = if was.starts_with(|c: char| c.is_ascii_digit()) { " at" } else { "" };
            Ok(Request::Move { words: format!("{w}{at} {was}"), to: Target::At(due), said: Said::Explicit })
        }
        Ok(None) => return None,
        Err(e) => Err(e),
    })
}

pattern!(
    move_re,
    "move",
    r"(?i)^(?P<v>move|push\s+back|push|postpone|reschedule|delay|snooze|defer|shift|bump|put\s+off|change|reset|update|modify|edit|switch|adjust)\s+(?P<rest>.+)$"
);
pattern!(from_to_re, "from … to …", r"(?i)^(?P<w>.+?)\s+from\s+(?P<from>.+?)\s+to\s+(?P<to>.+)$");

pub(super) fn move_(t: &str, now: &Zoned) -> Option<Result<Request, WhenError>> {
    let c = move_re().captures(t)?;
    let verb = group(&c, "v").to_ascii_lowercase();
    let rest = group(&c, "rest");
    // "change the time for 9 am class to 11 am", "update the time of the softball game to …":
    // the item's time is what moves.
    let (rest, of_item) = match rest.get(..13).map(str::to_ascii_lowercase).as_deref() {
        Some("the time for " | "the time of ") => (rest.get(13..).unwrap_or_default().to_string(), true),
        _ => (rest, false),
    };
    // "switch on alarm for 10pm": an alarm set, not one moved.
    if verb == "switch" && rest.to_ascii_lowercase().starts_with("on ") {
        return None;
    }
    // "change", "update", "reset" … move an item only to a time said ("change my morning
    // alarm to 7 am"); without one they are not a move ("update the shopping list").
    let changes = ["change", "reset", "update", "modify", "edit", "switch", "adjust"].contains(&verb.as_str());
    // "from 5pm to 6pm": the item is the one at the first time, moved to the second.
    if let Some(f) = from_to_re().captures(&rest) {
        let (w, from, to) = (group(&f, "w"), group(&f, "from"), group(&f, "to"));
        if matches!(when::parse(&from, now), Ok(Some(_))) {
            return match target_at(&to, now) {
                Ok(Some(due)) if trim_words(&due.rest).is_empty() => {
                    let words = trim_words(&format!("{w} at {from}"));
                    Some(Ok(Request::Move { said: said_of(&words, t), words, to: Target::At(due) }))
                }
                Ok(_) => None,
                Err(e) => Some(Err(e)),
            };
        }
    }
    // "change my thursday 7 AM reminder to 9AM": the time after the last "to" is where it
    // goes; any time before it names the item.
    // "change my Monday 3am alarm for 4pm" says it with "for".
    let split = rest.rsplit_once(" to ").or_else(|| rest.rsplit_once(" for ").filter(|_| changes));
    if let Some((w, to)) = split {
        // "switch the alarm to 6 instead of 7": the time it had names it.
        let (to, was) = match to.split_once(" instead of ") {
            Some((to, was)) if matches!(target_at(was, now), Ok(Some(_))) => (to, Some(was)),
            _ => (to, None),
        };
        // "change my 5pm alarm to 5:30 pm for today instead": "instead" says no more.
        let to = to.strip_suffix(" instead").or_else(|| to.strip_suffix(" Instead")).unwrap_or(to);
        if let Ok(Some(due)) = target_at(to, now) {
            let words = trim_words(&was.map_or_else(|| w.to_string(), |was| format!("{w} at {was}")));
            if !words.is_empty() && (!changes || of_item || said_of(&words, t) == Said::Explicit) {
                let said = if of_item { Said::Explicit } else { said_of(&words, t) };
                return Some(Ok(Request::Move { said, words, to: Target::At(due) }));
            }
        }
    }
    if changes {
        // "change my reminder to 6pm" names a task and a time; "change it to blue" neither.
        let Ok(Some(due)) = when::parse(&rest, now) else { return None };
        let words = trim_words(&due.rest);
        if words.is_empty() || said_of(&words, t) != Said::Explicit {
            return None;
        }
        return Some(Ok(Request::Move { said: Said::Explicit, words, to: Target::At(due) }));
    }
    let (words, to) = if let Some(s) = when::shift(&rest) {
        (s.rest, Target::By(s.span))
    } else {
        match when::parse(&rest, now) {
            Ok(Some(due)) => (due.rest.clone(), Target::At(due)),
            Ok(None) if verb == "snooze" => (rest.clone(), Target::Later),
            Ok(None) => (rest.clone(), Target::Unsaid),
            Err(e) => return Some(Err(e)),
        }
    };
    let words = trim_words(&words);
    if words.is_empty() {
        return None;
    }
    Some(Ok(Request::Move { said: said_of(&words, t), words, to }))
}

/// The time a move goes to, when `to` is that and nothing else ("friday", "9AM", and a bare
/// hour after a time before it: "from 5 to 6"). `Ok(None)` when it is more or less than a time.
fn target_at(to: &str, now: &Zoned) -> Result<Option<when::Due>, WhenError> {
    for said in [format!("to {to}"), format!("at {to}")] {
        match when::parse(&said, now) {
            Ok(Some(due)) if trim_words(&due.rest).is_empty() => return Ok(Some(due)),
            Ok(_) | Err(_) if said.starts_with("to ") => continue,
            other => return other.map(|d| d.filter(|d| trim_words(&d.rest).is_empty())),
        }
    }
    Ok(None)
}

/// Drop prepositions left at either end of the words naming a task ("the plumber to").
/// `words` without what led to a time taken from them ("after", "before", "around", "from …
/// onward") or asked after it ("… can you remind me").
fn led_off(words: &str) -> String {
    pattern!(
        led_re,
        "led to a time",
        r"(?i)(?:\s+(?:after|before|around|from\s+onwards?|onwards?)|[\s,]+(?:(?:can|could|would|will)\s+you\s+|please\s+)?remind\s+me(?:\s+please)?)\s*[.!?]*\s*$"
    );
    match led_re().find(words) {
        Some(m) if m.start() > 0 => words[..m.start()].trim_end().to_string(),
        _ => words.to_string(),
    }
}

pub(crate) fn trim_words(words: &str) -> String {
    // "my reminder for this evening changed (to 9pm)": the change's own word goes too.
    const LOOSE: &[&str] = &[
        "to",
        "until",
        "till",
        "for",
        "by",
        "on",
        "at",
        "back",
        "off",
        "from",
        "and",
        "changed",
        "moved",
        "updated",
        "rescheduled",
        "pushed",
        "switched",
        "shifted",
    ];
    let mut w: Vec<&str> = words.split_whitespace().collect();
    while w.last().is_some_and(|l| LOOSE.contains(&l.to_ascii_lowercase().as_str())) {
        w.pop();
    }
    w.join(" ")
}

pattern!(
    every_action_re,
    "every action",
    r"(?i)^(?:(?:(?:set|create|make|add)\s+(?:an?\s+)?(?:alarm|timer|reminder)\s+to\s+)?remind\s+me\s+(?:to|about|that|of)\s+|set\s+(?:up\s+)?(?:a\s+)?reminder(?:\s+for\s+me)?(?:\s+(?:to|for)\s+(?:for\s+)?|\s*:\s*|\s+)|(?:add|create|make)\s+(?:a\s+|an\s+)?reminder(?:\s+for\s+me)?\s+(?:to|for|about)\s+|(?:add|create)\s+a\s+(?:task|reminder)\s+(?:to\s+)?|(?:i\s+)?(?:need\s+to|have\s+to|must|should)\s+)?(?P<what>.+)$"
);
pattern!(
    not_an_action_re,
    "not an action",
    r"(?i)^(?:what|when|where|why|how|who|which|is|are|do|does|did|can|could|would|will|should|you|i|send\s+me|give\s+me|tell\s+me|show\s+me|look\s+up|find|search|please\s+(?:cancel|delete|remove|stop)|remind|cancel|delete|remove|stop|drop|scrap|forget|never\s*mind|move|push|postpone|reschedule|snooze|delay|mark|tick|done|finished)\b"
);
pattern!(
    reminding_re,
    "reminding",
    r"(?i)^(?:every\b|each\b|on\s+the\s+\d|remind\s+me\b|set\s+(?:a\s+)?reminder\b|(?:add|create)\s+a\s+(?:task|reminder)\b)"
);

pattern!(
    alarm_re,
    "alarm",
    r"(?i)^(?:set\s+|make\s+|create\s+|add\s+)?(?:an?\s+|the\s+|my\s+)?(?:alarm|wake[\s-]?up\s+call)\s+(?:for|at|to)$"
);

/// "every Monday at 9am remind me to water the plants": a schedule entry.
pub(super) fn every(t: &str, now: &Zoned) -> Option<Result<Request, WhenError>> {
    // "Change my daily morning alarm to 7 am": a change to one there is, not a new one.
    if move_re().is_match(t) || learned::changes_existing(t) {
        return None;
    }
    // "hourly forecast", "weekly report": a thing named by how often it comes, not a request
    // to schedule one.
    if adjectival_re().is_match(t) {
        return None;
    }
    // "set an alarm for 7 every day": an alarm's bare hour is the clock it repeats at.
    let clocked = learned::device_said(t)
        .then(|| learned::bare_hour(t))
        .flatten()
        .filter(|b| matches!(when::every(b, now), Ok(Some(e)) if !e.time_unsaid()));
    let t = clocked.as_deref().unwrap_or(t);
    let found = match when::every(t, now) {
        Ok(Some(e)) => e,
        Ok(None) => return None,
        Err(e) => {
            // An "every …" the routine cannot keep, in a request to be reminded: asked about.
            return reminding_re().is_match(t).then_some(Err(e));
        }
    };
    let c = every_action_re().captures(&found.rest)?;
    // "pay my Kohl's credit card by the 30th of every month": no "by" left over.
    let mut action = trim_words(&unquote(&group(&c, "what")));
    // "set an alarm for 6am every day": the alarm is what repeats.
    if alarm_re().is_match(&action) {
        action = "Alarm".into();
    }
    // "Set a daily alarm for lunch": an alarm that repeats needs the time it goes off at, and
    // is named by what is left ("lunch"), else it is the alarm.
    if learned::device_said(&action) && !t.to_ascii_lowercase().contains("remind") {
        if found.time_unsaid() {
            return Some(Err(WhenError::Unreadable { phrase: found.phrase, why: "at what time?".into() }));
        }
        if let Some(label) = learned::device_label(&action) {
            action = label;
        }
    }
    // "Set the alarm to 8 a.m. for Saturday and Sunday mornings": the words left only ask.
    // ("remind me to set the alarm" is a reminder to do it.)
    if learned::device_said(&action)
        && !t.to_ascii_lowercase().contains("remind")
        && learned::only_asking(&action.to_ascii_lowercase().replace("alarm", " "))
    {
        action = "Alarm".into();
    }
    if action.is_empty() || not_an_action_re().is_match(&action) {
        return None;
    }
    Some(Ok(Request::AddEvery { action, every: found }))
}

pattern!(
    add_re,
    "add",
    r"(?ix)^(?:
        (?:remind\s+me|set\s+(?:up\s+)?(?:a\s+|me\s+a\s+)?reminder|(?:make|create|add)\s+a\s+reminder)(?:\s+for\s+me\b)?\s*(?:(?P<lead>(?:at|in|on|by|tomorrow|tonight|today|next|this|before|until)\b.*?)\s+)?(?:(?:to|about|that|of|for)\b|:)\s*(?P<a>.+)
      | reminder\s*(?:[:\-–]|to\b)\s*(?P<b>.+)
      | (?:add|ad|create|make|log|open|new|put)\s+(?:a\s+|an\s+|the\s+|new\s+|another\s+)*(?:task|todo|to-do|item|action\s+item)s?(?:\s*[:\-–]\s*|\s+(?:to|for|that\s+says|saying)\s+|\s+)(?P<c>.+)
      | (?:to[\s-]?do|todo|task|action\s+item)\s*[:\-–]\s*(?P<d>.+)
      | (?:add|put|stick|pop)\s+(?P<e>.+?)\s+(?:to|on|onto)\s+(?:my\s+|the\s+)?(?:to[\s-]?do\s+|todo\s+|task\s+|(?:grocery\s+|groceries\s+)?shopping\s+|grocery\s+|groceries\s+)?(?:list|todos|tasks|reminders)\b(?P<tail>.*)
      | note\s+to\s+self\s*[:\-–,]?\s*(?P<f>.+)
      | (?:don'?t|do\s+not)\s+let\s+me\s+forget\s+(?:to\s+|about\s+)?(?P<g>.+)
      | (?:don'?t|do\s+not)\s+forget\s*(?:[:\-–,]\s*|\s+(?:to|about)\s+)(?P<k>.+)
      | make\s+sure\s+i\s+(?:remember\s+to\s+)?(?P<h>.+)
      | (?:please\s+)?remember\s+to\s+(?P<n>.+)
      | (?:add|put|note)\s+(?P<j>[\x22“].+)
      | (?:add|put)\s+(?P<m>[^:\x22“]+?\s+(?:at|on|by|tomorrow|today|tonight|this|next)\s+.+)
      | tell\s+me\s+to\s+(?P<o>.+)
    )$"
);
pattern!(
    need_re,
    "need",
    r"(?ix)^(?:i\s+|i'?ve\s+|i'?d\s+)?(?:really\s+)?(?:need\s+to|have\s+to|must|should|ought\s+to|gotta|got\s+to|have\s+got\s+to|'?d\s+better|better)\s+(?P<i>.+)$"
);
pattern!(question_re, "question", r"(?i)^(?:i|we|you|it|there)\b");
pattern!(
    messages_re,
    "a message to send",
    r"(?i)^(?:message|text|msg|dm|whatsapp|send\s+(?:\w+\s+){0,3}(?:an?\s+)?(?:message|text|sms|dm|note))\b"
);
pattern!(
    adjectival_re,
    "how often, as an adjective",
    r"(?i)^(?:(?:the|my|a|an|your)\s+)?(?:hourly|daily|weekly|monthly|nightly|yearly|annual)\s+[a-z'-]+(?:\s+[a-z'-]+)?$"
);
pattern!(every_word_re, "every", r"(?i)\b(?:every|each)\s+\S+(?:\s+\S+)?");
pattern!(
    several_devices_re,
    "several alarms",
    r"(?i)^(?:(?:\d+|two|three|four|five|several|some|multiple|a\s+few|a\s+couple\s+of)\s+)?(?:new\s+)?(?:alarms|timers|reminders)\b"
);
pattern!(
    filing_re,
    "filing",
    r"(?i)^(?:set|add|create|make|put|schedule)\s+(?:up\s+|me\s+)?(?:a|an|another|one|new|the|my|some)\b"
);
pattern!(
    asks_within_re,
    "a question within",
    r"(?i)\b(?:do\s+you\s+think|what\s+do\s+you|will\s+i|would\s+i|can\s+i|could\s+i|should\s+i|am\s+i|is\s+it|is\s+there|are\s+there|how\s+(?:long|much|many|far)|what\s+time)\b|\?"
);
pattern!(
    not_a_task_re,
    "not a task",
    r"(?i)^(?:know|understand|figure\s+out|find\s+out|ask\s+you|tell\s+you|talk\s+to\s+you|decide|think|be\s|get\s+back\s+to\s+you|check\s+with\s+you)\b"
);

/// A task to file: "remind me to …", "add a task: …", "todo: …", "add … to my list", "note
/// to self: …", "remember to …", "I need to … by Friday".
pub(super) fn add(t: &str, now: &Zoned, frames: &Regex) -> Option<Result<Request, WhenError>> {
    let c = frames.captures(t)?;
    // "add Cleaning at 3:45 pm": a bare "add" files only with its time.
    // ("tell me to sleep at 10pm" is a reminder only with its time, too.)
    let bare = c.name("m").is_some() || c.name("o").is_some();
    let (what, indirect) =
        match ["a", "b", "c", "d", "e", "f", "g", "h", "j", "k", "m", "n", "o"].iter().find_map(|n| c.name(n)) {
            Some(m) => (m.as_str(), false),
            None => (c.name("i")?.as_str(), true),
        };
    // "should the boys wear shorts or pants today": a question without its mark, not a need.
    if indirect
        && t.split_whitespace().next().is_some_and(|w| ["should", "must"].contains(&w.to_ascii_lowercase().as_str()))
    {
        return None;
    }
    // "Should I have an umbrella today": a question, not a need.
    if indirect && (not_a_task_re().is_match(what) || question_re().is_match(what) || asks_within_re().is_match(what)) {
        return None;
    }
    // "i need to schedule meeting room for monday at 2:30 pm": booking with others, the
    // executive's.
    if indirect && learned::booked(what) {
        return None;
    }
    // "I need to message Andy about the game tonight", "I have to text Sarah at 5": a message
    // to send (the executive's), not a task to keep — unless a reminder is asked for.
    if indirect && messages_re().is_match(what) {
        return None;
    }
    // "I need to set a reminder for …", "I need to add another one for 16:15": a request to
    // file, not a need to keep; read as one.
    // ("i need to set a reminder to call lisa for her birthday" names what to remind of: read
    // as the filing it asks for.)
    if indirect && filing_re().is_match(what) {
        return if reminder_to_re().is_match(what) { add(what.trim(), now, add_re()) } else { None };
    }
    // "remind me about the dentist on Wednesday instead of Thursday": a change, not a filing.
    if learned::changes_existing(t) {
        return None;
    }
    // "remind me of the address for my workplace": with no time, a question about something.
    let of = t.get(..13).is_some_and(|h| h.eq_ignore_ascii_case("remind me of "));
    let text = format!("{} {} {}", group(&c, "lead"), what, group(&c, "tail"));
    let (task, due) = match when::parse(text.trim(), now) {
        // "an email about tomorrow's meeting": the day names the meeting, not when.
        Ok(Some(due)) if learned::possessive_day(text.trim(), &due.phrase) => (text.trim().to_string(), None),
        // "eat my food after 7 pm": the word that led to the time goes with it.
        Ok(Some(due)) => (led_off(&due.rest), Some(due)),
        Ok(None) => (text.trim().to_string(), None),
        Err(e) => return Some(Err(e)),
    };
    // A need without a time ("I need to cancel my reservation", "I need to replace a card")
    // is as often a request for the executive to do it as a task to keep: only a need with
    // its time is filed (issue 41: outsiders' requests, where it was a wrong effect).
    if (indirect || of || bare) && due.is_none() {
        return None;
    }
    let task = unquote(&task);
    // "remind me to send Cindy a text later": "later" says no time of its own.
    let task = match task.rsplit_once(' ') {
        Some((head, "later" | "Later")) if !cn_hub::words::content(head).is_empty() => head.trim().to_string(),
        _ => task,
    };
    // "set a reminder for 11:35 am tomorrow for the lunch date": the time cut from the front
    // leaves the word that led to what.
    let task = match task.split_once(' ') {
        Some((lead, rest))
            if ["for", "about"].contains(&lead.to_ascii_lowercase().as_str())
                && !what.trim_start().to_ascii_lowercase().starts_with(&format!("{} ", lead.to_ascii_lowercase())) =>
        {
            rest.trim().to_string()
        }
        _ => task,
    };
    // "remind me about it": the words name nothing of their own (a thread's context would).
    if cn_hub::words::content(&task).is_empty() {
        return None;
    }
    // "Add 2 alarms on the 5th": several, not said when each goes off — not one task.
    if several_devices_re().is_match(&task) {
        return None;
    }
    Some(Ok(Request::AddTask { task, due }))
}

// "create baseball game on saturday at 2", "schedule a firing meeting tomorrow morning",
// "Would you please set up a lunch meeting with Jerri Skinner for Fri.": an event put on the
// calendar — a task due when it starts.
pattern!(
    event_re,
    "event",
    r"(?ix)^(?:(?:hi|hey|hello|ok|okay)[,!.]?\s+)?(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?
        (?:
          (?:(?:i\s+(?:want|need|would\s+like)|i['’]d\s+like)\s+(?:you\s+)?to\s+)?(?:let'?s\s+)?
          (?P<verb>create|make|add|set\s+up|set|schedule|plan|put\s+in)\s+(?:me\s+)?(?:up\s+)?
        | (?P<want>i\s+(?:want|need|would\s+like)|i['’]d\s+like)\s+
        | (?P<have>i\s+have|i['’]ve\s+got|i\s+have\s+got)\s+
        )(?P<what>.+?)\s*[.!?]?$"
);
pattern!(
    wanted_re,
    "a meeting wanted",
    r"(?i)\b(?:meeting|appointment|lunch|dinner|breakfast|brunch|date|session|interview|check-?up|coffee|nap|workout)s?\b"
);
pattern!(
    event_word_re,
    "event word",
    r"(?i)\b(?:event|meeting|game|session|party|night|lunch|dinner|breakfast|brunch|date|class|practice|rehearsal|workout|match|concert|trip|visit|coffee|drinks|nap|reception|interview|conference|exam|test|check-?up|vacation|holiday)s?\b"
);
// What is made or arranged, not put on one's own calendar: a call, a playlist, a ride (booking
// a room, a table or tickets is [`learned::booked`]).
pattern!(
    not_an_event_re,
    "not an event",
    r"(?i)\b(?:playlists?|lists?|rooms?|calls?|sure|hotels?|rides?|taxis?|ubers?|cabs?|appointments?|reminders?|alarms?|timers?|tasks?|notes?|payments?|transfers?)\b|\?"
);
pattern!(
    event_lead_re,
    "event lead",
    r"(?i)^(?:(?:an?|the|my|another|new|all[\s-]+day)\s+)*(?:(?:calendar\s+)?event\s+(?:to|called|named|titled|for)\s+|(?:calendar\s+)?event\s*:\s*)?"
);
pattern!(
    event_tail_re,
    "event tail",
    r"(?i)\s+(?:(?:on|to|in|into)\s+(?:my|the)\s+(?:calendar|schedule|agenda|diary))\s*$"
);

pattern!(reminder_to_re, "reminder to", r"(?i)\b(?:reminder|remind\s+me)\s+to\s+\w");

/// What a calendar entry typed alone is named by ("meeting with ben tomorrow at noon").
const BARE_EVENTS: &[&str] = &[
    "meeting",
    "appointment",
    "appt",
    "lunch",
    "dinner",
    "breakfast",
    "brunch",
    "interview",
    "class",
    "practice",
    "rehearsal",
    "drinks",
    "coffee",
];

/// A calendar entry typed alone, with its time and no verb ("meeting with ben randie tomorrow
/// at noon", "march 15 dinner at refectory at 6 pm"): a task due when it starts. Only a short
/// one, named first by what it is, with a clock time or a part of the day — a date alone or a
/// question is not one.
pub(super) fn bare_event(t: &str, now: &Zoned) -> Option<Result<Request, WhenError>> {
    if t.contains('?') {
        return None;
    }
    let Ok(Some(due)) = when::parse(t, now) else { return None };
    // ("lunch at 1" is no 1 am: an hour said alone, with no day, is not read here.)
    let phrase = due.phrase.to_ascii_lowercase();
    let clear = due.day_given
        || ["am", "pm", "a.m", "p.m", "noon", "midnight"].iter().any(|w| phrase.contains(w))
        || phrase.split(|c: char| !c.is_ascii_digit()).any(|h| h.parse::<u8>().is_ok_and(|h| h > 12));
    if !due.time_given || !clear || learned::booked(t) {
        return None;
    }
    let task = trim_words(&led_off(&due.rest));
    let first = task.split_whitespace().next()?.to_ascii_lowercase();
    // Named first, or after its date alone ("march 15 dinner at …").
    let lower = t.to_ascii_lowercase();
    let before = lower.find(&first).map(|i| &t[..i])?;
    let dated = before.trim().is_empty()
        || matches!(when::parse(before, now), Ok(Some(d)) if cn_hub::words::content(&d.rest).is_empty());
    if !BARE_EVENTS.contains(&first.as_str()) || !dated || task.split_whitespace().count() > 7 {
        return None;
    }
    Some(Ok(Request::AddTask { task, due: Some(due) }))
}

/// An event said with its time, put on the calendar ([`event_re`]): the task, due when it
/// starts. `None` without a time, or for what is booked with others (a room, a call).
pub(super) fn event(t: &str, now: &Zoned) -> Option<Result<Request, WhenError>> {
    let c = event_re().captures(t)?;
    let what = c.name("what")?.as_str();
    if !event_word_re().is_match(what) || not_an_event_re().is_match(t) || learned::booked(t) {
        return None;
    }
    // "make dinner tonight" is cooking; "make a dinner reservation" booking: "make" puts an
    // event only with its article ("make an event to go swimming on Friday").
    // "I want a breakfast meeting with Coleen next Friday": wanted, with its article.
    // "I have a lunch date with Wilfred at 1:30 pm on Sunday", "I have mt test at 10 am
    // tomorrow": an event of one's own, told with its time.
    let verb = match (c.name("verb"), c.name("have")) {
        (Some(v), _) => v.as_str().to_ascii_lowercase(),
        (None, Some(_)) => "have".to_string(),
        (None, None) => "want".to_string(),
    };
    if verb == "make" && !what.to_ascii_lowercase().starts_with(['a', 't', 'm', 'e']) {
        return None;
    }
    let lower = what.to_ascii_lowercase();
    // (Wanted, it is a meeting of one's own: "I need a family friendly event for next month"
    // asks to find one.)
    if verb == "want" && !((lower.starts_with("a ") || lower.starts_with("an ")) && wanted_re().is_match(what)) {
        return None;
    }
    let due = match when::parse(what, now) {
        Ok(Some(due)) => due,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    let rest = led_off(&due.rest);
    let rest = event_tail_re().replace(&rest, "");
    // ("set up a meeting for 3:00 on wednesday": "meeting", not "meeting for".)
    let task = unquote(&trim_words(&event_lead_re().replace(rest.trim(), "")));
    if cn_hub::words::content(&task).is_empty()
        || !event_word_re().is_match(&task) && task.split_whitespace().count() > 6
    {
        return None;
    }
    Some(Ok(Request::AddTask { task, due: Some(due) }))
}
