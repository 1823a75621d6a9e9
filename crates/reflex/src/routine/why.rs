//! "Why did you do that?" (document 003: the journal exists so the agent can answer "what did
//! you do and why"; issue 40, finding 8): answered below the executive from the journal, as
//! `cn journal why` does — the last decision taken for the person asking (or the one whose item
//! id they name), what was done, who took it (a reflex by name, cn's own rules, the local model
//! or the executive, with its level and model) and the reason it was taken.
//!
//! Invariants: a person hears only about decisions on what they wrote or filed (the decision's
//! `author` is theirs); the owner about the owner's (their messages, their tasks, the work they
//! scheduled), never a stranger's or a peer's. An id named that is not theirs is answered as
//! an id unknown — the answer does not say whether it exists. A "why" answered by this action
//! is never the decision explained (the next "why" explains the one before). Only the journal
//! and the model calls' journal are read; nothing is written.

use cn_hub::Provenance;
use cn_storage::Entry;
use jiff::tz::TimeZone;
use jiff::Timestamp;
use serde_json::Value;

/// The action that answers "why?": a decision on an item it answered is not explained.
pub const ACTION: &str = "why";

/// A model asked about an item: its level and name (from `state/interactions.jsonl`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub item: String,
    pub level: u64,
    pub model: String,
}

impl Asked {
    /// The model call an `interaction` entry records, if it names its item and its model.
    pub fn of(e: &Entry) -> Option<Asked> {
        Some(Asked {
            item: get(e, "item")?.to_string(),
            level: e.0.get("level").and_then(Value::as_u64)?,
            model: get(e, "model")?.to_string(),
        })
    }
}

fn get<'e>(e: &'e Entry, k: &str) -> Option<&'e str> {
    e.0.get(k).and_then(Value::as_str)
}

/// The item id named in the question ("why did you do 897ba5752407?"), if any: a word of
/// 12 hexadecimal digits, as cn's item ids are.
pub fn named_id(text: &str) -> Option<&str> {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| w.len() == 12 && w.chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()))
}

/// Whether decision `d` was taken for `who`: on an item they wrote or filed. An entry from
/// before decisions carried their `author` is the owner's only if the owner sent it.
fn theirs(d: &Entry, who: &Provenance) -> bool {
    match get(d, "author") {
        Some(author) => author == who.label(),
        None => who.is_owner() && get(d, "from") == Some(cn_hub::OWNER),
    }
}

/// Cut to `n` characters, with "…" when cut.
fn cut(s: &str, n: usize) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    let short: String = line.chars().take(n).collect();
    if short.len() < line.len() || s.trim().lines().count() > 1 {
        format!("{short}…")
    } else {
        short
    }
}

/// "Why did you do that?" asked by `who` (`text`: the question, which may name an item id),
/// from the journal's `entries` and the model calls `asked`, times shown in `zone`.
pub fn answer(text: &str, entries: &[Entry], asked: &[Asked], who: &Provenance, zone: &TimeZone) -> String {
    // Items a "why" answered: their decisions explain nothing.
    let answered_why: Vec<&str> = entries
        .iter()
        .filter(|e| {
            e.kind() == "reflex"
                && e.0.get("actions").and_then(Value::as_array).is_some_and(|a| a.iter().any(|x| x == ACTION))
        })
        .filter_map(|e| get(e, "item"))
        .collect();
    let named = named_id(text);
    let candidates = || {
        entries.iter().rev().filter(|e| {
            e.kind() == "decision"
                && theirs(e, who)
                && get(e, "id").is_some_and(|id| !answered_why.contains(&id) && named.is_none_or(|n| n == id))
        })
    };
    // "That" is what the conversation last saw: the decision on their last message, before
    // the agent's own work on what they filed (a task falling due, an idea explored).
    let message = |e: &&Entry| get(e, "item_kind").is_none_or(|k| k == "message");
    let decision = candidates().find(message).or_else(|| candidates().next());
    let Some(d) = decision else {
        return match named {
            Some(id) => format!("I have no decision of yours on {id}."),
            None => "I have taken no decision on anything of yours yet, so there is nothing to explain.".to_string(),
        };
    };
    let id = get(d, "id").unwrap_or("?");
    let about = match get(d, "context").and_then(|c| c.split_once(": “")) {
        Some((_, quoted)) => format!(" on “{}”", cut(quoted.trim_end_matches('”'), 60)),
        None => String::new(),
    };
    let at = get(d, "ts")
        .and_then(|t| t.parse::<Timestamp>().ok())
        .map(|t| format!(", {}", t.to_zoned(zone.clone()).strftime("%a %-d %b %H:%M")))
        .unwrap_or_default();
    let what = did(d);
    // A reply quoted ends its own sentence.
    let stop = if [".”", "!”", "?”"].iter().any(|end| what.ends_with(end)) { "" } else { "." };
    let by = who_decided(d, id, entries, asked);
    let mut out = if named.is_some() {
        format!("On item {id}{about}{at}: I {what}{stop} {by}")
    } else {
        let whose = if who.is_owner() { "for you" } else { "on your messages" };
        format!("My last decision {whose}{about} (item {id}{at}): I {what}{stop} {by}")
    };
    if who.is_owner() {
        out.push_str(&format!(" `cn journal why {id}` shows the whole chain."));
    }
    out
}

/// What the decision did, in words: "replied “…”", "handed it up: …", "closed it: …".
fn did(d: &Entry) -> String {
    if let Some(why) = get(d, "handed_up") {
        return format!("handed it up ({})", why.strip_prefix("handed up: ").unwrap_or(why));
    }
    match (get(d, "gtd"), get(d, "op")) {
        (Some("do"), Some("reply")) => format!("replied “{}”", cut(get(d, "message").unwrap_or(""), 80)),
        (Some("do"), Some("ack" | "noop")) => format!("closed it ({})", get(d, "reason").unwrap_or("no reason given")),
        (Some("do"), Some("send")) => format!("sent mail to {}", get(d, "to").unwrap_or("a peer")),
        (Some("defer"), _) => format!("put it off ({})", get(d, "reason").unwrap_or("no reason given")),
        (Some("delete"), _) => format!("dropped it ({})", get(d, "reason").unwrap_or("no reason given")),
        (Some("delegate"), _) => format!("passed it to {}", get(d, "to").unwrap_or("a peer")),
        _ => format!("decided `{}`", get(d, "action").or_else(|| get(d, "summary")).unwrap_or("?")),
    }
}

/// Who took the decision, in a sentence: the reflex that answered (its level and how it
/// matched), the model asked (its level and name), or cn's own rules. (The op's reason is in
/// what it did, [`did`].)
fn who_decided(d: &Entry, id: &str, entries: &[Entry], asked: &[Asked]) -> String {
    let level = d.0.get("level").and_then(Value::as_u64);
    let reflex = entries.iter().rev().find(|e| {
        e.kind() == "reflex"
            && get(e, "item") == Some(id)
            && get(e, "outcome") == Some("ok")
            && e.0.get("skipped_executive") == Some(&Value::Bool(true))
    });
    let model = level.and_then(|l| asked.iter().rev().find(|a| a.item == id && a.level == l));
    let who = match (level, reflex, model) {
        (None, _, _) => "It was decided through `cn out` (by you, or an agent acting as the executive).".to_string(),
        (Some(l), Some(r), _) => {
            let name = get(r, "name").unwrap_or("?");
            // The reflex's summary says how it matched: "reflex `x` (level 0): its pattern matched; did reply".
            let how = get(r, "summary")
                .and_then(|s| s.split_once("): "))
                .and_then(|(_, rest)| rest.split(';').next())
                .map(|h| format!(": {h}"))
                .unwrap_or_default();
            format!("My reflex `{name}` took it at level {l}, below the executive{how}.")
        }
        (Some(3), _, Some(m)) => format!("The executive ({}) decided it at level 3.", m.model),
        (Some(2), _, Some(m)) => format!("The local model ({}) decided it at level 2.", m.model),
        (Some(l), _, _) if l >= 3 => format!("The executive decided it at level {l}."),
        (Some(2), _, _) => "The local model decided it at level 2.".to_string(),
        (Some(l), _, _) => format!("cn's own rules decided it at level {l}, below the executive."),
    };
    who
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(json: &str) -> Entry {
        Entry(serde_json::from_str(json).unwrap())
    }

    fn journal() -> Vec<Entry> {
        [
            r#"{"ts":"2026-11-29T03:17:52Z","type":"decision","id":"e85d18b7a953","from":"owner","author":"owner","gtd":"do","op":"reply","message":"Hello! I'm ada.","level":0,"context":"a message from the owner on chat: “hello”"}"#,
            r#"{"ts":"2026-11-29T03:17:52Z","type":"reflex","summary":"reflex `hello` (level 0): its pattern matched; did reply","name":"hello","level":0,"actions":["reply"],"skipped_executive":true,"outcome":"ok","item":"e85d18b7a953"}"#,
            r#"{"ts":"2026-11-29T03:18:00Z","type":"decision","id":"aaaaaaaaaaaa","from":"telegram","author":"telegram:77","gtd":"do","op":"reply","message":"Added: feed the cat — due 09:00.","level":1,"context":"a message from telegram:77 on telegram: “remind me to feed the cat at 9”"}"#,
            r#"{"ts":"2026-11-29T03:18:00Z","type":"reflex","summary":"reflex `routine` (level 1): its heuristics matched; did routine → reply","name":"routine","level":1,"actions":["routine","reply"],"skipped_executive":true,"outcome":"ok","item":"aaaaaaaaaaaa"}"#,
            r#"{"ts":"2026-11-29T03:19:00Z","type":"decision","id":"1169ce3d30d3","from":"owner","author":"owner","gtd":"defer","reason":"handed up: no executive is configured","handed_up":"handed up: no executive is configured","level":1,"context":"a message from the owner on chat: “Can you review my blog post?”"}"#,
            r#"{"ts":"2026-11-29T03:20:00Z","type":"decision","id":"b8f2a95a98d9","from":"owner","author":"owner","gtd":"do","op":"reply","message":"My last decision…","level":0}"#,
            r#"{"ts":"2026-11-29T03:20:00Z","type":"reflex","summary":"reflex `why` (level 0): its pattern matched; did why → reply","name":"why","level":0,"actions":["why","reply"],"skipped_executive":true,"outcome":"ok","item":"b8f2a95a98d9"}"#,
            r#"{"ts":"2026-11-29T03:21:00Z","type":"decision","id":"cccccccccccc","from":"ada","author":"owner","item_kind":"impulse:task","gtd":"do","op":"ack","reason":"nothing to add","level":3}"#,
        ]
        .into_iter()
        .map(e)
        .collect()
    }

    fn utc() -> TimeZone {
        TimeZone::UTC
    }

    #[test]
    fn the_owner_hears_the_last_decision_for_them_with_who_took_it_and_why() {
        let mut j = journal();
        let asked = [Asked { item: "cccccccccccc".into(), level: 3, model: "claude-x".into() }];
        // Named: the agent's own work on the owner's task, decided by the executive.
        let a = answer("why did you do cccccccccccc?", &j, &asked, &Provenance::Owner, &utc());
        assert_eq!(
            a,
            "On item cccccccccccc, Sun 29 Nov 03:21: I closed it (nothing to add). \
             The executive (claude-x) decided it at level 3. \
             `cn journal why cccccccccccc` shows the whole chain."
        );
        // Unnamed: the decision on the owner's last message, not the task's; the "why"
        // answered before is skipped, so the hand-up before it is explained.
        let a = answer("why did you do that?", &j, &asked, &Provenance::Owner, &utc());
        assert!(a.contains("on “Can you review my blog post?”"), "{a}");
        // With no decision on a message of theirs, the last of any kind: the task's.
        j.retain(|e| get(e, "id") == Some("cccccccccccc"));
        let a = answer("why did you do that?", &j, &asked, &Provenance::Owner, &utc());
        assert!(a.starts_with("My last decision for you (item cccccccccccc, "), "{a}");
        let j = journal();
        let a = answer("why did you do that?", &j, &[], &Provenance::Owner, &utc());
        assert!(
            a.contains("on “Can you review my blog post?”") && a.contains("handed it up (no executive is configured)"),
            "{a}"
        );
        assert!(a.contains("cn's own rules decided it at level 1"), "{a}");
        let a = answer("why did you do e85d18b7a953?", &j, &[], &Provenance::Owner, &utc());
        assert!(
            a.contains("I replied “Hello! I'm ada.”")
                && a.contains("My reflex `hello` took it at level 0, below the executive: its pattern matched."),
            "{a}"
        );
    }

    #[test]
    fn a_stranger_hears_only_about_their_own() {
        let j = journal();
        let stranger = Provenance::Public { sense: "telegram".into(), user: Some("77".into()) };
        let a = answer("why did you do that?", &j, &[], &stranger, &utc());
        assert!(a.contains("feed the cat") && a.contains("My reflex `routine` took it at level 1"), "{a}");
        assert!(!a.contains("cn journal"), "{a}");
        // The owner's item named by id: answered as unknown, nothing of it told.
        let a = answer("why did you do 1169ce3d30d3?", &j, &[], &stranger, &utc());
        assert_eq!(a, "I have no decision of yours on 1169ce3d30d3.");
        let other = Provenance::Public { sense: "telegram".into(), user: Some("88".into()) };
        let a = answer("why did you do that?", &j, &[], &other, &utc());
        assert!(a.starts_with("I have taken no decision on anything of yours yet"), "{a}");
        for owners in ["hello", "blog", "Hello", "nothing to add"] {
            assert!(!a.contains(owners), "{a}");
        }
    }

    #[test]
    fn an_id_is_twelve_lowercase_hex_digits() {
        assert_eq!(named_id("why did you do e85d18b7a953?"), Some("e85d18b7a953"));
        assert_eq!(named_id("why did you do that?"), None);
        assert_eq!(named_id("why E85D18B7A953"), None);
    }
}
