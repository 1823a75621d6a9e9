//! The hub's layout as the autonomy layer sees it: `cn_hub::Layout` is the one place that
//! knows it. (Finding the hub is `cn_hub::find_hub`.)

use std::path::{Path, PathBuf};

/// The hub's `state/` directory, where the impulse files and the journal live.
pub fn state_dir(hub: &Path) -> PathBuf {
    cn_hub::Layout::new(hub).state()
}
