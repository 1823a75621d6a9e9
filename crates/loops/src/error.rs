//! The one error type of a loop. Every variant names the file or field at fault and, where
//! there is one, what to do; the binary maps `Input` to a usage error (exit 2).

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum LoopError {
    /// Bad input refused before anything runs or is committed.
    #[error("{0}")]
    Input(String),
    /// A cn.yaml that cannot be used (input too: the caller fixes the file).
    #[error(transparent)]
    Config(#[from] cn_hub::ConfigError),
    /// A component did not do its part (a controller without `target-met`, a bad answer).
    #[error("{role}: {message}")]
    Component { role: &'static str, message: String },
    #[error(transparent)]
    Git(#[from] cn_git::GitError),
    /// Bad input found through another error (an unreadable directory or answers file, a
    /// model that cannot be made, the loop's lock held); the cause is the source.
    #[error("{message}")]
    InputFrom { message: String, source: BoxError },
    /// A component failed through another error (a command that cannot start, a model
    /// that gave no answer); the cause is the source.
    #[error("{role}: {message}")]
    ComponentFrom { role: &'static str, message: String, source: BoxError },
    /// A controller model's answer that says neither `target-met: true` nor `false`.
    #[error("{role}")]
    Answer { role: &'static str, source: NoTargetMet },
    #[error("{path}")]
    Io { path: PathBuf, source: std::io::Error },
    /// A component changed the loop's files (`loop-run/` but its own output, or `cn.yaml`):
    /// refused, the run stops, nothing of the iteration is committed.
    #[error(
        "{role} `{command}` {}: the loop's files are the orchestrator's, so the run stops here and nothing of this iteration is committed. \
         See what it did with `git -C {dir} status -- loop-run cn.yaml`; restore them with `git -C {dir} checkout -- loop-run` \
         (or commit them, if you changed them yourself), then run `cn loop run` again",
        changes.join(", "),
        dir = dir.display()
    )]
    Tampered { role: &'static str, command: String, changes: Vec<String>, dir: PathBuf },
    /// A git repository of its own inside the tree (planted by a component, or there
    /// before): git would run its configuration whenever cn stages the tree.
    #[error(
        "{} in {dir} {}: git would run its configuration (a `core.fsmonitor` hook, a filter) whenever cn stages the tree, \
         outside any sandbox, so the run stops here and nothing of this iteration is committed. Remove it (or move it out of the tree), \
         or make it a submodule (`git submodule add`, its git directory under .git/modules/), then run `cn loop run` again",
        paths.join(", "),
        if paths.len() == 1 { "is a git repository of its own" } else { "are git repositories of their own" },
        dir = dir.display()
    )]
    Repository { paths: Vec<String>, dir: PathBuf },
}

impl LoopError {
    pub fn input(message: impl Into<String>) -> Self {
        LoopError::Input(message.into())
    }
    pub fn component(role: &'static str, message: impl Into<String>) -> Self {
        LoopError::Component { role, message: message.into() }
    }
    /// Bad input caused by `source`; `message` says what and where.
    pub fn input_from(message: impl Into<String>, source: impl Into<BoxError>) -> Self {
        LoopError::InputFrom { message: message.into(), source: source.into() }
    }
    /// `role` failed because of `source`; `message` says doing what.
    pub fn component_from(role: &'static str, message: impl Into<String>, source: impl Into<BoxError>) -> Self {
        LoopError::ComponentFrom { role, message: message.into(), source: source.into() }
    }
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> LoopError {
        let path = path.into();
        move |source| LoopError::Io { path, source }
    }
    /// True for input the caller should fix (exit 2 in the binary).
    pub fn is_input(&self) -> bool {
        matches!(self, LoopError::Input(_) | LoopError::InputFrom { .. } | LoopError::Config(_))
    }
}

pub type Result<T, E = LoopError> = std::result::Result<T, E>;

/// A controller answer without a readable `target-met`; `start` is its first 200 characters.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the answer does not start with `target-met: true|false` (as frontmatter or as its first line); it began: {start:?}")]
pub struct NoTargetMet {
    pub start: String,
}

/// Any error kept as a source: the causes a loop meets come from many crates (git, a
/// model, the file system) and are only ever shown, never matched.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
