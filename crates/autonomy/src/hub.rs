//! The hub's layout as the autonomy layer sees it. (Finding the hub is `cn_agent::find_hub`.)

use std::path::{Path, PathBuf};

/// The hub's `state/` directory, where the impulse files and the journal live.
pub fn state_dir(hub: &Path) -> PathBuf {
    hub.join("state")
}
