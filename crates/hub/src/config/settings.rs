//! The effective configuration, value by value, each with where it came from (`cn config
//! show`): cn.yaml as written over the sections' defaults.

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use super::{ConfigError, HubConfig};

/// Where a value of the effective configuration comes from (`cn config show`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// cn.yaml writes it.
    File,
    /// cn.yaml does not: the documented default.
    Default,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::File => "cn.yaml",
            Source::Default => "default",
        }
    }
}

/// One value of the effective configuration: its dotted key, the value, where it came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    pub key: String,
    pub value: serde_json::Value,
    pub from: Source,
}

/// What cn.yaml writes: the path of each key whose value is not null (a section, a key, a
/// list), from the top. Kept beside the typed sections so that [`HubConfig::settings`] tells a
/// written value from a default; nothing reads a value through it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written(BTreeSet<Vec<String>>);

impl Written {
    /// The keys cn.yaml's `text` writes (empty text writes none).
    pub(super) fn of(text: &str, path: &Path) -> Result<Written, ConfigError> {
        let mut written = Written::default();
        if text.trim().is_empty() {
            return Ok(written);
        }
        let value: Option<serde_json::Value> =
            serde_yaml_ng::from_str(text).map_err(|source| ConfigError::Syntax { path: path.to_path_buf(), source })?;
        if let Some(value) = value {
            written.add(&value, &mut Vec::new());
        }
        Ok(written)
    }

    fn add(&mut self, value: &serde_json::Value, at: &mut Vec<String>) {
        let serde_json::Value::Object(map) = value else { return };
        for (k, v) in map {
            at.push(k.clone());
            if !v.is_null() {
                self.0.insert(at.clone());
                self.add(v, at);
            }
            at.pop();
        }
    }

    /// Whether cn.yaml writes the key at `path`, not null.
    pub fn has(&self, path: &[String]) -> bool {
        self.0.contains(path)
    }
}

impl HubConfig {
    /// Every value the hub runs with, as the sections merged cn.yaml (`written`: the keys the
    /// file writes) with the defaults: a map is walked key by key, a list or a scalar is one
    /// value; each says whether cn.yaml writes it or it is the default. (`null`: unset — no
    /// executive, no `otel:`.)
    pub fn settings(&self, written: &Written) -> Vec<Setting> {
        let effective = serde_json::to_value(self).unwrap_or_default();
        let mut out = Vec::new();
        walk(&effective, written, &mut Vec::new(), &mut out);
        out
    }
}

fn walk(value: &serde_json::Value, written: &Written, at: &mut Vec<String>, out: &mut Vec<Setting>) {
    use serde_json::Value;
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                at.push(k.clone());
                walk(v, written, at, out);
                at.pop();
            }
        }
        _ => {
            let from = if written.has(at) { Source::File } else { Source::Default };
            out.push(Setting { key: at.join("."), value: value.clone(), from });
        }
    }
}
