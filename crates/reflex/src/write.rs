//! Self-extension: the executive writes or changes a reflex with one tool call,
//! `reflex_write {name, yaml, text?}`. The new reflex is checked like any file, then dry-run
//! against the item that prompted it (it must take that item and every step must be
//! allowed), and then written **in shadow mode** (`mode: shadow`, `learned: executive`,
//! whatever the YAML said): it runs on the items it matches without any effect, and records
//! what it would have done, until the owner approves it (`cn reflex approve NAME`) or it has
//! agreed with the executive often enough (see [`crate::learn`]). A reflex answers strangers
//! without a model, so a prompt-injected executive must not be able to install one that
//! acts: a shadow reflex cannot act.
//!
//! The executive may rewrite the reflexes it (or cn) wrote — the rewrite starts in shadow
//! again — but not the owner's own (a file without `learned:`).
//!
//! Held `reflex_write` approvals from before shadow mode are still carried out by
//! [`apply_approved`] (`cn approve ID`).
//!
//! Invariant: a reflex the executive writes never acts unless it loaded, its dry run on the
//! prompting item succeeded, and the owner approved it or it agreed with the executive as
//! `reflexes.learn` requires; on any failure the old file (if any) is untouched.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cn_compute::ToolError;
use cn_tools::{typed, Tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::engine::{Engine, Handled, Input};
use crate::load::Catalog;
use crate::load_error::LoadError;
use crate::mode::Mode;
use crate::reflex;

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("`{0}` is not a reflex name: use lowercase letters, digits and `-`")]
    Name(String),
    #[error("the reflex does not load: {}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    Invalid(Vec<LoadError>),
    #[error("the YAML names the reflex `{found}`, but it is being written as `{name}`")]
    Mismatch { name: String, found: String },
    #[error("no item to dry-run it against: give `text`, the message this reflex should handle")]
    NoItem,
    #[error("the dry run on {text:?} {problem}")]
    DryRun { text: String, problem: String },
    #[error("cannot write {}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// The owner named a reflex the hub does not have.
    #[error("no reflex `{name}` ({} does not exist); `cn reflex list` shows the reflexes", path.display())]
    NoSuch { name: String, path: PathBuf },
    #[error(transparent)]
    Approval(#[from] cn_hub::approvals::ApprovalError),
    #[error("approval `{0}` does not hold a reflex (tool reflex_write with name and yaml)")]
    NotAReflex(String),
    #[error("`{0}` is the owner's reflex: the executive may change only reflexes it or cn wrote (learned ones)")]
    Owners(String),
}

/// What a successful write did: the reflex checked, dry-run and written in shadow mode.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    /// Where it was written.
    pub path: PathBuf,
    /// Whether a git commit recorded it.
    pub committed: bool,
    pub dry_run: Handled,
}

/// What approving a held reflex did.
#[derive(Debug, Clone, Serialize)]
pub struct Installed {
    pub path: PathBuf,
    /// Whether a git commit recorded it (false when the hub is not a git repository, or the
    /// file did not change).
    pub committed: bool,
}

impl Engine {
    /// Validate, dry-run against `text` (or the latest escalated item with id `item`), then
    /// write it in shadow mode (journaled, committed).
    pub fn write_reflex(
        &mut self,
        name: &str,
        yaml: &str,
        text: Option<&str>,
        item: Option<&str>,
    ) -> Result<Written, WriteError> {
        if !reflex::is_name(name) {
            return Err(WriteError::Name(name.to_string()));
        }
        let path = self.dir().join(format!("{name}.yaml"));
        if self.reflex(name).is_some_and(|r| r.learned.is_none()) {
            return Err(WriteError::Owners(name.to_string()));
        }
        // Written in shadow, marked learned, whatever the YAML says: set on the parsed value,
        // never by editing its text (a `mode:` line inside a quoted multi-line `description:`
        // is not the key). The dry run tries it as if active.
        let yaml = &crate::shadow::set_parsed(&path, yaml, &[("learned", "executive"), ("mode", "shadow")])
            .map_err(|e| WriteError::Invalid(vec![e]))?;
        // Check it among the others, as the loader would: callables, duplicate intents.
        let mut callables: std::collections::BTreeSet<String> =
            self.reflexes().iter().filter(|r| r.callable).map(|r| r.name.clone()).collect();
        if cn_compute::yaml::check(yaml).is_ok()
            && serde_yaml_ng::from_str::<Value>(yaml).ok().and_then(|v| v.get("callable").and_then(Value::as_bool))
                == Some(true)
        {
            callables.insert(name.to_string());
        }
        let new = reflex::compile(&path, yaml, self.registry(), &callables).map_err(WriteError::Invalid)?;
        if new.name != name {
            return Err(WriteError::Mismatch { name: name.to_string(), found: new.name });
        }
        if new.mode != reflex::ReflexMode::Shadow || new.learned != Some(reflex::Learned::Executive) {
            return Err(WriteError::Invalid(vec![LoadError {
                file: path.clone(),
                line: None,
                field: "mode".into(),
                message: "cn could not set the reflex to shadow mode, learned from the executive".into(),
            }]));
        }
        let mut new = new;
        new.mode = reflex::ReflexMode::Active;
        let others: Vec<_> = self.reflexes().iter().filter(|r| r.name != name).cloned().collect();
        let texts: Vec<String> = vec![yaml.to_string(); others.len() + 1];
        let mut trial = Catalog::default();
        trial.add_all(others.into_iter().chain([new]).zip(texts.iter()).collect());
        if let Some(e) = trial.errors.first() {
            return Err(WriteError::Invalid(vec![e.clone()]));
        }
        let disabled = self.stats().disabled().into_iter().filter(|n| n != name).collect();
        trial.index(&disabled);

        let (text, source) = match text {
            Some(t) => (t.to_string(), None),
            None => self.escalated(item).ok_or(WriteError::NoItem)?,
        };
        let old = self.swap_catalog(trial);
        let mut input = Input::new(&text);
        input.source = source.as_deref();
        let dry = self.run(&input, Mode::DryRun);
        self.swap_catalog(old);
        let problem = if dry.reflex.as_deref() != Some(name) {
            Some(match &dry.reflex {
                Some(other) => format!("is taken by reflex `{other}` first"),
                None => format!("is not taken by `{name}` (its trigger does not match)"),
            })
        } else {
            dry.error.clone().map(|e| format!("fails: {e}"))
        };
        if let Some(problem) = problem {
            return Err(WriteError::DryRun { text, problem });
        }

        cn_storage::write_atomic(&path, yaml.as_bytes())
            .map_err(|source| WriteError::Io { path: path.clone(), source })?;
        let hub = self.hub().to_path_buf();
        let committed = commit_as(&hub, name, &format!("reflex: write {name} (shadow)"));
        self.stats_mut().mode_changed(name);
        let mut written = crate::journal::Changed::new(name, "write", "shadow");
        (written.learned, written.dry_run_on, written.committed) =
            (Some("executive"), Some(text.as_str()), Some(committed));
        self.journal(&written);
        self.reload();
        Ok(Written { path, committed, dry_run: dry })
    }
}

/// Run an approved `reflex_write`: write the reflex the owner approved, exactly as shown,
/// journal and commit it. The running daemon's engine picks the file up on its next reload.
pub fn apply_approved(hub: &std::path::Path, approval: &cn_hub::approvals::Approval) -> Result<Installed, WriteError> {
    let field = |k: &str| approval.params.get(k).and_then(Value::as_str);
    let (Some(name), Some(yaml), "reflex_write") = (field("name"), field("yaml"), approval.tool.as_str()) else {
        return Err(WriteError::NotAReflex(approval.id.clone()));
    };
    if !reflex::is_name(name) {
        return Err(WriteError::Name(name.to_string()));
    }
    let layout = cn_hub::Layout::new(hub);
    let path = layout.reflex(name);
    cn_storage::write_atomic(&path, yaml.as_bytes()).map_err(|source| WriteError::Io { path: path.clone(), source })?;
    let committed = commit(hub, name);
    let mut entry = crate::journal::Changed::new(name, "write", "enabled");
    (entry.approval, entry.committed) = (Some(approval.id.as_str()), Some(committed));
    if let Err(err) = layout.open_journal().and_then(|mut j| j.write(&entry)) {
        tracing::error!(err = %cn_compute::Chain(&err), "cannot journal the approved reflex");
    }
    Ok(Installed { path, committed })
}

/// The owner turns a reflex on or off (`cn reflex enable|disable`, the control room): the
/// file's top-level `enabled:` line is set (added after `name:` when absent; the rest of the
/// file, comments included, is kept), written atomically, journaled and committed. A reflex
/// the engine disabled for failing is re-enabled by the changed file.
pub fn set_enabled(hub: &std::path::Path, name: &str, on: bool) -> Result<Installed, WriteError> {
    if !reflex::is_name(name) {
        return Err(WriteError::Name(name.to_string()));
    }
    let layout = cn_hub::Layout::new(hub);
    let path = layout.reflex(name);
    let text = read_named(&path, name)?;
    let text = with_enabled(&text, on);
    cn_storage::write_atomic(&path, text.as_bytes()).map_err(|source| WriteError::Io { path: path.clone(), source })?;
    let action = if on { "enable" } else { "disable" };
    let committed = commit_as(hub, name, &format!("reflex: {action} {name}"));
    let mut entry = crate::journal::Changed::new(name, action, if on { "enabled" } else { "off" });
    (entry.by, entry.committed) = (Some("owner"), Some(committed));
    if let Err(err) = layout.open_journal().and_then(|mut j| j.write(&entry)) {
        tracing::error!(err = %cn_compute::Chain(&err), "cannot journal the reflex switch");
    }
    Ok(Installed { path, committed })
}

/// The text of the reflex file `path` the owner named `name`: a missing one is
/// [`WriteError::NoSuch`], not an I/O error.
pub(crate) fn read_named(path: &std::path::Path, name: &str) -> Result<String, WriteError> {
    std::fs::read_to_string(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => WriteError::NoSuch { name: name.to_string(), path: path.to_path_buf() },
        _ => WriteError::Io { path: path.to_path_buf(), source },
    })
}

/// `text` with its top-level `enabled:` set to `on`.
fn with_enabled(text: &str, on: bool) -> String {
    crate::shadow::with_key(text, "enabled", if on { "true" } else { "false" })
}

/// `git add` + `git commit` of the one file, if the hub is a git repository.
fn commit(hub: &std::path::Path, name: &str) -> bool {
    commit_as(hub, name, &format!("reflex: write {name}"))
}

pub(crate) fn commit_as(hub: &std::path::Path, name: &str, message: &str) -> bool {
    if !hub.join(".git").exists() {
        return false;
    }
    let layout = cn_hub::Layout::new(hub);
    let file = layout.reflex(name);
    let rel = layout.relative(&file).to_string_lossy().into_owned();
    let git = cn_git::Git::new(hub);
    if let Err(err) = git.add(&[&rel]) {
        tracing::warn!(err = %cn_compute::Chain(&err), "git add failed");
        return false;
    }
    match git.commit_only_with_hooks(message, &[&rel]) {
        Ok(()) => true,
        Err(err) => {
            tracing::info!(err = %cn_compute::Chain(&err), "nothing committed");
            false
        }
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Params {
    /// The reflex's name (the file is state/reflexes/NAME.yaml).
    name: String,
    /// The whole reflex definition, in the reflex YAML format.
    yaml: String,
    /// The message it should handle; default: the item being worked on.
    text: Option<String>,
}

/// The `reflex_write` tool for the executive's registry (grant it to level 3 in the policy).
pub fn reflex_write_tool(engine: Arc<Mutex<Engine>>) -> Arc<dyn Tool> {
    typed(
        "reflex_write",
        "Write a new or changed reflex (state/reflexes/NAME.yaml) so items like this one are handled without you. \
         It is checked and dry-run against the item first, then starts in shadow mode: it records what it would have \
         done on the next such items, and acts once the owner approves it or it has agreed with you often enough.",
        move |ctx, p: Params| {
            let mut engine = engine.lock().map_err(|_| ToolError::Failed("the reflex engine is unavailable".into()))?;
            let written =
                engine.write_reflex(&p.name, &p.yaml, p.text.as_deref(), ctx.item.as_deref()).map_err(|e| match e {
                    WriteError::Io { .. } => ToolError::Failed(cn_compute::chain(&e)),
                    e => ToolError::BadParams(cn_compute::chain(&e)),
                })?;
            Ok(serde_json::json!({
                "path": written.path.strip_prefix(engine.hub()).unwrap_or(&written.path),
                "mode": "shadow",
                "note": "written in shadow mode: it records what it would do and acts once the owner approves it or it has agreed with you often enough",
                "dry_run": written.dry_run,
            }))
        },
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn enabled_is_set_in_place_or_added_after_the_name() {
        let a = "# a comment\nname: x\nenabled: true\nlevel: 0\n";
        assert_eq!(super::with_enabled(a, false), "# a comment\nname: x\nenabled: false\nlevel: 0\n");
        let b = "name: x\nlevel: 0\n";
        assert_eq!(super::with_enabled(b, false), "name: x\nenabled: false\nlevel: 0\n");
        assert_eq!(super::with_enabled("level: 0\n", true), "enabled: true\nlevel: 0\n");
    }
}
