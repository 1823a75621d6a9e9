//! `cn lease` — the hub's lease in origin (cn.yaml `origin.lease`): who holds it, and whether
//! this clone is the active one, a standby, or not running. Reads origin once. It lists the
//! carries this clone set aside at a takeover (no clone's MAC: a cn before the MAC wrote them,
//! or someone who may push to origin), item by item; `cn lease take-in REF` files one's items
//! once the owner has looked.

use std::path::Path;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(subcommand)]
    pub command: Option<Sub>,
    /// Print it as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Take in a carry set aside at a takeover (`cn lease` lists them, with what each holds):
    /// its items go into the inbox, each as from whom the carry says. Only on the clone that
    /// holds the lease (or a hub without `origin.lease`).
    TakeIn {
        /// The carry's ref, as `cn lease` names it (`refs/cn/set-aside/carry-…`, or the part
        /// after `refs/cn/set-aside/`).
        name: String,
    },
}

/// Why a hub without an `origin:` section has no lease.
const NOT_KEPT: &str =
    "cn.yaml asks no `origin:` push or lease, so this hub is not kept in origin and its `cn run` decides alone";

pub fn run(hub: Option<&Path>, args: Args) -> anyhow::Result<ExitCode> {
    let hub = super::hub::open(hub)?;
    if let Some(Sub::TakeIn { name }) = &args.command {
        let filed = cn_daemon::fleet::take_in(&hub, name)?;
        println!("took in {}: {} item(s) filed in the inbox", super::shown_line(name), filed.len());
        for id in &filed {
            println!("  {id}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if !hub.config().origin.pushes() {
        // Nothing to read in origin: say what the hub is, not an error about a lease.
        if args.json {
            println!("{}", serde_json::json!({"leased": false, "origin": null, "why": NOT_KEPT}));
        } else {
            println!("no lease: {NOT_KEPT}");
            println!("  a hub run as clones on several machines takes one with `origin: {{lease: 30s}}` in cn.yaml");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let s = cn_daemon::fleet::status(&hub)?;
    let set_aside = cn_daemon::fleet::set_aside_carries(&hub)?;
    let same_key = s.origin.as_ref().map(|o| o.key == s.me.key);
    if args.json {
        let v = serde_json::json!({
            "leased": s.lease.is_some(),
            "lease_secs": s.lease.map(|d| d.as_secs_f64()),
            "origin": s.origin.as_ref().map(|o| serde_json::json!({
                "holder": o.holder, "label": o.label, "term": o.term, "ttl_secs": o.ttl.as_secs_f64(),
                "released": o.released, "key": o.key, "branch": o.branch,
            })),
            "origin_commit": s.origin_sha,
            "head": s.head,
            "clone": {"id": s.me.clone_id, "label": s.me.label, "key": s.me.key},
            "role": s.role.as_ref().map(|r| r.0.clone()),
            "holds_secs": s.holds.map(|d| d.as_secs_f64()),
            "same_key": same_key,
            "authentic": s.authentic,
            "set_aside_carries": set_aside.iter().map(|c| serde_json::json!({
                "ref": c.refname, "commit": c.sha,
                "items": c.percepts.iter().map(|p| serde_json::json!({
                    "id": p.id, "sense": cn_autonomy::percept::written_name(p.sense), "owner": p.owner, "summary": p.summary,
                })).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        });
        println!("{v}");
        return Ok(ExitCode::SUCCESS);
    }
    match (&s.origin, &s.origin_sha) {
        (Some(o), _) => println!(
            "origin's lease: {} by {} (term {}, {:?}), key {}",
            if o.released { "handed back" } else { "held" },
            // What origin's lease says is whoever pushed it: shown, never obeyed by the terminal.
            super::shown_line(&o.label),
            o.term,
            o.ttl,
            super::shown_line(&o.key)
        ),
        (None, Some(sha)) => println!("origin's lease: {sha} (not a lease cn can read)"),
        (None, None) => println!("origin's lease: none yet (the first `cn run` takes it)"),
    }
    if s.origin_sha.is_some() && !s.authentic {
        println!(
            "  no clone of this hub wrote it (its MAC does not verify with the hub's id key: pushed by someone else, or by a cn before the MAC): it is not trusted — never taken as handed back, timed by this clone's own lease time"
        );
    }
    let role = match (&s.role, s.holds) {
        (Some((r, _)), Some(left)) if r == "active" => format!("active — may decide for {:.0?} more", left),
        (Some((r, why)), _) => {
            format!("{r}{}", why.as_ref().map(|w| format!(" ({})", super::shown_line(w))).unwrap_or_default())
        }
        (None, _) => "no `cn run` here".into(),
    };
    println!("this clone: {} — {role}", s.me.label);
    // A lease no clone wrote names whatever key its writer put there: told above, not here.
    if same_key == Some(false) && s.authentic {
        println!(
            "  its id key is not the hub's (fingerprint {} vs {}): it will not take the lease over; copy .git/cn-id-key from a machine that ran the hub",
            s.me.key,
            super::shown_line(s.origin.as_ref().map_or("", |o| o.key.as_str()))
        );
    }
    if s.lease.is_none() {
        println!("  cn.yaml sets no `origin.lease`: this hub is not leased");
    }
    for c in &set_aside {
        println!(
            "set aside at a takeover (no clone of this hub wrote it: a cn before the MAC, or someone who may push to origin): {} — {} item(s)",
            c.refname,
            c.percepts.len()
        );
        for p in &c.percepts {
            // What the carry says, whoever wrote it: shown, never obeyed by the terminal.
            let who = if p.owner {
                "the owner's".to_string()
            } else {
                format!("from {}", cn_autonomy::percept::written_name(p.sense))
            };
            println!("  {} ({who}): {}", super::shown_line(&p.id), super::shown_line(&p.summary));
        }
        println!("  to file these in the inbox, as from whom each says: cn lease take-in {}", c.refname);
    }
    Ok(ExitCode::SUCCESS)
}
