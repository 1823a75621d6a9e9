//! The journal: `journal.jsonl`, one JSON object a line (`ts`, `type`, then the entry's
//! fields), only ever appended to. It is how the agent and its owner answer "what did you
//! do?" and "why?". Decisions go here; debugging goes to `tracing`.
//!
//! Durability: appends are single writes (a crash of cn loses at most a torn last line,
//! sealed on the next open). [`Journal::sync`] makes what was appended survive a power loss
//! (`fdatasync`); the hub's journal calls it after every `decision` entry, and a journal
//! opened with [`Journal::open_synced`] after every append. Cost: `cargo bench -p cn-storage
//! --bench journal` (BENCHMARKS.md). Reads stream line by line (a line over
//! [`LINE_MAX`] bytes is skipped and reported, not held).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use cn_compute::{Answer, Level, ModelError, Outcome, Plan, Store};
use serde_json::{Map, Value};

/// One journal entry under construction.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry(pub Map<String, Value>);

impl Entry {
    /// A new entry of `kind` stamped now.
    pub fn new(kind: &str) -> Self {
        Self::at(&crate::now_rfc3339(), kind)
    }
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
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
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
        self.file.write_all(&self.line)?;
        if self.sync {
            self.file.sync_data()?;
        }
        Ok(())
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
    pub fn scan(path: &Path, mut f: impl FnMut(Result<Entry, Skipped>)) -> io::Result<()> {
        use std::io::{BufRead, Read};
        let at = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(at(e)),
        };
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
                Err(e) => f(Err(Skipped { line: n, error: e.to_string() })),
            }
        }
    }
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

impl Store for JournalStore {
    fn interaction(&mut self, plan: &Plan, answer: &Result<Answer, ModelError>) {
        let mut e = Entry::new("interaction")
            .with("level", plan.level)
            .with("system", plan.system.as_str())
            .with("prompt", plan.prompt.as_str());
        if let Some(item) = &plan.item {
            e = e.with("item", item.as_str());
        }
        self.item = plan.item.clone();
        self.reasoning = answer.as_ref().ok().map(|a| prose(&a.markdown)).filter(|p| !p.is_empty());
        e = match answer {
            Ok(a) => e
                .with("model", a.model.as_str())
                .with("answer", a.markdown.as_str())
                .with("tokens_in", a.tokens_in)
                .with("tokens_out", a.tokens_out)
                .with("elapsed_ms", a.elapsed.as_millis() as u64),
            Err(err) => e.with("error", err.to_string()),
        };
        if let Err(err) = self.interactions.append(&e) {
            tracing::error!(path = %self.interactions.path().display(), %err, "cannot record interaction");
        }
    }

    fn action(&mut self, level: Level, outcome: &Outcome) {
        let mut e = outcome_entry(level, outcome);
        if let Some(item) = &self.item {
            e = e.with("item", item.as_str());
        }
        if let Some(r) = self.reasoning.take() {
            e = e.with("reasoning", r);
        }
        if let Err(err) = self.journal.append(&e) {
            tracing::error!(path = %self.journal.path().display(), %err, "cannot journal action");
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

/// The journal entry for one outcome of a move.
pub fn outcome_entry(level: Level, outcome: &Outcome) -> Entry {
    match outcome {
        Outcome::Acted { call, result } => {
            let e = Entry::new("action")
                .with("level", level)
                .with("tool", call.tool.as_str())
                .with("params", Value::Object(call.params.clone()));
            match result {
                Ok(v) => e.with("outcome", "ok").with("result", v.clone()),
                Err(err) => e.with("outcome", "error").with("error", err.to_string()),
            }
        }
        Outcome::Unparsed(p) => Entry::new("observation")
            .with("level", level)
            .with("summary", "a YAML block of the answer did not parse")
            .with("block", p.block)
            .with("line", p.line)
            .with("error", p.message.as_str()),
        Outcome::AskFailed { level, error } => Entry::new("observation")
            .with("level", *level)
            .with("summary", "the model did not answer")
            .with("error", error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
