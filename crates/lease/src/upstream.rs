//! The hub's branch, lease and carry in `origin`, for one clone: what it lists, fetches and
//! pushes there.

use std::path::PathBuf;
use std::time::Duration;

use cn_git::Git;
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
}

impl Upstream {
    /// The hub's upstream when cn.yaml's `origin:` asks for one (`push` or `lease`).
    pub fn of(hub: &Hub) -> Result<Option<Upstream>, LeaseError> {
        let config = &hub.config().origin;
        if !config.pushes() {
            return Ok(None);
        }
        let git = Git::new(hub.root());
        let branch = match &config.branch {
            Some(b) => b.clone(),
            None => git
                .run(&["symbolic-ref", "--quiet", "--short", "HEAD"])
                .map_err(|_| LeaseError::NoBranch)?
                .trim()
                .to_string(),
        };
        Ok(Some(Upstream {
            git,
            layout: hub.layout().clone(),
            remote: "origin".into(),
            branch,
            lease: config.lease,
            name: hub.name().to_string(),
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

    /// List origin (one round trip) and read the lease commit, fetching it (and the branch's
    /// head, so a takeover has it already) when it is new here.
    pub fn observe(&self) -> Result<Seen, LeaseError> {
        let head_ref = format!("refs/heads/{}", self.branch);
        let ran = self.git.run_for(&["ls-remote", "--", &self.remote, LEASE_REF, &head_ref], GIT_TIMEOUT)?;
        if !ran.ok {
            return Err(self.git.failure(&["ls-remote", &self.remote], &ran).into());
        }
        let mut seen = Seen::default();
        let mut lease = None;
        for line in ran.stdout.lines() {
            let Some((sha, name)) = line.split_once('\t') else { continue };
            if !is_sha(sha) {
                continue;
            }
            match name.trim() {
                n if n == LEASE_REF => lease = Some(sha.to_string()),
                n if n == head_ref => seen.head = Some(sha.to_string()),
                _ => {}
            }
        }
        let missing: Vec<&str> = [lease.as_deref(), seen.head.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !self.git.has_object(s))
            .collect();
        if !missing.is_empty() {
            let mut args =
                vec!["fetch", "-q", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", "--", &self.remote];
            args.extend(missing.iter().copied());
            let ran = self.git.run_for(&args, GIT_TIMEOUT)?;
            if !ran.ok {
                return Err(self.git.failure(&args, &ran).into());
            }
        }
        let key = self.id_key()?;
        seen.lease = lease.map(|sha| {
            let (record, authentic) = self.record(&sha, &key);
            SeenLease { record, sha, authentic }
        });
        Ok(seen)
    }

    /// The hub's id key (made on first use): what only the hub's clones hold.
    fn id_key(&self) -> Result<String, LeaseError> {
        Ok(cn_hub::owner_token::id_key(&self.layout)?)
    }

    /// The lease commit `sha` (local) as a record, if it is one, and whether its MAC
    /// verifies with `key`.
    fn record(&self, sha: &str, key: &str) -> (Option<LeaseRecord>, bool) {
        let size: Option<u64> = self.git.run(&["cat-file", "-s", sha]).ok().and_then(|s| s.trim().parse().ok());
        if size.is_none_or(|s| s > RECORD_MAX) {
            return (None, false);
        }
        let Ok(text) = self.git.run(&["cat-file", "commit", sha]) else { return (None, false) };
        read_lease(&text, key)
    }

    /// The carry's commit in origin now, if any (one listing). Read after taking the lease:
    /// the lease's compare-and-swap means no other clone moves it after, so this is the
    /// previous holder's last.
    pub fn carry_tip(&self) -> Result<Option<String>, LeaseError> {
        let ran = self.git.run_for(&["ls-remote", "--", &self.remote, CARRY_REF], GIT_TIMEOUT)?;
        if !ran.ok {
            return Err(self.git.failure(&["ls-remote", &self.remote, CARRY_REF], &ran).into());
        }
        Ok(ran
            .stdout
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .find(|(sha, name)| name.trim() == CARRY_REF && is_sha(sha))
            .map(|(sha, _)| sha.to_string()))
    }

    /// The carry origin showed (its commit `sha`, fetched here when this clone lacks it): the
    /// spool lines its message holds, and whether a clone of this hub wrote them (its MAC).
    /// Bounded in size; a commit that is not a carry is empty.
    pub fn carried(&self, sha: &str) -> Result<Carried, LeaseError> {
        if !self.git.has_object(sha) {
            let args =
                ["fetch", "-q", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", "--", &self.remote, sha];
            let ran = self.git.run_for(&args, GIT_TIMEOUT)?;
            if !ran.ok {
                return Err(self.git.failure(&args, &ran).into());
            }
        }
        let size: u64 = self.git.run(&["cat-file", "-s", sha])?.trim().parse().unwrap_or(u64::MAX);
        if size > CARRY_MAX {
            return Err(LeaseError::Carry(format!("it is {size} bytes, over the {CARRY_MAX} read")));
        }
        let text = self.git.run(&["cat-file", "commit", sha])?;
        Ok(read_carry(&text, &self.id_key()?))
    }

    /// The refspec that moves origin's carry to `lines` (a commit on the empty tree, the
    /// same lines the same commit), for [`Upstream::push`]'s `extra`.
    pub fn carry_refspec(&self, lines: &[u8]) -> Result<String, LeaseError> {
        if !self.git.has_object(EMPTY_TREE) {
            self.git.run_with_input(&["hash-object", "-t", "tree", "-w", "--stdin"], b"")?;
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
        let sha = self.git.run_with_input(&["hash-object", "-t", "commit", "-w", "--stdin"], &text)?;
        Ok(format!("+{}:{CARRY_REF}", sha.trim()))
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
        let beats = vec![self.write_commit(&record("0"))?];
        let expected = seen.lease.as_ref().map_or(String::new(), |l| l.sha.clone());
        let args = [
            "push".to_string(),
            "--atomic".into(),
            "--porcelain".into(),
            "--no-verify".into(),
            format!("--force-with-lease={LEASE_REF}:{expected}"),
            "--".into(),
            self.remote.clone(),
            format!("{}:{LEASE_REF}", beats[0]),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let start = boot_ms();
        let ran = self.git.run_for(&args, GIT_TIMEOUT)?;
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
        let head = self.git.run(&["rev-parse", "--verify", "--quiet", "HEAD"]).ok().map(|h| h.trim().to_string());
        let mut args: Vec<String> = vec!["push".into(), "--atomic".into(), "--porcelain".into(), "--no-verify".into()];
        let mut renewal = None;
        if self.lease.is_some() {
            let mut held = self.valid_hold()?;
            let beat = held.beat + 1;
            let next = self.write_commit(&LeaseRecord {
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
            held.beats = vec![held.sha.clone(), next.clone()];
            self.save(&held)?;
            args.push(format!("--force-with-lease={LEASE_REF}:{}", expected.unwrap_or(&held.sha)));
            renewal = Some((held, beat, next));
        }
        args.push("--".into());
        args.push(self.remote.clone());
        if let Some((_, _, next)) = &renewal {
            args.push(format!("{next}:{LEASE_REF}"));
        }
        if let Some(h) = &head {
            args.push(format!("{h}:refs/heads/{}", self.branch));
        }
        args.extend(extra.iter().cloned());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let start = boot_ms();
        let ran = self.git.run_for(&argv, GIT_TIMEOUT)?;
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
            held.sha = next.clone();
            held.beat = beat;
            held.beats = vec![next];
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
        let released = self.write_commit(&LeaseRecord {
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
        let head = self.git.run(&["rev-parse", "--verify", "--quiet", "HEAD"]).ok().map(|h| h.trim().to_string());
        let mut args = vec![
            "push".to_string(),
            "--atomic".into(),
            "--porcelain".into(),
            "--no-verify".into(),
            format!("--force-with-lease={LEASE_REF}:{}", held.sha),
            "--".into(),
            self.remote.clone(),
            format!("{released}:{LEASE_REF}"),
        ];
        if let Some(h) = head {
            args.push(format!("{h}:refs/heads/{}", self.branch));
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let ran = self.git.run_for(&argv, GIT_TIMEOUT)?;
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
            let args = ["fetch", "-q", "--no-tags", "--no-write-fetch-head", "--", &self.remote, head];
            let ran = self.git.run_for(&args, GIT_TIMEOUT)?;
            if !ran.ok {
                return Err(self.git.failure(&args, &ran).into());
            }
        }
        // The clone's own changes, uncommitted, become a commit first so they can be set aside.
        self.git.commit_paths_quick("cn: what this clone held when it took the lease over", &cn_hub::layout::OWN)?;
        let local = self.git.run(&["rev-parse", "--verify", "--quiet", "HEAD"]).ok().map(|h| h.trim().to_string());
        let Some(local) = local else {
            self.git.run(&["reset", "-q", "--hard", head])?;
            return Ok(Adopted::Forward { from: String::new(), to: head.into() });
        };
        if local == head {
            return Ok(Adopted::Same);
        }
        let behind = self.git.run(&["merge-base", "--is-ancestor", &local, head]).is_ok();
        if behind {
            self.git.run(&["reset", "-q", "--hard", head])?;
            return Ok(Adopted::Forward { from: local, to: head.into() });
        }
        let commits = self
            .git
            .run(&["rev-list", "--count", &local, "--not", head])
            .ok()
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        let stamp = jiff::Timestamp::now().strftime("%Y%m%dT%H%M%SZ").to_string();
        let set_aside = format!("{SET_ASIDE_REFS}{stamp}-{}", &local[..12.min(local.len())]);
        self.git.run(&["update-ref", &set_aside, &local])?;
        self.git.run(&["reset", "-q", "--hard", head])?;
        Ok(Adopted::SetAside { set_aside, commits, to: head.into() })
    }

    /// A commit object for `record` (deterministic: the same record is the same commit).
    fn write_commit(&self, record: &LeaseRecord) -> Result<String, LeaseError> {
        if !self.git.has_object(EMPTY_TREE) {
            self.git.run_with_input(&["hash-object", "-t", "tree", "-w", "--stdin"], b"")?;
        }
        let message = record.render();
        let text = format!(
            "tree {EMPTY_TREE}\nauthor cn <cn@cn.invalid> 0 +0000\ncommitter cn <cn@cn.invalid> 0 +0000\n\n{message}mac: {}\n",
            mac(&self.id_key()?, LEASE_MAC, message.as_bytes())
        );
        Ok(self
            .git
            .run_with_input(&["hash-object", "-t", "commit", "-w", "--stdin"], text.as_bytes())?
            .trim()
            .to_string())
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

/// The rejected refs of a `git push --porcelain` (ref, why).
pub(crate) fn rejected(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("!\t"))
        .filter_map(|l| {
            let (spec, why) = l.split_once('\t')?;
            let to = spec.rsplit_once(':').map_or(spec, |(_, to)| to);
            Some((to.to_string(), why.to_string()))
        })
        .collect()
}

pub(crate) fn push_detail(ran: &cn_git::Ran) -> String {
    let refs: Vec<String> = rejected(&ran.stdout).into_iter().map(|(r, why)| format!("{r} {why}")).collect();
    match (refs.is_empty(), ran.stderr.is_empty()) {
        (false, _) => format!("{}; {}", refs.join(", "), ran.stderr),
        (true, false) => ran.stderr.clone(),
        (true, true) => "git gave no reason".into(),
    }
}

pub(crate) fn is_sha(s: &str) -> bool {
    s.len() >= 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}
