//! The journal: `journal.jsonl`, one JSON object a line (`ts`, `type`, then the entry's
//! fields), only ever appended to. It is how the agent and its owner answer "what did you
//! do?" and "why?". Decisions go here; debugging goes to `tracing`.
//!
//! Durability: appends are single writes (a crash of cn loses at most a torn last line,
//! sealed on the next open). A write that fails part-way (a full disk) is ended at once with
//! `~` and a newline, and every append first checks, under its lock, that the file ends a line
//! (sealing it the same way if not, whichever handle or process cut it): the fragment — even
//! one whose JSON happens to be complete — is skipped as one line and never glued to the next
//! entry, and an append that returned an error never reads as an entry. [`Journal::sync`] makes what was appended survive a power loss
//! (`fdatasync`); the hub's journal calls it after every `decision` entry, and a journal
//! opened with [`Journal::open_synced`] after every append. Cost: `cargo bench -p cn-storage
//! --bench journal` (BENCHMARKS.md). Reads stream line by line (a line over
//! [`LINE_MAX`] bytes is skipped and reported, not held).
//!
//! Rotation: [`Journal::rotate_if_due`] renames `X.jsonl` to the next segment `X/NNNNNN.jsonl`
//! (numbered from 1, oldest first) once it passes a size or a day ([`Rotation`]); the next
//! append creates a new `X.jsonl`. Reads ([`Journal::scan`]) stream every segment in order,
//! then the live file. Rotation is a rename under an exclusive lock on the live file, and
//! every append holds a shared lock on it and first checks that its file is still the one at
//! `X.jsonl` (reopening it if not): so no line is lost or lands in a segment after the
//! rotation, whichever processes append at once, and a crash leaves either the old name or
//! the new one, never a copy.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use cn_compute::{Answer, Level, ModelError, Outcome, Plan, Store};
use serde_json::{Map, Value};

/// One journal entry: `ts`, `type`, then its fields. Written from a [`Typed`] record
/// ([`Entry::of`]); read back as this map. `==` compares the fields, not their order: to pin
/// a line, compare [`Entry::json_line`]s.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry(pub Map<String, Value>);

/// A typed journal record: a struct whose fields, serialized in their order (an absent one
/// skipped with `skip_serializing_if`), are the entry's fields after `ts` and `type`.
pub trait Typed: serde::Serialize {
    /// The entry's `type`.
    fn kind(&self) -> &'static str;
}

impl Entry {
    /// The entry of `record`, stamped now.
    pub fn of<T: Typed + ?Sized>(record: &T) -> Self {
        Self::of_at(record, &crate::now_rfc3339())
    }

    /// The entry of `record`, stamped `ts`.
    pub fn of_at<T: Typed + ?Sized>(record: &T, ts: &str) -> Self {
        let mut e = Self::at(ts, record.kind());
        match serde_json::to_value(record) {
            Ok(Value::Object(fields)) => e.0.extend(fields),
            other => tracing::error!(kind = record.kind(), ?other, "a journal record that is no struct"),
        }
        e
    }

    /// An entry of `kind` stamped now, its fields to come: the low-level way, for tests that
    /// write lines as any writer may have (every writer of cn writes a [`Typed`] record).
    pub fn new(kind: &str) -> Self {
        Self::at(&crate::now_rfc3339(), kind)
    }

    /// An entry of `kind` stamped `ts`, its fields to come: for a reader's tests and a
    /// [`Typed`] record's own making.
    pub fn at(ts: &str, kind: &str) -> Self {
        let mut m = Map::new();
        m.insert("ts".into(), Value::String(ts.into()));
        m.insert("type".into(), Value::String(kind.into()));
        Entry(m)
    }
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.0.insert(key.into(), value.into());
        self
    }
    pub fn kind(&self) -> &str {
        self.0.get("type").and_then(Value::as_str).unwrap_or("")
    }

    /// Its line as the journal holds it (without the newline): what a reader parses.
    pub fn json_line(&self) -> String {
        // A map of JSON values always serializes.
        serde_json::to_string(&self.0).unwrap_or_default()
    }
}

/// Longest journal line a reader takes; a longer one is skipped (and reported).
pub const LINE_MAX: usize = 16 << 20;

/// An append-only JSONL file.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
    line: Vec<u8>,
    sync: bool,
}

impl Journal {
    /// [`Journal::open`], with every append made durable (`fdatasync`) before it returns.
    pub fn open_synced(path: impl Into<PathBuf>) -> io::Result<Self> {
        let mut j = Self::open(path)?;
        j.sync = true;
        Ok(j)
    }

    pub fn open(path: impl Into<PathBuf>) -> io::Result<Self> {
        let path = path.into();
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = open_append(&path)?;
        let mut journal = Journal { path, file, line: Vec::with_capacity(512), sync: false };
        journal.seal_torn_line()?;
        Ok(journal)
    }

    /// A crash may have left a partial last line; end it, so the next entry starts a line of
    /// its own instead of being glued to the torn one.
    fn seal_torn_line(&mut self) -> io::Result<()> {
        use std::io::{Read, Seek, SeekFrom};
        let len = self.file.metadata()?.len();
        if len == 0 {
            return Ok(());
        }
        let mut reader = File::open(&self.path)?;
        reader.seek(SeekFrom::Start(len - 1))?;
        let mut last = [0u8; 1];
        reader.read_exact(&mut last)?;
        if last[0] != b'\n' {
            self.file.write_all(b"\n")?;
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Make every append so far durable (`fdatasync`).
    pub fn sync(&self) -> io::Result<()> {
        self.file.sync_data()
    }

    /// Append one entry as one line with a single write, so a crash leaves at most a
    /// partial last line.
    pub fn append(&mut self, entry: &Entry) -> io::Result<()> {
        self.append_value(&entry.0)
    }

    pub fn append_value<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> io::Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, value).map_err(io::Error::other)?;
        self.line.push(b'\n');
        let len = self.follow_rotation()?;
        let written = self.seal_if_cut(len).and_then(|()| self.write_line());
        let synced = written.and_then(|()| if self.sync { self.file.sync_data() } else { Ok(()) });
        let unlocked = self.file.unlock();
        synced.and(unlocked)
    }

    /// What ends a line cut short: `~` makes it no JSON, so it is skipped whole.
    const SEAL: &'static [u8] = b"~\n";

    /// If the file (`len` bytes) does not end a line, a write was cut short: end it.
    fn seal_if_cut(&mut self, len: u64) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let mut last = [b'\n'];
        if len > 0 {
            self.file.read_at(&mut last, len - 1)?;
        }
        if last[0] == b'\n' {
            return Ok(());
        }
        self.file.write_all(Self::SEAL)
    }

    /// Write `self.line`; if the write fails part-way, end the fragment at once if the disk
    /// takes it (else the next append does).
    fn write_line(&mut self) -> io::Result<()> {
        let mut done = 0;
        while done < self.line.len() {
            match self.file.write(&self.line[done..]) {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    if done > 0 {
                        let _ = self.file.write_all(Self::SEAL);
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Take the shared append lock on the file at `self.path`, reopening it first if a
    /// rotation renamed the one this handle holds (the lock is held on return); the file's
    /// length.
    fn follow_rotation(&mut self) -> io::Result<u64> {
        loop {
            self.file.lock_shared()?;
            let mine = self.file.metadata()?;
            match std::fs::metadata(&self.path) {
                Ok(now) if now.dev() == mine.dev() && now.ino() == mine.ino() => return Ok(mine.len()),
                _ => {
                    // Rotated (or removed) under us: append to the file now at the path.
                    let _ = self.file.unlock();
                    self.file = open_append(&self.path)?;
                }
            }
        }
    }

    /// The segments of the journal at `path`, oldest first: `X/NNNNNN.jsonl` beside
    /// `X.jsonl`.
    pub fn segments(path: &Path) -> io::Result<Vec<PathBuf>> {
        let dir = segment_dir(path);
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", dir.display()))),
        };
        let mut numbered: Vec<(u64, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name();
                let n = name.to_str()?.strip_suffix(".jsonl")?.parse::<u64>().ok()?;
                Some((n, e.path()))
            })
            .collect();
        numbered.sort();
        Ok(numbered.into_iter().map(|(_, p)| p).collect())
    }

    /// The journal's last `max` bytes or fewer, across the rotation: the live file's tail,
    /// after the last segment's when the live file is shorter. May start mid-line.
    pub fn tail(path: &Path, max: u64) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        let live_len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if live_len < max {
            if let Some(last) = Self::segments(path)?.last() {
                read_tail(last, max - live_len, &mut out)?;
            }
        }
        read_tail(path, max.min(live_len), &mut out)?;
        Ok(out)
    }

    /// The segment whose file is `id` (`(device, inode)`, see [`file_id`]): where the live
    /// file went when it rotated.
    pub fn segment_of(path: &Path, id: (u64, u64)) -> Option<PathBuf> {
        let segments = Self::segments(path).ok()?;
        segments.into_iter().rev().find(|s| file_id(s) == Some(id))
    }

    /// Rename the journal at `path` to its next segment if `rotation` says it is due (its size
    /// reached `rotation.bytes`, or `rotation.daily` and its first entry is from an earlier
    /// UTC day than today's). Returns the segment it became, if any. Safe with
    /// any number of processes appending or rotating at once (see the module's doc).
    pub fn rotate_if_due(path: &Path, rotation: &Rotation) -> io::Result<Option<PathBuf>> {
        let at = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let file = match OpenOptions::new().read(true).open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(at(e)),
        };
        file.lock().map_err(at)?;
        let mine = file.metadata().map_err(at)?;
        let still_live = std::fs::metadata(path).is_ok_and(|m| m.dev() == mine.dev() && m.ino() == mine.ino());
        if !still_live || mine.len() == 0 || !rotation.due(mine.len(), || first_day(&file)) {
            return Ok(None);
        }
        let dir = segment_dir(path);
        std::fs::create_dir_all(&dir).map_err(at)?;
        let next = Self::segments(path)?
            .last()
            .and_then(|p| p.file_stem()?.to_str()?.parse::<u64>().ok())
            .map_or(1, |n| n + 1);
        let segment = dir.join(format!("{next:06}.jsonl"));
        // What was appended is on disk before the name changes, and the rename is durable
        // before the lock is released: a power loss keeps one name or the other.
        file.sync_data().map_err(at)?;
        std::fs::rename(path, &segment).map_err(at)?;
        for d in [Some(dir.as_path()), path.parent()].into_iter().flatten() {
            File::open(d).and_then(|d| d.sync_all()).map_err(at)?;
        }
        drop(file);
        Ok(Some(segment))
    }

    /// Read every whole entry; lines that are not a JSON object are skipped and reported.
    pub fn read(path: &Path) -> io::Result<JournalRead> {
        let mut out = JournalRead::default();
        Self::scan(path, |line| match line {
            Ok(e) => out.entries.push(e),
            Err(s) => out.skipped.push(s),
        })?;
        Ok(out)
    }

    /// Stream the journal at `path` line by line: each whole entry, or why a line was
    /// skipped. Memory stays one line (at most [`LINE_MAX`]), whatever the file's size.
    /// Segments first, oldest first, then the live file; `Skipped::line` counts lines within
    /// the file that held it.
    pub fn scan(path: &Path, mut f: impl FnMut(Result<Entry, Skipped>)) -> io::Result<()> {
        let at = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        // The live file is opened before the segments are listed: a rotation in between makes
        // it a segment too, read once (as the open file), after the others.
        let live = match File::open(path) {
            Ok(f) => Some(f),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(at(e)),
        };
        let live_id = match &live {
            Some(file) => {
                let m = file.metadata().map_err(at)?;
                Some((m.dev(), m.ino()))
            }
            None => None,
        };
        for segment in Self::segments(path)? {
            let file = match File::open(&segment) {
                Ok(f) => f,
                // Removed by hand between the listing and now: nothing to read.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", segment.display()))),
            };
            let meta = file.metadata()?;
            if Some((meta.dev(), meta.ino())) == live_id {
                continue;
            }
            Self::scan_file(&segment, file, &mut f)?;
        }
        match live {
            Some(file) => Self::scan_file(path, file, &mut f),
            None => Ok(()),
        }
    }

    fn scan_file(path: &Path, file: File, f: &mut impl FnMut(Result<Entry, Skipped>)) -> io::Result<()> {
        use std::io::{BufRead, Read};
        let at = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let mut reader = io::BufReader::with_capacity(64 * 1024, file);
        let mut line = Vec::new();
        let mut n = 0;
        loop {
            line.clear();
            n += 1;
            // Read up to LINE_MAX + 1 bytes of the line; past that, skip to its end.
            let read = (&mut reader).take(LINE_MAX as u64 + 1).read_until(b'\n', &mut line).map_err(at)?;
            if read == 0 {
                return Ok(());
            }
            if line.len() > LINE_MAX && line.last() != Some(&b'\n') {
                let mut sink = Vec::new();
                loop {
                    sink.clear();
                    let more = (&mut reader).take(1 << 20).read_until(b'\n', &mut sink).map_err(at)?;
                    if more == 0 || sink.last() == Some(&b'\n') {
                        break;
                    }
                }
                f(Err(Skipped { line: n, error: format!("longer than {LINE_MAX} bytes") }));
                continue;
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Value>(&line) {
                Ok(Value::Object(m)) => f(Ok(Entry(m))),
                Ok(_) => f(Err(Skipped { line: n, error: "not a JSON object".into() })),
                Err(e) => f(Err(Skipped { line: n, error: cn_compute::chain(&e) })),
            }
        }
    }
}

/// A file's identity, `(device, inode)`: the same across a rename.
pub fn file_id(path: &Path) -> Option<(u64, u64)> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Append the last `max` bytes of the file at `path` (if it exists) to `out`.
fn read_tail(path: &Path, max: u64, out: &mut Vec<u8>) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    };
    let len = file.metadata()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(max)))?;
    file.take(max).read_to_end(out)?;
    Ok(())
}

fn open_append(path: &Path) -> io::Result<File> {
    // Readable too: an append checks that the file ends a line.
    OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

/// Where the segments of the journal at `X.jsonl` live: the directory `X` beside it.
pub fn segment_dir(path: &Path) -> PathBuf {
    path.with_extension("")
}

/// The UTC day (`YYYY-MM-DD`) of a journal file's first entry, if it has one.
fn first_day(file: &File) -> Option<String> {
    use std::io::{BufRead, Read};
    // The first entry with a time in the file's first 64 KiB (a sealed fragment or a blank
    // line may come first).
    let mut reader = io::BufReader::new(file.try_clone().ok()?.take(64 * 1024));
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        let Ok(v) = serde_json::from_slice::<Value>(&line) else { continue };
        if let Some(day) = v.get("ts").and_then(Value::as_str).and_then(|t| t.get(..10)) {
            return Some(day.to_string());
        }
    }
}

/// When the journal moves to a new file (`journal:` in cn.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rotation {
    /// Rotate once the live file holds this many bytes (0: never by size).
    pub bytes: u64,
    /// Rotate once the live file's first entry is from an earlier UTC day.
    pub daily: bool,
}

impl Rotation {
    fn due(&self, len: u64, first_day: impl FnOnce() -> Option<String>) -> bool {
        (self.bytes > 0 && len >= self.bytes) || (self.daily && first_day().is_some_and(|d| d < today()))
    }
}

/// Today's UTC date, `YYYY-MM-DD`.
fn today() -> String {
    crate::now_rfc3339().get(..10).unwrap_or_default().to_string()
}

/// What reading a journal found.
#[derive(Debug, Default)]
pub struct JournalRead {
    pub entries: Vec<Entry>,
    pub skipped: Vec<Skipped>,
}

/// A line a reader had to skip (a crash's partial last line, or a hand edit gone wrong).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub line: usize,
    pub error: String,
}

/// The kernel's [`Store`] on disk: actions go to the journal; every model interaction
/// (prompt, answer, model, tokens, time) goes to `interactions.jsonl` beside it, since
/// prompts are too large for the journal the owner reads.
pub struct JournalStore {
    pub journal: Journal,
    pub interactions: Journal,
    /// The item the last interaction was about: its actions are journaled under it.
    item: Option<String>,
    /// The model's prose around its tool calls in that interaction (its reasoning), given to
    /// the first action that follows.
    reasoning: Option<String>,
}

impl JournalStore {
    /// Open `dir/journal.jsonl` and `dir/interactions.jsonl` (dir is a hub's `state/`).
    pub fn open(dir: &Path) -> io::Result<Self> {
        Ok(JournalStore {
            journal: Journal::open(dir.join("journal.jsonl"))?,
            interactions: Journal::open(dir.join("interactions.jsonl"))?,
            item: None,
            reasoning: None,
        })
    }
}

/// An `interaction` entry (`state/interactions.jsonl`): one model call, its plan and its
/// answer (or the error).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Interaction<'a> {
    pub level: Level,
    pub system: &'a str,
    pub prompt: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub item: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Typed for Interaction<'_> {
    fn kind(&self) -> &'static str {
        "interaction"
    }
}

impl<'a> Interaction<'a> {
    /// The call of `plan` that `answer` ended.
    pub fn of(plan: &'a Plan, answer: &'a Result<Answer, ModelError>) -> Self {
        let mut i = Interaction {
            level: plan.level,
            system: &plan.system,
            prompt: &plan.prompt,
            item: plan.item.as_deref(),
            model: None,
            answer: None,
            tokens_in: None,
            tokens_out: None,
            elapsed_ms: None,
            error: None,
        };
        match answer {
            Ok(a) => {
                (i.model, i.answer) = (Some(a.model.as_str()), Some(a.markdown.as_str()));
                (i.tokens_in, i.tokens_out) = (Some(a.tokens_in), Some(a.tokens_out));
                i.elapsed_ms = Some(a.elapsed.as_millis() as u64);
            }
            Err(err) => i.error = Some(cn_compute::chain(&err)),
        }
        i
    }
}

/// The kernel's entry for one outcome of a move: an `action` (a tool call and its result),
/// or an `observation` (a block that did not parse, a model that did not answer).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Moved<'a> {
    Action {
        level: Level,
        tool: &'a str,
        /// The params and the result as JSON: the journal is an edge.
        params: Map<String, Value>,
        outcome: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        item: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
    },
    Unparsed {
        level: Level,
        summary: &'static str,
        block: usize,
        line: usize,
        error: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        item: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
    },
    AskFailed {
        level: Level,
        summary: &'static str,
        error: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        item: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        reasoning: Option<String>,
    },
}

impl Typed for Moved<'_> {
    fn kind(&self) -> &'static str {
        match self {
            Moved::Action { .. } => "action",
            Moved::Unparsed { .. } | Moved::AskFailed { .. } => "observation",
        }
    }
}

impl<'a> Moved<'a> {
    /// The entry of `outcome` at `level`, about `item` when known.
    pub fn of(level: Level, outcome: &'a Outcome, item: Option<&'a str>) -> Self {
        match outcome {
            Outcome::Acted { call, result } => {
                // A call cn did not carry out as asked (a reply the vetting withheld, handed
                // up instead) says so: it is not `ok`.
                let (outcome, result, error) = match result.as_ref().map(cn_compute::Returned::to_json) {
                    Ok(v) if v.get("withheld").is_some() => ("withheld", Some(v), None),
                    Ok(v) => ("ok", Some(v), None),
                    Err(err) => ("error", None, Some(cn_compute::chain(&err))),
                };
                let (tool, params) = (call.tool.as_str(), call.params.to_json());
                Moved::Action { level, tool, params, outcome, result, error, item, reasoning: None }
            }
            Outcome::Unparsed(p) => Moved::Unparsed {
                level,
                summary: "a YAML block of the answer did not parse",
                block: p.block,
                line: p.line,
                error: &p.message,
                item,
                reasoning: None,
            },
            Outcome::AskFailed { level, error } => Moved::AskFailed {
                level: *level,
                summary: "the model did not answer",
                error: cn_compute::chain(&error),
                item,
                reasoning: None,
            },
        }
    }

    /// With the model's prose around its call.
    pub fn reasoning(mut self, why: Option<String>) -> Self {
        match &mut self {
            Moved::Action { reasoning, .. }
            | Moved::Unparsed { reasoning, .. }
            | Moved::AskFailed { reasoning, .. } => *reasoning = why,
        }
        self
    }
}

impl Store for JournalStore {
    fn interaction(&mut self, plan: &Plan, answer: &Result<Answer, ModelError>) {
        let e = Entry::of(&Interaction::of(plan, answer));
        self.item = plan.item.clone();
        self.reasoning = answer.as_ref().ok().map(|a| prose(&a.markdown)).filter(|p| !p.is_empty());
        if let Err(err) = self.interactions.append(&e) {
            tracing::error!(path = %self.interactions.path().display(), err = %cn_compute::Chain(&err), "cannot record interaction");
        }
    }

    fn action(&mut self, level: Level, outcome: &Outcome) {
        let e = Entry::of(&Moved::of(level, outcome, self.item.as_deref()).reasoning(self.reasoning.take()));
        if let Err(err) = self.journal.append(&e) {
            tracing::error!(path = %self.journal.path().display(), err = %cn_compute::Chain(&err), "cannot journal action");
        }
    }
}

/// The prose of a model's markdown answer — what it said around its fenced tool calls —
/// on one line, at most 500 characters.
pub fn prose(markdown: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced && !line.trim().is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(line.trim());
        }
    }
    if out.chars().count() > 500 {
        out = out.chars().take(500).collect::<String>() + "…";
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kernel's entries, byte for byte what they were when built field by field.
    #[test]
    fn the_kernels_entries_keep_their_lines() {
        use cn_compute::{ParseError, ToolCall, ToolError};
        const TS: &str = "2026-01-06T15:00:00Z";
        let line = Entry::json_line;
        let plan =
            Plan { level: 3, system: "s".into(), prompt: "p".into(), item: Some("it-1".into()), ..Plan::default() };
        let answer = Ok(Answer {
            markdown: "ok".into(),
            model: "m".into(),
            tokens_in: 5,
            tokens_out: 2,
            elapsed: std::time::Duration::from_millis(40),
        });
        assert_eq!(
            line(&Entry::of_at(&Interaction::of(&plan, &answer), TS)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"interaction","level":3,"system":"s","prompt":"p","item":"it-1","model":"m","answer":"ok","tokens_in":5,"tokens_out":2,"elapsed_ms":40}"#
        );
        let failed = Err(ModelError::Timeout("60 s".into()));
        let plan = Plan { item: None, ..plan };
        assert_eq!(
            line(&Entry::of_at(&Interaction::of(&plan, &failed), TS)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"interaction","level":3,"system":"s","prompt":"p","error":"timed out: 60 s"}"#
        );

        let mut params = Map::new();
        params.insert("message".into(), "hi".into());
        let call = ToolCall::new("reply", params);
        let acted = Outcome::Acted { call: call.clone(), result: Ok(serde_json::json!({"gtd": "do"}).into()) };
        assert_eq!(
            line(&Entry::of_at(&Moved::of(2, &acted, Some("it-1")).reasoning(Some("because".into())), TS)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"action","level":2,"tool":"reply","params":{"message":"hi"},"outcome":"ok","result":{"gtd":"do"},"item":"it-1","reasoning":"because"}"#
        );
        let refused = Outcome::Acted { call, result: Err(ToolError::Denied("level 1".into())) };
        assert_eq!(
            line(&Entry::of_at(&Moved::of(1, &refused, None), TS)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"action","level":1,"tool":"reply","params":{"message":"hi"},"outcome":"error","error":"not allowed: level 1"}"#
        );
        let unparsed = Outcome::Unparsed(ParseError { block: 1, line: 4, message: "bad".into() });
        assert_eq!(
            line(&Entry::of_at(&Moved::of(2, &unparsed, Some("it-1")), TS)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"observation","level":2,"summary":"a YAML block of the answer did not parse","block":1,"line":4,"error":"bad","item":"it-1"}"#
        );
        let silent = Outcome::AskFailed { level: 3, error: ModelError::Connect("refused".into()) };
        assert_eq!(
            line(&Entry::of_at(&Moved::of(2, &silent, None), TS)),
            r#"{"ts":"2026-01-06T15:00:00Z","type":"observation","level":3,"summary":"the model did not answer","error":"could not connect: refused"}"#
        );
    }

    #[test]
    fn prose_is_the_answer_without_its_tool_calls() {
        let md = "I'll answer the owner.\n\n```yaml\ntool: reply\nmessage: hi\n```\nDone.\n";
        assert_eq!(prose(md), "I'll answer the owner. Done.");
    }

    #[test]
    fn appends_lines_and_reader_skips_a_partial_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("journal.jsonl");
        let mut j = Journal::open(&p).unwrap();
        j.append(&Entry::new("decision").with("summary", "a")).unwrap();
        j.append(&Entry::new("action").with("tool", "x")).unwrap();
        // Simulate a crash mid-write.
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(b"{\"ts\":\"2026").unwrap();
        let read = Journal::read(&p).unwrap();
        assert_eq!(read.entries.len(), 2);
        assert_eq!(read.entries[0].kind(), "decision");
        assert_eq!(read.entries[0].0.keys().take(2).collect::<Vec<_>>(), ["ts", "type"]);
        assert_eq!(read.skipped.len(), 1);
        assert_eq!(read.skipped[0].line, 3);
        // A new entry after the torn line still reads.
        Journal::open(&p).unwrap().append(&Entry::new("observation")).unwrap();
        let read = Journal::read(&p).unwrap();
        assert_eq!(read.entries.len(), 3, "only the torn line is lost: {:?}", read.skipped);
        assert_eq!(read.entries[2].kind(), "observation");
    }

    #[test]
    fn a_line_another_writer_cut_short_is_sealed_before_the_next_entry() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("journal.jsonl");
        let mut j = Journal::open(&p).unwrap();
        j.append(&Entry::new("decision").with("summary", "a")).unwrap();
        // Another handle's write failed just before its newline (a full disk): its JSON is
        // complete, but the append returned an error, so it must not read as an entry.
        let mut other = OpenOptions::new().append(true).open(&p).unwrap();
        other.write_all(br#"{"ts":"2026-11-24T05:00:00Z","type":"decision","summary":"failed"}"#).unwrap();
        // This handle (open before the cut) appends next: not glued, not resurrected.
        j.append(&Entry::new("observation").with("summary", "b")).unwrap();
        j.append(&Entry::new("observation").with("summary", "c")).unwrap();
        let read = Journal::read(&p).unwrap();
        let summaries: Vec<&str> = read.entries.iter().filter_map(|e| e.0.get("summary")?.as_str()).collect();
        assert_eq!(summaries, ["a", "b", "c"], "skipped: {:?}", read.skipped);
        assert_eq!(read.skipped.len(), 1, "the fragment is one skipped line");
    }
}

#[cfg(test)]
mod scan_tests {
    use super::*;

    #[test]
    fn a_line_over_the_limit_is_skipped_not_held_and_the_rest_reads() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("journal.jsonl");
        let mut j = Journal::open_synced(&p).unwrap();
        j.append(&Entry::new("decision").with("summary", "before")).unwrap();
        let mut f = OpenOptions::new().append(true).open(&p).unwrap();
        f.write_all(&vec![b'x'; LINE_MAX + 10]).unwrap();
        f.write_all(b"\n\xff\xfe not json\n").unwrap();
        j.append(&Entry::new("decision").with("summary", "after")).unwrap();
        let read = Journal::read(&p).unwrap();
        let summaries: Vec<_> = read.entries.iter().map(|e| e.0["summary"].clone()).collect();
        assert_eq!(summaries, ["before", "after"]);
        assert_eq!(read.skipped.len(), 2, "{:?}", read.skipped);
        assert!(read.skipped[0].error.contains("longer than"));
        assert_eq!((read.skipped[0].line, read.skipped[1].line), (2, 3));
    }
}

#[cfg(test)]
mod rotation_tests {
    use super::*;

    fn summaries(p: &Path) -> Vec<String> {
        let read = Journal::read(p).unwrap();
        assert!(read.skipped.is_empty(), "{:?}", read.skipped);
        read.entries.iter().map(|e| e.0["summary"].as_str().unwrap().to_string()).collect()
    }

    #[test]
    fn a_journal_past_its_size_becomes_a_segment_and_reads_stream_across_them() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("journal.jsonl");
        let rotation = Rotation { bytes: 200, daily: false };
        // One long-lived handle (the daemon's) and one per entry (a command's).
        let mut held = Journal::open(&p).unwrap();
        let mut segments = Vec::new();
        for i in 0..30 {
            if i % 2 == 0 {
                held.append(&Entry::new("decision").with("summary", format!("e{i}"))).unwrap();
            } else {
                Journal::open(&p).unwrap().append(&Entry::new("decision").with("summary", format!("e{i}"))).unwrap();
            }
            segments.extend(Journal::rotate_if_due(&p, &rotation).unwrap());
        }
        assert!(segments.len() >= 5, "{segments:?}");
        assert_eq!(Journal::segments(&p).unwrap(), segments, "numbered in order");
        assert_eq!(segments[0], dir.path().join("journal/000001.jsonl"));
        let expected: Vec<String> = (0..30).map(|i| format!("e{i}")).collect();
        assert_eq!(summaries(&p), expected, "every entry, once, in order");
        for s in &segments {
            assert!(std::fs::metadata(s).unwrap().len() >= 200, "{}", s.display());
        }
        // Below the size nothing rotates.
        assert_eq!(Journal::rotate_if_due(&p, &Rotation { bytes: 1 << 20, daily: false }).unwrap(), None);
    }

    #[test]
    fn a_journal_begun_on_an_earlier_day_rotates_daily_and_a_missing_or_empty_one_never() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("journal.jsonl");
        let daily = Rotation { bytes: 0, daily: true };
        assert_eq!(Journal::rotate_if_due(&p, &daily).unwrap(), None);
        let mut j = Journal::open(&p).unwrap();
        assert_eq!(Journal::rotate_if_due(&p, &daily).unwrap(), None, "empty");
        j.append(&Entry::new("decision").with("summary", "today")).unwrap();
        assert_eq!(Journal::rotate_if_due(&p, &daily).unwrap(), None, "begun today");
        std::fs::write(&p, "{\"ts\":\"2020-01-01T00:00:00Z\",\"type\":\"decision\",\"summary\":\"old\"}\n").unwrap();
        let seg = Journal::rotate_if_due(&p, &daily).unwrap().expect("rotated");
        assert!(!p.exists());
        j.append(&Entry::new("decision").with("summary", "new")).unwrap();
        assert_eq!(summaries(&p), ["old", "new"]);
        assert_eq!(std::fs::read_to_string(seg).unwrap().lines().count(), 1);
    }

    #[test]
    fn writers_in_threads_lose_nothing_while_others_rotate() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("journal.jsonl");
        let rotation = Rotation { bytes: 2048, daily: false };
        std::thread::scope(|s| {
            for w in 0..3 {
                let p = &p;
                s.spawn(move || {
                    let mut j = Journal::open(p).unwrap();
                    for i in 0..300 {
                        j.append(&Entry::new("decision").with("summary", format!("{w}-{i}"))).unwrap();
                        if i % 7 == 0 {
                            Journal::rotate_if_due(p, &rotation).unwrap();
                        }
                    }
                });
            }
        });
        let all = summaries(&p);
        assert_eq!(all.len(), 900);
        for w in 0..3 {
            let mine: Vec<&String> = all.iter().filter(|s| s.starts_with(&format!("{w}-"))).collect();
            let expected: Vec<String> = (0..300).map(|i| format!("{w}-{i}")).collect();
            assert_eq!(mine, expected.iter().collect::<Vec<_>>(), "writer {w}'s entries, each once, in order");
        }
        assert!(Journal::segments(&p).unwrap().len() > 10);
    }
}
