//! cn-agent's integration tests, in one binary: peer mail between real hubs over real git
//! repositories and loopback servers, and a hub's queue taken and decided (`queue`), through
//! the crate's API (`support`, as the commands call it); the commands' own output is the
//! binary's.

mod fleet_mail;
mod git_env;
mod hostile;
mod hostile_sync;
mod mail_readonly;
mod out;
mod peers;
mod queue;
mod support;
mod trust_git;
mod trust_names;
mod trust_peers;
