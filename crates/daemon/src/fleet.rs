//! One hub on several machines (cn.yaml `origin.lease`): `cn run` on each clone either holds
//! the lease in origin and runs the agent, or stands by.
//!
//! Standing by, it runs nothing of the agent — no sense, no owner endpoint, no control room,
//! no model — and only looks at origin's lease every quarter of its time (one listing; the
//! lease's commit and the branch's head fetched when new, so a takeover has them). When the
//! lease is free (none, handed back, this clone's own earlier run, or unrenewed for its
//! whole time by this machine's clock) it takes it by compare and swap, moves the working
//! tree to origin's head (what this clone held that origin lacks is set aside under
//! `refs/cn/set-aside/…`), journals the takeover and the item it resumes, and runs the agent
//! ([`crate::active`]) with the pusher ([`crate::replica`]) until the person stops it — the
//! lease is then handed back, so a standby takes over at once — or until the lease is lost,
//! when it stands by again.
//!
//! Invariant: a clone decides only between a successful takeover and the end of its lease
//! (the fence, `cn_lease::check`); what it decided reaches origin only with the lease's
//! renewal (one atomic push), so two clones never both get a decision into origin.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use cn_autonomy::attention::spool::TakenOver;
use cn_compute::StopToken;
use cn_hub::journal::{Kind, Record};
use cn_lease::{Adopted, Upstream, Verdict, Watch};

use crate::{active, DaemonError, RunMode, RunOptions, RunReport};

/// Run the hub's agent whenever this clone holds the lease, standing by otherwise, until
/// `stop` (or, for `--once` / `--until-idle`, until that run is done).
pub fn run(
    hub: cn_agent::Hub,
    options: RunOptions,
    stop: StopToken,
    upstream: Upstream,
) -> Result<RunReport, DaemonError> {
    let root = hub.root().to_path_buf();
    let ttl = upstream.lease().unwrap_or(Duration::from_secs(30));
    let me = upstream.me().map_err(DaemonError::Origin)?;
    let mut report = RunReport { mode: options.mode, moves: 0, decided: 0, listening: None };
    let mut watch = Watch::default();
    // What standing by last said, so it is journaled when it changes, not at every look.
    let mut said = String::new();
    while !stop.is_stopped() {
        // Someone besides the holder pushed origin's branch: its content (cn.yaml included)
        // is not adopted, and no lease taken, until the owner has looked.
        if let Some(why) = upstream.diverged() {
            if options.mode != RunMode::Daemon {
                return Err(DaemonError::Standby(why));
            }
            stand_by(&root, &mut said, &why, None);
            stop.wait(ttl / 4);
            continue;
        }
        let seen = match upstream.observe() {
            Ok(seen) => seen,
            Err(e) => {
                let why = format!("origin cannot be read: {}", cn_compute::Chain(&e));
                stand_by(&root, &mut said, &why, None);
                stop.wait(ttl / 4);
                continue;
            }
        };
        match watch.verdict(&seen, &me, ttl, upstream.held().as_ref()) {
            Verdict::Held { holder, left } => {
                if options.mode != RunMode::Daemon {
                    return Err(DaemonError::Standby(format!("{holder} holds the lease")));
                }
                stand_by(&root, &mut said, &format!("{holder} holds the lease"), Some(&holder));
                stop.wait(left.min(ttl / 4).max(Duration::from_millis(50)));
                continue;
            }
            Verdict::Refuse(why) => {
                if options.mode != RunMode::Daemon {
                    return Err(DaemonError::Standby(why));
                }
                stand_by(&root, &mut said, &why, None);
                stop.wait(ttl / 4);
                continue;
            }
            Verdict::Free(why) => {
                let held = match upstream.acquire(&seen) {
                    Ok(held) => held,
                    Err(e) => {
                        // Another clone was faster, or origin refused: look again.
                        stand_by(
                            &root,
                            &mut said,
                            &format!("could not take the lease: {}", cn_compute::Chain(&e)),
                            None,
                        );
                        stop.wait(Duration::from_millis(200));
                        continue;
                    }
                };
                said.clear();
                let adopted =
                    cn_agent::Hub::open(&root).map_err(|e| DaemonError::Config(hub_config(e))).and_then(|hub| {
                        let _lock = cn_agent::lock(&hub);
                        upstream.adopt_head(seen.head.as_deref()).map_err(DaemonError::Origin)
                    });
                let adopted = match adopted {
                    Ok(a) => a,
                    Err(e) => {
                        tracing::error!(error = %cn_compute::Chain(&e), "cannot move to origin's head; handing the lease back");
                        let _ = upstream.release();
                        stop.wait(ttl / 4);
                        continue;
                    }
                };
                // The hub as origin has it now: its cn.yaml may differ from the one this clone
                // started with. One that cannot run hands the lease back before saying why.
                let hub = cn_agent::Hub::open(&root)
                    .map_err(|e| DaemonError::Config(hub_config(e)))
                    .and_then(|hub| crate::check(&hub, options.mode).map(|_| hub));
                let hub = match hub {
                    Ok(hub) => hub,
                    Err(e) => {
                        let _ = upstream.release();
                        return Err(e);
                    }
                };
                // What the machine before this one admitted and acknowledged but no decision
                // took becomes this clone's spool, so its attention admits it. One that cannot
                // be read is not overwritten by this clone's first push: stand by instead.
                let own = seen.lease.as_ref().and_then(|l| l.record.as_ref()).is_some_and(|r| r.holder == me.clone_id);
                // Listed again now that the lease is this clone's: the previous holder may have
                // pushed a newer carry between the look and the compare-and-swap.
                let taken = upstream.carry_tip().map_err(|e| cn_compute::chain(&e)).and_then(|tip| match tip {
                    Some(sha) => take_over_carry(&hub, &upstream, &sha, own),
                    None => Ok(TakenOver::default()),
                });
                let taken = match taken {
                    Ok(taken) => taken,
                    Err(why) => {
                        tracing::error!(%why, "what origin carried cannot be taken over; handing the lease back");
                        journal_note(
                            &hub,
                            "what the machine before this one took in could not be read from origin: the lease is handed back, and taken again later",
                            &why,
                        );
                        let _ = upstream.release();
                        stand_by(&root, &mut said, &format!("origin's carry cannot be taken over: {why}"), None);
                        stop.wait(ttl);
                        continue;
                    }
                };
                journal_takeover(&hub, &why, held.term, &adopted, taken);
                // A lease no clone wrote was in origin (forged, or from a cn before the MAC):
                // never adopted (timed by this clone's own lease time, then replaced); the
                // owner is told.
                if let Some(lease) = seen.lease.as_ref().filter(|l| !l.authentic) {
                    alert(
                        &hub,
                        "origin's lease had been written by no clone of this hub (its MAC does not verify with the hub's id key): it was not trusted — timed by this clone's own lease time, then replaced; if no older cn wrote it, someone who may push to origin did",
                        &format!("{}: {why}", lease.sha),
                    );
                }
                let term = stop.child();
                let replica = Arc::new(crate::replica::Replica::start(upstream.clone(), term.clone()));
                // The takeover is in origin before the agent starts.
                if let Err(e) = replica.checkpoint(&format!("cn: took the hub's lease over (term {})", held.term)) {
                    tracing::warn!(%e, "the takeover could not be pushed; standing by again");
                    continue;
                }
                let run = active(hub, options.clone(), term, Some(replica.clone()));
                let fenced = replica.fenced();
                drop(replica);
                let this = run?;
                report.moves += this.moves;
                report.decided += this.decided;
                report.listening = this.listening.or(report.listening);
                if fenced.is_none() {
                    // Stopped by the person (or a run to idle ended): hand the lease back so
                    // a standby takes over at once.
                    if let Err(e) = upstream.release() {
                        tracing::warn!(error = %cn_compute::Chain(&e), "cannot hand the lease back; it expires by itself");
                    }
                    break;
                }
                watch = Watch::default();
            }
        }
    }
    Ok(report)
}

fn hub_config(e: cn_hub::HubError) -> crate::ConfigError {
    crate::ConfigError::Invalid { key: "origin".into(), message: cn_compute::chain(&e) }
}

/// Stand by: say so in `state/run.json` (for `cn lease`) and, when it changed, in the log.
fn stand_by(root: &Path, said: &mut String, why: &str, holder: Option<&str>) {
    let info = serde_json::json!({
        "pid": std::process::id(),
        "role": "standby",
        "since": cn_storage::now_rfc3339(),
        "holder": holder,
        "why": why,
    });
    if said != why {
        if let Err(e) = cn_storage::write_json_atomic(&crate::run_info(root), &info) {
            tracing::warn!(e = %cn_compute::Chain(&e), "cannot write state/run.json");
        }
        // Said on stderr and in run.json only: the hub's journal is the active clone's (a line
        // written here would be set aside at the takeover anyway).
        eprintln!("cn run: standing by: {}", cn_process::redact::printable_line(why));
        *said = why.to_string();
    }
}

/// The takeover, in the journal: why the lease was free, the term, what became of this
/// clone's own history, and the item in flight that is resumed.
fn journal_takeover(hub: &cn_agent::Hub, why: &str, term: u64, adopted: &Adopted, taken: TakenOver) {
    let history = match adopted {
        Adopted::NothingInOrigin => "origin held no branch yet: this clone's is pushed".to_string(),
        Adopted::Same => "this clone was at origin's head".to_string(),
        Adopted::Forward { to, .. } => format!("moved forward to origin's head {}", short(to)),
        Adopted::SetAside { set_aside, commits, to } => format!(
            "{commits} commit(s) this clone held that origin lacked are kept under {set_aside}; moved to origin's head {}",
            short(to)
        ),
    };
    let in_flight = cn_agent::current(hub).ok().flatten();
    let entry = crate::journal::LeaseTaken {
        id: cn_hub::id::prefixed("lease"),
        summary: format!("took over the hub's lease (term {term}): {why}"),
        context: &history,
        outcome: "active",
        term,
        carried: taken.carried as u64,
        dropped: taken.dropped as u64,
        resumed: in_flight.as_ref().map(|item| item.id.as_str()),
    };
    eprintln!("cn run: active (term {term}): {why}");
    if let Err(e) = hub.journal().and_then(|mut j| j.write(&entry)) {
        tracing::warn!(e = %cn_compute::Chain(&e), "cannot write the journal");
    }
}

/// The hub's spool becomes origin's carry (commit `sha`; see
/// `cn_autonomy::attention::spool::take_over`), keeping what this clone's spool held when the
/// lease was its own (`own`). `Err`: the carry could not be read or written here.
///
/// A carry whose MAC does not verify with the hub's id key (pushed by someone else, or
/// written by a cn before the MAC) is not taken in: its commit is kept in this clone under
/// `refs/cn/set-aside/carry-…` and the owner is told (journal, stderr).
fn take_over_carry(hub: &cn_agent::Hub, upstream: &Upstream, sha: &str, own: bool) -> Result<TakenOver, String> {
    let spool = hub.layout().attention();
    let carried = upstream.carried(sha).map_err(|e| cn_compute::chain(&e))?;
    let lines = if carried.authentic || carried.lines.iter().all(u8::is_ascii_whitespace) {
        carried.lines
    } else {
        let stamp = jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ").to_string();
        let kept = format!("{}carry-{stamp}-{}", cn_lease::SET_ASIDE_REFS, short(sha));
        let where_ = match upstream.git().update_ref(&kept, sha) {
            Ok(_) => format!("kept under {kept} (`git show {kept}`)"),
            Err(e) => format!("commit {sha}, not kept here: {}", cn_compute::Chain(&e)),
        };
        let items = carried.lines.split(|b| *b == b'\n').filter(|l| !l.iter().all(u8::is_ascii_whitespace)).count();
        alert(
            hub,
            "origin's carry (refs/cn/attention) was written by no clone of this hub (its MAC does not verify with the hub's id key): none of it was taken in; if an older cn wrote it, what it held is kept for the owner to look at, else someone who may push to origin did",
            &format!("{items} line(s), {where_}"),
        );
        Vec::new()
    };
    cn_autonomy::attention::spool::take_over(&spool, &lines, own).map_err(|e| format!("{}: {e}", spool.display()))
}

/// Tell the owner of something origin held that no clone wrote: the hub's journal (an
/// observation whose summary starts "origin's") and this daemon's stderr.
fn alert(hub: &cn_agent::Hub, summary: &str, context: &str) {
    tracing::warn!(%context, "{summary}");
    eprintln!("cn run: {summary} ({})", cn_process::redact::printable_line(context));
    journal_note(hub, summary, context);
}

/// An observation in the hub's journal (a journal that cannot be written is logged).
fn journal_note(hub: &cn_agent::Hub, summary: &str, context: &str) {
    let record = Record::new(Kind::Observation, cn_hub::id::prefixed("lease"), summary).context(context);
    if let Err(e) = hub.journal().and_then(|mut j| j.record(record)) {
        tracing::warn!(e = %cn_compute::Chain(&e), "cannot write the journal");
    }
}

fn short(sha: &str) -> &str {
    &sha[..12.min(sha.len())]
}

/// `cn lease`: the hub's lease as origin shows it, and this clone's part in it.
#[derive(Debug, Clone)]
pub struct LeaseStatus {
    /// cn.yaml's `origin.lease` (none: the hub is not leased).
    pub lease: Option<Duration>,
    /// What origin's lease says (`None`: origin holds none, or it is unreadable).
    pub origin: Option<cn_lease::LeaseRecord>,
    /// Origin's lease commit, if there is one.
    pub origin_sha: Option<String>,
    /// Origin's lease was written by a clone of this hub (its MAC verifies).
    pub authentic: bool,
    /// Origin's head of the hub's branch.
    pub head: Option<String>,
    pub me: cn_lease::Me,
    /// What this clone's `cn run` is, if one runs: `active` or `standby` (and why).
    pub role: Option<(String, Option<String>)>,
    /// How long this clone may still decide (it holds the lease).
    pub holds: Option<Duration>,
}

/// The lease of `hub`'s origin, read now (one listing of origin), and this clone's part.
pub fn status(hub: &cn_agent::Hub) -> Result<LeaseStatus, DaemonError> {
    let upstream = upstream_of(hub)?;
    let seen = upstream.observe().map_err(DaemonError::Origin)?;
    let me = upstream.me().map_err(DaemonError::Origin)?;
    let role = cn_storage::ProcessLock::is_held(&crate::run_lock(hub.root()))
        .then(|| std::fs::read_to_string(crate::run_info(hub.root())).ok())
        .flatten()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| Some((v["role"].as_str()?.to_string(), v["why"].as_str().map(str::to_string))));
    Ok(LeaseStatus {
        lease: upstream.lease(),
        origin_sha: seen.lease.as_ref().map(|l| l.sha.clone()),
        authentic: seen.lease.as_ref().is_some_and(|l| l.authentic),
        origin: seen.lease.and_then(|l| l.record),
        head: seen.head,
        holds: upstream.held().filter(|h| h.holder == me.clone_id).and_then(|h| h.remaining()),
        me,
        role,
    })
}

/// A carry set aside at a takeover (its MAC did not verify: written by a cn before the MAC,
/// or pushed by someone who may push to origin), kept under
/// `refs/cn/set-aside/carry-…` for the owner to look at ([`take_in`]).
#[derive(Debug, Clone)]
pub struct SetAsideCarry {
    pub refname: String,
    pub sha: String,
    /// What it holds, read as an authentic carry is (outside percepts only, each id once).
    pub percepts: Vec<cn_autonomy::percept::Percept>,
}

/// The carries set aside in this clone, oldest first.
pub fn set_aside_carries(hub: &cn_agent::Hub) -> Result<Vec<SetAsideCarry>, DaemonError> {
    let upstream = upstream_of(hub)?;
    let pattern = format!("{}carry-*", cn_lease::SET_ASIDE_REFS);
    let listed = upstream.git().local_refs(&pattern).map_err(|e| DaemonError::Origin(e.into()))?;
    let mut out = Vec::new();
    for (sha, refname) in &listed {
        let carried = upstream.carried(sha).map_err(DaemonError::Origin)?;
        let (lines, _) = cn_autonomy::attention::spool::read_carry(&carried.lines);
        let percepts = lines
            .split(|b| *b == b'\n')
            .filter_map(|l| serde_json::from_slice::<serde_json::Value>(l).ok())
            .filter_map(|v| serde_json::from_value::<cn_autonomy::Input>(v.get("add")?.clone()).ok())
            .filter_map(|input| match input {
                cn_autonomy::Input::Percept(p) => Some(p),
                _ => None,
            })
            .collect();
        out.push(SetAsideCarry { refname: refname.to_string(), sha: sha.to_string(), percepts });
    }
    Ok(out)
}

/// The owner takes in the carry set aside under `name` (its ref, or the part after
/// `refs/cn/set-aside/`), having looked at it (`cn lease`): each item it holds goes into the
/// hub's inbox as the item its percept makes — its author as the carry says — unless the hub
/// holds it already; the ref moves to `refs/cn/taken-in/…`; journaled. Only where the clone
/// may decide (the active clone; any clone of a hub without `origin.lease`): what a standby
/// filed would never reach origin. The ids of the items filed.
pub fn take_in(hub: &cn_agent::Hub, name: &str) -> Result<Vec<String>, DaemonError> {
    let upstream = upstream_of(hub)?;
    cn_lease::check(hub.layout(), &hub.config().origin).map_err(DaemonError::Origin)?;
    let carry = set_aside_carries(hub)?
        .into_iter()
        .find(|c| c.refname == name || c.refname.strip_prefix(cn_lease::SET_ASIDE_REFS) == Some(name))
        .ok_or_else(|| {
            DaemonError::Origin(cn_lease::LeaseError::Carry(format!(
                "this clone set no carry aside as `{}` (`cn lease` lists those it did)",
                cn_process::redact::printable_line(name)
            )))
        })?;
    let state = |e: cn_agent::AgentError| DaemonError::State {
        path: hub.inbox(),
        source: std::io::Error::other(cn_compute::chain(&e)),
    };
    let mut filed = Vec::new();
    {
        let _lock = cn_agent::lock(hub).map_err(state)?;
        for p in &carry.percepts {
            let id = crate::mind::percept_id(p);
            if cn_agent::locate(hub, &id).map_err(state)?.is_some() {
                continue;
            }
            cn_agent::enqueue(hub, &crate::mind::percept_item(&id, p, 0)).map_err(state)?;
            filed.push(id);
        }
    }
    let rest = carry.refname.strip_prefix(cn_lease::SET_ASIDE_REFS).unwrap_or(&carry.refname);
    let taken = format!("refs/cn/taken-in/{rest}");
    let git = |args: &[&str]| upstream.git().run(args).map(drop).map_err(|e| DaemonError::Origin(e.into()));
    git(&["update-ref", &taken, &carry.sha])?;
    git(&["update-ref", "-d", &carry.refname, &carry.sha])?;
    journal_note(
        hub,
        "the owner took in a carry set aside at a takeover",
        &format!(
            "{} item(s) of {} filed in the inbox ({}), {} already in the hub; kept under {taken}",
            filed.len(),
            short(&carry.sha),
            filed.join(", "),
            carry.percepts.len() - filed.len()
        ),
    );
    Ok(filed)
}

/// The hub's origin, or why it has none.
fn upstream_of(hub: &cn_agent::Hub) -> Result<Upstream, DaemonError> {
    Upstream::of(hub).map_err(DaemonError::Origin)?.ok_or_else(|| {
        DaemonError::Origin(cn_lease::LeaseError::Fenced {
            why: "cn.yaml has no `origin:` section: the hub is not kept in origin".into(),
        })
    })
}
