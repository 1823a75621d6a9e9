//! git's `git://` connections without Nagle's delay.
//!
//! git opens a `git://` connection itself and never sets `TCP_NODELAY` on it, and it writes a
//! request as several small writes (a pkt-line's length, then its text, then the next line).
//! With Nagle's algorithm the first goes out and the rest wait for its acknowledgement, which
//! the server delays (up to 40 ms on Linux) because it has nothing to answer yet: every
//! request costs a round trip and a delayed ACK more than it needs. At 50 ms round trip a
//! listing took 0.35 s instead of 0.26 s, a fetch 0.52 s instead of 0.34 s (BENCHMARKS.md,
//! issue 35).
//!
//! git lets a "proxy command" make the connection instead (`core.gitProxy`, run as `COMMAND
//! HOST PORT`, talking over its standard input and output). The `cn` binary is that command
//! for the git it runs ([`use_connector`]): started by git with [`CONNECT_ENV`] set, it
//! connects to HOST:PORT with `TCP_NODELAY` and copies bytes both ways until either side is
//! done. It connects only where git was going to connect; a user's own `core.gitProxy`
//! comes first in git's order and still wins.
//!
//! Every connection cn opens itself (the connector's, `v2::Session`'s) is also paced — at
//! most one to a server every [`CONNECT_GAP`] from one process, so a sync's sixteen sessions
//! do not overflow a stock `git daemon`'s listen queue of 5 and get reset (a connector is a
//! process of its own, with one connection) — and read with quick acknowledgements
//! ([`QuickAck`]), so the server's second write of an answer does not wait for a delayed ACK.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Set (to `1`) in the environment of the git cn runs, so that `cn HOST PORT` started by that
/// git is the connector and not a command line.
pub const CONNECT_ENV: &str = "CN_GIT_CONNECT";

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// How long the connector waits for the server to finish once git has stopped writing (git
/// closes both ends when it is done, so this only ends a connector whose git died).
const LINGER: Duration = Duration::from_secs(30);

/// What the connector says when the server closed the connection before a byte of answer.
pub const UNANSWERED: &str = "the server closed the connection unanswered";

static CONNECTOR: OnceLock<PathBuf> = OnceLock::new();

/// Make `exe` (the running `cn` binary) the connector of every `git://` connection of the git
/// cn runs from now on. Called once by the binary's `main`; a library user (a test) that
/// does not call it gets git's own connections.
pub fn use_connector(exe: PathBuf) {
    let _ = CONNECTOR.set(exe);
}

/// The `-c core.gitProxy=…` for a git command, when a connector is set and a file is at its
/// path (a daemon whose binary was removed has none: git then connects itself; one replaced
/// by an upgrade runs the new binary as the connector, which speaks the same two words).
pub(crate) fn proxy_config() -> Option<String> {
    let exe = CONNECTOR.get()?;
    let text = exe.to_str()?;
    // git reads "COMMAND for DOMAIN" as a command for one domain only.
    if text.contains(" for ") || !exe.is_file() {
        return None;
    }
    Some(format!("core.gitProxy={text}"))
}

/// When this process was started by git as its connector (`cn HOST PORT` with
/// [`CONNECT_ENV`] set): connect, copy, and the exit code; otherwise `None`, and `main`
/// goes on to parse its command line.
pub fn connector_main() -> Option<i32> {
    if std::env::var_os(CONNECT_ENV).is_none_or(|v| v != "1") {
        return None;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Exactly git's `HOST PORT`: a hook that inherited the variable and runs `cn sync --json`
    // gets its command.
    let [host, port] = args.as_slice() else { return None };
    port.parse::<u16>().ok()?;
    Some(match relay(host, port, std::io::stdin(), std::io::stdout()) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("cn: cannot carry git's connection to {host}:{port}: {e}");
            1
        }
    })
}

/// Connect to `host:port` with `TCP_NODELAY` and copy `input` to the connection and the
/// connection to `output` until the connection ends (or `output` is closed). The copy to the
/// server runs on a thread of its own that is not waited for: when the server is done, git
/// must see the end of the output at once, whether or not it has closed its side.
fn relay(host: &str, port: &str, mut input: impl Read + Send + 'static, mut output: impl Write) -> std::io::Result<()> {
    let port: u16 = port.parse().map_err(|_| std::io::Error::other(format!("{port:?} is not a port")))?;
    let stream = connect(host, port, CONNECT_TIMEOUT)?;
    let mut to_server = stream.try_clone()?;
    let mut from_server = QuickAck(stream);
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 << 10];
        loop {
            match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    if to_server.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        // git is done writing: the server sees the end of its request; should git be gone
        // and the server never close, the read below gives up after LINGER.
        let _ = to_server.shutdown(Shutdown::Write);
        let _ = to_server.set_read_timeout(Some(LINGER));
    });
    let mut buf = [0u8; 64 << 10];
    let mut answered = false;
    loop {
        match from_server.read(&mut buf) {
            // git would only see the end of its input and say the repository cannot be
            // read; this says what happened (a busy server's way: `GitError::is_transient`).
            Ok(0) if !answered => return Err(std::io::Error::other(UNANSWERED)),
            Ok(0) => return Ok(()),
            Ok(n) => {
                answered = true;
                output.write_all(&buf[..n])?;
                output.flush()?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // A server that hung up before our request arrived resets the connection instead
            // of closing it: unanswered all the same.
            Err(e)
                if !answered
                    && matches!(
                        e.kind(),
                        std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::ConnectionAborted
                    ) =>
            {
                return Err(std::io::Error::other(format!("{UNANSWERED} ({e})")))
            }
            Err(e) => return Err(e),
        }
    }
}

/// The first address of `host` that answers.
/// Each within `timeout`; with `TCP_NODELAY` (the connector's and `v2::Session`'s), paced
/// ([`pace`]).
pub(crate) fn connect(host: &str, port: u16, timeout: Duration) -> std::io::Result<TcpStream> {
    let mut last = None;
    for addr in (host, port).to_socket_addrs()? {
        pace(addr);
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(s) => {
                s.set_nodelay(true)?;
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other(format!("{host} has no address"))))
}

/// The least time between two connections this process opens to one address.
///
/// A stock `git daemon` listens with a backlog of 5 and accepts one connection at a time
/// (each by starting a process). When a sync opens sixteen connections at once, their
/// handshakes complete together a round trip later and overflow that queue: the kernel drops
/// them, answers with SYN cookies, and resets the ones it cannot take back (measured at 50 ms:
/// 10 of a sync's 100 connections reset, each tried again after a wait). Spaced by a
/// couple of milliseconds they arrive as the server takes them; the spacing costs the first
/// sixteen 30 ms in all and later ones nothing (their fetches end at different times).
pub const CONNECT_GAP: Duration = Duration::from_millis(2);

/// Wait until this process may open a connection to `addr` ([`CONNECT_GAP`] after the last).
fn pace(addr: SocketAddr) {
    static NEXT: Mutex<BTreeMap<SocketAddr, Instant>> = Mutex::new(BTreeMap::new());
    let now = Instant::now();
    let at = reserve(&mut NEXT.lock().unwrap_or_else(|p| p.into_inner()), addr, now, CONNECT_GAP);
    if at > now {
        std::thread::sleep(at - now);
    }
}

/// When a connection to `addr` asked for at `now` may open, `gap` after the one before it;
/// `next` keeps, per address, when the next may (addresses whose time has come are dropped,
/// so it holds only those connected to in the last `gap`).
fn reserve(next: &mut BTreeMap<SocketAddr, Instant>, addr: SocketAddr, now: Instant, gap: Duration) -> Instant {
    next.retain(|_, t| *t > now);
    let at = next.get(&addr).map_or(now, |t| (*t).max(now));
    next.insert(addr, at + gap);
    at
}

/// A connection whose reads acknowledge at once (Linux's `TCP_QUICKACK`, set before each read:
/// the kernel leaves quick-ack mode by itself).
///
/// git's servers answer a command in several writes (`upload-pack` sends `packfile`, then
/// the pack), and the second waits for the acknowledgement of the first (Nagle's algorithm,
/// on their side). Delayed, that acknowledgement costs up to 40 ms more on every fetch (cn
/// sends nothing it could ride on): measured, a hundred delayed ACKs in a sync of 100 peers
/// with mail before, none after.
pub(crate) struct QuickAck(pub TcpStream);

impl QuickAck {
    pub fn get_ref(&self) -> &TcpStream {
        &self.0
    }
}

impl Read for QuickAck {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        quick_ack(&self.0);
        self.0.read(buf)
    }
}

fn quick_ack(stream: &TcpStream) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = socket2::SockRef::from(stream).set_tcp_quickack(true);
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = stream;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn connections_to_one_server_are_spaced_and_others_are_not_held_up() {
        let mut next = BTreeMap::new();
        let now = Instant::now();
        let (a, b): (SocketAddr, SocketAddr) = ("10.0.0.1:9418".parse().unwrap(), "10.0.0.2:9418".parse().unwrap());
        // Sixteen asked for at once: one now, then one every gap.
        let at: Vec<Instant> = (0..16).map(|_| reserve(&mut next, a, now, CONNECT_GAP)).collect();
        for (i, t) in at.iter().enumerate() {
            assert_eq!(*t, now + CONNECT_GAP * i as u32);
        }
        // Another server's first connection does not wait behind them.
        assert_eq!(reserve(&mut next, b, now, CONNECT_GAP), now);
        // Once the spacing has passed, a connection opens at once, and the map forgets the
        // servers it no longer spaces.
        let later = now + CONNECT_GAP * 20;
        assert_eq!(reserve(&mut next, a, later, CONNECT_GAP), later);
        assert_eq!(next.len(), 1);
    }

    #[test]
    fn the_connector_carries_both_ways_with_nodelay_until_the_server_closes() {
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = server.local_addr().unwrap().port().to_string();
        let echo = std::thread::spawn(move || {
            let (mut s, _) = server.accept().unwrap();
            let mut got = Vec::new();
            s.read_to_end(&mut got).unwrap();
            s.write_all(b"heard: ").unwrap();
            s.write_all(&got).unwrap();
        });
        let mut out = Vec::new();
        let request = std::io::Cursor::new(b"0014command=ls-refs\n0000".to_vec());
        relay("127.0.0.1", &port, request, &mut out).unwrap();
        echo.join().unwrap();
        assert_eq!(out, b"heard: 0014command=ls-refs\n0000");
    }

    #[test]
    fn a_port_that_is_not_one_or_a_closed_one_is_an_error_not_a_panic() {
        let e = relay("127.0.0.1", "nine", std::io::empty(), Vec::new()).unwrap_err();
        assert!(e.to_string().contains("\"nine\" is not a port"), "{e}");
        let closed = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port().to_string();
        drop(closed);
        assert!(relay("127.0.0.1", &port, std::io::empty(), Vec::new()).is_err());
    }

    #[test]
    fn a_server_that_hangs_up_unanswered_is_named_as_such() {
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = server.local_addr().unwrap().port().to_string();
        let rude = std::thread::spawn(move || drop(server.accept().unwrap()));
        let e = relay("127.0.0.1", &port, std::io::Cursor::new(b"0000".to_vec()), Vec::new()).unwrap_err();
        rude.join().unwrap();
        assert!(e.to_string().contains(UNANSWERED), "{e}");
    }
}
