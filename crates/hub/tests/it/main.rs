//! cn-hub's integration tests, in one binary.

mod approvals;
mod config;
mod trust_config;
