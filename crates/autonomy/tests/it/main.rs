//! cn-autonomy's integration tests, in one binary (ripgrep's layout): a binary per test file, each
//! linking the whole stack, filled CI's disk and dominated its build.

mod common;
mod discord;
mod features;
mod hostile;
mod hostile_reads;
mod hostile_webhooks;
mod senses;
mod spool_kill;
