//! lease — the hub kept in its git remote `origin`, and one active daemon among its clones
//! (cn.yaml `origin:`, issue 35). No consensus of cn's own: the git server's atomic ref update
//! is the one arbiter.
//!
//! In origin, besides peer mail:
//!
//! - `refs/heads/<branch>` — the hub itself, as the active daemon last pushed it;
//! - `refs/cn/attention` — the carry: what the active daemon's senses took in and
//!   acknowledged that the branch does not hold yet (a commit on the empty tree whose message
//!   is the spool's lines; see `cn_autonomy::attention::carry`), moved in the same atomic
//!   push, read by the clone that takes over before its agent starts;
//! - `refs/cn/lease` — who may decide: a commit (empty tree, no parent) whose message names
//!   the holding clone, its term, the lease's time and the fingerprint of the hub's id key.
//!
//! The holder renews the lease by moving the ref to its next "beat" commit with
//! a compare-and-swap push (`--force-with-lease=refs/cn/lease:<what it holds>`), and every
//! push of the hub's branch (and of peer mail, receipts and releases) carries that renewal
//! in the same `--atomic` push. So a clone that lost the lease can write nothing to origin:
//! the server refuses the whole push. Each beat is numbered, so no lease commit repeats within
//! a term: a standby that saw the same commit for the lease's whole time knows no push moved
//! it meanwhile (beats that cycled could come back to the commit it saw between two of its
//! looks, and a busy holder would be taken over). A beat is a small commit with no parent,
//! unreachable once the next one lands, so the server's gc drops it.
//!
//! origin is reached through cn-git's `list`, `read_commit` and `push_atomic`, which pick the
//! transport: over a plain `git://` URL an idle renewal (nothing but the lease's next beat)
//! and a standby's look (a listing, the new lease commit read from a fetch's pack, never
//! stored) are spoken by cn itself and run no process; anything else, and any other remote,
//! is git's own `push` and `fetch`.
//!
//! A push refused because origin's branch moved under the lease (someone pushed it besides
//! the holder) leaves `.git/cn-lease-diverged`: no daemon of this clone takes the lease again,
//! nor runs the config someone else pushed, until the owner has looked and removed the file.
//!
//! Time is each machine's own boot clock (`CLOCK_BOOTTIME`: it counts a laptop's sleep), never
//! a wall clock compared across machines:
//!
//! - the holder may decide until two thirds of the lease's time after the start of the last
//!   push that renewed it ([`Held::until_ms`], in `.git/cn-lease.json`, which every process
//!   of the clone reads: [`check`]);
//! - a standby takes over only when it has seen the same lease commit for the lease's whole
//!   time by its own clock ([`Watch`]), which starts after that push landed.
//!
//! So the holder has stopped deciding a third of the lease before any standby may start.
//!
//! Nothing from origin is trusted for being there (issue 42): anyone who may push to origin
//! may write the lease and the carry. So each lease commit and each carry ends with a MAC
//! line (`mac: …`, HMAC-SHA-256 keyed with the hub's id key `.git/cn-id-key`, which only the
//! hub's clones hold, over the message before it). A lease whose MAC does not verify (forged,
//! or written by a cn before the MAC) is held by someone unknown: never "released", never
//! this clone's own, its time never more than cn.yaml's `origin.lease`; a holder whose push
//! finds one in place of its own beat puts its beat back and says so ([`Pushed::repaired`]).
//! A carry whose MAC does not verify is not taken in ([`Carried::authentic`]).
//!
//! Invariants: a push from a clone in lease mode without a valid hold is refused here before
//! git runs ([`LeaseError::Fenced`]), and by the server if it slipped past (the lease's
//! compare-and-swap); a standby that takes over starts from origin's head, and what its own
//! clone held that origin lacks is kept under `refs/cn/set-aside/…`, never pushed and never
//! lost ([`Upstream::adopt_head`]); the lease commit read from origin is bounded in size and
//! parsed without panicking (a malformed one is a lease held by someone unknown).

mod upstream;
mod watch;

pub use upstream::Upstream;
pub use watch::{Verdict, Watch};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use cn_git::GitError;
use cn_hub::config::OriginConfig;
use cn_hub::owner_token::TokenError;
use cn_hub::Layout;

/// The lease's ref in origin.
pub const LEASE_REF: &str = "refs/cn/lease";
/// The carry's ref in origin (see the module's doc).
pub const CARRY_REF: &str = "refs/cn/attention";
/// The largest carry written to or read from origin (the pool's capacity of items, with room).
pub const CARRY_MAX: u64 = 64 << 20;
/// The first line of a carry commit's message; the spool's lines follow.
pub(crate) const CARRY_TITLE: &str = "cn: attention carried\n\n";
/// Where a clone keeps what it held that origin lacked when it took the lease over.
pub const SET_ASIDE_REFS: &str = "refs/cn/set-aside/";
/// How long one push or listing of origin may take before it is killed (and retried).
pub(crate) const GIT_TIMEOUT: Duration = Duration::from_secs(120);
/// The largest lease commit read from origin.
pub(crate) const RECORD_MAX: u64 = 16 << 10;
/// The MAC's domains: a lease commit's MAC is never a carry's, nor the other way round.
pub(crate) const LEASE_MAC: &str = "cn lease mac v1";
pub(crate) const CARRY_MAC: &str = "cn carry mac v1";
/// git's empty tree, which every lease commit points at.
pub(crate) const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// Why origin could not be read or written, or why this clone may not decide.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    #[error(transparent)]
    Git(#[from] GitError),
    #[error("cannot use {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Token(#[from] TokenError),
    /// This clone does not hold the lease now (a standby; a lapsed or lost lease).
    #[error("this clone does not hold the hub's lease in origin ({why}); the daemon that holds it decides: run `cn lease` to see which")]
    Fenced { why: String },
    /// Another clone took the lease over.
    #[error("another clone holds the hub's lease in origin now ({holder}, term {term}); this one stopped deciding")]
    Lost { holder: String, term: u64 },
    /// origin's branch moved under the lease: someone pushed to it besides the holder.
    #[error("origin's `{branch}` has commits this clone lacks ({detail}); only the lease holder may push it — fetch and merge them by hand, then start again")]
    Diverged { branch: String, detail: String },
    /// The push failed for another reason (a network, a server refusing): retried.
    #[error("git push to origin failed: {0}")]
    Push(String),
    /// origin's carry (`refs/cn/attention`) cannot be taken in.
    #[error("origin's {CARRY_REF} cannot be taken in: {0}")]
    Carry(String),
    /// The hub has no branch checked out and cn.yaml names none.
    #[error("the hub has no branch checked out (a detached HEAD) and cn.yaml `origin.branch` names none")]
    NoBranch,
}

/// What a lease commit says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaseRecord {
    /// The holding clone (`.git/cn-clone-id`).
    pub holder: String,
    /// For people: `name@host:/path`.
    pub label: String,
    /// Which run of the clone (each takeover is a new one).
    pub instance: String,
    /// Takeovers so far, counting this one.
    pub term: u64,
    pub ttl: Duration,
    pub beat: String,
    /// The fingerprint of the hub's id key the holder uses.
    pub key: String,
    /// The branch the hub lives on.
    pub branch: String,
    /// Handed back by a daemon that stopped cleanly: anyone may take it at once.
    pub released: bool,
}

impl LeaseRecord {
    /// The commit's message.
    pub fn render(&self) -> String {
        let state = if self.released { "released" } else { "held" };
        format!(
            "cn lease: {state} by {label}\n\nholder: {holder}\nlabel: {label}\ninstance: {instance}\nterm: {term}\nttl-ms: {ttl}\nbeat: {beat}\nkey: {key}\nbranch: {branch}\nstate: {state}\n",
            label = one_line(&self.label),
            holder = self.holder,
            instance = self.instance,
            term = self.term,
            ttl = self.ttl.as_millis(),
            beat = self.beat,
            key = self.key,
            branch = self.branch,
        )
    }

    /// A lease commit's text (the whole `cat-file commit` output); `None` when it is not one.
    pub fn parse(commit: &str) -> Option<LeaseRecord> {
        let (_, message) = commit.split_once("\n\n")?;
        let fields: BTreeMap<&str, &str> =
            message.lines().filter_map(|l| l.split_once(": ")).map(|(k, v)| (k.trim(), v.trim())).collect();
        let get = |k: &str| fields.get(k).map(|v| v.to_string());
        Some(LeaseRecord {
            holder: get("holder").filter(|h| !h.is_empty())?,
            label: get("label").unwrap_or_default(),
            instance: get("instance").unwrap_or_default(),
            term: get("term")?.parse().ok()?,
            ttl: Duration::from_millis(get("ttl-ms")?.parse().ok()?),
            beat: get("beat").unwrap_or_default(),
            key: get("key").unwrap_or_default(),
            branch: get("branch").unwrap_or_default(),
            released: get("state").as_deref() == Some("released"),
        })
    }
}

pub(crate) fn one_line(s: &str) -> String {
    s.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// The lease this clone holds: `.git/cn-lease.json`, rewritten after every push that renews it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// The lease commit origin shows.
    pub sha: String,
    pub holder: String,
    pub instance: String,
    pub term: u64,
    /// The number of the beat `sha` is (0 at the takeover, one more each push).
    pub beat: usize,
    /// `sha`, and the next beat while a push of it is under way (a push that landed but whose
    /// answer was lost is recognised by it).
    pub beats: Vec<String>,
    pub ttl_ms: u64,
    /// This clone may decide until this instant of the boot clock (ms).
    pub until_ms: u64,
    /// The boot the clock belongs to (`/proc/sys/kernel/random/boot_id`): after a reboot the
    /// deadline means nothing and the hold is void.
    pub boot_id: String,
    /// The branch commit origin showed after the last push.
    #[serde(default)]
    pub pushed: Option<String>,
    pub label: String,
    pub key: String,
    pub branch: String,
}

impl Held {
    /// How long from now this clone may still decide; `None` when it may not.
    pub fn remaining(&self) -> Option<Duration> {
        if self.boot_id != boot_id() {
            return None;
        }
        let now = boot_ms();
        (self.until_ms > now).then(|| Duration::from_millis(self.until_ms - now))
    }
}

/// This clone, as a lease names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Me {
    pub clone_id: String,
    pub label: String,
    /// The fingerprint of `.git/cn-id-key`: clones of one hub must share the key, or an
    /// impulse's item would get another id after a takeover and be made twice.
    pub key: String,
}

/// What origin showed: the lease (its commit and what it says) and the branch's head.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seen {
    pub lease: Option<SeenLease>,
    pub head: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenLease {
    pub sha: String,
    /// `None` when the commit is not a lease cn can read (held by someone unknown).
    pub record: Option<LeaseRecord>,
    /// Its MAC verifies with this clone's id key: a clone of this hub wrote it. Otherwise
    /// (forged, or written by a cn before the MAC) it is held by someone unknown.
    pub authentic: bool,
}

/// What origin's carry holds ([`Upstream::carried`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Carried {
    /// The spool lines it holds (empty for a commit that is no carry).
    pub lines: Vec<u8>,
    /// Its MAC verifies with this clone's id key: a clone of this hub wrote it. Lines that
    /// are not authentic are never taken in.
    pub authentic: bool,
}

/// What a push did: the branch commit origin now shows, and until when this clone may decide
/// (lease mode).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pushed {
    pub head: Option<String>,
    pub until: Option<Duration>,
    /// origin's lease had been replaced by one no clone of this hub wrote (its MAC does not
    /// verify) while this clone held it: the push put this clone's beat back. What it found.
    pub repaired: Option<String>,
}

/// What [`Upstream::adopt_head`] did to the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Adopted {
    /// Origin has no branch yet: the clone's own head will be the first pushed.
    NothingInOrigin,
    /// The clone was at origin's head already.
    Same,
    /// The clone moved forward to origin's head (nothing of its own was lost).
    Forward { from: String, to: String },
    /// The clone held commits origin lacks (decisions never pushed before a crash): kept under
    /// `set_aside`, and the clone moved to origin's head.
    SetAside { set_aside: String, commits: usize, to: String },
}

/// HMAC-SHA-256 of `message` keyed with the hub's id `key`, in the MAC's `domain`: 64 hex
/// digits.
pub(crate) fn mac(key: &str, domain: &str, message: &[u8]) -> String {
    use hmac::Mac as _;
    let mut m = hmac::Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()).expect("HMAC takes a key of any length");
    m.update(domain.as_bytes());
    m.update(&[0]);
    m.update(message);
    m.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect()
}

/// `message` up to its last line `mac: <64 hex digits>` when that MAC (with `key`, in
/// `domain`) is the one over it; `None` otherwise (no such line, or another MAC). Compared
/// in constant time.
pub(crate) fn verify<'a>(key: &str, domain: &str, message: &'a str) -> Option<&'a str> {
    use hmac::Mac as _;
    let trimmed = message.strip_suffix('\n')?;
    let at = trimmed.rfind('\n').map_or(0, |i| i + 1);
    let (signed, last) = message.split_at(at);
    let hex = last.strip_prefix("mac: ")?.strip_suffix('\n')?;
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let bytes: Vec<u8> = (0..32).filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()).collect();
    let mut m = hmac::Hmac::<sha2::Sha256>::new_from_slice(key.as_bytes()).ok()?;
    m.update(domain.as_bytes());
    m.update(&[0]);
    m.update(signed.as_bytes());
    m.verify_slice(&bytes).ok().map(|()| signed)
}

pub(crate) fn short(sha: &str) -> &str {
    &sha[..12.min(sha.len())]
}

/// A lease commit's text (git's `cat-file commit`, which origin's pusher chose; the caller
/// bounds its size): the record, when it is one, and whether its MAC verifies with the hub's id
/// `key` (a clone of this hub wrote it). Any text reads without panicking.
pub fn read_lease(text: &str, key: &str) -> (Option<LeaseRecord>, bool) {
    let authentic = text.split_once("\n\n").is_some_and(|(_, message)| verify(key, LEASE_MAC, message).is_some());
    (LeaseRecord::parse(text), authentic)
}

/// A carry commit's text (as [`read_lease`]'s): the spool lines its message holds, and whether
/// its MAC verifies with `key`; a commit that is not a carry (not on the empty tree, no title)
/// is empty. A carry without a valid MAC (forged, or written by a cn before the MAC) is read
/// whole, and not authentic.
pub fn read_carry(text: &str, key: &str) -> Carried {
    let Some((head, body)) = text.split_once("\n\n") else { return Carried::default() };
    if !head.lines().any(|l| l.strip_prefix("tree ") == Some(EMPTY_TREE)) {
        return Carried::default();
    }
    let (message, authentic) = match verify(key, CARRY_MAC, body) {
        Some(signed) => (signed, true),
        None => (body, false),
    };
    message.strip_prefix(CARRY_TITLE).map(|b| Carried { lines: b.as_bytes().to_vec(), authentic }).unwrap_or_default()
}

/// The fingerprint of an id key, as the lease shows it: says whether two clones share the key
/// without telling the key.
pub fn key_fingerprint(key: &str) -> String {
    cn_hub::id::keyed(key, "cn lease: the id key's fingerprint").chars().take(16).collect()
}

/// Whether this clone may decide now: always without `origin.lease`; with it, only while it
/// holds the lease (`.git/cn-lease.json`, valid by the boot clock). Every decision and every
/// filing of peer mail asks, in whichever process of the clone it is made.
pub fn check(layout: &Layout, config: &OriginConfig) -> Result<(), LeaseError> {
    if config.lease.is_none() {
        return Ok(());
    }
    let held: Option<Held> =
        std::fs::read_to_string(layout.lease_file()).ok().and_then(|t| serde_json::from_str(&t).ok());
    match held {
        None => Err(LeaseError::Fenced { why: "it is a standby: it holds no lease".into() }),
        Some(h) if h.remaining().is_none() => {
            Err(LeaseError::Fenced { why: "its lease lapsed: it could not renew it in time".into() })
        }
        Some(_) => Ok(()),
    }
}

/// The boot clock (`CLOCK_BOOTTIME`) in ms: it keeps counting while the machine sleeps, so a
/// laptop that wakes after its lease ran out knows it did.
pub fn boot_ms() -> u64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut t) };
    (t.tv_sec as u64).saturating_mul(1000).saturating_add(t.tv_nsec as u64 / 1_000_000)
}

/// This boot's id (the kernel's random boot id).
pub(crate) fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id").map(|s| s.trim().to_string()).unwrap_or_default()
}

#[cfg(test)]
mod tests;
