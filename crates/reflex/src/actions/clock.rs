//! `when`, `clock` and `activity` — the routine a person asks about: when something is due
//! (read from the text in the hub's time zone, see [`crate::when`]), what time and day it is,
//! and what the agent has been doing today (from the journal).

use std::sync::Arc;

use cn_hub::journal::HubJournal;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::Shared;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WhenParams {
    /// The text that may say when (e.g. "call mom tomorrow at 6pm").
    text: String,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ClockParams {
    /// A strftime format; absent gives `time`, `date` and `zone` separately.
    format: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ActivityParams {
    /// Only `today` for now.
    period: Option<String>,
}

fn now(shared: &Shared) -> jiff::Zoned {
    shared.now()
}

pub(crate) fn when(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed(
        "when",
        "Read a due time from text in the hub's time zone: {due (RFC 3339 or null), human, phrase, rest, note, error (a date that cannot be read or has passed)}.",
        move |_ctx, p: WhenParams| {
            Ok(match crate::when::parse(&p.text, &now(&shared)) {
                Ok(Some(d)) => json!({
                    "due": d.rfc3339(),
                    "human": d.human(),
                    "phrase": d.phrase,
                    "note": format!(" (due {})", d.human()),
                    "rest": d.rest,
                }),
                Ok(None) => json!({"due": null, "human": "", "phrase": "", "note": "", "rest": p.text.trim()}),
                // A phrase that cannot be read or has passed: no due time, and why.
                Err(e) => json!({
                    "due": null, "human": "", "phrase": e.phrase(), "note": "", "rest": p.text.trim(),
                    "error": e.to_string(),
                }),
            })
        },
    )
}

pub(crate) fn clock(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed("clock", "The time and date now in the hub's time zone: {time, date, zone}.", move |_ctx, p: ClockParams| {
        let now = now(&shared);
        Ok(match p.format {
            Some(f) => Value::String(now.strftime(&f).to_string()),
            None => json!({
                "time": now.strftime("%H:%M").to_string(),
                "date": now.strftime("%A, %-d %B %Y").to_string(),
                "zone": now.time_zone().iana_name().unwrap_or("local"),
            }),
        })
    })
}

pub(crate) fn activity(shared: &Arc<Shared>) -> Arc<dyn Tool> {
    let shared = shared.clone();
    typed(
        "activity",
        "What I have done for people today (messages answered, tasks added, done or moved, reminders told), from the journal and the task queue, in plain sentences.",
        move |ctx, p: ActivityParams| {
            if p.period.as_deref().is_some_and(|p| p != "today") {
                return Err(cn_compute::ToolError::BadParams("period: only `today` is supported".into()));
            }
            let now = now(&shared);
            let layout = cn_hub::Layout::new(&shared.hub);
            let failed = |e: &dyn std::error::Error| cn_compute::ToolError::Failed(cn_compute::chain(e));
            let read = HubJournal::read(&layout.state()).map_err(|e| failed(&e))?;
            let tasks = cn_hub::tasks::tasks_in(&layout.state()).load().map_err(|e| failed(&e))?;
            let who = ctx.from.clone().unwrap_or(cn_hub::Provenance::Owner);
            // What was done for an unnamed provenance was done for anyone who is it.
            if who.is_unnamed() {
                return Err(cn_compute::ToolError::Denied(super::routine::unnamed(&who)));
            }
            Ok(Value::String(crate::routine::day::did_today(&read.entries, &tasks, &who, &now)))
        },
    )
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct VetParams {
    /// The text the local model wrote for a person.
    text: String,
    /// What it should be about (a fetched page, the item).
    source: Option<String>,
    /// What it was asked (it must not just repeat it).
    prompt: Option<String>,
    /// Sent instead when the text is unfit; without it the step fails and the item goes up.
    fallback: Option<String>,
}

/// `vet` — pass the local model's text on only if it is fit to send (see [`crate::vet`]).
pub(crate) fn vet() -> Arc<dyn Tool> {
    typed(
        "vet",
        "Check text the local model wrote before a person sees it: empty, repeating the prompt or itself, or off the content → the fallback, or the item goes to the executive.",
        |_ctx, p: VetParams| {
            let verdict =
                crate::vet::check(&p.text, p.prompt.as_deref().unwrap_or(""), p.source.as_deref().unwrap_or(""));
            match (verdict, p.fallback) {
                (Ok(()), _) => Ok(Value::String(p.text.trim().to_string())),
                (Err(why), Some(fallback)) => {
                    tracing::info!(%why, "local text unfit: the template answer is sent instead");
                    Ok(Value::String(fallback))
                }
                (Err(why), None) => Err(cn_compute::ToolError::Failed(cn_compute::chain(&why))),
            }
        },
    )
}
