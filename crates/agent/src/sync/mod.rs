//! `cn sync`: mail between peers over git, where every hub writes only to its own `origin`
//! and only reads its peers'.
//!
//! In a hub's own repository (`origin`):
//!
//! - `refs/heads/cn-mail/<to>/<id>` — a mail it sent, not yet acknowledged: a root commit
//!   holding `<id>.md`, whose message is the [`Envelope`] (sender, recipient, id, created,
//!   the SHA-256 of the file's bytes);
//! - `refs/heads/cn-receipt/<from>/<id>` — a receipt: it took mail `<id>` from peer `<from>`.
//!
//! One sync:
//!
//! 1. **In.** For each peer, list (read-only) its `cn-mail/<me>/*`, its `cn-receipt/<me>/*`
//!    and the old layout's `<me>/*`, and fetch the new mail by hash into a quarantine; then,
//!    every peer's at once, size and read it and check each envelope; file the mail in
//!    `threads/inbox/` (or reject it with a notice to its sender), make every item filed
//!    durable, then record what was taken in `state/peer-mail.json`.
//! 2. **Out.** In one push to `origin`: the outbox's mail; a receipt for every mail taken
//!    that its sender still lists; the deletion of every mail of ours a peer has receipted,
//!    and of every receipt whose mail its sender has since removed (whereupon the record of
//!    it is dropped, so nothing grows with the history of all mail ever sent).
//! 3. **Verify.** A ref counts as pushed (or deleted) only when origin says so: a push that
//!    succeeded carries origin's report of every ref it updated; after a failed one, origin
//!    is listed again, and what it shows is the verdict, whatever git's exit code said. Only
//!    then does a mail leave the outbox for `threads/mail/sent/`.
//!
//! Peers are listed and fetched concurrently (cn.yaml `mail.peers_at_once` at a time), each with one
//! listing when it holds nothing new, and origin is listed beside them (a `git://` peer or
//! origin in protocol v2 spoken by cn, unless git's configuration routes `git://`; anything
//! else by git). When the hub lives in origin (cn.yaml `origin:`), the
//! out step commits first and pushes the hub's branch in the same atomic push as the first
//! refs (renewing the lease, when leased); a clone that does not hold the hub's lease does
//! not sync at all.
//!
//! Invariants:
//! - No hub writes to another's repository; a peer's repository is only listed and fetched.
//! - Never twice: a mail is filed only when neither the record nor the hub holds its id; a
//!   crash between filing and recording is caught by the hub holding it. A mail's commit is
//!   built from its bytes and date alone, so pushing it again yields the same commit.
//! - Never lost: an item is filed (atomically) before it is recorded, and recorded before
//!   its receipt is published; a sender deletes its mail only after a receipt, and only once
//!   the mail's file is in `sent/`, so nothing is pushed again after it was released.
//! - A peer's bytes are bytes: split by git's byte counts, checked against the envelope's
//!   digest, decoded only then; what cannot be read is rejected with a notice, recorded and
//!   receipted like any mail, so it is never read again.
//!
//! This module is the mail's meaning (the layout's refs, what is new, filed, receipted or
//! released); [`transport`] is its git side (listing, fetching into the quarantine, reading
//! within bounds, building the outbox's commits).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::envelope::Envelope;
use crate::error::{io_at, AgentError, Result};
use crate::hub::Hub;
use crate::item::{Item, AUTO, NOTICE};
use crate::lock::lock;
use crate::mail::{post, Mail};
use crate::queue::{locate, md_files};
use cn_hub::id::stable as stable_id;

#[cfg(test)]
mod tests;
mod transport;

use transport::{build_commits, fetch_from, list, list_origin, origin_git, read_fetched, Quarantine};
pub use transport::{parse_batch, Object};

/// Where a hub keeps its outgoing mail: `refs/heads/cn-mail/<to>/<id>`.
pub const MAIL_REFS: &str = "refs/heads/cn-mail/";
/// Where a hub keeps its receipts: `refs/heads/cn-receipt/<from>/<id>`.
pub const RECEIPT_REFS: &str = "refs/heads/cn-receipt/";
/// Names no peer may have: they are the top directories of the mail layout.
pub const RESERVED_NAMES: [&str; 2] = ["cn-mail", "cn-receipt"];

/// What a sync did.
#[derive(Debug, Default, Clone)]
pub struct SyncReport {
    /// Mail pushed (thread ids).
    pub sent: Vec<String>,
    /// Items filed in the inbox (ids).
    pub received: Vec<String>,
    /// Mail rejected (`peer/id`), each with a notice to its sender.
    pub rejected: Vec<String>,
    /// Mail listed again that was already taken (not filed again).
    pub duplicates: usize,
    /// Receipts published in `origin` (`peer/id`).
    pub receipts: Vec<String>,
    /// Mail of ours released after its recipient's receipt (`peer/id`).
    pub released: Vec<String>,
    /// Peers or mail that failed; the rest of the sync went on.
    pub errors: Vec<String>,
    pub committed: bool,
}

/// `state/peer-mail.json`: what this hub knows of each peer's mail.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct PeerMail {
    #[serde(default)]
    pub peers: BTreeMap<String, PeerRecord>,
}

/// One peer's part of [`PeerMail`]. Only `received` is kept in `state/peer-mail.json` (it
/// changes only when mail moves); the rest is how the last sync found the peer, kept in the
/// runtime file `state/peer-status.json` — so a sync that moved nothing changes no file the
/// hub commits. (An older cn kept both in one file: read, then written apart.)
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct PeerRecord {
    /// Mail taken from this peer that it still lists (id → what became of it): each holds a
    /// receipt in `origin` until the peer releases the mail.
    #[serde(default)]
    pub received: BTreeMap<String, Taken>,
    /// When this peer's repository was last listed and fetched without an error.
    #[serde(default, skip_serializing)]
    pub last_fetch: Option<String>,
    /// The last sync's error for this peer, if it failed.
    #[serde(default, skip_serializing)]
    pub last_error: Option<String>,
    /// At the last fetch: mail the peer lists for this hub and this hub has not taken.
    #[serde(default, skip_serializing)]
    pub waiting_in: usize,
    /// At the last sync: mail of ours in `origin` the peer has not receipted yet.
    #[serde(default, skip_serializing)]
    pub waiting_out: usize,
}

/// One peer's line of `state/peer-status.json`: [`PeerRecord`]'s runtime half.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
struct PeerSeen {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_fetch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    last_error: Option<String>,
    #[serde(default)]
    waiting_in: usize,
    #[serde(default)]
    waiting_out: usize,
}

/// A mail taken from a peer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Taken {
    /// The mail's commit in the sender's repository.
    pub commit: String,
    /// `filed`, `duplicate`, or `rejected: why`.
    pub outcome: String,
    pub at: String,
}

/// Most refs one git command line names, to stay far below the OS argument limit.
const CHUNK: usize = 400;

/// Sync: take the peers' mail, then publish under the hub lock. A peer's bytes are listed,
/// fetched (within bounds, into a quarantine removed afterwards) and read *without* the lock
/// — a stranger's slow or hostile mail never holds the hub — and only what was read is filed
/// under it.
pub fn sync(hub: &Hub) -> Result<SyncReport> {
    // A clone of a leased hub takes and publishes mail only while it holds the lease: a
    // standby's receipt would release mail the active daemon never filed.
    cn_lease::check(hub.layout(), &hub.config().origin)?;
    let upstream = cn_lease::Upstream::of(hub)?;
    let peers = hub.peers()?;
    let known = peer_mail(hub)?;
    let legacy_path = hub.layout().received();
    let legacy: BTreeMap<String, String> =
        cn_storage::read_json_or_default(&legacy_path).map_err(io_at(&legacy_path))?;
    let cap = hub.config().mail.max_bytes;
    // Origin's mail refs, listed beside the peers' (not after them, under the lock): the out
    // step starts from this listing. Another sync of this hub may publish between this
    // listing and the lock; what it published is then pushed again (the same commits) or
    // left for the next sync, and the out step's verdict is what origin answered.
    let git = hub.git();
    let origin_url = git.remote_url("origin");
    // A plain `git://` origin is listed by cn itself, as a `git://` peer is: whether git's
    // configuration lets cn connect is asked once for both, and each is reached by cn-git's
    // one choice (`Remote::reached`).
    let plain = origin_url.as_deref().is_some_and(|u| cn_git::Remote::at(u).url.is_some());
    let itself = (!peers.is_empty() || plain) && git.connects_itself();
    let origin_remote = cn_git::Remote::reached("origin", origin_url.as_deref(), itself);
    let mut origin_refs = None;
    let quarantine = if peers.is_empty() { None } else { Some(Quarantine::new(hub, itself)?) };
    let timeout = hub.config().mail.peer_timeout;
    // Peers are listed and fetched at once, a bounded number at a time: a sync of a hundred
    // peers waits for about one peer's round trips, not a hundred's. Each peer has its own
    // deadline (`mail.peer_timeout`, from when its turn comes), and its mail is read and
    // filed as soon as its fetch completes — with those of the peers done by then — so a
    // slow or hostile peer delays no other peer's mail.
    let jobs: Vec<(&String, &crate::hub::Peer)> = peers.iter().collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut report = SyncReport::default();
    let mut seen: BTreeMap<String, Seen> = BTreeMap::new();
    let mut recorded = false;
    let mut failed: Option<AgentError> = None;
    std::thread::scope(|scope| {
        let origin = origin_url.is_some().then(|| scope.spawn(|| list_origin(hub, &origin_remote, &peers)));
        let (done, arrived) = std::sync::mpsc::channel::<(String, Result<Fetched>)>();
        if let Some(quarantine) = &quarantine {
            for _ in 0..hub.config().mail.peers_at_once.clamp(1, jobs.len()) {
                let done = done.clone();
                let (jobs, next, known, legacy) = (&jobs, &next, &known, &legacy);
                scope.spawn(move || {
                    while let Some((name, peer)) = jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
                        let record = known.peers.get(*name);
                        let deadline = std::time::Instant::now() + timeout;
                        let got = fetch_from(hub, name, &peer.remote, record, legacy, cap, quarantine, deadline);
                        if done.send(((*name).clone(), got)).is_err() {
                            return;
                        }
                    }
                });
            }
        }
        drop(done);
        if let Some(quarantine) = &quarantine {
            while let Ok(first) = arrived.recv() {
                let mut batch: BTreeMap<String, Result<Fetched>> =
                    std::iter::once(first).chain(arrived.try_iter()).collect();
                // The batch's mail is read at once: two `git cat-file` for every peer done
                // by now rather than two a peer.
                read_fetched(hub, cap, quarantine, &mut batch);
                match file_in(hub, &peers, batch, &mut report, &mut seen) {
                    Ok(wrote) => recorded |= wrote,
                    Err(e) => {
                        failed.get_or_insert(e);
                    }
                }
            }
        }
        // A listing that failed (or a thread that died) is listed again under the lock.
        origin_refs = origin.and_then(|h| h.join().ok()).and_then(|r| r.ok());
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let _lock = lock(hub)?;
    publish_and_commit(hub, &peers, report, seen, recorded, upstream.as_ref(), origin_refs)
}

/// Read `state/peer-mail.json` and `state/peer-status.json` (empty when absent).
pub fn peer_mail(hub: &Hub) -> Result<PeerMail> {
    let path = hub.layout().peer_mail();
    let mut state: PeerMail = cn_storage::read_json_or_default(&path).map_err(io_at(&path))?;
    let status_path = hub.layout().peer_status();
    // A status file that cannot be read is only missing figures: the next sync rewrites it.
    let status: BTreeMap<String, PeerSeen> = cn_storage::read_json_or_default(&status_path).unwrap_or_default();
    for (name, seen) in status {
        let record = state.peers.entry(name).or_default();
        if seen != PeerSeen::default() {
            (record.last_fetch, record.last_error) = (seen.last_fetch, seen.last_error);
            (record.waiting_in, record.waiting_out) = (seen.waiting_in, seen.waiting_out);
        }
    }
    Ok(state)
}

/// Write what changed: `state/peer-mail.json` only when its records differ from the file's
/// (so a sync that moved no mail leaves it alone), `state/peer-status.json` (runtime) only
/// when the peers' figures differ. True when `peer-mail.json` was written.
fn save(hub: &Hub, state: &PeerMail) -> Result<bool> {
    let status: BTreeMap<&String, PeerSeen> = state
        .peers
        .iter()
        .map(|(name, r)| {
            let seen = PeerSeen {
                last_fetch: r.last_fetch.clone(),
                last_error: r.last_error.clone(),
                waiting_in: r.waiting_in,
                waiting_out: r.waiting_out,
            };
            (name, seen)
        })
        .collect();
    write_if_changed(&hub.layout().peer_status(), &status)?;
    let records = hub.layout().peer_mail();
    if !records.exists() && state.peers.values().all(|r| r.received.is_empty()) {
        // Nothing taken yet: no file to make.
        return Ok(false);
    }
    write_if_changed(&records, state)
}

/// Write `value` as JSON to `path` unless the file already holds exactly that; true when
/// written.
fn write_if_changed(path: &std::path::Path, value: &impl Serialize) -> Result<bool> {
    let text = serde_json::to_string_pretty(value).map_err(|e| io_at(path)(std::io::Error::other(e)))?;
    if std::fs::read_to_string(path).is_ok_and(|t| t.trim_end() == text.trim_end()) {
        return Ok(false);
    }
    cn_storage::write_json_atomic(path, value).map_err(io_at(path))?;
    Ok(true)
}

/// In (step 1), under the hub lock (taken here): file what was fetched from some peers (each
/// mail only if no sync took it meanwhile) and record it. True when `peer-mail.json` was
/// written.
fn file_in(
    hub: &Hub,
    peers: &BTreeMap<String, crate::hub::Peer>,
    fetched: BTreeMap<String, Result<Fetched>>,
    report: &mut SyncReport,
    seen: &mut BTreeMap<String, Seen>,
) -> Result<bool> {
    let _lock = lock(hub)?;
    let mut state = peer_mail(hub)?;
    // A peer removed with `cn peer rm` is forgotten with it.
    state.peers.retain(|name, _| peers.contains_key(name));
    let mut filed = Vec::new();
    for (name, got) in fetched {
        let record = state.peers.entry(name.clone()).or_default();
        match got.and_then(|f| file_from(hub, &name, f, record, report, &mut filed)) {
            Ok(s) => {
                record.last_fetch = Some(cn_storage::now_rfc3339());
                record.last_error = None;
                seen.insert(name, s);
            }
            Err(e) => {
                let e = format!("peer {name}: {e}", e = cn_compute::Chain(&e));
                record.last_error = Some(e.clone());
                report.errors.push(e);
            }
        }
    }
    // Every item on disk, by one barrier for every peer's, before it is recorded (and then
    // receipted).
    let inbox = hub.inbox();
    cn_storage::sync_files(&filed, &[inbox.as_path()]).map_err(io_at(&inbox))?;
    // Recorded before any receipt is published: a receipt always stands for a filed mail.
    save(hub, &state)
}

/// Under the hub lock, once every peer's mail was filed ([`file_in`]): publish (2.) and
/// verify (3.), journal and commit what moved.
fn publish_and_commit(
    hub: &Hub,
    peers: &BTreeMap<String, crate::hub::Peer>,
    mut report: SyncReport,
    seen: BTreeMap<String, Seen>,
    mut recorded: bool,
    upstream: Option<&cn_lease::Upstream>,
    origin_refs: Option<Vec<(MailRef, String)>>,
) -> Result<SyncReport> {
    let mut state = peer_mail(hub)?;
    state.peers.retain(|name, _| peers.contains_key(name));

    // 2. and 3. Out, verified.
    if let Err(e) = publish(hub, peers, &seen, &mut state, &mut report, upstream, origin_refs) {
        report.errors.push(cn_compute::chain(&e));
    }
    recorded |= save(hub, &state)?;

    let moved = !(report.sent.is_empty() && report.received.is_empty() && report.rejected.is_empty());
    if moved {
        let entry = crate::journal::Synced {
            summary: format!(
                "peer mail synced: {} sent, {} received, {} rejected",
                report.sent.len(),
                report.received.len(),
                report.rejected.len()
            ),
            sent: &report.sent,
            received: &report.received,
            rejected: &report.rejected,
        };
        hub.journal()?.write(&entry)?;
    }
    // A sync that moved no mail and changed no record commits nothing (an idle daemon syncs
    // every minute; a commit each time would be 1,440 a day of nothing).
    if moved || recorded {
        let message = if moved {
            format!(
                "cn sync: sent {}, received {}, rejected {}",
                report.sent.len(),
                report.received.len(),
                report.rejected.len()
            )
        } else {
            "cn sync: receipts settled".to_string()
        };
        report.committed = hub.git().commit_paths(&message, &cn_hub::layout::OWN)?;
    }
    // The hub in origin (`origin.push`): what this sync recorded goes there now, not at the
    // daemon's next push.
    if let (Some(up), true) = (upstream, report.committed) {
        if let Err(e) = up.push(&[]) {
            report.errors.push(cn_compute::chain(&e));
        }
    }
    Ok(report)
}

/// What one peer's repository showed this sync.
#[derive(Debug, Default)]
struct Seen {
    /// Mail it lists for this hub (ids, both layouts).
    mail: BTreeSet<String>,
    /// Its receipts for our mail (ids).
    receipts: BTreeSet<String>,
}

/// What was fetched from one peer, without the hub lock: what its repository showed, and
/// every new mail read (or why it cannot be taken).
#[derive(Debug, Default)]
struct Fetched {
    seen: Seen,
    /// Mail of the old layout this hub took before the read-only layout: (id, commit).
    taken_before: Vec<(String, String)>,
    /// New mail fetched into the quarantine and not read yet ([`read_fetched`] reads every
    /// peer's at once).
    unread: Vec<Unread>,
    /// New mail: (id, commit, the mail or why it is rejected).
    mail: Vec<(String, String, std::result::Result<Mail, Rejected>)>,
}

/// A peer's mail in the quarantine, to be sized, read and checked.
#[derive(Debug)]
struct Unread {
    peer: String,
    id: String,
    /// Its commit.
    sha: String,
    /// Of the old layout (no envelope).
    old: bool,
    /// Received by cn itself (`native`): whether the pack held everything it reaches is
    /// still to be checked ([`read_fetched`]; git's fetch checked its own).
    unchecked: bool,
}

/// A ref of the mail layout, read from a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
enum MailRef {
    /// `cn-mail/<peer>/<id>`.
    Mail { peer: String, id: String },
    /// `cn-receipt/<peer>/<id>`.
    Receipt { peer: String, id: String },
    /// The old layout's `<peer>/<id>` (mail awaiting `peer`, before receipts existed).
    Legacy { peer: String, id: String },
}

impl MailRef {
    fn parse(name: &str) -> Option<MailRef> {
        let rest = name.strip_prefix("refs/heads/")?;
        let (top, rest) = rest.split_once('/')?;
        let (a, b) = match rest.split_once('/') {
            Some((a, b)) => (a, Some(b)),
            None => (rest, None),
        };
        let ok = |s: &str| crate::hub::valid_name(s);
        match (top, b) {
            ("cn-mail", Some(id)) if ok(a) && ok(id) => Some(MailRef::Mail { peer: a.into(), id: id.into() }),
            ("cn-receipt", Some(id)) if ok(a) && ok(id) => Some(MailRef::Receipt { peer: a.into(), id: id.into() }),
            (peer, None) if ok(peer) && ok(a) && !RESERVED_NAMES.contains(&peer) => {
                Some(MailRef::Legacy { peer: peer.into(), id: a.into() })
            }
            _ => None,
        }
    }

    fn name(&self) -> String {
        match self {
            MailRef::Mail { peer, id } => format!("{MAIL_REFS}{peer}/{id}"),
            MailRef::Receipt { peer, id } => format!("{RECEIPT_REFS}{peer}/{id}"),
            MailRef::Legacy { peer, id } => format!("refs/heads/{peer}/{id}"),
        }
    }
}

/// A peer's listing sorted: what it shows (its mail for this hub, its receipts for this
/// hub's mail), mail of the old layout taken before, and the new mail to fetch (id, commit,
/// in the old layout). Mail `record` shows as taken is not fetched again.
fn sort_listing(
    me: &str,
    listing: Vec<(MailRef, String)>,
    record: Option<&PeerRecord>,
    legacy: &BTreeMap<String, String>,
) -> (Fetched, Vec<(String, String, bool)>) {
    let mut got = Fetched::default();
    // id → (commit, in the old layout); the new layout wins when both list an id.
    let mut listed: BTreeMap<String, (String, bool)> = BTreeMap::new();
    for (r, sha) in listing {
        match r {
            MailRef::Mail { peer: to, id } if to == me => {
                listed.insert(id, (sha, false));
            }
            MailRef::Legacy { peer: to, id } if to == me => {
                listed.entry(id).or_insert((sha, true));
            }
            MailRef::Receipt { peer: from, id } if from == me => {
                got.seen.receipts.insert(id);
            }
            _ => {}
        }
    }
    got.seen.mail = listed.keys().cloned().collect();
    let mut fresh: Vec<(String, String, bool)> = Vec::new();
    for (id, (sha, old)) in listed {
        if record.is_some_and(|r| r.received.contains_key(&id)) {
            continue;
        }
        if old && legacy.contains_key(&sha) {
            got.taken_before.push((id, sha));
            continue;
        }
        fresh.push((id, sha, old));
    }
    (got, fresh)
}

/// Under the hub lock: file or reject what was fetched from `peer`, and record it in
/// `record`; what its repository showed. Each item filed (or found filed by a sync that
/// stopped before its record) is added to `filed`, which the caller makes durable before it
/// saves the record.
fn file_from(
    hub: &Hub,
    peer: &str,
    got: Fetched,
    record: &mut PeerRecord,
    report: &mut SyncReport,
    filed: &mut Vec<PathBuf>,
) -> Result<Seen> {
    for (id, sha) in got.taken_before {
        if let std::collections::btree_map::Entry::Vacant(slot) = record.received.entry(id) {
            // Taken by this hub before the upgrade: recorded now, so it is receipted.
            report.duplicates += 1;
            let outcome = "taken before the read-only layout".to_string();
            slot.insert(Taken { commit: sha, outcome, at: cn_storage::now_rfc3339() });
        }
    }
    record.waiting_in = got.mail.len();
    for (id, sha, read) in got.mail {
        if record.received.contains_key(&id) {
            // Taken by another sync while this one fetched.
            report.duplicates += 1;
            continue;
        }
        let outcome = match read {
            Ok(mail) => {
                match locate(hub, &mail.id)? {
                    None => {
                        // Atomic now, durable with every peer's before the record (the caller).
                        let path = hub.inbox().join(format!("{}.md", mail.id));
                        let bytes = item_of(&mail, peer).render();
                        cn_storage::write_atomic_unsynced(&path, bytes.as_bytes()).map_err(io_at(&path))?;
                        filed.push(path);
                        report.received.push(mail.id.clone());
                        "filed".to_string()
                    }
                    Some(place) => {
                        // Filed by a sync that stopped before its record: make sure it is on
                        // disk before this one records it.
                        if let crate::queue::Place::Inbox(path) = place {
                            filed.push(path);
                        }
                        report.duplicates += 1;
                        "duplicate".to_string()
                    }
                }
            }
            Err(why) => {
                let why = cn_compute::chain(&why);
                reject(hub, peer, &id, &sha, &why)?;
                report.rejected.push(format!("{peer}/{id}"));
                format!("rejected: {why}")
            }
        };
        record.received.insert(id, Taken { commit: sha, outcome, at: cn_storage::now_rfc3339() });
    }
    record.waiting_in = 0;
    Ok(got.seen)
}

/// Why a mail in the outbox cannot be sent (the report says so, with the file).
#[derive(Debug, thiserror::Error)]
enum Unsendable {
    #[error(transparent)]
    NotUtf8(std::str::Utf8Error),
    #[error(transparent)]
    Mail(crate::error::ParseError),
}

/// Why a peer's mail is rejected (the reason in the notice its sender gets).
#[derive(Debug, thiserror::Error)]
enum Rejected {
    #[error("the branch has no file {0}.md")]
    NoFile(String),
    #[error("the branch's tip is not a commit")]
    TipNotACommit,
    #[error(transparent)]
    Envelope(#[from] crate::envelope::EnvelopeError),
    #[error("{id}.md is not UTF-8 text (an invalid byte at offset {})", source.utf8_error().valid_up_to())]
    NotUtf8 { id: String, source: std::string::FromUtf8Error },
    #[error(transparent)]
    Mail(#[from] crate::error::ParseError),
    #[error("its thread id `{0}` does not match the branch")]
    Thread(String),
    #[error("it is addressed to `{to}`, not `{me}`")]
    To { to: String, me: String },
    #[error("{what} is {size} bytes, more than this hub takes ({cap}; cn.yaml `mail.max_bytes` for the mail)")]
    TooLarge { what: &'static str, size: u64, cap: u64 },
}

/// The mail in `file` if it is what its envelope and branch say, else why not.
fn check(
    me: &str,
    peer: &str,
    id: &str,
    old: bool,
    commit: Option<Object>,
    file: Option<Object>,
) -> std::result::Result<Mail, Rejected> {
    let bytes = match file {
        Some(Object { kind, bytes }) if kind == "blob" => bytes,
        _ => return Err(Rejected::NoFile(id.to_string())),
    };
    // The old layout had no envelope; its mail is checked as it always was.
    if !old {
        let commit = commit.filter(|o| o.kind == "commit").ok_or(Rejected::TipNotACommit)?;
        Envelope::from_commit(&commit.bytes)?.check(peer, me, id, &bytes)?;
    }
    let text = String::from_utf8(bytes).map_err(|source| Rejected::NotUtf8 { id: id.to_string(), source })?;
    let mail = Mail::parse(&text)?;
    if mail.id != id {
        return Err(Rejected::Thread(mail.id));
    }
    if mail.to != me {
        return Err(Rejected::To { to: mail.to, me: me.to_string() });
    }
    // The item it becomes must read back (its frontmatter is the mail's, a little longer):
    // a mail just under what cn parses must not become an item just over it.
    Item::from_doc(cn_storage::Doc::parse(&item_of(&mail, peer).render()).map_err(|e| Rejected::Mail(e.into()))?)
        .map_err(Rejected::Mail)?;
    Ok(mail)
}

/// Tell `peer` its mail `id` was rejected, and why (once: the notice's id derives from the
/// mail's commit).
fn reject(hub: &Hub, peer: &str, id: &str, sha: &str, why: &str) -> Result<()> {
    let me = hub.name();
    let notice = Mail {
        id: stable_id(&format!("{me}:orphan:{sha}")),
        to: peer.to_string(),
        from: me.to_string(),
        thread: id.to_string(),
        created: cn_storage::now_rfc3339(),
        kind: Some(NOTICE.into()),
        reply_to: None,
        subject: Some(format!("rejected: {me}/{id}")),
        depth: 0,
        body: format!("{me} could not read your mail `{id}` to {me} and rejected it: {why}.\n"),
    };
    post(hub, &notice)?;
    tracing::warn!(peer, mail = %id, %why, "rejected a peer's mail");
    Ok(())
}

/// The item a mail becomes in the inbox. A `reply-to` is kept only when it names the sender
/// itself: one peer may not redirect our answers (and notices) to another.
fn item_of(mail: &Mail, peer: &str) -> Item {
    let mut item = Item::new(&mail.id, peer, crate::item::Cadence::Inbox, &mail.body);
    item.set("thread", mail.thread.as_str());
    let reply_to = mail.reply_to.clone().filter(|r| r == peer);
    if let Some(claimed) = mail.reply_to.as_ref().filter(|r| *r != peer) {
        tracing::warn!(peer, claimed = %claimed, "ignored a reply-to naming another than the sender");
    }
    for (k, v) in [("reply-to", &reply_to), ("kind", &mail.kind), ("subject", &mail.subject)] {
        if let Some(v) = v {
            item.set(k, v.as_str());
        }
    }
    item.set("sent", mail.created.as_str());
    if mail.depth > 0 {
        item.set("depth", mail.depth.to_string());
    }
    // cn says what the mail is, from the envelope it checked: the peer's message, or its
    // automatic answer or notice (news on a thread, never new work). Answers go back to the
    // sender (a `reply-to` is kept only when it names the sender).
    let kind = match mail.kind.as_deref() {
        Some(NOTICE) => cn_hub::Kind::Notice,
        Some(AUTO) => cn_hub::Kind::Answer,
        _ => cn_hub::Kind::Message,
    };
    item.set_origin(&cn_hub::Origin::peer(peer, kind).with_thread(mail.thread.as_str()));
    Item::from_doc(item.doc.clone()).unwrap_or(item)
}

/// A mail of the outbox, ready to push.
struct Outgoing {
    path: PathBuf,
    mail: Mail,
    commit: String,
}

/// Push the outbox, receipts and releases to `origin` in one go, then confirm each on the
/// remote and act only on what is confirmed.
fn publish(
    hub: &Hub,
    peers: &BTreeMap<String, crate::hub::Peer>,
    seen: &BTreeMap<String, Seen>,
    state: &mut PeerMail,
    report: &mut SyncReport,
    upstream: Option<&cn_lease::Upstream>,
    origin_refs: Option<Vec<(MailRef, String)>>,
) -> Result<()> {
    let files = md_files(&hub.outbox())?;
    let owes_receipts = state.peers.values().any(|r| !r.received.is_empty());
    // Where the mail goes: origin, or — a hub without one — the hub's own repository, which
    // its peers then read (`cn peer add NAME DIR`); a push to `.` is git's push into itself.
    let home = if origin_refs.is_some() || has_origin(hub) { Home::Origin } else { Home::Itself };
    let remote = home.remote();
    if home == Home::Itself && files.is_empty() && !owes_receipts && !state.peers.values().any(|r| r.waiting_out > 0) {
        // Nothing to publish and nothing of ours in flight: not even a listing.
        return Ok(());
    }
    let patterns = own_patterns(peers);
    let listed = match origin_refs {
        Some(refs) => refs,
        None => list(hub, remote, &patterns, None)?,
    };
    let before: BTreeMap<String, (MailRef, String)> = listed.into_iter().map(|(r, sha)| (r.name(), (r, sha))).collect();
    // Receipts owed: mail taken that its sender still lists, with no receipt in origin yet.
    let mut owed = Vec::new();
    for (peer, record) in &state.peers {
        let Some(s) = seen.get(peer) else { continue };
        for id in record.received.keys().filter(|id| s.mail.contains(*id)) {
            let r = MailRef::Receipt { peer: peer.clone(), id: id.clone() }.name();
            if !before.contains_key(&r) {
                owed.push(r);
            }
        }
    }
    // An idle sync starts no fast-import.
    let (outgoing, receipt) = if files.is_empty() && owed.is_empty() {
        (Vec::new(), String::new())
    } else {
        build_commits(hub, &files, report)?
    };
    let receipted = |peer: &str, id: &str| seen.get(peer).is_some_and(|s| s.receipts.contains(id));

    // ref → the commit it should point at (None: deleted).
    let mut want: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut pushing: Vec<&Outgoing> = Vec::new();
    for o in &outgoing {
        if receipted(&o.mail.to, &o.mail.id) {
            // Delivered already (the push made it before a crash): it only moves to sent.
            to_sent(hub, o, report)?;
            continue;
        }
        let r = MailRef::Mail { peer: o.mail.to.clone(), id: o.mail.id.clone() }.name();
        if before.get(&r).map(|(_, sha)| sha) != Some(&o.commit) {
            want.insert(r, Some(o.commit.clone()));
        }
        pushing.push(o);
    }
    for (name, (r, _)) in &before {
        match r {
            // Our mail, receipted by its recipient: released (its file is in sent/ first).
            MailRef::Mail { peer, id } | MailRef::Legacy { peer, id } if receipted(peer, id) => {
                let file = hub.outbox().join(format!("{id}.md"));
                if file.is_file() {
                    let sent = hub.sent().join(format!("{id}.md"));
                    cn_storage::beneath::rename(&file, &sent).map_err(io_at(&file))?;
                }
                want.insert(name.clone(), None);
            }
            // Our receipt for mail its sender no longer lists: retired.
            MailRef::Receipt { peer, id } if seen.get(peer).is_some_and(|s| !s.mail.contains(id)) => {
                want.insert(name.clone(), None);
            }
            _ => {}
        }
    }
    for r in owed {
        want.insert(r, Some(receipt.clone()));
    }

    let mut push_errors = Vec::new();
    let mut after = before.iter().map(|(name, (_, sha))| (name.clone(), sha.clone())).collect::<BTreeMap<_, _>>();
    if !want.is_empty() {
        let specs: Vec<String> = want
            .iter()
            .map(|(r, sha)| match sha {
                Some(sha) => format!("+{sha}:{r}"),
                None => format!(":{r}"),
            })
            .collect();
        if let Some(up) = upstream {
            // The hub lives in origin: what this sync filed and recorded (and the mail it
            // releases, moved to sent/) is committed and pushed with the first refs, in one
            // atomic push that also renews the lease — a receipt never reaches origin before
            // the record of its mail does, and a clone that lost the lease publishes nothing.
            hub.git().commit_paths("cn sync: mail taken and released, before publishing", &cn_hub::layout::OWN)?;
            if let Err(e) = up.push(specs.get(..CHUNK.min(specs.len())).unwrap_or_default()) {
                return Err(e.into());
            }
        }
        let rest = if upstream.is_some() { specs.get(CHUNK..).unwrap_or_default() } else { &specs[..] };
        for chunk in rest.chunks(CHUNK) {
            // Leased, every chunk goes with the lease's renewal, as the first did.
            let pushed = match upstream {
                Some(up) => up.push(chunk).map(|_| ()).map_err(|e| cn_compute::chain(&e)),
                None => {
                    let mut args = vec!["push", "-q", "--no-verify", remote];
                    args.extend(chunk.iter().map(String::as_str));
                    origin_git(&hub.git(), &args).map(|_| ()).map_err(|e| cn_compute::chain(&e))
                }
            };
            if let Err(e) = pushed {
                push_errors.push(e);
            }
        }
        if push_errors.is_empty() {
            // Every push succeeded: origin reported each ref updated (git's report-status;
            // atomic when leased), so origin holds what was wanted.
            for (r, sha) in &want {
                match sha {
                    Some(sha) => after.insert(r.clone(), sha.clone()),
                    None => after.remove(r),
                };
            }
        } else {
            // A failed push is not the verdict: the listing is (a push that failed on a ref
            // a killed sync's push was still updating may have landed all the same).
            after = list(hub, remote, &patterns, None)?.into_iter().map(|(r, sha)| (r.name(), sha)).collect();
        }
    }
    let mut unconfirmed = Vec::new();
    for (r, sha) in &want {
        if after.get(r) != sha.as_ref() {
            unconfirmed.push(r.clone());
            continue;
        }
        match MailRef::parse(r) {
            Some(MailRef::Receipt { peer, id }) if sha.is_some() => report.receipts.push(format!("{peer}/{id}")),
            Some(MailRef::Mail { peer, id } | MailRef::Legacy { peer, id }) if sha.is_none() => {
                report.released.push(format!("{peer}/{id}"))
            }
            _ => {}
        }
    }
    for o in pushing {
        let r = MailRef::Mail { peer: o.mail.to.clone(), id: o.mail.id.clone() }.name();
        if after.get(&r) == Some(&o.commit) {
            to_sent(hub, o, report)?;
        }
    }
    // A receipt's record goes once its sender no longer lists the mail and the receipt is
    // gone from origin (or was never published).
    for (peer, record) in state.peers.iter_mut() {
        let Some(s) = seen.get(peer) else { continue };
        record.received.retain(|id, _| {
            s.mail.contains(id) || after.contains_key(&MailRef::Receipt { peer: peer.clone(), id: id.clone() }.name())
        });
    }
    for (peer, record) in state.peers.iter_mut() {
        record.waiting_out = after
            .keys()
            .filter_map(|r| MailRef::parse(r))
            .filter(|r| matches!(r, MailRef::Mail { peer: p, .. } | MailRef::Legacy { peer: p, .. } if p == peer))
            .count();
    }
    if !unconfirmed.is_empty() {
        return Err(AgentError::Invalid(format!(
            "{} does not show {} of the {} ref changes pushed (e.g. {}); they are retried at the next sync{}",
            home.name(),
            unconfirmed.len(),
            want.len(),
            unconfirmed[0],
            push_errors.first().map(|e| format!(": {e}")).unwrap_or_default()
        )));
    }
    for e in push_errors {
        tracing::info!(error = %e, "git push failed, but origin shows every change");
    }
    Ok(())
}

/// Where a hub publishes its mail and receipts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Home {
    /// Its git remote `origin`.
    Origin,
    /// Its own repository (a hub without `origin`): its peers read the hub's directory.
    Itself,
}

impl Home {
    /// The remote git is given.
    fn remote(self) -> &'static str {
        match self {
            Home::Origin => "origin",
            Home::Itself => ".",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Home::Origin => "origin",
            Home::Itself => "the hub's own repository",
        }
    }
}

fn has_origin(hub: &Hub) -> bool {
    hub.git().remote_url("origin").is_some()
}

/// Where this hub's peers read the mail it sends them: its `origin`'s URL (credentials
/// left out), or — a hub without `origin` — the hub's own directory. A peer receives this
/// hub's mail once it names this hub with that remote (`cn peer add <me> <where>`).
pub fn mail_home(hub: &Hub) -> MailHome {
    match hub.git().remote_url("origin") {
        Some(url) => MailHome { remote: cn_process::redact::redact(&url), origin: true },
        None => {
            let root = hub.root().canonicalize().unwrap_or_else(|_| hub.root().to_path_buf());
            MailHome { remote: root.display().to_string(), origin: false }
        }
    }
}

/// Where a hub publishes its mail ([`mail_home`]).
#[derive(Debug, Clone, Serialize)]
pub struct MailHome {
    /// The remote a peer names this hub by.
    pub remote: String,
    /// Whether that is the hub's `origin` (else its own directory).
    pub origin: bool,
}

impl MailHome {
    /// What a peer runs once to receive this hub's mail.
    pub fn peer_add(&self, me: &str) -> String {
        format!("cn peer add {me} {}", shell_word(&self.remote))
    }
}

/// `s` as one shell word (quoted only when it needs to be).
fn shell_word(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "/._-:@+=,".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// What this hub lists in its own origin: its mail (both layouts) and its receipts.
fn own_patterns(peers: &BTreeMap<String, crate::hub::Peer>) -> Vec<String> {
    let mut p = vec![format!("{MAIL_REFS}*"), format!("{RECEIPT_REFS}*")];
    p.extend(peers.keys().map(|name| format!("refs/heads/{name}/*")));
    p
}

fn to_sent(hub: &Hub, o: &Outgoing, report: &mut SyncReport) -> Result<()> {
    let to = hub.sent().join(format!("{}.md", o.mail.id));
    cn_storage::beneath::rename(&o.path, &to).map_err(io_at(&o.path))?;
    report.sent.push(o.mail.id.clone());
    Ok(())
}

/// `cn peer list`'s view of one peer.
#[derive(Debug, Clone, Serialize)]
pub struct PeerStatus {
    pub name: String,
    pub remote: String,
    pub last_fetch: Option<String>,
    pub last_error: Option<String>,
    /// Mail to the peer not yet pushed (the outbox) plus pushed and not yet receipted.
    pub waiting_out: usize,
    /// Mail the peer held for this hub at the last fetch that is not taken yet.
    pub waiting_in: usize,
    /// Receipts this hub holds for the peer until it releases the mail.
    pub receipts_pending: usize,
    /// What the peer runs once to receive this hub's mail ([`MailHome::peer_add`]).
    pub to_receive: String,
    /// For a peer whose hub is a directory on this machine: whether it names this hub at
    /// the place this hub publishes its mail (false: it receives none of it). `None` when
    /// that cannot be seen from here.
    pub names_me: Option<bool>,
}

/// Each peer's mail as of the last sync, plus the outbox now (no network).
pub fn peer_status(hub: &Hub) -> Result<Vec<PeerStatus>> {
    let state = peer_mail(hub)?;
    let mut outbox: BTreeMap<String, usize> = BTreeMap::new();
    for path in md_files(&hub.outbox())? {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        if let Ok(mail) = Mail::parse(&text) {
            *outbox.entry(mail.to).or_default() += 1;
        }
    }
    let home = mail_home(hub);
    let to_receive = home.peer_add(hub.name());
    Ok(hub
        .peers()?
        .into_iter()
        .map(|(name, peer)| {
            let r = state.peers.get(&name).cloned().unwrap_or_default();
            PeerStatus {
                to_receive: to_receive.clone(),
                names_me: names_me(&peer.remote, hub.name(), &home),
                waiting_out: r.waiting_out + outbox.get(&name).copied().unwrap_or(0),
                waiting_in: r.waiting_in,
                receipts_pending: r.received.len(),
                last_fetch: r.last_fetch,
                last_error: r.last_error,
                remote: peer.remote,
                name,
            }
        })
        .collect())
}

/// Whether the hub at `remote` (a directory on this machine holding a hub) names `me` at
/// `home`; `None` when `remote` is no such directory or its peers cannot be read.
fn names_me(remote: &str, me: &str, home: &MailHome) -> Option<bool> {
    let dir = std::path::Path::new(remote.strip_prefix("file://").unwrap_or(remote));
    if !dir.join("cn.yaml").is_file() {
        return None;
    }
    let peer = Hub::open(dir).ok()?;
    let theirs = peer.peers().ok()?.remove(me);
    let same = |a: &str, b: &str| {
        let canon = |p: &str| std::path::Path::new(p.strip_prefix("file://").unwrap_or(p)).canonicalize().ok();
        a == b || canon(a).is_some_and(|a| Some(a) == canon(b))
    };
    Some(theirs.is_some_and(|p| same(&p.remote, &home.remote)))
}
