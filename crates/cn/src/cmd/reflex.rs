//! `cn reflex list|test|enable|disable` — the owner's view of the reflexes, and the switch.
//!
//! `cn reflex list [--json]`: every reflex with its level, trigger, mode (active or shadow,
//! and `*` when learned from the executive), agreement with the executive (agreed/compared),
//! the executive tokens it saved, and analytics (fired, succeeded, failed, escalated,
//! latency), and every file that did not load (file:line: field: what is wrong) — those make
//! the exit code 2.
//!
//! `cn reflex approve NAME`: the owner promotes a shadow reflex (see `cn_reflex::learn`).
//!
//! `cn reflex test [--dry-run] [--json] [--source S] TEXT`: what would happen to TEXT as a
//! percept. Effects run, except that `reply` and `react` only say what they would send; with
//! `--dry-run` nothing with an effect runs at all (fetches included). `--json` prints one
//! object `{"reflex", "level", "vars", "steps": [{"action", "output"}], "escalate"}`.
//!
//! The `mcp` action calls the servers of cn.yaml's `mcp:` (started on the first call, stopped
//! when the command ends), for the owner, or for the sense `--source` names (so a server that
//! takes the owner's calls only refuses it, as in the daemon).
//!
//! The level-2 model: until the binary wires the configured one, `CN_SCRIPTED_ANSWERS=FILE`
//! (a test facility, in the binary cn's tests build only: `cn_autonomy::SCRIPTED_ANSWERS_ENV`)
//! answers from FILE — a JSON array of strings, one per model call, or else the whole file
//! as the one answer. Without it a level-2 step fails with "no level-2 model configured" and
//! the item escalates.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use cn_reflex::{Engine, Handled, Input, Mode};
use serde_json::{json, Value};

use super::UsageError;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub command: Sub,
}

#[derive(Subcommand, Debug)]
pub enum Sub {
    /// Turn a reflex on (sets `enabled: true` in its file, journals and commits it).
    Enable { name: String },
    /// Turn a reflex off (sets `enabled: false` in its file, journals and commits it).
    Disable { name: String },
    /// Promote a shadow reflex: it acts from now on (sets `mode: active`, journals, commits).
    Approve { name: String },
    /// List the reflexes with their analytics, and the files that did not load.
    List {
        /// One JSON object instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Show what would happen to TEXT as a percept (reply/react only print what they'd send).
    Test {
        /// Perform no effect at all (no fetch, no file written, no journal entry).
        #[arg(long)]
        dry_run: bool,
        /// Print {"reflex","level","vars","steps":[{"action","output"}],"escalate"}.
        #[arg(long)]
        json: bool,
        /// The sense the percept comes from (for reflexes limited to one source).
        #[arg(long, value_name = "SENSE")]
        source: Option<String>,
        /// Read one percept a line from stdin and print one JSON object a line (with its
        /// `text`); the level-2 model triages even with --dry-run (a benchmark's mode).
        #[arg(long, conflicts_with = "text")]
        lines: bool,
        /// The percept's text (several words are joined with spaces).
        #[arg(required_unless_present = "lines", num_args = 1.., value_name = "TEXT")]
        text: Vec<String>,
    },
}

pub fn run(hub: Option<PathBuf>, args: Args) -> anyhow::Result<ExitCode> {
    // The one hub finder (cn_hub); not finding one is a usage error.
    let hub = cn_hub::find_hub(hub.as_deref()).map_err(|e| UsageError(cn_compute::chain(&e)))?;
    // cn.yaml is read once, here (a hub with only reflexes needs no `name`).
    let layout = cn_hub::Layout::new(&hub);
    let config = cn_hub::HubConfig::load(&layout.config()).map_err(|e| UsageError(cn_compute::chain(&e)))?;
    let (reflex_config, policy) = cn_reflex::config::of(&config);
    let mut engine = Engine::with_config(&layout, reflex_config, policy);
    if let Some(me) = config.name.as_deref() {
        engine = engine.named(me);
    }
    match args.command {
        Sub::List { json } => {
            let call_tokens = cn_agent::Hub::find(Some(&hub)).ok().and_then(|h| cn_daemon::economy::call_tokens(&h));
            list(&engine, json, call_tokens)
        }
        Sub::Approve { name } => {
            let _lock = cn_storage::HubLock::acquire(&hub, cn_agent::lock::lock_timeout())
                .with_context(|| format!("cannot take the hub lock of {}", hub.display()))?;
            cn_reflex::learn::approve(&mut engine, &name).map_err(|e| UsageError(cn_compute::chain(&e)))?;
            println!("reflex {name} approved: active from now on");
            Ok(ExitCode::SUCCESS)
        }
        Sub::Enable { name } => switch(&hub, &name, true),
        Sub::Disable { name } => switch(&hub, &name, false),
        Sub::Test { dry_run, json, source, lines, text } => {
            for e in engine.errors() {
                eprintln!("cn: reflex skipped: {}", super::shown_line(&cn_compute::chain(&e)));
            }
            if let Some(model) = scripted_model()? {
                engine.set_model(Box::new(model));
            } else if !dry_run || lines {
                match cn_models::model_of(&config.models, &config.budget, &hub, "local") {
                    Ok(m) => engine.set_model(m),
                    Err(e) => tracing::warn!(e = %cn_compute::Chain(&e), "reflexes have no level-2 model"),
                }
            }
            // The text's provenance decides what its reflex may cause, as in the daemon.
            engine.set_caller(source.as_deref().map_or(cn_hub::Provenance::Owner, cn_hub::Provenance::parse));
            // `mcp:` servers for the `mcp` action, started on its first call (they admit calls
            // by the same provenance).
            if !config.mcp.is_empty() {
                let clients = cn_mcp::McpClients::new(&layout, &config.mcp).map_err(|e| anyhow::anyhow!(e))?;
                engine.set_mcp(std::sync::Arc::new(clients));
            }
            let mode = if dry_run { Mode::DryRun } else { Mode::Test };
            if lines {
                for line in std::io::stdin().lines() {
                    let line = line?;
                    let mut input = Input::new(line.trim());
                    input.source = source.as_deref();
                    let handled = engine.run(&input, mode);
                    let mut v = serde_json::to_value(&handled)?;
                    v["text"] = Value::String(line.trim().to_string());
                    v["latency_ms"] = json!(handled.latency.as_secs_f64() * 1000.0);
                    println!("{v}");
                }
                return Ok(ExitCode::SUCCESS);
            }
            let text = text.join(" ");
            let mut input = Input::new(&text);
            input.source = source.as_deref();
            let handled = engine.run(&input, mode);
            if json {
                println!("{}", serde_json::to_string_pretty(&handled)?);
            } else {
                print!("{}", super::shown(&describe(&handled, dry_run)));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The test facility: `CN_SCRIPTED_ANSWERS=FILE` makes a scripted level-2 model — in a test
/// build only (`cn_autonomy::SCRIPTED_ANSWERS_ENV`).
fn scripted_model() -> anyhow::Result<Option<cn_compute::Scripted>> {
    let Some(var) = cn_autonomy::SCRIPTED_ANSWERS_ENV else { return Ok(None) };
    let Some(path) = std::env::var_os(var) else { return Ok(None) };
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("{var}: cannot read {}", Path::new(&path).display()))?;
    let answers = match serde_json::from_str::<Vec<String>>(&text) {
        Ok(list) => list,
        Err(_) => vec![text],
    };
    Ok(Some(cn_compute::Scripted::new(answers).named("scripted")))
}

fn describe(h: &Handled, dry_run: bool) -> String {
    let mut out = String::new();
    let Some(name) = &h.reflex else {
        out.push_str("no reflex takes this item: it escalates to the executive (level 3)\n");
        return out;
    };
    out.push_str(&format!("reflex: {name} (level {})\n", h.level));
    for (k, v) in &h.vars {
        out.push_str(&format!("  {k} = {}\n", one_line(v, 120)));
    }
    for (i, s) in h.steps.iter().enumerate() {
        let shown = match (&s.error, s.action.as_str()) {
            (Some(e), _) => format!("FAILED: {e}"),
            (None, "reply") if !dry_run => format!("would send: {}", one_line(&s.output, 300)),
            (None, "react") if !dry_run => format!("would react: {}", one_line(&s.output, 40)),
            (None, _) => one_line(&s.output, 300),
        };
        out.push_str(&format!("{}. {} → {shown}\n", i + 1, s.action));
    }
    match (&h.escalate, &h.error) {
        (false, _) => out.push_str("handled without the executive\n"),
        (true, Some(e)) => out.push_str(&format!("escalates to the executive: {e}\n")),
        (true, None) => out.push_str("escalates to the executive\n"),
    }
    out
}

fn one_line(v: &Value, max: usize) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max).collect::<String>())
    } else {
        flat
    }
}

/// `cn reflex enable|disable NAME`, under the hub lock (the control room's switch too).
fn switch(hub: &Path, name: &str, on: bool) -> anyhow::Result<ExitCode> {
    let _lock = cn_storage::HubLock::acquire(hub, cn_agent::lock::lock_timeout())
        .with_context(|| format!("cannot take the hub lock of {}", hub.display()))?;
    cn_reflex::set_enabled(hub, name, on).map_err(|e| UsageError(cn_compute::chain(&e)))?;
    println!("reflex {name} {}", if on { "enabled" } else { "disabled" });
    Ok(ExitCode::SUCCESS)
}

fn list(engine: &Engine, as_json: bool, call_tokens: Option<u64>) -> anyhow::Result<ExitCode> {
    let rows = cn_reflex::listing(engine, call_tokens);
    let errors = engine.errors();
    if as_json {
        println!("{}", serde_json::to_string_pretty(&json!({"reflexes": rows, "errors": errors}))?);
    } else if rows.is_empty() {
        println!("no reflexes in {}", cn_hub::Layout::new(engine.hub()).reflexes().display());
    } else {
        println!(
            "{:<24} {:>5} {:<9} {:<7} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>8} {:>8}  STATUS",
            "NAME", "LEVEL", "TRIGGER", "MODE", "AGREED", "SAVED", "FIRED", "OK", "FAILED", "ESC", "P50 ms", "LAST ms"
        );
        for r in &rows {
            let learned = if r["learned"].is_string() { "*" } else { "" };
            let agreed = match r["compared"].as_u64().unwrap_or(0) {
                0 => "-".to_string(),
                n => format!("{}/{n}", r["agreed"].as_u64().unwrap_or(0)),
            };
            println!(
                "{:<24} {:>5} {:<9} {:<7} {:>7} {:>7} {:>6} {:>6} {:>6} {:>6} {:>8.1} {:>8.1}  {}",
                r["name"].as_str().unwrap_or(""),
                r["level"].as_u64().unwrap_or(0),
                r["trigger"].as_str().unwrap_or(""),
                format!("{}{learned}", r["mode"].as_str().unwrap_or("")),
                agreed,
                r["tokens_saved"].as_u64().map_or("-".to_string(), |t| t.to_string()),
                r["fired"].as_u64().unwrap_or(0),
                r["succeeded"].as_u64().unwrap_or(0),
                r["failed"].as_u64().unwrap_or(0),
                r["escalated"].as_u64().unwrap_or(0),
                r["latency_ms_p50"].as_f64().unwrap_or(0.0),
                r["latency_ms_last"].as_f64().unwrap_or(0.0),
                r["status"].as_str().unwrap_or(""),
            );
        }
    }
    if !as_json && rows.iter().any(|r| r["learned"].is_string()) {
        println!("(* learned from the executive; AGREED: agreed/compared in shadow; SAVED: executive tokens)");
    }
    if !as_json && call_tokens.is_none() && !rows.is_empty() {
        println!("(SAVED: none claimed until an executive call is measured on this hub)");
    }
    for e in errors {
        eprintln!("cn: reflex skipped: {}", super::shown_line(&cn_compute::chain(&e)));
    }
    Ok(if errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(2) })
}
