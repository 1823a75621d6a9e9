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
    Git(#[from] cn_hub::git::GitError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl LoopError {
    pub fn input(message: impl Into<String>) -> Self {
        LoopError::Input(message.into())
    }
    pub fn component(role: &'static str, message: impl Into<String>) -> Self {
        LoopError::Component {
            role,
            message: message.into(),
        }
    }
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> LoopError {
        let path = path.into();
        move |source| LoopError::Io { path, source }
    }
    /// True for input the caller should fix (exit 2 in the binary).
    pub fn is_input(&self) -> bool {
        matches!(self, LoopError::Input(_) | LoopError::Config(_))
    }
}

pub type Result<T, E = LoopError> = std::result::Result<T, E>;
