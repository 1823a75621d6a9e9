//! cn-daemon's integration tests beside `run.rs` (`cn_daemon::run` in-process): a hub's
//! runtime files kept out of git (`init_run`), the agent keeping its word across a run (`promises`), on hubs whose models are shell scripts. The
//! binary's own end-to-end tests (crates/cn/tests/it) keep flags, signals, exit codes,
//! `cn chat` and an injected clock.

mod init_run;
mod promises;
mod trust_peers;
