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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use cn_git::{Git, GitError};
use cn_hub::journal::HubJournal;
use cn_storage::Entry;
use serde::{Deserialize, Serialize};

use crate::envelope::Envelope;
use crate::error::{io_at, AgentError, Result};
use crate::hub::Hub;
use crate::item::{Item, AUTO, NOTICE};
use crate::lock::lock;
use crate::mail::{post, Mail};
use crate::queue::{locate, md_files};
use cn_hub::id::stable as stable_id;

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

/// The one local ref outgoing mail commits are built on (each a root commit).
const SCRATCH: &str = "refs/cn/outbox";
/// The local ref of the receipt commit (one empty commit every receipt points at).
const RECEIPT_COMMIT: &str = "refs/cn/receipt";

/// Most refs one git command line names, to stay far below the OS argument limit.
const CHUNK: usize = 400;

/// How long one git command on a peer's bytes may take here (indexing, reading them); what
/// talks to the peer is bounded by its deadline (`mail.peer_timeout`).
const PEER_GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Most bytes of a listing of a peer's mail refs (about 150,000 refs).
const LISTING_MAX: usize = 16 << 20;

/// The largest commit (a mail's envelope) or tree (its one file) taken from a peer.
const ENVELOPE_MAX: u64 = 64 << 10;

/// Most address space a git reading a peer's bytes may take: a pack's delta can describe an
/// object of any size in a few bytes, and git builds it in memory.
const PEER_GIT_MEMORY: u64 = 1 << 30;

/// Most bytes of mail read into memory at once (many mails are read in batches of this).
const BATCH_BYTES: u64 = 16 << 20;

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
    let origin_url = Git::new(hub.root()).run(&["remote", "get-url", "origin"]).ok().map(|u| u.trim().to_string());
    // A plain `git://` origin is listed by cn itself, as a `git://` peer is: whether git's
    // configuration lets cn connect is asked once for both.
    let origin_v2 = origin_url.as_deref().and_then(cn_git::v2::GitUrl::parse);
    let itself = (!peers.is_empty() || origin_v2.is_some()) && speaks_v2_itself(hub);
    let origin_v2 = origin_v2.filter(|_| itself);
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
        let origin = origin_url.is_some().then(|| scope.spawn(|| list_origin(hub, origin_v2.as_ref(), &peers)));
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
        let entry = Entry::new("sync")
            .with(
                "summary",
                format!(
                    "peer mail synced: {} sent, {} received, {} rejected",
                    report.sent.len(),
                    report.received.len(),
                    report.rejected.len()
                ),
            )
            .with("sent", report.sent.clone())
            .with("received", report.received.clone())
            .with("rejected", report.rejected.clone());
        HubJournal::append_to(&hub.path("state"), &entry)?;
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
        report.committed = Git::new(hub.root()).commit_paths(&message, &cn_hub::layout::OWN)?;
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

/// A directory in the hub's git directory where a sync's fetches put their objects (git's
/// `GIT_OBJECT_DIRECTORY`), removed when the sync has read them: a peer's mail leaves
/// nothing in `.git` — a mail refused as too large is not kept, and one filed is a file in
/// the inbox. One left by a killed sync is removed by the next after a day.
struct Quarantine {
    dir: tempfile::TempDir,
    /// The hub's own object store (`.git/objects`), the quarantine's alternate.
    store: PathBuf,
    /// Whether cn may connect to a `git://` peer itself ([`speaks_v2_itself`]).
    native: bool,
}

/// Whether cn may open a `git://` peer's connection itself: not when git's configuration
/// routes or rewrites `git://` (a `core.gitProxy` of the user's own, a `url.*.insteadOf`) or
/// cn.yaml's `git.env` passes `GIT_PROXY_COMMAND` — git then connects, as it was told.
fn speaks_v2_itself(hub: &Hub) -> bool {
    if hub.config().git.env.iter().any(|n| n == "GIT_PROXY_COMMAND") {
        return false;
    }
    let git = Git::new(hub.root());
    // Exit 1: no such key anywhere. cn's own `-c core.gitProxy` shows as "command line:".
    match git.run(&["config", "--show-origin", "--get-regexp", r"^(core\.gitproxy|url\..*\.insteadof)$"]) {
        Ok(found) => found.lines().all(|l| l.starts_with("command line:")),
        Err(GitError::Failed { stderr, .. }) if stderr.is_empty() => true,
        Err(_) => false,
    }
}

impl Quarantine {
    /// `native`: whether cn may connect to a `git://` peer itself ([`speaks_v2_itself`]).
    fn new(hub: &Hub, native: bool) -> Result<Quarantine> {
        let git_dir = Git::new(hub.root()).git_dir()?;
        let parent = git_dir.join("cn-mail-in");
        std::fs::create_dir_all(&parent).map_err(io_at(&parent))?;
        if let Ok(entries) = std::fs::read_dir(&parent) {
            let day = std::time::Duration::from_secs(86_400);
            for e in entries.flatten() {
                let old = e.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
                if old.is_some_and(|age| age > day) {
                    let _ = std::fs::remove_dir_all(e.path());
                }
            }
        }
        let dir = tempfile::Builder::new().prefix("sync-").tempdir_in(&parent).map_err(io_at(&parent))?;
        let pack = dir.path().join("pack");
        std::fs::create_dir_all(&pack).map_err(io_at(&pack))?;
        Ok(Quarantine { dir, store: git_dir.join("objects"), native })
    }

    /// A new file for a pack received by cn itself (`native`), in the quarantine's `pack/`.
    fn pack_path(&self) -> PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.dir.path().join("pack").join(format!("pack-cn-{n}.pack"))
    }

    /// Bounds for a git command on a peer's bytes, its objects in the quarantine.
    fn bounds(&self, file_size: Option<u64>, output: usize) -> cn_git::Bounds {
        self.bounds_until(std::time::Instant::now() + PEER_GIT_TIMEOUT, file_size, output)
    }

    /// [`Quarantine::bounds`] for a git command talking to a peer: done by the peer's
    /// `deadline`.
    fn bounds_until(&self, deadline: std::time::Instant, file_size: Option<u64>, output: usize) -> cn_git::Bounds {
        cn_git::Bounds {
            timeout: deadline.saturating_duration_since(std::time::Instant::now()),
            output,
            file_size,
            memory: Some(PEER_GIT_MEMORY),
            objects: Some(self.dir.path().to_path_buf()),
            store: Some(self.store.clone()),
        }
    }
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

/// `git ls-remote --heads REMOTE PATTERNS…`: the mail layout's refs it shows, with their
/// commits. A peer's listing is bounded (`quarantine`: its size, and its peer's deadline).
fn list(
    hub: &Hub,
    remote: &str,
    patterns: &[String],
    bounded: Option<(&Quarantine, std::time::Instant)>,
) -> Result<Vec<(MailRef, String)>> {
    let mut args = vec!["ls-remote", "--heads", "--", remote];
    args.extend(patterns.iter().map(String::as_str));
    let git = Git::new(hub.root());
    let out = patiently(|| match bounded {
        Some((q, deadline)) => {
            Ok(String::from_utf8_lossy(&git.run_bounded(&args, None, &q.bounds_until(deadline, None, LISTING_MAX))?)
                .into_owned())
        }
        // The hub's own origin, listed under the hub lock: bounded in time too, so a
        // connection that hangs cannot hold the owner's commands.
        None => origin_git(&git, &args),
    })?;
    Ok(out
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter(|(sha, _)| sha.len() >= 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()))
        .filter_map(|(sha, name)| Some((MailRef::parse(name.trim())?, sha.to_string())))
        .collect())
}

/// List and fetch the mail `peer` holds for this hub, without the hub lock. Mail `record`
/// shows as taken is not fetched again; every new mail is fetched within bounds (its pack at
/// most `cap` per mail, plus room for its envelope) into the quarantine, where
/// [`read_fetched`] sizes it before reading it (a file over `cap` bytes, or an envelope over
/// [`ENVELOPE_MAX`], is rejected unread), then reads and checks it. All of it (every try)
/// by `deadline`, past which the peer "took too long".
#[allow(clippy::too_many_arguments)]
fn fetch_from(
    hub: &Hub,
    peer: &str,
    remote: &str,
    record: Option<&PeerRecord>,
    legacy: &BTreeMap<String, String>,
    cap: u64,
    quarantine: &Quarantine,
    deadline: std::time::Instant,
) -> Result<Fetched> {
    let me = hub.name();
    cn_git::check_remote(remote)?;
    // A `git://` peer: one connection, listing and fetch, spoken by cn (`git::v2`); git
    // itself when the server or the URL is not the plain case.
    if let Some(url) = cn_git::v2::GitUrl::parse(remote).filter(|_| quarantine.native) {
        if let Some(got) = patiently(|| native(hub, peer, &url, record, legacy, cap, quarantine, deadline))? {
            return Ok(got);
        }
    }
    let patterns = [format!("{MAIL_REFS}{me}/*"), format!("{RECEIPT_REFS}{me}/*"), format!("refs/heads/{me}/*")];
    let listing = list(hub, remote, &patterns, Some((quarantine, deadline)))?;
    let (mut got, fresh) = sort_listing(me, listing, record, legacy);
    if fresh.is_empty() {
        return Ok(got);
    }

    // Fetch by hash into the quarantine, so no local ref is written (or cleaned up) per
    // mail and nothing stays in the hub's store; then size, read and check every mail.
    let git = Git::new(hub.root());
    let per_mail = cap.saturating_add(2 * ENVELOPE_MAX);
    let mut too_large: BTreeSet<String> = BTreeSet::new();
    for chunk in fresh.chunks(CHUNK) {
        let shas: Vec<&str> = chunk.iter().map(|(_, sha, _)| sha.as_str()).collect();
        let limit = per_mail.saturating_mul(shas.len() as u64).saturating_add(1 << 20);
        match fetch(&git, remote, &shas, cap, limit, quarantine, deadline) {
            Ok(()) => {}
            // One of them is too large: each alone, so the others are still taken.
            Err(GitError::Bounded { why: cn_git::Exceeded::FileSize(_), .. }) => {
                for (_, sha, _) in chunk {
                    match fetch(&git, remote, &[sha.as_str()], cap, per_mail, quarantine, deadline) {
                        Ok(()) => {}
                        Err(GitError::Bounded { why: cn_git::Exceeded::FileSize(_), .. }) => {
                            too_large.insert(sha.clone());
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    for (id, sha, old) in fresh {
        if too_large.contains(&sha) {
            let why = Rejected::TooLarge { what: "the mail", size: cap.saturating_add(1), cap };
            got.mail.push((id, sha, Err(why)));
        } else {
            got.unread.push(Unread { peer: peer.to_string(), id, sha, old, unchecked: false });
        }
    }
    Ok(got)
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

/// List and fetch a `git://` peer's mail for this hub in one connection, in git's protocol v2
/// spoken by cn (`cn_git::v2`): the listing, then the new mail by id, its pack written
/// into the quarantine as it arrives (at most `cap` a mail, plus room for its envelope) and
/// indexed there by `git index-pack` within the quarantine's bounds. `Ok(None)` when this
/// is not the plain case (a server of the old protocol, another hash, a pack over the limit):
/// git itself then lists and fetches, and sizes each mail alone. All by `deadline`, no read
/// waiting more than [`cn_hub::config::PEER_IDLE`] for a byte.
#[allow(clippy::too_many_arguments)]
fn native(
    hub: &Hub,
    peer: &str,
    url: &cn_git::v2::GitUrl,
    record: Option<&PeerRecord>,
    legacy: &BTreeMap<String, String>,
    cap: u64,
    quarantine: &Quarantine,
    deadline: std::time::Instant,
) -> std::result::Result<Option<Fetched>, GitError> {
    use cn_git::v2::{Session, V2Error};
    let me = hub.name();
    let failed = |e: V2Error| v2_failed(hub, peer, url, e);
    let idle = cn_hub::config::PEER_IDLE.min(hub.config().mail.peer_timeout);
    let mut session = match Session::open(url, deadline, idle) {
        Ok(s) => s,
        Err(e) => return failed(e),
    };
    let prefixes = [format!("{MAIL_REFS}{me}/"), format!("{RECEIPT_REFS}{me}/"), format!("refs/heads/{me}/")];
    let refs = match session.list(&prefixes, LISTING_MAX) {
        Ok(refs) => refs,
        Err(e) => return failed(e),
    };
    let listing = refs.into_iter().filter_map(|(sha, name)| Some((MailRef::parse(&name)?, sha))).collect();
    let (mut got, fresh) = sort_listing(me, listing, record, legacy);
    let per_mail = cap.saturating_add(2 * ENVELOPE_MAX);
    let git = Git::new(hub.root());
    for chunk in fresh.chunks(CHUNK) {
        let wants: Vec<&str> = chunk.iter().map(|(_, sha, _)| sha.as_str()).collect();
        let limit = per_mail.saturating_mul(wants.len() as u64).saturating_add(1 << 20);
        let path = quarantine.pack_path();
        let written = std::fs::File::create(&path).map_err(|e| GitError::Spawn {
            dir: hub.root().to_path_buf(),
            args: format!("(a pack file at {})", path.display()),
            source: e,
        });
        let mut file = std::io::BufWriter::new(written?);
        match session
            .fetch(&wants, &mut file, limit)
            .and_then(|n| std::io::Write::flush(&mut file).map(|()| n).map_err(V2Error::from))
        {
            Ok(_) => {}
            Err(V2Error::TooLarge(_)) => {
                let _ = std::fs::remove_file(&path);
                return Ok(None);
            }
            Err(e) => return failed(e),
        }
        drop(file);
        let path = path.to_string_lossy().into_owned();
        // Blobs over the cap are streamed, not built in memory, as in git's own fetch.
        let big = format!("core.bigFileThreshold={}", cap.max(1 << 10));
        git.run_bounded(&["-c", &big, "index-pack", &path], None, &quarantine.bounds(Some(limit), 1 << 20))?;
    }
    // Whether the packs hold everything the wants reach is checked for every peer at once
    // (`read_fetched`).
    for (id, sha, old) in fresh {
        got.unread.push(Unread { peer: peer.to_string(), id, sha, old, unchecked: true });
    }
    Ok(Some(got))
}

/// What a session of protocol v2 spoken by cn with `remote` (a peer's name, or origin)
/// failed of: `Ok(None)` when it was not the plain case (git itself is used instead), else
/// the error as git's would read (the network's failures are `GitError::is_transient`).
fn v2_failed<T>(
    hub: &Hub,
    remote: &str,
    url: &cn_git::v2::GitUrl,
    e: cn_git::v2::V2Error,
) -> std::result::Result<Option<T>, GitError> {
    use cn_git::v2::V2Error;
    let args = format!("upload-pack (protocol v2, by cn) git://{}:{}{}", url.host, url.port, url.path);
    let stderr = match e {
        V2Error::Unsupported(why) => {
            tracing::debug!(remote, %why, "protocol v2 by cn: not the plain case; git itself");
            return Ok(None);
        }
        V2Error::TooLarge(n) => {
            let why = cn_git::Exceeded::Output(usize::try_from(n).unwrap_or(usize::MAX));
            return Err(GitError::Bounded { dir: hub.root().to_path_buf(), args, why });
        }
        V2Error::Io(e) => e.to_string(),
        e @ V2Error::TooSlow(_) => e.to_string(),
        V2Error::Server(msg) => format!("remote error: {msg}"),
    };
    Err(GitError::Failed { dir: hub.root().to_path_buf(), args, stderr })
}

/// The hub's mail refs in its origin (its mail out, its receipts, and mail in the old
/// layout under each peer's name): for a plain `git://` origin (`v2`) in one connection
/// spoken by cn, without a process; else, or when that is not the plain case, by `git
/// ls-remote` (within [`ORIGIN_GIT_TIMEOUT`] either way).
fn list_origin(
    hub: &Hub,
    v2: Option<&cn_git::v2::GitUrl>,
    peers: &BTreeMap<String, crate::hub::Peer>,
) -> Result<Vec<(MailRef, String)>> {
    if let Some(url) = v2 {
        // `own_patterns` as prefixes: each is a folder of refs and a `*`.
        let prefixes: Vec<String> =
            own_patterns(peers).into_iter().map(|p| p.trim_end_matches('*').to_string()).collect();
        let listed = patiently(|| {
            let deadline = std::time::Instant::now() + ORIGIN_GIT_TIMEOUT;
            let mut session = match cn_git::v2::Session::open(url, deadline, cn_hub::config::PEER_IDLE) {
                Ok(s) => s,
                Err(e) => return v2_failed(hub, "origin", url, e),
            };
            match session.list(&prefixes, LISTING_MAX) {
                Ok(refs) => Ok(Some(refs)),
                Err(e) => v2_failed(hub, "origin", url, e),
            }
        })?;
        if let Some(refs) = listed {
            // As `git ls-remote` with `own_patterns` lists them: old-layout mail only under
            // a peer's name (a server that ignores many prefixes sends every ref).
            return Ok(refs
                .into_iter()
                .filter_map(|(sha, name)| Some((MailRef::parse(&name)?, sha)))
                .filter(|(r, _)| !matches!(r, MailRef::Legacy { peer, .. } if !peers.contains_key(peer)))
                .collect());
        }
    }
    list(hub, "origin", &own_patterns(peers), None)
}

/// Size, read and check every peer's mail fetched into the quarantine (without the hub
/// lock), all peers' at once: one `cat-file --batch-check`, and one `cat-file --batch` per
/// [`BATCH_BYTES`]. Should that fail, each peer's mail is read alone, so that a failure is
/// only the error of the peer whose mail it is.
fn read_fetched(hub: &Hub, cap: u64, quarantine: &Quarantine, fetched: &mut BTreeMap<String, Result<Fetched>>) {
    let mut unread: Vec<Unread> =
        fetched.values_mut().filter_map(|got| got.as_mut().ok()).flat_map(|f| std::mem::take(&mut f.unread)).collect();
    if unread.is_empty() {
        return;
    }
    let git = Git::new(hub.root());
    // git's fetch checks that what it received holds everything the wants reach; a pack cn
    // received itself is checked here, every peer's at once (each peer's alone if that
    // fails): a pack without a listed mail's commit, tree or file is its server's error,
    // tried again at the next sync — never a mail rejected and receipted as unreadable.
    let unchecked: Vec<&Unread> = unread.iter().filter(|u| u.unchecked).collect();
    if !unchecked.is_empty() && reaches_all(&git, &unchecked, quarantine).is_err() {
        let peers: BTreeSet<&str> = unchecked.iter().map(|u| u.peer.as_str()).collect();
        let broken: Vec<(String, GitError)> = peers
            .into_iter()
            .filter_map(|peer| {
                let own: Vec<&Unread> = unchecked.iter().copied().filter(|u| u.peer == peer).collect();
                reaches_all(&git, &own, quarantine).err().map(|e| (peer.to_string(), e))
            })
            .collect();
        for (peer, e) in broken {
            unread.retain(|u| u.peer != peer);
            let why = format!("the pack its server sent lacks mail it listed; tried again at the next sync ({e})");
            fetched.insert(peer, Err(AgentError::Invalid(why)));
        }
    }
    let read = match read_mail(&git, hub.name(), cap, &unread, quarantine) {
        Ok(read) => unread.into_iter().zip(read).collect::<Vec<_>>(),
        Err(e) => {
            tracing::debug!(error = %cn_compute::Chain(&e), "reading every peer's mail at once failed; each peer's alone");
            let mut by_peer: BTreeMap<String, Vec<Unread>> = BTreeMap::new();
            for u in unread {
                by_peer.entry(u.peer.clone()).or_default().push(u);
            }
            let mut read = Vec::new();
            for (peer, list) in by_peer {
                match read_mail(&git, hub.name(), cap, &list, quarantine) {
                    Ok(r) => read.extend(list.into_iter().zip(r)),
                    Err(e) => {
                        fetched.insert(peer, Err(e));
                    }
                }
            }
            read
        }
    };
    for (u, r) in read {
        if let Some(Ok(f)) = fetched.get_mut(&u.peer) {
            f.mail.push((u.id, u.sha, r));
        }
    }
}

/// Whether the quarantine holds everything the commits of `unread` reach (`git rev-list
/// --objects`, the ids on its stdin): Err naming what is missing.
fn reaches_all(git: &Git, unread: &[&Unread], quarantine: &Quarantine) -> std::result::Result<(), GitError> {
    let mut ids = String::new();
    for u in unread {
        let _ = writeln!(ids, "{}", u.sha);
    }
    git.run_bounded(
        &["rev-list", "--objects", "--quiet", "--stdin"],
        Some(ids.as_bytes()),
        &quarantine.bounds(None, 1 << 20),
    )
    .map(|_| ())
}

/// Size every mail of `unread` (its commit, tree and file, by one `cat-file --batch-check`),
/// reject unread what is too large (a file over `cap` bytes, an envelope over
/// [`ENVELOPE_MAX`]), and read the rest in batches of at most [`BATCH_BYTES`] (or one mail)
/// and check each: the mail, or why it is rejected, in the order of `unread`.
fn read_mail(
    git: &Git,
    me: &str,
    cap: u64,
    unread: &[Unread],
    quarantine: &Quarantine,
) -> Result<Vec<std::result::Result<Mail, Rejected>>> {
    let specs: Vec<String> = unread
        .iter()
        .map(|u| u.sha.clone())
        .chain(unread.iter().map(|u| format!("{}^{{tree}}", u.sha)))
        .chain(unread.iter().map(|u| format!("{}:{}.md", u.sha, u.id)))
        .collect();
    let mut all = sizes(git, &specs, quarantine)?;
    let files = all.split_off(2 * unread.len());
    let trees = all.split_off(unread.len());
    let commits = all;
    let mut done: Vec<Option<std::result::Result<Mail, Rejected>>> = unread.iter().map(|_| None).collect();
    // (index in `unread`, bytes of its file to read).
    let mut readable: Vec<(usize, u64)> = Vec::new();
    for (i, slot) in done.iter_mut().enumerate() {
        let size = |list: &Vec<Option<(String, u64)>>| list.get(i).cloned().flatten();
        let file = size(&files);
        match (size(&commits), size(&trees), &file) {
            (Some((_, c)), _, _) | (_, Some((_, c)), _) if c > ENVELOPE_MAX => {
                let what = "its envelope (the branch's commit or tree)";
                *slot = Some(Err(Rejected::TooLarge { what, size: c, cap: ENVELOPE_MAX }));
            }
            (_, _, Some((kind, n))) if kind == "blob" && *n > cap => {
                *slot = Some(Err(Rejected::TooLarge { what: "the mail", size: *n, cap }));
            }
            _ => readable.push((i, file.map_or(0, |(_, n)| n.min(cap)))),
        }
    }
    let mut rest = readable.as_slice();
    while !rest.is_empty() {
        let mut bytes = 0u64;
        let mut n = 0;
        while let Some((_, size)) = rest.get(n) {
            let more = size.saturating_add(ENVELOPE_MAX);
            if n > 0 && bytes.saturating_add(more) > BATCH_BYTES {
                break;
            }
            bytes = bytes.saturating_add(more);
            n += 1;
        }
        let (batch, later) = rest.split_at(n);
        rest = later;
        let mut request = String::new();
        for (i, _) in batch {
            let u = &unread[*i];
            let _ = writeln!(request, "{sha}\n{sha}:{id}.md", sha = u.sha, id = u.id);
        }
        let output = usize::try_from(bytes.saturating_add(1 << 20)).unwrap_or(usize::MAX);
        let out =
            git.run_bounded(&["cat-file", "--batch"], Some(request.as_bytes()), &quarantine.bounds(None, output))?;
        let mut objects = parse_batch(&out, 2 * batch.len()).into_iter();
        for (i, _) in batch {
            let u = &unread[*i];
            let (commit, file) = (objects.next().flatten(), objects.next().flatten());
            done[*i] = Some(check(me, &u.peer, &u.id, u.old, commit, file));
        }
    }
    done.into_iter().collect::<Option<Vec<_>>>().ok_or_else(|| {
        AgentError::Invalid(format!("git cat-file --batch in {} did not answer for every mail", git.dir().display()))
    })
}

/// Fetch `shas` from `remote` into the quarantine: no pack file over `limit` bytes, blobs
/// over `cap` streamed rather than held in memory, one pack (never loose objects); done by
/// the peer's `deadline`.
fn fetch(
    git: &Git,
    remote: &str,
    shas: &[&str],
    cap: u64,
    limit: u64,
    quarantine: &Quarantine,
    deadline: std::time::Instant,
) -> std::result::Result<(), GitError> {
    let big = format!("core.bigFileThreshold={}", cap.max(1 << 10));
    // Housekeeping is the owner's (or the daemon's) business, not every sync's. A mail is a
    // root commit, sharing nothing with this hub's history: offering that history to the
    // peer ("have" lines) would only make a fetch grow with every mail ever filed. For the
    // same reason the hub's refs, which git would list as the quarantine's alternate's (a
    // `git for-each-ref` of the hub, twice a fetch), are not listed: `true` lists none.
    let mut args = vec![
        "-c",
        "fetch.negotiationAlgorithm=noop",
        "-c",
        "core.alternateRefsCommand=true",
        "-c",
        "fetch.unpackLimit=1",
        "-c",
        "pack.threads=1",
        "-c",
        &big,
        "fetch",
        "-q",
        "--no-tags",
        "--no-write-fetch-head",
        "--no-auto-maintenance",
        "--",
        remote,
    ];
    args.extend_from_slice(shas);
    patiently(|| git.run_bounded(&args, None, &quarantine.bounds_until(deadline, Some(limit), 1 << 20)).map(|_| ()))
}

/// How long one git command on the hub's own origin may take (a listing, a push of mail refs)
/// while the hub lock is held.
const ORIGIN_GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// Run `git` on the hub's own origin within [`ORIGIN_GIT_TIMEOUT`] (killed past it) and
/// [`LISTING_MAX`] bytes of output (past it an error, never a listing cut short); its stdout,
/// or why it failed.
fn origin_git(git: &Git, args: &[&str]) -> std::result::Result<String, GitError> {
    let bounds = cn_git::Bounds::time_and_output(ORIGIN_GIT_TIMEOUT, LISTING_MAX);
    Ok(String::from_utf8_lossy(&git.run_bounded(args, None, &bounds)?).into_owned())
}

/// Tries of one git command on a peer's repository when it fails for the network's sake.
const PEER_GIT_TRIES: u32 = 4;

/// The first wait before trying again; each next one is three times longer (0.2, 0.6,
/// 1.8 s), each drawn between half and the whole of it, so hubs that a busy server turned
/// away at once do not all come back at once.
const PEER_GIT_RETRY: std::time::Duration = std::time::Duration::from_millis(200);

/// A try that failed later than this is not tried again: a peer that takes long to fail
/// would make every sync wait that long several times over.
const PEER_GIT_QUICK: std::time::Duration = std::time::Duration::from_secs(5);

/// Run `git` on a peer's repository, trying again (up to [`PEER_GIT_TRIES`] in all, with a
/// growing, jittered wait) while it fails quickly ([`PEER_GIT_QUICK`]) the way a dropped
/// connection or a busy server makes it fail ([`GitError::is_transient`]): a git server turns
/// connections away when many hubs sync at once, and a sync that gave up would leave that
/// peer's mail for the next one.
fn patiently<T>(mut git: impl FnMut() -> std::result::Result<T, GitError>) -> std::result::Result<T, GitError> {
    use std::hash::{BuildHasher, Hasher};
    let mut wait = PEER_GIT_RETRY;
    for _ in 1..PEER_GIT_TRIES {
        let started = std::time::Instant::now();
        match git() {
            Err(e) if e.is_transient() && started.elapsed() < PEER_GIT_QUICK => {
                tracing::debug!(err = %e, ?wait, "a peer's git failed on the way; trying again");
                // Random per call (std's hasher keys), uniform in [wait/2, wait).
                let draw = std::collections::hash_map::RandomState::new().build_hasher().finish();
                let half = wait / 2;
                std::thread::sleep(half + half.mul_f64((draw >> 11) as f64 / (1u64 << 53) as f64));
                wait *= 3;
            }
            done => return done,
        }
    }
    git()
}

/// `git cat-file --batch-check` of `specs`: each one's type and size, `None` when missing.
fn sizes(git: &Git, specs: &[String], quarantine: &Quarantine) -> Result<Vec<Option<(String, u64)>>> {
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    let mut request = specs.join("\n");
    request.push('\n');
    // A line an object: its name (or the spec, when missing), type and size.
    let output = specs.iter().map(|s| s.len() + 80).sum::<usize>();
    let out =
        git.run_bounded(&["cat-file", "--batch-check"], Some(request.as_bytes()), &quarantine.bounds(None, output))?;
    let text = String::from_utf8_lossy(&out);
    let mut lines = text.lines();
    Ok(specs
        .iter()
        .map(|_| {
            let mut words = lines.next()?.rsplitn(3, ' ');
            let size = words.next()?.parse::<u64>().ok()?;
            let kind = words.next()?.to_string();
            Some((kind, size))
        })
        .collect())
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

/// One object of `git cat-file --batch` output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Object {
    /// `blob`, `commit`, `tree` or `tag`.
    pub kind: String,
    pub bytes: Vec<u8>,
}

/// Split `git cat-file --batch` output into one entry per request (`None` when missing).
/// Works on bytes: git's sizes count bytes, and a peer's file may hold any bytes at all.
pub fn parse_batch(out: &[u8], n: usize) -> Vec<Option<Object>> {
    let mut result = Vec::with_capacity(n);
    let mut rest = out;
    while result.len() < n && !rest.is_empty() {
        let Some(nl) = rest.iter().position(|&b| b == b'\n') else { break };
        let (header, after) = (&rest[..nl], &rest[nl + 1..]);
        let header = String::from_utf8_lossy(header);
        let mut parts = header.rsplitn(3, ' ');
        let size = parts.next().and_then(|s| s.parse::<usize>().ok());
        let kind = parts.next();
        match (kind, size) {
            (Some(kind), Some(size)) if after.len() >= size => {
                result.push(Some(Object { kind: kind.to_string(), bytes: after[..size].to_vec() }));
                let tail = &after[size..];
                rest = tail.strip_prefix(b"\n").unwrap_or(tail);
            }
            _ => {
                result.push(None);
                rest = after;
            }
        }
    }
    result.resize(n, None);
    result
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
            Git::new(hub.root())
                .commit_paths("cn sync: mail taken and released, before publishing", &cn_hub::layout::OWN)?;
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
                    origin_git(&Git::new(hub.root()), &args).map(|_| ()).map_err(|e| cn_compute::chain(&e))
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
    Git::new(hub.root()).run(&["remote", "get-url", "origin"]).is_ok()
}

/// Where this hub's peers read the mail it sends them: its `origin`'s URL (credentials
/// left out), or — a hub without `origin` — the hub's own directory. A peer receives this
/// hub's mail once it names this hub with that remote (`cn peer add <me> <where>`).
pub fn mail_home(hub: &Hub) -> MailHome {
    let git = Git::new(hub.root());
    match git.run(&["remote", "get-url", "origin"]) {
        Ok(url) => MailHome { remote: cn_process::redact::redact(url.trim()), origin: true },
        Err(_) => {
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

/// One `git fast-import` builds every outbox mail's commit (its message the envelope) and the
/// receipt commit; a mail that cannot be read stays in the outbox, reported.
fn build_commits(hub: &Hub, files: &[PathBuf], report: &mut SyncReport) -> Result<(Vec<Outgoing>, String)> {
    let me = hub.name();
    let mut stream = Vec::new();
    // Mark 1: the receipt — the same empty commit in every hub.
    let _ = write!(
        Bytes(&mut stream),
        "reset {RECEIPT_COMMIT}\ncommit {RECEIPT_COMMIT}\nmark :1\nauthor cn <cn@cn.invalid> 0 +0000\ncommitter cn <cn@cn.invalid> 0 +0000\ndata 11\ncn receipt\ndeleteall\n\n"
    );
    let mut outgoing = Vec::new();
    for path in files {
        let bytes = std::fs::read(path).map_err(io_at(path))?;
        let parsed = std::str::from_utf8(&bytes)
            .map_err(Unsendable::NotUtf8)
            .and_then(|t| Mail::parse(t).map_err(Unsendable::Mail));
        let mail = match parsed {
            Ok(m) if crate::hub::valid_name(&m.to) && !RESERVED_NAMES.contains(&m.to.as_str()) => m,
            Ok(m) => {
                report.errors.push(format!(
                    "{}: `to` {:?} is not a peer name; fix or remove the file",
                    path.display(),
                    m.to
                ));
                continue;
            }
            Err(e) => {
                report.errors.push(format!(
                    "{}: {e}; fix or remove the file",
                    path.display(),
                    e = cn_compute::Chain(&e)
                ));
                continue;
            }
        };
        // The commit's date is the mail's, so the same mail always makes the same commit.
        let (epoch, created) = match cn_storage::parse_rfc3339(&mail.created) {
            Some((t, _)) => (t.as_second(), mail.created.clone()),
            None => (0, cn_storage::rfc3339(std::time::SystemTime::UNIX_EPOCH)),
        };
        let message = Envelope::new(me, &mail.to, &mail.id, &created, &bytes).render();
        // Every mail is a root commit on one scratch ref; its hash comes back as a mark.
        let _ = write!(
            Bytes(&mut stream),
            "reset {SCRATCH}\ncommit {SCRATCH}\nmark :{}\nauthor {me} <{me}@cn.invalid> {epoch} +0000\ncommitter {me} <{me}@cn.invalid> {epoch} +0000\ndata {}\n{message}\nM 100644 inline {}.md\ndata {}\n",
            outgoing.len() + 2,
            message.len(),
            mail.id,
            bytes.len()
        );
        stream.extend_from_slice(&bytes);
        stream.push(b'\n');
        outgoing.push((path.clone(), mail));
    }
    let marks_path = std::env::temp_dir().join(format!("cn-marks-{}-{}", std::process::id(), cn_hub::id::new()));
    let marks_arg = format!("--export-marks={}", marks_path.display());
    let imported = Git::new(hub.root()).run_with_input(&["fast-import", "--quiet", "--force", &marks_arg], &stream);
    let marks = std::fs::read_to_string(&marks_path).map_err(io_at(&marks_path));
    let _ = std::fs::remove_file(&marks_path);
    imported?;
    let marks: BTreeMap<usize, String> = marks?
        .lines()
        .filter_map(|l| l.strip_prefix(':')?.split_once(' '))
        .filter_map(|(n, sha)| Some((n.parse().ok()?, sha.to_string())))
        .collect();
    let missing = || {
        AgentError::Git(GitError::Failed {
            dir: hub.root().to_path_buf(),
            args: "fast-import".into(),
            stderr: "it did not report a commit for every mail".into(),
        })
    };
    let receipt = marks.get(&1).cloned().ok_or_else(missing)?;
    let outgoing = outgoing
        .into_iter()
        .enumerate()
        .map(|(i, (path, mail))| marks.get(&(i + 2)).map(|sha| Outgoing { path, mail, commit: sha.clone() }))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(missing)?;
    Ok((outgoing, receipt))
}

/// `write!` into a byte buffer (the fast-import stream carries the mail's bytes as they are).
struct Bytes<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(b: &[u8]) -> Option<Object> {
        Some(Object { kind: "blob".into(), bytes: b.to_vec() })
    }

    #[test]
    fn batch_output_splits_per_request() {
        let out = b"aaa blob 5\nhello\nbbb:x.md missing\nccc blob 0\n\n";
        assert_eq!(parse_batch(out, 3), vec![blob(b"hello"), None, blob(b"")]);
        assert_eq!(parse_batch(b"", 2), vec![None, None]);
        // Sizes are bytes: invalid UTF-8 does not shift the next entry.
        let out = b"aaa blob 2\n\xff\xfe\nbbb blob 3\n\xe2\x9c\x93\n";
        assert_eq!(parse_batch(out, 2), vec![blob(&[0xff, 0xfe]), blob("\u{2713}".as_bytes())]);
        let out = b"ccc commit 3\nabc\n";
        assert_eq!(parse_batch(out, 1), vec![Some(Object { kind: "commit".into(), bytes: b"abc".to_vec() })]);
    }

    #[test]
    fn the_ref_layout_reads_both_generations_and_nothing_else() {
        let p = MailRef::parse;
        assert_eq!(p("refs/heads/cn-mail/b/m1"), Some(MailRef::Mail { peer: "b".into(), id: "m1".into() }));
        assert_eq!(p("refs/heads/cn-receipt/a/m1"), Some(MailRef::Receipt { peer: "a".into(), id: "m1".into() }));
        assert_eq!(p("refs/heads/b/m1"), Some(MailRef::Legacy { peer: "b".into(), id: "m1".into() }));
        for bad in [
            "refs/heads/main",
            "refs/heads/cn-mail/b",
            "refs/heads/b/m1/x",
            "refs/tags/b/m1",
            "refs/heads/b/..",
            "refs/heads/cn-mail/b/x/y",
        ] {
            assert_eq!(p(bad), None, "{bad}");
        }
        for r in [p("refs/heads/cn-mail/b/m1"), p("refs/heads/cn-receipt/a/m1"), p("refs/heads/b/m1")] {
            let r = r.unwrap();
            assert_eq!(p(&r.name()), Some(r));
        }
    }
}
