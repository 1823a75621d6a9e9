//! What goes over git: `origin:` (the hub kept in its remote, the lease), `mail:` (peer
//! mail's limits) and `git:` (what git sees of cn's environment).

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::duration;

/// The `origin:` section (issue 35): the hub lives in its git remote `origin`.
///
/// ```yaml
/// origin:
///   push: true      # the daemon pushes the hub's commits to origin as it makes them
///   lease: 30s      # one active daemon among the hub's clones (refs/cn/lease); implies push
///   branch: main    # the branch in origin (default: the hub's current branch)
/// ```
///
/// Absent, nothing but peer mail goes to origin, as before. With it, everything the hub
/// commits — its journal, threads and notes — is readable by whoever can fetch origin,
/// peers included (SECURITY.md).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OriginConfig {
    /// Push the hub's commits to origin (a lease implies it).
    pub push: bool,
    /// Hold `refs/cn/lease` in origin for this long at a time: the daemon that holds it is
    /// the only one that decides; another clone's daemon stands by and takes over when it
    /// expires. At least 1 s.
    #[serde(deserialize_with = "duration_opt", serialize_with = "duration_opt_out")]
    pub lease: Option<Duration>,
    /// The branch of origin the hub lives on (default: the branch checked out).
    pub branch: Option<String>,
}

impl OriginConfig {
    /// Whether the daemon pushes the hub's commits.
    pub fn pushes(&self) -> bool {
        self.push || self.lease.is_some()
    }
}

/// An optional duration as `cn config show` prints it (`30s`), or null.
fn duration_opt_out<S: Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => duration::serialize(d, s),
        None => s.serialize_none(),
    }
}

/// An optional duration (`lease: 30s`); null or absent is `None`.
fn duration_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    match Option::<duration::Raw>::deserialize(d)? {
        None => Ok(None),
        Some(raw) => raw.duration().map(Some).map_err(serde::de::Error::custom),
    }
}

/// The `mail:` section: how much of a peer's mail `cn sync` takes (issue 34). A mail whose
/// file is larger is refused with a notice to its sender and receipted, so it is never
/// fetched again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MailConfig {
    /// Largest mail file taken from a peer, in bytes (default 1 MiB).
    pub max_bytes: u64,
    /// Most peers one sync lists and fetches at once, 1 to [`PEERS_AT_ONCE_MAX`] (default
    /// [`PEERS_AT_ONCE`]): more finishes a sync of many distant peers in fewer rounds, if the
    /// git server takes that many connections at once (a stock standalone `git daemon`
    /// listens with a backlog of 5 and serves 32).
    #[serde(deserialize_with = "peers_at_once")]
    pub peers_at_once: usize,
    /// How long one peer's part of a sync (its listing and fetch, however many tries) may
    /// take in all (default [`PEER_TIMEOUT`]); a peer that sends nothing for
    /// [`PEER_IDLE`] (or this, if shorter) is cut off sooner. Either is "took too long" for
    /// that peer only: every other peer's mail is filed as its own fetch completes.
    #[serde(with = "duration")]
    pub peer_timeout: Duration,
}

/// How long one peer's part of a sync may take unless `mail.peer_timeout` says otherwise.
pub const PEER_TIMEOUT: Duration = Duration::from_secs(300);
/// How long a peer's server may send nothing before a sync gives up on it.
pub const PEER_IDLE: Duration = Duration::from_secs(30);

/// Peers a sync lists and fetches at once unless `mail.peers_at_once` says otherwise.
pub const PEERS_AT_ONCE: usize = 16;
/// The most `mail.peers_at_once` may be (each is a git process or two on this machine).
pub const PEERS_AT_ONCE_MAX: usize = 128;

fn peers_at_once<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let n = usize::deserialize(d)?;
    if (1..=PEERS_AT_ONCE_MAX).contains(&n) {
        Ok(n)
    } else {
        Err(serde::de::Error::custom(format!("peers_at_once must be 1 to {PEERS_AT_ONCE_MAX}, not {n}")))
    }
}

impl Default for MailConfig {
    fn default() -> Self {
        MailConfig { max_bytes: 1 << 20, peers_at_once: PEERS_AT_ONCE, peer_timeout: PEER_TIMEOUT }
    }
}

/// The `git:` section: git (and the hooks, ssh and credential helpers it runs) gets a
/// scrubbed environment — `child::BASE_ENV`, `LC_*`, `git::GIT_BASE_ENV` —
/// plus the variables named here (a proxy, `GIT_SSH_COMMAND`, …).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GitConfig {
    pub env: Vec<String>,
}
