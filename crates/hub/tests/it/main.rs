//! cn-hub's integration tests, in one binary.

mod approvals;
mod config;
mod cron;
mod hostile;
mod trust_config;
