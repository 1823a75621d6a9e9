//! The git side of `cn sync`: how a peer's and origin's mail refs are listed and fetched —
//! by git, or for a plain `git://` remote in protocol v2 spoken by cn (`cn_git::v2`) — into a
//! quarantine, sized and read within bounds; how the outbox's mail becomes commits (one `git
//! fast-import`); how a git command on a peer is tried again. What the refs mean, what is
//! new, and what is filed, receipted or released is the parent module's.
//!
//! Invariant: every git command on a peer's bytes runs within bounds — time (the peer's
//! deadline), output, file size, memory — its objects in the quarantine, never the hub's
//! store.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use cn_git::{Git, GitError};

use super::{
    check, own_patterns, sort_listing, Fetched, MailRef, Outgoing, PeerRecord, Rejected, SyncReport, Unread,
    Unsendable, CHUNK, MAIL_REFS, RECEIPT_REFS, RESERVED_NAMES,
};
use crate::envelope::Envelope;
use crate::error::{io_at, AgentError, Result};
use crate::hub::Hub;
use crate::mail::Mail;

/// The one local ref outgoing mail commits are built on (each a root commit).
pub(super) const SCRATCH: &str = "refs/cn/outbox";
/// The local ref of the receipt commit (one empty commit every receipt points at).
pub(super) const RECEIPT_COMMIT: &str = "refs/cn/receipt";

/// How long one git command on a peer's bytes may take here (indexing, reading them); what
/// talks to the peer is bounded by its deadline (`mail.peer_timeout`).
pub(super) const PEER_GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// Most bytes of a listing of a peer's mail refs (about 150,000 refs).
pub(super) const LISTING_MAX: usize = 16 << 20;

/// The largest commit (a mail's envelope) or tree (its one file) taken from a peer.
pub(super) const ENVELOPE_MAX: u64 = 64 << 10;

/// Most address space a git reading a peer's bytes may take: a pack's delta can describe an
/// object of any size in a few bytes, and git builds it in memory.
pub(super) const PEER_GIT_MEMORY: u64 = 1 << 30;

/// Most bytes of mail read into memory at once (many mails are read in batches of this).
pub(super) const BATCH_BYTES: u64 = 16 << 20;

/// A directory in the hub's git directory where a sync's fetches put their objects (git's
/// `GIT_OBJECT_DIRECTORY`), removed when the sync has read them: a peer's mail leaves
/// nothing in `.git` — a mail refused as too large is not kept, and one filed is a file in
/// the inbox. One left by a killed sync is removed by the next after a day.
pub(super) struct Quarantine {
    dir: tempfile::TempDir,
    /// The hub's own object store (`.git/objects`), the quarantine's alternate.
    store: PathBuf,
    /// Whether cn may connect to a `git://` peer itself (`cn_git::Git::connects_itself`).
    native: bool,
}

impl Quarantine {
    /// `native`: whether cn may connect to a `git://` peer itself (`Git::connects_itself`).
    pub(super) fn new(hub: &Hub, native: bool) -> Result<Quarantine> {
        let git_dir = hub.git().git_dir()?;
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

/// `git ls-remote --heads REMOTE PATTERNS…`: the mail layout's refs it shows, with their
/// commits. A peer's listing is bounded (`quarantine`: its size, and its peer's deadline).
pub(super) fn list(
    hub: &Hub,
    remote: &str,
    patterns: &[String],
    bounded: Option<(&Quarantine, std::time::Instant)>,
) -> Result<Vec<(MailRef, String)>> {
    let mut args = vec!["ls-remote", "--heads", "--", remote];
    args.extend(patterns.iter().map(String::as_str));
    let git = hub.git();
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
pub(super) fn fetch_from(
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
    if let Some(url) = cn_git::Remote::reached(remote, Some(remote), quarantine.native).url {
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
    let git = hub.git();
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

/// List and fetch a `git://` peer's mail for this hub in one connection, in git's protocol v2
/// spoken by cn (`cn_git::v2`): the listing, then the new mail by id, its pack written
/// into the quarantine as it arrives (at most `cap` a mail, plus room for its envelope) and
/// indexed there by `git index-pack` within the quarantine's bounds. `Ok(None)` when this
/// is not the plain case (a server of the old protocol, another hash, a pack over the limit):
/// git itself then lists and fetches, and sizes each mail alone. All by `deadline`, no read
/// waiting more than [`cn_hub::config::PEER_IDLE`] for a byte.
#[allow(clippy::too_many_arguments)]
pub(super) fn native(
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
    let git = hub.git();
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
pub(super) fn v2_failed<T>(
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
/// layout under each peer's name): for a plain `git://` origin (`origin.url`, cn-git's
/// choice) in one connection
/// spoken by cn, without a process; else, or when that is not the plain case, by `git
/// ls-remote` (within [`ORIGIN_GIT_TIMEOUT`] either way).
pub(super) fn list_origin(
    hub: &Hub,
    origin: &cn_git::Remote,
    peers: &BTreeMap<String, crate::hub::Peer>,
) -> Result<Vec<(MailRef, String)>> {
    if let Some(url) = &origin.url {
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
    list(hub, &origin.name, &own_patterns(peers), None)
}

/// Size, read and check every peer's mail fetched into the quarantine (without the hub
/// lock), all peers' at once: one `cat-file --batch-check`, and one `cat-file --batch` per
/// [`BATCH_BYTES`]. Should that fail, each peer's mail is read alone, so that a failure is
/// only the error of the peer whose mail it is.
pub(super) fn read_fetched(
    hub: &Hub,
    cap: u64,
    quarantine: &Quarantine,
    fetched: &mut BTreeMap<String, Result<Fetched>>,
) {
    let mut unread: Vec<Unread> =
        fetched.values_mut().filter_map(|got| got.as_mut().ok()).flat_map(|f| std::mem::take(&mut f.unread)).collect();
    if unread.is_empty() {
        return;
    }
    let git = hub.git();
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
pub(super) fn reaches_all(git: &Git, unread: &[&Unread], quarantine: &Quarantine) -> std::result::Result<(), GitError> {
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
pub(super) fn read_mail(
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
pub(super) fn fetch(
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
pub(super) const ORIGIN_GIT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// Run `git` on the hub's own origin within [`ORIGIN_GIT_TIMEOUT`] (killed past it) and
/// [`LISTING_MAX`] bytes of output (past it an error, never a listing cut short); its stdout,
/// or why it failed.
pub(super) fn origin_git(git: &Git, args: &[&str]) -> std::result::Result<String, GitError> {
    let bounds = cn_git::Bounds::time_and_output(ORIGIN_GIT_TIMEOUT, LISTING_MAX);
    Ok(String::from_utf8_lossy(&git.run_bounded(args, None, &bounds)?).into_owned())
}

/// Tries of one git command on a peer's repository when it fails for the network's sake.
pub(super) const PEER_GIT_TRIES: u32 = 4;

/// The first wait before trying again; each next one is three times longer (0.2, 0.6,
/// 1.8 s), each drawn between half and the whole of it, so hubs that a busy server turned
/// away at once do not all come back at once.
pub(super) const PEER_GIT_RETRY: std::time::Duration = std::time::Duration::from_millis(200);

/// A try that failed later than this is not tried again: a peer that takes long to fail
/// would make every sync wait that long several times over.
pub(super) const PEER_GIT_QUICK: std::time::Duration = std::time::Duration::from_secs(5);

/// Run `git` on a peer's repository, trying again (up to [`PEER_GIT_TRIES`] in all, with a
/// growing, jittered wait) while it fails quickly ([`PEER_GIT_QUICK`]) the way a dropped
/// connection or a busy server makes it fail ([`GitError::is_transient`]): a git server turns
/// connections away when many hubs sync at once, and a sync that gave up would leave that
/// peer's mail for the next one.
pub(super) fn patiently<T>(
    mut git: impl FnMut() -> std::result::Result<T, GitError>,
) -> std::result::Result<T, GitError> {
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
pub(super) fn sizes(git: &Git, specs: &[String], quarantine: &Quarantine) -> Result<Vec<Option<(String, u64)>>> {
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

/// One `git fast-import` builds every outbox mail's commit (its message the envelope) and the
/// receipt commit; a mail that cannot be read stays in the outbox, reported.
pub(super) fn build_commits(hub: &Hub, files: &[PathBuf], report: &mut SyncReport) -> Result<(Vec<Outgoing>, String)> {
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
    let imported = hub.git().run_with_input(&["fast-import", "--quiet", "--force", &marks_arg], &stream);
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
pub(super) struct Bytes<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}
