//! The owner token: the secret that makes a request to the owner endpoint the owner's.
//!
//! `cn init` (and the first `cn run` on an older hub) creates 32 random bytes, hex-encoded,
//! in `.git/cn-owner-token` with mode 0600: inside git's own directory, so it is never
//! committed or pushed and no tool can read it (tools refuse `.git/`). When
//! `senses.owner.token_env` names an environment variable, the token is that variable
//! instead and no file is made. `cn chat` finds the token the same way.
//!
//! Invariant: there is no owner endpoint without a token.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::config::{env_secret, ConfigError, OwnerConfig};
use crate::Layout;

/// Why the owner token cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("the owner token {}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the owner token {} is empty; delete it and run `cn run` again to make a new one", path.display())]
    Empty { path: PathBuf },
    /// (getrandom's error is in the message, so it is not also the source.)
    #[error("the system gives no randomness for the owner token: {0}")]
    Random(getrandom::Error),
    #[error(transparent)]
    Config(#[from] ConfigError),
}

/// The token as configured: the variable `config.token_env` names, else the hub's token file
/// (read; `None` when it does not exist yet).
pub fn read(layout: &Layout, config: &OwnerConfig) -> Result<Option<String>, TokenError> {
    if let Some(var) = &config.token_env {
        return Ok(Some(env_secret("senses.owner.token_env", var)?));
    }
    read_file(&layout.owner_token())
}

/// The token as configured, creating the hub's token file when it does not exist.
pub fn load_or_create(layout: &Layout, config: &OwnerConfig) -> Result<String, TokenError> {
    if let Some(token) = read(layout, config)? {
        return Ok(token);
    }
    create(&layout.owner_token())
}

/// The hub's id key (`.git/cn-id-key`, made on first use): what [`crate::id::keyed`] hashes
/// with, so a peer cannot compute the id of an item the hub will make.
pub fn id_key(layout: &Layout) -> Result<String, TokenError> {
    match read_file(&layout.id_key())? {
        Some(key) => Ok(key),
        None => create(&layout.id_key()),
    }
}

/// This clone's id (`.git/cn-clone-id`, made on first use): how the lease in origin names
/// its holder, so a daemon restarted on the same clone knows the lease was its own. Not a
/// secret (the lease shows it); made like the token only because it is random too.
pub fn clone_id(layout: &Layout) -> Result<String, TokenError> {
    match read_file(&layout.clone_id())? {
        Some(id) => Ok(id.chars().take(16).collect()),
        None => create(&layout.clone_id()).map(|id| id.chars().take(16).collect()),
    }
}

/// Make the token file if it is missing (what `cn init` calls; an env-var token needs none).
pub fn ensure_file(layout: &Layout) -> Result<(), TokenError> {
    match read_file(&layout.owner_token())? {
        Some(_) => Ok(()),
        None => create(&layout.owner_token()).map(drop),
    }
}

fn read_file(path: &Path) -> Result<Option<String>, TokenError> {
    match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Err(TokenError::Empty { path: path.into() }),
        Ok(text) => {
            private(path);
            Ok(Some(text.trim().to_string()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(TokenError::Io { path: path.into(), source }),
    }
}

/// A secret copied in by hand (`cp` keeps the umask's 0644: the id key from another machine)
/// is made readable by the user alone before it is used: readable by others, anyone on the
/// machine could act as the owner or write the hub's lease and carry (issue 42's own red
/// team). Said once, when it is changed.
fn private(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let Ok(meta) = std::fs::metadata(path) else { return };
        if meta.permissions().mode() & 0o077 != 0 {
            match std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)) {
                Ok(()) => {
                    tracing::warn!(path = %path.display(), "was readable by others: made readable by its owner alone (0600)")
                }
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "is readable by others and cannot be made private")
                }
            }
        }
    }
}

/// Write a fresh token readable by the user alone. Two processes racing both end with the
/// token of the one whose file was created first (`create_new`).
fn create(path: &Path) -> Result<String, TokenError> {
    let io = |source| TokenError::Io { path: path.into(), source };
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(TokenError::Random)?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(mut file) => {
            file.write_all(format!("{token}\n").as_bytes()).and_then(|()| file.sync_all()).map_err(io)?;
            Ok(token)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            read_file(path)?.ok_or_else(|| TokenError::Empty { path: path.into() })
        }
        Err(source) => Err(io(source)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fresh_token_is_random_private_and_stable() {
        let dir = tempfile::tempdir().unwrap();
        let layout = Layout::new(dir.path());
        let config = OwnerConfig::default();
        assert_eq!(read(&layout, &config).unwrap(), None);
        let a = load_or_create(&layout, &config).unwrap();
        assert_eq!(a.len(), 64);
        assert_eq!(load_or_create(&layout, &config).unwrap(), a, "made once");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(layout.owner_token()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let other = tempfile::tempdir().unwrap();
        assert_ne!(load_or_create(&Layout::new(other.path()), &config).unwrap(), a);
        // A key copied in with the umask's mode is made private before it is used.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::write(layout.id_key(), "copied-key\n").unwrap();
            std::fs::set_permissions(layout.id_key(), std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(id_key(&layout).unwrap(), "copied-key");
            let mode = std::fs::metadata(layout.id_key()).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::env::set_var("CN_TEST_OWNER_TOKEN_HUB", "from-env");
        let env = OwnerConfig { token_env: Some("CN_TEST_OWNER_TOKEN_HUB".into()), ..OwnerConfig::default() };
        assert_eq!(load_or_create(&layout, &env).unwrap(), "from-env");
    }
}
