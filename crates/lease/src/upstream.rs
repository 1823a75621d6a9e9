//! The hub's branch, lease and carry in `origin`, for one clone: what it lists, fetches and
//! pushes there.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use cn_git::wire::Update;
use cn_git::{rejected, Git, Ran, Remote};
use cn_hub::{Hub, Layout};

use crate::*;

/// The hub's branch and lease in `origin`, for one clone.
#[derive(Debug, Clone)]
pub struct Upstream {
    pub(crate) git: Git,
    pub(crate) layout: Layout,
    pub(crate) remote: String,
    pub(crate) branch: String,
    pub(crate) lease: Option<Duration>,
    pub(crate) name: String,
    /// origin as cn reaches it (its URL asked once: a plain `git://` one is spoken to by cn
    /// itself, in no process).
    pub(crate) origin: Arc<OnceLock<Remote>>,
    /// What this clone's looks at origin learnt, so the next one need not ask again.
    pub(crate) known: Arc<Mutex<Known>>,
}

/// What earlier looks at origin learnt.
#[derive(Debug, Default)]
pub(crate) struct Known {
    /// A branch head known to be in the repository.
    head: Option<String>,
    /// The last lease commit read: its id, record and whether it is authentic.
    lease: Option<(String, Option<LeaseRecord>, bool)>,
}

impl Upstream {
    /// The hub's upstream when cn.yaml's `origin:` asks for one (`push` or `lease`).
    pub fn of(hub: &Hub) -> Result<Option<Upstream>, LeaseError> {
        let config = &hub.config().origin;
        if !config.pushes() {
            return Ok(None);
        }
        let git = hub.git();
        let branch = match &config.branch {
            Some(b) => b.clone(),
            None => git.current_branch().ok_or(LeaseError::NoBranch)?,
        };
        Ok(Some(Upstream {
            git,
            layout: hub.layout().clone(),
            remote: "origin".into(),
            branch,
            lease: config.lease,
            name: hub.name().to_string(),
            origin: Arc::default(),
            known: Arc::default(),
        }))
    }

    /// The lease's time, when the hub is leased.
    pub fn lease(&self) -> Option<Duration> {
        self.lease
    }

    pub fn branch(&self) -> &str {
        &self.branch
    }

    pub fn git(&self) -> &Git {
        &self.git
    }

    /// This clone, as a lease names it (its id and key fingerprint are made on first use).
    pub fn me(&self) -> Result<Me, LeaseError> {
        let clone_id = cn_hub::owner_token::clone_id(&self.layout)?;
        let key = cn_hub::owner_token::id_key(&self.layout)?;
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        Ok(Me {
            label: format!(
                "{}@{}:{}",
                self.name,
                host.trim(),
                self.layout.root().canonicalize().unwrap_or_else(|_| self.layout.root().to_path_buf()).display()
            ),
            key: key_fingerprint(&key),
            clone_id,
        })
    }

    /// The lease this clone holds (its file), if any; whether it is still valid is
    /// [`Held::remaining`].
    pub fn held(&self) -> Option<Held> {
        let text = std::fs::read_to_string(self.layout.lease_file()).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// List origin (one round trip) and read the lease commit when it is new (over `git://`
    /// from the fetch's pack, never stored), fetching the branch's head when it is new here
    /// (so a takeover has it already).
    pub fn observe(&self) -> Result<Seen, LeaseError> {
        let head_ref = format!("refs/heads/{}", self.branch);
        let mut seen = Seen::default();
        let mut lease = None;
        for (sha, name) in self.git.list(self.origin(), &[LEASE_REF, &head_ref], GIT_TIMEOUT)? {
            match name {
                n if n == LEASE_REF => lease = Some(sha),
                n if n == head_ref => seen.head = Some(sha),
                _ => {}
            }
        }
        if let Some(head) = &seen.head {
            let known = self.known().head.as_ref() == Some(head);
            if !known {
                if !self.git.has_object(head) {
                    self.git.fetch_ids(self.origin(), &[head], GIT_TIMEOUT)?;
                }
                self.known().head = Some(head.clone());
            }
        }
        seen.lease = match lease {
            Some(sha) => {
                let (record, authentic) = self.record(&sha)?;
                Some(SeenLease { record, sha, authentic })
            }
            None => None,
        };
        Ok(seen)
    }

    /// origin as cn reaches it (asked of git once).
    fn origin(&self) -> &Remote {
        self.origin.get_or_init(|| self.git.remote(&self.remote))
    }

    fn known(&self) -> std::sync::MutexGuard<'_, Known> {
        self.known.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The hub's id key (made on first use): what only the hub's clones hold.
    fn id_key(&self) -> Result<String, LeaseError> {
        Ok(cn_hub::owner_token::id_key(&self.layout)?)
    }

    /// origin's lease commit `sha` as a record, if it is one (at most [`RECORD_MAX`] bytes),
    /// and whether its MAC verifies with the hub's id key. The last one read is not read again.
    fn record(&self, sha: &str) -> Result<(Option<LeaseRecord>, bool), LeaseError> {
        if let Some((known, record, authentic)) = &self.known().lease {
            if known == sha {
                return Ok((record.clone(), *authentic));
            }
        }
        let key = self.id_key()?;
        let (record, authentic) = match self.git.read_commit(self.origin(), sha, RECORD_MAX as usize, GIT_TIMEOUT)? {
            Some(text) => read_lease(&String::from_utf8_lossy(&text), &key),
            None => (None, false),
        };
        self.known().lease = Some((sha.to_string(), record.clone(), authentic));
        Ok((record, authentic))
    }

    /// The carry's commit in origin now, if any (one listing). Read after taking the lease:
    /// the lease's compare-and-swap means no other clone moves it after, so this is the
    /// previous holder's last.
    pub fn carry_tip(&self) -> Result<Option<String>, LeaseError> {
        Ok(self.git.list(self.origin(), &[CARRY_REF], GIT_TIMEOUT)?.into_iter().next().map(|(sha, _)| sha))
    }

    /// The carry origin showed (its commit `sha`, fetched here when this clone lacks it): the
    /// spool lines its message holds, and whether a clone of this hub wrote them (its MAC).
    /// Bounded in size; a commit that is not a carry is empty.
    pub fn carried(&self, sha: &str) -> Result<Carried, LeaseError> {
        if !self.git.has_object(sha) {
            self.git.fetch_ids(self.origin(), &[sha], GIT_TIMEOUT)?;
        }
        match self.git.read_object(sha, CARRY_MAX as usize) {
            Some((kind, text)) if kind == "commit" => Ok(read_carry(&String::from_utf8_lossy(&text), &self.id_key()?)),
            Some((kind, _)) => Err(LeaseError::Carry(format!("it is a {kind}, not a commit"))),
            None => Err(LeaseError::Carry(format!("it is missing, or over the {CARRY_MAX} bytes read"))),
        }
    }

    /// The refspec that moves origin's carry to `lines` (a commit on the empty tree, the
    /// same lines the same commit), for [`Upstream::push`]'s `extra`.
    pub fn carry_refspec(&self, lines: &[u8]) -> Result<String, LeaseError> {
        if !self.git.has_object(EMPTY_TREE) {
            self.git.write_object("tree", b"")?;
        }
        let mut message = CARRY_TITLE.as_bytes().to_vec();
        message.extend_from_slice(lines);
        if !message.ends_with(b"\n") {
            message.push(b'\n');
        }
        let key = self.id_key()?;
        let mut text =
            format!("tree {EMPTY_TREE}\nauthor cn <cn@cn.invalid> 0 +0000\ncommitter cn <cn@cn.invalid> 0 +0000\n\n")
                .into_bytes();
        text.extend_from_slice(&message);
        text.extend_from_slice(format!("mac: {}\n", mac(&key, CARRY_MAC, &message)).as_bytes());
        let sha = self.git.write_object("commit", &text)?;
        Ok(format!("+{sha}:{CARRY_REF}"))
    }

    /// Take the lease origin showed in `seen` (absent, released, expired), by compare and swap:
    /// `Lost` when another clone was faster.
    pub fn acquire(&self, seen: &Seen) -> Result<Held, LeaseError> {
        let ttl = self.lease.ok_or_else(|| LeaseError::Fenced { why: "cn.yaml sets no `origin.lease`".into() })?;
        let me = self.me()?;
        let _lock = self.lock()?;
        // (A forged term near the end of the numbers saturates, never wraps.)
        let term = seen.lease.as_ref().and_then(|l| l.record.as_ref()).map_or(0, |r| r.term).saturating_add(1);
        let instance = cn_hub::id::new();
        let record = |beat: &str| LeaseRecord {
            holder: me.clone_id.clone(),
            label: me.label.clone(),
            instance: instance.clone(),
            term,
            ttl,
            beat: beat.into(),
            key: me.key.clone(),
            branch: self.branch.clone(),
            released: false,
        };
        if let Some(why) = self.diverged() {
            return Err(LeaseError::Fenced { why });
        }
        let first = self.lease_commit(&record("0"))?;
        let beats = vec![first.0.clone()];
        let expected = seen.lease.as_ref().map_or(String::new(), |l| l.sha.clone());
        let start = boot_ms();
        let ran = self.push_lease(&expected, &first, &[])?;
        if !ran.ok {
            if rejected(&ran.stdout).iter().any(|(r, _)| r == LEASE_REF) {
                let now = self.observe().ok().and_then(|s| s.lease).and_then(|l| l.record);
                return Err(LeaseError::Lost {
                    holder: now.as_ref().map_or("someone".into(), |r| r.label.clone()),
                    term: now.map_or(0, |r| r.term),
                });
            }
            return Err(LeaseError::Push(push_detail(&ran)));
        }
        let held = Held {
            sha: beats[0].clone(),
            holder: me.clone_id,
            instance,
            term,
            beat: 0,
            beats,
            ttl_ms: ttl.as_millis() as u64,
            until_ms: start + (ttl.as_millis() as u64) * 2 / 3,
            boot_id: boot_id(),
            pushed: seen.head.clone(),
            label: me.label,
            key: me.key,
            branch: self.branch.clone(),
        };
        self.save(&held)?;
        Ok(held)
    }

    /// Push the hub's head to origin's branch with `extra` refspecs (peer mail's refs), in one
    /// atomic push; leased, renewing the lease in the same push (so nothing reaches origin
    /// from a clone that lost it). Serialized across the clone's processes.
    pub fn push(&self, extra: &[String]) -> Result<Pushed, LeaseError> {
        let _lock = self.lock()?;
        match self.push_locked(extra, None) {
            // A push that landed but whose answer was lost (a dropped connection) leaves
            // origin at our next beat: adopt it and push again.
            Err(LeaseError::Lost { .. }) if self.adopt_own_beat()? => self.push_locked(extra, None),
            // origin's lease is one no clone wrote, put there while this clone holds the
            // lease (no clone can have taken it: a standby waits out the whole lease time,
            // and this hold ends two thirds into it): this clone's beat goes back, by compare
            // and swap from what was put there. Never adopted.
            Err(lost @ LeaseError::Lost { .. }) => match self.forged_lease()? {
                Some((sha, what)) => {
                    let mut pushed = self.push_locked(extra, Some(&sha))?;
                    pushed.repaired = Some(what);
                    Ok(pushed)
                }
                None => Err(lost),
            },
            other => other,
        }
    }

    /// origin's lease, when no clone can have put it there while this clone holds the lease:
    /// one no clone of this hub wrote (its MAC does not verify), or one a clone wrote for an
    /// earlier term (pushed back by someone: a clone that takes over writes a later term than
    /// the one it saw). Its commit and what it says, for the owner.
    fn forged_lease(&self) -> Result<Option<(String, String)>, LeaseError> {
        let Some(held) = self.held() else { return Ok(None) };
        let Some(lease) = self.observe()?.lease else { return Ok(None) };
        let replayed = lease.record.as_ref().is_some_and(|r| r.term < held.term);
        if lease.authentic && !replayed {
            return Ok(None);
        }
        let why = if lease.authentic {
            format!("a lease of an earlier term than this clone's {} pushed back", held.term)
        } else {
            "whose MAC does not verify with the hub's id key".to_string()
        };
        let what = match &lease.record {
            Some(r) => format!(
                "a lease commit {} naming {} (term {}, {}, ttl {:?}) {why}",
                short(&lease.sha),
                cn_process::redact::printable_line(&r.label),
                r.term,
                if r.released { "released" } else { "held" },
                r.ttl
            ),
            None => format!("a commit {} that is no lease", short(&lease.sha)),
        };
        Ok(Some((lease.sha, what)))
    }

    /// `expected`: the lease commit origin must show for the push to land (the hold's own
    /// beat unless given).
    fn push_locked(&self, extra: &[String], expected: Option<&str>) -> Result<Pushed, LeaseError> {
        let head = self.git.head();
        let mut expect = None;
        let mut renewal = None;
        if self.lease.is_some() {
            let mut held = self.valid_hold()?;
            let beat = held.beat + 1;
            let next = self.lease_commit(&LeaseRecord {
                holder: held.holder.clone(),
                label: held.label.clone(),
                instance: held.instance.clone(),
                term: held.term,
                ttl: Duration::from_millis(held.ttl_ms),
                beat: beat.to_string(),
                key: held.key.clone(),
                branch: held.branch.clone(),
                released: false,
            })?;
            // Noted before the push: if it lands and its answer is lost, origin shows `next`,
            // and `adopt_own_beat` knows it for this clone's.
            held.beats = vec![held.sha.clone(), next.0.clone()];
            self.save(&held)?;
            expect = Some(expected.unwrap_or(&held.sha).to_string());
            renewal = Some((held, beat, next));
        }
        let mut refspecs = Vec::new();
        if let Some(h) = &head {
            refspecs.push(format!("{h}:refs/heads/{}", self.branch));
        }
        refspecs.extend(extra.iter().cloned());
        let start = boot_ms();
        let ran = match (&expect, &renewal) {
            (Some(expect), Some((_, _, next))) => self.push_lease(expect, next, &refspecs)?,
            _ => self.git.push_atomic(self.origin(), &[], &[], &refspecs, GIT_TIMEOUT)?,
        };
        if !ran.ok {
            let rejected = rejected(&ran.stdout);
            let branch_ref = format!("refs/heads/{}", self.branch);
            if rejected.iter().any(|(r, why)| r == LEASE_REF && !why.contains("atomic")) {
                let now = self.observe().ok().and_then(|s| s.lease).and_then(|l| l.record);
                return Err(LeaseError::Lost {
                    holder: now.as_ref().map_or("someone".into(), |r| r.label.clone()),
                    term: now.map_or(0, |r| r.term),
                });
            }
            if let Some((_, why)) = rejected.iter().find(|(r, why)| *r == branch_ref && !why.contains("atomic")) {
                let err = LeaseError::Diverged { branch: self.branch.clone(), detail: why.clone() };
                // Remembered: this clone takes the lease again only once the owner has looked.
                let marker = self.diverged_marker();
                let note = format!("{err}\n");
                if let Err(e) = cn_storage::write_atomic(&marker, note.as_bytes()) {
                    tracing::warn!(path = %marker.display(), error = %e, "cannot note the diverged branch");
                }
                return Err(err);
            }
            return Err(LeaseError::Push(push_detail(&ran)));
        }
        let mut until = None;
        if let Some((mut held, beat, next)) = renewal {
            held.sha = next.0.clone();
            held.beat = beat;
            held.beats = vec![next.0];
            held.until_ms = start + held.ttl_ms * 2 / 3;
            held.pushed = head.clone();
            until = held.remaining();
            self.save(&held)?;
        }
        Ok(Pushed { head, until, repaired: None })
    }

    /// origin's lease is one of this clone's own beats of the term it holds (a push landed
    /// whose answer was lost): take it as held. True when it was.
    fn adopt_own_beat(&self) -> Result<bool, LeaseError> {
        let Some(mut held) = self.held() else { return Ok(false) };
        let seen = self.observe()?;
        let Some(sha) = seen.lease.map(|l| l.sha) else { return Ok(false) };
        if held.sha == sha || held.beats.last() != Some(&sha) {
            return Ok(false);
        }
        held.beat += 1;
        held.beats = vec![sha.clone()];
        held.sha = sha;
        self.save(&held)?;
        Ok(true)
    }

    /// `.git/cn-lease-diverged`: written when a push found origin's branch moved by someone
    /// else; while it exists this clone takes no lease.
    fn diverged_marker(&self) -> PathBuf {
        self.layout.lease_file().with_file_name("cn-lease-diverged")
    }

    /// Why this clone may not take the lease, if a push found origin's branch pushed by
    /// someone besides the holder (and the owner has not yet removed the note).
    pub fn diverged(&self) -> Option<String> {
        let path = self.diverged_marker();
        let said = std::fs::read_to_string(&path).ok()?;
        Some(format!(
            "{} — origin's branch was pushed by someone besides the lease holder; check what was pushed (it includes cn.yaml, which the daemon would run), then remove {} to let this clone take the lease",
            cn_process::redact::printable_line(said.trim()),
            path.display()
        ))
    }

    /// Hand the lease back (a clean stop): the head is pushed with a released lease, so a
    /// standby takes over at once. Without a valid hold, nothing is pushed.
    pub fn release(&self) -> Result<(), LeaseError> {
        let _lock = self.lock()?;
        let held = self.valid_hold()?;
        let me = self.me()?;
        let released = self.lease_commit(&LeaseRecord {
            holder: held.holder.clone(),
            label: held.label.clone(),
            instance: held.instance.clone(),
            term: held.term,
            ttl: Duration::from_millis(held.ttl_ms),
            beat: "-".into(),
            key: me.key,
            branch: self.branch.clone(),
            released: true,
        })?;
        let refspecs: Vec<String> =
            self.git.head().map(|h| format!("{h}:refs/heads/{}", self.branch)).into_iter().collect();
        let ran = self.push_lease(&held.sha, &released, &refspecs)?;
        self.void();
        if !ran.ok {
            return Err(LeaseError::Push(push_detail(&ran)));
        }
        Ok(())
    }

    /// Give up the hold here (fenced, or stopping): no process of this clone decides or pushes
    /// until the lease is taken again.
    pub fn void(&self) {
        let path = self.layout.lease_file();
        if let Err(e) = std::fs::remove_file(&path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(path = %path.display(), error = %e, "cannot remove the lease file");
            }
        }
    }

    /// The hold, if valid now; else why this clone may not push.
    fn valid_hold(&self) -> Result<Held, LeaseError> {
        let held = self.held().ok_or_else(|| LeaseError::Fenced { why: "it holds no lease".into() })?;
        if held.remaining().is_none() {
            return Err(LeaseError::Fenced { why: "its lease lapsed: it could not renew it in time".into() });
        }
        Ok(held)
    }

    /// Bring the working tree to origin's head `head` (a takeover): forward when the clone is
    /// behind; when it holds commits (or changes) origin lacks, keep them under
    /// `refs/cn/set-aside/<time>-<sha>` and move to origin's head all the same.
    pub fn adopt_head(&self, head: Option<&str>) -> Result<Adopted, LeaseError> {
        let Some(head) = head else { return Ok(Adopted::NothingInOrigin) };
        if !self.git.has_object(head) {
            self.git.fetch_ids(self.origin(), &[head], GIT_TIMEOUT)?;
        }
        // The clone's own changes, uncommitted, become a commit first so they can be set aside.
        self.git.commit_paths_quick("cn: what this clone held when it took the lease over", &cn_hub::layout::OWN)?;
        let local = self.git.head();
        let Some(local) = local else {
            self.git.reset_hard(head)?;
            return Ok(Adopted::Forward { from: String::new(), to: head.into() });
        };
        if local == head {
            return Ok(Adopted::Same);
        }
        let behind = self.git.is_ancestor(&local, head);
        if behind {
            self.git.reset_hard(head)?;
            return Ok(Adopted::Forward { from: local, to: head.into() });
        }
        let commits = self.git.count_commits(&local, head);
        let stamp = jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ").to_string();
        let set_aside = format!("{SET_ASIDE_REFS}{stamp}-{}", &local[..12.min(local.len())]);
        self.git.update_ref(&set_aside, &local)?;
        self.git.reset_hard(head)?;
        Ok(Adopted::SetAside { set_aside, commits, to: head.into() })
    }

    /// The commit for `record`, its id and bytes (deterministic: the same record is the same
    /// commit). Written to the repository only if git pushes it.
    fn lease_commit(&self, record: &LeaseRecord) -> Result<(String, Vec<u8>), LeaseError> {
        let message = record.render();
        let text = format!(
            "tree {EMPTY_TREE}\nauthor cn <cn@cn.invalid> 0 +0000\ncommitter cn <cn@cn.invalid> 0 +0000\n\n{message}mac: {}\n",
            mac(&self.id_key()?, LEASE_MAC, message.as_bytes())
        );
        Ok((cn_git::wire::object_id("commit", text.as_bytes()), text.into_bytes()))
    }

    /// One atomic push moving origin's lease from `old` (empty: none) to the commit `new`, with
    /// `refspecs` — by cn itself when it can (a renewal with nothing else new: no process).
    fn push_lease(&self, old: &str, new: &(String, Vec<u8>), refspecs: &[String]) -> Result<Ran, LeaseError> {
        let update = Update { name: LEASE_REF.into(), old: old.into(), new: new.0.clone() };
        let objects = [("commit", new.1.as_slice()), ("tree", &b""[..])];
        Ok(self.git.push_atomic(self.origin(), &[update], &objects, refspecs, GIT_TIMEOUT)?)
    }

    fn save(&self, held: &Held) -> Result<(), LeaseError> {
        let path = self.layout.lease_file();
        cn_storage::write_json_atomic(&path, held).map_err(|source| LeaseError::Io { path, source })
    }

    /// The clone's push lock (`.git/cn-lease.lock`), held until dropped.
    fn lock(&self) -> Result<PushLock, LeaseError> {
        let path = self.layout.lease_lock();
        let io = |source| LeaseError::Io { path: path.clone(), source };
        let file = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(io)?;
        // SAFETY: flock on a descriptor this function owns; released when it is closed.
        if unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&file), libc::LOCK_EX) } != 0 {
            return Err(io(std::io::Error::last_os_error()));
        }
        Ok(PushLock { _file: file })
    }
}

/// Held while this clone pushes (closing the file releases the `flock`).
struct PushLock {
    _file: std::fs::File,
}

pub(crate) fn push_detail(ran: &Ran) -> String {
    let refs: Vec<String> = rejected(&ran.stdout).into_iter().map(|(r, why)| format!("{r} {why}")).collect();
    match (refs.is_empty(), ran.stderr.is_empty()) {
        (false, _) => format!("{}; {}", refs.join(", "), ran.stderr),
        (true, false) => ran.stderr.clone(),
        (true, true) => "git gave no reason".into(),
    }
}
