//! cn-daemon's integration tests, `cn_daemon::run` in-process (`common`: the daemon in a
//! thread of the test, or a process of its own to kill), on hubs whose models are shell
//! scripts: a run to idle, once and as a daemon (`run`), killed (`kill`), items that would
//! park (`hostile`), Discord and Telegram on loopback fakes, who may cause what
//! (`provenance`, `trust_peers`), a hub's runtime files kept out of git (`init_run`), the agent
//! keeping its word (`promises`). The binary's own end-to-end tests (crates/cn/tests/it) keep
//! flags, signals, exit codes, a process's memory and log, `cn chat` and an injected clock.

mod approvals;
mod common;
mod discord;
mod files;
mod hostile;
mod init_run;
mod kill;
mod live_journal;
mod owner;
mod peers;
mod promises;
mod provenance;
mod run;
mod serve;
mod telegram;
mod trust_peers;
