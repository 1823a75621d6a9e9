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

/// `text` with its top-level `key:` set to `value` (added after `name:` when absent; the
/// rest of the file, comments included, is kept).
pub(crate) fn with_key(text: &str, key: &str, value: &str) -> String {
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
