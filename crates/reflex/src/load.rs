//! Loading `state/reflexes/*.yaml`: every file is checked, a broken one is reported (file,
//! line, field) and skipped, the rest load. [`Catalog`] is the loaded set plus what the
//! engine matches with: one `RegexSet` of every level-0 pattern, and the lists of level-1 and
//! level-2 candidates. A changed, added or removed file is noticed by a cheap stat of the
//! directory's files and the whole catalog is rebuilt (files are few; a rebuild is
//! milliseconds).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use cn_tools::Registry;
use regex::RegexSet;

use crate::reflex::{self, Reflex, TriggerKind};

/// What is wrong with one reflex file, and where.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct LoadError {
    pub file: PathBuf,
    /// 1-based; `None` when the place is unknown.
    pub line: Option<usize>,
    /// The field's path (`trigger.pattern`, `pipeline[1].action`); empty for syntax errors.
    pub field: String,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": `{}`", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

impl LoadError {
    /// serde_yaml_ng says `path: message at line L column C`; split that into our fields.
    pub(crate) fn from_yaml(file: &Path, e: &serde_yaml_ng::Error) -> LoadError {
        let mut message = e.to_string();
        if let Some(at) = message.rfind(" at line ") {
            message.truncate(at);
        }
        let (field, message) = match message.split_once(": ") {
            Some((path, rest)) if !path.is_empty() && !path.contains(' ') => (path.to_string(), rest.to_string()),
            _ => (String::new(), message),
        };
        LoadError { file: file.to_path_buf(), line: e.location().map(|l| l.line()), field, message }
    }
}

/// The 1-based line of a field (`trigger.pattern`, `pipeline[2].output`) in block-style
/// YAML; the nearest enclosing field's line when the field itself is not on a line of its
/// own (flow style), `None` when not even the first key is found.
pub(crate) fn locate(text: &str, field: &str) -> Option<usize> {
    // (raw indent, effective indent, is a `- ` item line, content after indent and dash)
    let lines: Vec<(usize, usize, bool, &str)> = text
        .lines()
        .map(|l| {
            let trimmed = l.trim_start();
            let indent = l.len() - trimmed.len();
            match trimmed.strip_prefix("- ").or_else(|| (trimmed == "-").then_some("")) {
                Some(rest) => {
                    let rest_trimmed = rest.trim_start();
                    (indent, indent + 2 + rest.len() - rest_trimmed.len(), true, rest_trimmed)
                }
                None => (indent, indent, false, trimmed),
            }
        })
        .collect();
    let blank = |i: usize| lines[i].3.is_empty() || lines[i].3.starts_with('#');
    let mut lo = 0;
    let mut hi = lines.len();
    let mut found = None;
    for seg in field.split('.').flat_map(|s| {
        let (key, idx) = match s.split_once('[') {
            Some((k, rest)) => (k, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (s, None),
        };
        std::iter::once(Err(key)).chain(idx.map(Ok))
    }) {
        match seg {
            Err("") => {}
            Err(key) => {
                let Some(level) = (lo..hi).filter(|&i| !blank(i)).map(|i| lines[i].1).min() else { return found };
                let Some(at) = (lo..hi).find(|&i| {
                    let (_, eff, _, c) = lines[i];
                    eff == level && (c.starts_with(&format!("{key}:")) || c.starts_with(&format!("\"{key}\":")))
                }) else {
                    return found;
                };
                found = Some(at + 1);
                let end = (at + 1..hi).find(|&i| !blank(i) && lines[i].1 <= level && !(lines[i].2 && lines[i].0 == level)).unwrap_or(hi);
                lo = at + 1;
                hi = end;
            }
            Ok(index) => {
                let items: Vec<usize> = (lo..hi).filter(|&i| lines[i].2).collect();
                let Some(dash) = items.iter().map(|&i| lines[i].0).min() else { return found };
                let starts: Vec<usize> = items.into_iter().filter(|&i| lines[i].0 == dash).collect();
                let Some(&at) = starts.get(index) else { return found };
                found = Some(at + 1);
                let end = starts.get(index + 1).copied().unwrap_or(hi);
                lo = at;
                hi = end;
            }
        }
    }
    found
}

/// The loaded reflexes and the matchers built from them.
#[derive(Debug, Default)]
pub struct Catalog {
    pub reflexes: Vec<Reflex>,
    pub errors: Vec<LoadError>,
    /// Every level-0 pattern, compiled together; `set_owner[i]` is the reflex of pattern `i`.
    pub set: Option<RegexSet>,
    pub set_owner: Vec<usize>,
    pub heuristic: Vec<usize>,
    pub local: Vec<usize>,
    /// (file, mtime, len) of what was loaded, to notice changes.
    pub seen: Vec<(PathBuf, Option<SystemTime>, u64)>,
}

impl Catalog {
    pub fn get(&self, name: &str) -> Option<&Reflex> {
        self.reflexes.iter().find(|r| r.name == name)
    }

    /// Load every `*.yaml` / `*.yml` in `dir`, sorted by file name (which is also the order
    /// in which two matching reflexes are preferred).
    pub fn load(dir: &Path, registry: &Registry) -> Catalog {
        let mut catalog = Catalog { seen: scan(dir), ..Catalog::default() };
        let mut texts = Vec::new();
        for (path, _, _) in &catalog.seen {
            match std::fs::read_to_string(path) {
                Ok(t) => texts.push((path.clone(), t)),
                Err(e) => catalog.errors.push(LoadError { file: path.clone(), line: None, field: String::new(), message: e.to_string() }),
            }
        }
        // Which names may be called as steps is needed before compiling any file.
        let callables: BTreeSet<String> = texts
            .iter()
            .filter_map(|(_, t)| serde_yaml_ng::from_str::<serde_json::Value>(t).ok())
            .filter(|v| v.get("callable").and_then(|c| c.as_bool()) == Some(true))
            .filter_map(|v| v.get("name").and_then(|n| n.as_str()).map(String::from))
            .collect();
        let mut reflexes = Vec::new();
        for (path, text) in &texts {
            match reflex::compile(path, text, registry, &callables) {
                Ok(r) => reflexes.push((r, text)),
                Err(errs) => catalog.errors.extend(errs),
            }
        }
        catalog.add_all(reflexes);
        catalog
    }

    /// Add compiled reflexes, refusing duplicate names and intents, then index them.
    pub fn add_all(&mut self, reflexes: Vec<(Reflex, &String)>) {
        let mut intents: BTreeMap<String, String> = BTreeMap::new();
        for (r, text) in reflexes {
            if let Some(first) = self.get(&r.name) {
                self.errors.push(LoadError {
                    file: r.file.clone(),
                    line: locate(text, "name"),
                    field: "name".into(),
                    message: format!("`{}` is already the name of {}; this file is skipped", r.name, first.file.display()),
                });
                continue;
            }
            if let Some((intent, owner)) = r.trigger.intents.iter().find_map(|i| intents.get(i).map(|o| (i, o))) {
                self.errors.push(LoadError {
                    file: r.file.clone(),
                    line: locate(text, "trigger.intents"),
                    field: "trigger.intents".into(),
                    message: format!("intent `{intent}` already belongs to reflex `{owner}`; this file is skipped"),
                });
                continue;
            }
            for i in &r.trigger.intents {
                intents.insert(i.clone(), r.name.clone());
            }
            self.reflexes.push(r);
        }
        self.propagate_call_levels();
        self.index(&BTreeSet::new());
    }

    /// A reflex that calls another runs at least at the callee's level.
    fn propagate_call_levels(&mut self) {
        for _ in 0..8 {
            let levels: BTreeMap<String, u8> = self.reflexes.iter().map(|r| (r.name.clone(), r.level)).collect();
            let mut changed = false;
            for r in &mut self.reflexes {
                for s in &r.steps {
                    if let Some(&l) = levels.get(&s.action) {
                        if l > r.level {
                            r.level = l;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Rebuild the matchers over the enabled reflexes not in `disabled`.
    pub fn index(&mut self, disabled: &BTreeSet<String>) {
        self.set_owner.clear();
        self.heuristic.clear();
        self.local.clear();
        let mut patterns = Vec::new();
        for (i, r) in self.reflexes.iter().enumerate() {
            if !r.enabled || disabled.contains(&r.name) {
                continue;
            }
            match r.trigger.kind {
                TriggerKind::Pattern => {
                    if let Some(re) = &r.trigger.pattern {
                        patterns.push(re.as_str().to_string());
                        self.set_owner.push(i);
                    }
                }
                TriggerKind::Heuristic => self.heuristic.push(i),
                TriggerKind::Local => self.local.push(i),
                TriggerKind::None => {}
            }
        }
        // Each pattern compiled alone already, so the set compiles too; if the size limit
        // is hit, fall back to trying each reflex's own regex.
        self.set = RegexSet::new(&patterns).map_err(|e| tracing::warn!(%e, "cannot build the level-0 RegexSet")).ok();
    }

    /// Whether the files on disk differ from what was loaded.
    pub fn changed(&self, dir: &Path) -> bool {
        scan(dir) != self.seen
    }
}

fn scan(dir: &Path) -> Vec<(PathBuf, Option<SystemTime>, u64)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .map(|p| {
            let meta = std::fs::metadata(&p).ok();
            let mtime = meta.as_ref().and_then(|m| m.modified().ok());
            let len = meta.map(|m| m.len()).unwrap_or(0);
            (p, mtime, len)
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locates_fields_in_block_yaml() {
        let text = "name: x\ntrigger:\n  pattern: a\n  extract: [u]\npipeline:\n  - action: a\n    input: 1\n\n  - action: b\n    output: o\nlevel: 1\n";
        assert_eq!(locate(text, "name"), Some(1));
        assert_eq!(locate(text, "trigger.extract"), Some(4));
        assert_eq!(locate(text, "pipeline[0]"), Some(6));
        assert_eq!(locate(text, "pipeline[0].input"), Some(7));
        assert_eq!(locate(text, "pipeline[1].output"), Some(10));
        assert_eq!(locate(text, "pipeline[1].missing"), Some(9));
        assert_eq!(locate(text, "level"), Some(11));
        assert_eq!(locate("trigger: {pattern: a}\n", "trigger.pattern"), Some(1));
        assert_eq!(locate("pipeline:\n- action: a\n- action: b\n", "pipeline[1].action"), Some(3));
    }

    #[test]
    fn a_broken_file_is_reported_and_the_rest_load() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.yaml"), "name: a\ntrigger: {pattern: '^a'}\npipeline:\n  - action: reply\n    message: hi\n").unwrap();
        std::fs::write(dir.path().join("b.yaml"), "name: b\ntrigger: {pattern: '^b'}\npipeline:\n  - action: nope\n").unwrap();
        std::fs::write(dir.path().join("c.yaml"), "name: a\ntrigger: {pattern: '^c'}\npipeline:\n  - action: log\n    message: hi\n").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
        let reg = crate::actions::test_registry();
        let c = Catalog::load(dir.path(), &reg);
        assert_eq!(c.reflexes.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["a"]);
        assert_eq!(c.errors.len(), 2, "{:?}", c.errors);
        assert!(c.errors[0].to_string().contains("b.yaml:4: `pipeline[0].action`"), "{}", c.errors[0]);
        assert!(c.errors[1].to_string().contains("c.yaml:1: `name`"), "{}", c.errors[1]);
        assert!(!c.changed(dir.path()));
        std::fs::write(dir.path().join("b.yaml"), "name: b\ntrigger: {pattern: '^b'}\npipeline:\n  - action: log\n    message: fixed\n").unwrap();
        assert!(c.changed(dir.path()));
    }
}
