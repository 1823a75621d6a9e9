//! The agent layer's errors. Each says what was wrong, where, and what to do; the binary maps
//! [`AgentError::Invalid`] and [`AgentError::Remote`] to a usage error (exit 2) and
//! [`AgentError::Empty`] to exit 3.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// No hub where one was looked for.
    #[error("{0}")]
    NoHub(String),
    /// A decision or command that cannot be performed as given (unknown peer, bad hash, …).
    #[error("{0}")]
    Invalid(String),
    /// A peer's remote git may not be given (a usage error, as `Invalid`).
    #[error(transparent)]
    Remote(#[from] cn_git::RemoteRefused),
    /// Nothing to do: an empty queue, or no current item to decide.
    #[error("{0}")]
    Empty(String),
    /// A decision the current item's sender may not cause: held for the owner's approval
    /// (the message names the approval), nothing decided.
    #[error("{0}")]
    Held(String),
    /// A file that cannot be read as what it should be.
    #[error("{path}: {message}")]
    Format { path: PathBuf, message: String },
    /// A file that is not an item, a mail or a recorded decision. `error` is kept whole, not
    /// as a `#[source]`: the message already says it, and a `{:#}` chain would say it twice.
    #[error("{path}: {error}")]
    Parse { path: PathBuf, error: ParseError },
    #[error("{path}")]
    Io { path: PathBuf, source: std::io::Error },
    /// A git command failed; it carries git's own explanation.
    #[error(transparent)]
    Git(#[from] cn_git::GitError),
    /// A state file (`tasks.json` …) could not be read or written; the message names it.
    #[error(transparent)]
    State(#[from] cn_hub::tasks::StateError),
    /// The journal could not be written or read.
    #[error(transparent)]
    Journal(#[from] cn_hub::journal::JournalError),
    /// Another command holds the hub (the lock's own message says which and for how long).
    #[error(transparent)]
    Busy(std::io::Error),
    /// A cn.yaml that cannot be used.
    #[error(transparent)]
    Config(#[from] cn_hub::ConfigError),
    /// The owner token or the hub's id key could not be read or made (the message names the
    /// file).
    #[error(transparent)]
    Token(#[from] cn_hub::owner_token::TokenError),
    /// The hub's origin (cn.yaml `origin:`): a push that failed, or a clone that does not
    /// hold the hub's lease and so may not decide or take peer mail.
    #[error(transparent)]
    Lease(#[from] cn_lease::LeaseError),
}

/// The hub's own errors keep their meaning here (an unknown peer stays a usage error).
impl From<cn_hub::HubError> for AgentError {
    fn from(e: cn_hub::HubError) -> Self {
        match e {
            cn_hub::HubError::NoHub(m) => AgentError::NoHub(m),
            cn_hub::HubError::Invalid(m) => AgentError::Invalid(m),
            cn_hub::HubError::Remote(r) => AgentError::Remote(r),
            cn_hub::HubError::Io { path, source } => AgentError::Io { path, source },
            cn_hub::HubError::Config(c) => AgentError::Config(c),
        }
    }
}

/// Why a text is not an item or a mail.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error(transparent)]
    Frontmatter(#[from] cn_storage::FrontmatterError),
    #[error("frontmatter has no `{0}`")]
    Missing(&'static str),
    #[error("frontmatter `id` {0:?} is not a plain name")]
    BadId(String),
    #[error("frontmatter `cadence` is {0:?}; expected inbox, daily, weekly, monthly, quarterly, yearly or adhoc")]
    BadCadence(String),
}

pub type Result<T, E = AgentError> = std::result::Result<T, E>;

/// Attach the path to an I/O error.
pub(crate) fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> AgentError + '_ {
    move |source| AgentError::Io { path: path.to_path_buf(), source }
}

/// Attach the path to a parse error.
pub(crate) fn parse_at(path: &Path) -> impl FnOnce(ParseError) -> AgentError + '_ {
    move |error| AgentError::Parse { path: path.to_path_buf(), error }
}

pub(crate) fn format_at(path: &Path, message: impl std::fmt::Display) -> AgentError {
    AgentError::Format { path: path.to_path_buf(), message: message.to_string() }
}
