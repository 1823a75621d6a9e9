//! `cn journal [--today | --since TIME] [--type TYPE] [--json]` — "what did you do today?":
//! time, type and summary per entry. `cn journal why ID` — "why did you do that?": every
//! entry of one item, trigger to outcome, with context, reasoning and outcome.
//!
//! Torn or malformed lines (a crash's partial last line) are skipped and reported on stderr.
//! The journal is streamed across its rotated segments (`state/journal/`), oldest first.

use std::path::Path;
use std::process::ExitCode;

use cn_autonomy::journal::{self, Query};
use cn_hub::journal::HubJournal;
use cn_reflex::when::Direction;
use cn_storage::{Entry, Journal};
use serde_json::Value;

use super::UsageError;

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Sub>,
    /// Only entries from today (in the hub's time zone).
    #[arg(long, conflicts_with = "since")]
    pub today: bool,
    /// Only entries at or after TIME: RFC 3339, a date, a span back from now (2h, 1 day) or
    /// words in the hub's time zone (yesterday, monday, "yesterday 9am").
    #[arg(long, value_name = "TIME")]
    pub since: Option<String>,
    /// Only entries of this type (decision, impulse, reflex, exploration, action, observation,
    /// approval, interaction, log, reaction, send, sync, reminder, budget, routine).
    #[arg(long = "type", value_name = "TYPE")]
    pub kind: Option<String>,
    /// One JSON object a line, as stored.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// The chain of entries for one item id, trigger to outcome.
    Why {
        id: String,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open_to_read(hub, false)?.root().to_path_buf();
    let state = cn_hub::Layout::new(&hub).state();
    let path = HubJournal::path_in(&state);
    // Read as a stream across the rotated segments, then the live file: one entry in memory
    // at a time (`why` keeps its item's entries).
    let scan = |f: &mut dyn FnMut(Entry)| {
        Journal::scan(&path, |line| match line {
            Ok(e) => f(e),
            Err(s) => {
                eprintln!("cn: {}: skipped line {} (torn or not a JSON object): {}", path.display(), s.line, s.error)
            }
        })
        .map_err(|source| cn_hub::journal::JournalError { path: path.clone(), source })
    };
    if let Some(Sub::Why { id, json }) = args.command {
        let mut chain = Vec::new();
        scan(&mut |e| {
            if journal::item_id(&e) == Some(id.as_str()) {
                chain.push(e);
            }
        })?;
        if chain.is_empty() {
            return Err(UsageError(format!("no journal entry has id `{id}` in {}", path.display())).into());
        }
        for e in &chain {
            if json {
                println!("{}", Value::Object(e.0.clone()));
            } else {
                print_detail(e);
            }
        }
        // Who decided: the models asked about the item (level, model, tokens), from the
        // model calls' own journal; then the last link, the commit that recorded the decision.
        if !json {
            let calls = cn_hub::Layout::new(&hub).interactions();
            let mut asked = Vec::new();
            let read = Journal::scan(&calls, |line| {
                if let Ok(e) = line {
                    if e.0.get("item").and_then(Value::as_str) == Some(id.as_str()) {
                        asked.push(e);
                    }
                }
            });
            if let Err(e) = read {
                eprintln!("cn: {e}");
            }
            for e in &asked {
                println!("{}", super::shown_line(&journal::line(e)));
            }
            for line in cn_hub::journal::why_commits(&hub, &id) {
                println!("commit      {}", super::shown_line(&line));
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let since = match (&args.since, args.today) {
        (Some(s), _) => Some(super::typed_time(&hub, "--since", s, Direction::Past)?),
        (None, true) => Some(super::typed_time(&hub, "--today", "today", Direction::Past)?),
        (None, false) => None,
    };
    if let Some(k) = &args.kind {
        cn_hub::journal::entry_type(k).map_err(|e| UsageError(format!("--type: {e}", e = cn_compute::Chain(&e))))?;
    }
    let filtered = query_words(&args);
    let query = Query { since, kind: args.kind };
    let mut shown = 0usize;
    scan(&mut |e| {
        if query.matches(&e) {
            shown += 1;
            if args.json {
                println!("{}", Value::Object(e.0));
            } else {
                println!("{}", super::shown_line(&journal::line(&e)));
            }
        }
    })?;
    if shown == 0 && !args.json {
        match filtered {
            Some(filter) => println!("no journal entry matches {filter}"),
            None => println!("the journal is empty: nothing has happened yet"),
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The filters given, in words (`--type sync --today`), or `None` for the whole journal.
fn query_words(args: &Args) -> Option<String> {
    let mut words = Vec::new();
    if let Some(k) = &args.kind {
        words.push(format!("--type {k}"));
    }
    if args.today {
        words.push("--today".to_string());
    }
    if let Some(s) = &args.since {
        words.push(format!("--since {s}"));
    }
    (!words.is_empty()).then(|| words.join(" "))
}

fn print_detail(e: &Entry) {
    println!("{}", super::shown_line(&journal::line(e)));
    // An action: the call and what came of it.
    if e.kind() == "action" {
        if let Some(params) = e.0.get("params") {
            println!("    params: {}", super::shown_line(&params.to_string()));
        }
        if let Some(result) = e.0.get("result") {
            let shown: String = result.to_string().chars().take(300).collect();
            println!("    result: {}", super::shown_line(&shown));
        }
    }
    // Who decided: the level, by name.
    if e.kind() == "decision" {
        if let Some(level) = e.0.get("level").and_then(Value::as_u64) {
            let who = match level {
                0 | 1 => "a reflex",
                2 => "the local model",
                _ => "the executive",
            };
            println!("    level: {level} ({who})");
        }
    }
    // What the learned understanding read in the message the routine acted on (issue 41).
    if let Some(u) = e.0.get("understood") {
        let slots: Vec<String> = u["slots"]
            .as_array()
            .map(|a| {
                a.iter().filter_map(|s| Some(format!("{}=“{}”", s["slot"].as_str()?, s["words"].as_str()?))).collect()
            })
            .unwrap_or_default();
        println!(
            "    understood: {} ({}) {}",
            u["intent"].as_str().unwrap_or("?"),
            u["confidence"],
            super::shown_line(&slots.join(" "))
        );
    }
    for key in ["context", "reasoning", "outcome"] {
        if let Some(v) = e.0.get(key).and_then(Value::as_str) {
            // Lines of its own are indented under the key, never a journal line's look-alike.
            println!("    {key}: {}", super::shown(v).replace('\n', "\n      "));
        }
    }
    if let Some(err) = e.0.get("error").and_then(Value::as_str) {
        println!("    error: {}", super::shown(err).replace('\n', "\n      "));
    }
}
