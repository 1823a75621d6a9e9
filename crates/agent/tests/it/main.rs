//! cn-agent's integration tests, in one binary: peer mail between real hubs over real git
//! repositories and loopback servers, through the crate's API (`support`, as the commands
//! call it); `cn sync`'s and `cn peer`'s own output is the binary's.

mod fleet_mail;
mod hostile;
mod hostile_sync;
mod support;
mod trust_git;
mod trust_names;
