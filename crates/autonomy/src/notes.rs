//! The lean core memory (document 003, "Core Memory Approach"): `state/notes/core_seed.md`
//! stays brief and points to the detail in `state/notes/systems.md` (the impulse files, the
//! journal), `reflexes.md` and `actions.md` (written by the reflex layer). `cn init` calls
//! [`write_core_notes`].
//!
//! Invariant: a note that exists is never overwritten — the agent edits its own notes.

use std::path::{Path, PathBuf};

use crate::state::StateError;

/// `state/notes/core_seed.md`.
pub const CORE_SEED: &str = "\
# core_seed.md

I maintain my own task queue, ideas backlog, and schedule in state/.
See state/notes/systems.md for formats and usage.

I can define and extend reflexes - automated responses that run without
waking me. See state/notes/reflexes.md for the reflex system, and
state/notes/actions.md for the actions a reflex can use.

My activity is logged to state/journal.jsonl. I use this to answer
questions about what I've been doing and why.
";

/// `state/notes/systems.md`.
pub const SYSTEMS: &str = r#"# systems.md — my task queue, ideas and schedule

## state/tasks.json — commitments: "I will do X"

```json
[{"id": "task-abc123", "task": "Review PR #42", "due": "2026-01-07T10:00:00Z",
  "priority": 1, "context": "Promised in conversation"}]
```

`priority` 1 is the most urgent. A task is offered to me when it is due; a task without
`due` when I am idle. `done: true` closes it. `cn task add|list|done`.

## state/ideas.json — curiosities: "I want to explore X someday"

```json
[{"id": "idea-xyz789", "idea": "Research how biological memory consolidation works",
  "sparked_by": "conversation about memory architecture", "added": "2026-01-06T15:00:00Z"}]
```

Offered only when I am truly idle, each at most once a day. `cn idea add|list`.

## state/schedule.json — recurring: "Check Y every morning"

```json
[{"name": "morning-review", "cron": "0 9 * * *", "action": "Check inbox, review commitments, plan day",
  "tz": "Europe/Berlin", "catch_up": true}]
```

Standard five-field cron (minute hour day-of-month month day-of-week). `tz` defaults to UTC.
A time missed while the daemon was down fires once at start, or is skipped with
`"catch_up": false`. `cn schedule add|list`; `cn schedule next CRON -n 5` shows fire times.

## state/journal.jsonl — what I did and why

One JSON object a line: `ts`, `type` (decision, impulse, reflex, exploration, action,
observation), `id` (the item it is about), `summary`, `context`, `reasoning`, `outcome`,
`data`. `cn journal --today` answers "what did you do today?"; `cn journal why ID` answers
"why did you do that?".
"#;

/// Write the core notes that do not exist yet; returns the ones written.
pub fn write_core_notes(hub: &Path) -> Result<Vec<PathBuf>, StateError> {
    let dir = cn_hub::Layout::new(hub).notes();
    let mut written = Vec::new();
    for (name, text) in [("core_seed.md", CORE_SEED), ("systems.md", SYSTEMS)] {
        let path = dir.join(name);
        if path.exists() {
            continue;
        }
        cn_storage::write_atomic(&path, text.as_bytes())
            .map_err(|source| StateError::Io { path: path.clone(), source })?;
        written.push(path);
    }
    Ok(written)
}

/// `note_write` — the agent edits its own notes: write `state/notes/NAME.md` atomically.
/// Only plain names (no paths), so a note can never land outside `state/notes/`.
pub fn note_write_tool() -> std::sync::Arc<dyn cn_tools::Tool> {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Params {
        /// The note's name without `.md` (letters, digits, `-`, `_`), e.g. `systems`.
        name: String,
        /// The whole new text of the note (markdown).
        content: String,
    }
    cn_tools::typed(
        "note_write",
        "Write one of your own notes, state/notes/NAME.md (systems, or a new one; not core_seed, which only the owner edits), replacing its text.",
        |ctx, p: Params| {
            let plain = !p.name.is_empty() && p.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !plain {
                return Err(cn_compute::ToolError::BadParams(format!(
                    "note name `{}` must be letters, digits, `-` or `_`",
                    p.name
                )));
            }
            let hub = ctx.hub.as_deref().unwrap_or(&ctx.workdir);
            let layout = cn_hub::Layout::new(hub);
            let path = layout.note(&p.name);
            if let Some(why) = layout.write_protected(layout.relative(&path)) {
                return Err(cn_compute::ToolError::Denied(format!(
                    "note `{}` is protected ({why}): only the owner edits it",
                    p.name
                )));
            }
            cn_storage::write_atomic(&path, p.content.as_bytes())
                .map_err(|e| cn_compute::ToolError::Failed(format!("{}: {e}", path.display(), e = cn_compute::Chain(&e))))?;
            Ok(serde_json::json!({"path": layout.relative(&path), "bytes": p.content.len()}))
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_write_stays_in_the_notes_folder() {
        let hub = tempfile::tempdir().unwrap();
        let tool = note_write_tool();
        let mut ctx = cn_tools::ToolContext::new(hub.path());
        ctx.hub = Some(hub.path().to_path_buf());
        let params = |name: &str| {
            cn_compute::Params::Open(
                serde_json::json!({"name": name, "content": "# plans\n"}).as_object().cloned().unwrap(),
            )
        };
        tool.call(&ctx, &params("plans")).unwrap();
        assert_eq!(std::fs::read_to_string(hub.path().join("state/notes/plans.md")).unwrap(), "# plans\n");
        let e = tool.call(&ctx, &params("core_seed")).unwrap_err();
        assert!(e.to_string().contains("core memory"), "{e}");
        for bad in ["../cn", "a/b", ""] {
            let e = tool.call(&ctx, &params(bad)).unwrap_err();
            assert!(e.to_string().contains("must be letters"), "{bad}: {e}");
        }
    }

    #[test]
    fn writes_missing_notes_and_keeps_edited_ones() {
        let hub = tempfile::tempdir().unwrap();
        assert_eq!(write_core_notes(hub.path()).unwrap().len(), 2);
        let seed = hub.path().join("state/notes/core_seed.md");
        assert!(std::fs::read_to_string(&seed).unwrap().contains("state/notes/systems.md"));
        std::fs::write(&seed, "my own words").unwrap();
        assert!(write_core_notes(hub.path()).unwrap().is_empty());
        assert_eq!(std::fs::read_to_string(&seed).unwrap(), "my own words");
    }
}
