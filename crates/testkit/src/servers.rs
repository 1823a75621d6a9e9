//! Real git servers on loopback for the peer-mail tests: `git daemon` serving a directory of
//! bare repositories read-only over `git://`, and git's own `git http-backend` run as a CGI
//! program behind a small HTTP/1.1 server that lets only each repository's owner push
//! (HTTP Basic credentials; everyone else may read). Both are killed when dropped: `git
//! daemon` with its whole process group, so no `git-daemon` outlives the test.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// `git daemon` on 127.0.0.1 exporting every repository under `root`; receive-pack is off
/// (git daemon's default), so every push is refused — unless started [`GitDaemon::writable`].
pub struct GitDaemon {
    child: Child,
    pub port: u16,
}

impl GitDaemon {
    pub fn start(root: &Path) -> GitDaemon {
        GitDaemon::serve(root, &[])
    }

    /// A `git daemon` anyone may push to (`--enable=receive-pack`), as a team's own git
    /// server holding every hub's origin: the fleet tests' server.
    pub fn writable(root: &Path) -> GitDaemon {
        GitDaemon::serve(root, &["--enable=receive-pack", "--max-connections=0"])
    }

    fn serve(root: &Path, extra: &[&str]) -> GitDaemon {
        // A free port: bind, note it, release it; git daemon takes it a moment later.
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        // In a process group of its own, killed whole when dropped: `git daemon` is git's
        // wrapper, which starts `git-daemon` (and that a process per connection); killing
        // the wrapper alone would leave them serving a deleted directory.
        let child = Command::new("git")
            .process_group(0)
            .args(["daemon", "--reuseaddr", "--export-all", "--informative-errors", "--listen=127.0.0.1"])
            .args(extra)
            .arg(format!("--port={port}"))
            .arg(format!("--base-path={}", root.display()))
            .arg(root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("git daemon starts (it ships with git)");
        let deadline = Instant::now() + Duration::from_secs(20);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "git daemon did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        GitDaemon { child, port }
    }

    /// The `git://` URL of `<name>.git`.
    pub fn url(&self, name: &str) -> String {
        format!("git://127.0.0.1:{}/{name}.git", self.port)
    }
}

impl Drop for GitDaemon {
    fn drop(&mut self) {
        // The whole group (its leader's pid is its id): the wrapper, `git-daemon` and every
        // connection's process.
        let group = i32::try_from(self.child.id()).expect("a pid fits in i32");
        // SAFETY: kill(2) with a negative pid signals that process group; no memory is shared.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// `git http-backend` behind a loopback HTTP server. `owners` maps a repository (`<name>`
/// for `<name>.git`) to the one `user:password` allowed to push to it.
pub struct GitHttp {
    pub port: u16,
    stop: Arc<AtomicBool>,
}

impl GitHttp {
    pub fn start(root: &Path, owners: BTreeMap<String, String>) -> GitHttp {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let (root, owners, flag) = (root.to_path_buf(), Arc::new(owners), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let (root, owners) = (root.clone(), owners.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, &root, &owners);
                });
            }
        });
        GitHttp { port, stop }
    }

    /// The URL peers read `<name>.git` at (no credentials).
    pub fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}.git", self.port)
    }

    /// The URL the owner pushes to, with its credentials.
    pub fn owner_url(&self, name: &str, credentials: &str) -> String {
        format!("http://{credentials}@127.0.0.1:{}/{name}.git", self.port)
    }
}

impl Drop for GitHttp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

/// A git server holding hubs' origins: where hub `name` pushes its own, and where others
/// read it.
pub trait Origins: Sync {
    fn origin(&self, name: &str) -> String;
    fn read(&self, name: &str) -> String;
}

impl Origins for GitDaemon {
    fn origin(&self, name: &str) -> String {
        self.url(name)
    }
    fn read(&self, name: &str) -> String {
        self.url(name)
    }
}

impl Origins for GitHttp {
    fn origin(&self, name: &str) -> String {
        self.owner_url(name, &credentials(name))
    }
    fn read(&self, name: &str) -> String {
        self.url(name)
    }
}

/// The one `user:password` that may push to `<name>.git` on a [`GitHttp::for_hubs`] server.
pub fn credentials(name: &str) -> String {
    format!("{name}:secret-of-{name}")
}

/// Panic unless no file of `hub` outside `.git` and no commit of its history holds a password
/// made by [`credentials`] (the push credentials in origin's URL stay in git's config).
pub fn assert_no_password(hub: &Path) {
    let mut files = vec![hub.to_path_buf()];
    while let Some(f) = files.pop() {
        if f.is_dir() {
            if f.file_name().is_some_and(|n| n != ".git") {
                files.extend(std::fs::read_dir(&f).unwrap().flatten().map(|e| e.path()));
            }
        } else {
            let text = String::from_utf8_lossy(&std::fs::read(&f).unwrap()).into_owned();
            assert!(!text.contains("secret-of-"), "{} holds a password", f.display());
        }
    }
    let log = Command::new("git").arg("-C").arg(hub).args(["log", "-p", "--all"]).output().unwrap();
    assert!(log.status.success());
    assert!(
        !String::from_utf8_lossy(&log.stdout).contains("secret-of-"),
        "{}'s history holds a password",
        hub.display()
    );
}

impl GitHttp {
    /// A server where each of `names` may push only to its own repository, with
    /// [`credentials`].
    pub fn for_hubs<'a>(root: &Path, names: impl IntoIterator<Item = &'a str>) -> GitHttp {
        GitHttp::start(root, names.into_iter().map(|n| (n.to_string(), credentials(n))).collect())
    }
}

/// A TCP proxy on loopback in front of a server on `to`: it closes, unanswered, every
/// connection whose number (from 0) `drops` picks, and relays the others — a busy or flaky
/// git server. `seen` counts the connections taken.
pub struct Flaky {
    pub port: u16,
    pub seen: Arc<std::sync::atomic::AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Flaky {
    pub fn start(to: u16, drops: impl Fn(usize) -> bool + Send + 'static) -> Flaky {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (count, flag) = (seen.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if flag.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(client) = stream else { continue };
                if drops(count.fetch_add(1, Ordering::SeqCst)) {
                    drop(client);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", to)) else { continue };
                let pipe = |mut from: TcpStream, mut into: TcpStream| {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut into);
                        let _ = into.shutdown(std::net::Shutdown::Write);
                    })
                };
                pipe(client.try_clone().unwrap(), server.try_clone().unwrap());
                pipe(server, client);
            }
        });
        Flaky { port, seen, stop }
    }

    /// The `git://` URL of `<name>.git` through the proxy.
    pub fn url(&self, name: &str) -> String {
        format!("git://127.0.0.1:{}/{name}.git", self.port)
    }
}

impl Drop for Flaky {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n =
            (u32::from(c[0]) << 16) | (u32::from(*c.get(1).unwrap_or(&0)) << 8) | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(T[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// One request on one connection (closed after the answer).
fn serve(stream: TcpStream, root: &Path, owners: &BTreeMap<String, String>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut out = stream;
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
    let mut headers = BTreeMap::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    if headers.get("expect").is_some_and(|e| e.eq_ignore_ascii_case("100-continue")) {
        out.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let mut body = Vec::new();
    if headers.get("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if let Some(n) = headers.get("content-length").and_then(|n| n.parse::<usize>().ok()) {
        body.resize(n, 0);
        reader.read_exact(&mut body)?;
    }
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let repo = path.trim_start_matches('/').split('/').next().unwrap_or("").trim_end_matches(".git").to_string();
    let writes = query.contains("service=git-receive-pack") || path.ends_with("/git-receive-pack");
    let mut user = None;
    if writes {
        let expected = owners.get(&repo).map(|c| format!("Basic {}", base64(c.as_bytes())));
        match (headers.get("authorization"), expected) {
            (None, _) => {
                out.write_all(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"git\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
                return Ok(());
            }
            (Some(given), Some(expected)) if *given == expected => {
                user = owners.get(&repo).and_then(|c| c.split(':').next()).map(str::to_string);
            }
            _ => {
                out.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
                return Ok(());
            }
        }
    }
    let mut cgi = Command::new("git");
    cgi.arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("GIT_PROJECT_ROOT", root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", &method)
        .env("PATH_INFO", path)
        .env("QUERY_STRING", query)
        .env("REMOTE_ADDR", "127.0.0.1")
        .env("CONTENT_LENGTH", body.len().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (header, var) in [
        ("content-type", "CONTENT_TYPE"),
        ("git-protocol", "HTTP_GIT_PROTOCOL"),
        ("content-encoding", "HTTP_CONTENT_ENCODING"),
    ] {
        if let Some(v) = headers.get(header) {
            cgi.env(var, v);
        }
    }
    if let Some(u) = &user {
        cgi.env("REMOTE_USER", u);
    }
    let mut child = cgi.spawn()?;
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&body));
    let mut raw = Vec::new();
    child.stdout.take().unwrap().read_to_end(&mut raw)?;
    let _ = writer.join();
    child.wait()?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").map(|i| (i, 4));
    let split = split.or_else(|| raw.windows(2).position(|w| w == b"\n\n").map(|i| (i, 2)));
    let (head, content) = match split {
        Some((i, n)) => (String::from_utf8_lossy(&raw[..i]).into_owned(), raw[i + n..].to_vec()),
        None => (String::new(), raw),
    };
    let mut status = "200 OK".to_string();
    let mut response = String::new();
    for h in head.lines() {
        match h.split_once(':') {
            Some((k, v)) if k.eq_ignore_ascii_case("status") => status = v.trim().to_string(),
            Some(_) => {
                response.push_str(h.trim_end());
                response.push_str("\r\n");
            }
            None => {}
        }
    }
    out.write_all(
        format!("HTTP/1.1 {status}\r\n{response}Content-Length: {}\r\nConnection: close\r\n\r\n", content.len())
            .as_bytes(),
    )?;
    out.write_all(&content)?;
    out.flush()
}

/// A bare repository `root/<name>.git`.
pub fn bare(root: &Path, name: &str) -> PathBuf {
    let path = root.join(format!("{name}.git"));
    let out = Command::new("git").args(["init", "-q", "--bare"]).arg(&path).output().unwrap();
    assert!(out.status.success());
    path
}

/// Hubs `a` and `b` (made, with no remote, under `root`) given bare repositories in
/// `root/srv` as their `origin`, each owner writing its own as a path, while `git daemon`
/// serves both read-only (a peer's URL: [`GitDaemon::url`]). The server, and each bare.
pub fn read_only_pair(root: &Path, a: &Path, b: &Path) -> (GitDaemon, PathBuf, PathBuf) {
    let srv = root.join("srv");
    std::fs::create_dir(&srv).unwrap();
    let daemon = GitDaemon::start(&srv);
    let (a_bare, b_bare) = (bare(&srv, "a"), bare(&srv, "b"));
    crate::git(a, &["remote", "add", "origin", a_bare.to_str().unwrap()]);
    crate::git(b, &["remote", "add", "origin", b_bare.to_str().unwrap()]);
    (daemon, a_bare, b_bare)
}

/// The branches of a bare repository under `refs/heads/`, short names.
pub fn heads(bare: &Path) -> Vec<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(bare)
        .args(["for-each-ref", "--format=%(refname:short)", "refs/heads/"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
}
