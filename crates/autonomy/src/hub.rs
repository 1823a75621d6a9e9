//! Finding the hub: an explicit `--hub` / `$CN_HUB`, else the nearest directory upwards from
//! the working directory that holds `cn.yaml`. (The agent layer has its own hub type; this
//! small finder lets the autonomy commands work on their own until the two are unified.)

use std::path::{Path, PathBuf};

/// Why no hub was found.
#[derive(Debug, thiserror::Error)]
pub enum HubError {
    #[error("hub {0} is not a directory; pass --hub DIR (or set CN_HUB) to an agent's hub")]
    NotADirectory(PathBuf),
    #[error("no hub: no cn.yaml in {0} or any directory above it; run `cn init` or pass --hub DIR")]
    NotFound(PathBuf),
    #[error("cannot read the working directory: {0}")]
    Cwd(std::io::Error),
}

/// The hub's root directory.
pub fn find_hub(explicit: Option<&Path>) -> Result<PathBuf, HubError> {
    if let Some(dir) = explicit {
        return if dir.is_dir() { Ok(dir.to_path_buf()) } else { Err(HubError::NotADirectory(dir.to_path_buf())) };
    }
    let cwd = std::env::current_dir().map_err(HubError::Cwd)?;
    cwd.ancestors()
        .find(|d| d.join("cn.yaml").is_file())
        .map(Path::to_path_buf)
        .ok_or(HubError::NotFound(cwd))
}

/// The hub's `state/` directory, where the impulse files and the journal live.
pub fn state_dir(hub: &Path) -> PathBuf {
    hub.join("state")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_hub_must_be_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(find_hub(Some(dir.path())).unwrap(), dir.path());
        let missing = dir.path().join("nope");
        assert!(matches!(find_hub(Some(&missing)), Err(HubError::NotADirectory(_))));
    }
}
