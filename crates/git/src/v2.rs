//! git's protocol v2 over `git://`, spoken by cn itself for what a sync asks of a peer's
//! repository: list the refs under a few prefixes and, in the same connection, fetch some
//! objects by id. git's own `ls-remote` and `fetch` take two connections and seven processes
//! for that (a listing, a fetch, `index-pack`, a connectivity `rev-list`, the connectors);
//! this takes one connection, no process for the listing, and leaves the pack it received
//! to `git index-pack` (BENCHMARKS.md, issue 35).
//!
//! Only the plain case is spoken: a `git://host[:port]/path` URL of printable ASCII, a
//! server that answers `version 2`, SHA-1 ids. Anything else — a server that speaks the old
//! protocol, a SHA-256 repository, a URL with anything unusual in it — is
//! [`V2Error::Unsupported`], and the caller uses git itself instead.
//!
//! Everything the server sends is bytes with bounds: a pkt-line is at most 65,520 bytes
//! (git's own limit), a listing at most the caller's bound, a pack at most the caller's limit
//! (written to a file as it arrives, never held in memory), what is not the pack (side band
//! 2's progress, the sections before it) at most [`CHATTER_MAX`], every read within the
//! session's one overall deadline and an idle timeout (a server that trickles a byte at a
//! time is cut off at the deadline, one that goes quiet after the idle time): either is
//! [`V2Error::TooSlow`], "took too long". The parsers are pure functions over a reader ([`read_pkt`], [`read_refs`],
//! [`read_pack`]) under a fuzz target.

use std::io::{self, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::connect::QuickAck;

/// The largest pkt-line git sends or takes (4 bytes of length included).
pub const PKT_MAX: usize = 65520;

/// How long opening the connection may take (an address that does not answer).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// Most bytes a server may send besides the listing and the pack (side band 2's progress,
/// though none is asked for, and the sections before the pack).
pub const CHATTER_MAX: u64 = 1 << 20;

/// The longest repository path sent (the request must fit a pkt-line).
const PATH_MAX: usize = 4096;

/// Why a session did not give what was asked.
#[derive(Debug, thiserror::Error)]
pub enum V2Error {
    /// Not the plain case this speaks (the old protocol, another hash, an odd URL): use git.
    #[error("not spoken here: {0}")]
    Unsupported(String),
    /// The server's own answer (`ERR …`, an error on the side band): not the network's.
    #[error("remote error: {0}")]
    Server(String),
    /// The connection: refused, reset, closed early, too slow.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The server sent more than the bound (a listing, a pack).
    #[error("the server sent more than {0} bytes")]
    TooLarge(u64),
    /// The session's deadline passed, or the server sent nothing for the idle time.
    #[error("the server took too long: {0}")]
    TooSlow(String),
}

/// A `git://` URL this speaks: host, port, and the path sent to the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitUrl {
    pub host: String,
    pub port: u16,
    /// As given, from its first `/`.
    pub path: String,
    /// `host` or `host:port`, as the URL gave it (git's `host=` parameter).
    pub(crate) authority: String,
}

impl GitUrl {
    /// `git://host[:port]/path` of printable ASCII without `%`, `@`, `[`, spaces or a
    /// backslash; `None` for anything else (git itself handles those).
    pub fn parse(url: &str) -> Option<GitUrl> {
        let rest = url.strip_prefix("git://")?;
        if !rest.bytes().all(|b| b.is_ascii_graphic() && !b"%@[]\\".contains(&b)) {
            return None;
        }
        let (authority, path) = rest.split_at(rest.find('/')?);
        if path.len() < 2 || path.len() > PATH_MAX {
            return None;
        }
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (h, p.parse::<u16>().ok().filter(|p| *p != 0)?),
            None => (authority, 9418),
        };
        let host_ok = !host.is_empty() && host.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b));
        host_ok.then(|| GitUrl {
            host: host.to_string(),
            port,
            path: path.to_string(),
            authority: authority.to_string(),
        })
    }
}

/// One connection to `git-upload-pack` of one repository.
pub struct Session {
    writer: TcpStream,
    reader: BufReader<QuickAck>,
    /// When the whole session (every command, every answer) must be done.
    deadline: Instant,
    /// How long one read may wait for a byte.
    idle: Duration,
    /// The capability advertisement was read (it comes before the first answer).
    advertised: bool,
}

impl Session {
    /// Connect (with `TCP_NODELAY`, within [`CONNECT_TIMEOUT`] an address) and ask for
    /// `git-upload-pack` in protocol v2; everything must be done by `deadline` (the whole
    /// session, whatever the server trickles), and no read waits more than `idle` for a byte.
    /// The server's answer is read with the first command's, one round trip later.
    pub fn open(url: &GitUrl, deadline: Instant, idle: Duration) -> Result<Session, V2Error> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(V2Error::TooSlow("no time was left to connect".into()));
        }
        let (mut writer, reader) = connect(url, left)?;
        let reader = BufReader::with_capacity(PKT_MAX, reader);
        let request = format!("git-upload-pack {}\0host={}\0\0version=2\0", url.path, url.authority);
        writer.set_write_timeout(Some(idle.min(left).max(Duration::from_millis(1))))?;
        writer.write_all(&pkt(request.as_bytes())).map_err(|e| slow(e, left <= idle, idle))?;
        Ok(Session { writer, reader, deadline, idle, advertised: false })
    }

    /// The refs under `prefixes` (each `refs/…/`): (id, name), at most `max` bytes of them.
    pub fn list(&mut self, prefixes: &[String], max: usize) -> Result<Vec<(String, String)>, V2Error> {
        let mut req = pkt(b"command=ls-refs\n");
        req.extend_from_slice(b"0001");
        for p in prefixes {
            req.extend(pkt(format!("ref-prefix {p}\n").as_bytes()));
        }
        req.extend_from_slice(b"0000");
        self.send(&req)?;
        self.advertisement()?;
        let mut r = Deadlined { inner: &mut self.reader, deadline: self.deadline, idle: self.idle, by_deadline: false };
        read_refs(&mut r, max).map_err(|e| r.why(e))
    }

    /// Fetch the objects `wants` (ids) and everything they reach; the pack the server sends
    /// is written to `out`, at most `limit` bytes (else [`V2Error::TooLarge`]). Its size.
    pub fn fetch(&mut self, wants: &[&str], out: &mut impl Write, limit: u64) -> Result<u64, V2Error> {
        if wants.iter().any(|w| w.len() != 40 || !w.bytes().all(|b| b.is_ascii_hexdigit())) {
            return Err(V2Error::Unsupported("a want that is not a SHA-1 id".into()));
        }
        let mut req = pkt(b"command=fetch\n");
        req.extend_from_slice(b"0001");
        for arg in ["no-progress\n", "ofs-delta\n"] {
            req.extend(pkt(arg.as_bytes()));
        }
        for w in wants {
            req.extend(pkt(format!("want {w}\n").as_bytes()));
        }
        req.extend(pkt(b"done\n"));
        req.extend_from_slice(b"0000");
        self.send(&req)?;
        self.advertisement()?;
        let mut r = Deadlined { inner: &mut self.reader, deadline: self.deadline, idle: self.idle, by_deadline: false };
        read_pack(&mut r, out, limit).map_err(|e| r.why(e))
    }

    /// Write a request, within the idle time and the deadline.
    fn send(&mut self, req: &[u8]) -> Result<(), V2Error> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(V2Error::TooSlow(PAST_DEADLINE.into()));
        }
        self.writer.set_write_timeout(Some(self.idle.min(left)))?;
        self.writer.write_all(req).map_err(|e| slow(e, left <= self.idle, self.idle))
    }

    /// The capability advertisement, once: `version 2`, and no hash but SHA-1.
    fn advertisement(&mut self) -> Result<(), V2Error> {
        if self.advertised {
            return Ok(());
        }
        let mut r = Deadlined { inner: &mut self.reader, deadline: self.deadline, idle: self.idle, by_deadline: false };
        read_advertisement(&mut r).map_err(|e| r.why(e))?;
        self.advertised = true;
        Ok(())
    }
}

/// A connection to `url`'s server (with `TCP_NODELAY`, within [`CONNECT_TIMEOUT`] and `left`):
/// its writing half, and its reading half with quick acknowledgements.
pub(crate) fn connect(url: &GitUrl, left: Duration) -> Result<(TcpStream, QuickAck), V2Error> {
    let stream = super::connect::connect(&url.host, url.port, CONNECT_TIMEOUT.min(left))?;
    let writer = stream.try_clone()?;
    Ok((writer, QuickAck(stream)))
}

/// `payload` as a pkt-line.
pub(crate) fn pkt(payload: &[u8]) -> Vec<u8> {
    let mut out = format!("{:04x}", payload.len() + 4).into_bytes();
    out.extend_from_slice(payload);
    out
}

/// One pkt-line read.
#[derive(Debug, PartialEq, Eq)]
pub enum Pkt {
    Flush,
    Delim,
    ResponseEnd,
    Data(Vec<u8>),
}

/// Read one pkt-line. The end of the stream before one is the server hanging up.
pub fn read_pkt(r: &mut impl Read) -> Result<Pkt, V2Error> {
    let mut len = [0u8; 4];
    read_exact(r, &mut len)?;
    let text = std::str::from_utf8(&len).map_err(|_| bad("a pkt-line length that is not hex"))?;
    let n = usize::from_str_radix(text, 16).map_err(|_| bad("a pkt-line length that is not hex"))?;
    match n {
        0 => Ok(Pkt::Flush),
        1 => Ok(Pkt::Delim),
        2 => Ok(Pkt::ResponseEnd),
        3 => Err(bad("a pkt-line length of 3")),
        n if n > PKT_MAX => Err(bad("a pkt-line longer than 65520 bytes")),
        n => {
            let mut data = vec![0u8; n - 4];
            read_exact(r, &mut data)?;
            Ok(Pkt::Data(data))
        }
    }
}

fn read_exact(r: &mut impl Read, buf: &mut [u8]) -> Result<(), V2Error> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => {
            V2Error::Io(io::Error::new(io::ErrorKind::UnexpectedEof, "the remote end hung up unexpectedly"))
        }
        _ => V2Error::Io(e),
    })
}

pub(crate) fn bad(what: &str) -> V2Error {
    V2Error::Unsupported(format!("the server sent {what}"))
}

/// A pkt-line's text without its newline; an `ERR` line is the server's error.
pub(crate) fn text(data: &[u8]) -> Result<&str, V2Error> {
    let line = std::str::from_utf8(data).map_err(|_| bad("a line that is not UTF-8"))?;
    let line = line.strip_suffix('\n').unwrap_or(line);
    match line.strip_prefix("ERR ") {
        Some(msg) => Err(V2Error::Server(cn_process::redact::printable_line(msg).into_owned())),
        None => Ok(line),
    }
}

/// The capability advertisement, up to its flush: `version 2` first, and SHA-1 (said, or
/// not said: git before 2.28 says nothing of hashes).
pub fn read_advertisement(r: &mut impl Read) -> Result<(), V2Error> {
    match read_pkt(r)? {
        Pkt::Data(d) if text(&d)? == "version 2" => {}
        Pkt::Data(d) => {
            text(&d)?;
            return Err(V2Error::Unsupported("the server does not speak protocol v2".into()));
        }
        _ => return Err(bad("no version")),
    }
    let (mut ls_refs, mut fetch) = (false, false);
    for _ in 0..256 {
        match read_pkt(r)? {
            Pkt::Flush => {
                return if ls_refs && fetch {
                    Ok(())
                } else {
                    Err(V2Error::Unsupported("the server offers no ls-refs or no fetch".into()))
                }
            }
            Pkt::Data(d) => {
                let cap = text(&d)?;
                let (name, value) = cap.split_once('=').unwrap_or((cap, ""));
                match name {
                    "ls-refs" => ls_refs = true,
                    "fetch" => fetch = true,
                    "object-format" if value != "sha1" => {
                        return Err(V2Error::Unsupported(format!("a repository of object format {value}")))
                    }
                    _ => {}
                }
            }
            _ => return Err(bad("a delimiter in its capabilities")),
        }
    }
    Err(bad("more than 256 capabilities"))
}

/// An `ls-refs` answer up to its flush: (id, name) of each ref, at most `max` bytes of
/// lines in all.
pub fn read_refs(r: &mut impl Read, max: usize) -> Result<Vec<(String, String)>, V2Error> {
    let mut refs = Vec::new();
    for line in read_lines(r, max, "a listing")? {
        let mut words = line.split(' ');
        let (Some(id), Some(name)) = (words.next(), words.next()) else {
            return Err(bad("a ref line without a name"));
        };
        if !is_sha1(id) {
            return Err(bad("a ref id that is not SHA-1"));
        }
        refs.push((id.to_string(), name.to_string()));
    }
    Ok(refs)
}

/// The lines of pkt-lines up to a flush (without their newlines; an `ERR` line is the
/// server's error), at most `max` bytes in all; a delimiter is an error of `what`.
pub(crate) fn read_lines(r: &mut impl Read, max: usize, what: &str) -> Result<Vec<String>, V2Error> {
    let mut lines = Vec::new();
    let mut seen = 0usize;
    loop {
        match read_pkt(r)? {
            Pkt::Flush => return Ok(lines),
            Pkt::Data(d) => {
                seen += d.len();
                if seen > max {
                    return Err(V2Error::TooLarge(max as u64));
                }
                lines.push(text(&d)?.to_string());
            }
            _ => return Err(bad(&format!("a delimiter in {what}"))),
        }
    }
}

/// Whether `id` is a SHA-1 id (40 hex digits).
pub(crate) fn is_sha1(id: &str) -> bool {
    id.len() == 40 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A `fetch` answer: its sections up to `packfile`, then the pack's bytes (side band 1) to
/// `out` up to the flush, at most `limit` bytes; side band 3 is the server's error, 2 its
/// progress (dropped). The pack's size.
pub fn read_pack(r: &mut impl Read, out: &mut impl Write, limit: u64) -> Result<u64, V2Error> {
    // Sections before the pack (acknowledgments, shallow-info, wanted-refs, packfile-uris),
    // each ended by a delimiter; none is asked for, so at most a few, and together with the
    // progress on side band 2 at most CHATTER_MAX bytes.
    let mut sections = 0;
    let mut chatter = 0u64;
    let mut chat = |n: usize| {
        chatter = chatter.saturating_add(n as u64);
        if chatter > CHATTER_MAX {
            Err(V2Error::TooLarge(CHATTER_MAX))
        } else {
            Ok(())
        }
    };
    loop {
        match read_pkt(r)? {
            Pkt::Data(d) if text(&d)? == "packfile" => break,
            Pkt::Data(d) => {
                chat(d.len())?;
                sections += 1;
                if sections > 8 {
                    return Err(bad("no packfile section"));
                }
                loop {
                    match read_pkt(r)? {
                        Pkt::Delim => break,
                        Pkt::Data(d) => {
                            chat(d.len())?;
                            text(&d)?;
                        }
                        _ => return Err(bad("a section without its packfile")),
                    }
                }
            }
            _ => return Err(bad("an answer without a packfile")),
        }
    }
    let mut size = 0u64;
    loop {
        match read_pkt(r)? {
            Pkt::Flush => return Ok(size),
            Pkt::Data(d) => match d.split_first() {
                Some((1, bytes)) => {
                    size += bytes.len() as u64;
                    if size > limit {
                        return Err(V2Error::TooLarge(limit));
                    }
                    out.write_all(bytes)?;
                }
                Some((2, progress)) => chat(progress.len())?,
                Some((3, msg)) => {
                    let msg = String::from_utf8_lossy(msg);
                    return Err(V2Error::Server(cn_process::redact::printable_line(msg.trim_end()).into_owned()));
                }
                _ => return Err(bad("a pack line on no side band")),
            },
            _ => return Err(bad("a delimiter in a pack")),
        }
    }
}

/// A reader that fails once the session's deadline has passed, each read waiting at most the
/// idle time (and never past the deadline).
pub(crate) struct Deadlined<'a, R> {
    pub(crate) inner: &'a mut BufReader<R>,
    pub(crate) deadline: Instant,
    pub(crate) idle: Duration,
    /// The last read waited until the deadline (not the idle time).
    pub(crate) by_deadline: bool,
}

impl<R> Deadlined<'_, R> {
    /// `e` as the caller reads it: a read that timed out is [`V2Error::TooSlow`].
    pub(crate) fn why(&self, e: V2Error) -> V2Error {
        match e {
            V2Error::Io(io) => slow(io, self.by_deadline, self.idle),
            other => other,
        }
    }
}

impl Read for Deadlined<'_, QuickAck> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        self.by_deadline = left <= self.idle;
        if left.is_zero() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "the deadline passed"));
        }
        self.inner.get_ref().get_ref().set_read_timeout(Some(left.min(self.idle)))?;
        self.inner.read(buf)
    }
}

const PAST_DEADLINE: &str = "it was not done within the time it is given";

/// An I/O error of a session with `idle` time: a timeout (a socket's says "Resource
/// temporarily unavailable") is [`V2Error::TooSlow`], saying which limit it was (`by_deadline`:
/// the wait was until the session's deadline).
pub(crate) fn slow(e: io::Error, by_deadline: bool, idle: Duration) -> V2Error {
    match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
            if by_deadline {
                V2Error::TooSlow(PAST_DEADLINE.into())
            } else {
                V2Error::TooSlow(format!("it sent nothing for {idle:?}"))
            }
        }
        _ => V2Error::Io(e),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// pkt-lines of `parts` (`0000`, `0001`, `0002` as they are).
    pub(crate) fn lines(parts: &[&str]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in parts {
            match *p {
                "0000" | "0001" | "0002" => out.extend_from_slice(p.as_bytes()),
                text => out.extend(pkt(text.as_bytes())),
            }
        }
        out
    }

    #[test]
    fn only_plain_git_urls_are_spoken() {
        let u = GitUrl::parse("git://127.0.0.1:9418/a.git").unwrap();
        assert_eq!((u.host.as_str(), u.port, u.path.as_str()), ("127.0.0.1", 9418, "/a.git"));
        assert_eq!(GitUrl::parse("git://example.org/team/x.git").unwrap().port, 9418);
        for odd in [
            "https://example.org/x.git",
            "git://example.org",
            "git://example.org/",
            "git://u@example.org/x",
            "git://[::1]/x",
            "git://example.org:0/x",
            "git://example.org:99999/x",
            "git://example.org/a%20b",
            "git://example.org/a b",
            "git://ex ample.org/x",
            "git://example.org/x\0y",
            &format!("git://example.org/{}", "x".repeat(70_000)),
        ] {
            assert_eq!(GitUrl::parse(odd), None, "{odd}");
        }
    }

    #[test]
    fn an_advertisement_is_version_2_with_ls_refs_fetch_and_sha1() {
        let ok = lines(&[
            "version 2\n",
            "agent=git/2.47\n",
            "ls-refs=unborn\n",
            "fetch=shallow\n",
            "object-format=sha1\n",
            "0000",
        ]);
        read_advertisement(&mut &ok[..]).unwrap();
        let old = lines(&["version 2\n", "ls-refs\n", "fetch\n", "0000"]);
        read_advertisement(&mut &old[..]).unwrap();
        let sha256 = lines(&["version 2\n", "ls-refs\n", "fetch\n", "object-format=sha256\n", "0000"]);
        assert!(matches!(read_advertisement(&mut &sha256[..]), Err(V2Error::Unsupported(_))));
        let v0 = lines(&["1111111111111111111111111111111111111111 HEAD\0multi_ack\n", "0000"]);
        assert!(matches!(read_advertisement(&mut &v0[..]), Err(V2Error::Unsupported(_))));
        let err = lines(&["ERR access denied or repository not exported: /x.git\n"]);
        match read_advertisement(&mut &err[..]) {
            Err(V2Error::Server(m)) => assert!(m.contains("not exported"), "{m}"),
            other => panic!("{other:?}"),
        }
        let cut = b"0011version 2\n00";
        match read_advertisement(&mut &cut[..]) {
            Err(V2Error::Io(e)) => assert!(e.to_string().contains("hung up unexpectedly"), "{e}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_listing_is_ids_and_names_within_its_bound() {
        let a = "a".repeat(40);
        let listing = lines(&[
            &format!("{a} refs/heads/cn-mail/x/1\n"),
            &format!("{a} refs/heads/cn-receipt/x/2 peeled:{a}\n"),
            "0000",
        ]);
        let refs = read_refs(&mut &listing[..], 1 << 20).unwrap();
        assert_eq!(
            refs,
            [(a.clone(), "refs/heads/cn-mail/x/1".to_string()), (a.clone(), "refs/heads/cn-receipt/x/2".to_string())]
        );
        assert!(matches!(read_refs(&mut &listing[..], 50), Err(V2Error::TooLarge(50))));
        for bad in [lines(&["nothex refs/heads/x\n", "0000"]), lines(&[&a, "0000"]), lines(&["0001"])] {
            assert!(matches!(read_refs(&mut &bad[..], 1 << 20), Err(V2Error::Unsupported(_))), "{bad:?}");
        }
    }

    #[test]
    fn a_pack_comes_on_side_band_1_within_its_limit_and_band_3_is_the_servers_error() {
        let mut answer = lines(&["acknowledgments\n", "NAK\n", "0001", "packfile\n"]);
        answer.extend(pkt(b"\x01PACK1234"));
        answer.extend(pkt(b"\x02counting objects"));
        answer.extend(pkt(b"\x01rest"));
        answer.extend_from_slice(b"0000");
        let mut out = Vec::new();
        assert_eq!(read_pack(&mut &answer[..], &mut out, 100).unwrap(), 12);
        assert_eq!(out, b"PACK1234rest");
        assert!(matches!(read_pack(&mut &answer[..], &mut Vec::new(), 10), Err(V2Error::TooLarge(10))));
        let mut refused = lines(&["packfile\n"]);
        refused.extend(pkt(b"\x03upload-pack: not our ref 1234\n"));
        match read_pack(&mut &refused[..], &mut Vec::new(), 100) {
            Err(V2Error::Server(m)) => assert!(m.contains("not our ref"), "{m}"),
            other => panic!("{other:?}"),
        }
        for bad in [&b"zzzz"[..], b"0003", b"fff0", b"0009packf"] {
            assert!(read_pack(&mut &bad[..], &mut Vec::new(), 100).is_err(), "{bad:?}");
        }
    }

    /// Progress on side band 2 (never asked for) counts against CHATTER_MAX: a server that
    /// sends it without end is cut off, not read for ever.
    #[test]
    fn progress_on_side_band_2_is_bounded() {
        let mut answer = lines(&["packfile\n"]);
        let line = vec![b'.'; PKT_MAX - 5];
        let n = CHATTER_MAX as usize / line.len() + 2;
        for _ in 0..n {
            let mut data = vec![2u8];
            data.extend_from_slice(&line);
            answer.extend(pkt(&data));
        }
        answer.extend_from_slice(b"0000");
        assert!(matches!(read_pack(&mut &answer[..], &mut Vec::new(), 100), Err(V2Error::TooLarge(CHATTER_MAX))));
    }

    /// A server that trickles a byte at a time is cut off at the session's deadline, one that
    /// goes quiet after the idle time; both say "took too long", never "Resource temporarily
    /// unavailable".
    #[test]
    fn a_trickling_or_silent_server_took_too_long() {
        use std::io::Read as _;
        for trickle in [true, false] {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            let server = std::thread::spawn(move || {
                let (mut s, _) = listener.accept().unwrap();
                let mut request = [0u8; 256];
                let _ = s.read(&mut request);
                // "version 2" as a pkt-line, one byte at a time (or nothing at all).
                if trickle {
                    for b in b"000eversion 2\n".iter().cycle().take(200) {
                        if s.write_all(&[*b]).is_err() {
                            return;
                        }
                        std::thread::sleep(Duration::from_millis(20));
                    }
                } else {
                    let _ = s.read(&mut request);
                }
            });
            let url = GitUrl::parse(&format!("git://127.0.0.1:{port}/x.git")).unwrap();
            let started = Instant::now();
            let (deadline, idle) = if trickle {
                (started + Duration::from_millis(500), Duration::from_secs(5))
            } else {
                (started + Duration::from_secs(30), Duration::from_millis(300))
            };
            let e = Session::open(&url, deadline, idle).and_then(|mut s| s.list(&["refs/heads/".into()], 1 << 20));
            let elapsed = started.elapsed();
            match e {
                Err(V2Error::TooSlow(why)) => {
                    let said = V2Error::TooSlow(why.clone()).to_string();
                    assert!(said.contains("took too long"), "{said}");
                    assert!(!said.contains("temporarily"), "{said}");
                    if trickle {
                        assert!(why.contains("not done within"), "{why}");
                    } else {
                        assert!(why.contains("sent nothing for"), "{why}");
                    }
                }
                other => panic!("trickle {trickle}: {other:?}"),
            }
            assert!(elapsed < Duration::from_secs(5), "cut off in {elapsed:?}");
            drop(server);
        }
    }
}
