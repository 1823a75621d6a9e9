//! What is wrong with one reflex file, and where (file, line, field).
//!
//! Both the compiler of one reflex (`reflex.rs`) and the loader of the directory (`load.rs`)
//! report these, so the type and the line finder sit here, below both.

use std::fmt;
use std::path::{Path, PathBuf};

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
        let mut message = cn_compute::chain(&e);
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
                let end = (at + 1..hi)
                    .find(|&i| !blank(i) && lines[i].1 <= level && !(lines[i].2 && lines[i].0 == level))
                    .unwrap_or(hi);
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
}
