//! Reading the assembled data (JSONL: `text`, `intent`, `slots` with char offsets, `source`).

use std::path::Path;

use cn_understand::train::Labelled;
use cn_understand::{Intent, SlotKind};
use serde::Deserialize;

#[derive(Deserialize)]
struct Line {
    text: String,
    intent: String,
    #[serde(default)]
    slots: Vec<SlotLine>,
    #[serde(default)]
    source: String,
    #[serde(default)]
    weight: Option<f32>,
    #[serde(default)]
    slots_known: Option<bool>,
}

#[derive(Deserialize)]
struct SlotLine {
    slot: String,
    start: usize,
    end: usize,
}

/// Char offset → byte offset in `text` (the end of the text past its last char).
fn byte_at(text: &str, chars: usize) -> usize {
    text.char_indices().nth(chars).map_or(text.len(), |(b, _)| b)
}

/// The labelled requests in `path`; a line that does not read is an error naming it.
pub fn read(path: &Path) -> Result<Vec<Labelled>, String> {
    let body = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in body.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let l: Line = serde_json::from_str(line).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        let intent =
            Intent::of(&l.intent).ok_or_else(|| format!("{}:{}: no intent `{}`", path.display(), n + 1, l.intent))?;
        let slots = l
            .slots
            .iter()
            .filter_map(|s| Some((SlotKind::of(&s.slot)?, byte_at(&l.text, s.start)..byte_at(&l.text, s.end))))
            .collect();
        out.push(Labelled {
            text: l.text,
            intent,
            slots,
            source: l.source,
            weight: l.weight.unwrap_or(1.0),
            slots_known: l.slots_known.unwrap_or(true),
        });
    }
    Ok(out)
}
