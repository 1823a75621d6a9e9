//! `cn ask [--level 2|3] PROMPT` — let a person try a level: plan builds the prompt (the
//! hub's core seed, the prompt as the item, the level's tools), the level's model answers,
//! and its markdown is printed as it came. Works without a hub (defaults: the embedded
//! model at level 2) and with one (`--hub`, or the nearest directory upwards holding
//! cn.yaml), whose `models:` and thinking budget apply.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use cn_compute::{Level, Model};
use cn_hub::{HubConfig, Layout};
use cn_models::{build_plan, choose_level, Budgeted, PlanInput};

use super::UsageError;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// 2 = the local model, 3 = the executive. Default: 3 when an executive is configured
    /// and the thinking budget allows, else 2.
    #[arg(long, value_parser = clap::value_parser!(u8).range(2..=3))]
    pub level: Option<Level>,
    /// Append the interaction to this JSONL file (a `replay` provider can play it back).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// The prompt (the words are joined with spaces).
    #[arg(required = true, num_args = 1..)]
    pub prompt: Vec<String>,
}

pub fn run(args: Args, hub: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    // No hub is fine here: `cn ask` then uses the defaults.
    let hub = hub.or_else(|| cn_agent::find_hub(None).ok());
    // cn.yaml is read once, here; a hub without a `name` still answers (so no `Hub::open`).
    let config = match &hub {
        Some(h) => HubConfig::load(&Layout::new(h).config()).map_err(|e| UsageError(cn_compute::chain(&e)))?,
        None => HubConfig::default(),
    };
    let base = hub.clone().unwrap_or_else(|| PathBuf::from("."));
    let models = &config.models;
    let budget = match &hub {
        Some(h) => {
            Some(cn_models::budget_of(&config.budget, models, h).map_err(|e| UsageError(cn_compute::chain(&e)))?)
        }
        None => None,
    };
    let level = match args.level {
        Some(3) if models.executive.is_none() => {
            return Err(UsageError("level 3 needs an executive: set `models.executive` in cn.yaml".into()).into())
        }
        Some(l) => l,
        None => {
            let allows = budget.as_ref().is_none_or(|b| b.lock().map(|b| b.can_do_autonomous_work()).unwrap_or(false));
            choose_level(models.executive.is_some(), allows)
        }
    };
    let core_seed = hub
        .as_ref()
        .map(|h| std::fs::read_to_string(Layout::new(h).core_seed()).unwrap_or_default())
        .unwrap_or_default();
    let docs = cn_models::plan::default_tool_docs();
    let tools: Vec<_> = docs.iter().collect();
    let item = args.prompt.join(" ");
    let input =
        PlanInput { level, core_seed: &core_seed, item: &item, owner: true, tools: &tools, ..Default::default() };
    let plan = build_plan(&input, cn_models::level_limits(models, level));

    let tiered = cn_models::tiered(models, &config.budget, &base).map_err(|e| UsageError(cn_compute::chain(&e)))?;
    let mut model: Box<dyn Model> = match budget {
        // Asked for by name, the executive's refusal is the answer (it fails); chosen by cn,
        // the budget may send the plan down to the local model.
        Some(budget) => Box::new(Budgeted { inner: tiered, budget, fall_back: args.level != Some(3) }),
        None => Box::new(tiered),
    };
    if let Some(path) = args.record {
        model = Box::new(
            cn_models::Recording::new(model, &path).with_context(|| format!("cannot record to {}", path.display()))?,
        );
    }
    let answer = model.ask(&plan).with_context(|| format!("asking level {level}"))?;
    tracing::info!(model = %answer.model, tokens_in = answer.tokens_in, tokens_out = answer.tokens_out, elapsed_ms = answer.elapsed.as_millis() as u64, "answered");
    println!("{}", super::shown(answer.markdown.trim_end()));
    Ok(ExitCode::SUCCESS)
}
