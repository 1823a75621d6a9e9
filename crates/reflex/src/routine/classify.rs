//! The local model's part in the routine: when no frame takes a message that still speaks the
//! routine's words ("the todo thing for the boiler", "ideas?"), the level-2 model is asked
//! which of the routine's intents it is — under a grammar that admits only their names and
//! `none`. It classifies; it never writes: the task's words, its due time and the answer all
//! come from the message and the files, as for a request the patterns read.
//!
//! Invariant: the model may choose only what files something new or only reads (add a task,
//! note an idea, list, show); completing, moving or cancelling what exists needs the person's
//! own clear words, so those intents are not offered.

use std::sync::OnceLock;

use cn_compute::Plan;
use cn_hub::tasks::Filter;
use jiff::Zoned;
use regex::Regex;

use super::{Parsed, Request, Said};

/// What the model may answer.
pub const INTENTS: &[(&str, &str)] = &[
    ("task", "something the person must do or be reminded of, to add to their tasks"),
    ("idea", "an idea to keep for someday"),
    ("list", "a question about what is on their task list or due"),
    ("ideas", "a question about the ideas they have noted"),
    ("schedule", "a question about what is scheduled to repeat"),
    ("show", "a question about one task: when it is due"),
];

/// "none": not one of them.
pub const NONE: &str = "none";

fn vocabulary() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)\b(?:tasks?|to-?dos?|reminders?|remind\s+me|ideas?|overdue|due|deadline|(?:my|to[\s-]?do|todo|task)\s+list|my\s+schedule)\b")
            .unwrap_or_else(|e| unreachable!("the vocabulary pattern compiles: {e}"))
    })
}

/// Whether a message no frame took still speaks the routine's words: worth one question to
/// the local model.
pub fn unsure(text: &str) -> bool {
    text.chars().count() <= 300 && vocabulary().is_match(text)
}

/// The question: which intent, answered with its name only, under a grammar.
pub fn plan(text: &str, item: Option<&str>) -> Plan {
    let mut list = String::new();
    for (name, what) in INTENTS {
        list.push_str(&format!("- {name}: {what}\n"));
    }
    list.push_str(&format!("- {NONE}: anything else (a request to do, write, find or explain something)\n"));
    let alternatives: Vec<String> =
        [NONE].iter().chain(INTENTS.iter().map(|(n, _)| n)).map(|n| format!("\"{n}\"")).collect();
    Plan {
        level: 2,
        system: "You sort a person's message to their assistant into one category. Answer with the category name only."
            .into(),
        prompt: format!(
            "Categories:\n{list}\nExamples:\nMessage: Book a table for two\nCategory: {NONE}\nMessage: ideas?\nCategory: ideas\n\nMessage: {text}\nCategory:"
        ),
        max_tokens: 8,
        grammar: Some(format!("root ::= {}", alternatives.join(" | "))),
        item: item.map(String::from),
        ..Plan::default()
    }
}

/// The intent in the model's answer, if it names one.
pub fn intent(answer: &str) -> Option<&'static str> {
    let word = answer.lines().find(|l| !l.trim().is_empty())?.trim().trim_matches(|c: char| !c.is_ascii_alphabetic());
    INTENTS.iter().map(|(n, _)| *n).find(|n| n.eq_ignore_ascii_case(word))
}

/// What `intent` asks of `text`, read from the text itself: the task is its words (and its
/// due time, read as always); a list's filter the words "today", "this week" …; a task to
/// show the words besides the routine's own.
pub fn request(intent: &str, text: &str, now: &Zoned) -> Parsed {
    let lower = text.to_ascii_lowercase();
    let request = match intent {
        "task" => match crate::when::parse(text, now) {
            Ok(Some(due)) => Request::AddTask { task: due.rest.clone(), due: Some(due) },
            Ok(None) => Request::AddTask { task: text.trim().to_string(), due: None },
            Err(e) => return Parsed::Ask(e),
        },
        "idea" => Request::AddIdea { idea: text.trim().to_string() },
        "list" => {
            let filter = [
                ("overdue", Filter::Overdue),
                ("today", Filter::Today),
                ("tonight", Filter::Today),
                ("tomorrow", Filter::Tomorrow),
                ("next week", Filter::NextWeek),
                ("week", Filter::Week),
            ]
            .into_iter()
            .find(|(w, _)| lower.contains(w))
            .map_or(Filter::Open, |(_, f)| f);
            Request::ListTasks { filter }
        }
        "ideas" => Request::ListIdeas,
        "schedule" => Request::ListSchedule,
        "show" => Request::Show { words: vocabulary().replace_all(text, " ").trim().to_string(), said: Said::Explicit },
        _ => return Parsed::NotRoutine,
    };
    match &request {
        Request::AddTask { task, .. } | Request::AddIdea { idea: task } if task.trim().is_empty() => Parsed::NotRoutine,
        _ => Parsed::Routine(vec![request]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_admits_only_the_intents_and_none() {
        let p = plan("the todo thing for the boiler", Some("item-1"));
        let g = p.grammar.unwrap();
        assert!(g.starts_with("root ::= \"none\" | \"task\""), "{g}");
        assert!(!g.contains("complete") && !g.contains("cancel"), "nothing that changes what exists: {g}");
        assert!(p.prompt.ends_with("Message: the todo thing for the boiler\nCategory:"));
        assert_eq!(intent("list\n"), Some("list"));
        assert_eq!(intent("\"ideas\""), Some("ideas"));
        assert_eq!(intent("complete"), None);
        assert_eq!(intent(""), None);
        assert!(unsure("the todo thing for the boiler") && !unsure("Book a table for two at 7pm"));
        assert!(!unsure("List the files in the repo"), "a list of files is not the task list");
    }
}
