//! A promise made in a reply ("I'll get back to you …", "I will look into it") is a
//! commitment: it becomes a task in `state/tasks.json`, followed up a day after the reply, so
//! the agent comes back to it (document 003's "commitment follow-up"). The task's id derives
//! from the decision, so performing the reply again after a crash adds it once.

use cn_hub::tasks::{tasks_in, Task};

use super::Ctx;
use crate::error::Result;

/// What a promise sounds like (lowercase, straight apostrophes).
const PROMISES: &[&str] = &[
    "i'll get back to you",
    "i will get back to you",
    "i'll follow up",
    "i will follow up",
    "i'll let you know",
    "i will let you know",
    "i'll look into",
    "i will look into",
    "i'll come back to",
    "i will come back to",
    "i'll check and",
    "i'll get to it",
];

/// How long before a promise is followed up.
const FOLLOW_UP_HOURS: i64 = 24;

/// The sentence of `message` that makes a promise, if any.
pub fn promise_in(message: &str) -> Option<String> {
    let folded = message.replace(['\u{2019}', '\u{2018}'], "'");
    let lower = folded.to_lowercase();
    let at = PROMISES.iter().filter_map(|p| lower.find(p)).min()?;
    // The sentence around it: from the previous stop to the next one.
    let start = lower[..at].rfind(['.', '!', '?', '\n']).map_or(0, |i| i + 1);
    let end = lower[at..].find(['.', '!', '?', '\n']).map_or(lower.len(), |i| at + i + 1);
    Some(folded.get(start..end).unwrap_or(&folded).trim().to_string())
}

/// Record the promise in `message` (if any) as a task; its id.
pub fn task_of(ctx: &Ctx, message: &str) -> Result<Option<String>> {
    let Some(sentence) = promise_in(message) else { return Ok(None) };
    let mut task = Task::new(format!("Keep my word to {}: \"{sentence}\"", ctx.item.from));
    task.id = format!("task-{}", cn_hub::id::stable(&format!("promise:{}", ctx.key)));
    task.context = Some(format!("Promised in a reply on item {} (thread {})", ctx.item.id, ctx.item.thread));
    // To the second, as every time a person reads in tasks.json.
    let at = jiff::Timestamp::now().as_second() + FOLLOW_UP_HOURS * 3600;
    task.follow_up = jiff::Timestamp::from_second(at).ok();
    // Whom the promise was made to: a promise to anyone but the owner is theirs, and so is
    // its follow-up (`cn_hub::Provenance`). Unmarked, it came back as the owner's own work,
    // and a stranger had only to ask for a promise to have anything done unheld.
    let author = ctx.item.origin_in(ctx.hub).author;
    task.source = (!author.is_owner()).then(|| author.label());
    let tasks = tasks_in(&ctx.hub.layout().state());
    tasks.add_once(task.clone())?;
    Ok(Some(task.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_promising_sentence() {
        assert_eq!(
            promise_in("Thanks! I’ll get back to you by Friday. Cheers").as_deref(),
            Some("I'll get back to you by Friday.")
        );
        assert_eq!(promise_in("Done, the report is attached."), None);
        assert_eq!(promise_in("I will look into it").as_deref(), Some("I will look into it"));
    }
}
