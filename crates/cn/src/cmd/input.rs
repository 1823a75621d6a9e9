//! `cn input [--json] [ID]` — the current item. With none, cn takes the next from the queue
//! (its order, not the agent's); with an empty queue it says so — and names the items handed
//! up and waiting in threads/deferred/ — and exits 3. `cn input ID` shows the item `ID`
//! wherever it is (the inbox, current, deferred, decided) without taking it: the command a
//! hand-up names.

use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print `{"id","from","content","cadence"}` instead of the item file, with `"subject"`
    /// when the item is a mail that has one.
    #[arg(long)]
    pub json: bool,
    /// Show this item, wherever it waits or was decided, without taking it.
    pub id: Option<String>,
}

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    let next = match &args.id {
        Some(id) => shown_item(&hub, id),
        None => cn_agent::take_next(&hub).and_then(|item| item.ok_or_else(|| empty(&hub))),
    };
    super::hub::finish(next, |item| {
        if args.json {
            println!("{}", serde_json::to_string(&item.to_json())?);
        } else {
            print!("{}", super::shown(&item.render()));
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// The item `id`, wherever the hub holds it.
fn shown_item(hub: &cn_agent::Hub, id: &str) -> Result<cn_agent::Item, cn_agent::AgentError> {
    use cn_agent::Place;
    let path = match cn_agent::locate(hub, id)? {
        Some(Place::Inbox(p) | Place::Deferred(p) | Place::Decided(p)) => p,
        Some(Place::Current) => hub.input(),
        None => {
            return Err(cn_agent::AgentError::Invalid(format!(
                "no item `{id}` in threads/ (inbox, current, deferred or decided)"
            )))
        }
    };
    cn_agent::Item::read(&path)
}

/// Nothing in the inbox: said, with what waits in threads/deferred/ (handed up or deferred).
fn empty(hub: &cn_agent::Hub) -> cn_agent::AgentError {
    let mut waiting: Vec<String> = std::fs::read_dir(hub.deferred())
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().into_string().ok()?.strip_suffix(".md").map(str::to_string))
        .collect();
    waiting.sort();
    let mut said = "the queue is empty: nothing in threads/inbox/".to_string();
    if !waiting.is_empty() {
        let listed: Vec<String> = waiting
            .iter()
            .map(|id| {
                let first = cn_agent::Item::read(&hub.deferred().join(format!("{id}.md")))
                    .map(|i| {
                        super::shown_line(i.content.lines().find(|l| !l.trim().is_empty()).unwrap_or("")).to_string()
                    })
                    .unwrap_or_default();
                format!("  {id}  {first}")
            })
            .collect();
        said.push_str(&format!(
            "\n{} waiting in threads/deferred/ (`cn input ID` shows one):\n{}",
            waiting.len(),
            listed.join("\n")
        ));
    }
    cn_agent::AgentError::Empty(said)
}
