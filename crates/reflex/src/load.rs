//! Loading `state/reflexes/*.yaml`: every file is checked, a broken one is reported (file,
//! line, field) and skipped, the rest load. [`Catalog`] is the loaded set plus what the
//! engine matches with: one `RegexSet` of every level-0 pattern, and the lists of level-1 and
//! level-2 candidates. A changed, added or removed file is noticed by a cheap stat of the
//! directory's files and the whole catalog is rebuilt (files are few; a rebuild is
//! milliseconds).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use cn_tools::Registry;
use regex::RegexSet;

use crate::load_error::{locate, LoadError};
use crate::reflex::{self, Reflex, TriggerKind};

/// The loaded reflexes and the matchers built from them.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    pub reflexes: Vec<Reflex>,
    pub errors: Vec<LoadError>,
    /// Every level-0 pattern, compiled together; `set_owner[i]` is the reflex of pattern `i`.
    pub set: Option<RegexSet>,
    pub set_owner: Vec<usize>,
    pub heuristic: Vec<usize>,
    pub local: Vec<usize>,
    /// Enabled reflexes in shadow mode with a pattern or heuristic trigger: tried, without
    /// effects, on what the live reflexes leave to the models.
    pub shadows: Vec<usize>,
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
                Err(e) => catalog.errors.push(LoadError {
                    file: path.clone(),
                    line: None,
                    field: String::new(),
                    message: cn_compute::chain(&e),
                }),
            }
        }
        // Which names may be called as steps is needed before compiling any file.
        let callables: BTreeSet<String> = texts
            .iter()
            .filter(|(_, t)| cn_compute::yaml::check(t).is_ok())
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
                    message: format!(
                        "`{}` is already the name of {}; this file is skipped",
                        r.name,
                        first.file.display()
                    ),
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
        self.shadows.clear();
        let mut patterns = Vec::new();
        for (i, r) in self.reflexes.iter().enumerate() {
            if !r.enabled || disabled.contains(&r.name) {
                continue;
            }
            if r.mode == reflex::ReflexMode::Shadow {
                // A level-2 trigger would ask the local model for every item: not in shadow.
                if matches!(r.trigger.kind, TriggerKind::Pattern | TriggerKind::Heuristic) {
                    self.shadows.push(i);
                }
                continue;
            }
            match r.trigger.kind {
                TriggerKind::Pattern => {
                    if let Some(p) = &r.trigger.pattern {
                        patterns.push(p.as_str().to_string());
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
        self.set = RegexSet::new(&patterns)
            .map_err(|e| tracing::warn!(e = %cn_compute::Chain(&e), "cannot build the level-0 RegexSet"))
            .ok();
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
    fn a_broken_file_is_reported_and_the_rest_load() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.yaml"),
            "name: a\ntrigger: {pattern: '^a'}\npipeline:\n  - action: reply\n    message: hi\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("b.yaml"), "name: b\ntrigger: {pattern: '^b'}\npipeline:\n  - action: nope\n")
            .unwrap();
        std::fs::write(
            dir.path().join("c.yaml"),
            "name: a\ntrigger: {pattern: '^c'}\npipeline:\n  - action: log\n    message: hi\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("notes.txt"), "ignored").unwrap();
        let reg = crate::actions::test_registry();
        let c = Catalog::load(dir.path(), &reg);
        assert_eq!(c.reflexes.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["a"]);
        assert_eq!(c.errors.len(), 2, "{:?}", c.errors);
        assert!(c.errors[0].to_string().contains("b.yaml:4: `pipeline[0].action`"), "{}", c.errors[0]);
        assert!(c.errors[1].to_string().contains("c.yaml:1: `name`"), "{}", c.errors[1]);
        assert!(!c.changed(dir.path()));
        std::fs::write(
            dir.path().join("b.yaml"),
            "name: b\ntrigger: {pattern: '^b'}\npipeline:\n  - action: log\n    message: fixed\n",
        )
        .unwrap();
        assert!(c.changed(dir.path()));
    }
}
