//! The hub: one agent's git repository, its layout, its config, and how a command finds it.
//! It lives in `cn_hub` (the one crate that knows the hub's format); the agent layer
//! re-exports it so `cn_agent::Hub` stays the name its callers use.

pub use cn_hub::hub::{find_hub, valid_name, Hub, Peer, OWNER};
pub use cn_hub::layout::CONFIG;
