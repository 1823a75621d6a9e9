//! cn-hub's integration tests, in one binary.

mod hostile;
mod trust_config;
