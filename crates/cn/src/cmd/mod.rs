//! The commands: one file per command, this enum parses and dispatches.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod approvals;
mod ask;
mod budget;
mod chat;
mod clone;
mod config;
mod demo;
mod hub;
mod idea;
mod init;
mod input;
mod journal;
mod lease;
mod loop_cmd;
mod mcp;
mod model;
mod out;
mod parse;
mod peer;
mod reflex;
mod run;
mod schedule;
mod send;
mod serve;
mod sync;
mod task;

/// Text from the hub as the owner's terminal may show it (`cn_process::redact::printable`, and
/// `printable_line` for one line of a listing): a stranger's task, idea, journal line,
/// approval or answer prints no escape sequence, no carriage return, and on a listing's line
/// no line of its own.
pub(crate) use cn_process::redact::{printable as shown, printable_line as shown_line};

/// Now in the hub's time zone (`reflexes.time_zone` in cn.yaml, else the system's): the zone a
/// person's time phrase (`--due friday`, `--since yesterday`) is read in. A cn.yaml that
/// cannot be read leaves the system's zone, said on stderr.
pub(crate) fn hub_now(hub: &std::path::Path) -> jiff::Zoned {
    let zone = match cn_hub::HubConfig::load(&cn_hub::Layout::new(hub).config()) {
        Ok(config) => config.reflexes.time_zone,
        Err(e) => {
            eprintln!("cn: {}; reading times in the system's time zone", cn_compute::chain(&e));
            None
        }
    };
    jiff::Timestamp::now().to_zoned(cn_reflex::when::time_zone(zone.as_deref()))
}

/// Where the owner's reminders are told (`senses.owner.remind` in the hub's cn.yaml): a
/// cn.yaml that cannot be read is said, naming it (a reminder must not go nowhere).
pub(crate) fn owner_reminders(hub: &std::path::Path) -> anyhow::Result<cn_hub::origin::AnswerTo> {
    let config = cn_hub::HubConfig::load(&cn_hub::Layout::new(hub).config())
        .map_err(|e| UsageError(format!("--remind: {}", cn_compute::chain(&e))))?;
    config
        .senses
        .owner
        .reminders_to()
        .map_err(|e| UsageError(format!("--remind: senses.owner.remind in cn.yaml: {e}")).into())
}

/// A time typed on the command line (`--due`, `--since`), read by the one reader
/// ([`cn_reflex::when::typed`]) in the hub's zone; one that cannot be read is a usage error
/// (exit 2) that names it and the accepted forms.
pub(crate) fn typed_time(
    hub: &std::path::Path,
    flag: &str,
    text: &str,
    direction: cn_reflex::when::Direction,
) -> Result<jiff::Timestamp, UsageError> {
    let now = hub_now(hub);
    cn_reflex::when::typed(text, &now, direction)
        .map(|at| at.timestamp())
        .map_err(|e| UsageError(format!("{flag}: {e}")))
}

/// Bad usage or input: reported on one line, exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

#[derive(Parser, Debug)]
#[command(name = "cn", version, about = "cn — an autonomous agent runtime. The agent thinks; cn acts.", long_about = None)]
pub struct Cli {
    /// The hub (the agent's git repository). Default: $CN_HUB, else the nearest directory
    /// upwards holding cn.yaml.
    #[arg(long, global = true, env = "CN_HUB", value_name = "DIR")]
    pub hub: Option<PathBuf>,
    /// More logging on stderr (-v info, -vv debug); CN_LOG overrides.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The main job: a scenario showing every layer working, on a hub in a temp directory.
    Demo(demo::Args),
    /// Run the agent: the daemon (senses, attention, the loop), or --once / --until-idle.
    Run(run::Args),
    /// Talk to the agent as its owner: each line a message, answered before anything else.
    Chat(chat::Args),
    /// Extract the tool calls from a model's markdown answer and print them as JSON.
    Parse(parse::Args),
    /// Create a hub: a git repository with cn.yaml, state/ and threads/.
    Init(init::Args),
    /// A working hub from the hub's origin on this machine (its state; fresh secrets).
    Clone(clone::Args),
    /// The hub's lease in origin: who holds it, and whether this clone is active or standing by.
    Lease(lease::Args),
    /// The hub's configuration: `show` every value with where it came from; `check` it as
    /// `cn run` would.
    Config(config::Args),
    /// Print the current item (taking the next from the queue when there is none).
    Input(input::Args),
    /// Decide the current item: cn out <do|defer|delegate|delete> [op] [flags].
    Out(out::Args),
    /// Serve the agent interface (input, out, tasks, ideas, journal) as an MCP server on stdio.
    Mcp(mcp::Args),
    /// Mail a peer (sent by the next `cn sync`).
    Send(send::Args),
    /// Exchange mail with peers over git.
    Sync(sync::Args),
    /// Manage peers.
    #[command(subcommand)]
    Peer(peer::Command),
    /// AI loops on a git repository: sensor, controller, actuator, orchestrator.
    Loop(loop_cmd::Args),
    /// Reflexes: list them with their analytics, or test what one would do with a text.
    Reflex(reflex::Args),
    /// The agent's commitments (state/tasks.json): add, list, done.
    Task(task::Args),
    /// Curiosities to explore when idle (state/ideas.json): add, list, rm.
    Idea(idea::Args),
    /// Recurring work (state/schedule.json): add, list, rm; `next` prints a cron's fire times.
    Schedule(schedule::Args),
    /// What the agent did (state/journal.jsonl), and `why ID`.
    Journal(journal::Args),
    /// Ask a level (2 local, 3 executive) and print the model's markdown.
    Ask(ask::Args),
    /// Today's executive spend and reservations, items by level, tokens saved by reflexes.
    Budget(budget::Args),
    /// The embedded local model: `cn model pull`.
    Model(model::Args),
    /// Actions held for your approval: what each runs, and what "always allow" remembers.
    Approvals(approvals::ListArgs),
    /// Approve a held action: it runs now.
    Approve(approvals::IdArgs),
    /// Deny a held action: it never runs.
    Deny(approvals::IdArgs),
    /// The control room: a web page to watch and steer the agent (prints its address first).
    Serve(serve::Args),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Parse(args) => parse::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Run(args) => run::run(cli.hub.as_deref(), args),
        Command::Chat(args) => chat::run(cli.hub.as_deref(), args),
        Command::Init(args) => init::run(cli.hub.as_deref(), args),
        Command::Clone(args) => clone::run(cli.hub.as_deref(), args),
        Command::Lease(args) => lease::run(cli.hub.as_deref(), args),
        Command::Config(args) => config::run(cli.hub.as_deref(), args),
        Command::Input(args) => input::run(cli.hub.as_deref(), args),
        Command::Out(args) => out::run(cli.hub.as_deref(), args),
        Command::Mcp(args) => mcp::run(cli.hub.as_deref(), args),
        Command::Send(args) => send::run(cli.hub.as_deref(), args),
        Command::Sync(args) => sync::run(cli.hub.as_deref(), args),
        Command::Peer(cmd) => peer::run(cli.hub.as_deref(), cmd),
        Command::Loop(args) => loop_cmd::run(args, cli.hub.as_deref()),
        Command::Reflex(args) => reflex::run(cli.hub, args),
        Command::Task(args) => task::run(cli.hub.as_deref(), args),
        Command::Idea(args) => idea::run(cli.hub.as_deref(), args),
        Command::Schedule(args) => schedule::run(cli.hub.as_deref(), args),
        Command::Journal(args) => journal::run(cli.hub.as_deref(), args),
        Command::Ask(args) => ask::run(args, cli.hub),
        Command::Budget(args) => budget::run(cli.hub.as_deref(), args),
        Command::Model(args) => model::run(args),
        Command::Approvals(args) => approvals::list(cli.hub.as_deref(), args),
        Command::Approve(args) => approvals::approve(cli.hub.as_deref(), args),
        Command::Deny(args) => approvals::deny(cli.hub.as_deref(), args),
        Command::Serve(args) => serve::run(cli.hub.as_deref(), args),
    }
}
