//! Named git commands: what cn asks of a repository and of its remotes, one method each, so a
//! caller spells no git arguments. A remote's listing and fetch by id go through the one
//! [`Git::list`] / [`Git::fetch_ids`], which pick the transport: git's protocol v2 spoken by
//! cn itself for a plain `git://` URL (no process), git otherwise.

use std::time::{Duration, Instant};

use crate::v2::{GitUrl, Session, V2Error};
use crate::wire::{self, Update};
use crate::{Bounds, Git, GitError, Ran};

/// How long one read of a `git://` server may wait for a byte.
const IDLE: Duration = Duration::from_secs(30);
/// The most bytes of ref lines one listing of a few exact names is read.
const LIST_MAX: usize = 1 << 20;

impl Git {
    /// The branch HEAD names (`symbolic-ref --short HEAD`); `None` when HEAD is detached (or
    /// git fails).
    pub fn current_branch(&self) -> Option<String> {
        self.run(&["symbolic-ref", "--quiet", "--short", "HEAD"]).ok().map(|b| b.trim().to_string())
    }

    /// HEAD's commit; `None` in a repository without one. Read from the files when DIR is a
    /// working tree's root whose HEAD names a loose branch ref (no process: a leased hub asks
    /// every few seconds), else by git.
    pub fn head(&self) -> Option<String> {
        self.head_from_files()
            .or_else(|| self.run(&["rev-parse", "--verify", "--quiet", "HEAD"]).ok().map(|h| h.trim().to_string()))
    }

    fn head_from_files(&self) -> Option<String> {
        let dot_git = self.dir().join(".git");
        let head = std::fs::read_to_string(dot_git.join("HEAD")).ok()?;
        let head = head.strip_suffix('\n').unwrap_or(&head);
        let id = match head.strip_prefix("ref: ") {
            Some(name) => {
                let loose = name.starts_with("refs/heads/")
                    && name.split('/').all(|part| !part.is_empty() && !part.starts_with('.'));
                if !loose {
                    return None;
                }
                let id = std::fs::read_to_string(dot_git.join(name)).ok()?;
                id.strip_suffix('\n').unwrap_or(&id).to_string()
            }
            None => head.to_string(),
        };
        (id.len() == 40 && id.bytes().all(|b| b.is_ascii_hexdigit())).then_some(id)
    }

    /// An object of the repository, its kind and its bytes, when it is at most `max` bytes
    /// (one `cat-file --batch`, its output bounded); `None` when it is missing or larger.
    pub fn read_object(&self, id: &str, max: usize) -> Option<(String, Vec<u8>)> {
        if id.is_empty() || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return None;
        }
        let bounds = Bounds::time_and_output(Duration::from_secs(60), max.saturating_add(128));
        let out = self.run_bounded(&["cat-file", "--batch"], Some(format!("{id}\n").as_bytes()), &bounds).ok()?;
        let at = out.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&out[..at]).ok()?;
        let mut words = header.split(' ');
        let (_, kind, size) = (words.next()?, words.next()?, words.next()?.parse::<usize>().ok()?);
        if size > max {
            return None;
        }
        let body = out.get(at + 1..at + 1 + size)?;
        Some((kind.to_string(), body.to_vec()))
    }

    /// Write `bytes` as an object of `kind` (`blob`, `tree`, `commit`) into the repository;
    /// its id.
    pub fn write_object(&self, kind: &str, bytes: &[u8]) -> Result<String, GitError> {
        Ok(self.run_with_input(&["hash-object", "-t", kind, "-w", "--stdin"], bytes)?.trim().to_string())
    }

    /// Point the local ref `name` at `id`.
    pub fn update_ref(&self, name: &str, id: &str) -> Result<(), GitError> {
        self.run(&["update-ref", name, id]).map(drop)
    }

    /// The repository's refs matching `pattern` (`for-each-ref`: a prefix or a glob), by name:
    /// (id, name).
    pub fn local_refs(&self, pattern: &str) -> Result<Vec<(String, String)>, GitError> {
        let out = self.run(&["for-each-ref", "--sort=refname", "--format=%(objectname) %(refname)", pattern])?;
        Ok(out.lines().filter_map(|l| l.split_once(' ')).map(|(id, name)| (id.to_string(), name.to_string())).collect())
    }

    /// Move the branch, index and working tree to `id` (`reset --hard`).
    pub fn reset_hard(&self, id: &str) -> Result<(), GitError> {
        self.run(&["reset", "-q", "--hard", id, "--"]).map(drop)
    }

    /// Whether commit `a` is an ancestor of (or is) `b`.
    pub fn is_ancestor(&self, a: &str, b: &str) -> bool {
        self.run(&["merge-base", "--is-ancestor", a, b]).is_ok()
    }

    /// How many commits `from` reaches that `not` does not (0 when git fails).
    pub fn count_commits(&self, from: &str, not: &str) -> usize {
        self.run(&["rev-list", "--count", from, "--not", not]).ok().and_then(|n| n.trim().parse().ok()).unwrap_or(0)
    }

    /// Create an empty repository in DIR (`init -q`).
    pub fn init(&self) -> Result<(), GitError> {
        self.run(&["init", "-q"]).map(drop)
    }

    /// Whether the repository's own configuration names a committer (`user.name`).
    pub fn has_identity(&self) -> bool {
        self.run(&["config", "--local", "user.name"]).is_ok()
    }

    /// Commit as `name` <`email`> in this repository (its own configuration).
    pub fn set_identity(&self, name: &str, email: &str) -> Result<(), GitError> {
        self.run(&["config", "--local", "user.name", name])?;
        self.run(&["config", "--local", "user.email", email]).map(drop)
    }

    /// What `remote` (a URL or a path) lists of the refs `names` (exact names or `HEAD`), with
    /// the branch its HEAD names (`ls-remote --symref`).
    pub fn list_with_head(&self, remote: &str, names: &[&str]) -> Result<Listing, GitError> {
        let mut args = vec!["ls-remote", "--symref", "--", remote];
        args.extend_from_slice(names);
        let listed = self.run(&args)?;
        let mut head = None;
        let mut refs = Vec::new();
        for line in listed.lines() {
            if let Some(rest) = line.strip_prefix("ref: ") {
                head = rest.split('\t').next().and_then(|r| r.strip_prefix("refs/heads/")).map(str::to_string);
                continue;
            }
            if let Some((id, name)) = line.split_once('\t') {
                refs.push((id.to_string(), name.trim().to_string()));
            }
        }
        Ok(Listing { head, refs })
    }

    /// Whether `remote` (a URL or a path) has the branch `branch` (`ls-remote --heads`).
    pub fn remote_has_branch(&self, remote: &str, branch: &str) -> bool {
        self.run(&["ls-remote", "--heads", "--", remote, &format!("refs/heads/{branch}")])
            .is_ok_and(|o| !o.trim().is_empty())
    }

    /// Fetch the object `id` (and what it reaches) from `remote` (a URL or a path), no ref
    /// written.
    pub fn fetch_id(&self, remote: &str, id: &str) -> Result<(), GitError> {
        self.run(&["fetch", "-q", "--no-tags", "--no-write-fetch-head", "--", remote, id]).map(drop)
    }

    /// Fetch the configured remote `name`'s branches into its remote-tracking refs, no tag.
    pub fn fetch_remote(&self, name: &str) -> Result<(), GitError> {
        self.run(&["fetch", "-q", "--no-tags", name]).map(drop)
    }

    /// The size in bytes of object `id` (`None`: git's answer is no number).
    pub fn object_size(&self, id: &str) -> Result<Option<u64>, GitError> {
        Ok(self.run(&["cat-file", "-s", id])?.trim().parse().ok())
    }

    /// The text of commit `id` (`cat-file commit`).
    pub fn commit_text(&self, id: &str) -> Result<String, GitError> {
        self.run(&["cat-file", "commit", id])
    }

    /// The full id of the object `rev` names (`rev-parse --verify`).
    pub fn resolve(&self, rev: &str) -> Result<String, GitError> {
        Ok(self.run(&["rev-parse", "--verify", "--quiet", &format!("{rev}^{{object}}")])?.trim().to_string())
    }

    /// Add the remote `name` at `url`, tracking only `branch`.
    pub fn add_remote(&self, name: &str, url: &str, branch: &str) -> Result<(), GitError> {
        self.run(&["remote", "add", "-t", branch, "--", name, url]).map(drop)
    }

    /// Check out `branch`, made (or reset) at `start` (`checkout -B`).
    pub fn checkout_at(&self, branch: &str, start: &str) -> Result<(), GitError> {
        self.run(&["checkout", "-q", "-B", branch, start]).map(drop)
    }

    /// Stage `paths` (`add`).
    pub fn add(&self, paths: &[&str]) -> Result<(), GitError> {
        let mut args = vec!["add", "--"];
        args.extend_from_slice(paths);
        self.run(&args).map(drop)
    }

    /// Stage `paths` even when ignored (`add -f`).
    pub fn add_forced(&self, paths: &[&str]) -> Result<(), GitError> {
        let mut args = vec!["add", "-f", "--"];
        args.extend_from_slice(paths);
        self.run(&args).map(drop)
    }

    /// Commit only `paths`, as they are in the working tree, with `message`: no hook, no
    /// signature (`commit -q --no-verify --no-gpg-sign -- PATHS`).
    pub fn commit_only(&self, message: &str, paths: &[&str]) -> Result<(), GitError> {
        let mut args = vec!["commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message, "--"];
        args.extend_from_slice(paths);
        self.run(&args).map(drop)
    }

    /// [`Git::commit_only`] with the repository's hooks and signing (`commit -- PATHS`).
    pub fn commit_only_with_hooks(&self, message: &str, paths: &[&str]) -> Result<(), GitError> {
        let mut args = vec!["commit", "-m", message, "--"];
        args.extend_from_slice(paths);
        self.run(&args).map(drop)
    }

    /// HEAD's subject and the refs that point at it, full names (`log -1 --decorate=full`);
    /// empty when there is no HEAD.
    pub fn head_subject_and_refs(&self) -> (String, String) {
        let out = self.run(&["log", "-1", "--decorate=full", "--format=%s%n%D"]).unwrap_or_default();
        let mut lines = out.lines();
        (lines.next().unwrap_or_default().to_string(), lines.next().unwrap_or_default().to_string())
    }

    /// The commits whose message holds `text` (a fixed string), newest first, one
    /// `"<short hash> <subject>"` each (none when git fails).
    pub fn commits_mentioning(&self, text: &str) -> Vec<String> {
        self.run(&["log", "--format=%h %s", "--fixed-strings", "--grep", text])
            .map(|log| log.lines().map(str::to_string).collect())
            .unwrap_or_default()
    }

    /// The last `n` commits that touch `path`, each with its patch (`log -p`), headed
    /// `commit <short hash> <subject>`.
    pub fn patches(&self, n: usize, path: &str) -> Result<String, GitError> {
        self.run(&["log", "-p", "-n", &n.to_string(), "--format=commit %h %s", "--", path])
    }

    /// The URL of the configured remote `name` (`None`: no such remote).
    pub fn remote_url(&self, name: &str) -> Option<String> {
        self.run(&["remote", "get-url", name]).ok().map(|u| u.trim().to_string())
    }

    /// The remote `name` as cn reaches it ([`Remote`]): its URL (`git remote get-url`) when
    /// cn may connect to it itself.
    pub fn remote(&self, name: &str) -> Remote {
        let itself = self.connects_itself();
        let url = if itself { self.remote_url(name) } else { None };
        Remote::reached(name, url.as_deref(), itself)
    }

    /// Whether cn may open this repository's `git://` connections itself: not when git's
    /// configuration routes or rewrites `git://` (a `core.gitProxy` of the user's own, a
    /// `url.*.insteadOf`) or cn.yaml's `git.env` passes `GIT_PROXY_COMMAND` — git then
    /// connects, as it was told. Asked once for many remotes, then [`Remote::reached`].
    pub fn connects_itself(&self) -> bool {
        if self.env.iter().any(|n| n == "GIT_PROXY_COMMAND") {
            return false;
        }
        // Exit 1: no such key anywhere. cn's own `-c core.gitProxy` shows as "command line:".
        match self.run(&["config", "--show-origin", "--get-regexp", r"^(core\.gitproxy|url\..*\.insteadof)$"]) {
            Ok(found) => found.lines().all(|l| l.starts_with("command line:")),
            Err(GitError::Failed { stderr, .. }) => stderr.is_empty(),
            Err(_) => false,
        }
    }

    /// The refs `names` (exact names) of `remote` that exist there: (id, name). Over a plain
    /// `git://` URL the listing is cn's own (one connection, no process); git's `ls-remote`
    /// otherwise, and when the server speaks no protocol v2. Within `timeout`.
    pub fn list(&self, remote: &Remote, names: &[&str], timeout: Duration) -> Result<Vec<(String, String)>, GitError> {
        if let Some(url) = &remote.url {
            let prefixes: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            let listed = Session::open(url, Instant::now() + timeout, IDLE.min(timeout))
                .and_then(|mut session| session.list(&prefixes, LIST_MAX));
            match listed {
                Ok(refs) => return Ok(refs.into_iter().filter(|(_, n)| names.contains(&n.as_str())).collect()),
                Err(V2Error::Unsupported(why)) => tracing::debug!(%why, "listed by git itself"),
                Err(e) => return Err(self.wire_failed("ls-remote", remote, &e)),
            }
        }
        let mut args = vec!["ls-remote", "--", &remote.name];
        args.extend_from_slice(names);
        let ran = self.run_for(&args, timeout)?;
        if !ran.ok {
            return Err(self.failure(&["ls-remote", &remote.name], &ran));
        }
        Ok(ran
            .stdout
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .filter(|(id, name)| id.len() >= 40 && id.bytes().all(|b| b.is_ascii_hexdigit()) && names.contains(name))
            .map(|(id, name)| (id.to_string(), name.to_string()))
            .collect())
    }

    /// Fetch the objects `ids` (and what they reach) from `remote` into the repository, no
    /// ref written, within `timeout`.
    pub fn fetch_ids(&self, remote: &Remote, ids: &[&str], timeout: Duration) -> Result<(), GitError> {
        if ids.is_empty() {
            return Ok(());
        }
        let mut args =
            vec!["fetch", "-q", "--no-tags", "--no-write-fetch-head", "--no-auto-maintenance", "--", &remote.name];
        args.extend_from_slice(ids);
        let ran = self.run_for(&args, timeout)?;
        if !ran.ok {
            return Err(self.failure(&args, &ran));
        }
        Ok(())
    }

    /// The commit `id` of `remote`, when it is at most `max` bytes (`None`: larger, or not a
    /// commit). Over a plain `git://` URL it is read from the fetch's pack and never stored
    /// (no process); otherwise, or when the server sends it otherwise than whole, it is
    /// fetched into the repository (unless there already) and read there.
    pub fn read_commit(
        &self,
        remote: &Remote,
        id: &str,
        max: usize,
        timeout: Duration,
    ) -> Result<Option<Vec<u8>>, GitError> {
        if let Some(url) = &remote.url {
            match wire::read_commit(url, id, max, Instant::now() + timeout, IDLE.min(timeout)) {
                Ok(bytes) => return Ok(Some(bytes)),
                Err(V2Error::Unsupported(why)) => tracing::debug!(%why, "fetched by git itself"),
                Err(e) => return Err(self.wire_failed("fetch", remote, &e)),
            }
        }
        if !self.has_object(id) {
            self.fetch_ids(remote, &[id], timeout)?;
        }
        Ok(self.read_object(id, max).filter(|(kind, _)| kind == "commit").map(|(_, bytes)| bytes))
    }

    /// One atomic push to `remote`: `updates`, each a compare and swap (the ref moves only if
    /// the remote shows its `old` id; empty: absent), to `objects` (kind, bytes) that need not
    /// be in the repository, with `refspecs` (`ID:REF`, or anything git takes). Over a plain
    /// `git://` URL, when every refspec is an `ID:REF` the remote shows already, cn speaks the
    /// push itself (no process: a lease's renewal); otherwise the objects are written to the
    /// repository and git pushes (`push --atomic --porcelain --no-verify`,
    /// `--force-with-lease`). What was said, in git's `--porcelain` words either way (`Err`
    /// only when the push could not be made or ran out of `timeout`); [`rejected`] reads
    /// which refs were refused.
    pub fn push_atomic(
        &self,
        remote: &Remote,
        updates: &[Update],
        objects: &[(&str, &[u8])],
        refspecs: &[String],
        timeout: Duration,
    ) -> Result<Ran, GitError> {
        if let Some(url) = &remote.url {
            let unchanged: Option<Vec<(&str, &str)>> = refspecs
                .iter()
                .map(|r| r.split_once(':').filter(|(id, _)| id.len() == 40).map(|(id, name)| (name, id)))
                .collect();
            if let Some(unchanged) = unchanged {
                let pushed = wire::push(url, updates, objects, &unchanged, Instant::now() + timeout, IDLE.min(timeout));
                match pushed {
                    Ok(refused) => {
                        let stdout = refused
                            .iter()
                            .map(|(name, why)| {
                                let new = updates.iter().find(|u| u.name == *name).map_or("", |u| u.new.as_str());
                                format!("!\t{new}:{name}\t{why}\n")
                            })
                            .collect();
                        return Ok(Ran { ok: refused.is_empty(), stdout, stderr: String::new() });
                    }
                    Err(V2Error::Unsupported(why)) => tracing::debug!(%why, "pushed by git itself"),
                    Err(e) => return Err(self.wire_failed("push", remote, &e)),
                }
            }
        }
        for (kind, bytes) in objects {
            self.write_object(kind, bytes)?;
        }
        let mut args: Vec<String> = vec!["push".into(), "--atomic".into(), "--porcelain".into(), "--no-verify".into()];
        args.extend(updates.iter().map(|u| format!("--force-with-lease={}:{}", u.name, u.old)));
        args.push("--".into());
        args.push(remote.name.clone());
        args.extend(updates.iter().map(|u| format!("{}:{}", u.new, u.name)));
        args.extend(refspecs.iter().cloned());
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        self.run_for(&argv, timeout)
    }

    fn wire_failed(&self, what: &str, remote: &Remote, e: &V2Error) -> GitError {
        GitError::Failed {
            dir: self.dir().to_path_buf(),
            args: cn_process::redact::redact(&format!("{what} {}", remote.name)),
            stderr: cn_process::redact::redact(&e.to_string()),
        }
    }
}

/// A remote as cn reaches it: the name git knows it by (or a URL, or a path), and its URL
/// when cn may speak to it itself (a plain `git://` one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remote {
    pub name: String,
    pub url: Option<GitUrl>,
}

impl Remote {
    /// A remote given by its URL or path (no configured name looked up).
    pub fn at(url: &str) -> Remote {
        Remote { name: url.to_string(), url: GitUrl::parse(url) }
    }

    /// The remote `name` whose URL is `url`, as cn reaches it: the one choice of transport —
    /// cn speaks to it itself only when `url` is a plain `git://` one and `itself` (the
    /// repository's [`Git::connects_itself`]); git otherwise.
    pub fn reached(name: &str, url: Option<&str>, itself: bool) -> Remote {
        Remote { name: name.to_string(), url: url.filter(|_| itself).and_then(GitUrl::parse) }
    }
}

/// What a remote lists ([`Git::list_with_head`]): the branch its HEAD names, and (id, name)
/// of each ref.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub head: Option<String>,
    pub refs: Vec<(String, String)>,
}

/// The refs a `git push --porcelain` refused: (ref, why).
pub fn rejected(stdout: &str) -> Vec<(String, String)> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read as _;
    use std::path::{Path, PathBuf};

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = std::process::Command::new("git").arg("-C").arg(dir).args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// A `git://` server on loopback for the repositories under `root`, a connection at a time
    /// on a thread of this process (gone with it): the request's service (`git-upload-pack` in
    /// the protocol version asked, `git-receive-pack`) run on the connection. Its URL prefix.
    fn serve(root: PathBuf) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut len = [0u8; 4];
                stream.read_exact(&mut len).unwrap();
                let n = usize::from_str_radix(std::str::from_utf8(&len).unwrap(), 16).unwrap();
                let mut request = vec![0u8; n - 4];
                stream.read_exact(&mut request).unwrap();
                let request = String::from_utf8(request).unwrap();
                let (command, rest) = request.split_once(' ').unwrap();
                let path = rest.split('\0').next().unwrap().trim_start_matches('/');
                let service = command.strip_prefix("git-").unwrap();
                let mut child = std::process::Command::new("git");
                if rest.contains("\0version=2\0") {
                    child.env("GIT_PROTOCOL", "version=2");
                }
                let input = std::process::Stdio::from(std::os::fd::OwnedFd::from(stream.try_clone().unwrap()));
                let output = std::process::Stdio::from(std::os::fd::OwnedFd::from(stream));
                let _ = child.arg(service).arg(root.join(path)).stdin(input).stdout(output).status();
            }
        });
        format!("git://127.0.0.1:{port}/")
    }

    fn commit(message: &str) -> (String, Vec<u8>) {
        let text = format!("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor t <t> 0 +0000\ncommitter t <t> 0 +0000\n\n{message}\n");
        (wire::object_id("commit", text.as_bytes()), text.into_bytes())
    }

    fn update(name: &str, old: &str, new: &str) -> Update {
        Update { name: name.into(), old: old.into(), new: new.into() }
    }

    /// The same compare-and-swap push, listing and read, by git itself (a path) and by cn over
    /// `git://`: the same answers.
    #[test]
    fn a_remote_is_listed_read_and_pushed_to_by_compare_and_swap_over_either_transport() {
        let dir = tempfile::tempdir().unwrap();
        let url = serve(dir.path().to_path_buf());
        for (n, native) in [false, true].into_iter().enumerate() {
            let bare = format!("o{n}.git");
            git(dir.path(), &["init", "-q", "--bare", &bare]);
            let origin = if native {
                Remote::at(&format!("{url}{bare}"))
            } else {
                Remote::at(dir.path().join(&bare).to_str().unwrap())
            };
            assert_eq!(origin.url.is_some(), native);
            let work = dir.path().join(format!("a{n}"));
            git(dir.path(), &["init", "-q", "-b", "main", work.to_str().unwrap()]);
            let a = Git::new(&work);
            let t = Duration::from_secs(30);
            let (one, one_text) = commit("one");
            let tree: &[u8] = b"";
            let objects = [("commit", one_text.as_slice()), ("tree", tree)];
            let ran = a.push_atomic(&origin, &[update("refs/cn/x", "", &one)], &objects, &[], t).unwrap();
            assert!(ran.ok, "{ran:?}");
            assert_eq!(a.has_object(&one), !native, "git pushes what is in the repository; cn sends it");
            assert_eq!(
                a.list(&origin, &["refs/cn/x", "refs/cn/y"], t).unwrap(),
                vec![(one.clone(), "refs/cn/x".into())]
            );
            assert!(a.list(&origin, &["refs/cn"], t).unwrap().is_empty(), "names are exact, not prefixes");
            // The swap: expecting what is no longer there is refused, says which ref, and
            // moves nothing (atomic).
            let (two, two_text) = commit("two");
            let objects = [("commit", two_text.as_slice()), ("tree", tree)];
            let stale = [update("refs/cn/x", "", &two), update("refs/cn/z", "", &two)];
            let ran = a.push_atomic(&origin, &stale, &objects, &[], t).unwrap();
            assert!(!ran.ok);
            assert!(rejected(&ran.stdout).iter().any(|(r, why)| r == "refs/cn/x" && why.contains("stale")), "{ran:?}");
            assert!(a.list(&origin, &["refs/cn/z"], t).unwrap().is_empty());
            // A ref pushed as it is must show that id there: it does.
            let ran = a
                .push_atomic(&origin, &[update("refs/cn/x", &one, &two)], &objects, &[format!("{two}:refs/cn/x2")], t)
                .unwrap();
            assert!(ran.ok, "{ran:?}");
            assert_eq!(a.list(&origin, &["refs/cn/x"], t).unwrap(), vec![(two.clone(), "refs/cn/x".into())]);
            // Read back by another clone, which keeps it only when git fetched it.
            let b = Git::new(dir.path().join(format!("b{n}")));
            git(dir.path(), &["init", "-q", b.dir().to_str().unwrap()]);
            assert_eq!(b.read_commit(&origin, &two, 1000, t).unwrap(), Some(two_text.clone()));
            assert_eq!(b.has_object(&two), !native);
            assert_eq!(b.read_commit(&origin, &two, 10, t).unwrap(), None, "larger than asked");
        }
    }

    #[test]
    fn named_commands_of_the_repository() {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q", "-b", "main"]);
        let a = Git::new(dir.path());
        assert_eq!(a.head(), None, "no commit yet");
        assert_eq!(a.current_branch().as_deref(), Some("main"));
        let empty = a.write_object("tree", b"").unwrap();
        let (one, text) = commit("one");
        assert_eq!(a.write_object("commit", &text).unwrap(), one, "the same id git gives");
        assert_eq!(a.read_object(&one, 1000), Some(("commit".to_string(), text.clone())));
        assert_eq!(a.read_object(&one, 10), None, "larger than asked");
        assert_eq!(a.read_object(&"0".repeat(40), 1000), None);
        assert_eq!(a.read_object("--batch", 1000), None);
        a.reset_hard(&one).unwrap();
        assert_eq!(a.head().as_deref(), Some(one.as_str()));
        let parent = format!("tree {empty}\nparent {one}\nauthor t <t> 0 +0000\ncommitter t <t> 0 +0000\n\ntwo\n");
        let two = a.write_object("commit", parent.as_bytes()).unwrap();
        assert!(a.is_ancestor(&one, &two) && !a.is_ancestor(&two, &one));
        assert_eq!((a.count_commits(&two, &one), a.count_commits(&one, &two)), (1, 0));
        a.update_ref("refs/cn/kept", &two).unwrap();
        assert_eq!(a.local_refs("refs/cn/").unwrap(), vec![(two.clone(), "refs/cn/kept".to_string())]);
        assert!(a.local_refs("refs/cn/x*").unwrap().is_empty());
        // Packed refs and a detached HEAD are read by git: the same answers.
        git(dir.path(), &["pack-refs", "--all"]);
        assert_eq!(a.head().as_deref(), Some(one.as_str()));
        git(dir.path(), &["checkout", "-q", "--detach", &two]);
        assert_eq!((a.head().as_deref(), a.current_branch()), (Some(two.as_str()), None));
        assert_eq!(git(dir.path(), &["rev-parse", "refs/cn/kept"]), two);
        // A git:// remote is cn's to speak to, unless the owner's git routes git:// itself.
        git(dir.path(), &["remote", "add", "origin", "git://127.0.0.1:9/o.git"]);
        assert!(a.remote("origin").url.is_some());
        git(dir.path(), &["config", "core.gitProxy", "/bin/false"]);
        assert_eq!(a.remote("origin"), Remote { name: "origin".into(), url: None });
        assert!(!a.connects_itself());
        assert_eq!(a.remote_url("origin").as_deref(), Some("git://127.0.0.1:9/o.git"));
        assert_eq!(a.remote_url("nowhere"), None);
    }

    /// What a clone, `cn init` and a reflex's file ask of git, by name: the same effects as
    /// the commands spelled out.
    #[test]
    fn a_clone_init_and_commit_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let origin = dir.path().join("origin");
        let o = Git::new(&origin);
        std::fs::create_dir(&origin).unwrap();
        o.init().unwrap();
        assert!(!o.has_identity(), "a fresh repository names no committer of its own");
        o.set_identity("hub", "hub@cn.invalid").unwrap();
        assert!(o.has_identity());
        assert_eq!(git(&origin, &["config", "--local", "user.email"]), "hub@cn.invalid");
        git(&origin, &["checkout", "-q", "-b", "trunk"]);
        std::fs::write(origin.join("a.txt"), "a").unwrap();
        std::fs::write(origin.join(".gitignore"), "ignored.txt\n").unwrap();
        std::fs::write(origin.join("ignored.txt"), "i").unwrap();
        assert!(o.add(&["ignored.txt"]).is_err(), "an ignored file is not staged unless forced");
        o.add_forced(&["a.txt", "ignored.txt"]).unwrap();
        o.commit_only("first", &["a.txt", "ignored.txt"]).unwrap();
        assert_eq!(git(&origin, &["ls-files"]), "a.txt\nignored.txt", "only the paths named");
        std::fs::write(origin.join("a.txt"), "b").unwrap();
        o.add(&["a.txt"]).unwrap();
        o.commit_only_with_hooks("cn out: it-1 done (item it-1 from owner)", &["a.txt"]).unwrap();
        let (subject, refs) = o.head_subject_and_refs();
        assert_eq!(subject, "cn out: it-1 done (item it-1 from owner)");
        assert!(refs.contains("refs/heads/trunk"), "{refs}");
        let head = o.head().unwrap();
        assert_eq!(o.commits_mentioning("item it-1 from"), vec![format!("{} {subject}", &head[..7])]);
        assert!(o.commits_mentioning("item it-2 from").is_empty());
        assert_eq!(o.resolve(&head[..8]).unwrap(), head);
        assert!(o.resolve("0000000").is_err());
        let patches = o.patches(1, "a.txt").unwrap();
        assert!(
            patches.starts_with(&format!("commit {} {subject}", &head[..7])) && patches.contains("+b"),
            "{patches}"
        );

        let url = origin.to_str().unwrap();
        let listed = o.list_with_head(url, &["HEAD", "refs/heads/trunk", "refs/heads/main"]).unwrap();
        assert_eq!(listed.head.as_deref(), Some("trunk"));
        assert_eq!(listed.refs, vec![(head.clone(), "HEAD".into()), (head.clone(), "refs/heads/trunk".into())]);
        assert!(o.remote_has_branch(url, "trunk") && !o.remote_has_branch(url, "main"));

        let clone = dir.path().join("clone");
        std::fs::create_dir(&clone).unwrap();
        let c = Git::new(&clone);
        c.init().unwrap();
        c.fetch_id(url, &head).unwrap();
        assert_eq!(c.object_size(&head).unwrap(), Some(c.commit_text(&head).unwrap().len() as u64));
        assert!(c.commit_text(&head).unwrap().ends_with("(item it-1 from owner)\n"));
        assert!(c.local_refs("refs/").unwrap().is_empty(), "fetched by id: no ref written");
        c.add_remote("origin", url, "trunk").unwrap();
        c.fetch_remote("origin").unwrap();
        c.checkout_at("trunk", "origin/trunk").unwrap();
        assert_eq!((c.head(), c.current_branch().as_deref()), (Some(head.clone()), Some("trunk")));
        assert_eq!(std::fs::read_to_string(clone.join("a.txt")).unwrap(), "b");
        let reached = Remote::reached("origin", c.remote_url("origin").as_deref(), true);
        assert_eq!(reached, Remote { name: "origin".into(), url: None }, "a path is git's to reach");
        let plain = Remote::reached("p", Some("git://127.0.0.1:9/o.git"), true);
        assert!(plain.url.is_some());
        assert_eq!(Remote::reached("p", Some("git://127.0.0.1:9/o.git"), false).url, None);
    }
}
