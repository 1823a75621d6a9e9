//! `cn sync`: mail between peers over git.
//!
//! - **In**: for each peer, fetch the branches `<me>/*` of its remote, file each as an item
//!   in `threads/inbox/` with `from` set to the peer's name, and delete the branches taken
//!   from the peer's remote. A branch whose thread cannot be read (no `<thread-id>.md`, bad
//!   frontmatter, wrong address) is an orphan: it is rejected with a notice to its sender.
//! - **Out**: every mail in `threads/mail/outbox/` becomes a one-file commit pushed to this
//!   hub's `origin` as the branch `<peer>/<thread-id>`, then moves to `threads/mail/sent/`.
//!
//! Invariants: never deliver the same mail twice — `state/received.json` records every commit
//! taken, and an item id the hub already holds is not filed again. A mail's commit is built
//! from its content and date alone, so pushing it again after a crash yields the same commit,
//! which the peer recognizes. A crash at any point loses nothing: mail leaves the outbox only
//! after its push succeeded, and a branch is deleted only after its item is filed.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use cn_hub::git::{Git, GitError};
use cn_hub::journal::HubJournal;
use cn_storage::Entry;

use crate::error::{io_at, AgentError, Result};
use crate::hub::Hub;
use crate::item::{Item, NOTICE};
use crate::lock::lock;
use crate::mail::{post, Mail};
use crate::queue::{enqueue, locate, md_files};
use cn_hub::id::stable as stable_id;

/// What a sync did.
#[derive(Debug, Default, Clone)]
pub struct SyncReport {
    /// Mail pushed (thread ids).
    pub sent: Vec<String>,
    /// Items filed in the inbox (ids).
    pub received: Vec<String>,
    /// Orphan branches rejected (`peer/branch`).
    pub rejected: Vec<String>,
    /// Branches already taken before (deleted again, not filed).
    pub duplicates: usize,
    /// Peers or mail that failed; the rest of the sync went on.
    pub errors: Vec<String>,
    pub committed: bool,
}

/// The one local ref outgoing mail commits are built on (each a root commit).
const SCRATCH: &str = "refs/cn/outbox";

/// Most refs one git command line names, to stay far below the OS argument limit.
const CHUNK: usize = 400;

/// Sync under the hub lock.
pub fn sync(hub: &Hub) -> Result<SyncReport> {
    let _lock = lock(hub)?;
    sync_locked(hub)
}

/// [`sync`] for a caller already holding the hub lock.
pub fn sync_locked(hub: &Hub) -> Result<SyncReport> {
    let mut report = SyncReport::default();
    for (name, peer) in hub.peers()? {
        if let Err(e) = take_from(hub, &name, &peer.remote, &mut report) {
            report.errors.push(format!("peer {name}: {e}"));
        }
    }
    // After taking, so an orphan's notice leaves in this same sync.
    if let Err(e) = push_outbox(hub, &mut report) {
        report.errors.push(e.to_string());
    }
    if !(report.sent.is_empty() && report.received.is_empty() && report.rejected.is_empty()) {
        let entry = Entry::new("sync")
            .with("sent", report.sent.clone())
            .with("received", report.received.clone())
            .with("rejected", report.rejected.clone());
        HubJournal::append_to(&hub.path("state"), &entry)?;
    }
    let message = format!(
        "cn sync: sent {}, received {}, rejected {}",
        report.sent.len(),
        report.received.len(),
        report.rejected.len()
    );
    report.committed = Git::new(hub.root()).commit_all(&message)?;
    Ok(report)
}

type Received = BTreeMap<String, String>;

fn take_from(hub: &Hub, peer: &str, remote: &str, report: &mut SyncReport) -> Result<()> {
    let me = hub.name();
    let prefix = format!("refs/heads/{me}/");
    // List the branches addressed to us; fetch their commits by hash, so no local ref is
    // written (or has to be cleaned up) per mail.
    cn_hub::git::check_remote(remote).map_err(AgentError::Invalid)?;
    let listing = Git::new(hub.root()).run(&["ls-remote", "--heads", "--", remote, &format!("{prefix}*")])?;
    let branches: Vec<(String, String)> = listing
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .filter_map(|(sha, r)| Some((sha.to_string(), r.strip_prefix(&prefix)?.to_string())))
        .collect();
    if branches.is_empty() {
        return Ok(());
    }

    let received_path = hub.layout().received();
    let mut received: Received = cn_storage::read_json_or_default(&received_path).map_err(io_at(&received_path))?;

    // Read every new branch's thread with one `git cat-file --batch`.
    let fresh: Vec<(String, String)> =
        branches.iter().filter(|(sha, _)| !received.contains_key(sha)).cloned().collect();
    report.duplicates += branches.len() - fresh.len();
    for chunk in fresh.chunks(CHUNK) {
        // Housekeeping is the owner's (or the daemon's) business, not every sync's.
        let mut args = vec!["fetch", "-q", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", "--", remote];
        args.extend(chunk.iter().map(|(sha, _)| sha.as_str()));
        Git::new(hub.root()).run(&args)?;
    }
    let mut request = String::new();
    for (sha, tid) in &fresh {
        let _ = writeln!(request, "{sha}:{tid}.md");
    }
    let blobs = if fresh.is_empty() {
        Vec::new()
    } else {
        let out = Git::new(hub.root()).run_bytes_with_input(&["cat-file", "--batch"], request.as_bytes())?;
        parse_batch(&out, fresh.len())
    };

    for ((sha, tid), blob) in fresh.iter().zip(blobs) {
        let read = blob.ok_or_else(|| format!("the branch has no file {tid}.md")).and_then(|bytes| {
            let text = String::from_utf8(bytes).map_err(|e| {
                format!("{tid}.md is not UTF-8 text (an invalid byte at offset {})", e.utf8_error().valid_up_to())
            })?;
            // The report's line for a person to read.
            let mail = Mail::parse(&text).map_err(|e| e.to_string())?;
            if mail.id != *tid {
                return Err(format!("its thread id `{}` does not match the branch", mail.id));
            }
            if mail.to != me {
                return Err(format!("it is addressed to `{}`, not `{me}`", mail.to));
            }
            Ok(mail)
        });
        match read {
            Ok(mail) => {
                if locate(hub, &mail.id)?.is_none() {
                    enqueue(hub, &item_of(&mail, peer))?;
                    report.received.push(mail.id.clone());
                } else {
                    report.duplicates += 1;
                }
                received.insert(sha.clone(), mail.id);
            }
            Err(why) => {
                let notice = Mail {
                    id: stable_id(&format!("{me}:orphan:{sha}")),
                    to: peer.to_string(),
                    from: me.to_string(),
                    thread: tid.clone(),
                    created: cn_storage::now_rfc3339(),
                    kind: Some(NOTICE.into()),
                    reply_to: None,
                    subject: Some(format!("rejected: {me}/{tid}")),
                    depth: 0,
                    body: format!("{me} could not read the thread on branch `{me}/{tid}` and rejected it: {why}.\n"),
                };
                post(hub, &notice)?;
                tracing::warn!(peer, branch = %tid, %why, "rejected an orphan branch");
                report.rejected.push(format!("{peer}/{tid}"));
                received.insert(sha.clone(), format!("orphan:{tid}"));
            }
        }
    }
    cn_storage::write_json_atomic(&received_path, &received).map_err(io_at(&received_path))?;

    // Everything listed is now filed (or known): delete it at the peer.
    let names: Vec<String> = branches.iter().map(|(_, tid)| format!("{me}/{tid}")).collect();
    for chunk in names.chunks(CHUNK) {
        let mut args = vec!["push", "-q", "--delete", "--", remote];
        args.extend(chunk.iter().map(String::as_str));
        Git::new(hub.root()).run(&args)?;
    }
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
    Item::from_doc(item.doc.clone()).unwrap_or(item)
}

/// Split `git cat-file --batch` output into one entry per request (`None` when missing).
/// Works on bytes: git's sizes count bytes, and a peer's file may hold any bytes at all.
pub fn parse_batch(out: &[u8], n: usize) -> Vec<Option<Vec<u8>>> {
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
                // A tree or commit where a file should be is not a thread.
                result.push((kind == "blob").then(|| after[..size].to_vec()));
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

fn push_outbox(hub: &Hub, report: &mut SyncReport) -> Result<()> {
    let files = md_files(&hub.outbox())?;
    if files.is_empty() {
        return Ok(());
    }
    if Git::new(hub.root()).run(&["remote", "get-url", "origin"]).is_err() {
        return Err(AgentError::Invalid(format!(
            "{} mail wait in the outbox but the hub has no git remote `origin` to push to; add one with `git -C {} remote add origin URL`",
            files.len(),
            hub.root().display()
        )));
    }
    let me = hub.name();
    let mut stream = String::new();
    let mut outgoing = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(io_at(&path))?;
        let mail = match Mail::parse(&text) {
            Ok(m) if crate::hub::valid_name(&m.to) => m,
            Ok(m) => {
                report.errors.push(format!(
                    "{}: `to` {:?} is not a peer name; fix or remove the file",
                    path.display(),
                    m.to
                ));
                continue;
            }
            Err(e) => {
                report.errors.push(format!("{}: {e}; fix or remove the file", path.display()));
                continue;
            }
        };
        // The commit's date is the mail's, so the same mail always makes the same commit.
        let epoch = time::OffsetDateTime::parse(&mail.created, &time::format_description::well_known::Rfc3339)
            .map(|t| t.unix_timestamp())
            .unwrap_or(0);
        let subject = format!("mail {} from {me} to {}", mail.id, mail.to);
        // Every mail is a root commit on one scratch ref; its hash comes back as a mark.
        let _ = write!(
            stream,
            "reset {SCRATCH}\ncommit {SCRATCH}\nmark :{}\nauthor {me} <{me}@cn.invalid> {epoch} +0000\ncommitter {me} <{me}@cn.invalid> {epoch} +0000\ndata {}\n{subject}\nM 100644 inline {}.md\ndata {}\n{text}\n",
            outgoing.len() + 1,
            subject.len(),
            mail.id,
            text.len()
        );
        outgoing.push((path, mail));
    }
    if outgoing.is_empty() {
        return Ok(());
    }
    let marks_path = std::env::temp_dir().join(format!("cn-marks-{}-{}", std::process::id(), cn_hub::id::new()));
    let marks_arg = format!("--export-marks={}", marks_path.display());
    let imported =
        Git::new(hub.root()).run_with_input(&["fast-import", "--quiet", "--force", &marks_arg], stream.as_bytes());
    let marks = std::fs::read_to_string(&marks_path).map_err(io_at(&marks_path));
    let _ = std::fs::remove_file(&marks_path);
    imported?;
    let marks: BTreeMap<usize, String> = marks?
        .lines()
        .filter_map(|l| l.strip_prefix(':')?.split_once(' '))
        .filter_map(|(n, sha)| Some((n.parse().ok()?, sha.to_string())))
        .collect();
    let outgoing: Vec<(std::path::PathBuf, Mail, String)> = outgoing
        .into_iter()
        .enumerate()
        .map(|(i, (p, m))| marks.get(&(i + 1)).map(|sha| (p, m, sha.clone())))
        .collect::<Option<_>>()
        .ok_or_else(|| {
            AgentError::Git(GitError::Failed {
                dir: hub.root().to_path_buf(),
                args: "fast-import".into(),
                stderr: "it did not report a commit for every mail".into(),
            })
        })?;
    for chunk in outgoing.chunks(CHUNK) {
        let specs: Vec<String> =
            chunk.iter().map(|(_, m, sha)| format!("+{sha}:refs/heads/{}/{}", m.to, m.id)).collect();
        let mut args = vec!["push", "-q", "origin"];
        args.extend(specs.iter().map(String::as_str));
        Git::new(hub.root()).run(&args)?;
        for (path, mail, _) in chunk {
            let to = hub.sent().join(format!("{}.md", mail.id));
            std::fs::create_dir_all(hub.sent()).map_err(io_at(&hub.sent()))?;
            std::fs::rename(path, &to).map_err(io_at(path))?;
            report.sent.push(mail.id.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_output_splits_per_request() {
        let out = b"aaa blob 5\nhello\nbbb:x.md missing\nccc blob 0\n\n";
        assert_eq!(parse_batch(out, 3), vec![Some(b"hello".to_vec()), None, Some(Vec::new())]);
        assert_eq!(parse_batch(b"", 2), vec![None, None]);
        // Sizes are bytes: invalid UTF-8 does not shift the next entry.
        let out = b"aaa blob 2\n\xff\xfe\nbbb blob 3\n\xe2\x9c\x93\n";
        assert_eq!(parse_batch(out, 2), vec![Some(vec![0xff, 0xfe]), Some("\u{2713}".as_bytes().to_vec())]);
    }
}
