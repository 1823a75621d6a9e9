//! What shadow mode shares below the engine, learning and writing: a shadow run's record
//! ([`ShadowRun`], which the engine hands back with an escalated item and learning settles
//! against the real decision) and the one edit cn makes to a reflex file's text ([`with_key`]:
//! its mode, who learned it, whether it is enabled). Here, below all three, so that none of
//! them imports another in a circle.

use cn_compute::Level;
use serde::{Deserialize, Serialize};

/// What a shadow reflex would have done with an item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShadowRun {
    pub reflex: String,
    pub level: Level,
    /// `reply`, `ack`, or `escalate` / `error` (nothing to compare).
    pub op: String,
    /// The reply it would have sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The filings it would have made (`add_task`, `add_idea`).
    pub effects: Vec<String>,
    /// A promoted reflex checked on this item (a disagreement demotes it).
    pub check: bool,
    /// The item's text (what agreement is counted on) and id.
    pub text: String,
    pub item: Option<String>,
}

/// `text` with its top-level `key:` set to `value`. The line is edited when that edit
/// changes exactly that key of the parsed file (the rest of the file, comments included, is
/// kept; the line is added after `name:` when absent); otherwise — a `key:` line that is
/// really inside a multi-line value — the key is set on the parsed value and the file written
/// back from it ([`set_parsed`]). A file that does not parse gets the line edit.
pub(crate) fn with_key(text: &str, key: &str, value: &str) -> String {
    let edited = edit_line(text, key, value);
    if changes_only(text, &edited, key, value) {
        return edited;
    }
    set_parsed(std::path::Path::new(""), text, &[(key, value)]).unwrap_or(edited)
}

/// The line edit: the first line starting `key:` replaced, or one added after `name:`.
fn edit_line(text: &str, key: &str, value: &str) -> String {
    let line = format!("{key}: {value}");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let prefix = format!("{key}:");
    if let Some(l) = lines.iter_mut().find(|l| l.starts_with(&prefix)) {
        *l = line;
    } else {
        let at = lines.iter().position(|l| l.starts_with("name:")).map_or(0, |i| i + 1);
        lines.insert(at, line);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The top-level mapping `text` parses to (bounded first, like every YAML cn reads).
fn mapping(text: &str) -> Option<serde_yaml_ng::Mapping> {
    cn_compute::yaml::check(text).ok()?;
    match serde_yaml_ng::from_str(text).ok()? {
        serde_yaml_ng::Value::Mapping(m) => Some(m),
        _ => None,
    }
}

/// `value` as the YAML scalar it reads as (`true` a boolean, `shadow` a string).
fn scalar(value: &str) -> serde_yaml_ng::Value {
    serde_yaml_ng::from_str(value).unwrap_or_else(|_| serde_yaml_ng::Value::String(value.to_string()))
}

/// Whether `edited` parses to `text`'s mapping with only `key` changed, to `value`.
fn changes_only(text: &str, edited: &str, key: &str, value: &str) -> bool {
    let (Some(mut before), Some(mut after)) = (mapping(text), mapping(edited)) else { return false };
    let key = serde_yaml_ng::Value::String(key.to_string());
    after.remove(&key) == Some(scalar(value)) && {
        before.remove(&key);
        before == after
    }
}

/// `text` parsed, each top-level `key` set to its value on the parsed mapping, and written
/// back from the value (comments are not kept): what a `mode:` or `learned:` line inside a
/// quoted multi-line `description:` says cannot survive it. An error names the file (`file`)
/// when `text` is not a YAML mapping.
pub(crate) fn set_parsed(
    file: &std::path::Path,
    text: &str,
    keys: &[(&str, &str)],
) -> Result<String, crate::load_error::LoadError> {
    let error = |message: String| crate::load_error::LoadError {
        file: file.to_path_buf(),
        line: None,
        field: String::new(),
        message,
    };
    cn_compute::yaml::check(text).map_err(|e| error(e.to_string()))?;
    let value: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(text).map_err(|e| crate::load_error::LoadError::from_yaml(file, &e))?;
    let serde_yaml_ng::Value::Mapping(mut map) = value else {
        return Err(error("a reflex is a YAML mapping (`name:`, `trigger:`, `pipeline:` …)".into()));
    };
    for (key, value) in keys {
        map.insert(serde_yaml_ng::Value::String((*key).to_string()), scalar(value));
    }
    serde_yaml_ng::to_string(&serde_yaml_ng::Value::Mapping(map)).map_err(|e| error(e.to_string()))
}
