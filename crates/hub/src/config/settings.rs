//! The effective configuration, value by value, each with where it came from (`cn config
//! show`): cn.yaml as written over the sections' defaults.

use serde::Serialize;

use super::HubConfig;

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

impl HubConfig {
    /// Every value the hub runs with, as the sections merged cn.yaml (`raw`: the file as
    /// written) with the defaults: a map is walked key by key, a list or a scalar is one
    /// value; each says whether cn.yaml writes it or it is the default. (`null`: unset — no
    /// executive, no `otel:`.)
    pub fn settings(&self, raw: &cn_compute::Config) -> Vec<Setting> {
        let effective = serde_json::to_value(self).unwrap_or_default();
        let mut out = Vec::new();
        walk(&effective, Some(&raw.value), &mut String::new(), &mut out);
        out
    }
}

fn walk(value: &serde_json::Value, written: Option<&serde_json::Value>, key: &mut String, out: &mut Vec<Setting>) {
    use serde_json::Value;
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                let at = key.len();
                if !key.is_empty() {
                    key.push('.');
                }
                key.push_str(k);
                walk(v, written.and_then(|w| w.get(k)), key, out);
                key.truncate(at);
            }
        }
        _ => {
            let from = if written.is_some_and(|w| !w.is_null()) { Source::File } else { Source::Default };
            out.push(Setting { key: key.clone(), value: value.clone(), from });
        }
    }
}
