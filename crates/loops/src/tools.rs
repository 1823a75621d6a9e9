//! The model actuator's hands: `write_file {path, content}` and `replace {path, old, new}`
//! (an exact passage that must occur exactly once). Paths are confined to DIR
//! (`cn_tools::confine`, symlinks included) and may not name `loop-run/`, `.git/` or the
//! tree's `cn.yaml`: the loop's artifacts and settings belong to the orchestrator and the
//! owner, and the actuator's own `actuator-output.md` is written by the orchestrator from what
//! these tools did.

use std::path::{Path, PathBuf};

use cn_compute::{Level, ToolError};
use cn_tools::{typed, Policy, Registry, ToolContext};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::artifacts::LOOP_RUN;

pub const WRITE_FILE: &str = "write_file";
pub const REPLACE: &str = "replace";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct WriteFile {
    /// The file, relative to the codebase's root.
    path: String,
    /// The file's whole new content.
    content: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Replace {
    /// The file, relative to the codebase's root.
    path: String,
    /// The exact passage to replace; it must occur exactly once in the file.
    old: String,
    /// What to put in its place.
    new: String,
}

/// A registry holding the two tools, rooted at `dir`, granted to `level` only.
pub fn registry(dir: &Path, level: Level) -> Registry {
    let mut ctx = ToolContext::new(dir);
    ctx.policy = Policy::default().grant(level, &[WRITE_FILE, REPLACE]);
    let mut r = Registry::new(ctx);
    r.register(typed(WRITE_FILE, "Create or overwrite a file with the given content.", |ctx, p: WriteFile| {
        let path = allowed(ctx, &p.path)?;
        let created = !path.exists();
        cn_storage::write_atomic(&path, p.content.as_bytes())
            .map_err(|e| ToolError::Failed(format!("{}: {e}", p.path)))?;
        Ok(json!({"path": p.path, "created": created, "bytes": p.content.len()}))
    }));
    r.register(typed(
        REPLACE,
        "Replace one exact passage of a file (it must occur exactly once) with new text.",
        |ctx, p: Replace| {
            let path = allowed(ctx, &p.path)?;
            let text = std::fs::read_to_string(&path).map_err(|e| ToolError::Failed(format!("{}: {e}", p.path)))?;
            if p.old.is_empty() {
                return Err(ToolError::BadParams("`old` is empty; give the exact passage to replace".into()));
            }
            match text.matches(p.old.as_str()).count() {
                1 => {}
                0 => {
                    return Err(ToolError::Failed(format!("{}: the `old` passage does not occur in the file", p.path)))
                }
                n => {
                    return Err(ToolError::Failed(format!(
                        "{}: the `old` passage occurs {n} times; give a longer passage that occurs once",
                        p.path
                    )))
                }
            }
            let new = text.replacen(p.old.as_str(), &p.new, 1);
            cn_storage::write_atomic(&path, new.as_bytes())
                .map_err(|e| ToolError::Failed(format!("{}: {e}", p.path)))?;
            Ok(json!({"path": p.path, "created": false, "bytes": new.len()}))
        },
    ));
    r
}

fn allowed(ctx: &ToolContext, path: &str) -> Result<PathBuf, ToolError> {
    let full = ctx.confine_write(path)?;
    let root = ctx.workdir.canonicalize().map_err(|e| ToolError::Failed(format!("{}: {e}", ctx.workdir.display())))?;
    let first = full.strip_prefix(&root).ok().and_then(|rel| rel.components().next());
    match first {
        None => Err(ToolError::BadParams(format!("`{path}` is the codebase's root, not a file"))),
        Some(c) if c.as_os_str() == LOOP_RUN || c.as_os_str() == ".git" => Err(ToolError::Denied(format!(
            "`{path}` is inside {}/, which the actuator may not edit",
            c.as_os_str().to_string_lossy()
        ))),
        // A cn.yaml at the top would choose the next run's models and sandboxes (and the
        // orchestrator commits what the actuator wrote).
        Some(c) if c.as_os_str() == cn_hub::layout::CONFIG && full.parent() == Some(root.as_path()) => {
            Err(ToolError::Denied(format!("`{path}` is the tree's cn.yaml, which the actuator may not write")))
        }
        Some(_) => Ok(full),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_compute::ToolCall;

    fn call(tool: &str, params: serde_json::Value) -> ToolCall {
        ToolCall::new(tool, params.as_object().cloned().unwrap())
    }

    #[test]
    fn writes_replaces_once_and_stays_inside() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("loop-run")).unwrap();
        let r = registry(dir.path(), 3);
        let out = r.run(3, &call(WRITE_FILE, json!({"path": "src/A.java", "content": "a b a"}))).unwrap();
        assert_eq!(out["created"], true);
        let e = r.run(3, &call(REPLACE, json!({"path": "src/A.java", "old": "a", "new": "x"}))).unwrap_err();
        assert!(e.to_string().contains("2 times"), "{e}");
        let e = r.run(3, &call(REPLACE, json!({"path": "src/A.java", "old": "zz", "new": "x"}))).unwrap_err();
        assert!(e.to_string().contains("does not occur"), "{e}");
        r.run(3, &call(REPLACE, json!({"path": "src/A.java", "old": "a b", "new": "c"}))).unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join("src/A.java")).unwrap(), "c a");
        for bad in
            ["../x", "/etc/passwd", "loop-run/actuator-output.md", "loop-run/task.md", ".git/config", ".", "cn.yaml"]
        {
            let e = r.run(3, &call(WRITE_FILE, json!({"path": bad, "content": ""})));
            assert!(e.is_err(), "{bad}");
        }
        assert!(matches!(r.run(2, &call(WRITE_FILE, json!({"path": "b", "content": ""}))), Err(ToolError::Denied(_))));
    }
}
