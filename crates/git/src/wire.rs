//! A few small objects to and from a `git://` server, spoken by cn itself: an atomic push of
//! ref updates, each a compare and swap, with the objects they need (`git-receive-pack`, the
//! protocol's version 0: push has no version 2), and a commit read by id from a v2 fetch's
//! pack without storing it. For what a leased hub does every few seconds — renew the lease,
//! look at it — where git's own `push` and `fetch` cost several processes each time.
//!
//! Only the plain case: objects written whole (no delta), each at most [`OBJECT_MAX`]; a
//! server that offers `report-status` and `atomic`; SHA-1. Anything else is
//! [`V2Error::Unsupported`] and the caller uses git itself. What the server sends is read
//! with bounds: the advertisement at most [`ADVERTISEMENT_MAX`], the report at most
//! [`crate::v2::CHATTER_MAX`], a pack at most the caller's limit, within the session's
//! deadline and idle time. The parsers ([`read_receive_advertisement`], [`read_report`],
//! [`commit_from_pack`]) are pure functions under a fuzz target.

use std::collections::BTreeMap;
use std::io::{BufReader, Read, Write};
use std::time::{Duration, Instant};

use crate::v2::{
    bad, is_sha1, pkt, read_lines, read_pkt, slow, text, Deadlined, GitUrl, Pkt, Session, V2Error, CHATTER_MAX,
};

/// The largest object written to or read from a pack here.
pub const OBJECT_MAX: usize = 1 << 20;
/// The most bytes of a receive-pack advertisement read (every ref of the repository).
pub const ADVERTISEMENT_MAX: usize = 8 << 20;
/// The id git writes for "absent".
pub const ZERO_ID: &str = "0000000000000000000000000000000000000000";

/// One ref update: `name` from `old` (what the server must show, [`ZERO_ID`] or empty for
/// absent) to `new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    pub name: String,
    pub old: String,
    pub new: String,
}

/// What a receive-pack server advertises: its refs (name → id) and capabilities.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Advertised {
    pub refs: BTreeMap<String, String>,
    pub caps: Vec<String>,
}

/// `id`, or [`ZERO_ID`] for an empty one (absent).
fn absent(id: &str) -> &str {
    if id.is_empty() {
        ZERO_ID
    } else {
        id
    }
}

/// An object's id: SHA-1 of `KIND LEN\0BYTES`, 40 hex digits.
pub fn object_id(kind: &str, bytes: &[u8]) -> String {
    let mut h = sha1_smol::Sha1::new();
    h.update(format!("{kind} {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    h.digest().to_string()
}

/// Push `updates` atomically to `url`, sending `objects` (kind, bytes) in the pack, and only
/// when the server shows each ref of `unchanged` at the given id ([`ZERO_ID`] or empty: absent)
/// — otherwise `Unsupported`, for git to do. The refs the server refused, with why (git's
/// `--porcelain` words where git would say them: `[rejected] (stale info)` when a ref's old
/// id is not what the server shows); empty when every update landed. By `deadline`, no read
/// waiting more than `idle`.
pub fn push(
    url: &GitUrl,
    updates: &[Update],
    objects: &[(&str, &[u8])],
    unchanged: &[(&str, &str)],
    deadline: Instant,
    idle: Duration,
) -> Result<Vec<(String, String)>, V2Error> {
    if objects.iter().any(|(_, b)| b.len() > OBJECT_MAX) || updates.is_empty() {
        return Err(V2Error::Unsupported("not a small push".into()));
    }
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(V2Error::TooSlow("no time was left to connect".into()));
    }
    let (mut writer, reader) = crate::v2::connect(url, left)?;
    let mut reader = BufReader::with_capacity(crate::v2::PKT_MAX, reader);
    let request = format!("git-receive-pack {}\0host={}\0", url.path, url.authority);
    let left = deadline.saturating_duration_since(Instant::now());
    writer.set_write_timeout(Some(idle.min(left).max(Duration::from_millis(1))))?;
    writer.write_all(&pkt(request.as_bytes())).map_err(|e| slow(e, left <= idle, idle))?;
    let mut r = Deadlined { inner: &mut reader, deadline, idle, by_deadline: false };
    let advertised = read_receive_advertisement(&mut r, ADVERTISEMENT_MAX).map_err(|e| r.why(e))?;
    for cap in ["report-status", "atomic"] {
        if !advertised.caps.iter().any(|c| c == cap) {
            return Err(V2Error::Unsupported(format!("the server offers no {cap}")));
        }
    }
    if advertised.caps.iter().any(|c| c.starts_with("object-format=") && c != "object-format=sha1") {
        return Err(V2Error::Unsupported("a repository of another object format".into()));
    }
    let shows = |name: &str| advertised.refs.get(name).map_or(ZERO_ID, String::as_str);
    if let Some((name, _)) = unchanged.iter().find(|(name, id)| shows(name) != absent(id)) {
        return Err(V2Error::Unsupported(format!("{name} moved: git pushes it")));
    }
    // As git's `--force-with-lease`: an old id that is not what the server shows is refused
    // here, and with `--atomic` nothing is sent.
    let stale: Vec<(String, String)> = updates
        .iter()
        .filter(|u| shows(&u.name) != absent(&u.old))
        .map(|u| (u.name.clone(), "[rejected] (stale info)".to_string()))
        .collect();
    if !stale.is_empty() {
        // A flush: no command, the server ends the session.
        let _ = writer.write_all(b"0000");
        return Ok(stale);
    }
    let mut req = Vec::new();
    for (i, u) in updates.iter().enumerate() {
        let caps = if i == 0 { "\0report-status atomic agent=cn" } else { "" };
        req.extend(pkt(format!("{} {} {}{caps}\n", absent(&u.old), u.new, u.name).as_bytes()));
    }
    req.extend_from_slice(b"0000");
    req.extend(pack(objects));
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(V2Error::TooSlow("no time was left to push".into()));
    }
    writer.set_write_timeout(Some(idle.min(left)))?;
    writer.write_all(&req).map_err(|e| slow(e, left <= idle, idle))?;
    let mut r = Deadlined { inner: &mut reader, deadline, idle, by_deadline: false };
    let refused = read_report(&mut r).map_err(|e| r.why(e))?;
    Ok(refused)
}

/// A pack of `objects` (kind, bytes), each whole, zlib-compressed; its SHA-1 trailer.
pub fn pack(objects: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = b"PACK".to_vec();
    out.extend_from_slice(&2u32.to_be_bytes());
    out.extend_from_slice(&(objects.len() as u32).to_be_bytes());
    for (kind, bytes) in objects {
        let kind: u8 = match *kind {
            "commit" => 1,
            "tree" => 2,
            "blob" => 3,
            _ => 4,
        };
        let mut size = bytes.len();
        let mut first = (kind << 4) | (size & 0x0f) as u8;
        size >>= 4;
        while size > 0 {
            out.push(first | 0x80);
            first = (size & 0x7f) as u8;
            size >>= 7;
        }
        out.push(first);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        // Writing to a Vec cannot fail.
        let _ = z.write_all(bytes);
        out.extend(z.finish().unwrap_or_default());
    }
    let mut h = sha1_smol::Sha1::new();
    h.update(&out);
    out.extend_from_slice(&h.digest().bytes());
    out
}

/// A receive-pack advertisement up to its flush: each ref (the first line's capabilities
/// after a NUL; an empty repository shows `capabilities^{}`), at most `max` bytes of lines.
pub fn read_receive_advertisement(r: &mut impl Read, max: usize) -> Result<Advertised, V2Error> {
    let mut out = Advertised::default();
    for (i, line) in read_lines(r, max, "an advertisement")?.iter().enumerate() {
        if i == 0 && line.starts_with("version ") {
            return Err(V2Error::Unsupported(format!("receive-pack speaks {line}")));
        }
        let (line, caps) = match line.split_once('\0') {
            Some((l, c)) if i == 0 => (l, Some(c)),
            Some(_) => return Err(bad("capabilities after the first ref")),
            None => (line.as_str(), None),
        };
        if let Some(caps) = caps {
            out.caps = caps.split(' ').filter(|c| !c.is_empty()).map(str::to_string).collect();
        }
        let (id, name) = line.split_once(' ').ok_or_else(|| bad("a ref line without a name"))?;
        if !is_sha1(id) {
            return Err(bad("a ref id that is not SHA-1"));
        }
        if name != "capabilities^{}" && !name.starts_with(".have") {
            out.refs.insert(name.to_string(), id.to_string());
        }
    }
    Ok(out)
}

/// A `report-status` up to its flush: the refs refused, with the server's reason. An unpack
/// that failed is the server's error.
pub fn read_report(r: &mut impl Read) -> Result<Vec<(String, String)>, V2Error> {
    let mut refused = Vec::new();
    let mut seen = 0u64;
    let mut unpacked = false;
    loop {
        match read_pkt(r)? {
            Pkt::Flush if unpacked => return Ok(refused),
            Pkt::Flush => return Err(bad("a report without its unpack line")),
            Pkt::Data(d) => {
                seen += d.len() as u64;
                if seen > CHATTER_MAX {
                    return Err(V2Error::TooLarge(CHATTER_MAX));
                }
                let line = text(&d)?;
                if let Some(status) = line.strip_prefix("unpack ") {
                    if status != "ok" {
                        return Err(V2Error::Server(format!("unpack {}", cn_process::redact::printable_line(status))));
                    }
                    unpacked = true;
                } else if line.starts_with("ok ") {
                } else if let Some(ng) = line.strip_prefix("ng ") {
                    let (name, why) = ng.split_once(' ').unwrap_or((ng, ""));
                    refused.push((name.to_string(), cn_process::redact::printable_line(why).into_owned()));
                } else {
                    return Err(bad("a report line that is neither ok nor ng"));
                }
            }
            _ => return Err(bad("a delimiter in a report")),
        }
    }
}

/// Read the commit `id` from `url` (a v2 fetch of it, in one connection, its pack read here
/// and never stored): its bytes when the server sends it whole and it is at most `max` bytes;
/// `Unsupported` otherwise (git then fetches it).
pub fn read_commit(url: &GitUrl, id: &str, max: usize, deadline: Instant, idle: Duration) -> Result<Vec<u8>, V2Error> {
    let mut session = Session::open(url, deadline, idle)?;
    let mut pack = Vec::new();
    let limit = (max.min(OBJECT_MAX) as u64).saturating_mul(2).saturating_add(4096);
    session.fetch(&[id], &mut pack, limit)?;
    commit_from_pack(&pack, id, max).ok_or_else(|| V2Error::Unsupported("the commit is not whole in the pack".into()))
}

/// The commit `id` out of `pack`, when the pack holds it whole (not as a delta) and its bytes
/// hash to `id`, at most `max` bytes; `None` otherwise. Any bytes read without panicking.
pub fn commit_from_pack(pack: &[u8], id: &str, max: usize) -> Option<Vec<u8>> {
    let body = pack.strip_prefix(b"PACK")?;
    let count = u32::from_be_bytes(body.get(4..8)?.try_into().ok()?);
    let mut at = 12usize;
    for _ in 0..count.min(1024) {
        let mut byte = *pack.get(at)?;
        at += 1;
        let kind = (byte >> 4) & 7;
        let mut size = (byte & 0x0f) as u64;
        let mut shift = 4;
        while byte & 0x80 != 0 {
            byte = *pack.get(at)?;
            at += 1;
            if shift > 56 {
                return None;
            }
            size |= ((byte & 0x7f) as u64) << shift;
            shift += 7;
        }
        // Deltas are not read here: the caller has git fetch.
        if !(1..=4).contains(&kind) || size > OBJECT_MAX as u64 {
            return None;
        }
        let mut z = flate2::Decompress::new(true);
        // One byte more than said, so an object longer than its header says shows.
        let mut out = Vec::with_capacity(size as usize + 1);
        let input = pack.get(at..)?;
        let status = z.decompress_vec(input, &mut out, flate2::FlushDecompress::Finish).ok()?;
        if status != flate2::Status::StreamEnd || out.len() as u64 != size {
            return None;
        }
        at = at.checked_add(usize::try_from(z.total_in()).ok()?)?;
        if kind == 1 && out.len() <= max && object_id("commit", &out) == id {
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v2::tests::lines;

    #[test]
    fn a_receive_pack_advertisement_gives_refs_and_capabilities() {
        let a = "a".repeat(40);
        let ad = lines(&[
            &format!("{a} refs/heads/main\0report-status atomic agent=git/2\n"),
            &format!("{a} refs/cn/lease\n"),
            "0000",
        ]);
        let got = read_receive_advertisement(&mut &ad[..], 4096).unwrap();
        assert_eq!(got.refs.len(), 2);
        assert_eq!(got.caps, ["report-status", "atomic", "agent=git/2"]);
        // An empty repository shows only its capabilities.
        let empty = lines(&[&format!("{ZERO_ID} capabilities^{{}}\0report-status atomic\n"), "0000"]);
        assert!(read_receive_advertisement(&mut &empty[..], 4096).unwrap().refs.is_empty());
        for bad in [
            lines(&["version 1\n", "0000"]),
            lines(&[&format!("{a} refs/x\n"), &format!("{a} refs/y\0atomic\n"), "0000"]),
            lines(&["abc refs/x\0atomic\n", "0000"]),
            lines(&["ERR access denied\n"]),
            lines(&[&format!("{a} refs/x\0atomic\n")]),
        ] {
            assert!(read_receive_advertisement(&mut &bad[..], 4096).is_err(), "{bad:?}");
        }
        let many = lines(&[&format!("{a} refs/x\0atomic\n"), &format!("{a} refs/y\n"), "0000"]);
        assert!(matches!(read_receive_advertisement(&mut &many[..], 60), Err(V2Error::TooLarge(60))));
    }

    #[test]
    fn a_report_names_the_refused_refs_and_a_failed_unpack_is_the_servers_error() {
        let ok = lines(&["unpack ok\n", "ok refs/cn/lease\n", "0000"]);
        assert_eq!(read_report(&mut &ok[..]).unwrap(), vec![]);
        let ng = lines(&["unpack ok\n", "ng refs/cn/lease atomic push failed\n", "ok refs/x\n", "0000"]);
        assert_eq!(read_report(&mut &ng[..]).unwrap(), vec![("refs/cn/lease".into(), "atomic push failed".into())]);
        let failed = lines(&["unpack index-pack abnormal exit\n", "0000"]);
        assert!(matches!(read_report(&mut &failed[..]), Err(V2Error::Server(_))));
        for bad in [lines(&["0000"]), lines(&["unpack ok\n", "what\n", "0000"]), lines(&["unpack ok\n"])] {
            assert!(read_report(&mut &bad[..]).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_commit_is_read_from_a_pack_only_whole_and_by_its_id() {
        let text = b"tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n\nhello\n";
        let id = object_id("commit", text);
        assert_eq!(id, object_id("commit", text), "deterministic");
        let p = pack(&[("tree", b""), ("commit", text)]);
        assert_eq!(commit_from_pack(&p, &id, 1000).as_deref(), Some(&text[..]));
        assert_eq!(commit_from_pack(&p, &id, 10), None, "larger than asked");
        assert_eq!(commit_from_pack(&p, &object_id("commit", b"other"), 1000), None);
        // A blob with the same bytes is not the commit.
        assert_eq!(commit_from_pack(&pack(&[("blob", text)]), &id, 1000), None);
        // A header that says another size than the data has, or a cut pack: nothing.
        let mut lying = p.clone();
        let at = 12 + 2 + 8; // the tree's header and stream: the commit's header next
        lying[at] = lying[at].wrapping_add(1);
        assert_eq!(commit_from_pack(&lying, &id, 1000), None);
        for cut in 0..p.len() - 20 {
            assert_eq!(commit_from_pack(&p[..cut], &id, 1000), None, "{cut}");
        }
        // A delta (type 6) is not read here.
        let mut delta = p.clone();
        delta[12] = (6 << 4) | (delta[12] & 0x0f);
        assert_eq!(commit_from_pack(&delta, &id, 1000), None);
    }
}
